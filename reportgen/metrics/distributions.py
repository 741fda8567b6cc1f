"""Distribution plots: each column's histogram and the joint histograms of selected pairs.

What a reader sees next to the similarity numbers. The result holds only what the plots draw
(shares per bin per role, and bin labels), so it never carries a rare real value:

- categories held by fewer than ``min_category_count`` training rows, categories seen only in the
  holdout or synthetic data, and printable levels beyond ``max_categories`` are pooled into
  "(other)"; when more levels are printable than fit, the ones shown are those whose share differs
  most between training and synthetic data, and ``hidden_difference`` says how much of
  1 - similarity lies among the pooled levels, where no bar can show it;
- numeric and datetime columns are drawn on ``N_PLOT_BINS`` equal-width bins between the 0.5th and
  99.5th percentiles of the training data (values outside fall into the outer bins, and
  ``outside_range`` says how many), so the axis reads in the column's units and one value of 1e12
  cannot squeeze the rest into one bar; missing values are a bar of their own;
- a value so common that the similarity gives it a bin of its own (the zeros of a zero-inflated
  column, ``ColumnBins.tied_values``) gets a bar of its own too, up to ``MAX_EXACT`` of them, and
  leaves the histogram: otherwise a generator that moved the zeros to 0.3 would look identical in
  a bin [0, 900) while its similarity says it is not;
- pair plots use coarse bins (``N_PAIR_BINS`` quantile bins, or the most frequent categories), and
  cells with fewer than ``min_category_count`` training rows are blanked in the real panel, so no
  small group of real rows can be read off a plot.

All pairs are drawn when a table has at most ``MAX_PAIR_PLOTS`` of them; otherwise the
``MAX_PAIR_PLOTS`` least similar pairs (lowest ``1 - TVD``) are drawn, and the report says so.
"""

from __future__ import annotations

from itertools import combinations, pairwise
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from reportgen.binning import MISSING_LABEL, OTHER_LABEL, as_numbers, numeric_edges
from reportgen.context import EvaluationContext, PreparedTable
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.data.schema import ColumnKind
from reportgen.disclosure import frequent_counts
from reportgen.metrics.registry import MetricNotComputed
from reportgen.metrics.similarity import table_similarity
from reportgen.render.figures import compact_labels, date_labels
from reportgen.results import SectionResult

N_PLOT_BINS = 30
N_PAIR_BINS = 8
MAX_PAIR_PLOTS = 4
PLOT_RANGE = (0.005, 0.995)
MAX_EXACT = 2  # tied values drawn as bars of their own


class ColumnDistribution(BaseModel):
    """One column's histogram per role, ready to draw.

    Numeric and datetime columns have ``edges`` (bin boundaries, datetimes as UTC seconds) and
    ``shares`` per bin; categorical columns have ``labels`` and ``shares`` per label. ``missing``
    is each role's share of missing values; shares, exact shares and missing add up to 1 per role.
    """

    column: str
    kind: str
    axis: Literal["numeric", "datetime", "categorical"]
    edges: list[float] = Field(default_factory=list)
    labels: list[str] = Field(default_factory=list)
    shares: dict[str, list[float]]
    missing: dict[str, float]
    exact_values: list[float] = Field(
        default_factory=list, description="Values with a bar of their own, left out of the histogram."
    )
    exact_shares: dict[str, list[float]] = Field(
        default_factory=dict, description="Each role's share of rows holding each of ``exact_values``."
    )
    outside_range: dict[str, tuple[float, float]] = Field(
        default_factory=dict,
        description="Each role's share of rows below and above the plotted range, drawn in the outer bins.",
    )
    pooled_levels: int = Field(default=0, description="Real levels pooled into '(other)'.")
    hidden_difference: float = Field(
        default=0.0,
        ge=0,
        le=1,
        description="Part of 1 - similarity that the bars cannot show: differences among the levels "
        "pooled into '(other)' (too rare to print, or beyond max_categories).",
    )
    similarity: float = Field(ge=0, le=1)
    reference: float | None = Field(default=None, ge=0, le=1)


class PairDistribution(BaseModel):
    """The joint histogram of one column pair for the real and synthetic data, on coarse bins.

    ``real`` has ``None`` in cells with fewer than ``min_category_count`` training rows.
    """

    a: str
    b: str
    labels_a: list[str]
    labels_b: list[str]
    real: list[list[float | None]]
    synthetic: list[list[float]]
    similarity: float = Field(ge=0, le=1)
    reference: float | None = Field(default=None, ge=0, le=1)


class TableDistributions(BaseModel):
    """The plotted columns and pairs of one table, and how the pairs were chosen."""

    table: str
    columns: list[ColumnDistribution]
    pairs: list[PairDistribution]
    n_pairs: int = Field(description="Number of column pairs in the similarity matrix.")
    pair_rule: str = Field(description="Which pairs are drawn, in words.")


