"""Alarms raised by the numbers of the sections, as findings, so that one list holds them all.

Sections compute; once all have, each section's declared ``raise_alarms`` turns the numbers a
reader must not miss into findings beside those of the data checks (the privacy section: copies
above the holdout's share, a holdout that overlaps the training rows or that the generator saw;
detection: synthetic rows repeating training rows; utility: TSTR at chance). This module collects
them, adds a finding per reason a section could not measure some tables, and orders them all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from reportgen.catalogue import sections
from reportgen.context import ENTITY_SUFFIX, NO_COMPARED_COLUMNS
from reportgen.data.relational import SINGLE_TABLE_NAME
from reportgen.metrics.utility import NO_TARGET
from reportgen.render.formatting import listed
from reportgen.results import Finding, ReportResults, SectionResult

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def section_alarms(results: ReportResults) -> list[Finding]:
    """Every alarm the computed sections raise, each through its declaration, in page order.

    A section's ``raise_alarms`` sees the alarms the sections before it raised (utility reads the
    privacy section's copies: without a holdout, TSTR is scored on rows a copying generator saw).
    """
    raised: list[Finding] = []
    for section in sections():
        result = results.computed(section.name)
        if section.raise_alarms is not None and result is not None:
            raised += section.raise_alarms(result, results, raised)
    return raised


def by_severity(findings: list[Finding]) -> list[Finding]:
    """Errors first, then warnings, then notes; the order within each kept."""
    return sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity])


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
