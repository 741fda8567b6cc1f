"""Figures of the distribution section: one small histogram per column, one pair of heatmaps per pair."""

from __future__ import annotations

import matplotlib.dates as mdates
import numpy as np
from matplotlib import colormaps
from matplotlib.axes import Axes
from matplotlib.colors import Colormap
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from reportgen.data.validation import SYNTH, TEST, TRAIN
from reportgen.metrics.distributions import ColumnDistribution, PairDistribution
from reportgen.render.figures import CompactFormatter, new_figure, no_mathtext, tick_label
from reportgen.render.formatting import short

LABEL = 22  # characters of a category label beside a bar
PAIR_LABEL = 18  # characters of a bin label under a heatmap column
STYLE = {
    TRAIN: {"color": "#173a5e", "label": "training"},
    TEST: {"color": "#7d8894", "label": "holdout"},
    SYNTH: {"color": "#e07b00", "label": "synthetic"},
}


def column_figure(dist: ColumnDistribution) -> Figure:
    """The column's histogram for every role; missing values as a bar of their own."""
    roles = [r for r in (TRAIN, TEST, SYNTH) if r in dist.shares]
    if dist.axis == "categorical":
        return _categorical_figure(dist, roles)
    has_missing = any(share > 0 for share in dist.missing.values())
    fig = new_figure(2.45, 1.75)
    grid = fig.add_gridspec(1, 2, width_ratios=[6, 1] if has_missing else [1, 0.001])
    ax = fig.add_subplot(grid[0, 0])
    edges = np.asarray(dist.edges)
    if dist.axis == "datetime":
        edges = mdates.date2num(edges.astype("datetime64[s]"))
        ax.xaxis.set_major_locator(locator := mdates.AutoDateLocator(minticks=3, maxticks=6))
        ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    else:
        ax.xaxis.set_major_locator(MaxNLocator(4))
        ax.xaxis.set_major_formatter(CompactFormatter())
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
    _finish(ax, dist)
    if has_missing:
        miss = fig.add_subplot(grid[0, 1], sharey=ax)
        miss.bar(
            range(len(roles)), [dist.missing[r] for r in roles], color=[STYLE[r]["color"] for r in roles]
        )
        miss.set_xticks([1 if len(roles) == 3 else 0.5], ["missing"], fontsize=5.5)
        miss.tick_params(labelleft=False, labelsize=5.5)
        miss.spines[["top", "right"]].set_visible(False)
    return fig


def _categorical_figure(dist: ColumnDistribution, roles: list[str]) -> Figure:
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
