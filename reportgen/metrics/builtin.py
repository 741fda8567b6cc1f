"""Registers the sections that ship with reportgen, through the same registry plugins use."""

from __future__ import annotations

from reportgen.metrics.overview import OverviewResult, compute_overview
from reportgen.metrics.registry import Section, register
from reportgen.render.schema_diagram import schema_figure


def _overview_figures(result: OverviewResult) -> dict:  # type: ignore[type-arg]
    return {"schema": schema_figure(result)} if len(result.tables) > 1 else {}


OVERVIEW = register(
    Section(
        name="overview",
        title="The data",
        order=10,
        result_type=OverviewResult,
        compute=compute_overview,  # type: ignore[arg-type]
        template="sections/overview.html.j2",
        figures=_overview_figures,  # type: ignore[arg-type]
    )
)
