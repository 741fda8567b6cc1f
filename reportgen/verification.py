"""``verify_statement``: whether a report's in-toto statement still matches its files and inputs.

An auditor holds a PDF (or HTML), its JSON and the statement written beside them (``NAME.intoto.json``,
``reportgen.intoto``), perhaps signed by the approver with their own tools. Verifying recomputes

- each subject's SHA-256 from the file of that name beside the statement (the report and its
  JSON): a single changed byte is a mismatch, a missing file is reported as missing;
- given the inputs, each input table's fingerprint, rows and columns, prepared exactly as the
  report prepared them (``reportgen.preparation``, with the recorded settings that decide how the
  data are read: the seed, the row caps, ``max_categories`` and the targets), and compares them
  with the fingerprints the statement records.

What was not checked is said, never passed over: without inputs, no fingerprint is checked. A
signature over the statement is the signer's tool's to check (``cosign verify-blob``, ``gpg
--verify``); reportgen holds no keys.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from reportgen.catalogue import report_settings
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.data.schema import Schema
from reportgen.errors import InvalidParameterError, LoadError
from reportgen.evaluation import input_fingerprints
from reportgen.fingerprint_model import TableFingerprint
from reportgen.intoto import PREDICATE_TYPE, sha256_hex, statement_problems
from reportgen.preparation import DataInput, prepared
from reportgen.settings import ReportSettings

ROLE_ORDER = (TRAIN, TEST, SYNTH)  # report()'s
CheckStatus = Literal["match", "mismatch", "missing", "not_checked"]
_LABELS = {"match": "match", "mismatch": "MISMATCH", "missing": "MISSING", "not_checked": "not checked"}
_NAMES = " (a table is named by its file, a single DataFrame's table is 'table')"
# The recorded settings that decide which rows and kinds are fingerprinted (the rest only change numbers).
_READING_SETTINGS = ("seed", "n_max_train", "n_max_test", "n_max_synth", "max_categories", "targets")


@dataclass(frozen=True)
class Check:
    """One thing the statement records, and what was found: a subject file, or an input table."""

    item: str = ""
    status: CheckStatus = "not_checked"
    recorded: str | None = None
    found: str | None = None
    note: str = ""


@dataclass(frozen=True)
class Verification:
    """Every check of a statement; ``passed`` when everything checked matches."""

    statement: Path
    checks: tuple[Check, ...]

    @property
    def passed(self) -> bool:
        """True when no check failed and at least one matched (what was not checked does not fail)."""
        statuses = {c.status for c in self.checks}
        return "match" in statuses and not statuses & {"mismatch", "missing"}

    @property
    def not_checked(self) -> list[Check]:
        return [c for c in self.checks if c.status == "not_checked"]

    def lines(self) -> list[str]:
        """The outcome in words, one line per check, then a summary: what ``reportgen verify`` prints."""
        width = max(len(c.item) for c in self.checks)
        out = [f"Statement {self.statement}"]
        for check in self.checks:
            detail = check.note or (f"sha256 {check.found}" if check.status == "match" else "")
            out.append(f"  {_LABELS[check.status]:<11}  {check.item:<{width}}  {detail}".rstrip())
        failed = [c for c in self.checks if c.status in ("mismatch", "missing")]
        if self.passed:
            verdict = "VERIFIED: everything checked matches the statement"
        elif failed:
            verdict = f"NOT VERIFIED: {len(failed)} of {len(self.checks)} checks do not match the statement"
        else:
            verdict = "NOT VERIFIED: nothing could be checked"
        unchecked = f" ({len(self.not_checked)} not checked, listed above)" if self.not_checked else ""
        return [*out, verdict + unchecked]


def verify_statement(
    path: str | Path,
    *,
    data_train: DataInput | None = None,
    data_test: DataInput | None = None,
    data_synth: DataInput | None = None,
    schema: Schema | str | Path | Mapping[str, Any] | None = None,
) -> Verification:
    """Check the statement at ``path`` against the files it names and, given them, the inputs.

    The subjects are looked for beside the statement, by name. The inputs are given as to
    ``report()`` (DataFrames, dicts of them, paths or sources) with the same ``schema``; give the
    roles the report was given (a holdout too, if it had one), or none to check the files only.
    They are keywords only, so that no role can be taken for another by its position.
    """
    path = Path(path)
    statement = read_statement(path)
    checks = [_subject_check(path.parent, s) for s in statement["subject"]]
    recorded = statement["predicate"].get("run", {})
    given = (data_train, data_test, data_synth)
    if all(d is None for d in given):
        checks += _unchecked_inputs(recorded.get("inputs", {}))
    else:
        checks += _input_checks(recorded, data_train, data_test, data_synth, schema)
    return Verification(path, tuple(checks))


def read_statement(path: Path) -> dict[str, Any]:
    """The statement at ``path``, refused with the reason when it is not reportgen's in-toto statement."""
    try:
        statement = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LoadError(
            f"No statement at {str(path)!r}: name the .intoto.json written beside the report."
        ) from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise LoadError(f"Cannot read the statement {str(path)!r} as JSON: {error}.") from None
    problems = statement_problems(statement)
    if problems:
        raise LoadError(f"{str(path)!r} is not an in-toto Statement v1: {'; '.join(problems)}.")
    if statement["predicateType"] != PREDICATE_TYPE:
        raise LoadError(
            f"{str(path)!r} is an in-toto statement of another kind ({statement['predicateType']!r}); "
            f"reportgen verifies its own ({PREDICATE_TYPE!r})."
        )
    return statement


