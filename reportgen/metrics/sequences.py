"""Sequences: child rows that happen in order within their parent, compared as sequences.

A child table that declares ``order_by`` (``reportgen.data.schema``) holds one sequence per parent
row of each foreign key its order runs within (``Schema.sequences``): that parent's rows, sorted by
the order columns, ties broken by the primary key and then by the rows' order in the data. For
every sampled parent row, all of its child rows are read (the full child table, as entity views
read it), so a row sample never thins a sequence. The measures, each computed between training and
synthetic data and, as its reference, between training and holdout data:

- numeric, integer and datetime columns: the KS similarity ``1 - D`` (``D``: the two-sample
  Kolmogorov-Smirnov statistic) of the per-sequence **mean**, of the per-sequence **spread** (the
  standard deviation over a sequence's present values, ddof 0, for sequences with at least two),
  and of the **steps**, the differences between consecutive rows of a sequence where both are
  present (a datetime's steps are the time gaps between rows); for numeric and integer columns
  also the **autocorrelation**, the pooled lag-1 autocorrelation of the values centred on their
  sequence's mean (``lag1_autocorrelation``), compared as ``1 - |r_real - r_other| / 2``: rows
  shuffled within their sequence keep every mean and spread and move the steps little, but lose
  it (a date's order is the sequence's own, so dates have none);
- categorical and boolean columns: ``1 - TVD`` of the **transition** distribution, the joint
  histogram of (value at step t, value at step t + 1) over every pair of consecutive rows, with the
  pair bins of the column (its most frequent real levels, the rest pooled as "other", missing a
  level); the **stay** share, the share of steps that keep the previous value, compared as
  ``1 - |p_real - p_other|`` (the TVD of two two-point distributions); and the KS similarity of the
  number of **distinct** values per sequence.

Sequence length is the number of child rows per parent: the relational section's cardinality
similarity measures it for every foreign key, and this section does not measure it again.

A measure needs ``MIN_VALUES`` training values (sequences, or steps); with fewer it is left out and
says why. A synthetic side with no value at all (every synthetic sequence a single row, so no
step) scores 0: nothing in it is alike.

Each measure has a **tolerance**, how far below its reference sampling noise alone may put it:
``max(MARGIN, Z * sd * sqrt(1 + n_holdout / n_synthetic))``, ``sd`` the holdout's bootstrap spread
over whole sequences (``_tolerance``). A table's number, and the section's headline, is its
measure furthest beyond its tolerance below its reference (``SequenceTable.worst``), not the mean
over its measures: one shuffled column among many moves one measure, which a mean dilutes. The
mean and its reference are kept beside it.

**Order with the parent**: where the first order column is a date and the parent has datetime
columns, the share of sequences whose first row comes before their parent's date (a claim before
its policy starts), per role (``_parent_order`` says which date), with a two-proportion tolerance.

Figures show aggregates only: quantiles of the per-sequence statistics and steps, and shares of
transitions. No sequence and no row of the real data is ever drawn or printed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from reportgen.binning import MISSING_LABEL, OTHER_LABEL, ColumnBins, as_numbers, histogram, tvd
from reportgen.context import EvaluationContext, PreparedTable
from reportgen.data.kinds import to_canonical
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.data.schema import ColumnKind, Relation
from reportgen.data.sequence_view import SECONDS_PER_DAY, sort_into_sequences
from reportgen.metrics.registry import MetricNotApplicable, measured_and_skipped
from reportgen.metrics.similarity import ks_statistic
from reportgen.results import Basis, SectionResult
from reportgen.rules import SCORE_MARGIN, SHARE_MARGIN

MIN_VALUES = 10  # training sequences (or steps) a measure needs
QUANTILES = tuple(round(q, 2) for q in np.linspace(0.05, 0.95, 19))  # drawn per role; no extremes
TOP_TRANSITIONS = 8  # transitions drawn, the most frequent real ones
MARGIN = SCORE_MARGIN / 100  # a measure's least tolerance below its reference (page 1's 10 points)
Z = 3.0  # a measure's tolerance in spreads of the difference: ~0.1% one-sided per measure
BOOTSTRAP = 30  # resamples of each side's sequences that give a measure's spread
MAX_BEFORE = 0.5  # a parent date more training sequences start before is no start date
_CATEGORICAL = (ColumnKind.CATEGORICAL, ColumnKind.BOOLEAN)

MeasureName = Literal["mean", "spread", "steps", "autocorrelation", "transitions", "stay", "distinct"]
MEASURE_LABELS: dict[str, str] = {
    "mean": "per-sequence mean",
    "spread": "per-sequence spread",
    "steps": "steps between consecutive rows",
    "autocorrelation": "lag-1 autocorrelation within sequences",
    "transitions": "transitions (value at t, value at t + 1)",
    "stay": "share of steps that keep the value",
    "distinct": "distinct values per sequence",
}
NUMERIC_MEASURES: tuple[MeasureName, ...] = ("mean", "spread", "steps", "autocorrelation")
DATETIME_MEASURES: tuple[MeasureName, ...] = ("mean", "spread", "steps")  # a date's order is its own
CATEGORICAL_MEASURES: tuple[MeasureName, ...] = ("transitions", "stay", "distinct")


class Profile(BaseModel):
    """What a figure draws of one measure, per role: quantiles of its values, or shares of its cells.

    Aggregates only: quantiles from 5% to 95% (never the extremes) of per-sequence statistics or
    steps, interpolated; or the shares of the most frequent real transitions, each held by at least
    ``MIN_VALUES`` real steps.
    """

    kind: Literal["quantiles", "shares", "value"]
    labels: list[str] = Field(description="Quantile levels, the cells' labels, or the value's name.")
    train: list[float]
    synth: list[float]
    test: list[float] | None = None
    unit: str = Field(default="", description="'days', 'date' (days since 1970) or '' (the column's own).")


class SequenceMeasure(BaseModel):
    """One measure of one column: its similarity to the training data and its reference."""

    column: str
    measure: MeasureName
    similarity: float = Field(ge=0, le=1, description="Training vs synthetic (1 - KS, or 1 - TVD).")
    reference: float | None = Field(default=None, ge=0, le=1, description="Training vs holdout.")
    tolerance: float | None = Field(
        default=None, ge=0, description="How far below its reference sampling noise alone may put it."
    )
    values: dict[str, int] = Field(description="Values compared per role: sequences, or steps.")
    profile: Profile

    @property
    def label(self) -> str:
        return f"{self.column}: {MEASURE_LABELS[self.measure]}"

    @property
    def shortfall(self) -> float:
        """How far the similarity falls below its reference (below 1 without one)."""
        return (1.0 if self.reference is None else self.reference) - self.similarity

    @property
    def excess(self) -> float:
        """How far the shortfall goes beyond the measure's tolerance (negative: within it)."""
        return self.shortfall - (self.tolerance or 0.0)


