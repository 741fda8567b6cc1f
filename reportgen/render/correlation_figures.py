"""Figures of the correlation section: phik of the real data, of the synthetic data, and |difference|.

The three heatmaps share one figure, side by side, within the A4 text width (``PAGE_WIDTH_IN``).
A table wider than ``HEATMAP_COLUMNS`` shows the columns whose associations differ most
(``reportgen.render.wide``); the JSON holds every pair.
"""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.image import AxesImage

from reportgen.metrics.correlation import TableCorrelation
from reportgen.render.figures import new_figure
from reportgen.render.formatting import short
from reportgen.render.wide import heatmap_columns

PAGE_WIDTH_IN = 7.0  # 178 mm: the text width of an A4 page with the report's margins
ANNOTATE_UP_TO = 12  # columns; beyond this the cells are too small for numbers
DIFFERENCE_MAX = 0.5  # top of the difference colour scale: a gap of 0.5 or more is fully dark

_PANELS = (
    ("real", "Real (training)", "Blues", 1.0),
    ("synthetic", "Synthetic", "Blues", 1.0),
    ("difference", "|real \u2212 synthetic|", "Reds", DIFFERENCE_MAX),
)


def correlation_figure(table: TableCorrelation) -> Figure:
    """The table's three phik heatmaps side by side, of the columns ``heatmap_columns`` picks."""
    shown = heatmap_columns(table)
    n = len(shown)
    labels = _labels([table.columns[i] for i in shown], 14)
    fig = new_figure(PAGE_WIDTH_IN, 2.2 + 0.05 * max(map(len, labels)))
    axes = fig.subplots(1, 3)
    font, annotate = (6.0 if n <= 10 else 5.0), n <= ANNOTATE_UP_TO
    images = [
        _heatmap(ax, _submatrix(table, panel[0], shown), panel, labels, font=font, annotate=annotate)
        for ax, panel in zip(axes, _PANELS, strict=True)
    ]
    axes[1].tick_params(axis="y", labelleft=False)
    axes[2].tick_params(axis="y", labelleft=False)
    _colorbar(fig, images[0], list(axes[:2]), "phik")
    _colorbar(fig, images[2], [axes[2]], "|difference|", extend=_extend(table))
    return fig


def _submatrix(table: TableCorrelation, field: str, shown: list[int]) -> np.ndarray:
    return np.asarray(getattr(table, field))[np.ix_(shown, shown)]


def _heatmap(
    ax: Axes,
    matrix: np.ndarray,
    panel: tuple[str, str, str, float],
    labels: list[str],
    *,
    font: float,
    annotate: bool,
) -> AxesImage:
    _, title, cmap, vmax = panel
    n = len(labels)
    image = ax.imshow(matrix, vmin=0.0, vmax=vmax, cmap=cmap)
    ax.set_title(title, fontsize=7.5)
    ax.set_xticks(range(n), labels, rotation=90, fontsize=font)
    ax.set_yticks(range(n), labels, fontsize=font)
    ax.tick_params(length=1.5, pad=1)
    for label in [*ax.get_xticklabels(), *ax.get_yticklabels()]:
        label.set_parse_math(False)  # column names are data, never mathtext
    if annotate:
        size = 4.8 if n <= 8 else 3.5
        for i in range(n):
            for j in range(n):
                dark = matrix[i, j] > 0.6 * vmax
                colour = "white" if dark else "#1d2530"
                ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=size, color=colour)
    return image


def _colorbar(
    fig: Figure, image: AxesImage, axes: list[Axes], label: str, *, extend: str = "neither"
) -> None:
    bar = fig.colorbar(image, ax=axes, shrink=0.8, aspect=25, pad=0.02, extend=extend)
    bar.set_label(label, fontsize=6.5)
    bar.ax.tick_params(labelsize=5.5)


def _extend(table: TableCorrelation) -> str:
    return "max" if np.max(table.difference) > DIFFERENCE_MAX else "neither"


def _labels(columns: list[str], width: int) -> list[str]:
    return [short(c, width) for c in columns]
