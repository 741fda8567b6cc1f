"""Gower similarity and the maximum-similarity test (METRICS.md section 10), fitted on training data only.

Gower distance between two rows is the mean over the compared columns of one term per column:

- numeric / integer / datetime (datetimes as UTC seconds): ``|x - y| / range``, with ``range`` the
  training data's ``max - min`` (1 for a constant column, and for a column with no training value,
  whose values then keep their own unit), capped at 1 so that a synthetic value outside the
  training range counts at most like the full range. A missing value against a present one
  counts 1; two missing values count 0. Infinite values are clipped to ``1e12`` ranges, far
  beyond the cap;
- categorical / boolean: 0 when the two labels are equal, else 1. "Missing" is a level of its own;
  a level the training data lacks gets a code of its own that no training level has (two frames
  that share an unseen label still compare it as equal). A column with more than ``max_levels``
  training levels keeps the same levels as the distance space (``distance_space.kept_levels``) and
  pools every other value into one "(other)" level: two different pooled values count as equal;
- id and text columns are ignored.

Gower similarity is ``1 - distance``. The test (after A. Skabar, 2024) compares, on equal-size
samples of training rows ``T`` and synthetic rows ``S``, each real row's maximum similarity to
another real row, each synthetic row's to another synthetic row, and each synthetic row's to a real
row. Score = ``mean cross / mean within-real``: near 1 is what an independent sample from the real
distribution gets; above 1 means synthetic rows sit closer to real rows than real rows sit to each
other (copying). The score is ``None`` when the mean within-real similarity is 0 (every pair of real
rows differs fully on every column), where the ratio is undefined.

The search is exact and vectorised: blocks of ``chunk_rows`` query rows by at most ``chunk_refs``
reference rows, the numeric part summed column by column by broadcasting (float64 throughout) and
the categorical part counted as unequal codes (uint8). Blocks are small (under 5 MB) so that they
stay in the processor's cache; memory does not grow with the number of rows. Ties go to the lowest
index, and within one set a row is excluded by index, so a duplicate row has similarity 1 to its
twin. Measured on adult (10,000 x 10,000 rows, 5 numeric and 10 categorical columns, one core):
counting unequal codes takes 0.14 s where a one-hot matrix product takes 0.32 s; float32 would make
the numeric part about 1.7x faster but rounds nearby values (datetimes to minutes) together, so it
is not used; two threads gained nothing on the shared two-core machine.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, model_validator

from reportgen.binning import OTHER_LABEL
from reportgen.data.schema import ColumnKind
from reportgen.errors import DataError, IncompatibleDataError
from reportgen.params import InstanceOf, Interval, validate_params
from reportgen.privacy.distance_space import (
    category_labels,
    check_columns,
    column_numbers,
    kept_levels,
    safe_unit,
)
from reportgen.settings import MAX_ENCODED_LEVELS

CATEGORICAL_KINDS = (ColumnKind.CATEGORICAL, ColumnKind.BOOLEAN)
CLIP = 1e12  # scaled values beyond +-CLIP ranges (infinities) are clipped: any term with them is capped
CHUNK_ROWS = 32  # query rows per block
CHUNK_REFS = 8192  # at most this many reference rows per block, in equal chunks: 2 MB per buffer


@dataclass(frozen=True)
class NumericScale:
    """A numeric or datetime column: its training minimum and range (``max - min``, or 1)."""

    column: str
    kind: ColumnKind
    low: float
    range: float
    unit: float = 1.0  # values are multiplied by it first, so no difference overflows (``safe_unit``)

    def encode(self, values: pd.Series) -> np.ndarray:
        """``(x * unit - low) / range`` as float64, NaN for missing, clipped to +-``CLIP``."""
        x = column_numbers(values, self.kind, self.column)
        with np.errstate(over="ignore", invalid="ignore"):
            return np.clip((x * self.unit - self.low) / self.range, -CLIP, CLIP)


@dataclass(frozen=True)
class CategoricalLevels:
    """A categorical or boolean column: the training levels, coded ``0 .. len(levels) - 1``.

    Missing values get code ``len(levels)``; unseen labels get ``len(levels) + 1 + i``, ``i`` their
    position in the frame's sorted unseen labels (``GowerRows.unseen``). ``pooled``: every label
    outside ``levels`` is read as the one unseen label "(other)".
    """

    column: str
    levels: tuple[str, ...]
    pooled: bool = False

    def encode(self, values: pd.Series) -> tuple[np.ndarray, tuple[str, ...]]:
        """Integer codes of the values and the unseen labels the codes above the missing code name."""
        labels = category_labels(values)
        if self.pooled:
            labels = labels.where(labels.isin(self.levels) | labels.isna(), OTHER_LABEL)
        missing = labels.isna().to_numpy()
        present = labels.dropna()
        unseen = tuple(sorted(set(present.unique()) - set(self.levels)))
        lookup = pd.Index([*self.levels, *unseen])
        codes = lookup.get_indexer(labels.fillna(self.levels[0] if self.levels else "").to_numpy())
        codes = np.where(codes >= len(self.levels), codes + 1, codes)  # leave room for the missing code
        return np.where(missing, len(self.levels), codes).astype(np.int64), unseen


@dataclass(frozen=True)
class GowerRows:
    """Rows of one frame in a fitted Gower space: what ``max_similarity`` compares.

    ``numeric`` (n, p) float64 scaled values (NaN = missing); ``categorical`` (n, q) int64 codes;
    ``n_levels`` the training levels per categorical column; ``unseen`` the labels of the codes above
    ``n_levels[j]`` (code ``n_levels[j] + 1 + i`` is ``unseen[j][i]``).
    """

    columns: tuple[str, ...]
    numeric: np.ndarray
    categorical: np.ndarray
    n_levels: tuple[int, ...]
    unseen: tuple[tuple[str, ...], ...]

    def __len__(self) -> int:
        return len(self.numeric)

    @property
    def n_columns(self) -> int:
        return self.numeric.shape[1] + self.categorical.shape[1]

    def take(self, indices: np.ndarray) -> GowerRows:
        """The rows at ``indices`` (in that order)."""
        return GowerRows(
            self.columns, self.numeric[indices], self.categorical[indices], self.n_levels, self.unseen
        )


@dataclass(frozen=True)
class GowerSpace:
    """Per-column ranges and levels of the training data; ``transform`` codes any role's frame."""

    numeric: tuple[NumericScale, ...]
    categorical: tuple[CategoricalLevels, ...]

    @classmethod
    def fit(
        cls, train: pd.DataFrame, kinds: Mapping[str, ColumnKind], *, max_levels: int = MAX_ENCODED_LEVELS
    ) -> GowerSpace:
        """Fit on the training frame: the numeric and categorical columns of ``kinds``, in that order.

        Other kinds (id, text) are ignored; a space without any compared column is a ``DataError``.
        A categorical column keeps at most ``max_levels`` training levels and pools the rest.
        """
        kinds = {c: ColumnKind.parse(k, f"Column {c!r}") for c, k in kinds.items()}
        check_columns(train, kinds, "training", "Gower space")
        numeric = tuple(_fit_numeric(c, k, train[c]) for c, k in kinds.items() if k.is_ordered)
        categorical = tuple(
            CategoricalLevels(c, *kept_levels(category_labels(train[c]), max_levels))
            for c, k in kinds.items()
            if k in CATEGORICAL_KINDS
        )
        if not numeric and not categorical:
            found = {c: k.value for c, k in kinds.items()}
            raise DataError(
                f"Gower similarity needs at least one numeric, integer, datetime, categorical or "
                f"boolean column; the given kinds are {found}. Declare the kinds of the columns to "
                "compare in the schema."
            )
        return cls(numeric, categorical)

    @property
    def columns(self) -> tuple[str, ...]:
        """The compared columns: numeric ones first, then categorical ones."""
        return tuple(s.column for s in self.numeric) + tuple(s.column for s in self.categorical)

    def transform(self, frame: pd.DataFrame) -> GowerRows:
        """The rows of ``frame`` (which must hold every compared column) as ``GowerRows``."""
        check_columns(frame, self.columns, "given", "Gower space")
        numeric = np.empty((len(frame), len(self.numeric)), np.float64)
        for j, scale in enumerate(self.numeric):
            numeric[:, j] = scale.encode(frame[scale.column])
        categorical = np.empty((len(frame), len(self.categorical)), np.int64)
        unseen = []
        for j, levels in enumerate(self.categorical):
            categorical[:, j], labels = levels.encode(frame[levels.column])
            unseen.append(labels)
        n_levels = tuple(len(c.levels) for c in self.categorical)
        return GowerRows(self.columns, numeric, categorical, n_levels, tuple(unseen))