class DistributionsResult(SectionResult):
    """The distribution plots of every table."""

    tables: list[TableDistributions]
    min_category_count: int


def compute_distributions(ctx: EvaluationContext) -> DistributionsResult:
    """Plot data for the ``univ`` columns and the selected ``biv`` pairs of every table."""
    tables = [
        _table_distributions(ctx.table(name)) for name in ctx.table_names if ctx.table(name).compared_columns
    ]
    if not tables:
        raise MetricNotComputed("no table has a column that can be compared (all are keys, text or empty)")
    return DistributionsResult(
        section="distributions", tables=tables, min_category_count=ctx.settings.min_category_count
    )


def _table_distributions(prep: PreparedTable) -> TableDistributions:
    similarity = table_similarity(prep)
    details = {c.column: c for c in similarity.column_details}
    columns = [_column_distribution(prep, c, details[c].similarity, details[c].reference) for c in details]
    pairs = [
        (
            similarity.matrix[i][j],
            None if similarity.reference_matrix is None else similarity.reference_matrix[i][j],
            a,
            b,
        )
        for (i, a), (j, b) in combinations(enumerate(similarity.columns), 2)
    ]
    if len(pairs) <= MAX_PAIR_PLOTS:
        rule = "all column pairs"
    else:
        pairs = sorted(pairs, key=lambda p: (p[0], p[2], p[3]))[:MAX_PAIR_PLOTS]
        rule = f"the {MAX_PAIR_PLOTS} least similar of {_n_pairs(similarity.columns)} column pairs"
    return TableDistributions(
        table=prep.name,
        columns=columns,
        pairs=[_pair_distribution(prep, a, b, sim, ref) for sim, ref, a, b in pairs],
        n_pairs=_n_pairs(similarity.columns),
        pair_rule=rule,
    )


def _n_pairs(columns: list[str]) -> int:
    return len(columns) * (len(columns) - 1) // 2


def _roles(prep: PreparedTable) -> list[str]:
    return [role for role in (TRAIN, TEST, SYNTH) if prep.frame(role) is not None]


def _column_distribution(
    prep: PreparedTable, column: str, similarity: float, reference: float | None
) -> ColumnDistribution:
    kind = prep.schema.kinds[column]
    values = {role: _frame(prep, role)[column] for role in _roles(prep)}
    missing = {role: float(v.isna().mean()) for role, v in values.items()}
    plot = ColumnDistribution(
        column=column,
        kind=kind.value,
        axis="categorical",
        shares={},
        missing=missing,
        similarity=similarity,
        reference=reference,
    )
    if prep.bins[column].is_numeric:
        numbers = {role: as_numbers(v) for role, v in values.items()}
        edges = plot_edges(numbers[TRAIN], integer=kind is ColumnKind.INTEGER)
        exact = _exact_values(prep.bins[column].tied_values, numbers[TRAIN], edges)
        return plot.model_copy(
            update={
                "axis": "datetime" if kind is ColumnKind.DATETIME else "numeric",
                "edges": edges.tolist(),
                "shares": {role: _binned_shares(x, edges, exact) for role, x in numbers.items()},
                "exact_values": exact,
                "exact_shares": {
                    role: [float(np.mean(x == v)) for v in exact] for role, x in numbers.items()
                },
                "outside_range": {role: _outside(x, edges, exact) for role, x in numbers.items()},
            }
        )
    settings = prep.context.settings
    labels, pooled = shown_levels(
        values[TRAIN], settings.min_category_count, settings.max_categories, synthetic=values[SYNTH]
    )
    shares = {role: _level_shares(v, labels) for role, v in values.items()}
    drawn = 0.5 * float(np.abs(np.subtract(shares[TRAIN], shares[SYNTH])).sum())
    return plot.model_copy(
        update={
            "labels": _with_other(labels),
            "shares": shares,
            "pooled_levels": pooled,
            "hidden_difference": max(0.0, 1 - similarity - drawn),
        }
    )


def plot_edges(real: np.ndarray, *, integer: bool = False) -> np.ndarray:
    """Equal-width bin edges over the central 99% of the real values (whole numbers when integer)."""
    x = real[~np.isnan(real)]
    if len(x) == 0:
        return np.array([0.0, 1.0])
    if not too_wide(x.min(), x.max()):
        low, high = np.quantile(x, PLOT_RANGE)
    else:  # the same on halves, exact in binary
        low, high = 2 * np.quantile(x / 2, PLOT_RANGE)
    if high <= low:
        low, high = float(x.min()), float(x.max())
    if high <= low:
        return np.array([low - 0.5, low + 0.5])
    if too_wide(low, high):
        return 2 * np.linspace(low / 2, high / 2, N_PLOT_BINS + 1)
    if integer and high - low + 1 <= N_PLOT_BINS:
        return np.arange(np.floor(low), np.ceil(high) + 2) - 0.5
    return np.linspace(low, high, N_PLOT_BINS + 1)


