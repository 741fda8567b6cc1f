"""Association retained: how much of the association between columns the synthetic data keeps."""

from __future__ import annotations

from dataclasses import replace

from reportgen.metrics.association import AssociationResult, compute_association
from reportgen.metrics.registry import HeadlineSpec, Reading, Section
from reportgen.rules import BelowReference


def _association(r: AssociationResult) -> Reading | None:
    if r.retained is None:
        return None
    return Reading.percent(r.retained, r.reference, tuple(t.table for t in r.tables))


def _association_entity(r: AssociationResult) -> Reading | None:
    weakest = next((t for t in r.entities if t.table == r.weakest_entity), None)
    if weakest is None:
        return None
    return replace(
        Reading.percent(weakest.retained, weakest.reference, (weakest.table,)),
        meaning=(
            f"The same for a parent row with its children's aggregates, in the view that keeps the least "
            f"({weakest.table}): whether each parent keeps children that fit it."
        ),
    )


SECTION = Section(
    name="association",
    title="Fidelity: association retained",
    order=32,
    result_type=AssociationResult,
    compute=compute_association,
    template="sections/association.html.j2",
    methodology="sections/association_methodology.html.j2",
    split_reference=True,
    headlines=(
        HeadlineSpec(
            name="association",
            label="Association retained",
            unit="score",
            higher_is_better=True,
            concern="fidelity",
            meaning=(
                "How much of the association between columns (phik) the synthetic data keeps "
                "(100: all of it; near 0: none, as when each column is generated on its own)."
            ),
            read=_association,
            rule=BelowReference(),
        ),
        HeadlineSpec(
            name="association_entity",
            label="Association retained, entity level",
            unit="score",
            higher_is_better=True,
            concern="fidelity",
            meaning="The same for a parent row with its children's aggregates.",
            read=_association_entity,
            rule=BelowReference(),
        ),
    ),
)
