"""Phik correlation matrices of the real and the synthetic data, and their similarity (METRICS.md 4).

For each table, the phik matrix (``phik.phik_matrix``'s numbers) is computed on the training data,
the synthetic data and, when given, the holdout data, over the same columns. Each pair's difference is
``|phik_real - phik_synth|`` and a table's correlation similarity is ``1 - mean |difference|`` over
its off-diagonal pairs; the same measure between training and holdout is its reference.

How the data reach phik, and why:

- numeric and datetime columns (datetimes as UTC seconds) are interval columns, binned with phik's
  own rule (``phik.binning.bin_edges``: ``PHIK_BINS`` uniform bins between the minimum and maximum)
  fitted on the real training rows, and the same edges are used for every role. The outer bins are
  open-ended, so a synthetic value beyond the real range counts in the nearest outer bin instead of
  being dropped as phik's under/overflow;
- categorical and boolean columns are categorical, one category per level;
- a missing value is a category of its own (phik's ``dropna=False``), as everywhere in the report.

The binning is done here and each pair of coded columns is counted into its contingency table, whose
phik is ``phik.phik_from_hist2d``'s to the last bit (``reportgen.metrics.phik_table``: phik's own
steps, with the bivariate normal's cells integrated once per grid point, which makes a column of
many categories cheap). That is exactly ``phik.phik_matrix`` on categorical columns after phik's
binning of interval columns, and it keeps two cases that phik would drop
with a warning (an interval column with one distinct value plus missing values, and a column with
one value on one side only). A column with a single category on a side (constant, or always
missing) has no defined phik on that side; it is counted as 0 (no association, the limit of a
chi-square of 0) and listed as one finding per column: a warning where the training and synthetic
data differ (one constant, the other not), else a note (constant in the real data too).

Wide tables: phik's cost is per column pair (measured with phik's own code: about 6 ms per pair
and role on 2 cores, so a 120-column table's 7,140 pairs took two minutes; ``phik_table`` takes
about 1.3 ms for a 10 x 10 table). When a table has more than ``MAX_PHIK_COLUMNS``
compared columns and the user did not choose its ``phik`` columns, phik is computed on a seeded
uniform random sample of ``MAX_PHIK_COLUMNS`` of them (shown in table order). Every pair of the
table then has the same chance to be counted, so the similarity over the sampled pairs estimates the
one over all pairs without bias (a rule such as "the first k columns" or "the least similar k"
would favour some pairs). The result says how many columns were available (``columns_available``)
and a finding names the rule; a user's own selection (``ReportColumns(phik=...)``) is honoured as
given, whatever its width.

A table's matrices are computed once and shared (``phik_matrices``): the association section
(``reportgen.metrics.association``) reads the same ones. With them comes each pair's significance
in each role: phik's asymptotic Z of the chi-square test of independence of the same contingency
table, with phik's effective degrees of freedom (the noise pedestal phik subtracts), which tells an
association from noise.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from phik.binning import bin_edges
from phik.significance import significance_from_chi2_ndof
from phik.statistics import estimate_simple_ndof, get_chi2_using_dependent_frequency_estimates
from pydantic import BaseModel, Field

from reportgen.binning import as_numbers
from reportgen.context import EvaluationContext, PreparedTable
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.metrics.phik_table import phik_of_table
from reportgen.metrics.registry import MetricNotComputed
from reportgen.render.formatting import listed
from reportgen.results import Finding, SectionResult

PHIK_BINS = 10  # phik's default number of uniform bins for an interval column
MAX_PHIK_COLUMNS = 30  # 435 pairs: a few seconds of phik per role on 2 cores, at any table width
N_LARGEST = 5


class PairCorrelation(BaseModel):
    """One column pair: phik on each side and the absolute difference."""

    a: str
    b: str
    real: float = Field(ge=0, le=1, description="phik of the pair in the training data.")
    synthetic: float = Field(ge=0, le=1, description="phik of the pair in the synthetic data.")
    difference: float = Field(ge=0, le=1, description="|real - synthetic|.")
    holdout: float | None = Field(default=None, ge=0, le=1, description="phik in the holdout data.")


class TableCorrelation(BaseModel):
    """The phik matrices of one table (symmetric, 1 on the diagonal) and their similarity."""

    table: str
    columns: list[str]
    real: list[list[float]] = Field(description="phik matrix of the training data.")
    synthetic: list[list[float]] = Field(description="phik matrix of the synthetic data.")
    difference: list[list[float]] = Field(description="|real - synthetic|, 0 on the diagonal.")
    holdout: list[list[float]] | None = Field(default=None, description="phik matrix of the holdout.")
    similarity: float = Field(ge=0, le=1, description="1 - mean |real - synthetic| over column pairs.")
    reference_similarity: float | None = Field(
        default=None, ge=0, le=1, description="1 - mean |real - holdout| over column pairs."
    )
    n_pairs: int = Field(ge=1, description="Number of off-diagonal column pairs.")
    rows: dict[str, int] = Field(description="Rows used for phik, per role.")
    sampled: bool = Field(description="Whether a role was sampled down to n_max_phik rows.")
    constant_columns: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Per role, columns with a single value there; their phik is counted as 0.",
    )
    largest_differences: list[PairCorrelation]
    columns_available: int | None = Field(
        default=None,
        description="Compared columns of the table; more than len(columns) when phik used a sample of them.",
    )


@dataclass(frozen=True)
class PhikMatrices:
    """One table's phik matrices per role and each pair's significance, shared by two sections.

    ``significance[role][i, j]`` is phik's asymptotic Z of the pair's chi-square test of
    independence in that role (0 for a pair with a constant column).
    """

    columns: list[str]
    matrices: dict[str, np.ndarray]
    significance: dict[str, np.ndarray]
    rows: dict[str, int]
    sampled: bool
    constant: dict[str, list[str]]
    available: int


class CorrelationResult(SectionResult):
    """The correlation section: per table, and the dataset's similarity weighted by pair count."""

    tables: list[TableCorrelation]
    similarity: float = Field(ge=0, le=1)
    reference_similarity: float | None = Field(default=None, ge=0, le=1)
    n_max_phik: int = Field(ge=1, description="Most rows per role used for phik.")
    interval_bins: int = Field(description="Uniform bins of each numeric or datetime column.")
    max_columns: int = Field(
        default=MAX_PHIK_COLUMNS,
        description="Most columns per table phik compares unless the user chose them (a random sample).",
    )


