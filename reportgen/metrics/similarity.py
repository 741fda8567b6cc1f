"""Univariate and bivariate similarity, the similarity matrix and score (METRICS.md sections 2, 3).

``sim(c) = 1 - TVD`` of a column's histograms; ``sim(a, b) = 1 - TVD`` of the joint histograms of a
pair. Both use the table's shared bins. Each value is shown beside its reference: the same metric
between the training and the holdout data, the level a perfect generator reaches at these sizes.
Numeric and datetime columns also get the KS statistic: exact on every row, in the engine, when
the inputs were read in place and one query reads every role; else on the rows in memory, with
its noise level.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations
from typing import NamedTuple

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from reportgen.binning import BinCounts, as_numbers, shares, tvd
from reportgen.context import EvaluationContext, PreparedTable
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.metrics.registry import MetricNotComputed
from reportgen.results import Basis, SectionResult

KS_CRITICAL = 1.358  # the asymptotic two-sample KS critical value at the 5% level

N_WORST = 5


class ColumnSimilarity(BaseModel):
    """One column: its univariate similarity, the real-vs-real reference and the KS statistic."""

    column: str
    kind: str
    similarity: float = Field(ge=0, le=1, description="1 - TVD(training, synthetic) of the column.")
    reference: float | None = Field(default=None, ge=0, le=1, description="1 - TVD(training, holdout).")
    ks: float | None = Field(default=None, ge=0, le=1, description="Kolmogorov-Smirnov statistic.")
    ks_reference: float | None = Field(default=None, ge=0, le=1)
    ks_noise: float | None = Field(
        default=None,
        ge=0,
        description=(
            "The KS statistic two samples of these sizes from one distribution exceed 5% of the time "
            "(1.358 sqrt((n + m) / (n m))): the noise level beside ``ks`` computed on a sample; None "
            "when ``ks`` is exact on every row (``ks_basis``)."
        ),
    )


class PairSimilarity(BaseModel):
    """One column pair: 1 - TVD of the joint histograms, with its reference."""

    a: str
    b: str
    similarity: float = Field(ge=0, le=1)
    reference: float | None = Field(default=None, ge=0, le=1)


class TableSimilarity(BaseModel):
    """The similarity matrix of one table (symmetric, univariate similarity on the diagonal)."""

    table: str
    columns: list[str]
    matrix: list[list[float]]
    reference_matrix: list[list[float]] | None = None
    score: float = Field(ge=0, le=100, description="100 x mean of every entry of the matrix.")
    reference_score: float | None = Field(default=None, ge=0, le=100)
    column_details: list[ColumnSimilarity]
    worst_pairs: list[PairSimilarity]
    basis: Basis | None = Field(
        default=None, description="Rows the matrix and the column similarities were counted on."
    )
    ks_basis: Basis | None = Field(
        default=None,
        description="Rows the KS statistics were computed on: all rows in the engine, or the sample.",
    )


class Shortfall(BaseModel):
    """A column (``b`` is None) or a pair where the synthetic data falls furthest below its reference."""

    table: str
    a: str
    b: str | None = None
    similarity: float = Field(ge=0, le=1)
    reference: float | None = Field(default=None, ge=0, le=1)
    shortfall: float = Field(description="reference - similarity (1 - similarity without a holdout).")


class SimilarityResult(SectionResult):
    """The similarity section: per table, and the dataset's score weighted by column count.

    ``worst_columns`` and ``worst_pairs`` rank every table's columns and pairs by their shortfall
    from the reference level, so a column whose reference is itself low (many levels, few rows) is
    not blamed on the generator.
    """

    tables: list[TableSimilarity]
    score: float = Field(ge=0, le=100)
    reference_score: float | None = Field(default=None, ge=0, le=100)
    worst_columns: list[Shortfall] = Field(default_factory=list)
    worst_pairs: list[Shortfall] = Field(default_factory=list)


def compute_similarity(ctx: EvaluationContext) -> SimilarityResult:
    """Similarity matrices of every table with compared columns, and the dataset's score."""
    tables = [
        table_similarity(ctx.table(name)) for name in ctx.table_names if ctx.table(name).compared_columns
    ]
    if not tables:
        raise MetricNotComputed("no table has a column that can be compared (all are keys, text or empty)")
    weights = np.array([len(t.columns) for t in tables], dtype=float)
    score = float(np.average([t.score for t in tables], weights=weights))
    reference = None
    if all(t.reference_score is not None for t in tables):
        reference = float(np.average([t.reference_score for t in tables], weights=weights))
    return SimilarityResult(
        section="similarity",
        tables=tables,
        score=score,
        reference_score=reference,
        worst_columns=_worst(
            Shortfall(table=t.table, a=c.column, similarity=c.similarity, reference=c.reference, shortfall=0)
            for t in tables
            for c in t.column_details
        ),
        worst_pairs=_worst(
            Shortfall(
                table=t.table, a=p.a, b=p.b, similarity=p.similarity, reference=p.reference, shortfall=0
            )
            for t in tables
            for p in _all_pairs(t)
        ),
    )


