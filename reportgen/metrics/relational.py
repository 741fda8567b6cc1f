"""Relational fidelity: children per parent, synthetic referential integrity, parent-aggregate pairs.

METRICS.md section 9. For each foreign key ``child.fk -> parent.pk``:

- **cardinality similarity**: ``1 - TVD`` between the training and synthetic distributions of the
  number of child rows per parent row. Every parent counts, parents without children included.
  It is computed on all rows, not the sample (counting is cheap, and a row sample of the child
  table would thin every parent's children). The reference is the same measure between training
  and holdout data.
- **referential integrity** of the synthetic data, on all of its rows (not the sample): the share of
  child rows whose key has a parent, and the share of parent rows that repeat a key value; the same
  on the training data is shown beside it as its reference (real data may have orphans too).
- **parent columns vs child aggregates**: for each compared column of the parent and each child
  aggregate (the number of child rows, and the mean of each numeric child column), ``1 - TVD`` of
  their joint histogram over the sampled parent rows, each with all of its child rows. The bins
  are those of section 3: the parent column's pair bins, and ``n_bins`` quantile bins of the
  aggregate fitted on the training side, with "missing" as a bin (the mean over no children is
  missing).

Bins of the children-per-parent distribution: one bin per count ``0, 1, 2, ..., k - 1`` and one
pooled tail bin ``>= k``, where ``k - 1`` is the 99th percentile of the training counts (the smallest
count that at least 99% of the real parents do not exceed). The tail bin is then nearly empty in the
real data and collects synthetic parents with more children than real ones have. At most
``MAX_BINS`` (30) bins are used: when the 99th percentile is above 28, the counts from 1 upwards
are grouped into 28 equal-width integer ranges (``0`` keeps a bin of its own), then the tail.

How keys are matched, written down because synthetic data can break them:

- a child row with a missing key value (in any column of a composite key) has no parent; it is
  neither counted nor an orphan (the root of a self-reference, an optional link);
- a child row whose key matches no parent row is an orphan: it is left out of the counts and
  reported under integrity;
- when synthetic parent rows repeat a key value, a child with that key matches all of them; the
  children are counted per distinct parent key value, so one repeated value is one parent (its
  children are not counted twice). A parent row with a missing key counts as a parent without
  children;
- a composite foreign key is one relation, matched on the tuple of its columns' values
  (``reportgen.data.links`` decides matching for every part of reportgen).
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from reportgen.binning import ColumnBins, as_numbers, fit_bins, joint_histogram, shares, tvd
from reportgen.context import EvaluationContext
from reportgen.data import lake
from reportgen.data.kinds import to_canonical
from reportgen.data.links import CountDistribution, KeyCounts, link
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.data.schema import ColumnKind, Relation
from reportgen.metrics.registry import MetricNotApplicable
from reportgen.results import Basis, SectionResult

MAX_BINS = 30
TAIL_QUANTILE = 0.99
N_WORST = 5
MAX_PLOTTED = 24  # relations with a figure; beyond this, the least similar ones
CHILD_ROWS = "child rows"
EN_DASH = "\N{EN DASH}"
_NUMERIC = (ColumnKind.NUMERIC, ColumnKind.INTEGER)


class ChildCounts(BaseModel):
    """Children per parent in one role's data: shares per bin and summary statistics."""

    parents: int = Field(ge=0, description="Parents counted (distinct key values, see the module doc).")
    children: int = Field(ge=0, description="Child rows that have a parent.")
    mean: float | None = Field(default=None, ge=0, description="Mean number of children per parent.")
    median: float | None = Field(default=None, ge=0)
    max: int | None = Field(default=None, ge=0)
    shares: list[float] = Field(description="Share of parents in each bin of the relation's ``bins``.")