def compute_correlation(ctx: EvaluationContext) -> CorrelationResult:
    """Phik matrices of every table with at least two selected columns, and their similarity.

    The dataset's correlation similarity is the mean of the table similarities weighted by each
    table's number of off-diagonal pairs, so it equals the mean over every column pair of the
    dataset: each pair counts once, and a table of 3 columns does not weigh as much as one of 30.
    """
    tables = [
        _table_correlation(prep.name, phik)
        for prep in map(ctx.table, ctx.table_names)
        if (phik := phik_matrices(prep)) is not None
    ]
    if not tables:
        raise MetricNotComputed("no table has two or more columns that phik can compare")
    weights = np.array([t.n_pairs for t in tables], dtype=float)
    reference = None
    if all(t.reference_similarity is not None for t in tables):
        reference = float(np.average([t.reference_similarity for t in tables], weights=weights))
    return CorrelationResult(
        section="correlation",
        tables=tables,
        similarity=float(np.average([t.similarity for t in tables], weights=weights)),
        reference_similarity=reference,
        n_max_phik=ctx.settings.n_max_phik,
        interval_bins=PHIK_BINS,
    )


def phik_matrices(prep: PreparedTable) -> PhikMatrices | None:
    """The phik matrices of a table's ``phik`` columns (None: fewer than two), computed once.

    The first call also records the findings about them (sampling, constant columns).
    """
    return prep.shared("phik", lambda: _phik_matrices(prep))


