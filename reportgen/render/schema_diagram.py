"""The schema diagram: tables as boxes in layers (parents above children), foreign keys as arrows."""

from __future__ import annotations

from collections import defaultdict

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from reportgen.metrics.overview import OverviewResult, RelationSummary
from reportgen.render.figures import new_figure, tick_label
from reportgen.render.formatting import short

Point = tuple[float, float]
BOX_W, BOX_H = 1.0, 0.42
GAP_X, GAP_Y = 0.35, 0.75
LABEL = 20  # characters of a foreign key's label


def schema_figure(result: OverviewResult) -> Figure:
    """Draw every table with its training row count and every foreign key as a labelled arrow."""
    names = [t.name for t in result.tables]
    rows = {t.name: t.rows_train for t in result.tables}
    lacking = {t.name for t in result.tables if t.synthetic_missing}  # dashed, and said so
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
                facecolor="white" if name in lacking else "#eef3f8",
                edgecolor="#34546e",
                linewidth=1.0,
                linestyle="--" if name in lacking else "-",
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
            f"{rows[name]:,} rows" + (", real only" if name in lacking else ""),
            ha="center",
            va="center",
            fontsize=6.5,
            color="#444",
            parse_math=False,
        )
    ax.set_xlim(x_min, x_max)
    ax.set_ylim(y_min, y_max)
    _draw_relations(ax, positions, result.relations)  # after the limits: labels are placed by their extent
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
    positions: dict[str, Point] = {}
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


def _draw_relations(ax: Axes, positions: dict[str, Point], relations: list[RelationSummary]) -> None:
    """Each foreign key as an arrow, its label on the arrow where it covers no table and no other label.

    Two keys between the same tables curve apart; a label tries places along its arrow from the
    middle outwards and takes the first that is clear (else the least covered), so labels of
    arrows that meet or cross never print on top of each other.
    """
    taken = [Bbox.from_bounds(x - BOX_W / 2, y - BOX_H / 2, BOX_W, BOX_H) for x, y in positions.values()]
    seen: dict[tuple[str, str], int] = defaultdict(int)
    for r in relations:
        (px, py), (cx, cy) = positions[r.parent], positions[r.child]
        nth = seen[(r.parent, r.child)]
        seen[(r.parent, r.child)] += 1
        if r.parent == r.child:
            start, end = (px + BOX_W / 2, py + 0.08), (px + BOX_W / 2, py - 0.08)
            rad = -1.6
            right, below = px + BOX_W / 2, py - BOX_H / 2 - 0.12
            candidates = [(right + 0.16, py), (right, below), (right - 0.3, below), (right + 0.3, below)]
        else:
            start, end = (px, py - BOX_H / 2), (cx, cy + BOX_H / 2)
            rad = 0.25 * nth * (1 if nth % 2 else -1)
            candidates = [_on_arc(start, end, rad, t) for t in LABEL_PLACES]
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
        label = ax.text(
            *candidates[0],
            tick_label(", ".join(r.columns), LABEL),
            fontsize=5.5,
            color="#34546e",
            ha="center",
            va="center",
            parse_math=False,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.5},
            gid="relation-label",
        )
        taken.append(_place(label, candidates, taken))


# Places along an arrow for its label, as the arc's parameter: the middle first, then outwards.
LABEL_PLACES = sorted((0.15 + 0.05 * i for i in range(15)), key=lambda t: (abs(t - 0.5), t))


def _on_arc(start: Point, end: Point, rad: float, t: float) -> Point:
    """The point at ``t`` of matplotlib's ``arc3`` connection (a quadratic Bezier curve).

    The diagram's axes have one scale in x and y, so the curve is the same in data units.
    """
    (x1, y1), (x2, y2) = start, end
    cx, cy = (x1 + x2) / 2 + rad * (y2 - y1), (y1 + y2) / 2 - rad * (x2 - x1)
    a, b, c = (1 - t) ** 2, 2 * (1 - t) * t, t**2
    return a * x1 + b * cx + c * x2, a * y1 + b * cy + c * y2


def _place(label: Text, candidates: list[Point], taken: list[Bbox]) -> Bbox:
    """Move ``label`` to the first candidate where it overlaps nothing taken (else the least overlap)."""
    best: tuple[float, Bbox, Point] | None = None
    for xy in candidates:
        label.set_position(xy)
        box = _data_box(label)
        covered = sum(_overlap(box, other) for other in taken)
        if best is None or covered < best[0]:
            best = (covered, box, xy)
        if covered == 0:
            break
    assert best is not None
    label.set_position(best[2])
    return best[1]


def _data_box(label: Text) -> Bbox:
    """The label's extent in data units, with its white background's padding."""
    ax = label.axes
    assert ax is not None
    box = label.get_window_extent().transformed(ax.transData.inverted())
    return box.padded(0.02)


def _overlap(a: Bbox, b: Bbox) -> float:
    """Area shared by two boxes (0 when apart)."""
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return max(width, 0.0) * max(height, 0.0)