def _fit_numeric(column: str, kind: ColumnKind, values: pd.Series) -> NumericScale:
    x = column_numbers(values, kind, column)
    finite = x[np.isfinite(x)]
    if len(finite) == 0:
        return NumericScale(column, kind, 0.0, 1.0)
    unit = safe_unit(finite)
    low, high = float(finite.min()) * unit, float(finite.max()) * unit
    return NumericScale(column, kind, low, high - low if high > low else 1.0, unit)


# --- the exact search -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Operands:
    """Both sides of a search, ready for the kernel.

    Numeric: missing values replaced by a per-column sentinel at least 1 beyond every value, so
    that the capped term is 1 against a present value and 0 against another missing one; ``cap``
    tells which columns can hold a term above 1 at all (the others skip the ``minimum``).
    Categorical: codes of both sides on one dense code set, as the smallest unsigned type.
    """

    num_a: np.ndarray  # (n_a, p)
    num_b: np.ndarray  # (p, n_b), each column contiguous
    cap: tuple[bool, ...]
    cat_a: np.ndarray  # (n_a, q)
    cat_b: np.ndarray  # (q, n_b)

    @classmethod
    def of(cls, a: GowerRows, b: GowerRows) -> _Operands:
        num_a, num_b, cap = _numeric_operands(a.numeric, b.numeric)
        cat_a, cat_b = _categorical_operands(a, b)
        return cls(num_a, np.ascontiguousarray(num_b.T), cap, cat_a, np.ascontiguousarray(cat_b.T))