def _phik_matrices(prep: PreparedTable) -> PhikMatrices | None:
    ctx = prep.context
    available = ctx.settings.columns.select("phik", prep.name, prep.compared_columns)
    frames = {role: f for role in (TRAIN, TEST, SYNTH) if (f := prep.frame(role)) is not None}
    numeric = {c for c in available if prep.bins[c].is_numeric}
    return phik_of_frames(ctx, prep.name, frames, available, numeric)


def phik_of_frames(
    ctx: EvaluationContext,
    name: str,
    frames: Mapping[str, pd.DataFrame],
    available: list[str],
    numeric: set[str],
    *,
    reported: Collection[str] = (),
) -> PhikMatrices | None:
    """The phik matrices of the ``available`` columns in each role's frame of a table or entity view.

    ``numeric`` columns are cut into phik's uniform bins on the training rows; the others are
    categories. A wide table or view is bounded to a seeded sample of columns (``phik_columns``).
    Records the findings about them (column and row sampling, constant columns, except those of the
    ``reported`` columns: an entity view's parent columns, already reported by their table). None:
    fewer than two columns.
    """
    if len(available) < 2:
        return None
    columns = phik_columns(ctx, name, available)
    if len(columns) < len(available):
        ctx.findings.append(_columns_finding(name, len(columns), len(available)))
    ctx.progress(f"{name}: phik matrices")
    frames, sampled = _sampled_frames(ctx, name, frames, columns)
    if sampled:
        ctx.findings.append(_sampling_finding(name, ctx.settings.n_max_phik))
    edges = _interval_edges(frames[TRAIN], [c for c in columns if c in numeric])
    codes = {role: _codes(frame, columns, edges) for role, frame in frames.items()}
    constant = {role: [c for c in columns if codes[role][c].nunique() < 2] for role in codes}
    ctx.findings += _constant_findings(
        name, {r: [c for c in cs if c not in reported] for r, cs in constant.items()}
    )
    tables = {role: _pair_tables(codes[role], constant[role]) for role in codes}
    return PhikMatrices(
        columns=columns,
        matrices={role: _phik(tables[role], len(columns)) for role in codes},
        significance={role: _significance(tables[role], len(columns)) for role in codes},
        rows={role: len(frame) for role, frame in frames.items()},
        sampled=sampled,
        constant=constant,
        available=len(available),
    )


def phik_columns(ctx: EvaluationContext, table: str, available: list[str]) -> list[str]:
    """The columns phik compares: all, or a seeded random ``MAX_PHIK_COLUMNS`` of a wide table.

    Only when the user left the table's ``phik`` selection at its default; the sample keeps table
    order, and every pair has the same chance to be in it (see the module).
    """
    choice = ctx.settings.columns.phik
    if isinstance(choice, Mapping):
        choice = choice.get(table)
    if choice is not None or len(available) <= MAX_PHIK_COLUMNS:
        return available
    drawn = ctx.rng(f"phik-columns:{table}").choice(len(available), MAX_PHIK_COLUMNS, replace=False)
    return [available[i] for i in sorted(drawn)]


def _columns_finding(table: str, used: int, available: int) -> Finding:
    return Finding(
        severity="info",
        code="phik_columns_sampled",
        table=table,
        message=(
            f"This table has {available:,} compared columns; to bound the time, the phik correlations "
            f"(and the association section) use a seeded random sample of {used} of them "
            f"({used * (used - 1) // 2:,} of {available * (available - 1) // 2:,} pairs). Every pair had "
            "the same chance to be drawn, so the correlation similarity estimates the one over all pairs. "
            "Choose the columns with ReportColumns(phik=...) to compare others."
        ),
    )