def _all_pairs(table: TableSimilarity) -> list[PairSimilarity]:
    ref = table.reference_matrix
    return [
        PairSimilarity(a=a, b=b, similarity=table.matrix[i][j], reference=None if ref is None else ref[i][j])
        for (i, a), (j, b) in combinations(enumerate(table.columns), 2)
    ]


def shortfall(similarity: float, reference: float | None) -> float:
    """How far a similarity falls below its reference (below 1 without a holdout): the worst-first ranking."""
    return (1.0 if reference is None else reference) - similarity


def _worst(items: Iterable[Shortfall]) -> list[Shortfall]:
    """The ``N_WORST`` items furthest below their reference (below 1 when there is none)."""
    scored = [
        item.model_copy(update={"shortfall": shortfall(item.similarity, item.reference)}) for item in items
    ]
    ranked = sorted(scored, key=lambda x: (-x.shortfall, x.table, x.a, x.b or ""))
    return [item for item in ranked[:N_WORST] if item.shortfall > 0]


def table_similarity(prep: PreparedTable) -> TableSimilarity:
    """The similarity matrix of one table, computed once and shared with the distribution plots."""
    return prep.shared("similarity", lambda: _table_similarity(prep))


def _table_similarity(prep: PreparedTable) -> TableSimilarity:
    settings = prep.context.settings
    matrix_columns = settings.columns.select("biv", prep.name, prep.compared_columns)
    detail_columns = settings.columns.select("univ", prep.name, prep.compared_columns)
    counted = matrix_columns + [c for c in detail_columns if c not in matrix_columns]
    counts = {role: prep.bin_counts(role, counted) for role in prep.context.roles}
    has_test = TEST in counts
    ks, ks_basis = _ks_by_column(prep, [c for c in detail_columns if prep.bins[c].is_numeric])
    real = _histograms(counts[TRAIN], len(matrix_columns))
    matrix = _matrix(real, _histograms(counts[SYNTH], len(matrix_columns)))
    reference = _matrix(real, _histograms(counts[TEST], len(matrix_columns))) if has_test else None
    table = TableSimilarity(
        table=prep.name,
        columns=matrix_columns,
        matrix=_rounded(matrix),
        reference_matrix=None if reference is None else _rounded(reference),
        score=100 * float(matrix.mean()),
        reference_score=None if reference is None else 100 * float(reference.mean()),
        column_details=[
            _column_similarity(prep, counts, counted.index(c), c, ks.get(c)) for c in detail_columns
        ],
        worst_pairs=[],
        basis=prep.context.basis(prep.name, counted=True),
        ks_basis=ks_basis,
    )
    table.worst_pairs = sorted(_all_pairs(table), key=lambda p: (p.similarity, p.a, p.b))[:N_WORST]
    return table


def _histograms(counts: BinCounts, n_columns: int) -> dict[tuple[int, int], np.ndarray]:
    """Shares of each of the first ``n_columns`` columns (key (i, i)) and of each of their pairs."""
    out = {(i, i): shares(counts.univariate[i]) for i in range(n_columns)}
    for i, j in combinations(range(n_columns), 2):
        out[(i, j)] = shares(counts.pairs[(i, j)])
    return out


def _matrix(p: dict[tuple[int, int], np.ndarray], q: dict[tuple[int, int], np.ndarray]) -> np.ndarray:
    n = max(i for i, _ in p) + 1
    matrix = np.empty((n, n))
    for (i, j), hist in p.items():
        matrix[i, j] = matrix[j, i] = 1.0 - tvd(hist, q[(i, j)])
    return matrix


