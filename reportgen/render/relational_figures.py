"""Figures of the relational section: the children-per-parent distribution of each foreign key.

Each relation is one panel of bars, the share of parents with 0, 1, 2, ... children, training beside
synthetic (and holdout, when given). Panels are laid out as small multiples, at most
``PANELS_PER_FIGURE`` to a figure, each figure as wide as an A4 page's text (180 mm).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import PercentFormatter

from reportgen.metrics.relational import RelationalResult, RelationFidelity
from reportgen.render.figures import new_figure
from reportgen.render.formatting import short

PAGE_WIDTH = 180 / 25.4  # inches
PANEL_HEIGHT = 2.05  # inches, title and axis labels included
PANELS_PER_FIGURE = 6
MAX_TICK_LABELS = 12
TICK_CHARACTERS = 40  # characters of tick labels that fit side by side under a half-width panel
MAX_TITLE = 60  # characters
SERIES = (  # attribute of RelationFidelity, legend label, colour
    ("train", "training", "#173a5e"),
    ("synth", "synthetic", "#e07b39"),
    ("test", "holdout", "#9aa8b6"),
)


def cardinality_figures(result: RelationalResult) -> dict[str, Figure]:
    """The plotted relations' bar charts, ``PANELS_PER_FIGURE`` to a figure, keyed in page order."""
    shown = result.plotted()
    chunks = [shown[i : i + PANELS_PER_FIGURE] for i in range(0, len(shown), PANELS_PER_FIGURE)]
    return {f"cardinality:{i:02d}": cardinality_grid(chunk) for i, chunk in enumerate(chunks)}


def cardinality_grid(relations: Sequence[RelationFidelity]) -> Figure:
    """Small multiples: one panel per relation, two to a row (one when there is a single relation)."""
    n_cols = 1 if len(relations) == 1 else 2
    n_rows = -(-len(relations) // n_cols)
    width = PAGE_WIDTH * (0.6 if n_cols == 1 else 1.0)
    fig = new_figure(width, PANEL_HEIGHT * n_rows + 0.3)
    axes = fig.subplots(n_rows, n_cols, squeeze=False).ravel()
    for ax, relation in zip(axes, relations, strict=False):
        cardinality_bars(relation, ax)
    for ax in axes[len(relations) :]:
        ax.set_axis_off()
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=len(labels), fontsize=7, frameon=False)
    return fig


def cardinality_bars(relation: RelationFidelity, ax: Axes | None = None) -> Figure:
    """Share of parents per number of children, each role's bars side by side; returns the figure."""
    if ax is None:
        fig = new_figure(PAGE_WIDTH / 2, PANEL_HEIGHT)
        ax = fig.add_subplot()
    series = [(getattr(relation, attr), label, colour) for attr, label, colour in SERIES]
    series = [(counts, label, colour) for counts, label, colour in series if counts is not None]
    n_bins = len(relation.bins)
    x = np.arange(n_bins)
    width = 0.8 / len(series)
    for i, (counts, label, colour) in enumerate(series):
        offset = (i - (len(series) - 1) / 2) * width
        ax.bar(x + offset, counts.shares, width=width, color=colour, label=label, linewidth=0)
    step = -(-n_bins // MAX_TICK_LABELS)
    ticks = [*range(0, n_bins - 1, step), n_bins - 1]  # the tail bin always gets its label
    labels = [relation.bins[t] for t in ticks]
    rotate = len(ticks) * max(len(label) for label in labels) > TICK_CHARACTERS
    ax.set_xticks(ticks, labels, rotation=45 if rotate else 0, ha="right" if rotate else "center")
    ax.tick_params(labelsize=6, length=2)
    ax.yaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlim(-0.6, n_bins - 0.4)
    ax.set_xlabel(f"{relation.child} rows per {relation.parent} row", fontsize=6.5)
    ax.set_ylabel("share of parents", fontsize=6.5)
    ax.set_title(_title(relation), fontsize=7, loc="left")
    ax.spines[["top", "right"]].set_visible(False)
    for text in [ax.title, ax.xaxis.label, *ax.get_xticklabels()]:
        text.set_parse_math(False)  # table and column names are data, never mathtext
    figure = ax.get_figure()
    assert isinstance(figure, Figure)
    return figure


def _title(relation: RelationFidelity) -> str:
    label = short(relation.label, MAX_TITLE)
    score = f"similarity {relation.similarity:.2f}"
    if relation.reference is not None:
        score += f" (reference {relation.reference:.2f})"
    return f"{label}\n{score}"