def too_wide(low: float, high: float, *, headroom: float = 1.0) -> bool:
    """Whether ``headroom * (high - low)`` overflows a double (from -1e308 to 1e308).

    Computed on halves, which cannot overflow. A ``headroom`` above 1 leaves room for arithmetic on
    the width (a figure's margins and ticks).
    """
    return bool(high / 2 - low / 2 > np.finfo(float).max / (2 * headroom))


def _exact_values(tied: tuple[float, ...], real: np.ndarray, edges: np.ndarray) -> list[float]:
    """The ``MAX_EXACT`` most common tied values, unless every plotted bin is one whole number already."""
    if np.allclose(np.diff(edges), 1.0) and np.allclose(edges % 1, 0.5):
        return []
    return sorted(tied, key=lambda v: (-np.sum(real == v), v))[:MAX_EXACT]


def _present(x: np.ndarray, exact: list[float]) -> np.ndarray:
    """The values drawn in the histogram: neither missing nor one of the exact values."""
    return x[~np.isnan(x) & ~np.isin(x, exact)]


def _outside(x: np.ndarray, edges: np.ndarray, exact: list[float]) -> tuple[float, float]:
    """Share of all rows below and above the plotted range (they are drawn in the outer bins)."""
    present, n = _present(x, exact), max(len(x), 1)
    return float(np.sum(present < edges[0]) / n), float(np.sum(present > edges[-1]) / n)


def _binned_shares(x: np.ndarray, edges: np.ndarray, exact: list[float]) -> list[float]:
    """Share of all rows (missing included in the total) in each bin; outliers join the outer bins."""
    present = _present(x, exact)
    inner = np.clip(np.searchsorted(edges, present, side="right") - 1, 0, len(edges) - 2)
    counts = np.bincount(inner, minlength=len(edges) - 1)
    return (counts / max(len(x), 1)).tolist()


def shown_levels(
    real: pd.Series, min_count: int, max_levels: int, *, synthetic: pd.Series | None = None
) -> tuple[list[str], int]:
    """Printable real levels, most frequent first, and how many real levels were pooled into "(other)".

    Printable: held by at least ``min_count`` rows (the no-leak rule). When more are printable than
    ``max_levels``, the most frequent are kept, or, given the ``synthetic`` values, those whose
    share differs most between the two sides: pooling the levels that carry the difference into
    "(other)" would draw identical bars beside a similarity that says they differ.
    """
    counts = real.dropna().astype("string").value_counts()
    frequent = frequent_counts(real, min_count)  # the report's no-leak rule (reportgen.disclosure)
    ordered = sorted(frequent.index, key=lambda level: (-frequent[level], str(level)))
    if synthetic is not None and len(ordered) > max_levels:
        gap = _share_gaps(real, synthetic)
        chosen = set(sorted(ordered, key=lambda level: -gap[level])[:max_levels])  # stable: ties by frequency
        ordered = [level for level in ordered if level in chosen]
    shown = ordered[:max_levels]
    return [str(level) for level in shown], len(counts) - len(shown)


def _share_gaps(real: pd.Series, synthetic: pd.Series) -> pd.Series:
    """``|real share - synthetic share|`` of every real level (shares of all rows, as text)."""
    p = real.astype("string").value_counts() / max(len(real), 1)
    q = synthetic.astype("string").value_counts() / max(len(synthetic), 1)
    return (p - q.reindex(p.index, fill_value=0)).abs()


def _with_other(labels: list[str]) -> list[str]:
    return [*labels, OTHER_LABEL, MISSING_LABEL]


def _level_codes(values: pd.Series, labels: list[str]) -> np.ndarray:
    """Codes over ``labels + [other, missing]``."""
    codes = pd.Index(labels).get_indexer(values.astype("string").fillna(MISSING_LABEL))
    codes = np.where(codes < 0, len(labels), codes)
    return np.where(values.isna().to_numpy(), len(labels) + 1, codes)


def _level_shares(values: pd.Series, labels: list[str]) -> list[float]:
    """Share of all rows per label, "(other)" and "(missing)" included."""
    counts = np.bincount(_level_codes(values, labels), minlength=len(labels) + 2)
    return (counts / max(len(values), 1)).tolist()


