"""One verdict per concern (privacy, fidelity, utility) for page 1, in plain words.

Each concern gets **fail** when one of its release bars failed or could not be evaluated (gates
fail closed), **concern** when no bar failed but an alarm was raised (a finding of the concern,
or a headline clearly worse than its reference), **pass** when its numbers are at their bars and
near their references, and **not evaluated** when nothing of it could be measured. The sentence
says why, naming the number or the finding that decided.

"Clearly worse than the reference" is each headline's own rule, declared by its section
(``reportgen.rules``); the findings that raise a concern are the sections' declared ``alarms``.
A privacy pass needs evidence from an attack on rows the generator never saw (a headline whose
section declares its ``evidence``); distances alone leave privacy a concern.

False alarms: a generator that leaks nothing must rarely make privacy a concern through the attacks
(the headlines that compare training with holdout rows), however many tables, attacks and secrets
the report holds. The risk intervals are corrected for all of them together (each at ``1 - 5%/M``
for the report's ``M`` risk intervals, ``reportgen.metrics.privacy_risks``), the epsilon bound for
every attack and view together (97.5%, ``reportgen.privacy.membership``), and the AUC and TPR are
read against the chance level of the worst attack plus a margin;
``benchmarks/bench_false_alarms.py`` measures the rate.
"""

from __future__ import annotations

from collections.abc import Iterable

from reportgen.catalogue import sections
from reportgen.data.relational import HOLDOUT_ADVICE, SINGLE_TABLE_NAME
from reportgen.gates import concern_of
from reportgen.headlines import headlines, specs
from reportgen.metrics.registry import Alarm
from reportgen.render.formatting import fmt_bar, fmt_unit, listed, sentence
from reportgen.results import CONCERNS, Concern, ConcernVerdict, Finding, GateResult, Headline, ReportResults


def _alarms_declared() -> dict[str, Alarm]:
    """The findings that raise a concern, by code, as the sections declare them."""
    return {alarm.code: alarm for section in sections() for alarm in section.alarms}


def verdicts(results: ReportResults) -> list[ConcernVerdict]:
    """The verdict of every concern, in page order."""
    found = results.headlines or headlines(results)
    declared = _alarms_declared()
    return [_verdict(concern, results, found, declared) for concern in CONCERNS]


def _verdict(
    concern: Concern, results: ReportResults, found: dict[str, Headline], declared: dict[str, Alarm]
) -> ConcernVerdict:
    mine = [h for h in found.values() if h.concern == concern]
    stopping = [g for g in results.gates.failed if concern_of(g) == concern]
    if stopping:
        return ConcernVerdict(concern=concern, status="fail", why=_gatesentence(stopping[0]))
    raised = [(f, declared[f.code]) for f in _alarms(results.findings) if f.code in declared]
    alarms = [f for f, alarm in raised if alarm.concern == concern]
    also = [alarm.also[concern] for _, alarm in raised if concern in alarm.also]
    worse = sorted((h for h in mine if h.worse), key=_gap, reverse=True)
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
    bars = [g for g in results.gates.gates if concern_of(g) == concern and g.status == "pass"]
    met = _bars_met(bars)
    if concern == "privacy":
        evidence = _evidence(mine)
        if evidence is None:
            return ConcernVerdict(concern=concern, status="concern", why=_distances_only(met, results))
    else:
        evidence = _near(mine, _real(results))
    return ConcernVerdict(concern=concern, status="pass", why=sentence(f"{met}{evidence}."))


def _evidence(mine: list[Headline]) -> str | None:
    """The sentence of the first headline its section declares as the evidence of a privacy pass.

    Only an attack on rows the generator never saw can show that privacy holds; distances cannot.
    """
    declared = specs()
    for h in mine:
        spec = declared.get(h.name)
        if spec is not None and spec.evidence is not None:
            return spec.evidence(h)
    return None


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


def _alarms(findings: Iterable[Finding]) -> list[Finding]:
    order = {"error": 0, "warning": 1, "info": 2}
    return sorted((f for f in findings if f.severity != "info"), key=lambda f: order[f.severity])


def attack_alarms(found: dict[str, Headline]) -> list[Headline]:
    """The attack headlines clearly worse than their level: each alone makes privacy a concern."""
    declared = specs()
    return [
        h for name, h in found.items() if name in declared and declared[name].compares_holdout and h.worse
    ]


def _gap(h: Headline) -> float:
    """How far a headline is from its reference, in points of its page-1 scale (shares as percent).

    An attack number without a reference is measured from 0, as its rule (``BeyondLevel``) judges it.
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