def _table_correlation(table: str, phik: PhikMatrices) -> TableCorrelation:
    columns, matrices = phik.columns, phik.matrices
    real, synth, holdout = matrices[TRAIN], matrices[SYNTH], matrices.get(TEST)
    difference = np.abs(real - synth)
    upper = np.triu_indices(len(columns), k=1)
    return TableCorrelation(
        table=table,
        columns=columns,
        real=_rounded(real),
        synthetic=_rounded(synth),
        difference=_rounded(difference),
        holdout=None if holdout is None else _rounded(holdout),
        similarity=1.0 - float(difference[upper].mean()),
        reference_similarity=None if holdout is None else 1.0 - float(np.abs(real - holdout)[upper].mean()),
        n_pairs=len(upper[0]),
        rows=phik.rows,
        sampled=phik.sampled,
        constant_columns={role: cols for role, cols in phik.constant.items() if cols},
        largest_differences=_largest_differences(columns, real, synth, holdout),
        columns_available=phik.available,
    )


def _sampled_frames(
    ctx: EvaluationContext, name: str, frames: Mapping[str, pd.DataFrame], columns: list[str]
) -> tuple[dict[str, pd.DataFrame], bool]:
    """Each role's rows, a uniform seeded sample of ``n_max_phik`` rows where there are more.

    Also says whether any role was sampled.
    """
    rng = ctx.rng(f"phik:{name}")
    cap = ctx.settings.n_max_phik
    sampled_frames, sampled = {}, False
    for role in (TRAIN, TEST, SYNTH):  # fixed order: the draws do not depend on dict order
        frame = frames.get(role)
        if frame is None:
            continue
        if len(frame) > cap:
            frame = frame.iloc[np.sort(rng.choice(len(frame), size=cap, replace=False))]
            sampled = True
        sampled_frames[role] = frame[columns]
    return sampled_frames, sampled


def _interval_edges(real: pd.DataFrame, numeric: list[str]) -> dict[str, np.ndarray]:
    """Phik's uniform bin edges of each numeric or datetime column, on the real rows, outer bins open."""
    edges = {}
    for column in numeric:
        x = as_numbers(real[column])
        x = x[np.isfinite(x)]
        inner = bin_edges(x, PHIK_BINS)[1:-1] if len(x) else np.empty(0)
        edges[column] = np.concatenate([[-np.inf], inner, [np.inf]])
    return edges


def _codes(frame: pd.DataFrame, columns: list[str], edges: dict[str, np.ndarray]) -> pd.DataFrame:
    """Integer category of every value: the bin of an interval value, the level of a category.

    Missing values get a code of their own. Interval bins are indexed as phik does
    (``searchsorted`` on the edges, a value on an edge falls in the bin below it).
    """
    out = {}
    for column in columns:
        values = frame[column]
        if column in edges:
            x = as_numbers(values)
            codes = np.searchsorted(edges[column], x, side="left")
            out[column] = np.where(np.isnan(x), len(edges[column]) + 1, codes)
        else:
            out[column] = pd.factorize(values, use_na_sentinel=False)[0]
    return pd.DataFrame(out, index=frame.index)


def _pair_tables(codes: pd.DataFrame, constant: list[str]) -> dict[tuple[int, int], np.ndarray]:
    """The contingency table of every column pair ``i < j`` in which neither column is ``constant``.

    A pair with a constant column has no table: its phik and significance are 0.
    """
    values = [codes[c].to_numpy(dtype=np.int64) for c in codes.columns]
    varies = [c not in constant for c in codes.columns]
    return {
        (i, j): _contingency(values[i], values[j])
        for i, j in combinations(range(len(values)), 2)
        if varies[i] and varies[j]
    }


def _phik(tables: Mapping[tuple[int, int], np.ndarray], n_columns: int) -> np.ndarray:
    """Phik matrix from the pairs' contingency tables: 1 on the diagonal, 0 for a constant column.

    Each pair's phik is ``phik.phik_matrix``'s to the last bit (``reportgen.metrics.phik_table``,
    which is faster on columns with many categories); phik leaves a constant column's pairs undefined.
    """
    values = np.eye(n_columns)
    for (i, j), table in tables.items():
        values[i, j] = values[j, i] = phik_of_table(table)
    return np.clip(values, 0.0, 1.0)