class ParentOrder(BaseModel):
    """Sequences whose first row comes before their parent row's date (a claim before its policy starts)."""

    parent_column: str = Field(description="The parent's date the first row should not precede.")
    child_column: str = Field(description="The child's first order column, a date.")
    candidates: dict[str, float] = Field(
        description="Each datetime column of the parent, with its share of training sequences before it."
    )
    before: dict[str, float] = Field(description="Share of sequences whose first row is before it, per role.")
    sequences: dict[str, int] = Field(description="Sequences with both dates present, per role.")
    tolerance: float | None = Field(
        default=None, ge=0, description="How far above the holdout's share sampling noise alone may put it."
    )

    @property
    def excess(self) -> float:
        """How far the synthetic share exceeds the holdout's beyond the tolerance (negative: within)."""
        if TEST not in self.before:
            return -1.0
        return self.before[SYNTH] - self.before[TEST] - (self.tolerance or 0.0)


class SequenceTable(BaseModel):
    """One ordered child table within one of its parents: every measure, their mean and reference."""

    child: str
    parent: str
    key: list[str] = Field(description="The foreign key's columns in the child table.")
    order_by: list[str]
    sequences: dict[str, int] = Field(description="Parents with at least one child row, per role.")
    steps: dict[str, int] = Field(description="Pairs of consecutive rows, per role.")
    measures: list[SequenceMeasure]
    kinds: dict[str, ColumnKind] = Field(description="The kind of each measured column.")
    skipped: dict[str, str] = Field(default_factory=dict, description="Columns not measured, and why.")
    similarity: float = Field(ge=0, le=1, description="Mean similarity over the measures.")
    reference: float | None = Field(default=None, ge=0, le=1, description="Mean of their references.")
    basis: Basis | None = Field(default=None, description="Parent rows whose sequences were read.")
    parent_order: ParentOrder | None = Field(
        default=None, description="First rows before the parent's date, where both are dates."
    )
    parent_order_skipped: str | None = Field(default=None, description="Why no parent date was compared.")

    @property
    def worst(self) -> SequenceMeasure:
        """The measure furthest beyond its tolerance below its reference (the table's headline)."""
        return self.furthest(1)[0]

    @property
    def label(self) -> str:
        """``invoices per customers``."""
        return f"{self.child} per {self.parent}"

    def furthest(self, n: int = 2) -> list[SequenceMeasure]:
        """The ``n`` measures furthest beyond their tolerance below their reference, in page order.

        Measures below their reference come first: one at or above it is never shown as "furthest
        below" ahead of one below it, however narrow its tolerance.
        """
        measures = self.measures
        ranked = sorted(
            range(len(measures)), key=lambda i: (measures[i].shortfall <= 0, -measures[i].excess, i)
        )
        return [self.measures[i] for i in sorted(ranked[:n])]

    def by_column(self) -> list[tuple[str, ColumnKind, list[SequenceMeasure | None]]]:
        """Per measured column: its name, its kind, and its four measures in order (None: not measured).

        Categories have three: the fourth is always None.
        """
        rows = []
        for column in dict.fromkeys(m.column for m in self.measures):  # the table's order (a list's)
            found = {m.measure: m for m in self.measures if m.column == column}
            kind = self.kinds[column]
            names = CATEGORICAL_MEASURES if kind in _CATEGORICAL else NUMERIC_MEASURES
            measures = [found.get(name) for name in names]
            rows.append((column, kind, measures + [None] * (len(NUMERIC_MEASURES) - len(measures))))
        return rows


