"""Registers the sections that ship with reportgen, through the same registry plugins use."""

from __future__ import annotations

from matplotlib.figure import Figure

from reportgen.metrics.overview import OverviewResult, compute_overview
from reportgen.metrics.registry import Section, register
from reportgen.render.schema_diagram import schema_figure
from reportgen.results import SectionResult


def _overview_figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, OverviewResult)
    return {"schema": schema_figure(result)} if len(result.tables) > 1 else {}


OVERVIEW = register(
    Section(
        name="overview",
        title="The data",
        order=10,
        result_type=OverviewResult,
        compute=compute_overview,
        template="sections/overview.html.j2",
        figures=_overview_figures,
    )
)
