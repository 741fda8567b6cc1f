"""Alarms raised by the numbers of the sections, as findings, so that one list holds them all.

Sections compute; this module reads their results and turns the numbers a reader must not miss
into findings beside those of the data checks: synthetic rows copied more often than real holdout
rows repeat a training row, a holdout that overlaps the training data, and utility at or below
chance.
"""

from __future__ import annotations

from typing import Any

from reportgen.context import ENTITY_SUFFIX
from reportgen.headlines import chance_level
from reportgen.results import Finding, ReportResults

SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}
CHANCE_MARGIN = 0.02  # TSTR within this of chance counts as "at chance"
OVERLAP_SHARE = 0.1  # holdout rows equal to a training row beyond this share: the split leaked


def section_alarms(results: ReportResults) -> list[Finding]:
    """Every alarm the computed sections raise."""
    shared = results.tables_with_training_holdout()
    return _copy_alarms(results.computed("privacy"), shared) + _utility_alarms(results.computed("utility"))


def by_severity(findings: list[Finding]) -> list[Finding]:
    """Errors first, then warnings, then notes; the order within each kept."""
    return sorted(findings, key=lambda f: SEVERITY_ORDER[f.severity])


def _copy_alarms(privacy: Any, shared: set[str]) -> list[Finding]:
    """Copies above the holdout's share, and a holdout that overlaps the training rows.

    Tables that a split copied to both sides are left out of the overlap alarm: a finding of their
    own says so.
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
            reference is not None
            and reference > OVERLAP_SHARE
            and t.table.removesuffix(ENTITY_SUFFIX) not in shared
        ):
            alarms.append(
                Finding(
                    severity="warning",
                    code="holdout_overlaps_training",
                    table=t.table,
                    message=(
                        f"{reference:.1%} of the holdout rows equal a training row, so the holdout is "
                        "not data the generator never saw and every reference level is too kind. Keep "
                        "the holdout apart before fitting the generator (unless it is a lookup table "
                        "copied to both sides)."
                    ),
                )
            )
        if copies > 0 and copies > (reference or 0.0):
            than = "" if reference is None else f", against {reference:.1%} of holdout rows"
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


def _utility_alarms(utility: Any) -> list[Finding]:
    if utility is None:
        return []
    alarms = []
    for t in utility.tables:
        chance = chance_level(t.metric)
        if t.tstr is not None and t.tstr <= chance + CHANCE_MARGIN:
            alarms.append(
                Finding(
                    severity="warning",
                    code="tstr_at_chance",
                    table=t.table,
                    column=t.target,
                    message=(
                        f"Models trained on the synthetic data predict {t.target} no better than chance "
                        f"on real data (TSTR {t.tstr:.3f} {t.metric}, chance {chance:g}): the synthetic "
                        "data is not useful for this task."
                    ),
                )
            )
    return alarms