class SequencesResult(SectionResult):
    """Every ordered child table's sequences; the headline is the measure furthest beyond its tolerance."""

    tables: list[SequenceTable]
    skipped: dict[str, str] = Field(default_factory=dict, description="Ordered tables not measured, and why.")
    similarity: float = Field(ge=0, le=1, description="The worst measure's similarity (see ``worst``).")
    reference: float | None = Field(default=None, ge=0, le=1, description="That measure's reference.")
    tolerance: float | None = Field(default=None, ge=0, description="That measure's tolerance.")

    @property
    def worst(self) -> SequenceTable:
        """The table whose worst measure goes furthest beyond its tolerance (first in page order on ties)."""
        return max(self.tables, key=lambda t: (t.worst.excess, -self.tables.index(t)))


@dataclass(frozen=True)
class Values:
    """One measure's values in one role (per-sequence statistics, or steps) and the sequence of each."""

    values: np.ndarray  # one value (or, for autocorrelation, one pair) per sequence or step
    sequence: np.ndarray  # ascending: the values of one sequence together

    def __len__(self) -> int:
        return len(self.values)

    @property
    def n_sequences(self) -> int:
        """The sequences that hold a value."""
        return int(np.count_nonzero(np.diff(self.sequence))) + 1 if len(self.sequence) else 0

    def resample(self, rng: np.random.Generator) -> np.ndarray:
        """The values of as many sequences as hold one, drawn with replacement, each with all its values."""
        owners, starts, counts = np.unique(self.sequence, return_index=True, return_counts=True)
        if not len(owners):
            return self.values
        pick = rng.integers(0, len(owners), len(owners))
        lengths = counts[pick]
        offsets = np.repeat(starts[pick] - np.cumsum(lengths) + lengths, lengths)
        return self.values[offsets + np.arange(int(lengths.sum()))]


