"""Alarms raised by the numbers of the sections, as findings, so that one list holds them all.

Sections compute; this module reads their results and turns the numbers a reader must not miss
into findings beside those of the data checks: synthetic rows copied more often than real holdout
rows repeat a training row, a holdout that overlaps the training data, a generator that appears to
have seen the holdout, a detection test that finds synthetic rows repeating training rows (an AUROC
below chance, or more equal rows than real rows have), utility at or below chance, and the tables a
section could not measure (one finding per reason).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from reportgen.context import ENTITY_SUFFIX, NO_COMPARED_COLUMNS
from reportgen.data.relational import SINGLE_TABLE_NAME
from reportgen.metrics.utility import NO_TARGET, at_chance, chance_level, synthetic_self_score
from reportgen.render.formatting import listed
from reportgen.results import Finding, ReportResults, SectionResult

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def section_alarms(results: ReportResults) -> list[Finding]:
    """Every alarm the computed sections raise."""
    shared = results.tables_with_training_holdout()
    split = results.run.reference_split
    copies_between_parts = split.copies if split is not None else {}
    privacy = results.computed("privacy")
    copies = _copy_alarms(privacy, shared, copies_between_parts)
    flattered = _flattered_utility(copies, results.computed("utility")) if split is not None else []
    return (
        copies
        + flattered
        + _holdout_seen_alarms(privacy, shared)
        + _detection_alarms(results.computed("detection"))
        + _utility_alarms(results.computed("utility"))
    )


def by_severity(findings: list[Finding]) -> list[Finding]:
    """Errors first, then warnings, then notes; the order within each kept."""
    return sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity])


def _copy_alarms(privacy: Any, shared: set[str], copies_between_parts: Mapping[str, float]) -> list[Finding]:
    """Copies above the holdout's share, and a holdout that overlaps the training rows.

    Tables that a split copied to both sides are left out of the overlap alarm: a finding of their
    own says so. Without a holdout, copies are judged against ``copies_between_parts``: how often
    the training rows set aside for the references repeat the kept ones.
    """
    if privacy is None:
        return []
    alarms = []
    for t in privacy.tables:
        if t.table in privacy.copied_lookup_tables:
            alarms.append(
                Finding(
                    severity="info",
                    code="copied_lookup_table",
                    table=t.table,
                    message=(
                        "The synthetic data copies this lookup table whole (every row is a training row). "
                        "It is shown in the privacy section but left out of the exact-copies headline; "
                        "if it holds personal data, that is a leak."
                    ),
                )
            )
            continue
        copies, reference = t.distances.exact_copies, t.distances.exact_copies_holdout
        if (
            (overlap := t.holdout_overlap) is not None
            and overlap.leaked
            and t.table.removesuffix(ENTITY_SUFFIX) not in shared
        ):
            alarms.append(_overlap_finding(t.table, overlap))
        than = "" if reference is None else f", against {reference:.1%} of holdout rows"
        if reference is None and t.table in copies_between_parts:
            reference = copies_between_parts[t.table]
            than = f", against {reference:.1%} of the training rows set aside for the references (no holdout)"
        if copies > 0 and copies > (reference or 0.0):
            alarms.append(
                Finding(
                    severity="warning",
                    code="exact_copies_above_reference",
                    table=t.table,
                    message=(
                        f"{copies:.1%} of the synthetic rows are exact copies of a training row{than}: "
                        "the generator reproduces real records."
                    ),
                )
            )
    return alarms


def _overlap_finding(table: str, overlap: Any) -> Finding:
    """A holdout that repeats training rows beyond chance, with both shares (``HoldoutOverlap``)."""
    return Finding(
        severity="warning",
        code="holdout_overlaps_training",
        table=table,
        message=(
            f"{overlap.holdout_in_training:.1%} of the holdout rows equal one of {overlap.kept_rows:,} "
            f"training rows, against {overlap.set_aside_in_training:.1%} of {overlap.set_aside_rows:,} other "
            "training rows (what chance gives on these data), so the holdout is not data the generator "
            "never saw and every reference level is too kind. Keep the holdout apart before fitting the "
            "generator (unless it is a lookup table copied to both sides)."
        ),
    )


def _flattered_utility(copy_alarms: list[Finding], utility: Any) -> list[Finding]:
    """Utility alarms where a copying generator's TSTR is scored on rows it copied (no holdout).

    Without a holdout the models are scored on training rows set aside for the references, rows the
    generator saw: where it copies training rows (an ``exact_copies_above_reference`` alarm in a
    target's table), TSTR is flattered.
    """
    if utility is None:
        return []
    targets = {t.table for t in utility.tables}
    return [
        Finding(
            severity="warning",
            code="utility_flattered_by_copies",
            table=alarm.table,
            message=(
                "Without a holdout the models are scored on training rows the generator saw, and it "
                "copies training rows (see the privacy findings), so TSTR is flattered. Give a holdout "
                "to measure utility."
            ),
        )
        for alarm in copy_alarms
        if alarm.code == "exact_copies_above_reference" and alarm.table in targets
    ]


def _holdout_seen_alarms(privacy: Any, shared: set[str]) -> list[Finding]:
    """An error per table (or view) whose synthetic data repeats holdout rows clearly beyond chance.

    Tables whose holdout is their training data (a lookup table copied to both sides) are left out:
    a finding of their own says so.
    """
    if privacy is None:
        return []
    return [
        Finding(
            severity="error",
            code="generator_saw_holdout",
            table=t.table,
            message=_holdout_seen_message(check),
        )
        for t in privacy.tables
        if (check := t.holdout_check) is not None
        and check.seen
        and t.table.removesuffix(ENTITY_SUFFIX) not in shared
    ]


def _holdout_seen_message(check: Any) -> str:
    """What a holdout check that found the holdout seen means, in plain words, with its numbers."""
    return (
        f"The generator appears to have seen the holdout: {check.holdout_in_synthetic:.1%} of the holdout "
        "rows appear verbatim in the synthetic data, against "
        f"{check.holdout_in_real_sample:.1%} expected from an independent real sample of the same size "
        f"(training rows: {check.training_in_synthetic:.1%}). The membership attacks, the singling-out, "
        "linkability and inference risks and TSTR treat the holdout as rows the generator never saw, so "
        "they are unreliable and too kind here. Keep the holdout apart before fitting the generator."
    )


def _detection_alarms(detection: Any) -> list[Finding]:
    """Detection's copying alarms: an AUROC wholly below chance, or repeats above the reference.

    Both mean synthetic rows repeat training rows, never a pass. Below chance is a warning when far
    below (``far_below_chance``), a note when only the 95% interval lies below 0.5, as honest
    data's does now and then.
    """
    if detection is None:
        return []
    alarms = []
    for t in detection.tables:
        s = t.synthetic
        if s.below_chance:
            alarms.append(_below_chance_finding(t.table, s))
        if t.copies_suspected:
            alarms.append(
                Finding(
                    severity="warning",
                    code="detection_repeats_training",
                    table=t.table,
                    message=(
                        f"{s.repeats:.1%} of the synthetic rows in the detection sample equal a training "
                        f"row on every column, against {t.repeats_reference:.1%} of "
                        f"{_repeats_reference_rows(t)}: the generator repeats training rows."
                    ),
                )
            )
    return alarms


def _below_chance_finding(table: str, s: Any) -> Finding:
    interval = f"{s.auc:.3f} [{s.low:.3f}, {s.high:.3f}]"
    auc = f"the detection classifier's out-of-fold AUROC is {interval}, below chance"
    if s.far_below_chance:
        return Finding(
            severity="warning",
            code="detection_below_chance",
            table=table,
            message=(
                f"Synthetic rows repeat (or nearly repeat) training rows: {auc}, because a model that "
                "learned a training row takes its synthetic twin for real."
            ),
        )
    return Finding(
        severity="info",
        code="detection_below_chance",
        table=table,
        message=(
            f"Synthetic rows may repeat training rows: {auc}, as when a model that learned a training "
            "row takes its synthetic twin for real, though honest data falls this low now and then."
        ),
    )


def _repeats_reference_rows(table: Any) -> str:
    """Which real rows the synthetic repeats are compared with."""
    if table.holdout is not None:
        return "holdout rows"
    return "training rows (each against the others; no holdout was given)"


def _utility_alarms(utility: Any) -> list[Finding]:
    """TSTR at chance, or a synthetic target its own columns cannot predict (the real one they can)."""
    if utility is None:
        return []
    alarms = []
    for t in utility.tables:
        chance = f"chance {chance_level(t.metric):g}"
        if at_chance(t.tstr, t.metric):
            alarms.append(
                _utility_finding(
                    t,
                    "tstr_at_chance",
                    f"Models trained on the synthetic data predict {t.target} no better than chance on real "
                    f"data (TSTR {t.tstr:.3f} {t.metric}, {chance}): the synthetic data is not useful for "
                    "this task.",
                )
            )
        elif (
            t.tstr is not None
            and t.real_baseline is not None
            and not at_chance(t.real_baseline, t.metric)  # the real target is predictable
            and at_chance(own := synthetic_self_score(t), t.metric)
        ):
            alarms.append(
                _utility_finding(
                    t,
                    "synthetic_target_unlearnable",
                    f"Models trained on half of the synthetic data predict {t.target} no better than chance "
                    f"on its other half (mean {own:.3f} {t.metric}, {chance}): in the synthetic data the "
                    f"target does not depend on the other columns. TSTR's {t.tstr:.3f} comes from the "
                    "columns' frequencies, not from a relationship kept.",
                )
            )
    return alarms


def _utility_finding(table: Any, code: str, message: str) -> Finding:
    return Finding(severity="warning", code=code, table=table.table, column=table.target, message=message)


def not_measured_findings(computed: Mapping[str, SectionResult]) -> list[Finding]:
    """A finding per section and reason that a section could not measure some tables (or views).

    Tables skipped for the same reason share one finding, so one reason is read once. A warning,
    unless the reason is a fact of the schema (no column to compare) or every table is a lookup
    table that the synthetic data copies whole (the privacy section lists those).
    """
    privacy = computed.get("privacy")
    lookups = set(getattr(privacy, "copied_lookup_tables", None) or [])
    findings = []
    for name, result in computed.items():
        skipped = {t: r for t, r in (getattr(result, "skipped", None) or {}).items() if r != NO_TARGET}
        for tables, where, reason in _by_reason(skipped):
            harmless = reason.startswith(NO_COMPARED_COLUMNS) or all(
                t.removesuffix(ENTITY_SUFFIX) in lookups for t in tables
            )
            findings.append(
                Finding(
                    severity="info" if harmless else "warning",
                    code=f"{name}_not_measured",
                    table=tables[0] if len(tables) == 1 else None,
                    tables=tables if len(tables) > 1 else [],
                    message=f"The {name.replace('_', ' ')} section could not measure {where}: {reason}.",
                )
            )
    return findings


def _by_reason(skipped: Mapping[str, str]) -> list[tuple[list[str], str, str]]:
    """Skipped tables grouped by reason: (tables, what was not measured, reason), each reason once.

    Reasons read "what (this table's counts; what is needed)". Tables with equal reasons are named
    before it ("A and B: no column to compare (...)"); tables whose counts differ are named with
    their counts inside it ("2 tables: too few rows in A (5 training) and B (9 training); the test
    needs 50 a side").
    """
    groups: dict[tuple[str, str, str], dict[str, str]] = {}
    for table, reason in skipped.items():
        parts = _REASON.match(reason)
        head, inner, tail = parts.groups() if parts else (reason, "", "")
        counts, _, needed = inner.partition("; ")
        groups.setdefault((head, needed, tail), {})[table] = counts
    grouped = []
    for (head, needed, tail), tables in groups.items():
        names = list(tables)
        if len(set(tables.values())) == 1:  # one table, or the same reason word for word
            where = listed(names) if len(names) > 1 else _table_named(names[0])
            grouped.append((names, where, skipped[names[0]]))
            continue
        named = listed([f"{t} ({c})" for t, c in tables.items()])
        reason = f"{head} in {named}" + (f"; {needed}" if needed else "") + tail
        grouped.append((names, f"{len(names)} tables", reason))
    return grouped


_REASON = re.compile(r"^([^()]*?) \(([^()]*)\)([^()]*)$")  # what (counts; needed) and the rest


def _table_named(table: str) -> str:
    """The table as a sentence names it: table X, or "the table" for a single DataFrame."""
    return "the table" if table == SINGLE_TABLE_NAME else f"table {table}"
