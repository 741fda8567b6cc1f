"""Figures of the distribution section: one small histogram per column, one pair of heatmaps per pair."""

from __future__ import annotations

import matplotlib.dates as mdates
import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import Colormap
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.metrics.distributions import ColumnDistribution, PairDistribution, too_wide
from reportgen.render.figures import (
    compact_labels,
    date_labels,
    figure_note,
    new_figure,
    no_mathtext,
    tick_label,
)
from reportgen.render.formatting import short

LABEL = 22  # characters of a category label beside a bar
PAIR_LABEL = 18  # characters of a bin label under a heatmap column
HIDDEN_NOTE = 0.02  # a difference inside "(other)" from which the figure says so
SIDE_LABEL_CHARACTERS = 10  # side bars' labels that fit side by side; more stand upright
STYLE = {
    TRAIN: {"color": "#173a5e", "label": "training"},
    TEST: {"color": "#7d8894", "label": "holdout"},
    SYNTH: {"color": "#e07b00", "label": "synthetic"},
}


def column_figure(dist: ColumnDistribution) -> Figure:
    """The column's histogram for every role; exact values and missing values as bars of their own.

    The histogram spans the robust range of the real data; an end whose outer bin also holds values
    beyond it reads "≤ x" or "≥ x". The side bars share the histogram's scale.
    """
    roles = [r for r in (TRAIN, TEST, SYNTH) if r in dist.shares]
    if dist.axis == "categorical":
        return _categorical_figure(dist, roles)
    side = _side_bars(dist)
    fig = new_figure(2.45, 1.75)
    grid = fig.add_gridspec(1, 2, width_ratios=[6, 1.3 * len(side)] if side else [1, 0.001])
    ax = fig.add_subplot(grid[0, 0])
    edges = np.asarray(dist.edges)
    if dist.axis == "datetime":
        edges = mdates.date2num(edges.astype("datetime64[s]"))
    scale = _drawn_scale(edges)
    edges = edges / scale
    for role in roles:
        style = STYLE[role]
        if role == TRAIN:
            ax.stairs(
                dist.shares[role], edges, fill=True, color=style["color"], alpha=0.25, label=style["label"]
            )
        else:
            ax.stairs(
                dist.shares[role],
                edges,
                color=style["color"],
                linewidth=1.1,
                label=style["label"],
                linestyle="--" if role == TEST else "-",
            )
    _range_ticks(ax, dist, edges, scale)
    _finish(ax, dist)
    if side:
        _side_panel(fig.add_subplot(grid[0, 1], sharey=ax), side, roles)
    return fig


def _drawn_scale(edges: np.ndarray) -> float:
    """What the edges are divided by to be drawn: 1, or their largest magnitude.

    The latter when the range is too wide for matplotlib to place ticks on: its width near or past
    a double's largest value, as from -1e308 to 1e308.
    """
    if edges.size == 0 or not too_wide(edges[0], edges[-1], headroom=4):
        return 1.0
    return float(np.max(np.abs(edges)))


def _range_ticks(ax: Axes, dist: ColumnDistribution, edges: np.ndarray, scale: float) -> None:
    """Ticks at both ends of the plotted range and a few round values between.

    ``edges`` are drawn divided by ``scale`` (``_drawn_scale``); the labels read the values. An end
    whose outer bin also holds the values beyond the range (``outside_range``) reads "≤ x" or
    "≥ x": the bar there is not the share at x alone.
    """
    per_value = dist.kind == "integer" and np.allclose(np.diff(edges), 1.0)
    low, high = (edges[0] + 0.5, edges[-1] - 0.5) if per_value else (edges[0], edges[-1])
    dates = dist.axis == "datetime"
    if dates:
        between = mdates.AutoDateLocator(minticks=3, maxticks=6).tick_values(*mdates.num2date([low, high]))
    else:
        between = MaxNLocator(3).tick_values(low, high)
    margin = 0.27 * (high - low)  # room for the end labels, which read "≤ x" / "≥ x"
    inner = [float(t) for t in between if low + margin < t < high - margin]
    ticks = [low, *inner, high] if high > low else [low]
    labels = _value_labels([t * scale for t in ticks], dates)
    if any(below > 0 for below, _ in dist.outside_range.values()):
        labels[0] = f"≤ {labels[0]}"
    if len(ticks) > 1 and any(above > 0 for _, above in dist.outside_range.values()):
        labels[-1] = f"≥ {labels[-1]}"
    ax.set_xticks(ticks, labels)


def _value_labels(values: list[float], dates: bool) -> list[str]:
    """Values of the x axis as text: dates (from matplotlib's day numbers) or compact numbers."""
    if dates:
        return date_labels([mdates.num2date(v).timestamp() for v in values])
    return compact_labels(values)


