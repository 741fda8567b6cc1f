"""Release gates: bars the headline scores must reach, so a pipeline can stop a release.

Each gate reads one headline number from the results (0-100 scales, higher is better) and passes
when the number is at least its bar. A gate whose section was not computed (no holdout, no target,
a plugin not installed) is reported as "not evaluated", which does not fail the release: the
report says so, and a pipeline that needs the number can check ``GateResult.status``.

Bars come from ``DEFAULT_BARS``, overridden by the user (``report(fail_under={...})``, a config
file, or ``--fail-under name=value`` on the command line).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Literal

from reportgen.errors import InvalidParameterError
from reportgen.results import GateResult, GatesResult, ReportResults, SectionResult


def _score(section: str, attribute: str, scale: float = 1.0) -> Callable[[ReportResults], float | None]:
    def read(results: ReportResults) -> float | None:
        result: SectionResult | None = results.sections.get(section)
        if result is None or result.status != "ok":
            return None
        value = getattr(result, attribute, None)
        return None if value is None else scale * float(value)

    return read


HEADLINES: dict[str, tuple[str, Callable[[ReportResults], float | None]]] = {
    "similarity": ("Similarity score (0-100)", _score("similarity", "score")),
    "correlation": ("Correlation similarity x 100", _score("correlation", "similarity", 100.0)),
    "privacy": ("Privacy score of the weakest table (0-100)", _score("privacy", "privacy_score")),
}
DEFAULT_BARS: dict[str, float] = {"privacy": 80.0}


def bars_in_force(fail_under: Mapping[str, float] | None) -> dict[str, float]:
    """The default bars with the user's on top; unknown names are refused with the known ones."""
    user = dict(fail_under or {})
    unknown = sorted(set(user) - set(HEADLINES))
    if unknown:
        raise InvalidParameterError(
            f"Unknown release bar(s) {unknown}: the bars are {sorted(HEADLINES)} (e.g. privacy=80)."
        )
    for name, bar in user.items():
        if isinstance(bar, bool) or not isinstance(bar, (int, float)) or not 0 <= bar <= 100:
            raise InvalidParameterError(f"The bar for {name!r} must be a number from 0 to 100. Got {bar!r}.")
    return {**DEFAULT_BARS, **{name: float(bar) for name, bar in user.items()}}


def evaluate_gates(results: ReportResults, bars: Mapping[str, float]) -> GatesResult:
    """Compare each headline number with its bar."""
    gates = []
    for name, bar in bars.items():
        label, read = HEADLINES[name]
        value = read(results)
        status: Literal["pass", "fail", "not_evaluated"] = (
            "not_evaluated" if value is None else "pass" if value >= bar else "fail"
        )
        gates.append(GateResult(name=name, label=label, bar=bar, value=value, status=status))
    return GatesResult(gates=gates)


def parse_bar(text: str) -> tuple[str, float]:
    """``"privacy=80"`` -> ``("privacy", 80.0)``, for the command line."""
    name, sep, value = text.partition("=")
    try:
        if not sep:
            raise ValueError
        return name.strip(), float(value)
    except ValueError:
        raise InvalidParameterError(
            f"--fail-under takes NAME=VALUE (e.g. privacy=80), got {text!r}; names: {sorted(HEADLINES)}."
        ) from None
