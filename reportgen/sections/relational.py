"""Relational structure: children per parent, key integrity and parent-child aggregates."""

from __future__ import annotations

from matplotlib.figure import Figure

from reportgen.metrics.registry import HeadlineSpec, Reading, Section
from reportgen.metrics.relational import RelationalResult, compute_relational
from reportgen.render.relational_figures import cardinality_figures
from reportgen.results import SectionResult
from reportgen.rules import BelowReference


def _figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, RelationalResult)
    return cardinality_figures(result)


def _cardinality(r: RelationalResult) -> Reading:
    tables = tuple(t for rel in r.relations for t in (rel.child, rel.parent))
    return Reading.percent(r.similarity, r.reference, tables)


SECTION = Section(
    name="relational",
    title="Fidelity: relational structure",
    order=40,
    result_type=RelationalResult,
    compute=compute_relational,
    template="sections/relational.html.j2",
    methodology="sections/relational_methodology.html.j2",
    figures=_figures,
    split_reference=True,
    headlines=(
        HeadlineSpec(
            name="cardinality",
            label="Cardinality similarity",
            unit="score",
            higher_is_better=True,
            concern="fidelity",
            meaning="How well the number of child rows per parent row is reproduced (100: exactly).",
            read=_cardinality,
            rule=BelowReference(),
        ),
    ),
)
