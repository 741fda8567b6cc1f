"""The schema diagram: tables as boxes in layers (parents above children), foreign keys as arrows."""

from __future__ import annotations

from collections import defaultdict

from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from reportgen.metrics.overview import OverviewResult, RelationSummary
from reportgen.render.figures import new_figure
from reportgen.render.formatting import short

BOX_W, BOX_H = 1.0, 0.42
GAP_X, GAP_Y = 0.35, 0.75


def schema_figure(result: OverviewResult) -> Figure:
    """Draw every table with its training row count and every foreign key as a labelled arrow."""
    names = [t.name for t in result.tables]
    rows = {t.name: t.rows_train for t in result.tables}
    layers = _layers(names, result.relations)
    positions = _positions(layers, result.relations)
    x_max = max(x for x, _ in positions.values()) + BOX_W / 2 + 0.35
    y_min = min(y for _, y in positions.values()) - BOX_H / 2 - 0.05
    x_min, y_max = -0.05, BOX_H / 2 + 0.05
    scale = min(1.3, 7.0 / (x_max - x_min))  # inches per unit: at most the page's width
    fig = new_figure(scale * (x_max - x_min), scale * (y_max - y_min), layout=None)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    for name, (x, y) in positions.items():
        ax.add_patch(
            FancyBboxPatch(
                (x - BOX_W / 2, y - BOX_H / 2),
                BOX_W,
                BOX_H,
                boxstyle="round,pad=0.02,rounding_size=0.06",
                facecolor="#eef3f8",
                edgecolor="#34546e",
                linewidth=1.0,
            )
        )
        ax.text(
            x,
            y + 0.06,
            short(name, 16),
            ha="center",
            va="center",
            fontsize=8,
            weight="bold",
            parse_math=False,
        )
        ax.text(
            x,
            y - 0.11,
            f"{rows[name]:,} rows",
            ha="center",
            va="center",
            fontsize=6.5,
            color="#444",
            parse_math=False,
        )
    _draw_relations(ax, positions, result.relations)
    ax.set_xlim(x_min, x_max)
    ax.set_ylim(y_min, y_max)
    return fig


def _layers(names: list[str], relations: list[RelationSummary]) -> list[list[str]]:
    depth = dict.fromkeys(names, 0)
    for _ in names:  # longest path from a root; the schema is acyclic apart from self-references
        for r in relations:
            if r.child != r.parent:
                depth[r.child] = max(depth[r.child], depth[r.parent] + 1)
    layers: dict[int, list[str]] = defaultdict(list)
    for name in names:
        layers[depth[name]].append(name)
    return [layers[d] for d in sorted(layers)]


def _positions(layers: list[list[str]], relations: list[RelationSummary]) -> dict[str, tuple[float, float]]:
    """Roots side by side; each lower table under the mean position of its parents, never overlapping."""
    positions: dict[str, tuple[float, float]] = {}
    step = BOX_W + GAP_X
    for depth, layer in enumerate(layers):

        def wanted(name: str, i: int) -> float:
            xs = [positions[r.parent][0] for r in relations if r.child == name and r.parent in positions]
            return sum(xs) / len(xs) if xs else BOX_W / 2 + i * step

        targets = sorted((wanted(name, i), name) for i, name in enumerate(layer))
        x = -float("inf")
        for target, name in targets:
            x = max(target, x + step, BOX_W / 2)
            positions[name] = (x, -depth * (BOX_H + GAP_Y))
    return positions


def _draw_relations(ax, positions: dict[str, tuple[float, float]], relations: list[RelationSummary]) -> None:
    seen: dict[tuple[str, str], int] = defaultdict(int)
    for r in relations:
        (px, py), (cx, cy) = positions[r.parent], positions[r.child]
        nth = seen[(r.parent, r.child)]
        seen[(r.parent, r.child)] += 1
        if r.parent == r.child:
            start, end = (px + BOX_W / 2, py + 0.08), (px + BOX_W / 2, py - 0.08)
            rad, label_at = -1.6, (px + BOX_W / 2 + 0.16, py)
        else:
            start, end = (px, py - BOX_H / 2), (cx, cy + BOX_H / 2)
            rad = 0.25 * nth * (1 if nth % 2 else -1)
            label_at = ((px + cx) / 2 + 0.12 * nth, (py + cy) / 2)
        ax.add_patch(
            FancyArrowPatch(
                start,
                end,
                arrowstyle="-|>",
                mutation_scale=8,
                linewidth=0.8,
                color="#34546e",
                connectionstyle=f"arc3,rad={rad}",
            )
        )
        ax.text(
            *label_at,
            short(", ".join(r.columns), 14),
            fontsize=5.5,
            color="#34546e",
            ha="center",
            va="center",
            parse_math=False,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5},
        )
