"""Turning matplotlib figures into images embedded in the page (no files beside the report)."""

from __future__ import annotations

import base64
import io
from typing import Literal

import matplotlib
from matplotlib.axes import Axes
from matplotlib.figure import Figure

matplotlib.rcParams["svg.hashsalt"] = "reportgen"  # stable SVG ids, so equal figures give equal bytes
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: small files, searchable PDFs


def new_figure(
    width: float, height: float, *, layout: Literal["constrained"] | None = "constrained"
) -> Figure:
    """A figure not registered with pyplot (no global state, safe in threads and notebooks)."""
    return Figure(figsize=(width, height), layout=layout)


def to_data_uri(figure: Figure) -> str:
    """The figure as an inline SVG data URI, readable by browsers and WeasyPrint alike."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    encoded = base64.b64encode(buffer.getvalue()).decode("ascii")
    return f"data:image/svg+xml;base64,{encoded}"


def no_mathtext(ax: Axes) -> None:
    """Names and categories are data: never let matplotlib read ``$...$`` in them as formulas."""
    for text in [*ax.get_xticklabels(), *ax.get_yticklabels(), ax.title, ax.xaxis.label, ax.yaxis.label]:
        text.set_parse_math(False)


def legend_below(ax: Axes, *, ncols: int = 2) -> None:
    """The axes' legend under its x-axis label, outside the plotted data.

    Constrained layout counts the legend in the axes' extent, so the figure makes room for it; a
    legend inside the axes covers data wherever the data happen to lie.
    """
    ax.legend(
        fontsize=5.2,
        frameon=False,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.32),
        ncols=ncols,
        borderaxespad=0,
    )