class SyntheticIntegrity(BaseModel):
    """Referential integrity of one foreign key in one role's full data (synthetic, or its reference)."""

    child_rows: int = Field(ge=0)
    missing_keys: int = Field(ge=0, description="Child rows with a missing key: no parent, not orphans.")
    orphans: int = Field(ge=0, description="Child rows whose key matches no parent row.")
    with_parent: float | None = Field(
        default=None, ge=0, le=1, description="Share of child rows with a key whose key has a parent."
    )
    parent_rows: int = Field(ge=0)
    duplicate_parent_keys: int = Field(ge=0, description="Parent rows repeating an earlier key value.")
    duplicate_parent_share: float = Field(ge=0, le=1, description="duplicate_parent_keys / parent_rows.")

    @property
    def has_orphans(self) -> bool:
        return self.orphans > 0

    @property
    def has_duplicates(self) -> bool:
        return self.duplicate_parent_keys > 0


class AggregatePair(BaseModel):
    """One parent column against one child aggregate: 1 - TVD of their joint histogram."""

    parent_column: str
    aggregate: str = Field(description="'child rows' (the count) or 'mean <child column>'.")
    similarity: float = Field(ge=0, le=1)
    reference: float | None = Field(default=None, ge=0, le=1)


class AggregateSimilarity(BaseModel):
    """Parent columns vs child aggregates of one relation: the mean and the least similar pairs."""

    n_pairs: int = Field(ge=1)
    mean: float = Field(ge=0, le=1)
    reference_mean: float | None = Field(default=None, ge=0, le=1)
    worst_pairs: list[AggregatePair]
    basis: Basis | None = Field(default=None, description="Parent rows the pairs were computed on.")


class RelationFidelity(BaseModel):
    """One foreign key: children-per-parent similarity, synthetic integrity and aggregate pairs."""

    child: str
    child_columns: list[str]
    parent: str
    parent_columns: list[str]
    bins: list[str] = Field(description="Labels of the children-per-parent bins; the last is the tail.")
    bin_starts: list[int] = Field(description="Smallest count of each bin.")
    similarity: float = Field(ge=0, le=1, description="1 - TVD(training, synthetic) of children per parent.")
    reference: float | None = Field(default=None, ge=0, le=1, description="1 - TVD(training, holdout).")
    train: ChildCounts
    test: ChildCounts | None = None
    synth: ChildCounts
    integrity: SyntheticIntegrity
    train_integrity: SyntheticIntegrity | None = Field(
        default=None, description="The same on the full training data: the synthetic data's reference."
    )
    aggregates: AggregateSimilarity | None = None
    basis: Basis | None = Field(
        default=None, description="Rows of the child table the counts and integrity were computed on."
    )

    @property
    def is_self_reference(self) -> bool:
        return self.child == self.parent

    @property
    def child_label(self) -> str:
        """``child.column``, or ``child.(a, b)`` for a composite key."""
        return f"{self.child}.{_columns(self.child_columns)}"

    @property
    def parent_label(self) -> str:
        return f"{self.parent}.{_columns(self.parent_columns)}"

    @property
    def label(self) -> str:
        """``child.column → parent.column``."""
        return f"{self.child_label} → {self.parent_label}"


class RelationalResult(SectionResult):
    """The relational section: one entry per foreign key, and the mean cardinality similarity."""

    relations: list[RelationFidelity]
    similarity: float = Field(ge=0, le=1, description="Mean cardinality similarity over the relations.")
    reference: float | None = Field(default=None, ge=0, le=1)

    def plotted(self) -> list[RelationFidelity]:
        """The relations that get a figure: all, or the ``MAX_PLOTTED`` least similar (schema order)."""
        if len(self.relations) <= MAX_PLOTTED:
            return list(self.relations)
        worst = sorted(range(len(self.relations)), key=lambda i: (self.relations[i].similarity, i))
        return [self.relations[i] for i in sorted(worst[:MAX_PLOTTED])]


def compute_relational(ctx: EvaluationContext) -> RelationalResult:
    """Children-per-parent similarity, synthetic integrity and aggregate pairs of every foreign key."""
    keys = list(ctx.train.schema.relations)
    if not keys:
        raise MetricNotApplicable("the data has no foreign keys")
    relations = [_relation(ctx, fk) for fk in keys]
    return RelationalResult(
        section="relational",
        relations=relations,
        similarity=float(np.mean([r.similarity for r in relations])),
        reference=_mean_or_none([r.reference for r in relations]),
    )