@dataclass(frozen=True)
class Ordered:
    """One role's child rows of the sampled parents, in sequence order, with each row's sequence."""

    group: np.ndarray  # the sequence of each row, 0 .. n_sequences - 1, rows of one sequence together
    frame: pd.DataFrame  # compared columns, canonical dtypes, in sequence order
    first: np.ndarray | None  # each sequence's first date (seconds; NaN: none), where the order is a date
    parents: pd.DataFrame  # each sequence's parent row (its first, where parent rows repeat a key)

    @property
    def n_sequences(self) -> int:
        return int(self.group[-1]) + 1 if len(self.group) else 0

    @property
    def step(self) -> np.ndarray:
        """For each row but the last, whether the next row continues its sequence."""
        return self.group[1:] == self.group[:-1]


def compute_sequences(ctx: EvaluationContext) -> SequencesResult:
    """The sequence measures of every ordered child table within each parent it is ordered in."""
    schema = ctx.train.schema
    keys = [fk for name in ctx.table_names for fk in schema.sequences(name)]
    if not keys:
        raise MetricNotApplicable("no table declares the order of its rows (order_by)")
    outcomes = {f"{fk.child} per {fk.parent}": _table_or_reason(ctx, fk) for fk in keys}
    tables, skipped = measured_and_skipped(outcomes)
    result = SequencesResult(section="sequences", tables=tables, skipped=skipped, similarity=0.0)
    worst = result.worst.worst
    result.similarity, result.reference, result.tolerance = worst.similarity, worst.reference, worst.tolerance
    return result


def _table_or_reason(ctx: EvaluationContext, fk: Relation) -> SequenceTable | str:
    ctx.progress(f"{fk.child} per {fk.parent}")
    prep = ctx.table(fk.child)
    ordered = {role: ordered_rows(ctx, fk, role) for role in ctx.roles}
    if ordered[TRAIN].n_sequences < MIN_VALUES:
        return f"{ordered[TRAIN].n_sequences} training sequences; the measures need {MIN_VALUES}"
    columns = ctx.settings.columns.select("univ", fk.child, prep.compared_columns)
    measures: list[SequenceMeasure] = []
    skipped: dict[str, str] = {}
    for column in columns:
        found = _column_measures(prep, column, ordered, ctx.rng(f"sequences:{fk.child}:{fk.parent}:{column}"))
        measures += [m for m in found if isinstance(m, SequenceMeasure)]
        if reasons := [m for m in found if isinstance(m, str)]:
            skipped[column] = "; ".join(reasons)
    if not measures:
        return "no measurable column: " + "; ".join(f"{c}: {r}" for c, r in skipped.items())
    references = [m.reference for m in measures if m.reference is not None]
    parent_order = _parent_order(ctx, fk, ordered)
    return SequenceTable(
        child=fk.child,
        parent=fk.parent,
        key=list(fk.columns),
        order_by=list(ctx.train.schema[fk.child].order_by),
        sequences={role: o.n_sequences for role, o in ordered.items()},
        steps={role: int(np.count_nonzero(o.step)) for role, o in ordered.items()},
        measures=measures,
        kinds={c: prep.schema.kinds[c] for c in dict.fromkeys(m.column for m in measures)},
        skipped=skipped,
        similarity=float(np.mean([m.similarity for m in measures])),
        reference=float(np.mean(references)) if len(references) == len(measures) else None,
        basis=ctx.basis(fk.parent, counted=False),
        parent_order=parent_order if isinstance(parent_order, ParentOrder) else None,
        parent_order_skipped=parent_order if isinstance(parent_order, str) else None,
    )


