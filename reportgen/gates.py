"""Release gates: bars the headline scores must reach, so a pipeline can stop a release.

Each gate reads one headline number (``reportgen.headlines``) and fails when the number is worse
than its bar: below it for the measures where higher is better, above it for those where lower is
better. The sections declare which headlines offer a bar, with its direction, unit and range
(``HeadlineSpec.bar``, ``low``, ``high``; ``bar_specs``); a number equal to its bar passes. Gates
fail closed: a bar whose number could not be computed (its section did not run, no table was large
enough, no holdout or target), or whose number would pass but is unreliable (an attack or utility
number when the generator appears to have seen the holdout), is "not evaluated" and fails the
release with the reason, unless the user opts out (``report(allow_not_evaluated=True)``,
``--allow-not-evaluated``). One bar is always in force: a training table without synthetic data fails the
release.

Bars come from the sections' defaults (``default_bars``), overridden by the user
(``report(fail_under={...})``, a config file, or ``--fail-under name=value`` on the command line).
A headline may take its bar from a setting (``HeadlineSpec.bar_setting``, ``setting_bars``): a claimed
epsilon is the bar of the epsilon bound at the claimed delta.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from reportgen.errors import InvalidParameterError
from reportgen.headlines import headlines, section_of, specs, too_few_rows
from reportgen.metrics.registry import HeadlineSpec
from reportgen.render.formatting import fmt_bar, fmt_unit
from reportgen.results import Concern, GateResult, GatesResult, Headline, ReportResults
from reportgen.settings import ReportSettings


def bar_specs() -> dict[str, HeadlineSpec]:
    """The headlines that offer a release bar, by name, in page order (their sections declare them)."""
    return {name: spec for name, spec in specs().items() if spec.bar}


def default_bars() -> dict[str, float]:
    """The bars in force unless the user sets others (declared by the sections, e.g. privacy >= 80)."""
    return {name: spec.default_bar for name, spec in bar_specs().items() if spec.default_bar is not None}


def bars_in_force(fail_under: Mapping[str, float] | None) -> dict[str, float]:
    """The default bars with the user's on top; unknown names are refused with the known ones.

    Scores are bars on 0-100, shares on 0-1 (``exact_copies=0.01`` is 1%), see ``bar_specs``.
    """
    user = dict(fail_under or {})
    offered = bar_specs()
    unknown = sorted(set(user) - set(offered), key=repr)  # names may be of mixed types
    if unknown:
        raise InvalidParameterError(
            f"Unknown release bar(s) {unknown}: the bars are {list(offered)} (e.g. privacy=80)."
        )
    for name, bar in user.items():
        spec = offered[name]
        if isinstance(bar, bool) or not isinstance(bar, (int, float)) or not spec.low <= bar <= spec.upper:
            raise InvalidParameterError(
                f"The bar for {name!r} must be {spec.describe_bounds()}. Got {bar!r}."
            )
    return {**default_bars(), **{name: float(bar) for name, bar in user.items()}}


def setting_bars(settings: ReportSettings) -> dict[str, float]:
    """The bars that settings put in force (a claimed epsilon), by headline name; none when not given."""
    values = settings.to_dict()
    return {
        name: float(values[spec.bar_setting])
        for name, spec in bar_specs().items()
        if spec.bar_setting is not None and values.get(spec.bar_setting) is not None
    }


def evaluate_gates(
    results: ReportResults, bars: Mapping[str, float], *, allow_not_evaluated: bool = False
) -> GatesResult:
    """Compare each headline number with its bar; a missing number is "not evaluated", with why."""
    found = results.headlines or headlines(results)
    offered = bar_specs()
    gates = []
    for name, bar in bars.items():
        headline = found.get(name)
        spec = offered[name]
        value = headline.value if headline else None
        gates.append(
            GateResult(
                name=name,
                label=headline.label if headline else spec.label,
                bar=bar,
                value=value,
                status=_status(headline, spec, bar),
                higher_is_better=spec.higher_is_better,
                unit=spec.unit,
                reason=why_missing(results, name) if headline is None else headline.caveat,
            )
        )
    gates += _completeness_gates(results)
    return GatesResult(gates=gates, allow_not_evaluated=allow_not_evaluated)


def _status(
    headline: Headline | None, spec: HeadlineSpec, bar: float
) -> Literal["pass", "fail", "not_evaluated"]:
    """Fail when the number is worse than its bar; not evaluated when missing, or passing but unreliable."""
    if headline is None:
        return "not_evaluated"
    if not spec.passes(headline.value, bar):
        return "fail"
    return "not_evaluated" if headline.unreliable else "pass"


def why_missing(results: ReportResults, name: str) -> str:
    """Why headline ``name`` is missing (for a bar, the standards page), from its section's result."""
    declared = section_of(name)
    section = declared.name if declared else name
    result = results.sections.get(section)
    withheld = too_few_rows(results, name)
    if withheld is not None:
        return withheld
    if result is None:
        return f"the {section.replace('_', ' ')} section is not part of this run"
    if result.status != "ok":
        return f"the {section.replace('_', ' ')} section was not computed: {result.reason}"
    skipped = getattr(result, "skipped", None) or {}
    if skipped:
        return "; ".join(f"{table}: {why}" for table, why in skipped.items())
    return "the number could not be computed on this data"


COMPLETENESS_GATE = "synthetic_tables"


def concern_of(gate: GateResult) -> Concern | None:
    """The page-1 concern a gate weighs on: its headline's, and fidelity for the completeness bar."""
    if gate.name == COMPLETENESS_GATE:
        return "fidelity"
    spec = specs().get(gate.name)
    return None if spec is None else spec.concern


def _completeness_gates(results: ReportResults) -> list[GateResult]:
    """A bar always in force: every training table has synthetic data (what is missing fails)."""
    missing = [f.table for f in results.findings if f.code == "synthetic_table_missing" and f.table]
    if not missing:
        return []
    present = len(results.run.inputs.get("training", {}))
    return [
        GateResult(
            name=COMPLETENESS_GATE,
            label=f"Synthetic data for every training table (missing: {', '.join(missing)})",
            bar=100.0,
            value=100.0 * present / (present + len(missing)),
            status="fail",
        )
    ]


def parse_bar(text: str) -> tuple[str, float]:
    """``"privacy=80"`` -> ``("privacy", 80.0)``, for the command line."""
    name, sep, value = text.partition("=")
    try:
        if not sep:
            raise ValueError
        return name.strip(), float(value)
    except ValueError:
        raise InvalidParameterError(
            f"--fail-under takes NAME=VALUE (e.g. privacy=80), got {text!r}; names: {list(bar_specs())}."
        ) from None


def mark_bars(found: Mapping[str, Headline], gates: GatesResult) -> None:
    """Record on each headline the bar in force on it and how it compares, as page 1 prints them."""
    for gate in gates.gates:
        if (headline := found.get(gate.name)) is not None:
            headline.bar, headline.bar_status = gate.bar, gate.status


def gate_message(gate: GateResult) -> str:
    """One failed or unevaluated bar in words, for the terminal and CI logs."""
    if gate.status == "not_evaluated":
        return (
            f"release bar not evaluated: {gate.name} ({gate.label}): {gate.reason}. A bar that cannot "
            "be evaluated fails the release; pass --allow-not-evaluated to accept that."
        )
    return (
        f"release bar failed: {gate.name} is {fmt_unit(gate.value, gate.unit)}, {gate.worse_than} the bar of "
        f"{fmt_bar(gate.bar, gate.unit)} ({gate.label})"
    )