def _relation(ctx: EvaluationContext, fk: Relation) -> RelationFidelity:
    counts = {role: _children_per_parent(ctx, fk, role) for role in ctx.roles}
    starts = cardinality_bin_starts(counts[TRAIN])
    shares = {role: _shares(c, starts) for role, c in counts.items()}

    def similarity(role: str) -> float:
        return 1.0 - tvd(shares[TRAIN], shares[role])

    def summary(role: str) -> ChildCounts:
        return _child_counts(counts[role], shares[role])

    has_test = TEST in counts
    return RelationFidelity(
        child=fk.child,
        child_columns=list(fk.columns),
        parent=fk.parent,
        parent_columns=list(fk.parent_columns),
        bins=bin_labels(starts),
        bin_starts=[int(s) for s in starts],
        similarity=similarity(SYNTH),
        reference=similarity(TEST) if has_test else None,
        train=summary(TRAIN),
        test=summary(TEST) if has_test else None,
        synth=summary(SYNTH),
        integrity=synthetic_integrity(_key_counts(ctx, fk, SYNTH)),
        train_integrity=synthetic_integrity(_key_counts(ctx, fk, TRAIN)),
        aggregates=_aggregate_similarity(ctx, fk),
        basis=ctx.basis(fk.child, counted=True),
    )


def _children_per_parent(ctx: EvaluationContext, fk: Relation, role: str) -> CountDistribution:
    """Children per parent of a role: on every row in the engine when read in place, else in memory."""
    if ctx.in_place is not None:
        return lake.children_per_parent(ctx.in_place.sources[role], fk)
    return CountDistribution.of(link(ctx.full_data(role), fk).children_per_parent())


def _key_counts(ctx: EvaluationContext, fk: Relation, role: str) -> KeyCounts:
    """Integrity counts of a role's full data: in the engine when read in place, else in memory."""
    if ctx.in_place is not None:
        return lake.key_counts(ctx.in_place.sources[role], fk)
    return link(ctx.full_data(role), fk).key_counts()


