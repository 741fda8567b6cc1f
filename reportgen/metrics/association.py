"""Association retained: how much of the real association between columns survives (METRICS.md 12).

The similarity score averages every cell of the similarity matrix, so on a table whose pairs are
mostly weakly linked a generator that samples each column on its own scores high. This measure
looks only at the association between columns. With ``phi_T``, ``phi_S``, ``phi_H`` the phik
matrices of the training, synthetic and holdout data (the correlation section's own, shared through
``phik_matrices``), over the counted pairs ``a < b`` of a table::

    A = 1 - sum |phi_T - phi_S| / sum phi_T

and its reference ``A_H`` with ``phi_H`` in place of ``phi_S``. A generator that keeps every
association scores near the reference; one that drops them all scores near 0, however many weak
pairs the table has.

Choices, stated in the report:

- Pairs within phik's noise level are left out: a pair whose phik significance (the asymptotic Z
  of its chi-square test of independence, ``reportgen.metrics.correlation``) is below ``NOISE_Z``
  both in the training data and in the holdout (in the training data alone without a holdout).
  Phik subtracts the expected chi-square of independent columns, but what is left still
  fluctuates: two independent columns of a few hundred rows get phik values near 0.1. Summed over
  the many weak pairs of a wide table that noise swamps the real associations: on a generated
  table with 3 linked and 6 independent columns, a fresh sample from the same distribution kept
  0.22 (200 rows) and 0.51 (1,000 rows) of the association with every pair counted, and 0.82 and
  0.89 with the noise pairs left out (mean of 5 draws; independent marginals: 0.15 and 0.01). The
  few pairs left out on adult (5 of 105) change nothing there. An association that the generator invents
  between columns that are independent in the real data is not counted here; the correlation
  similarity and the detection test see it.
- ``A`` below 0 (more association lost or invented than the real data holds) is shown as 0.
- A table whose counted pairs hold no association (``sum phi_T = 0``) is not measured, with why.
- The dataset's value pools the counted pairs of every table (the table values weighted by their
  ``sum phi_T``), as the correlation similarity pools its pairs.
- Each entity view (a parent's rows with aggregates of its children, ``reportgen.data.entities``)
  is measured the same way, on its own phik matrices: a generator that makes child rows without
  regard to their parent keeps every table's own associations and loses those between a parent's
  columns and its children's aggregates, which only the entity view holds. The entity headline is
  the view that keeps the least; entity views are not pooled with the tables (their parent columns
  would count twice).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from reportgen.context import ENTITY_SUFFIX, EvaluationContext
from reportgen.data.entities import entity_tables
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.metrics.correlation import PhikMatrices, phik_matrices, phik_of_frames
from reportgen.metrics.registry import measured_and_skipped
from reportgen.results import SectionResult

NOISE_Z = 3.0  # a pair below this phik significance in every real data set is noise
N_MOST_LOST = 5


class ColumnPair(BaseModel):
    """Two columns of a table, by name."""

    a: str
    b: str


class TableAssociation(BaseModel):
    """Association retained in one table or entity view, with the sums it is made of."""

    table: str = Field(description="Table name; entity views end with ' (entity)'.")
    view: Literal["table", "entity"] = "table"
    retained: float = Field(ge=0, le=1, description="1 - sum|phi_T - phi_S| / sum phi_T, at least 0.")
    reference: float | None = Field(default=None, ge=0, le=1, description="The same with phi_H for phi_S.")
    n_pairs: int = Field(ge=1, description="Column pairs counted.")
    n_noise: int = Field(ge=0, description="Pairs left out: within phik's noise level in the real data.")
    real_total: float = Field(gt=0, description="sum phi_T over the counted pairs.")
    difference: float = Field(ge=0, description="sum |phi_T - phi_S| over the counted pairs.")
    reference_difference: float | None = Field(default=None, ge=0, description="sum |phi_T - phi_H|.")
    most_lost: list[ColumnPair] = Field(
        description="Pairs that lose the most association (phi_T - phi_S), beyond what the holdout loses."
    )


class AssociationResult(SectionResult):
    """The association section: per table and entity view, the tables' pooled value, the weakest view."""

    tables: list[TableAssociation]
    retained: float | None = Field(default=None, ge=0, le=1, description="All tables' pairs pooled.")
    reference: float | None = Field(default=None, ge=0, le=1)
    entities: list[TableAssociation] = Field(default_factory=list, description="The entity views.")
    weakest_entity: str | None = Field(default=None, description="The entity view that keeps the least.")
    skipped: dict[str, str] = Field(
        default_factory=dict, description="Tables and views not measured, and why."
    )
    noise_z: float = Field(description="Phik significance below which a pair is noise (NOISE_Z).")