def _parent_order(
    ctx: EvaluationContext, fk: Relation, ordered: dict[str, Ordered]
) -> ParentOrder | str | None:
    """The share of sequences that start before their parent's date, per role (None: no dates to compare).

    The parent's date is the datetime column (declared or inferred, keys left out) that the most
    training sequences start on or after, ties broken by the smallest median time from it to the
    first row (a policy's start rather than its holder's birth). It is compared only where at most
    ``MAX_BEFORE`` of the training sequences start before it (otherwise the parent's dates do not
    precede its children's, and there is no order to keep).
    """
    if ordered[TRAIN].first is None:
        return None
    parent = ctx.train.schema[fk.parent]
    columns = [c for c, k in parent.kinds.items() if k is ColumnKind.DATETIME and c not in parent.key_columns]
    if not columns:
        return None
    dates = {c: _parent_dates(fk, c, ordered[TRAIN], TRAIN) for c in columns}
    before = {c: {role: _before(fk, c, o, role) for role, o in ordered.items()} for c in columns}
    shares = {c: found[TRAIN][0] for c, found in before.items()}
    chosen = min(columns, key=lambda c: (shares[c], _median_lead(ordered[TRAIN], dates[c])))
    if before[chosen][TRAIN][1] < MIN_VALUES:
        return f"{before[chosen][TRAIN][1]} training sequences with both dates; {MIN_VALUES} needed"
    if shares[chosen] > MAX_BEFORE:
        start = f"{shares[chosen]:.0%} of training sequences start before {chosen}"
        return f"the parent's dates do not precede its rows' ({start})"
    found = before[chosen]
    return ParentOrder(
        parent_column=chosen,
        child_column=ctx.train.schema[fk.child].order_by[0],
        candidates=shares,
        before={role: share for role, (share, _) in found.items()},
        sequences={role: n for role, (_, n) in found.items()},
        tolerance=_share_tolerance(found) if TEST in found else None,
    )


def _parent_dates(fk: Relation, column: str, ordered: Ordered, role: str) -> np.ndarray:
    """Each sequence's parent's ``column``, in seconds (NaN: missing)."""
    where = f"Table {fk.parent!r}, column {column!r} of the {role} data"
    return as_numbers(
        to_canonical(ordered.parents[column], ColumnKind.DATETIME, where, show_examples=role == SYNTH)
    )


def _median_lead(ordered: Ordered, dates: np.ndarray) -> float:
    """The median time from the parent's date to the sequence's first row (inf: none to compare)."""
    assert ordered.first is not None
    lead = (ordered.first - dates)[~np.isnan(ordered.first) & ~np.isnan(dates)]
    return float(np.median(lead)) if len(lead) else np.inf


def _before(fk: Relation, column: str, ordered: Ordered, role: str) -> tuple[float, int]:
    """The share of a role's sequences that start before their parent's ``column``, and of how many."""
    dates = _parent_dates(fk, column, ordered, role)
    assert ordered.first is not None
    both = ~np.isnan(dates) & ~np.isnan(ordered.first)
    n = int(np.count_nonzero(both))
    return (float(np.mean(ordered.first[both] < dates[both])) if n else 0.0), n


def _share_tolerance(found: dict[str, tuple[float, int]]) -> float:
    """How far above the holdout's share the synthetic share may be by sampling noise alone.

    ``max(SHARE_MARGIN, Z * se)``, with ``se`` the standard error of the difference of the two
    shares under their pooled share (a two-proportion test's).
    """
    (p_synth, n_synth), (p_test, n_test) = found[SYNTH], found[TEST]
    if not n_synth or not n_test:
        return SHARE_MARGIN
    pooled = (p_synth * n_synth + p_test * n_test) / (n_synth + n_test)
    se = np.sqrt(pooled * (1 - pooled) * (1 / n_synth + 1 / n_test))
    return max(SHARE_MARGIN, Z * float(se))


