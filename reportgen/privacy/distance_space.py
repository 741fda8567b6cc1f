"""The shared distance space of one table (METRICS.md section 5), fitted on the training data only.

Every row becomes a float32 vector, so that Euclidean distance compares mixed rows fairly:

- numeric / integer / datetime (datetimes as UTC seconds): ``(x - q01) / (q99 - q01)`` with the
  1st and 99th percentiles (linear interpolation) of the finite training values, clipped to
  [-0.5, 1.5]. A constant training column (``q99 == q01``) gets scale 1: its values keep their
  own unit, so a value off the constant still counts, up to the clip. A column whose training
  values reach past ``2**1020`` in magnitude is first multiplied by 1/4 (``unit``, exact for such
  values), so that no difference of two values overflows near the largest double (1.8e308): the
  scaled values are the same ratios. Missing -> 0, plus an
  indicator column (1 = missing, weight 1) when missing values occur in that column in the training
  data or in any other frame passed to ``fit`` (``others``: the holdout and synthetic data). The
  indicator must exist for every role as soon as one role has a missing value there, else the
  missing rows of that role would sit at 0 as if observed; a column missing nowhere needs none (an
  all-zero column changes no distance). A column with no training value at all keeps only its
  indicator;
- categorical / boolean: one-hot over the training levels scaled by ``1/sqrt(2)``, so two different
  categories are at squared distance 1 like a numeric column's full range. "Missing" is a level of
  its own when the training data has missing values there; levels the training data lacks (and a
  missing value when the training data has none) encode as all zeros, at squared distance 1/2 from
  every training level;
- a column with more than ``max_levels`` training levels (``MAX_ENCODED_LEVELS``, the report's
  ``max_encoded_levels``) keeps its ``max_levels`` most frequent ones (ties in string order) and
  pools every other value, seen in training or not, into one "(other)" level: two different pooled
  values are at distance 0 from each other and at squared distance 1 from a kept level. Its width is
  at most ``max_levels + 2`` (kept, other, missing) whatever its number of levels, so the rows of a
  3,000-level column cost like those of a 50-level one;
- id and text columns are dropped.

``transform`` applies the fitted space to any role, so holdout and synthetic values never move the
scaling.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen.binning import OTHER_LABEL, as_numbers, levels_by_frequency
from reportgen.data.kinds import to_canonical, to_category_strings
from reportgen.data.schema import ColumnKind
from reportgen.errors import DataError, SchemaError
from reportgen.settings import MAX_ENCODED_LEVELS

CLIP_LOW, CLIP_HIGH = -0.5, 1.5
ONE_HOT = np.float32(1 / np.sqrt(2))
MISSING_LEVEL = "(missing)"
_CATEGORICAL_KINDS = (ColumnKind.CATEGORICAL, ColumnKind.BOOLEAN)


@dataclass(frozen=True)
class NumericEncoding:
    """A numeric or datetime column: scaled value, then (optionally) its missing indicator."""

    column: str
    kind: ColumnKind
    low: float | None  # 1st percentile of the training values (times ``unit``); None: no training value
    scale: float  # q99 - q01 (of the values times ``unit``), or 1 for a constant column
    indicator: bool
    unit: float = 1.0  # what values are multiplied by before ``low`` and ``scale`` apply (``safe_unit``)

    @property
    def feature_names(self) -> list[str]:
        return [self.column] + ([f"{self.column} {MISSING_LEVEL}"] if self.indicator else [])

    def encode(self, values: pd.Series) -> np.ndarray:
        """The (n, 1 or 2) block of this column's features."""
        x = column_numbers(values, self.kind, self.column)
        missing = np.isnan(x)
        if missing.any() and not self.indicator:
            raise DataError(
                f"Column {self.column!r} has {int(missing.sum())} missing values, but the distance "
                "space was fitted without a missing indicator for it (no role passed to "
                "DistanceSpace.fit had missing values there). Pass this data in `others` when "
                "fitting."
            )
        if self.low is None:
            scaled = np.zeros_like(x)
        else:  # another role's values may still overflow to +-inf here: clipped, as they should be
            with np.errstate(over="ignore"):
                scaled = np.clip((x * self.unit - self.low) / self.scale, CLIP_LOW, CLIP_HIGH)
        columns = [np.where(missing, 0.0, scaled)]
        if self.indicator:
            columns.append(missing.astype(float))
        return np.column_stack(columns)


@dataclass(frozen=True)
class CategoricalEncoding:
    """A categorical or boolean column: one-hot over the training levels, scaled by 1/sqrt(2).

    ``pooled``: the column had more training levels than the cap; ``levels`` are the kept ones and
    one more feature, "(other)", holds every other present value.
    """

    column: str
    levels: tuple[str, ...]
    missing_level: bool
    pooled: bool = False

    @property
    def feature_names(self) -> list[str]:
        names = [f"{self.column}={level}" for level in self.levels]
        names += [f"{self.column}={OTHER_LABEL}"] if self.pooled else []
        return names + ([f"{self.column}={MISSING_LEVEL}"] if self.missing_level else [])

    def encode(self, values: pd.Series) -> np.ndarray:
        """The (n, width) one-hot block; unseen levels are all zeros, or "(other)" when pooled."""
        labels = category_labels(values)
        missing = labels.isna().to_numpy()
        codes = pd.Index(self.levels).get_indexer(labels.fillna(self.levels[0] if self.levels else ""))
        if self.pooled:
            codes = np.where(codes < 0, len(self.levels), codes)
        n_present = len(self.levels) + self.pooled
        codes = np.where(missing, n_present if self.missing_level else -1, codes)
        width = n_present + self.missing_level
        block = np.zeros((len(labels), width), np.float32)
        seen = np.flatnonzero(codes >= 0)
        block[seen, codes[seen]] = ONE_HOT
        return block