def _pair_distribution(
    prep: PreparedTable, a: str, b: str, similarity: float, reference: float | None
) -> PairDistribution:
    real, synth = _frame(prep, TRAIN), _frame(prep, SYNTH)
    settings = prep.context.settings
    codes_a, labels_a = _coarse_codes(prep, a, real[a], synth[a])
    codes_b, labels_b = _coarse_codes(prep, b, real[b], synth[b])
    real_counts = _joint_counts(codes_a[0], codes_b[0], len(labels_a), len(labels_b))
    synth_counts = _joint_counts(codes_a[1], codes_b[1], len(labels_a), len(labels_b))
    total = real_counts + synth_counts  # bins empty on both sides are not drawn
    rows, cols = total.sum(axis=1) > 0, total.sum(axis=0) > 0
    real_counts, synth_counts = real_counts[rows][:, cols], synth_counts[rows][:, cols]
    hidden = real_counts < settings.min_category_count
    return PairDistribution(
        a=a,
        b=b,
        labels_a=[label for label, keep in zip(labels_a, rows, strict=True) if keep],
        labels_b=[label for label, keep in zip(labels_b, cols, strict=True) if keep],
        real=_hide(real_counts / max(len(real), 1), hidden),
        synthetic=(synth_counts / max(len(synth), 1)).tolist(),
        similarity=similarity,
        reference=reference,
    )


def _hide(shares: np.ndarray, hidden: np.ndarray) -> list[list[float | None]]:
    """The shares as nested lists, None where ``hidden``."""
    out = shares.astype(object)
    out[hidden] = None
    return out.tolist()


def _coarse_codes(
    prep: PreparedTable, column: str, real: pd.Series, synth: pd.Series
) -> tuple[tuple[np.ndarray, np.ndarray], list[str]]:
    """Codes of both sides on a few bins, with the bins' labels (missing last, when present)."""
    if prep.bins[column].is_numeric:
        x, y = as_numbers(real), as_numbers(synth)
        present = x[~np.isnan(x)]
        edges = numeric_edges(present, N_PAIR_BINS) if len(present) else np.empty(0)
        labels = _range_labels(edges, prep.schema.kinds[column])
        codes = [
            np.where(np.isnan(v), len(labels), np.searchsorted(edges, np.nan_to_num(v), side="right"))
            for v in (x, y)
        ]
    else:
        settings = prep.context.settings
        shown, _ = shown_levels(real, settings.min_category_count, min(settings.max_categories, N_PAIR_BINS))
        labels = [*shown, OTHER_LABEL]
        codes = [_level_codes(v, shown) for v in (real, synth)]
    has_missing = bool(real.isna().any() or synth.isna().any())
    return (codes[0], codes[1]), labels + ([MISSING_LABEL] if has_missing else [])


def _range_labels(edges: np.ndarray, kind: ColumnKind) -> list[str]:
    """Labels of the bins ``(-inf, e0), [e0, e1), ..., [en, inf)`` in the column's units.

    A tied value's own bin ``[v, next float after v)`` reads "= v"; the bin after it "> v to ...".
    Numbers read compactly on one scale (2.6k to 4.1k), so a label fits under a heatmap uncut.
    """
    if not len(edges):
        return ["all values"]
    bounds = [-np.inf, *edges, np.inf]
    fmt = ["", *_format_values(edges, kind), ""]
    labels = []
    for i, (lo, hi) in enumerate(pairwise(bounds)):
        after_tie = i > 0 and lo == np.nextafter(bounds[i - 1], np.inf)
        low = f"> {fmt[i - 1]}" if after_tie else f"≥ {fmt[i]}"
        if i == 0:
            labels.append(f"< {fmt[1]}")
        elif hi == np.nextafter(lo, np.inf):
            labels.append(f"= {fmt[i]}")
        elif not np.isfinite(hi):
            labels.append(low)
        else:
            labels.append(f"{low.removeprefix('≥ ')} to {fmt[i + 1]}")
    return labels


def _format_values(values: np.ndarray, kind: ColumnKind) -> list[str]:
    """Bin bounds as text by ``date_labels`` or ``compact_labels``; a tie's two edges read alike."""
    if kind is ColumnKind.DATETIME:
        return date_labels(values.tolist())
    distinct = sorted({float(v) for v in values} - {float(np.nextafter(v, np.inf)) for v in values})
    text = dict(zip(distinct, compact_labels(distinct), strict=True))
    return [text.get(float(v), text.get(float(np.nextafter(v, -np.inf)), "")) for v in values]


def _joint_counts(a: np.ndarray, b: np.ndarray, n_a: int, n_b: int) -> np.ndarray:
    """Counts per (bin of a, bin of b), rows for a."""
    flat = np.bincount(a.astype(np.int64) * n_b + b, minlength=n_a * n_b)
    return flat.reshape(n_a, n_b)


def _frame(prep: PreparedTable, role: str) -> pd.DataFrame:
    frame = prep.frame(role)
    assert frame is not None
    return frame