def _subject_check(folder: Path, described: Mapping[str, Any]) -> Check:
    """A subject's recorded SHA-256 against the file of its name beside the statement."""
    name = str(described["name"])
    recorded = described["digest"].get("sha256")
    if recorded is None:
        others = ", ".join(described["digest"])
        return Check(name, "not_checked", note=f"no sha256 digest recorded (only {others})")
    file = folder / Path(name).name  # a name, never a path: the subjects lie beside the statement
    try:
        found = sha256_hex(file.read_bytes())
    except OSError:
        return Check(name, "missing", recorded, note=f"no file {str(file)!r} beside the statement")
    if found == recorded:
        return Check(name, "match", recorded, found)
    return Check(name, "mismatch", recorded, found, note=f"sha256 recorded {recorded}, found {found}")


def _unchecked_inputs(inputs: Mapping[str, Mapping[str, Any]]) -> list[Check]:
    """Every recorded input table, not checked: no inputs were given."""
    return [
        Check(f"input {role}/{table}", "not_checked", note="inputs not given")
        for role in ROLE_ORDER
        for table in sorted(inputs.get(role, {}))
    ]


def _input_checks(
    recorded: Mapping[str, Any],
    data_train: DataInput | None,
    data_test: DataInput | None,
    data_synth: DataInput | None,
    schema: Any,
) -> list[Check]:
    """The inputs' fingerprints recomputed as the report computed them, against the recorded ones."""
    if data_train is None or data_synth is None:
        raise InvalidParameterError(
            "To check the inputs, give the training and the synthetic data (and the holdout, if the "
            "report had one), as they were given to the report; or none, to check the files only."
        )
    if recorded.get("has_holdout") and data_test is None:
        raise InvalidParameterError(
            "The report was made with a holdout: give it too (data_test, --test), as it was given to "
            "the report, so that every input is read as the report read it."
        )
    settings = _reading_settings(recorded.get("settings", {}))
    with prepared(data_train, data_test, data_synth, settings, schema=schema) as context:
        found = input_fingerprints(context)
    expected = {
        role: {table: TableFingerprint.model_validate(f) for table, f in tables.items()}
        for role, tables in recorded.get("inputs", {}).items()
    }
    roles = sorted({*expected, *found}, key=_role_rank)
    return [
        _input_check(role, table, expected.get(role, {}).get(table), found.get(role, {}).get(table))
        for role in roles
        for table in sorted({*expected.get(role, {}), *found.get(role, {})})
    ]


def _role_rank(role: str) -> int:
    """A role's place in report()'s order (training, holdout, synthetic); an unknown one last."""
    return ROLE_ORDER.index(role) if role in ROLE_ORDER else len(ROLE_ORDER)


def _reading_settings(recorded: Mapping[str, Any]) -> ReportSettings:
    """The recorded settings that decide how the inputs are read; every other at its default."""
    return report_settings(ReportSettings(), **{k: recorded[k] for k in _READING_SETTINGS if k in recorded})


def _input_check(
    role: str, table: str, recorded: TableFingerprint | None, found: TableFingerprint | None
) -> Check:
    """One input table's recorded fingerprint against the one recomputed from the data given."""
    item = f"input {role}/{table}"
    if found is None:
        recorded_sha = recorded.sha256 if recorded else None
        return Check(item, "missing", recorded_sha, note=f"recorded, but not in the data given{_NAMES}")
    if recorded is None:
        note = f"in the data given, but not in the record{_NAMES}"
        return Check(item, "mismatch", None, found.sha256, note=note)
    if found == recorded:
        return Check(item, "match", recorded.sha256, found.sha256, note=_described(found))
    differences = [
        f"{field} recorded {getattr(recorded, field)}, found {getattr(found, field)}"
        for field in ("sha256", "rows", "columns", "of")
        if getattr(recorded, field) != getattr(found, field)
    ]
    hint = ""
    if recorded.of != found.of:
        hint = " (give the input as the report was given it: a path read in place, or data in memory)"
    return Check(item, "mismatch", recorded.sha256, found.sha256, note="; ".join(differences) + hint)


def _described(fingerprint: TableFingerprint) -> str:
    """A matching fingerprint in words: its digest, rows and columns."""
    return (
        f"sha256 {fingerprint.sha256} ({fingerprint.rows:,} rows, {fingerprint.columns} columns, "
        f"of {fingerprint.of})"
    )
