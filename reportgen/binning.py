"""Shared bins of one table's columns (METRICS.md sections 2 and 3), fitted once, used by every role.

- numeric / datetime: ``n_bins`` quantile bins of the real training data, outer bins open-ended;
  a value tied in at least 1/n_bins of the rows (the zeros of a zero-inflated column) is one bin of
  its own, and quantile bins cover the remaining values;
- categorical / boolean: one bin per level seen on any side (univariate), or the
  ``max_levels`` most frequent real levels plus "other" (pairs), so that a category seen on one
  side only still counts;
- every column has a last bin for missing values: missingness is data.

A column's values become integer codes ``0 .. n_codes - 1``; histograms and joint histograms are
``bincount`` s of codes, which keeps every similarity a vectorised count.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd

from reportgen.data.schema import ColumnKind

MISSING_LABEL = "(missing)"
OTHER_LABEL = "(other)"


@dataclass(frozen=True)
class ColumnBins:
    """How one column's values map to bins: inner edges (numbers) or levels (categories)."""

    column: str
    kind: ColumnKind
    edges: tuple[float, ...] = ()
    levels: tuple[str, ...] = ()
    pooled: bool = False  # whether real levels beyond ``levels`` were pooled into "other"

    @property
    def is_numeric(self) -> bool:
        return self.kind.is_ordered

    @property
    def tied_values(self) -> tuple[float, ...]:
        """The heavily tied values that have a bin of their own, ``[v, next float after v)``."""
        return tuple(lo for lo, hi in itertools.pairwise(self.edges) if hi == np.nextafter(lo, np.inf))

    @property
    def n_codes(self) -> int:
        """Number of bins, the missing bin included (and, for categories, the "other" bin)."""
        return len(self.edges) + 2 if self.is_numeric else len(self.levels) + 2

    def codes(self, values: pd.Series) -> np.ndarray:
        """The bin of each value, as int32 codes; missing values get the last code."""
        missing = values.isna().to_numpy()
        if self.is_numeric:
            x = as_numbers(values)
            codes = np.searchsorted(np.asarray(self.edges), np.where(missing, 0.0, x), side="right")
        else:
            inverse, distinct = pd.factorize(values.astype("string").fillna(MISSING_LABEL))
            codes = pd.Index(self.levels).get_indexer(distinct)[inverse]  # looked up once per label
            codes = np.where(codes < 0, len(self.levels), codes)  # unseen level -> "other"
        return np.where(missing, self.n_codes - 1, codes).astype(np.int32)


def as_numbers(values: pd.Series) -> np.ndarray:
    """Float values of a numeric or datetime column (datetimes as UTC seconds), NaN for missing."""
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        seconds = values.astype("datetime64[ns, UTC]").astype("int64").to_numpy() / 1e9
        return np.where(values.isna().to_numpy(), np.nan, seconds)
    return values.to_numpy(dtype=float, na_value=np.nan)


def fit_bins(
    column: str,
    kind: ColumnKind,
    real: pd.Series,
    others: Sequence[pd.Series] = (),
    *,
    n_bins: int = 20,
    max_levels: int | None = None,
) -> ColumnBins:
    """Bins of one column: quantiles of ``real`` for numbers; levels of every side for categories.

    ``max_levels`` keeps only the most frequent real levels and pools the rest (pairs use this).
    """
    if kind.is_ordered:
        x = as_numbers(real)
        x = x[~np.isnan(x)]
        if len(x) == 0:
            return ColumnBins(column, kind)
        return ColumnBins(column, kind, edges=tuple(float(e) for e in numeric_edges(x, n_bins)))
    by_frequency = levels_by_frequency(real)
    if max_levels is not None and len(by_frequency) > max_levels:
        return ColumnBins(column, kind, levels=tuple(by_frequency[:max_levels]), pooled=True)
    extra = sorted(
        {str(v) for side in others for v in side.dropna().astype("string").unique()} - set(by_frequency)
    )
    return ColumnBins(column, kind, levels=tuple(by_frequency) + tuple(extra))