def _numeric_operands(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[bool, ...]]:
    a, b = a.copy(), b.copy()
    cap = []
    for j in range(a.shape[1]):
        present = np.concatenate([a[:, j], b[:, j]])
        present = present[~np.isnan(present)]
        has_missing = len(present) < len(a) + len(b)
        if has_missing:
            sentinel = (float(present.max()) if len(present) else 0.0) + 2.0
            a[:, j] = np.where(np.isnan(a[:, j]), sentinel, a[:, j])
            b[:, j] = np.where(np.isnan(b[:, j]), sentinel, b[:, j])
        spread = max(a[:, j].max() - b[:, j].min(), b[:, j].max() - a[:, j].min()) if len(a) and len(b) else 0
        cap.append(bool(has_missing or spread > 1.0))
    return a, b, tuple(cap)


def _categorical_operands(a: GowerRows, b: GowerRows) -> tuple[np.ndarray, np.ndarray]:
    """Codes of both sides with the unseen labels of either side on one numbering."""
    cat_a, cat_b = a.categorical.copy(), b.categorical.copy()
    for j, n_levels in enumerate(a.n_levels):
        if not a.unseen[j] and not b.unseen[j]:
            continue
        union = {label: n_levels + 1 + i for i, label in enumerate(sorted({*a.unseen[j], *b.unseen[j]}))}
        for codes, unseen in ((cat_a, a.unseen[j]), (cat_b, b.unseen[j])):
            lookup = np.array([*range(n_levels + 1), *(union[label] for label in unseen)], np.int64)
            codes[:, j] = lookup[codes[:, j]]
    top = max(int(cat_a.max(initial=0)), int(cat_b.max(initial=0)))
    dtype = np.uint8 if top < 2**8 else np.uint16 if top < 2**16 else np.uint32
    return cat_a.astype(dtype), cat_b.astype(dtype)


