"""Inference of column kinds from data (METRICS.md section 1) and conversion to canonical dtypes.

Every role (training, holdout, synthetic) is converted with the kinds of the training data, so the
three sides of a comparison always hold the same dtypes:

- numeric / integer: float64, missing as NaN;
- datetime: ``datetime64[ns, UTC]`` (tz-naive values are taken as UTC), missing as NaT;
- categorical / boolean: strings, missing as ``pd.NA`` (integral numbers print without ".0", so a
  category 1 read as int on one side and as float on the other is the same category);
- id / text: left as they are.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import numpy as np
import pandas as pd

from reportgen.data.schema import ColumnKind
from reportgen.errors import IncompatibleDataError

DEFAULT_MAX_CATEGORIES = 20
TEXT_DISTINCT_RATIO = 0.9
TEXT_MIN_DISTINCT = 50

_ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$")


def infer_kind(values: pd.Series, max_categories: int = DEFAULT_MAX_CATEGORIES) -> ColumnKind:
    """The kind METRICS.md section 1 assigns to a column with these values."""
    dtype = values.dtype
    present = values.dropna()
    if pd.api.types.is_bool_dtype(dtype):
        return ColumnKind.BOOLEAN
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return ColumnKind.DATETIME
    if isinstance(dtype, pd.CategoricalDtype):
        return ColumnKind.CATEGORICAL
    if pd.api.types.is_numeric_dtype(dtype):
        if present.nunique() <= max_categories:
            return ColumnKind.CATEGORICAL
        as_float = present.to_numpy(dtype=float)
        integral = pd.api.types.is_integer_dtype(dtype) or bool(
            np.all(np.mod(as_float[np.isfinite(as_float)], 1) == 0)
        )
        return ColumnKind.INTEGER if integral else ColumnKind.NUMERIC
    if present.empty:
        return ColumnKind.CATEGORICAL
    if _looks_like_datetime(present):
        return ColumnKind.DATETIME
    return ColumnKind.TEXT if near_unique(present) else ColumnKind.CATEGORICAL


def near_unique(values: pd.Series) -> bool:
    """Whether a column's values identify rows rather than group them (METRICS.md section 1).

    More than ``TEXT_MIN_DISTINCT`` distinct values, and more than ``TEXT_DISTINCT_RATIO`` of the
    present values distinct: the rule that makes a string column ``text``, also applied to columns
    declared categorical (a name or postcode column), which are then treated as identifiers.
    """
    present = values.dropna()
    distinct = present.nunique()
    return distinct > TEXT_MIN_DISTINCT and distinct / len(present) > TEXT_DISTINCT_RATIO


def _looks_like_datetime(present: pd.Series) -> bool:
    if not all(isinstance(v, str) for v in present.iloc[:1000]):
        return False
    strings = present.astype(str)
    return bool(strings.str.match(_ISO_DATETIME).all())


def to_canonical(values: pd.Series, kind: ColumnKind, where: str, *, show_examples: bool) -> pd.Series:
    """``values`` converted to the canonical dtype of ``kind`` (a new Series; input untouched).

    ``where`` names the table and column for error messages; ``show_examples`` allows quoting
    offending values (only ever true for synthetic data, so that errors never print real records).
    """
    if kind in (ColumnKind.NUMERIC, ColumnKind.INTEGER):
        return _to_float(values, where, show_examples)
    if kind is ColumnKind.DATETIME:
        return _to_datetime(values, where, show_examples)
    if kind in (ColumnKind.CATEGORICAL, ColumnKind.BOOLEAN):
        return to_category_strings(values)
    return values.copy()


def canonical_array(values: pd.Series, kind: ColumnKind, where: str, *, show_examples: bool) -> np.ndarray:
    """``values`` as a plain array that the same data gives alike, whatever its source or dtype.

    Numbers as little-endian float64 (one NaN, -0.0 as 0.0), datetimes as little-endian int64 UTC
    nanoseconds (missing: the smallest int64), every other kind as its category strings (missing:
    None). The input fingerprint serialises these arrays (``reportgen.provenance``) and the
    canonical row order hashes them (``RelationalData.in_canonical_order``). ``where`` and
    ``show_examples`` are ``to_canonical``'s, for the error a value that does not convert raises.
    """
    if kind in (ColumnKind.NUMERIC, ColumnKind.INTEGER):
        numbers = to_canonical(values, kind, where, show_examples=show_examples).to_numpy(
            "<f8", na_value=np.nan
        )
        return np.where(np.isnan(numbers), np.nan, numbers + 0.0).astype("<f8")
    if kind is ColumnKind.DATETIME:
        stamps = to_canonical(values, kind, where, show_examples=show_examples)
        nanos = stamps.array.asi8
        return np.where(stamps.isna().to_numpy(), np.iinfo(np.int64).min, nanos).astype("<i8")
    return _category_labels(values)


def to_category_strings(values: pd.Series) -> pd.Series:
    """Category labels as strings, with integral numbers written without a decimal part."""
    return pd.Series(_category_labels(values), index=values.index, name=values.name).astype("string")


def _category_labels(values: pd.Series) -> np.ndarray:
    """``to_category_strings``'s labels as an object array of ``str``, missing as None.

    The canonical form that input fingerprints and the canonical row order read, made without
    the round trip through pandas' string dtype: on 200,000 rows a side that conversion and back
    was a third of preparing the data (cProfile).
    """
    if pd.api.types.is_bool_dtype(values.dtype):
        return _labelled_by_distinct(values, lambda v: "true" if v else "false")
    if pd.api.types.is_numeric_dtype(values.dtype):
        return _labelled_by_distinct(values, _number_label)
    return _labelled_by_distinct(values, _label)


def _labelled_by_distinct(values: pd.Series, label: Callable[[object], object]) -> np.ndarray:
    """``label`` of every present value (missing ones None), called once per distinct value.

    A column holds few distinct categories, so this is what makes labelling 200,000 rows cheap.
    Values that compare equal share a label, which is only safe where equal values have equal
    labels: ``True == 1 == 1.0`` (labelled "true" and "1") or a ``Decimal`` equal to an int are
    therefore labelled one by one.
    """
    codes, distinct = pd.factorize(values, use_na_sentinel=True)
    if not _equal_means_same_label(distinct):
        return np.array([None if _is_missing(v) else _present(label(v)) for v in values], dtype=object)
    labels = np.array([_present(label(v)) for v in distinct] + [None], dtype=object)
    return labels[codes]  # code -1 (missing) takes the last, None


def _present(label: object) -> object:
    """A label, or None where labelling found the value missing (``_number_label``'s NA)."""
    return None if label is pd.NA else label


def _equal_means_same_label(distinct: pd.Index) -> bool:
    """Whether no two different values of these types compare equal yet get different labels."""
    types = {type(v) for v in distinct}
    bools = {t for t in types if issubclass(t, (bool, np.bool_))}
    plain = all(issubclass(t, (str, int, float, np.integer, np.floating, bool, np.bool_)) for t in types)
    return plain and (not bools or bools == types)


def _is_missing(value: object) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and np.isnan(value))