def ordered_rows(ctx: EvaluationContext, fk: Relation, role: str) -> Ordered:
    """A role's child rows of its sampled parent rows (all of them), sorted into sequences.

    The order is ``reportgen.data.sequence_view.sort_into_sequences``'s, the sequence views'.
    """
    data = ctx.with_full_children(role, fk.parent)
    sequences = sort_into_sequences(data, fk, role, show_examples=role == SYNTH)
    table = ctx.train.schema[fk.child]
    dated = table.kinds[table.order_by[0]] is ColumnKind.DATETIME
    starts = sequences.starts
    return Ordered(
        group=sequences.group,
        frame=ctx.table(fk.child).canonical(sequences.rows, role).reset_index(drop=True),
        first=as_numbers(sequences.order[table.order_by[0]][starts]) if dated else None,
        parents=_parent_rows(data[fk.parent], sequences.parent_codes, sequences.codes[starts]),
    )


def _parent_rows(parent: pd.DataFrame, parent_codes: np.ndarray, codes: np.ndarray) -> pd.DataFrame:
    """The parent row of each key code in ``codes`` (the first of its rows, where a key repeats)."""
    by_code = np.argsort(parent_codes, kind="stable")
    known, first = np.unique(parent_codes[by_code], return_index=True)
    return parent.iloc[by_code[first[np.searchsorted(known, codes)]]].reset_index(drop=True)


def _column_measures(
    prep: PreparedTable, column: str, ordered: dict[str, Ordered], rng: np.random.Generator
) -> list[SequenceMeasure | str]:
    """The measures of one column: per-sequence statistics and steps, or transitions and distincts."""
    kind = prep.schema.kinds[column]
    if kind in _CATEGORICAL:
        per_role = {role: _categorical_values(o, column, prep) for role, o in ordered.items()}
        names = CATEGORICAL_MEASURES
    else:
        per_role = {role: _numeric_values(o, column, kind) for role, o in ordered.items()}
        names = DATETIME_MEASURES if kind is ColumnKind.DATETIME else NUMERIC_MEASURES
    return [
        _measure(column, name, {role: values[name] for role, values in per_role.items()}, kind, prep, rng)
        for name in names
    ]


def _numeric_values(ordered: Ordered, column: str, kind: ColumnKind) -> dict[str, Values]:
    """Per-sequence means and spreads, and the steps between consecutive present values."""
    x = as_numbers(ordered.frame[column])
    if kind is ColumnKind.DATETIME:
        x = x / SECONDS_PER_DAY
    present = ~np.isnan(x)
    kept = ordered.step & present[1:] & present[:-1]
    steps = Values((x[1:] - x[:-1])[kept], ordered.group[1:][kept])
    # each sequence's values sorted before they are summed: its statistics do not depend on its order
    by_value = np.lexsort((x, ordered.group))
    group, values, n = ordered.group[by_value], x[by_value], ordered.n_sequences
    group, values = group[~np.isnan(values)], values[~np.isnan(values)]
    counts = np.bincount(group, minlength=n)
    means = np.bincount(group, weights=values, minlength=n) / np.maximum(counts, 1)
    squares = np.bincount(group, weights=(values - means[group]) ** 2, minlength=n)
    sequence = np.arange(n)
    centred = x - means[ordered.group]  # NaN where missing
    pairs = np.column_stack([centred[:-1], centred[1:]])[kept]
    return {
        "mean": Values(means[counts >= 1], sequence[counts >= 1]),
        "spread": Values(np.sqrt(squares[counts >= 2] / counts[counts >= 2]), sequence[counts >= 2]),
        "steps": steps,
        "autocorrelation": Values(pairs, ordered.group[1:][kept]),
    }


def _categorical_values(ordered: Ordered, column: str, prep: PreparedTable) -> dict[str, Values]:
    """Transition cells, stays (1) and changes (0) of every step, and distinct values per sequence.

    Stays and distinct values compare every level (the univariate bins); transitions use the
    pair bins, so their table stays small.
    """
    levels = prep.bins[column].codes(ordered.frame[column]).astype(np.int64)
    pairs = prep.pair_bins[column]
    pooled = pairs.codes(ordered.frame[column]).astype(np.int64)
    step, owner = ordered.step, ordered.group[1:][ordered.step]
    distinct = np.bincount(
        np.unique(ordered.group * prep.bins[column].n_codes + levels) // prep.bins[column].n_codes
    )
    return {
        "transitions": Values((pooled[:-1] * pairs.n_codes + pooled[1:])[step], owner),
        "stay": Values((levels[1:] == levels[:-1])[step].astype(float), owner),
        "distinct": Values(distinct.astype(float), np.arange(len(distinct))),
    }


