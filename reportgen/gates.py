"""Release gates: bars the headline scores must reach, so a pipeline can stop a release.

Each gate reads one headline number (``reportgen.headlines``) on a 0-100 scale (shares as
percentages). A bar on a score where higher is better is a minimum: the gate passes when the number
is at least the bar. A bar on a risk (``LOWER_IS_BETTER``) is a maximum: it passes when the number is
at most the bar. A gate whose section was not computed (no holdout, no target,
a plugin not installed) is reported as "not evaluated", which does not fail the release: the
report says so, and a pipeline that needs the number can check ``GateResult.status``. One bar is
always in force: a training table without synthetic data fails the release.

Bars come from ``DEFAULT_BARS``, overridden by the user (``report(fail_under={...})``, a config
file, or ``--fail-under name=value`` on the command line).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from reportgen.errors import InvalidParameterError
from reportgen.headlines import headlines
from reportgen.results import GateResult, GatesResult, ReportResults

# headlines on 0-100 where higher is better (authenticity is not one: a perfect generator gets ~50),
# then risks in percent where lower is better
BAR_NAMES = (
    "similarity",
    "correlation",
    "cardinality",
    "privacy",
    "alpha_precision",
    "beta_recall",
    "singling_out",
    "linkability",
    "inference",
)
LOWER_IS_BETTER = frozenset({"singling_out", "linkability", "inference"})
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
        if isinstance(bar, bool) or not isinstance(bar, (int, float)) or not 0 <= bar <= 100:
            raise InvalidParameterError(f"The bar for {name!r} must be a number from 0 to 100. Got {bar!r}.")
    return {**DEFAULT_BARS, **{name: float(bar) for name, bar in user.items()}}


def evaluate_gates(results: ReportResults, bars: Mapping[str, float]) -> GatesResult:
    """Compare each headline number with its bar."""
    found = headlines(results)
    gates = []
    for name, bar in bars.items():
        headline = found.get(name)
        label = headline.label if headline else name
        value = None if headline is None else headline.value * (100 if headline.unit == "share" else 1)
        higher = name not in LOWER_IS_BETTER
        met = value is not None and (value >= bar if higher else value <= bar)
        status: Literal["pass", "fail", "not_evaluated"] = (
            "not_evaluated" if value is None else "pass" if met else "fail"
        )
        gates.append(
            GateResult(name=name, label=label, bar=bar, value=value, status=status, higher_is_better=higher)
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