def _label(value: object) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, (int, float, np.integer, np.floating)):
        return str(_number_label(value))
    return str(value)


def _number_label(value: object) -> object:
    if pd.isna(value):
        return pd.NA
    number = float(value)  # type: ignore[arg-type]
    return str(int(number)) if number.is_integer() else repr(number)


def _to_float(values: pd.Series, where: str, show_examples: bool) -> pd.Series:
    if pd.api.types.is_bool_dtype(values.dtype) or pd.api.types.is_numeric_dtype(values.dtype):
        return values.astype("float64")
    converted = pd.to_numeric(values, errors="coerce")
    _check_conversion(values, converted, where, "numbers", show_examples)
    return converted.astype("float64")


def _to_datetime(values: pd.Series, where: str, show_examples: bool) -> pd.Series:
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        converted = values
    else:
        converted = pd.to_datetime(values, errors="coerce", format="ISO8601", utc=True)
        _check_conversion(values, converted, where, "dates (ISO 8601)", show_examples)
    if getattr(converted.dt, "tz", None) is None:
        converted = converted.dt.tz_localize("UTC")
    return converted.dt.tz_convert("UTC").astype("datetime64[ns, UTC]")


def _check_conversion(
    original: pd.Series, converted: pd.Series, where: str, what: str, show_examples: bool
) -> None:
    bad = original.notna() & converted.isna()
    n_bad = int(bad.sum())
    if n_bad == 0:
        return
    example = f" such as {original[bad].iloc[0]!r}" if show_examples else ""
    raise IncompatibleDataError(
        f"{where}: {n_bad} of {len(original)} values cannot be read as {what}{example}, but the "
        "training data makes this column "
        f"{'a datetime' if 'date' in what else 'numeric'}. Fix those values, or declare the "
        "column's kind in the schema."
    )
