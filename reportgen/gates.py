"""Release gates: bars the headline scores must reach, so a pipeline can stop a release.

Each gate reads one headline number (``reportgen.headlines``) and fails when the number is worse
than its bar: below it for the scores (0-100, higher is better), above it for the membership
attacks' numbers, where lower is better (``mia_auc`` and ``epsilon_lower`` as plain numbers,
``mia_tpr_at_1pct_fpr`` as a share from 0 to 1). ``BARS`` states each bar's direction and range;
a number equal to its bar passes. A gate whose section was not computed (no holdout, no target,
a plugin not installed) is reported as "not evaluated", which does not fail the release: the
report says so, and a pipeline that needs the number can check ``GateResult.status``. One bar is
always in force: a training table without synthetic data fails the release.

Bars come from ``DEFAULT_BARS``, overridden by the user (``report(fail_under={...})``, a config
file, or ``--fail-under name=value`` on the command line).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from reportgen.errors import InvalidParameterError
from reportgen.headlines import headlines
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
# then the membership attacks' numbers, where lower is better.
BARS: dict[str, Bar] = {
    "similarity": Bar(),
    "correlation": Bar(),
    "cardinality": Bar(),
    "privacy": Bar(),
    "alpha_precision": Bar(),
    "beta_recall": Bar(),
    "mia_auc": Bar(higher_is_better=False, high=1.0, unit="number"),
    "mia_tpr_at_1pct_fpr": Bar(higher_is_better=False, high=1.0, unit="share"),
    "epsilon_lower": Bar(higher_is_better=False, high=math.inf, unit="number"),
}
BAR_NAMES = tuple(BARS)
DEFAULT_BARS: dict[str, float] = {"privacy": 80.0}


def bars_in_force(fail_under: Mapping[str, float] | None) -> dict[str, float]:
    """The default bars with the user's on top; unknown names are refused with the known ones."""
    user = dict(fail_under or {})
    unknown = sorted(set(user) - set(BAR_NAMES))
    if unknown:
        raise InvalidParameterError(
            f"Unknown release bar(s) {unknown}: the bars are {list(BAR_NAMES)} (e.g. privacy=80)."
        )
    for name, bar in user.items():
        spec = BARS[name]
        if isinstance(bar, bool) or not isinstance(bar, (int, float)) or not spec.low <= bar <= spec.high:
            raise InvalidParameterError(f"The bar for {name!r} must be {spec.describe()}. Got {bar!r}.")
    return {**DEFAULT_BARS, **{name: float(bar) for name, bar in user.items()}}


def evaluate_gates(results: ReportResults, bars: Mapping[str, float]) -> GatesResult:
    """Compare each headline number with its bar."""
    found = headlines(results)
    gates = []
    for name, bar in bars.items():
        headline = found.get(name)
        spec = BARS[name]
        value = headline.value if headline else None
        status: Literal["pass", "fail", "not_evaluated"] = (
            "not_evaluated" if value is None else "pass" if spec.passes(value, bar) else "fail"
        )
        gates.append(
            GateResult(
                name=name,
                label=headline.label if headline else name,
                bar=bar,
                value=value,
                status=status,
                higher_is_better=spec.higher_is_better,
                unit=spec.unit,
            )
        )
    gates += _completeness_gates(results)
    return GatesResult(gates=gates)


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