def association_retained(
    real: np.ndarray, other: np.ndarray, counted: np.ndarray | None = None
) -> float | None:
    """``1 - sum|real - other| / sum real`` over the pairs above the diagonal, clipped to [0, 1].

    ``real`` and ``other`` are phik matrices of the same columns; ``counted`` (a boolean matrix)
    keeps only some pairs. None when the counted pairs of ``real`` sum to 0 (nothing to retain).
    """
    upper = np.triu(np.ones(real.shape, dtype=bool), k=1)
    keep = upper if counted is None else upper & counted
    total = float(real[keep].sum())
    if total <= 0:
        return None
    return _clipped(1.0 - float(np.abs(real - other)[keep].sum()) / total)


def noise_pairs(significance: list[np.ndarray]) -> np.ndarray:
    """Pairs whose phik significance is below ``NOISE_Z`` in every given real data set."""
    return np.logical_and.reduce([z < NOISE_Z for z in significance])


def compute_association(ctx: EvaluationContext) -> AssociationResult:
    """Association retained in every table and entity view with two or more phik columns."""
    outcomes = {name: _measured(name, phik_matrices(ctx.table(name)), "table") for name in ctx.table_names}
    for parent in entity_tables(ctx.train.schema):
        name = parent + ENTITY_SUFFIX
        outcomes[name] = _measured(name, _entity_phik(ctx, parent, name), "entity")
    measured, skipped = measured_and_skipped(outcomes)
    tables = [t for t in measured if t.view == "table"]
    entities = [t for t in measured if t.view == "entity"]
    weakest = min(entities, key=lambda t: (t.retained, t.table), default=None)
    retained, reference = _pooled(tables)
    return AssociationResult(
        section="association",
        tables=tables,
        retained=retained,
        reference=reference,
        entities=entities,
        weakest_entity=None if weakest is None else weakest.table,
        skipped=skipped,
        noise_z=NOISE_Z,
    )


def _pooled(tables: list[TableAssociation]) -> tuple[float | None, float | None]:
    """The tables' value and reference over their pooled pairs (None: no table, or no holdout)."""
    if not tables:
        return None, None
    total = sum(t.real_total for t in tables)
    reference = None
    if all(t.reference_difference is not None for t in tables):
        reference = _clipped(1.0 - sum(t.reference_difference or 0.0 for t in tables) / total)
    return _clipped(1.0 - sum(t.difference for t in tables) / total), reference


def _measured(
    name: str, phik: PhikMatrices | None, view: Literal["table", "entity"]
) -> TableAssociation | str:
    """One table or view measured, or why it cannot be."""
    return "fewer than two columns that phik can compare" if phik is None else _table(name, phik, view)


def _entity_phik(ctx: EvaluationContext, parent: str, name: str) -> PhikMatrices | None:
    """The phik matrices of a parent's entity view (its columns and its children's aggregates)."""
    entity = ctx.entity(parent)
    columns = list(entity.kinds)
    numeric = {c for c, kind in entity.kinds.items() if kind.is_ordered}
    table = phik_matrices(ctx.table(parent))  # its constant columns are reported once, by the table
    reported = [] if table is None else table.columns
    return phik_of_frames(ctx, name, entity.frames, columns, numeric, reported=reported)


def _table(table: str, phik: PhikMatrices, view: Literal["table", "entity"]) -> TableAssociation | str:
    real, synth, holdout = phik.matrices[TRAIN], phik.matrices[SYNTH], phik.matrices.get(TEST)
    noise = noise_pairs([phik.significance[role] for role in (TRAIN, TEST) if role in phik.significance])
    upper = np.triu(np.ones(real.shape, dtype=bool), k=1)
    counted = upper & ~noise
    total = float(real[counted].sum())
    if total <= 0:
        return (
            "no two columns are associated beyond phik's noise level in the real data, so there is no "
            "association to retain"
        )
    retained = association_retained(real, synth, counted)
    assert retained is not None
    return TableAssociation(
        table=table,
        view=view,
        retained=retained,
        reference=None if holdout is None else association_retained(real, holdout, counted),
        n_pairs=int(counted.sum()),
        n_noise=int((upper & noise).sum()),
        real_total=total,
        difference=float(np.abs(real - synth)[counted].sum()),
        reference_difference=None if holdout is None else float(np.abs(real - holdout)[counted].sum()),
        most_lost=_most_lost(phik.columns, real, synth, holdout, counted),
    )


def _most_lost(
    columns: list[str], real: np.ndarray, synth: np.ndarray, holdout: np.ndarray | None, counted: np.ndarray
) -> list[ColumnPair]:
    """The pairs whose association falls most, counting only a fall beyond the holdout's difference."""
    allowance = np.zeros_like(real) if holdout is None else np.abs(real - holdout)
    excess = np.where(counted, real - synth - allowance, 0.0)
    ranked = sorted(zip(*np.nonzero(excess > 0), strict=True), key=lambda ij: (-excess[ij], ij))
    return [ColumnPair(a=columns[i], b=columns[j]) for i, j in ranked[:N_MOST_LOST]]


def _clipped(value: float) -> float:
    return min(1.0, max(0.0, value))