@dataclass
class _Buffers:
    """Scratch arrays of one block, reused for every block."""

    dist: np.ndarray  # float64: sum of the terms, i.e. Gower distance x number of columns
    term: np.ndarray  # float64: one numeric column's terms
    unequal: np.ndarray  # uint8/16/32: number of categorical columns that differ
    differs: np.ndarray  # bool: one categorical column's mismatches

    @classmethod
    def create(cls, rows: int, refs: int, q: int) -> _Buffers:
        count = np.uint8 if q < 2**8 else np.uint16 if q < 2**16 else np.uint32
        return cls(
            np.empty((rows, refs)),
            np.empty((rows, refs)),
            np.empty((rows, refs), count),
            np.empty((rows, refs), bool),
        )


def _block_distances(ops: _Operands, rows: slice, refs: slice, buf: _Buffers) -> np.ndarray:
    """The sum of the per-column terms of a block: numeric terms, then the categorical mismatches.

    Summed directly (not as ``q - matches``), so that a tiny numeric difference is never lost in a
    cancellation and a distance is 0 only for rows equal on every column.
    """
    a, b = ops.num_a[rows], ops.num_b[:, refs]
    shape = (len(a), b.shape[1])
    dist, term = buf.dist[: shape[0], : shape[1]], buf.term[: shape[0], : shape[1]]
    dist[...] = 0.0
    for j, cap in enumerate(ops.cap):
        np.subtract(a[:, j, None], b[j][None, :], out=term)
        np.abs(term, out=term)
        if cap:
            np.minimum(term, 1.0, out=term)
        dist += term
    if ops.cat_a.shape[1]:
        unequal, differs = buf.unequal[: shape[0], : shape[1]], buf.differs[: shape[0], : shape[1]]
        ca, cb = ops.cat_a[rows], ops.cat_b[:, refs]
        unequal[...] = 0
        for j in range(ca.shape[1]):
            np.not_equal(ca[:, j, None], cb[j][None, :], out=differs)
            unequal += differs
        dist += unequal
    return dist


def _nearest(
    a: GowerRows, b: GowerRows, within: bool, chunk_rows: int, chunk_refs: int
) -> tuple[np.ndarray, np.ndarray]:
    """For each row of ``a``: the smallest Gower distance sum to a row of ``b`` and its index."""
    ops = _Operands.of(a, b)
    q = a.categorical.shape[1]
    best = np.full(len(a), np.inf)
    index = np.zeros(len(a), np.int64)
    refs_per_block = _balanced(len(b), chunk_refs)
    buf = _Buffers.create(min(chunk_rows, len(a)), refs_per_block, q)
    for start in range(0, len(a), chunk_rows):
        rows = slice(start, min(start + chunk_rows, len(a)))
        for ref_start in range(0, len(b), refs_per_block):
            refs = slice(ref_start, min(ref_start + refs_per_block, len(b)))
            dist = _block_distances(ops, rows, refs, buf)
            if within:
                _exclude_self(dist, rows, refs)
            _update(best, index, dist, rows, ref_start)
    return best, index


