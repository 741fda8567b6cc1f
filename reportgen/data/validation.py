"""Checks of the inputs before any metric: what can be evaluated, and what the reader must know.

Only what makes evaluation impossible raises: a training table without rows, a holdout that lacks
a table or column the training data has. Key problems (duplicate or missing primary keys, orphan
foreign keys) are counted per table and foreign key in every role and become findings: in real
data they are the data as it is, and the evaluation goes on; in synthetic data they are what the
report is for. A synthetic table that is missing is a failed finding, and the evaluation goes on
without it. Holdout and synthetic data are conformed to the training data's schema: an extra table
or column is dropped with a finding.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import pandas as pd

from reportgen.data.relational import (
    KeyIntegrity,
    RelationalData,
    check_frame,
    with_string_columns,
)
from reportgen.data.roles import SYNTH
from reportgen.errors import DataError, IncompatibleDataError
from reportgen.results import Finding


def check_not_empty(data: RelationalData, role: str) -> None:
    """Raise if any table has no rows: there would be nothing to compare."""
    for name, frame in data.items():
        if len(frame) == 0:
            raise DataError(
                f"Table {name!r} of the {role} data has no rows; there is nothing to evaluate. "
                "Provide rows, or leave the table out of every input."
            )


def key_findings(data: RelationalData, role: str) -> list[Finding]:
    """Duplicate and missing primary keys and orphan foreign keys of one role's data, as findings."""
    findings = []
    for name, found in data.integrity().items():
        findings += _table_key_findings(data, name, found, role)
    return findings


def _table_key_findings(data: RelationalData, name: str, found: KeyIntegrity, role: str) -> list[Finding]:
    pk = ", ".join(data.schema[name].primary_key)
    real = role != SYNTH
    then = (
        " They are reported as they are and the evaluation goes on; the synthetic data's count is "
        "judged against this one."
        if real
        else ""
    )
    prefix = "synthetic" if not real else "real"
    findings = []
    key_problems = [
        (found.duplicate_primary_keys, "duplicate_primary_keys", "repeat the primary key of an earlier row"),
        (found.missing_primary_keys, "missing_primary_keys", "have no primary key"),
    ]
    for count, code, what in key_problems:
        if count:
            findings.append(
                Finding(
                    severity="warning",
                    code=f"{prefix}_{code}",
                    table=name,
                    column=pk,
                    message=f"{count:,} of {found.rows:,} {role} rows {what} ({pk}).{then}",
                )
            )
    for rel, n_orphans in found.orphans.items():
        if n_orphans:
            findings.append(
                Finding(
                    severity="warning",
                    code=f"{prefix}_orphans",
                    table=name,
                    column=", ".join(rel.columns),
                    message=(
                        f"{n_orphans:,} of {found.rows:,} {role} rows refer to a {rel.parent!r} row "
                        f"that does not exist (orphan foreign keys of {rel}).{then}"
                    ),
                )
            )
    return findings


def missing_synthetic_tables(
    reference: RelationalData, synth: RelationalData | Mapping[str, pd.DataFrame] | pd.DataFrame
) -> list[str]:
    """Tables of the training data that the synthetic data does not have, or has without rows."""
    frames = _frames_of(reference, synth, SYNTH)
    return [t for t in reference if t not in frames or len(frames[t]) == 0]


def missing_table_findings(missing: list[str]) -> list[Finding]:
    """A failed finding per training table that the synthetic data lacks."""
    return [
        Finding(
            severity="error",
            code="synthetic_table_missing",
            table=name,
            message=(
                "The synthetic data has no rows of this table, so nothing about it was compared and "
                "the release fails; its training rows and keys are in the data overview. Generate it "
                "too, or leave it out of the training data."
            ),
        )
        for name in missing
    ]


def conform(
    reference: RelationalData,
    other: RelationalData | Mapping[str, pd.DataFrame] | pd.DataFrame,
    role: str,
    *,
    optional: Mapping[str, str] | None = None,
    ignored: Collection[str] = (),
) -> tuple[RelationalData, list[Finding]]:
    """``other`` under the reference's schema: same tables, same columns in the same order.

    Missing tables or columns raise ``IncompatibleDataError``; extra ones are dropped and listed
    as findings (except the ``ignored`` ones: tables left out on purpose). Declared kinds that contradict
    the reference's kinds raise too. ``optional`` names one column per table (the utility target) that may
    be missing: it is added with every value missing, and a finding says so, so that only the sections
    needing it are affected.
    """
    frames = _frames_of(reference, other, role)
    findings: list[Finding] = []
    missing_tables = [t for t in reference if t not in frames]
    if missing_tables:
        raise IncompatibleDataError(
            f"The {role} data lacks table(s) {missing_tables} that the training data has "
            f"(its tables: {sorted(frames)}). Provide them, or drop them from the training data."
        )
    for extra in [t for t in frames if t not in reference and t not in ignored]:
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
        frame = with_string_columns(other)
        check_frame(frame, f"Table {next(iter(reference))!r} of the {role} data")
        return {next(iter(reference)): frame}
    if isinstance(other, Mapping):
        frames = {str(k): v for k, v in other.items()}
        for name, frame in frames.items():
            if not isinstance(frame, pd.DataFrame):
                raise IncompatibleDataError(
                    f"Table {name!r} of the {role} data: expected a pandas DataFrame, got "
                    f"{type(frame).__name__}."
                )
            frames[name] = with_string_columns(frame)
            check_frame(frames[name], f"Table {name!r} of the {role} data")
        if len(reference) == 1 and len(frames) == 1:  # one table each: names (file names) may differ
            return {next(iter(reference)): next(iter(frames.values()))}
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
