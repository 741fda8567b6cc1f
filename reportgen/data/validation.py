"""Checks that depend on the role of the data: real data must be sound, synthetic data is judged.

Real (training and holdout) data with duplicate primary keys, orphan foreign keys or empty tables
cannot be evaluated and raises. The same defects in synthetic data are what the report is for: they
are counted and listed as findings. Holdout and synthetic data are conformed to the training data's
schema: a missing table or column raises, an extra one is dropped with a warning.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from reportgen.data.relational import SINGLE_TABLE_NAME, RelationalData, with_string_columns
from reportgen.errors import DataError, IncompatibleDataError, IntegrityError
from reportgen.results import Finding

TRAIN, TEST, SYNTH = "training", "holdout", "synthetic"


def check_real(data: RelationalData, role: str) -> None:
    """Raise if real data has an empty table or breaks its keys."""
    check_not_empty(data, role)
    for name, found in data.integrity().items():
        table = data.schema[name]
        pk = ", ".join(table.primary_key)
        if found.duplicate_primary_keys:
            raise IntegrityError(
                f"Table {name!r} of the {role} data: {found.duplicate_primary_keys} rows repeat a "
                f"primary key ({pk}) of an earlier row. A primary key must be unique: fix the "
                "data, or declare the column(s) as plain columns."
            )
        if found.missing_primary_keys:
            raise IntegrityError(
                f"Table {name!r} of the {role} data: {found.missing_primary_keys} rows have a "
                f"missing primary key ({pk}). Fill or drop them."
            )
        for column, n_orphans in found.orphans.items():
            if n_orphans:
                parent = table.foreign_keys[column].parent
                raise IntegrityError(
                    f"Table {name!r}, column {column!r} of the {role} data: {n_orphans} of "
                    f"{found.rows} rows refer to a {parent!r} row that does not exist. Drop those "
                    f"rows or keep only keys present in {parent!r}."
                )


def check_not_empty(data: RelationalData, role: str) -> None:
    """Raise if any table has no rows: there would be nothing to compare."""
    for name, frame in data.items():
        if len(frame) == 0:
            raise DataError(
                f"Table {name!r} of the {role} data has no rows; there is nothing to evaluate. "
                "Provide rows, or leave the table out of every input."
            )


def synthetic_key_findings(data: RelationalData) -> list[Finding]:
    """Duplicate/missing primary keys and orphan foreign keys of synthetic data, as findings."""
    findings = []
    for name, found in data.integrity().items():
        table = data.schema[name]
        key_problems = [
            (
                found.duplicate_primary_keys,
                "synthetic_duplicate_primary_keys",
                "repeat the primary key of an earlier row; the synthetic data breaks its key.",
            ),
            (found.missing_primary_keys, "synthetic_missing_primary_keys", "have no primary key."),
        ]
        for count, code, what in key_problems:
            if count:
                findings.append(
                    Finding(
                        severity="warning",
                        code=code,
                        table=name,
                        column=", ".join(table.primary_key),
                        message=f"{count} of {found.rows} synthetic rows {what}",
                    )
                )
        for column, n_orphans in found.orphans.items():
            if n_orphans:
                parent = table.foreign_keys[column].parent
                findings.append(
                    Finding(
                        severity="warning",
                        code="synthetic_orphans",
                        table=name,
                        column=column,
                        message=(
                            f"{n_orphans} of {found.rows} synthetic rows refer to a {parent!r} "
                            "row that does not exist (orphan foreign keys)."
                        ),
                    )
                )
    return findings


def conform(
    reference: RelationalData,
    other: RelationalData | Mapping[str, pd.DataFrame] | pd.DataFrame,
    role: str,
    *,
    optional: Mapping[str, str] | None = None,
) -> tuple[RelationalData, list[Finding]]:
    """``other`` under the reference's schema: same tables, same columns in the same order.

    Missing tables or columns raise ``IncompatibleDataError``; extra ones are dropped and listed
    as findings. Declared kinds that contradict the reference's kinds raise too. ``optional``
    names one column per table (the utility target) that may be missing: it is added with every
    value missing, and a finding says so, so that only the sections needing it are affected.
    """
    frames = _frames_of(reference, other, role)
    findings: list[Finding] = []
    missing_tables = [t for t in reference if t not in frames]
    if missing_tables:
        raise IncompatibleDataError(
            f"The {role} data lacks table(s) {missing_tables} that the training data has "
            f"(its tables: {sorted(frames)}). Provide them, or drop them from the training data."
        )
    for extra in [t for t in frames if t not in reference]:
        findings.append(
            Finding(
                severity="warning",
                code="extra_table",
                table=extra,
                message=(
                    f"The {role} data has a table {extra!r} that the training data lacks; it was ignored."
                ),
            )
        )
    conformed = {}
    for name in reference:
        columns = reference.schema[name].columns
        frame = frames[name]
        allowed = (optional or {}).get(name)
        if allowed is not None and allowed not in frame.columns and allowed in columns:
            frame = frame.assign(**{allowed: pd.Series(pd.NA, index=frame.index, dtype="object")})
            findings.append(
                Finding(
                    severity="warning",
                    code="missing_target",
                    table=name,
                    column=allowed,
                    message=(
                        f"The {role} data has no column {allowed!r}, the target of the utility models; "
                        "the models that need it are marked and every other section is computed as usual."
                    ),
                )
            )
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise IncompatibleDataError(
                f"Table {name!r} of the {role} data lacks column(s) {missing} that the training "
                "data has. Provide them, or drop them from the training data."
            )
        for extra in [str(c) for c in frame.columns if c not in columns]:
            findings.append(
                Finding(
                    severity="warning",
                    code="extra_column",
                    table=name,
                    column=extra,
                    message=f"The {role} data has a column the training data lacks; it was ignored.",
                )
            )
        conformed[name] = frame[columns]
    if isinstance(other, RelationalData):
        _check_declared_kinds(reference, other, role)
    return reference.with_tables(conformed), findings


def _frames_of(
    reference: RelationalData,
    other: RelationalData | Mapping[str, pd.DataFrame] | pd.DataFrame,
    role: str,
) -> dict[str, pd.DataFrame]:
    if isinstance(other, pd.DataFrame):
        if len(reference) != 1:
            raise IncompatibleDataError(
                f"The {role} data is one DataFrame, but the training data has {len(reference)} "
                "tables; pass a dict of table names to DataFrames."
            )
        return {next(iter(reference)): with_string_columns(other)}
    if isinstance(other, Mapping):
        frames = {str(k): v for k, v in other.items()}
        for name, frame in frames.items():
            if not isinstance(frame, pd.DataFrame):
                raise IncompatibleDataError(
                    f"Table {name!r} of the {role} data: expected a pandas DataFrame, got "
                    f"{type(frame).__name__}."
                )
            frames[name] = with_string_columns(frame)
        if len(reference) == 1 and len(frames) == 1 and SINGLE_TABLE_NAME in frames:
            return {next(iter(reference)): frames[SINGLE_TABLE_NAME]}
        return frames
    raise IncompatibleDataError(
        f"The {role} data must be a DataFrame, a dict of DataFrames or a RelationalData; got "
        f"{type(other).__name__}."
    )


def _check_declared_kinds(reference: RelationalData, other: RelationalData, role: str) -> None:
    for name, table in other.schema.items():
        if name not in reference.schema:
            continue
        ref = reference.schema[name]
        for column, kind in table.kinds.items():
            if column in table.inferred or column not in ref.kinds:
                continue
            if kind != ref.kinds[column]:
                raise IncompatibleDataError(
                    f"Table {name!r}, column {column!r}: the {role} data declares it {kind.value}, "
                    f"the training data {ref.kinds[column].value}. Use one schema for all inputs."
                )