def _balanced(n: int, most: int) -> int:
    """The size of ``ceil(n / most)`` equal chunks of ``n``, so that no last chunk is small.

    A small chunk costs nearly the per-call overhead of a full one: 10,000 rows in chunks of 8,192
    and 1,808 took 25% longer than in two chunks of 5,000.
    """
    return max(1, -(-n // -(-n // most))) if n else 1


def _exclude_self(dist: np.ndarray, rows: slice, refs: slice) -> None:
    """Give each row's own entry an infinite distance (self excluded by index)."""
    own = np.arange(rows.start, rows.stop)
    inside = (own >= refs.start) & (own < refs.stop)
    dist[np.flatnonzero(inside), own[inside] - refs.start] = np.inf


def _update(best: np.ndarray, index: np.ndarray, dist: np.ndarray, rows: slice, ref_start: int) -> None:
    """Keep a block's minimum where it is strictly better: ties stay with the lower index."""
    j = dist.argmin(axis=1)
    d = dist[np.arange(len(j)), j]
    better = d < best[rows]
    best[rows] = np.where(better, d, best[rows])
    index[rows] = np.where(better, j + ref_start, index[rows])


def _check_pair(a: GowerRows, b: GowerRows | None) -> None:
    for name, rows in (("a", a), ("b", b)):
        if rows is not None and not isinstance(rows, GowerRows):
            raise IncompatibleDataError(
                f"max_similarity takes GowerRows (from GowerSpace.transform) as {name!r}; got "
                f"{type(rows).__name__}."
            )
    if b is not None and (a.columns, a.n_levels) != (b.columns, b.n_levels):
        raise IncompatibleDataError(
            f"The two sets of rows come from different Gower spaces (columns {list(a.columns)} vs "
            f"{list(b.columns)}); transform both with the same fitted GowerSpace."
        )


@validate_params({"chunk_rows": [Interval(int, 1, None)], "chunk_refs": [Interval(int, 1, None)]})
def max_similarity(
    a: GowerRows, b: GowerRows | None = None, *, chunk_rows: int = CHUNK_ROWS, chunk_refs: int = CHUNK_REFS
) -> tuple[np.ndarray, np.ndarray]:
    """For each row of ``a``, its maximum Gower similarity to a row of ``b`` and that row's index.

    ``b=None`` compares each row of ``a`` with the other rows of ``a``, excluding itself by index
    (a duplicate row has similarity 1 to its twin). Exact, float64; ties go to the lowest index.
    Blocks hold ``chunk_rows`` rows of ``a`` by at most ``chunk_refs`` rows of ``b`` (``b`` cut in
    equal chunks), 18 bytes per cell (the defaults: at most 4.7 MB), so memory does not grow with
    the sizes; results do not depend on the chunk sizes.
    Returns ``(similarity float64 (n_a,), index int64 (n_a,))``.
    """
    _check_pair(a, b)
    within = b is None
    if within and len(a) == 1:
        raise DataError("The maximum similarity within one set needs at least 2 rows; got 1.")
    if b is not None and len(b) == 0 and len(a) > 0:
        raise DataError("The maximum similarity to a set needs at least one row in it; 'b' has none.")
    distances, index = _nearest(a, a if b is None else b, within, chunk_rows, chunk_refs)
    return _similarity(distances, a.n_columns), index


def _similarity(distance_sums: np.ndarray, n_columns: int) -> np.ndarray:
    """``1 - sum / n_columns``, clipped to [0, 1] against rounding."""
    return np.clip(1.0 - distance_sums / n_columns, 0.0, 1.0)


# --- the test's statistics --------------------------------------------------------------------


class SimilarityHistogram(BaseModel):
    """Counts of the three curves on shared bins over [lowest similarity, 1] (the last bin closed)."""

    model_config = ConfigDict(frozen=True)

    edges: list[float] = Field(description="Bin edges, increasing; the last is 1.")
    counts: dict[str, list[int]] = Field(description="Rows per bin: within_real, within_synthetic, cross.")

    @model_validator(mode="after")
    def _counts_fit_edges(self) -> SimilarityHistogram:
        for name, counts in self.counts.items():
            if len(counts) != len(self.edges) - 1:
                raise ValueError(f"{name}: {len(counts)} counts for {len(self.edges)} edges.")
        return self


class MaxSimilarityStats(BaseModel):
    """The maximum-similarity test of one table: means, score, copy share and histograms.

    Aggregates only: no similarity value of a single row and no record is kept, so the results can
    be written to JSON and shared.
    """

    model_config = ConfigDict(frozen=True)

    n: int = Field(ge=2, description="Rows sampled from each of the training and synthetic data.")
    n_columns: int = Field(ge=1, description="Columns the Gower similarity averages over.")
    mean_within_real: float = Field(ge=0, le=1, description="Mean max similarity of a real row to another.")
    mean_within_synthetic: float = Field(
        ge=0, le=1, description="Mean max similarity of a synthetic row to another."
    )
    mean_cross: float = Field(ge=0, le=1, description="Mean max similarity of a synthetic row to a real row.")
    score: float | None = Field(
        ge=0,
        description="mean_cross / mean_within_real: near 1 is good, above 1 flags copying; None when "
        "mean_within_real is 0.",
    )
    copy_share: float = Field(
        ge=0,
        le=1,
        description="Share of sampled synthetic rows identical to a sampled real row on every compared "
        "column (copies of unsampled real rows are missed).",
    )
    histogram: SimilarityHistogram


@validate_params(
    {
        "n": [Interval(int, 2, None)],
        "rng": [InstanceOf((np.random.Generator,), "a numpy.random.Generator")],
        "bins": [Interval(int, 1, None)],
    }
)
def max_similarity_stats(
    train_rows: GowerRows,
    synth_rows: GowerRows,
    *,
    n: int,
    rng: np.random.Generator,
    bins: int = 40,
) -> MaxSimilarityStats:
    """The maximum-similarity test on ``min(n, len(train), len(synth))`` rows drawn from each side.

    Samples are drawn without replacement with ``rng`` (training first, then synthetic). A synthetic
    row counts as a copy when its Gower distance to a sampled real row is exactly 0, so a copy of a
    training row left out of the sample is missed: ``copy_share`` is about the copied share times
    ``n / len(train_rows)`` (adult's "leaky" set, half copies: 7.8% at n = 5,000, 15.5% at 10,000).
    """
    _check_pair(train_rows, synth_rows)
    size = min(n, len(train_rows), len(synth_rows))
    if size < 2:
        raise DataError(
            f"The maximum-similarity test needs at least 2 rows on each side; got {len(train_rows)} "
            f"training and {len(synth_rows)} synthetic rows."
        )
    real = train_rows.take(np.sort(rng.choice(len(train_rows), size=size, replace=False)))
    synth = synth_rows.take(np.sort(rng.choice(len(synth_rows), size=size, replace=False)))
    p = real.n_columns
    cross_sums, _ = _nearest(synth, real, False, CHUNK_ROWS, CHUNK_REFS)
    curves = {
        "within_real": _similarity(_nearest(real, real, True, CHUNK_ROWS, CHUNK_REFS)[0], p),
        "within_synthetic": _similarity(_nearest(synth, synth, True, CHUNK_ROWS, CHUNK_REFS)[0], p),
        "cross": _similarity(cross_sums, p),
    }
    means = {name: float(values.mean()) for name, values in curves.items()}
    return MaxSimilarityStats(
        n=size,
        n_columns=p,
        mean_within_real=means["within_real"],
        mean_within_synthetic=means["within_synthetic"],
        mean_cross=means["cross"],
        score=means["cross"] / means["within_real"] if means["within_real"] > 0 else None,
        copy_share=float(np.mean(cross_sums == 0.0)),
        histogram=_histogram(curves, bins),
    )


def _histogram(curves: Mapping[str, np.ndarray], bins: int) -> SimilarityHistogram:
    """Counts on ``bins`` equal bins over [lowest value, 1] ([0, 1] when every value is 1)."""
    low = min(float(values.min()) for values in curves.values())
    edges = np.linspace(low if low < 1.0 else 0.0, 1.0, bins + 1)
    counts = {
        name: np.histogram(values, bins=edges)[0].astype(int).tolist() for name, values in curves.items()
    }
    return SimilarityHistogram(edges=edges.tolist(), counts=counts)