def _side_bars(dist: ColumnDistribution) -> list[tuple[str, dict[str, float]]]:
    """The bars beside the histogram: each exact value ("= 0"), then missing values when there are any."""
    dates = dist.axis == "datetime"
    values = mdates.date2num(np.asarray(dist.exact_values).astype("datetime64[s]")) if dates else None
    texts = _value_labels(list(values if values is not None else dist.exact_values), dates)
    bars = [
        (f"= {text}", {role: shares[i] for role, shares in dist.exact_shares.items()})
        for i, text in enumerate(texts)
    ]
    if any(share > 0 for share in dist.missing.values()):
        bars.append(("missing", dist.missing))
    return bars


def _side_panel(ax: Axes, bars: list[tuple[str, dict[str, float]]], roles: list[str]) -> None:
    """Each side bar's shares, one bar per role, grouped as in the histogram's colours."""
    width = 0.8 / len(roles)
    for k, role in enumerate(roles):
        ax.bar(
            [i + (k - (len(roles) - 1) / 2) * width for i in range(len(bars))],
            [shares[role] for _, shares in bars],
            width=width,
            color=STYLE[role]["color"],
            alpha=0.35 if role == TRAIN else 0.9,
        )
    crowded = sum(len(label) for label, _ in bars) > SIDE_LABEL_CHARACTERS
    ax.set_xticks(range(len(bars)), [label for label, _ in bars], fontsize=5.5, rotation=90 if crowded else 0)
    ax.set_xlim(-0.6, len(bars) - 0.4)
    ax.tick_params(labelleft=False, labelsize=5.5)
    ax.spines[["top", "right"]].set_visible(False)
    no_mathtext(ax)


def _categorical_figure(dist: ColumnDistribution, roles: list[str]) -> Figure:
    """Bars per level; a note when the pooled "(other)" hides part of the difference the number counts."""
    labels = [tick_label(label, LABEL) for label in dist.labels]
    keep = [i for i, _ in enumerate(labels) if any(dist.shares[r][i] > 0 for r in roles)]
    height = 0.9 + 0.13 * len(keep) * (1 + 0.3 * (len(roles) - 2))
    fig = new_figure(2.45, min(height, 4.2))
    ax = fig.add_subplot()
    width = 0.8 / len(roles)
    y = np.arange(len(keep))
    for k, role in enumerate(roles):
        values = [dist.shares[role][i] for i in keep]
        ax.barh(
            y + (k - (len(roles) - 1) / 2) * width,
            values,
            height=width,
            color=STYLE[role]["color"],
            alpha=0.35 if role == TRAIN else 0.9,
            label=STYLE[role]["label"],
        )
    ax.set_yticks(y, [labels[i] for i in keep], fontsize=5.5)
    ax.invert_yaxis()
    _finish(ax, dist)
    if dist.hidden_difference >= HIDDEN_NOTE:
        gap = 1 - dist.similarity
        hidden = f"{dist.hidden_difference:.2f} of the {gap:.2f} difference lies"
        figure_note(fig, f"{hidden}\ninside (other), among levels not drawn")
    return fig


def _finish(ax: Axes, dist: ColumnDistribution) -> None:
    ax.set_title(short(dist.column, 30), fontsize=7, loc="left")
    ax.tick_params(labelsize=5.5)
    ax.spines[["top", "right"]].set_visible(False)
    ax.margins(y=0.05)
    no_mathtext(ax)


def pair_figure(pair: PairDistribution) -> Figure:
    """Joint shares of a column pair, real beside synthetic on one colour scale; blank = too few rows."""
    real = np.array([[np.nan if v is None else v for v in row] for row in pair.real], dtype=float)
    synth = np.asarray(pair.synthetic, dtype=float)
    top = float(np.nanmax([np.nanmax(real) if np.isfinite(real).any() else 0.0, synth.max(), 1e-9]))
    n_a, n_b = real.shape
    fig = new_figure(7.0, min(1.3 + 0.22 * n_a, 3.6))
    axes = fig.subplots(1, 2, sharey=True)
    cmap: Colormap = colormaps["Blues"].with_extremes(bad="#eceff2")
    for ax, matrix, name in ((axes[0], real, "training (real)"), (axes[1], synth, "synthetic")):
        image = ax.imshow(np.ma.masked_invalid(matrix), cmap=cmap, vmin=0, vmax=top, aspect="auto")
        ax.set_title(name, fontsize=7, loc="left")
        ax.set_xticks(
            range(n_b),
            [tick_label(label, PAIR_LABEL) for label in pair.labels_b],
            rotation=45,
            ha="right",
            fontsize=5.5,
        )
        ax.set_xlabel(short(pair.b, 40), fontsize=6.5)
        no_mathtext(ax)
    axes[0].set_yticks(
        range(n_a), [tick_label(label, PAIR_LABEL + 2) for label in pair.labels_a], fontsize=5.5
    )
    axes[0].set_ylabel(short(pair.a, 40), fontsize=6.5)
    no_mathtext(axes[0])
    bar = fig.colorbar(image, ax=list(axes), shrink=0.9)
    bar.set_label("share of rows", fontsize=6.5)
    bar.ax.tick_params(labelsize=5.5)
    return fig
