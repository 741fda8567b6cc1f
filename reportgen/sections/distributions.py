"""Distributions: each column's distribution and the most telling pairs, drawn real against synthetic."""

from __future__ import annotations

from matplotlib.figure import Figure

from reportgen.metrics.distributions import DistributionsResult, compute_distributions
from reportgen.metrics.registry import Section
from reportgen.render.distribution_figures import column_figure, pair_figure
from reportgen.render.wide import worst_shown
from reportgen.results import SectionResult


def _figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, DistributionsResult)
    figures: dict[str, Figure] = {}
    for ti, t in enumerate(result.tables):  # keys by position: names may hold any character
        figures |= {f"column:{ti}:{ci}": column_figure(t.columns[ci]) for ci in worst_shown(t.columns)}
        figures |= {f"pair:{ti}:{pi}": pair_figure(p) for pi, p in enumerate(t.pairs)}
    return figures


SECTION = Section(
    name="distributions",
    title="Fidelity: distributions",
    order=25,
    result_type=DistributionsResult,
    compute=compute_distributions,
    template="sections/distributions.html.j2",
    methodology="sections/distributions_methodology.html.j2",
    figures=_figures,
    split_reference=True,
)
