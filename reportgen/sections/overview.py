"""The data section: what was compared, table by table (no headline: it describes the inputs)."""

from __future__ import annotations

from matplotlib.figure import Figure

from reportgen.metrics.overview import OverviewResult, compute_overview
from reportgen.metrics.registry import Alarm, Section
from reportgen.render.schema_diagram import schema_figure
from reportgen.results import SectionResult


def _figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, OverviewResult)
    return {"schema": schema_figure(result)} if len(result.tables) > 1 else {}


SECTION = Section(
    name="overview",
    title="The data",
    order=10,
    result_type=OverviewResult,
    compute=compute_overview,
    template="sections/overview.html.j2",
    figures=_figures,
    alarms=(
        Alarm("synthetic_table_missing", "fidelity"),
        Alarm("synthetic_orphans", "fidelity"),
        Alarm("synthetic_duplicate_primary_keys", "fidelity"),
        Alarm("synthetic_missing_primary_keys", "fidelity"),
    ),
)
