"""Figures of the similarity section: the similarity matrix as a heatmap."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from reportgen.metrics.similarity import TableSimilarity
from reportgen.render.figures import new_figure, no_mathtext
from reportgen.render.formatting import short

ANNOTATE_UP_TO = 16  # columns; beyond this the cells are too small for numbers


def similarity_heatmap(table: TableSimilarity) -> Figure:
    """The table's similarity matrix, 1 = identical distributions, with names on both axes."""
    matrix = np.asarray(table.matrix)
    n = len(table.columns)
    size = min(7.0, 2.2 + 0.32 * n)
    fig = new_figure(size, size * 0.86)
    ax = fig.add_subplot()
    image = ax.imshow(matrix, vmin=min(0.5, float(matrix.min())), vmax=1.0, cmap="RdYlGn")
    labels = [short(c, 20) for c in table.columns]
    font = 7 if n <= 20 else max(3.5, 7 - (n - 20) * 0.1)
    ax.set_xticks(range(n), labels, rotation=90, fontsize=font)
    ax.set_yticks(range(n), labels, fontsize=font)
    no_mathtext(ax)
    if n <= ANNOTATE_UP_TO:
        # Each number lies inside its cell, so the layout need not measure it: a third of this figure's time.
        for i in range(n):
            for j in range(n):
                text = f"{matrix[i, j]:.2f}"
                ax.text(j, i, text, ha="center", va="center", fontsize=5.5, color="#1d2530", in_layout=False)
    bar = fig.colorbar(image, ax=ax, shrink=0.8)
    bar.set_label("similarity (1 - TVD)", fontsize=7)
    bar.ax.tick_params(labelsize=6)
    return fig
