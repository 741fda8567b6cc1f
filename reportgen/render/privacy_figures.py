"""Figures of the privacy section: 1-NN distances, proximity ratios and maximum similarity, per table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from reportgen.metrics.privacy import TablePrivacy
from reportgen.render.figures import legend_below, new_figure, no_mathtext

REAL, HOLDOUT, SYNTHETIC, CROSS = "#173a5e", "#7d8894", "#e07b00", "#b3261e"
CURVES = {
    "real_to_real": ("training → training", REAL, "-"),
    "synthetic_to_synthetic": ("synthetic → synthetic", SYNTHETIC, ":"),
    "synthetic_to_real": ("synthetic → training (DCR)", CROSS, "-"),
    "holdout_to_real": ("holdout → training", HOLDOUT, "--"),
    "tspr": ("TSPR: training to synthetic", CROSS, "-"),
    "ttpr": ("TTPR: training to training", REAL, "-"),
    "holdout": ("holdout to synthetic", HOLDOUT, "--"),
    "within_real": ("within training", REAL, "-"),
    "within_synthetic": ("within synthetic", SYNTHETIC, ":"),
    "cross": ("synthetic to training", CROSS, "-"),
}


def privacy_figure(table: TablePrivacy) -> Figure:
    """Up to three panels: 1-NN distances, proximity ratios with the threshold, maximum Gower similarity.

    A table too small for the proximity ratios has no ratio panel.
    """
    panels = [
        draw
        for draw, present in (
            (_distance_panel, True),
            (_ratio_panel, table.proximity is not None),
            (_similarity_panel, table.max_similarity is not None),
        )
        if present
    ]
    fig = new_figure(7.0, 2.3)
    axes: list[Axes] = list(fig.subplots(1, 3, squeeze=False)[0]) if len(panels) > 1 else [fig.subplots()]
    for draw, ax in zip(panels, axes, strict=False):
        draw(ax, table)
    for ax in axes[len(panels) :]:
        ax.set_visible(False)
    for ax in axes:
        no_mathtext(ax)
    return fig


def _distance_panel(ax: Axes, table: TablePrivacy) -> None:
    nn = table.distances.histogram
    _curves(ax, nn.edges, nn.counts, "distance to nearest neighbour")
    ax.set_title(f"1-NN distances ({table.distances.n_rows:,} rows)", fontsize=7, loc="left")


def _ratio_panel(ax: Axes, table: TablePrivacy) -> None:
    assert table.proximity is not None
    ratios = table.proximity.histogram
    ax.axvline(
        table.proximity.threshold,
        color="#1d2530",
        linewidth=0.8,
        linestyle="--",
        label=f"threshold τ = {table.proximity.threshold:.2f}",
    )
    _curves(ax, ratios.edges, ratios.counts, "proximity ratio (last bin: all above)")
    ax.set_title("Proximity ratios (all repeats)", fontsize=7, loc="left")


def _similarity_panel(ax: Axes, table: TablePrivacy) -> None:
    assert table.max_similarity is not None
    ms = table.max_similarity
    _curves(ax, ms.histogram.edges, ms.histogram.counts, "maximum Gower similarity")
    ax.set_title(f"Max. Gower similarity ({ms.n:,} rows)", fontsize=7, loc="left")


def _curves(ax: Axes, edges: Sequence[float], counts: dict[str, list[int]], xlabel: str) -> None:
    """Each curve as a share-of-rows step line on the shared bins."""
    for name, values in counts.items():
        label, color, style = CURVES.get(name, (name, "#555555", "-"))
        shares = np.asarray(values, dtype=float) / max(sum(values), 1)
        ax.stairs(shares, edges, color=color, linestyle=style, linewidth=1.1, label=label)
    ax.set_xlabel(xlabel, fontsize=6.5)
    ax.set_ylabel("share of rows", fontsize=6.5)
    ax.tick_params(labelsize=5.5)
    ax.spines[["top", "right"]].set_visible(False)
    legend_below(ax)
