"""Sample-level fidelity and authenticity: alpha-precision, beta-recall and authenticity."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from scipy.integrate import trapezoid

from reportgen.metrics.alpha_beta import AlphaBetaResult, compute_alpha_beta
from reportgen.metrics.registry import Alarm, HeadlineSpec, Reading, Section
from reportgen.render.alpha_beta_figures import alpha_beta_figure
from reportgen.results import Concern, SectionResult
from reportgen.rules import AwayFromReference, BelowReference, Rule


def _figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, AlphaBetaResult)
    return {f"alpha_beta:{i}": alpha_beta_figure(t) for i, t in enumerate(result.tables)}


def _reader(name: str, attribute: str) -> Callable[[AlphaBetaResult], Reading]:
    """Reads the weakest table's number, its holdout level as reference, and which way it departs."""

    def read(r: AlphaBetaResult) -> Reading:
        weakest = {t.table: t for t in r.tables}.get(r.weakest.get(attribute, ""))
        holdout = None if weakest is None else weakest.holdout
        return Reading(
            value=100 * getattr(r, attribute),
            reference=None if holdout is None else 100 * getattr(holdout, attribute),
            tables=(r.weakest[attribute],) if attribute in r.weakest else (),
            gap=None if weakest is None else _curve_gap(name, weakest),
        )

    return read


def _curve_gap(name: str, table: Any) -> str | None:
    """Which side of its diagonal (or of the holdout's level) a sample-level number falls, in words."""
    if name == "authenticity":
        if table.holdout is None:
            return None
        fewer = table.synthetic.authenticity < table.holdout.authenticity
        return (
            "more synthetic rows sit next to a training row than fresh real rows do"
            if fewer
            else "fewer synthetic rows sit next to a training row than fresh real rows do"
        )
    signed = _signed_area(name, table.synthetic.curves)
    if table.holdout is not None:  # a fresh real sample's own departure is the level, not the diagonal
        signed -= _signed_area(name, table.holdout.curves)
    if abs(signed) < 0.01:
        return None
    fresh = "fresh real rows do" if table.holdout is not None else "a perfect sample would"
    if name == "alpha_precision":
        return (
            f"synthetic rows crowd the typical core of the real data more than {fresh} (too little variety)"
            if signed > 0
            else f"more synthetic rows fall outside the real data's typical region than {fresh}"
        )
    return (
        f"the synthetic data covers more of the real rows than {fresh}"
        if signed > 0
        else f"under-coverage: the synthetic data covers less of the real data's variety than {fresh}"
    )


def _signed_area(name: str, curves: Any) -> float:
    """The area between a sample-level curve and the diagonal: above it positive, below negative."""
    curve = curves.precision if name == "alpha_precision" else curves.recall
    return float(trapezoid(np.asarray(curve) - np.asarray(curves.levels), curves.levels))


def _spec(
    name: str, label: str, attribute: str, meaning: str, concern: Concern, rule: Rule, bar: bool
) -> HeadlineSpec:
    return HeadlineSpec(
        name=name,
        label=label,
        unit="score",
        higher_is_better=True,
        concern=concern,
        meaning=meaning,
        read=_reader(name, attribute),
        rule=rule,
        closer_to_reference=True,
        bar=bar,
    )


SECTION = Section(
    name="alpha_beta",
    title="Sample-level fidelity and authenticity (α-precision, β-recall)",  # noqa: RUF001
    order=55,
    result_type=AlphaBetaResult,
    compute=compute_alpha_beta,
    template="sections/alpha_beta.html.j2",
    methodology="sections/alpha_beta_methodology.html.j2",
    figures=_figures,
    beside=True,  # the one-class networks train on one core
    headlines=(
        _spec(
            "alpha_precision",
            "\N{GREEK SMALL LETTER ALPHA}-precision",
            "ip_alpha",
            "Whether synthetic rows are spread over the real data's typical region as real rows are.",
            "fidelity",
            AwayFromReference(),
            bar=True,
        ),
        _spec(
            "beta_recall",
            "\N{GREEK SMALL LETTER BETA}-recall",
            "ir_beta",
            "Whether the synthetic data covers the variety of the real data as a fresh sample would.",
            "fidelity",
            AwayFromReference(),
            bar=True,
        ),
        _spec(
            "authenticity",
            "Authenticity",
            "authenticity",
            "Share of synthetic rows that are not closer to a training row than real rows are to each "
            "other; a fresh real sample gets the reference (about 50), far below it means copying.",
            "privacy",
            BelowReference(),  # above the reference is not a privacy risk (fidelity shows it)
            bar=False,  # not a higher-is-better score: a perfect generator gets about 50
        ),
    ),
    alarms=(Alarm("alpha_beta_not_measured", "fidelity"),),
)
