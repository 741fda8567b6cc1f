"""Type reconciliation: the values of every role made readable and comparable before any metric.

The same data often reaches reportgen in different clothes: a boolean as True/False in the
training data and as "yes"/"no" or 0/1 in the synthetic data, integer keys as strings in one table,
numbers as strings, timestamps mixing time zones, infinities, dates beyond what pandas' nanosecond
timestamps hold. Left alone, each gives a silently wrong number (a similarity of 0, every row an
orphan, a column quietly left out) or a crash deep inside a metric. This module fixes what has one
right reading and refuses, naming table and column, what has none. Every change is a ``Finding``
naming table and column. Inputs are never modified: changed columns go into shallow copies.

Two steps, called by ``reportgen.preparation.prepare_context``:

- ``read_training``: the training data's values read as what they are (numbers in strings,
  timestamps across time zones), with the kinds inferred from them inferred again; infinities and
  out-of-range dates made missing;
- ``reconcile_roles``: the same readings for holdout and synthetic data under the training data's
  kinds, then booleans in the training data's encoding and key columns in one type across tables
  and roles.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen.data.kinds import infer_kind, to_category_strings
from reportgen.data.relational import RelationalData, with_columns
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.data.schema import ColumnKind, Schema
from reportgen.errors import IncompatibleDataError
from reportgen.results import Finding, Severity

_FIRST_DATE = pd.Timestamp("1677-09-22")  # within pandas' nanosecond range (1677-09-21 .. 2262-04-11)
_LAST_DATE = pd.Timestamp("2262-04-10")
_PROBE = 50  # values tried before a whole column is parsed: most text columns fail at the first
_TRUE = frozenset({"true", "t", "yes", "y", "1"})
_FALSE = frozenset({"false", "f", "no", "n", "0"})
_PARTNER = {"true": "false", "t": "f", "yes": "no", "y": "n", "1": "0"}
_PARTNER.update({v: k for k, v in list(_PARTNER.items())})
_LEADING_ZERO = r"^\s*[+-]?0\d"

Change = tuple[pd.Series, Finding]
ColumnFix = Callable[[str, str, pd.Series], "Change | None"]  # (table, column, values) -> change


# -- public steps ------------------------------------------------------------------------------
def read_training(train: RelationalData) -> tuple[RelationalData, list[Finding]]:
    """The training data with its values read as what they are, and a finding per change.

    Numbers given as strings and timestamps mixing time zones are parsed only where the kind was
    inferred (a declared kind is the user's word); the changed columns' kinds are inferred again,
    so a numeric column is numeric rather than text. Infinities and out-of-range dates become missing.
    """

    def parse(name: str, column: str, values: pd.Series) -> Change | None:
        table = train.schema[name]
        if column not in table.inferred or column in table.key_columns:
            return None
        parsed = _parsed(values, TRAIN, name, column, leading_zeros_are_text=True)
        return parsed if parsed is not None else _mixed_types(values, name, column)

    parsed, findings, changed = _per_column(train, parse)
    tables = dict(train.schema)
    for name, columns in changed.items():
        kinds = {c: infer_kind(v, train.max_categories) for c, v in columns.items()}
        tables[name] = tables[name].with_inferred(kinds)
    schema = Schema(tables)
    schema.notes = train.schema.notes
    cleaned, more = _cleaned(parsed.with_tables(dict(parsed), schema), TRAIN)
    return cleaned, findings + more


def _per_column(data: RelationalData, fix: ColumnFix) -> tuple[RelationalData, list[Finding], dict]:
    """``fix`` applied to every column of every table: the data, the findings, the changed columns."""
    findings: list[Finding] = []
    changed: dict[str, dict[str, pd.Series]] = {}
    for name, frame in data.items():
        for column in data.schema[name].columns:
            change = fix(name, column, frame[column])
            if change is not None:
                changed.setdefault(name, {})[column] = change[0]
                findings.append(change[1])
    if not changed:
        return data, findings, changed
    frames = {name: with_columns(frame, changed.get(name, {})) for name, frame in data.items()}
    return data.with_tables(frames), findings, changed


@dataclass(frozen=True)
class Reconciled:
    """The three roles after ``reconcile_roles``, and a finding per change made."""

    train: RelationalData
    test: RelationalData | None
    synth: RelationalData
    findings: list[Finding]


def reconcile_roles(train: RelationalData, test: RelationalData | None, synth: RelationalData) -> Reconciled:
    """Holdout and synthetic data read under the training data's kinds and aligned with it.

    ``test`` and ``synth`` are already conformed to the training schema. The training data can
    change too: its key columns take one type with the other tables' and roles' keys.
    """
    findings: list[Finding] = []
    roles = {TRAIN: train}
    for role, data in ((TEST, test), (SYNTH, synth)):
        if data is None:
            continue
        data, read = _read_as_training(train, data, role)
        data, cleaned = _cleaned(data, role)
        data, booleans = _booleans_aligned(train, data, role)
        roles[role] = data
        findings += read + cleaned + booleans
    roles, keys = _keys_aligned(roles)
    return Reconciled(roles[TRAIN], roles.get(TEST), roles[SYNTH], findings + keys)


# -- reading values ----------------------------------------------------------------------------
def _parsed(
    values: pd.Series, role: str, table: str, column: str, *, leading_zeros_are_text: bool
) -> Change | None:
    """Numbers or timestamps that a text or object column holds, read as such (None: nothing to read)."""
    numbers = _numbers_from_text(values, leading_zeros_are_text)
    if numbers is not None:
        return numbers, _finding(
            "info",
            "numeric_strings_read",
            table,
            column,
            f"The {role} data gives this column as text holding numbers; it was read as numbers.",
        )
    stamps = _mixed_time_zones(values)
    if stamps is not None:
        return stamps, _finding(
            "info",
            "mixed_time_zones",
            table,
            column,
            f"The {role} data mixes timestamps of different time zones (or with and without one) "
            "in this column; all were converted to UTC, those without a time zone taken as UTC.",
        )
    return None


def _mixed_types(values: pd.Series, table: str, column: str) -> Change | None:
    """A training column of numbers and text together (1, "a"): said, as its values are read as labels."""
    inferred = pd.api.types.infer_dtype(values, skipna=True) if values.dtype == object else ""
    mixed = inferred in ("mixed", "mixed-integer")
    if not mixed:
        return None
    return values, _finding(
        "info",
        "mixed_types",
        table,
        column,
        "The training data mixes values of different types in this column (such as numbers and "
        "text); each value is compared by its written form, so 1 and '1' are the same value.",
    )


def _is_text(values: pd.Series) -> bool:
    return pd.api.types.is_string_dtype(values.dtype) and not isinstance(values.dtype, pd.CategoricalDtype)


def _numbers_from_text(values: pd.Series, leading_zeros_are_text: bool) -> pd.Series | None:
    """The column as numbers when every present value is a number written as text."""
    if not _is_text(values):
        return None
    present = values.dropna()
    if present.empty or pd.to_numeric(present.iloc[:_PROBE], errors="coerce").isna().any():
        return None
    if pd.api.types.infer_dtype(present.iloc[:_PROBE], skipna=True) not in ("string", "mixed-integer"):
        return None
    numbers = pd.to_numeric(values, errors="coerce")
    if numbers[values.notna()].isna().any():
        return None
    if leading_zeros_are_text and present.astype(str).str.match(_LEADING_ZERO).any():
        return None  # codes such as "007" or postcodes: digits, but not quantities
    return numbers


def _mixed_time_zones(values: pd.Series) -> pd.Series | None:
    """An object column of timestamps that pandas could not hold in one dtype, as UTC (naive)."""
    if values.dtype != object or pd.api.types.infer_dtype(values, skipna=True) != "datetime":
        return None
    return pd.to_datetime(values, utc=True).dt.tz_convert(None)


def _read_as_training(
    train: RelationalData, data: RelationalData, role: str
) -> tuple[RelationalData, list[Finding]]:
    """Text holding numbers where the training data has numbers, and timestamps across time zones."""

    def parse(name: str, column: str, values: pd.Series) -> Change | None:
        table, reference = data.schema[name], train[name][column]
        if column in table.key_columns:
            return None
        wants_numbers = pd.api.types.is_numeric_dtype(reference.dtype) and not (
            pd.api.types.is_bool_dtype(reference.dtype)
        )
        if not (wants_numbers or table.kinds[column] is ColumnKind.DATETIME):
            return None
        parsed = _parsed(values, role, name, column, leading_zeros_are_text=False)
        return parsed if parsed is not None else _time_zone_assumed(reference, values, role, name, column)

    parsed, findings, _ = _per_column(data, parse)
    return parsed, findings


def _time_zone_assumed(
    real: pd.Series, values: pd.Series, role: str, table: str, column: str
) -> Change | None:
    """Timestamps with a time zone on one side and without on the other: said, as naive means UTC."""
    is_stamp = pd.api.types.is_datetime64_any_dtype
    if not (is_stamp(real.dtype) and is_stamp(values.dtype)):
        return None
    aware = getattr(real.dt, "tz", None) is not None, getattr(values.dt, "tz", None) is not None
    if aware[0] == aware[1]:
        return None
    which = ("training", role) if aware[0] else (role, "training")
    return values, _finding(
        "info",
        "time_zone_assumed",
        table,
        column,
        f"The {which[0]} data gives these timestamps with a time zone, the {which[1]} data without "
        "one; those without are taken as UTC.",
    )


# -- values no metric can use ------------------------------------------------------------------
def _cleaned(data: RelationalData, role: str) -> tuple[RelationalData, list[Finding]]:
    """Infinite numbers and dates outside pandas' range made missing, with a finding per column."""

    def clean(name: str, column: str, values: pd.Series) -> Change | None:
        is_date = data.schema[name].kinds[column] is ColumnKind.DATETIME
        return (_out_of_range if is_date else _non_finite)(values, role, name, column)

    cleaned, findings, _ = _per_column(data, clean)
    return cleaned, findings


def _non_finite(values: pd.Series, role: str, table: str, column: str) -> Change | None:
    """+inf and -inf as missing: no distribution, distance or figure has a place for them."""
    if not pd.api.types.is_float_dtype(values.dtype):
        return None
    infinite = np.isinf(values.to_numpy(dtype="float64", na_value=np.nan))
    return _as_missing(values, infinite, "non_finite_values", table, column, f"{role} values are infinite")


def _out_of_range(values: pd.Series, role: str, table: str, column: str) -> Change | None:
    """Dates pandas' nanosecond timestamps cannot hold (before 1677, after 2262) as missing.

    Text that does not read as ISO 8601 dates is left for the conversion to refuse, with its message.
    """
    stamps = values
    if not pd.api.types.is_datetime64_any_dtype(values.dtype):
        if values.dtype != object and not _is_text(values):
            return None
        stamps = pd.to_datetime(values, errors="coerce", format="ISO8601", utc=True)
        if stamps[values.notna()].isna().any():
            return None
    naive = stamps.dt.tz_convert(None) if getattr(stamps.dt, "tz", None) is not None else stamps
    # bool with missing as False: an arrow-backed column compares to <NA> where a NaT compares False
    outside = ((naive < _FIRST_DATE) | (naive > _LAST_DATE)).to_numpy(dtype=bool, na_value=False)
    what = (
        f"{role} dates fall before 1677-09-22 or after 2262-04-10, outside the range of the "
        "timestamps the report computes with (a date such as 9999-12-31 that stands for 'never' "
        "now reads as unknown)"
    )
    return _as_missing(stamps, outside, "dates_out_of_range", table, column, what)


def _as_missing(
    values: pd.Series, bad: np.ndarray, code: str, table: str, column: str, what: str
) -> Change | None:
    """``values`` with the ``bad`` ones missing, and a warning that counts them (None: none bad)."""
    n = int(bad.sum())
    if n == 0:
        return None
    message = f"{n:,} of {len(values):,} {what}; they are treated as missing everywhere in this report."
    return values.mask(bad), _finding("warning", code, table, column, message)


# -- booleans ----------------------------------------------------------------------------------
def _booleans_aligned(
    train: RelationalData, data: RelationalData, role: str
) -> tuple[RelationalData, list[Finding]]:
    """Boolean columns written as True/False, 1/0, yes/no... in the training data's encoding."""

    def align(name: str, column: str, values: pd.Series) -> Change | None:
        table = data.schema[name]
        kind = table.kinds[column]
        if column in table.key_columns or kind not in (ColumnKind.BOOLEAN, ColumnKind.CATEGORICAL):
            return None
        return _boolean_change(train[name][column], values, kind, role, name, column)

    aligned, findings, _ = _per_column(data, align)
    return aligned, findings


def _boolean_change(
    real: pd.Series, values: pd.Series, kind: ColumnKind, role: str, table: str, column: str
) -> Change | None:
    """``values`` in the encoding of ``real`` when both are booleans written differently."""
    spelling = _spelling(real)
    if spelling is None:
        return None
    distinct = _distinct(values)
    if distinct is None or set(_labels(distinct)) <= set(_labels(_distinct(real) or [])):
        return None
    truths = _truths(distinct)
    if truths is None:
        if kind is ColumnKind.BOOLEAN:
            _refuse_boolean(values, distinct, role, table, column)
        return None
    mapping = {value: spelling(truth) for value, truth in truths.items()}
    if all(_labels([v]) == _labels([m]) for v, m in mapping.items()):
        return None  # already written as the training data writes it (a value it merely lacks)
    aligned = values.map(mapping)
    if pd.api.types.is_bool_dtype(real.dtype):
        aligned = aligned.astype("boolean")
    elif pd.api.types.is_numeric_dtype(real.dtype):
        aligned = aligned.astype("float64")
    shown = "/".join(sorted(map(str, _labels(distinct)))) if role == SYNTH else "another encoding"
    return aligned, _finding(
        "info",
        "boolean_encoding_aligned",
        table,
        column,
        f"The {role} data writes this yes/no column as {shown}, the training data as "
        f"{'/'.join(sorted(map(str, _labels(_distinct(real) or []))))}; the {role} values were "
        "mapped to the training data's encoding, so equal answers compare as equal.",
    )


def _spelling(real: pd.Series) -> Callable[[bool], object] | None:
    """How the training data writes a truth value (None: it is not a yes/no column)."""
    if pd.api.types.is_bool_dtype(real.dtype):
        return bool
    distinct = _distinct(real)
    truths = None if distinct is None else _truths(distinct)
    if not truths:
        return None
    written = {truth: value for value, truth in truths.items()}

    def spell(truth: bool) -> object:
        if truth in written:
            return written[truth]
        other = written[not truth]
        return _partner(other) if isinstance(other, str) else float(truth)

    return spell


def _partner(word: str) -> str:
    """The opposite of a yes/no word, in its case: "Yes" -> "No", "T" -> "F"."""
    opposite = _PARTNER[word.strip().lower()]
    return opposite.upper() if word.isupper() else opposite.title() if word.istitle() else opposite


def _distinct(values: pd.Series) -> list[object] | None:
    """The distinct present values when there are few enough for a yes/no column (None: more)."""
    head = values.iloc[:1000].dropna().unique()
    if len(head) > 4:
        return None
    distinct = list(values.dropna().unique())
    return distinct if len(distinct) <= 4 else None


def _truths(distinct: list[object]) -> dict[object, bool] | None:
    """Each value's truth when every value is a yes/no word or 1/0 (None: any is not)."""
    truths = {}
    for value, label in zip(distinct, _labels(distinct), strict=True):
        word = str(label).strip().lower()
        if word not in _TRUE | _FALSE:
            return None
        truths[value] = word in _TRUE
    return truths


def _labels(distinct: list[object]) -> list[object]:
    """The category labels the comparison sees for these values."""
    return list(to_category_strings(pd.Series(distinct, dtype=object)))


def _refuse_boolean(values: pd.Series, distinct: list[object], role: str, table: str, column: str) -> None:
    example = f" such as {next(v for v in distinct if _truths([v]) is None)!r}" if role == SYNTH else ""
    raise IncompatibleDataError(
        f"Table {table!r}, column {column!r}: the training data holds boolean values, but the "
        f"{role} data holds values{example} that are not True/False, 1/0, yes/no, y/n or t/f, so "
        "the two cannot be compared. Encode the column as booleans in every input, or declare it "
        "'categorical' in the schema."
    )


# -- keys --------------------------------------------------------------------------------------
def _keys_aligned(
    roles: dict[str, RelationalData],
) -> tuple[dict[str, RelationalData], list[Finding]]:
    """Key columns holding numbers in one place and the same numbers as text in another, as numbers.

    A primary key and every foreign key column that refers to it form one group, across tables
    and roles; where a group holds both numbers and text, the text is read as numbers, so keys
    that are equal match. Text that is not numbers cannot match numbers: refused.
    """
    schema = roles[TRAIN].schema
    changes: dict[str, dict[str, dict[str, pd.Series]]] = {role: {} for role in roles}
    findings = []
    for group in _key_groups(schema):
        members = [(r, t, c) for r in roles for t, c in group]
        numeric = [m for m in members if _key_class(roles[m[0]][m[1]][m[2]]) == "number"]
        if not numeric:
            continue
        for role, table, column in members:
            values = roles[role][table][column]
            if _key_class(values) != "text":
                continue
            numbers = _key_numbers(values, role, table, column, numeric[0])
            changes[role].setdefault(table, {})[column] = numbers
            findings.append(_key_finding(role, table, column, numeric[0]))
    aligned = {
        role: data.with_tables({n: with_columns(f, changes[role].get(n, {})) for n, f in data.items()})
        if changes[role]
        else data
        for role, data in roles.items()
    }
    return aligned, findings


def _key_groups(schema: Schema) -> list[list[tuple[str, str]]]:
    """Key columns that must hold one type: each primary key column with the columns that refer to it."""
    parent_of: dict[tuple[str, str], tuple[str, str]] = {}

    def root(node: tuple[str, str]) -> tuple[str, str]:
        while node in parent_of:
            node = parent_of[node]
        return node

    nodes = [(name, c) for name, table in schema.items() for c in table.key_columns]
    for rel in schema.relations:
        for child, parent in zip(rel.columns, rel.parent_columns, strict=True):
            a, b = root((rel.child, child)), root((rel.parent, parent))
            if a != b:
                parent_of[a] = b
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for node in nodes:
        groups.setdefault(root(node), []).append(node)
    return list(groups.values())


def _key_class(values: pd.Series) -> str:
    """'number', 'text' (strings, or strings mixed with integers) or 'other'."""
    if pd.api.types.is_bool_dtype(values.dtype):
        return "other"
    if pd.api.types.is_numeric_dtype(values.dtype):
        return "number"
    if values.dtype != object and not _is_text(values):
        return "other"
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred in ("integer", "floating", "mixed-integer-float", "decimal"):
        return "number"
    return "text" if inferred in ("string", "mixed-integer") else "other"


def _key_numbers(
    values: pd.Series, role: str, table: str, column: str, numeric: tuple[str, str, str]
) -> pd.Series:
    numbers = pd.to_numeric(values, errors="coerce")
    bad = values.notna() & numbers.isna()
    if bad.any():
        example = f" such as {values[bad].iloc[0]!r}" if role == SYNTH else ""
        raise IncompatibleDataError(
            f"Table {table!r}, column {column!r} of the {role} data: its keys are text{example}, "
            f"while table {numeric[1]!r}, column {numeric[2]!r} of the {numeric[0]} data holds the "
            "same keys as numbers, so they can never match. Give the key the same type in every "
            "table and input."
        )
    return numbers


def _key_finding(role: str, table: str, column: str, numeric: tuple[str, str, str]) -> Finding:
    return _finding(
        "info",
        "key_types_aligned",
        table,
        column,
        f"The {role} data gives this key as text, while table {numeric[1]!r}, column "
        f"{numeric[2]!r} of the {numeric[0]} data gives it as numbers; the text was read as "
        "numbers so that equal keys match.",
    )


def _finding(severity: Severity, code: str, table: str, column: str, message: str) -> Finding:
    return Finding(severity=severity, code=code, table=table, column=column, message=message)
