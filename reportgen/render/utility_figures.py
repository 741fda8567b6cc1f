"""Figures of the utility section, drawn from a table's result alone.

Left: the two rankings side by side (a slope chart): models ranked by ``R_i`` (trained and scored on
real data) on the left and by ``S_i`` (trained and scored on synthetic data) on the right, with a line
joining each model's two places; crossing lines are the disagreements that lower SRA. Right: each
model's score trained on real data beside its score trained on synthetic data, both on the holdout.
"""

from __future__ import annotations

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from reportgen.metrics.utility import ModelScore, TableUtility
from reportgen.render.figures import new_figure, no_mathtext
from reportgen.render.formatting import short

REAL, SYNTHETIC, SAME, MOVED = "#173a5e", "#e07b00", "#173a5e", "#b3261e"
LABEL = 28  # characters of a model name in the figures
R2_FLOOR = -1.0  # R^2 below this is drawn at the floor (a model worse than predicting the mean)


def metric_label(table: TableUtility) -> str:
    """The score's name as printed: AUROC or R²."""
    return "AUROC" if table.metric == "AUROC" else "R²"


def utility_figure(table: TableUtility) -> Figure | None:
    """The rankings and the scores of one table, or None when no model has a score to show."""
    ranked = [m for m in table.models if m.rank_real is not None and m.rank_synthetic is not None]
    paired = [m for m in table.models if m.real is not None or m.tstr is not None]
    if not ranked and not paired:
        return None
    rows = max(len(ranked), len(paired), 2)
    fig = new_figure(7.0, 0.9 + 0.2 * rows)
    if ranked and paired:
        left, right = fig.subplots(1, 2, width_ratios=[1.05, 1])
        _rankings(left, ranked)
        _scores(right, paired, table)
    elif ranked:
        _rankings(fig.subplots(1, 1), ranked)
    else:
        _scores(fig.subplots(1, 1), paired, table)
    return fig


def _rankings(ax: Axes, models: list[ModelScore]) -> None:
    """A slope chart: place by R_i on the left, by S_i on the right (ties placed by the other)."""
    by_real = sorted(models, key=lambda m: (m.rank_real, m.rank_synthetic, m.model))
    by_synth = sorted(models, key=lambda m: (m.rank_synthetic, m.rank_real, m.model))
    y_left = {m.model: i for i, m in enumerate(by_real)}
    y_right = {m.model: i for i, m in enumerate(by_synth)}
    for m in models:
        moved = abs(y_left[m.model] - y_right[m.model])
        color, width = (SAME, 1.2) if moved == 0 else (MOVED, 1.2) if moved > 2 else ("#9aa5b1", 1.0)
        ax.plot([0, 1], [y_left[m.model], y_right[m.model]], color=color, linewidth=width, marker="o", ms=2.5)
    for m in by_real:
        label = f"{short(m.model, LABEL)}  {m.rank_real}"
        ax.text(-0.06, y_left[m.model], label, ha="right", va="center", fontsize=6, parse_math=False)
    for m in by_synth:
        label = f"{m.rank_synthetic}  {short(m.model, LABEL)}"
        ax.text(1.06, y_right[m.model], label, ha="left", va="center", fontsize=6, parse_math=False)
    top = -1.1
    ax.text(-0.06, top, "by R: real data", ha="right", va="center", fontsize=6.5, color=REAL, weight="bold")
    ax.text(
        1.06,
        top,
        "by S: synthetic data",
        ha="left",
        va="center",
        fontsize=6.5,
        color=SYNTHETIC,
        weight="bold",
    )
    ax.set_xlim(-2.1, 3.1)
    ax.set_ylim(len(models) - 0.5, top - 0.6)
    ax.axis("off")


def _scores(ax: Axes, models: list[ModelScore], table: TableUtility) -> None:
    """Each model's R_i and TSTR_i on one line, models in the order of R_i."""
    label = metric_label(table)
    floor = R2_FLOOR if table.metric == "R2" else None
    names = [short(m.model, LABEL) for m in models]
    for i, m in enumerate(models):
        values = [v for v in (m.real, m.tstr) if v is not None]
        if floor is not None:
            values = [max(v, floor) for v in values]
        if len(values) == 2:
            ax.plot(values, [i, i], color="#c5ccd4", linewidth=1.6, zorder=1)
    for key, name, color, marker in (
        ("real", "trained on real (R)", REAL, "o"),
        ("tstr", "trained on synthetic (TSTR)", SYNTHETIC, "D"),
    ):
        points = [(getattr(m, key), i) for i, m in enumerate(models) if getattr(m, key) is not None]
        if not points:
            continue
        xs = [x if floor is None else max(x, floor) for x, _ in points]
        ax.scatter(xs, [i for _, i in points], color=color, marker=marker, s=14, zorder=2, label=name)
    ax.set_yticks(range(len(models)), names)
    ax.set_ylim(len(models) - 0.5, -0.8)
    ax.tick_params(labelsize=6)
    clipped = floor is not None and any(v is not None and v < floor for m in models for v in (m.real, m.tstr))
    where = "holdout" if table.holdout == "given" else "held-out training rows"
    ax.set_xlabel(
        f"{label} on the {where}"
        + (" (values below \N{MINUS SIGN}1 drawn at \N{MINUS SIGN}1)" if clipped else ""),
        fontsize=6.5,
    )
    if table.metric == "AUROC":
        ax.axvline(0.5, color="#7d8894", linewidth=0.7, linestyle=":")
    ax.grid(axis="x", color="#e5e9ee", linewidth=0.6)
    ax.spines[["top", "right"]].set_visible(False)
    ax.legend(fontsize=5.5, frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=2)
    no_mathtext(ax)