def cardinality_bin_starts(real_counts: CountDistribution) -> np.ndarray:
    """Smallest count of each bin: ``0 .. k - 1`` one by one (or in ranges), then the tail ``>= k``.

    ``k - 1`` is the 99th percentile of the real counts; see the module docstring for the rule.
    """
    top = real_counts.quantile_inverted_cdf(TAIL_QUANTILE) if real_counts.n else 0
    if top + 2 <= MAX_BINS:
        return np.arange(top + 2)
    n_ranges = MAX_BINS - 2
    width = -(-top // n_ranges)
    return np.concatenate([[0], 1 + width * np.arange(-(-top // width) + 1)])


def bin_labels(starts: np.ndarray) -> list[str]:
    """'0', '1', ... for single counts, '1-5' (with an en dash) for ranges, '≥ k' for the tail."""
    labels = [str(lo) if hi - lo == 1 else f"{lo}{EN_DASH}{hi - 1}" for lo, hi in pairwise(starts)]
    return [*labels, f"≥ {starts[-1]}"]


def _shares(counts: CountDistribution, starts: np.ndarray) -> np.ndarray:
    bins = np.searchsorted(starts, counts.values, side="right") - 1
    return shares(np.bincount(bins, weights=counts.weights, minlength=len(starts)))


def _child_counts(counts: CountDistribution, shares: np.ndarray) -> ChildCounts:
    empty = counts.n == 0
    return ChildCounts(
        parents=counts.n,
        children=counts.total,
        mean=None if empty else counts.total / counts.n,
        median=None if empty else counts.median(),
        max=None if empty else int(counts.values.max()),
        shares=np.round(shares, 6).tolist(),
    )


def synthetic_integrity(counts: KeyCounts) -> SyntheticIntegrity:
    """Orphan child rows and repeated parent keys of one foreign key in one role's (full) data."""
    with_key = counts.child_rows - counts.missing_keys
    return SyntheticIntegrity(
        child_rows=counts.child_rows,
        missing_keys=counts.missing_keys,
        orphans=counts.orphans,
        with_parent=(with_key - counts.orphans) / with_key if with_key else None,
        parent_rows=counts.parent_rows,
        duplicate_parent_keys=counts.duplicate_parent_keys,
        duplicate_parent_share=(
            counts.duplicate_parent_keys / counts.parent_rows if counts.parent_rows else 0.0
        ),
    )


def _aggregate_similarity(ctx: EvaluationContext, fk: Relation) -> AggregateSimilarity | None:
    """Joint histograms of each parent column with each child aggregate, real vs synthetic."""
    parent = ctx.table(fk.parent)
    columns = ctx.settings.columns.select("biv", fk.parent, parent.compared_columns)
    if not columns:
        return None
    aggregates = {role: _aggregates(ctx, fk, role) for role in ctx.roles}
    bins = {
        name: fit_bins(name, ColumnKind.NUMERIC, pd.Series(values), n_bins=ctx.settings.n_bins)
        for name, values in aggregates[TRAIN].items()
    }
    joint = {role: _joint(ctx, fk.parent, role, columns, values, bins) for role, values in aggregates.items()}
    pairs = [
        AggregatePair(
            parent_column=column,
            aggregate=name,
            similarity=1.0 - tvd(real, joint[SYNTH][column, name]),
            reference=1.0 - tvd(real, joint[TEST][column, name]) if TEST in joint else None,
        )
        for (column, name), real in joint[TRAIN].items()
    ]
    return AggregateSimilarity(
        basis=ctx.basis(fk.parent, counted=False),
        n_pairs=len(pairs),
        mean=float(np.mean([p.similarity for p in pairs])),
        reference_mean=_mean_or_none([p.reference for p in pairs]),
        worst_pairs=sorted(pairs, key=lambda p: (p.similarity, p.parent_column, p.aggregate))[:N_WORST],
    )


def _aggregates(ctx: EvaluationContext, fk: Relation, role: str) -> dict[str, np.ndarray]:
    """Per sampled parent row: its number of children and the mean of each numeric child column.

    Over all of the parent row's children (the full child table), not the sampled ones.
    """
    child = ctx.table(fk.child)
    family = ctx.with_full_children(role, fk.parent)
    links = link(family, fk)
    out = {CHILD_ROWS: links.children_per_parent_row().astype(float)}
    for column in child.compared_columns:
        kind = child.schema.kinds[column]
        if kind in _NUMERIC:
            where = f"Table {fk.child!r}, column {column!r} of the {role} data"
            values = to_canonical(family[fk.child][column], kind, where, show_examples=role == SYNTH)
            out[f"mean {column}"] = links.mean_per_parent_row(as_numbers(values))
    return out


def _joint(
    ctx: EvaluationContext,
    parent: str,
    role: str,
    columns: list[str],
    aggregates: dict[str, np.ndarray],
    bins: dict[str, ColumnBins],
) -> dict[tuple[str, str], np.ndarray]:
    prepared = ctx.table(parent)
    codes = prepared.codes(role, pairs=True)
    agg_codes = {name: bins[name].codes(pd.Series(values)) for name, values in aggregates.items()}
    return {
        (column, name): joint_histogram(
            codes[column], agg_codes[name], prepared.pair_bins[column].n_codes, bins[name].n_codes
        )
        for column in columns
        for name in aggregates
    }


def _mean_or_none(values: list[float | None]) -> float | None:
    """The mean, or None when any value is missing (a reference exists only with holdout data)."""
    present = [v for v in values if v is not None]
    return float(np.mean(present)) if present and len(present) == len(values) else None


def _columns(columns: list[str]) -> str:
    return columns[0] if len(columns) == 1 else f"({', '.join(columns)})"
