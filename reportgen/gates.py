"""Release gates: bars the headline scores must reach, so a pipeline can stop a release.

Each gate reads one headline number (``reportgen.headlines``) and fails when the number is worse
than its bar: below it for the scores (0-100, higher is better), above it for the measures where
lower is better (``exact_copies``, ``mia_tpr_at_1pct_fpr``, ``singling_out``, ``linkability`` and
``inference`` as shares from 0 to 1, ``mia_auc`` and ``epsilon_lower`` as plain numbers). ``BARS``
states each bar's direction and range; a number equal to its bar passes. Gates fail closed: a bar
whose number could not be computed (its section did not run, no table was large enough, no holdout
or target), or whose number would pass but is unreliable (an attack or utility number when the
generator appears to have seen the holdout), is "not evaluated" and fails the release with the
reason, unless the user opts out (``report(allow_not_evaluated=True)``, ``--allow-not-evaluated``).
One bar is always in force: a training table without synthetic data fails the release.

Bars come from ``DEFAULT_BARS``, overridden by the user (``report(fail_under={...})``, a config
file, or ``--fail-under name=value`` on the command line).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from reportgen.errors import InvalidParameterError
from reportgen.headlines import Headline, headlines, too_few_rows
from reportgen.results import GateResult, GatesResult, ReportResults


@dataclass(frozen=True)
class Bar:
    """Which way a bar's headline is good, and the range a bar on it may take."""

    higher_is_better: bool = True
    low: float = 0.0
    high: float = 100.0
    unit: Literal["score", "share", "number"] = "score"

    def passes(self, value: float, bar: float) -> bool:
        return value >= bar if self.higher_is_better else value <= bar

    def describe(self) -> str:
        high = "infinity" if math.isinf(self.high) else f"{self.high:g}"
        return f"a number from {self.low:g} to {high}"


# Scores on 0-100 where higher is better (authenticity is not one: a perfect generator gets ~50),
# then the numbers where lower is better.
BARS: dict[str, Bar] = {
    "similarity": Bar(),
    "correlation": Bar(),
    "association": Bar(),
    "association_entity": Bar(),
    "detection": Bar(),
    "cardinality": Bar(),
    "privacy": Bar(),
    "alpha_precision": Bar(),
    "beta_recall": Bar(),
    "utility": Bar(),
    "exact_copies": Bar(higher_is_better=False, high=1.0, unit="share"),
    "mia_auc": Bar(higher_is_better=False, high=1.0, unit="number"),
    "mia_tpr_at_1pct_fpr": Bar(higher_is_better=False, high=1.0, unit="share"),
    "epsilon_lower": Bar(higher_is_better=False, high=math.inf, unit="number"),
    "singling_out": Bar(higher_is_better=False, high=1.0, unit="share"),
    "linkability": Bar(higher_is_better=False, high=1.0, unit="share"),
    "inference": Bar(higher_is_better=False, high=1.0, unit="share"),
}
BAR_NAMES = tuple(BARS)
DEFAULT_BARS: dict[str, float] = {"privacy": 80.0}


def bars_in_force(fail_under: Mapping[str, float] | None) -> dict[str, float]:
    """The default bars with the user's on top; unknown names are refused with the known ones.

    Scores are bars on 0-100, shares on 0-1 (``exact_copies=0.01`` is 1%), see ``BARS``.
    """
    user = dict(fail_under or {})
    unknown = sorted(set(user) - set(BAR_NAMES), key=repr)  # names may be of mixed types
    if unknown:
        raise InvalidParameterError(
            f"Unknown release bar(s) {unknown}: the bars are {list(BAR_NAMES)} (e.g. privacy=80)."
        )
    for name, bar in user.items():
        spec = BARS[name]
        if isinstance(bar, bool) or not isinstance(bar, (int, float)) or not spec.low <= bar <= spec.high:
            raise InvalidParameterError(f"The bar for {name!r} must be {spec.describe()}. Got {bar!r}.")
    return {**DEFAULT_BARS, **{name: float(bar) for name, bar in user.items()}}


def evaluate_gates(
    results: ReportResults, bars: Mapping[str, float], *, allow_not_evaluated: bool = False
) -> GatesResult:
    """Compare each headline number with its bar; a missing number is "not evaluated", with why."""
    found = headlines(results)
    gates = []
    for name, bar in bars.items():
        headline = found.get(name)
        spec = BARS[name]
        value = headline.value if headline else None
        gates.append(
            GateResult(
                name=name,
                label=headline.label if headline else _LABELS.get(name, name),
                bar=bar,
                value=value,
                status=_status(headline, spec, bar),
                higher_is_better=spec.higher_is_better,
                unit=spec.unit,
                reason=_why_missing(results, name) if headline is None else headline.caveat,
            )
        )
    gates += _completeness_gates(results)
    return GatesResult(gates=gates, allow_not_evaluated=allow_not_evaluated)


def _status(headline: Headline | None, spec: Bar, bar: float) -> Literal["pass", "fail", "not_evaluated"]:
    """Fail when the number is worse than its bar; not evaluated when missing, or passing but unreliable."""
    if headline is None:
        return "not_evaluated"
    if not spec.passes(headline.value, bar):
        return "fail"
    return "not_evaluated" if headline.unreliable else "pass"


_SECTION_OF = {
    "similarity": "similarity",
    "correlation": "correlation",
    "cardinality": "relational",
    "privacy": "privacy",
    "exact_copies": "privacy",
    "alpha_precision": "alpha_beta",
    "beta_recall": "alpha_beta",
    "utility": "utility",
    "mia_auc": "membership",
    "mia_tpr_at_1pct_fpr": "membership",
    "epsilon_lower": "membership",
    "singling_out": "privacy_risks",
    "linkability": "privacy_risks",
    "inference": "privacy_risks",
}
_LABELS = {
    "cardinality": "Cardinality similarity",
    "privacy": "Privacy score",
    "alpha_precision": "\N{GREEK SMALL LETTER ALPHA}-precision",
    "beta_recall": "\N{GREEK SMALL LETTER BETA}-recall",
    "utility": "Utility (TSTR relative to real data)",
}


def _why_missing(results: ReportResults, name: str) -> str:
    """Why a bar's number is missing, from its section's result."""
    section = _SECTION_OF.get(name, name)
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


def _completeness_gates(results: ReportResults) -> list[GateResult]:
    """A bar always in force: every training table has synthetic data (what is missing fails)."""
    missing = [f.table for f in results.findings if f.code == "synthetic_table_missing" and f.table]
    if not missing:
        return []
    present = len(results.run.inputs.get("training", {}))
    return [
        GateResult(
            name="synthetic_tables",
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
            f"--fail-under takes NAME=VALUE (e.g. privacy=80), got {text!r}; names: {list(BAR_NAMES)}."
        ) from None
