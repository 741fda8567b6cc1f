"""Sequences: child rows that happen in order within their parent (a table's ``order_by``)."""

from __future__ import annotations

from matplotlib.figure import Figure

from reportgen.data.roles import SYNTH, TEST
from reportgen.metrics.registry import HeadlineSpec, Reading, Section
from reportgen.metrics.sequences import SequencesResult, compute_sequences
from reportgen.render.sequence_figures import furthest_measures
from reportgen.results import SectionResult
from reportgen.rules import BelowReference, ShareAboveReference


def _figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, SequencesResult)
    return {f"sequences:{i:02d}": furthest_measures(table) for i, table in enumerate(result.tables)}


def _sequence_similarity(r: SequencesResult) -> Reading:
    """The measure furthest beyond its tolerance below its reference, with that tolerance."""
    table = r.worst
    measure = table.worst
    reading = Reading.percent(r.similarity, r.reference, (table.child, table.parent))
    of = f" (the worst of {len(r.tables)} ordered tables)" if len(r.tables) > 1 else ""
    meaning = (
        f"How well the rows of {table.child} follow one another within each {table.parent} row{of}: "
        f"its measure furthest below its reference, {measure.label} (100: identically)."
    )
    return Reading(
        value=reading.value,
        reference=reading.reference,
        tables=reading.tables,
        meaning=meaning,
        tolerance=None if r.tolerance is None else 100 * r.tolerance,
    )


def _before_parent(r: SequencesResult) -> Reading | None:
    """The share of synthetic sequences that start before their parent's date, where one is compared.

    With several ordered tables, the one furthest above its holdout's share beyond its tolerance.
    """
    found = [t for t in r.tables if t.parent_order is not None]
    if not found:
        return None
    table = max(found, key=lambda t: (t.parent_order.excess, -found.index(t)))  # type: ignore[union-attr]
    order = table.parent_order
    assert order is not None
    meaning = (
        f"The share of {table.child} sequences whose first row ({order.child_column}) comes before their "
        f"{table.parent} row's {order.parent_column}, such as a claim before its policy starts."
    )
    return Reading(
        value=order.before[SYNTH],
        reference=order.before.get(TEST),
        tables=(table.child, table.parent),
        meaning=meaning,
        tolerance=order.tolerance,
    )


SECTION = Section(
    name="sequences",
    title="Fidelity: sequences",
    order=42,
    result_type=SequencesResult,
    compute=compute_sequences,
    template="sections/sequences.html.j2",
    figures=_figures,
    split_reference=True,
    methodology="sections/sequences_methodology.html.j2",
    headlines=(
        HeadlineSpec(
            name="sequence_similarity",
            label="Sequence similarity",
            unit="score",
            higher_is_better=True,
            concern="fidelity",
            meaning="How well the rows of each ordered child table follow one another within their "
            "parent: the measure furthest below its reference (100: identically).",
            read=_sequence_similarity,
            rule=BelowReference(),
        ),
        HeadlineSpec(
            name="sequences_before_parent",
            label="Sequences before their parent's date",
            unit="share",
            higher_is_better=False,
            concern="fidelity",
            meaning="The share of sequences whose first row comes before their parent row's date.",
            read=_before_parent,
            rule=ShareAboveReference(),
        ),
    ),
)