def _measure(
    column: str,
    name: MeasureName,
    found: dict[str, Values],
    kind: ColumnKind,
    prep: PreparedTable,
    rng: np.random.Generator,
) -> SequenceMeasure | str:
    real = found[TRAIN].values
    if len(real) < MIN_VALUES:
        what = "steps" if name in ("steps", "autocorrelation", "transitions", "stay") else "sequences"
        return f"{MEASURE_LABELS[name]}: {len(real)} training {what}; {MIN_VALUES} needed"
    compare, profile = _MEASURED[_family(name)]
    values = {role: v.values for role, v in found.items()}
    reference = compare(real, values[TEST], prep, column) if TEST in values else None
    return SequenceMeasure(
        column=column,
        measure=name,
        similarity=compare(real, values[SYNTH], prep, column),
        reference=reference,
        tolerance=None if reference is None else _tolerance(compare, found, prep, column, rng),
        values={role: len(v) for role, v in values.items()},
        profile=profile(values, prep, column, _unit(name, kind)),
    )


def _tolerance(
    compare: Compare, found: dict[str, Values], prep: PreparedTable, column: str, rng: np.random.Generator
) -> float:
    """How far a synthetic similarity may fall below its reference by sampling noise alone.

    ``max(MARGIN, Z * sd * sqrt(1 + n_holdout / n_synthetic))``: ``sd`` is the spread of the
    holdout's similarity to the training data over ``BOOTSTRAP`` resamples of its sequences (whole
    sequences, with replacement, so the steps of one sequence move together). Under the question
    asked (is the synthetic data as good as another real sample?) the synthetic similarity varies
    as a real sample's of its size does, hence the holdout's spread scaled to that size; the
    synthetic data's own resamples would measure the spread of what it is, not of what it should
    be (a generator that puts every sequence in one rare category has no spread at all). The
    covariance the shared training data adds is left out, which makes the tolerance wider.
    """
    real, holdout = found[TRAIN].values, found[TEST]
    spread = float(np.std([compare(real, holdout.resample(rng), prep, column) for _ in range(BOOTSTRAP)]))
    sizes = holdout.n_sequences / max(found[SYNTH].n_sequences, 1)
    return max(MARGIN, Z * spread * float(np.sqrt(1 + sizes)))


def _family(name: MeasureName) -> str:
    return name if name in ("transitions", "stay", "autocorrelation") else "ks"


def _unit(name: MeasureName, kind: ColumnKind) -> str:
    if kind is not ColumnKind.DATETIME:
        return ""
    return "date" if name == "mean" else "days"


def _ks_similarity(real: np.ndarray, other: np.ndarray, prep: PreparedTable, column: str) -> float:
    """1 - KS statistic; 0 when the other side has no value at all."""
    return 1.0 - ks_statistic(real, other) if len(other) else 0.0


def _transition_similarity(real: np.ndarray, other: np.ndarray, prep: PreparedTable, column: str) -> float:
    """1 - TVD of the transition cells (0 when the other side has no step)."""
    if not len(other):
        return 0.0
    n = prep.pair_bins[column].n_codes ** 2
    return 1.0 - tvd(histogram(real, n), histogram(other, n))


def _stay_similarity(real: np.ndarray, other: np.ndarray, prep: PreparedTable, column: str) -> float:
    """1 - |difference of the stay shares| (0 when the other side has no step)."""
    return 1.0 - abs(float(real.mean()) - float(other.mean())) if len(other) else 0.0