def _column_similarity(
    prep: PreparedTable, counts: dict[str, BinCounts], position: int, column: str, ks: _KS | None
) -> ColumnSimilarity:
    """A column's similarity and reference from the counts, beside its KS (None: not a number)."""
    real = shares(counts[TRAIN].univariate[position])

    def similarity(role: str) -> float:
        return 1.0 - tvd(real, shares(counts[role].univariate[position]))

    has_test = TEST in counts
    ks = ks or _KS(None, None, None)
    return ColumnSimilarity(
        column=column,
        kind=prep.schema.kinds[column].value,
        similarity=similarity(SYNTH),
        reference=similarity(TEST) if has_test else None,
        ks=ks.synthetic,
        ks_reference=ks.holdout,
        ks_noise=ks.noise,
    )


class _KS(NamedTuple):
    """One column's KS statistic against the synthetic data and the holdout, and its noise level."""

    synthetic: float | None
    holdout: float | None
    noise: float | None


def _ks_by_column(prep: PreparedTable, columns: list[str]) -> tuple[dict[str, _KS], Basis]:
    """The KS statistics of ``columns`` (numbers and datetimes) and the rows they were computed on.

    On every row, in the engine, when the inputs were read in place and one query reads every
    role (``InPlace.ks_statistics``): exact, so without a noise level. In memory on every row too
    (``PreparedTable.counted_frame``), with the noise level at their sizes. Inputs read in place
    whose roles no one query reads fall back to the sample, and the basis says why.
    """
    context = prep.context
    kinds = {c: prep.bins[c].kind for c in columns}
    found = None if context.in_place is None else context.in_place.ks_statistics(prep.name, kinds)
    if found is not None:
        exact = {c: _KS(found[c][SYNTH], found[c].get(TEST), None) for c in columns}
        return exact, context.basis(prep.name, counted=True)
    frames = {
        role: frame
        for role in context.roles
        if (frame := prep.frame(role) if context.in_place else prep.counted_frame(role)) is not None
    }
    numbers = {role: {c: _present_numbers(frames[role], c) for c in columns} for role in frames}
    has_test = TEST in frames
    computed = {
        c: _KS(
            _ks(numbers[TRAIN][c], numbers[SYNTH][c]),
            _ks(numbers[TRAIN][c], numbers[TEST][c]) if has_test else None,
            _ks_noise(len(numbers[TRAIN][c]), len(numbers[SYNTH][c])),
        )
        for c in columns
    }
    basis = context.basis(prep.name, counted=context.in_place is None)
    if context.in_place is not None and not basis.all_rows:
        basis = basis.model_copy(update={"reason": context.in_place.apart()})
    return computed, basis


def _present_numbers(frame: pd.DataFrame, column: str) -> np.ndarray:
    x = as_numbers(frame[column])
    return x[~np.isnan(x)]


def _ks(x: np.ndarray, y: np.ndarray) -> float | None:
    return ks_statistic(x, y) if len(x) and len(y) else None


def ks_statistic(x: np.ndarray, y: np.ndarray) -> float:
    """The two-sample KS statistic max |F_x - F_y| of present values, correctly rounded.

    At each value, ``n m |F_x - F_y| = |c_x m - c_y n|`` (``c``: the values at or below it) is an
    integer: the largest is found exactly and divided once, as ``lake.ks_statistics`` does on all
    rows in a database, so the two agree bit for bit. ``scipy.stats.ks_2samp`` gives the same
    statistic up to its rounding (it subtracts two rounded shares).
    """
    x, y = np.sort(x), np.sort(y)
    at = np.concatenate([x, y])
    below_x, below_y = np.searchsorted(x, at, side="right"), np.searchsorted(y, at, side="right")
    gap = np.abs(below_x * len(y) - below_y * len(x)).max()
    return int(gap) / (len(x) * len(y))


def _ks_noise(n: int, m: int) -> float | None:
    """The 5% critical KS value at the sizes compared (training and synthetic present values)."""
    return None if n == 0 or m == 0 else KS_CRITICAL * float(np.sqrt((n + m) / (n * m)))


def _rounded(matrix: np.ndarray) -> list[list[float]]:
    return np.round(matrix, 6).tolist()