Encoding = NumericEncoding | CategoricalEncoding


@dataclass(frozen=True)
class DistanceSpace:
    """A fitted embedding of a table's rows; ``transform`` turns any role's frame into vectors."""

    encodings: tuple[Encoding, ...]

    @classmethod
    def fit(
        cls,
        frame: pd.DataFrame,
        kinds: Mapping[str, ColumnKind],
        *,
        others: Iterable[pd.DataFrame] = (),
        max_levels: int = MAX_ENCODED_LEVELS,
    ) -> DistanceSpace:
        """Fit on the training ``frame``: the columns of ``kinds`` (in that order), id/text dropped.

        ``others`` (the holdout and synthetic frames) only decide which numeric columns get a
        missing indicator; they never move the scaling or the levels. A categorical column keeps at
        most ``max_levels`` training levels and pools the rest (see the module docstring).
        """
        others = list(others)
        check_columns(frame, kinds, "training")
        encodings: list[Encoding] = []
        for column, kind in kinds.items():
            if kind.is_ordered:
                missing_elsewhere = any(column in o and bool(o[column].isna().any()) for o in others)
                encodings.append(_fit_numeric(column, kind, frame[column], missing_elsewhere))
            elif kind in _CATEGORICAL_KINDS:
                encodings.append(_fit_categorical(column, frame[column], max_levels))
        return cls(tuple(encodings))

    @property
    def columns(self) -> list[str]:
        return [e.column for e in self.encodings]

    @property
    def feature_names(self) -> list[str]:
        """One name per feature: ``age``, ``age (missing)``, ``city=Rome``, ``city=(missing)``."""
        return [name for e in self.encodings for name in e.feature_names]

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    def transform(self, frame: pd.DataFrame) -> np.ndarray:
        """The rows of ``frame`` as a C-contiguous float32 array of shape (n, n_features)."""
        check_columns(frame, self.columns, "given")
        out = np.empty((len(frame), self.n_features), np.float32)
        start = 0
        for encoding in self.encodings:
            block = encoding.encode(frame[encoding.column])
            out[:, start : start + block.shape[1]] = block
            start += block.shape[1]
        return out


def _fit_numeric(
    column: str, kind: ColumnKind, values: pd.Series, missing_elsewhere: bool
) -> NumericEncoding:
    x = column_numbers(values, kind, column)
    finite = x[np.isfinite(x)]
    indicator = bool(np.isnan(x).any()) or missing_elsewhere
    if len(finite) == 0:
        return NumericEncoding(column, kind, None, 1.0, indicator)
    unit = safe_unit(finite)
    low, high = np.quantile(finite * unit, [0.01, 0.99])
    scale = float(high - low) if high > low else 1.0
    return NumericEncoding(column, kind, float(low), scale, indicator, unit)


SAFE_MAGNITUDE = 2.0**1020  # values up to this apart by less than 2**1021: no difference overflows


def safe_unit(finite: np.ndarray) -> float:
    """1, or 1/4 when some of ``finite`` exceed ``SAFE_MAGNITUDE``: what makes differences finite.

    Two doubles near +-1.8e308 are up to 3.6e308 apart, past the largest double: their difference
    (a percentile's interpolation, ``q99 - q01``, ``x - q01``) is infinite and the scaled value NaN.
    A quarter of a double is exact but for subnormals (whose place in a range near 1e308 is 0 at
    any rate), and no difference of quarters overflows. Columns within ``SAFE_MAGNITUDE`` (all data
    in practice) keep 1, so their numbers do not change.
    """
    return 0.25 if len(finite) and float(np.max(np.abs(finite))) > SAFE_MAGNITUDE else 1.0


def _fit_categorical(column: str, values: pd.Series, max_levels: int) -> CategoricalEncoding:
    labels = category_labels(values)
    levels, pooled = kept_levels(labels, max_levels)
    return CategoricalEncoding(column, levels, bool(labels.isna().any()), pooled)


def kept_levels(labels: pd.Series, max_levels: int) -> tuple[tuple[str, ...], bool]:
    """The training levels a capped encoding keeps (sorted), and whether others were pooled.

    Every level when there are at most ``max_levels``, else the ``max_levels`` most frequent ones
    (ties in string order, as ``binning.levels_by_frequency`` orders them).
    """
    levels = [str(v) for v in labels.dropna().unique()]
    if len(levels) <= max_levels:
        return tuple(sorted(levels)), False
    return tuple(sorted(levels_by_frequency(labels)[:max_levels])), True


def column_numbers(values: pd.Series, kind: ColumnKind, column: str) -> np.ndarray:
    """Float values (datetimes as UTC seconds), NaN for missing, from canonical or raw dtypes."""
    if not (pd.api.types.is_float_dtype(values.dtype) and kind is not ColumnKind.DATETIME):
        values = to_canonical(values, kind, f"Column {column!r}", show_examples=False)
    return as_numbers(values)


def category_labels(values: pd.Series) -> pd.Series:
    """Category labels as strings (canonical frames already hold them), missing as NA."""
    if isinstance(values.dtype, pd.StringDtype):
        return values
    return to_category_strings(values)


def check_columns(
    frame: pd.DataFrame, columns: Iterable[str], role: str, space: str = "distance space"
) -> None:
    """Refuse a frame that lacks a column the space was fitted on, naming the columns."""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise SchemaError(
            f"The {role} frame lacks column(s) {missing} of the {space} (its columns: "
            f"{list(frame.columns)}); every role must hold the same columns."
        )


@dataclass(frozen=True)
class EmbeddedRows:
    """One table's (or entity view's) rows in the distance space, per role; ``test`` may be None."""

    train: np.ndarray
    synth: np.ndarray
    test: np.ndarray | None = None