def levels_by_frequency(values: pd.Series) -> list[str]:
    """The distinct labels of ``values`` (missing left out), most frequent first, ties in string order.

    The one order in which every capped encoding keeps a column's levels, so that the same levels
    survive a cap everywhere.
    """
    counts = values.dropna().astype("string").value_counts(sort=False)
    return [str(level) for level, _ in sorted(counts.items(), key=lambda lc: (-lc[1], str(lc[0])))]


def numeric_edges(x: np.ndarray, n_bins: int) -> np.ndarray:
    """Inner bin edges: each heavily tied value in a bin of its own, quantile bins over the rest.

    A value held by at least ``1 / n_bins`` of the rows would collapse several quantiles into one
    edge (a zero-inflated column would become a single bin, blind to everything but the zeros). It
    gets the bin ``[v, next float after v)`` instead, and the remaining values share the other bins.
    """
    values, counts = np.unique(x, return_counts=True)
    tied = values[counts >= len(x) / n_bins]
    rest = x[~np.isin(x, tied)]
    n_rest = max(n_bins - len(tied), 1)
    inner = np.quantile(rest, np.linspace(0, 1, n_rest + 1)[1:-1]) if len(rest) else np.empty(0)
    return np.unique(np.concatenate([inner, tied, np.nextafter(tied, np.inf)]))


def histogram(codes: np.ndarray, n_codes: int) -> np.ndarray:
    """Share of values in each bin."""
    return shares(np.bincount(codes, minlength=n_codes))


def joint_histogram(a: np.ndarray, b: np.ndarray, n_a: int, n_b: int) -> np.ndarray:
    """Share of rows in each (bin of a, bin of b) cell, flattened."""
    return histogram(a.astype(np.int64) * n_b + b, n_a * n_b)


def tvd(p: np.ndarray, q: np.ndarray) -> float:
    """Total variation distance between two histograms on the same bins, in [0, 1].

    Clipped at 1: two disjoint histograms can otherwise sum to 1 + 2e-16 in floating point.
    """
    return min(1.0, float(0.5 * np.abs(p - q).sum()))


@dataclass(frozen=True)
class BinCounts:
    """Rows per bin of each column (its univariate bins) and per cell of each pair (its pair bins).

    ``columns[i]`` has ``univariate[i]``; the pair ``(i, j)``, ``i < j``, has ``pairs[(i, j)]``,
    flattened as ``code_i * n_codes_j + code_j``, the layout of ``binning.joint_histogram``.
    """

    columns: tuple[str, ...]
    univariate: tuple[np.ndarray, ...]
    pairs: dict[tuple[int, int], np.ndarray]


def bin_counts_in_memory(
    frame: pd.DataFrame, columns: Sequence[str], bins: dict[str, ColumnBins], pair_bins: dict[str, ColumnBins]
) -> BinCounts:
    """``BinCounts`` of a frame's rows, by ``bincount`` of their codes.

    The in-memory twin of ``reportgen.data.lake.bin_counts``, which counts the same cells in a database.
    """
    uni = tuple(np.bincount(bins[c].codes(frame[c]), minlength=bins[c].n_codes) for c in columns)
    codes = {c: pair_bins[c].codes(frame[c]) for c in columns}
    pairs = {
        (i, j): np.bincount(
            codes[a].astype(np.int64) * pair_bins[b].n_codes + codes[b],
            minlength=pair_bins[a].n_codes * pair_bins[b].n_codes,
        )
        for (i, a), (j, b) in combinations(enumerate(columns), 2)
    }
    return BinCounts(tuple(columns), uni, pairs)


def shares(counts: np.ndarray) -> np.ndarray:
    """Counts per bin as shares of their total (all zeros stay zeros), as ``histogram`` computes them."""
    total = counts.astype(float)
    return total / max(total.sum(), 1.0)
