"""One verdict per concern (privacy, fidelity, utility) for page 1, in plain words.

Each concern gets **fail** when one of its release bars failed or could not be evaluated (gates
fail closed), **concern** when no bar failed but an alarm was raised (a finding of the concern,
or a headline clearly worse than its reference), **pass** when its numbers are at their bars and
near their references, and **not evaluated** when nothing of it could be measured. The sentence
says why, naming the number or the finding that decided.

"Clearly worse than the reference": a score more than ``SCORE_MARGIN`` points below its reference
(or, for the measures where closer to the reference is better, that far from it on either side);
a share (exact copies, rows at risk) above both twice its reference and its reference plus
``SHARE_MARGIN``; an attack's number (AUC, epsilon bound) beyond its chance level (or 0) by more
than its own tolerance; an attack's risk (singling out, linkability, inference) whose 95% interval
lies above ``SHARE_MARGIN``.

False alarms: a generator that leaks nothing must rarely make privacy a concern through the attacks
(``ATTACK_HEADLINES``), however many tables, attacks and secrets the report holds. The risk
intervals are corrected for all of them together (each at ``1 - 5%/M`` for the report's ``M``
risk intervals, ``reportgen.metrics.privacy_risks``), the epsilon bound for every attack and view
together (97.5%, ``reportgen.privacy.membership``), and the AUC and TPR are read against the chance
level of the worst attack plus a margin; ``benchmarks/bench_false_alarms.py`` measures the rate.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from reportgen.data.relational import HOLDOUT_ADVICE, SINGLE_TABLE_NAME
from reportgen.headlines import ATTACK_HEADLINES, Headline, headlines
from reportgen.render.formatting import fmt_bar, fmt_unit, listed, sentence
from reportgen.results import ConcernVerdict, Finding, GateResult, ReportResults

Concern = Literal["privacy", "fidelity", "utility"]
CONCERNS: tuple[Concern, ...] = ("privacy", "fidelity", "utility")
SCORE_MARGIN = 10.0
SHARE_MARGIN = 0.01

CONCERN_OF: dict[str, Concern] = {
    "similarity": "fidelity",
    "correlation": "fidelity",
    "cardinality": "fidelity",
    "association": "fidelity",
    "association_entity": "fidelity",
    "detection": "fidelity",
    "alpha_precision": "fidelity",
    "beta_recall": "fidelity",
    "privacy": "privacy",
    "risk": "privacy",
    "exact_copies": "privacy",
    "authenticity": "privacy",
    "mia_auc": "privacy",
    "mia_tpr_at_1pct_fpr": "privacy",
    "epsilon_lower": "privacy",
    "singling_out": "privacy",
    "linkability": "privacy",
    "inference": "privacy",
    "tstr": "utility",
    "utility": "utility",
    "sra": "utility",
    "synthetic_tables": "fidelity",
}
FINDING_CONCERN: dict[str, Concern] = {
    "exact_copies_above_reference": "privacy",
    "holdout_overlaps_training": "privacy",
    "generator_saw_holdout": "privacy",
    "detection_below_chance": "privacy",
    "detection_repeats_training": "privacy",
    "privacy_not_measured": "privacy",
    "tstr_at_chance": "utility",
    "synthetic_target_unlearnable": "utility",
    "utility_flattered_by_copies": "utility",
    "utility_not_measured": "utility",
    "alpha_beta_not_measured": "fidelity",
    "synthetic_table_missing": "fidelity",
    "synthetic_orphans": "fidelity",
    "synthetic_duplicate_primary_keys": "fidelity",
    "synthetic_missing_primary_keys": "fidelity",
}
# Findings that weigh on a second concern where that concern measured something, with what they mean
# for it: TSTR is scored on the holdout, so a holdout the generator saw flatters utility too.
ALSO_CONCERNS: dict[str, dict[Concern, str]] = {
    "generator_saw_holdout": {
        "utility": (
            "TSTR is scored on holdout rows that the generator appears to have seen (see the privacy "
            "verdict), so it is unreliable and too kind."
        )
    }
}


def verdicts(results: ReportResults) -> list[ConcernVerdict]:
    """The verdict of every concern, in page order."""
    found = headlines(results)
    return [_verdict(concern, results, found) for concern in CONCERNS]


def _verdict(concern: Concern, results: ReportResults, found: dict[str, Headline]) -> ConcernVerdict:
    mine = [h for name, h in found.items() if CONCERN_OF.get(name) == concern]
    stopping = [g for g in results.gates.failed if CONCERN_OF.get(g.name) == concern]
    if stopping:
        return ConcernVerdict(concern=concern, status="fail", why=_gatesentence(stopping[0]))
    alarms = [f for f in _alarms(results.findings) if FINDING_CONCERN.get(f.code) == concern]
    also = [
        ALSO_CONCERNS[f.code][concern]
        for f in _alarms(results.findings)
        if concern in ALSO_CONCERNS.get(f.code, {})
    ]
    worse = sorted((h for h in mine if _clearly_worse(h)), key=_gap, reverse=True)
    if alarms:
        return ConcernVerdict(concern=concern, status="concern", why=_findingsentence(alarms[0]))
    if also and mine:
        return ConcernVerdict(concern=concern, status="concern", why=also[0])
    if worse:
        why = _headlinesentence(worse[0], len(worse), _real(results))
        return ConcernVerdict(concern=concern, status="concern", why=why)
    if not mine:
        return ConcernVerdict(
            concern=concern, status="not_evaluated", why=_nothing_measured(concern, results)
        )
    bars = [g for g in results.gates.gates if CONCERN_OF.get(g.name) == concern and g.status == "pass"]
    met = _bars_met(bars)
    if concern == "privacy" and "mia_auc" not in found:
        return ConcernVerdict(concern=concern, status="concern", why=_distances_only(met, results))
    evidence = _attacks_at_chance(found) if concern == "privacy" else _near(mine, _real(results))
    return ConcernVerdict(concern=concern, status="pass", why=sentence(f"{met}{evidence}."))


def _bars_met(bars: list[GateResult]) -> str:
    """The opening of a verdict that has bars ("Privacy score meets its bar (≥ 80); "), or ""."""
    if not bars:
        return ""
    named = listed(
        [f"{g.label} ({'≥' if g.higher_is_better else '≤'} {fmt_bar(g.bar, g.unit)})" for g in bars]
    )
    return f"{named} meet{'s its bar' if len(bars) == 1 else ' their bars'}; "


def _distances_only(met: str, results: ReportResults) -> str:
    """Why a privacy verdict built on distances alone is not a pass, and what to do."""
    opening = (
        f"{met.removesuffix('; ')}, but privacy was measured on distances alone"
        if met
        else "Privacy was measured on distances alone"
    )
    membership = results.sections.get("membership")
    if results.run.has_holdout and membership is not None and membership.reason:
        return sentence(f"{opening}: no membership attack could run ({membership.reason}).")
    return sentence(
        f"{opening}: the attacks (membership inference, singling out, linkability, inference) need "
        f"real rows the generator never saw, and no holdout was given. {HOLDOUT_ADVICE}."
    )


def _attacks_at_chance(found: dict[str, Headline]) -> str:
    """The attack evidence behind a privacy pass: the strongest attack against its chance level."""
    auc = found["mia_auc"]
    return (
        f"the strongest membership attack does no better than chance at these sizes (AUC {auc.value:.3f}, "
        f"chance reaches {auc.reference or 0.5:.3f}); its other measures are near their references"
    )


def _alarms(findings: Iterable[Finding]) -> list[Finding]:
    order = {"error": 0, "warning": 1, "info": 2}
    return sorted((f for f in findings if f.severity != "info"), key=lambda f: order[f.severity])


def attack_alarms(found: dict[str, Headline]) -> list[Headline]:
    """The attack headlines clearly worse than their level: each alone makes privacy a concern."""
    return [h for name in ATTACK_HEADLINES if (h := found.get(name)) is not None and _clearly_worse(h)]


def _clearly_worse(h: Headline) -> bool:
    if h.unit == "number":  # attack numbers: worse than chance (or than 0) by more than their noise
        excess = h.value - (h.reference or 0.0)
        return (excess if not h.higher_is_better else -excess) > (h.tolerance or 0.0)
    if h.reference is None:  # an attack's risk: 0 is its level, and its interval says if it is above
        return h.interval is not None and not h.higher_is_better and h.interval[0] > SHARE_MARGIN
    if h.unit == "share":
        return share_clearly_above(h.value, h.reference)
    if h.closer_to_reference and h.name != "authenticity":
        return abs(h.value - h.reference) > SCORE_MARGIN
    if h.name == "authenticity":  # above the reference is not a privacy risk (fidelity shows it)
        return h.reference - h.value > SCORE_MARGIN
    return (h.reference - h.value if h.higher_is_better else h.value - h.reference) > SCORE_MARGIN


def share_clearly_above(share: float, reference: float) -> bool:
    """Whether a share (exact copies, rows at risk) is clearly above its reference.

    Clearly: above both twice the reference and the reference plus ``SHARE_MARGIN``.
    """
    return share > max(2 * reference, reference + SHARE_MARGIN)


def _gap(h: Headline) -> float:
    """How far a headline is from its reference, in points of its page-1 scale (shares as percent).

    An attack number without a reference is measured from 0, as ``_clearly_worse`` judges it.
    """
    scale = 100.0 if h.unit == "share" else 1.0
    return abs(h.value - (h.reference or 0.0)) * scale


def _gatesentence(gate: GateResult) -> str:
    if gate.status == "not_evaluated":
        return (
            f"{gate.label} could not be evaluated ({gate.reason}), and a bar that cannot be evaluated fails."
        )
    value, bar = fmt_unit(gate.value, gate.unit), fmt_bar(gate.bar, gate.unit)
    return f"{gate.label} is {value}, {gate.worse_than} the bar of {bar}."


def _findingsentence(finding: Finding) -> str:
    named = finding.table and finding.table != SINGLE_TABLE_NAME and finding.table not in finding.message
    where = f" (table {finding.table})" if named else ""
    return f"{finding.message.rstrip('.')}{where}."


def _real(results: ReportResults) -> str:
    """What the references measure: real data, or training rows set aside for want of a holdout."""
    return "real data" if results.run.reference_split is None else "training rows set aside as a reference"


def _headlinesentence(h: Headline, n_worse: int, real: str) -> str:
    value, reference = _shown(h.value, h), _shown(h.reference, h)
    more = f" ({n_worse - 1} more measure{'s' if n_worse > 2 else ''} fall short too)" if n_worse > 1 else ""
    if h.closer_to_reference:
        return f"{h.label} is {value} against {reference} for {real}{': ' + h.gap if h.gap else ''}{more}."
    if h.reference is None:
        low, high = (_shown(bound, h) for bound in h.interval or (h.value, h.value))
        interval = f" ({h.interval_label or '95% interval'} {low} to {high})" if h.interval else ""
        return (
            f"{h.label} is {value}{interval}, above the 0 of a release that reveals nothing about its "
            f"training rows{more}."
        )
    return f"{h.label} is {value}, clearly worse than {reference} for {real}{more}."


def _near(mine: list[Headline], real: str) -> str:
    with_reference = [h for h in mine if h.reference is not None]
    if not with_reference:
        return "no measure has a reference to compare with (no holdout data was given)"
    n = len(with_reference)
    first = with_reference[0]
    value, reference = _shown(first.value, first), _shown(first.reference, first)
    example = f"{first.label} is {value} against {reference} for {real}"
    if n == 1:
        return f"its one measure with a reference is near it: {example}"
    return f"all {n} of its measures with a reference are near them; for one, {example}"


def _nothing_measured(concern: Concern, results: ReportResults) -> str:
    if concern == "utility":
        return "No target column was given, so no model was trained."
    reasons = [r.reason for r in results.sections.values() if r.status != "ok" and r.reason is not None]
    return f"No {concern} measure could be computed{': ' + reasons[0] if reasons else ''}."


def _shown(value: float | None, h: Headline) -> str:
    if value is None:
        return "—"
    return f"{100 * value:.1f}%" if h.unit == "share" else f"{value:.1f}"
