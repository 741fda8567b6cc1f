"""Figures of the sequences section: the two measures of a table furthest below their reference.

Each measure is a panel, training beside synthetic (and holdout, when given). The per-sequence
statistics and steps are drawn as their quantile functions, from 5% to 95% (a curve per role; never
the extremes); transitions and stays as the shares of their cells; an autocorrelation as one bar
per role. Both are aggregates over many
sequences: no real sequence, and no real row, is ever drawn.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, PercentFormatter

from reportgen.metrics.sequences import SECONDS_PER_DAY, Profile, SequenceMeasure, SequenceTable
from reportgen.render.figures import (
    compact_labels,
    date_labels,
    legend_below,
    new_figure,
    no_mathtext,
    tick_label,
)
from reportgen.render.formatting import short

PAGE_WIDTH = 180 / 25.4  # inches
PANEL_HEIGHT = 2.3  # inches, title, axis labels and legend included
MAX_TITLE = 58  # characters
MAX_CELL_LABEL = 28  # characters of a transition's label
SERIES = (  # attribute of Profile, legend label, colour, line style
    ("train", "training", "#173a5e", "-"),
    ("synth", "synthetic", "#e07b39", "-"),
    ("test", "holdout", "#9aa8b6", "--"),
)


def furthest_measures(table: SequenceTable) -> Figure:
    """One panel per measure furthest below its reference (two, or one when the table has one)."""
    shown = table.furthest(2)
    fig = new_figure(PAGE_WIDTH * (0.55 if len(shown) == 1 else 1.0), PANEL_HEIGHT)
    axes = fig.subplots(1, len(shown), squeeze=False).ravel()
    for ax, measure in zip(axes, shown, strict=True):
        measure_panel(measure, ax)
    return fig


def measure_panel(measure: SequenceMeasure, ax: Axes) -> None:
    """One measure's profile per role: quantile curves, or bars of shares."""
    if measure.profile.kind == "quantiles":
        _quantile_curves(measure.profile, ax)
    elif measure.profile.kind == "value":
        _value_bars(measure.profile, ax)
    else:
        _share_bars(measure.profile, ax)
    ax.set_title(_title(measure), fontsize=6.5, loc="left")
    ax.tick_params(labelsize=5.5, length=2)
    ax.spines[["top", "right"]].set_visible(False)
    legend_below(ax, ncols=3)
    no_mathtext(ax)


def _series(profile: Profile) -> list[tuple[list[float], str, str, str]]:
    found = [(getattr(profile, attr), label, colour, style) for attr, label, colour, style in SERIES]
    return [(values, label, colour, style) for values, label, colour, style in found if values]


def _quantile_curves(profile: Profile, ax: Axes) -> None:
    """Each role's quantile function: the value below which a share of its sequences (or steps) lie."""
    levels = np.linspace(5, 95, len(profile.labels))
    for values, label, colour, style in _series(profile):
        ax.plot(levels, values, color=colour, linestyle=style, linewidth=1.2, label=label)
    ax.set_xlim(0, 100)
    ax.xaxis.set_major_formatter(PercentFormatter(100, decimals=0))
    ax.set_xlabel("share of sequences (steps) below", fontsize=6)
    ticks = [float(t) for t in ax.get_yticks()]
    ax.yaxis.set_major_locator(FixedLocator(ticks))
    if profile.unit == "date":
        ax.set_yticklabels(date_labels([t * SECONDS_PER_DAY for t in ticks]))
    else:
        ax.set_yticklabels(compact_labels(ticks))
    ax.set_ylabel("days" if profile.unit == "days" else "value", fontsize=6)


def _share_bars(profile: Profile, ax: Axes) -> None:
    """Horizontal bars: each cell's share per role, the most frequent real cell on top."""
    series = _series(profile)
    y = np.arange(len(profile.labels))
    height = 0.8 / len(series)
    for i, (values, label, colour, _) in enumerate(series):
        ax.barh(y + (i - (len(series) - 1) / 2) * height, values, height=height, color=colour, label=label)
    ax.set_yticks(y, [tick_label(label, MAX_CELL_LABEL) for label in profile.labels])
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    ax.set_xlabel("share of steps", fontsize=6)


def _value_bars(profile: Profile, ax: Axes) -> None:
    """One number per role (an autocorrelation, from -1 to 1), as horizontal bars."""
    series = _series(profile)
    for i, (values, label, colour, _) in enumerate(series):
        ax.barh(i, values[0], color=colour, height=0.6, label=label)
    ax.set_yticks(range(len(series)), [label for _, label, *_ in series])
    ax.invert_yaxis()
    ax.set_xlim(-1, 1)
    ax.axvline(0, color="#444444", linewidth=0.5)
    ax.set_xlabel(profile.labels[0], fontsize=6)


def _title(measure: SequenceMeasure) -> str:
    score = f"similarity {measure.similarity:.2f}"
    if measure.reference is not None:
        score += f" (reference {measure.reference:.2f})"
    return f"{short(measure.label, MAX_TITLE)}\n{score}"