def lag1_autocorrelation(pairs: np.ndarray) -> float:
    """The pooled lag-1 autocorrelation of steps of values centred on their sequence's mean (0: none).

    ``sum(d_t d_t+1) / sqrt(sum(d_t^2) sum(d_t+1^2))`` over every step, ``d`` a value minus its
    sequence's mean: how much a row's deviation from its sequence's level carries to the next row.
    Ordered careers rise and fall (positive); rows shuffled within their sequence lose it.
    """
    if not len(pairs):
        return 0.0
    scale = float(np.sqrt(np.sum(pairs[:, 0] ** 2) * np.sum(pairs[:, 1] ** 2)))
    return float(np.sum(pairs[:, 0] * pairs[:, 1]) / scale) if scale > 0 else 0.0


def _autocorrelation_similarity(
    real: np.ndarray, other: np.ndarray, prep: PreparedTable, column: str
) -> float:
    """1 - |difference of the autocorrelations| / 2 (0 when the other side has no step)."""
    if not len(other):
        return 0.0
    return 1.0 - abs(lag1_autocorrelation(real) - lag1_autocorrelation(other)) / 2


def _autocorrelation_profile(
    values: dict[str, np.ndarray], prep: PreparedTable, column: str, unit: str
) -> Profile:
    def value(role: str) -> list[float]:
        return [lag1_autocorrelation(values[role])]

    return Profile(
        kind="value",
        labels=["lag-1 autocorrelation"],
        train=value(TRAIN),
        synth=value(SYNTH),
        test=value(TEST) if TEST in values else None,
    )


def _quantile_profile(values: dict[str, np.ndarray], prep: PreparedTable, column: str, unit: str) -> Profile:
    def quantiles(v: np.ndarray) -> list[float]:
        return np.quantile(v, QUANTILES).tolist() if len(v) else []

    return Profile(
        kind="quantiles",
        labels=[f"{q:.0%}" for q in QUANTILES],
        train=quantiles(values[TRAIN]),
        synth=quantiles(values[SYNTH]),
        test=quantiles(values[TEST]) if TEST in values else None,
        unit=unit,
    )


def _transition_profile(
    values: dict[str, np.ndarray], prep: PreparedTable, column: str, unit: str
) -> Profile:
    """Shares of the most frequent real transitions, and of all the others together.

    A transition drawn on its own is held by at least ``MIN_VALUES`` real steps: a rare one (a level
    held by one real row) is only ever part of "all others".
    """
    bins = prep.pair_bins[column]
    n = bins.n_codes**2
    shares = {role: histogram(v, n) for role, v in values.items()}
    top = np.argsort(-shares[TRAIN], kind="stable")[:TOP_TRANSITIONS]
    top = top[shares[TRAIN][top] * len(values[TRAIN]) >= MIN_VALUES]  # no cell of a few real steps

    def drawn(role: str) -> list[float]:
        s = shares[role]
        return [*s[top].tolist(), float(1.0 - s[top].sum())]

    names = _level_names(bins)
    return Profile(
        kind="shares",
        labels=[*(f"{names[c // bins.n_codes]} → {names[c % bins.n_codes]}" for c in top), "all others"],
        train=drawn(TRAIN),
        synth=drawn(SYNTH),
        test=drawn(TEST) if TEST in values else None,
    )


def _stay_profile(values: dict[str, np.ndarray], prep: PreparedTable, column: str, unit: str) -> Profile:
    def share(role: str) -> list[float]:
        return [float(values[role].mean()) if len(values[role]) else 0.0]

    return Profile(
        kind="shares",
        labels=["steps that keep the value"],
        train=share(TRAIN),
        synth=share(SYNTH),
        test=share(TEST) if TEST in values else None,
    )


def _level_names(bins: ColumnBins) -> list[str]:
    """The label of each code of a categorical column's bins: its levels, "other", "missing"."""
    return [*bins.levels, OTHER_LABEL, MISSING_LABEL]


Compare = Callable[[np.ndarray, np.ndarray, PreparedTable, str], float]

_MEASURED: dict[str, tuple[Compare, Callable[..., Profile]]] = {
    "ks": (_ks_similarity, _quantile_profile),
    "transitions": (_transition_similarity, _transition_profile),
    "stay": (_stay_similarity, _stay_profile),
    "autocorrelation": (_autocorrelation_similarity, _autocorrelation_profile),
}