def _significance(tables: Mapping[tuple[int, int], np.ndarray], n_columns: int) -> np.ndarray:
    """Phik's asymptotic Z of each pair's chi-square test of independence, as a symmetric matrix.

    The contingency table and Pearson chi-square of ``phik.phik_from_hist2d``, with phik's
    effective degrees of freedom (the pedestal it subtracts as noise); 0 for a constant column.
    """
    z = np.zeros((n_columns, n_columns))
    for (i, j), table in tables.items():
        chi2 = get_chi2_using_dependent_frequency_estimates(table, lambda_="pearson")
        z[i, j] = z[j, i] = significance_from_chi2_ndof(chi2, estimate_simple_ndof(table))[1]
    return z


def _contingency(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Counts of each pair of codes, as phik's contingency table (empty rows and columns dropped)."""
    n_b = int(b.max()) + 1
    table = np.bincount(a * n_b + b, minlength=(int(a.max()) + 1) * n_b).reshape(-1, n_b)
    return table[table.any(axis=1)][:, table.any(axis=0)]


def _largest_differences(
    columns: list[str], real: np.ndarray, synth: np.ndarray, holdout: np.ndarray | None
) -> list[PairCorrelation]:
    pairs = [
        PairCorrelation(
            a=columns[i],
            b=columns[j],
            real=round(float(real[i, j]), 6),
            synthetic=round(float(synth[i, j]), 6),
            difference=round(abs(float(real[i, j] - synth[i, j])), 6),
            holdout=None if holdout is None else round(float(holdout[i, j]), 6),
        )
        for i, j in combinations(range(len(columns)), 2)
    ]
    return sorted(pairs, key=lambda p: (-p.difference, p.a, p.b))[:N_LARGEST]


def _sampling_finding(table: str, cap: int) -> Finding:
    return Finding(
        severity="info",
        code="phik_sampled",
        table=table,
        message=(
            f"The phik correlation matrices were computed on a uniform random sample of {cap:,} rows "
            "(seeded) of each data set that has more rows (setting n_max_phik)."
        ),
    )


def _constant_findings(table: str, constant: Mapping[str, list[str]]) -> list[Finding]:
    """One finding per column with a single value in some role's phik rows (``constant``: per role).

    A warning only where the training and synthetic data differ, one constant and the other not:
    the generator lost the column's variation, or invented variation the real data does not have.
    A column constant in both (or only in the holdout) is a note: the synthetic data loses nothing.
    One finding per column, not per role: a column constant everywhere is one fact.
    """
    columns = list(dict.fromkeys(c for role in constant for c in constant[role]))
    return [
        _constant_finding(table, c, [role for role in constant if c in constant[role]], list(constant))
        for c in columns
    ]


def _constant_finding(table: str, column: str, constant_in: list[str], roles: list[str]) -> Finding:
    varies_in = [role for role in roles if role not in constant_in]
    differs = (TRAIN in constant_in) != (SYNTH in constant_in)
    if not differs:
        then = (
            " The training data is constant too, so the synthetic data loses nothing."
            if TRAIN in constant_in
            else ""
        )
    elif SYNTH in constant_in:
        then = " The generator lost the variation of this column."
    else:
        then = " The synthetic data varies where the real data does not."
    varies = f", but varies in the {listed(varies_in)} rows" if varies_in else ""
    return Finding(
        severity="warning" if differs else "info",
        code="phik_constant_column",
        table=table,
        column=column,
        message=(
            f"This column takes a single value (or is always missing) in the {listed(constant_in)} rows "
            f"used for phik{varies}; its phik correlations there are undefined and counted as 0 (no "
            f"association).{then}"
        ),
    )


def _rounded(matrix: np.ndarray) -> list[list[float]]:
    return np.round(matrix, 6).tolist()
