"""Membership inference attacks: whether the synthetic data lets an attacker tell training rows apart.

The reference of the AUC and the TPR is the chance level of the view they come from: the 95th
percentile that random relabellings of the same targets reach.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure

from reportgen.errors import InvalidParameterError
from reportgen.metrics.membership import (
    MIN_TARGETS,
    EpsilonClaim,
    MembershipResult,
    compute_membership_section,
)
from reportgen.metrics.registry import Alarm, HeadlineSpec, Reading, Section
from reportgen.params import Interval, NoneValue
from reportgen.render.membership_figures import roc_figure
from reportgen.results import Finding, Headline, ReportResults, SectionResult
from reportgen.rules import BeyondLevel, ShareAboveReference
from reportgen.settings import MIA_MAX_TARGETS, Setting

# nats: a few false positives move the bound; adult's leaky data gives 4.7 to 6.0 over seeds 0-4
EPSILON_TOLERANCE = 1.0
EPSILON_MEANING = (
    "The privacy loss the attacks prove (0: none proven): a lower bound on the "
    "\N{GREEK SMALL LETTER EPSILON} of pure \N{GREEK SMALL LETTER EPSILON}-differential privacy "
    "(\N{GREEK SMALL LETTER DELTA} = 0), "
    "measured on rows drawn at random from this training/holdout split, so for typical rows, not the "
    "worst case a guarantee covers; it holds with 97.5% confidence for every attack and view together."
)


EPS, DELTA = "\N{GREEK SMALL LETTER EPSILON}", "\N{GREEK SMALL LETTER DELTA}"
CLAIM_CONTRADICTED = "epsilon_claim_contradicted"
POPULATION_LEVEL = (
    "a population-level bound (pooled over records; Jälkö et al., 2026), so it can refute a claim, "
    "never confirm one"
)


def _claim_terms(claim: EpsilonClaim) -> str:
    """The claim in words: "ε = 0.5, δ = 1e-05" (pure: "ε = 0.5, δ = 0")."""
    return f"{EPS} = {claim.epsilon:g}, {DELTA} = {claim.delta:g}"


def _claim_reading(r: MembershipResult) -> Reading | None:
    """The bound at the claimed delta, on page 1 with whether it contradicts the claim; None without one."""
    claim = r.claim
    if claim is None:
        return None
    outcome = (
        f"it is above the claimed {EPS}: the attacks contradict the claim"
        if claim.contradicted
        else f"it is not above the claimed {EPS}: the attacks do not contradict the claim"
    )
    return Reading(
        value=claim.lower_bound,
        label=f"Claimed differential privacy ({_claim_terms(claim)}): empirical {EPS} lower bound",
        meaning=(
            f"The {EPS} the attacks prove at the claimed {DELTA}, "
            f"with 97.5% confidence; {outcome}. It is {POPULATION_LEVEL}."
        ),
    )


def _claim_alarms(
    result: MembershipResult, results: ReportResults, raised: Sequence[Finding]
) -> list[Finding]:
    """An error finding when the evidence contradicts the claimed differential privacy."""
    claim = result.claim
    if claim is None or not claim.contradicted:
        return []
    return [
        Finding(
            severity="error",
            code=CLAIM_CONTRADICTED,
            table=claim.table,
            message=(
                f"The generator is claimed to be differentially private with {_claim_terms(claim)}, but the "
                f"{claim.attack} membership attack proves an {EPS} of at least "
                f"{claim.lower_bound:.2f} at that {DELTA} (97.5% confidence): the evidence "
                f"contradicts the claim. The bound is {POPULATION_LEVEL}; check the generator's privacy "
                "accounting and its implementation before relying on the claim."
            ),
        )
    ]


def _check_claim(values: Mapping[str, Any], where: str) -> None:
    """A claimed delta needs a claimed epsilon: alone it would be silently unused."""
    if values.get("claimed_delta") is not None and values.get("claimed_epsilon") is None:
        raise InvalidParameterError(
            f"{where}() got claimed_delta={values['claimed_delta']!r} without claimed_epsilon: a claim of "
            f"({EPS}, {DELTA})-differential privacy needs both; "
            "give claimed_epsilon too (--claimed-epsilon on the command line)."
        )


def _figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, MembershipResult)
    return {f"roc:{i}": roc_figure(t) for i, t in enumerate(result.tables)}


def _auc(r: MembershipResult) -> Reading:
    view = next(t.stats for t in r.tables if t.table == r.auc.table)
    return Reading(
        value=r.auc.value,
        reference=view.self_test.chance.auc,
        tolerance=max(0.01, 2 * view.attack(r.auc.attack).auc_std),
    )


def _tpr(r: MembershipResult) -> Reading:
    view = next(t.stats for t in r.tables if t.table == r.tpr_at_1pct_fpr.table)
    return Reading(value=r.tpr_at_1pct_fpr.value, reference=view.self_test.chance.tpr_at_1pct_fpr)


def _epsilon(r: MembershipResult) -> Reading:
    return Reading(value=r.epsilon_lower.value)


def _at_chance(auc: Headline) -> str:
    """The privacy pass's evidence: the strongest attack against its chance level."""
    return (
        f"the strongest membership attack does no better than chance at these sizes (AUC {auc.value:.3f}, "
        f"chance reaches {auc.reference or 0.5:.3f}); its other measures are near their references"
    )


def _epsilon_spec(
    name: str,
    label: str,
    meaning: str,
    read: Callable[[MembershipResult], Reading | None],
    bar_setting: str | None = None,
) -> HeadlineSpec:
    """An epsilon lower bound on page 1: above 0 by more than its noise is a concern; lower is better."""
    return HeadlineSpec(
        name=name,
        label=label,
        unit="number",
        higher_is_better=False,
        concern="privacy",
        meaning=meaning,
        read=read,
        rule=BeyondLevel(),
        tolerance=EPSILON_TOLERANCE,
        reference_kind="none",
        compares_holdout=True,
        assumes_unseen_holdout=True,
        bar_setting=bar_setting,
    )


SECTION = Section(
    name="membership",
    title="Privacy: membership inference attacks",
    order=45,
    result_type=MembershipResult,
    compute=compute_membership_section,
    template="sections/membership.html.j2",
    methodology="sections/membership_methodology.html.j2",
    figures=_figures,
    settings=(
        Setting(
            "mia_max_targets",
            MIA_MAX_TARGETS,
            "membership attack targets per side (training rows as members, holdout rows as non-members)",
            (Interval(int, MIN_TARGETS, None),),
            aliases=("--max-targets",),
        ),
        Setting(
            "claimed_epsilon",
            None,
            f"the {EPS} of the generator's claimed differential privacy, audited "
            "against the attacks' lower bound (a bound above it fails a release bar)",
            (NoneValue(), Interval(float, 0, None)),
            parse=float,
            metavar="EPS",
        ),
        Setting(
            "claimed_delta",
            None,
            f"the {DELTA} of that claim (default 0: pure {EPS}-DP)",
            (NoneValue(), Interval(float, 0, 1, closed="left")),
            parse=float,
            metavar="DELTA",
        ),
    ),
    check_settings=_check_claim,
    raise_alarms=_claim_alarms,
    alarms=(Alarm(CLAIM_CONTRADICTED, "privacy"),),
    headlines=(
        HeadlineSpec(
            name="mia_auc",
            label="Membership attack AUC",
            unit="number",
            higher_is_better=False,
            concern="privacy",
            meaning=(
                "How well the strongest attack tells training rows from holdout rows using the synthetic "
                "data (0.5: a coin toss); the reference is what chance reaches at these sizes."
            ),
            read=_auc,
            rule=BeyondLevel(),
            reference_kind="chance",
            high=1.0,
            compares_holdout=True,
            assumes_unseen_holdout=True,
            evidence=_at_chance,
        ),
        HeadlineSpec(
            name="mia_tpr_at_1pct_fpr",
            label="Training rows found at 1% false positives",
            unit="share",
            higher_is_better=False,
            concern="privacy",
            meaning=(
                "Share of training rows the strongest attack finds while wrongly accusing 1% of holdout "
                "rows (chance: about 1%; the reference is what chance reaches at these sizes)."
            ),
            read=_tpr,
            rule=ShareAboveReference(),
            reference_kind="chance",
            compares_holdout=True,
            assumes_unseen_holdout=True,
        ),
        _epsilon_spec("epsilon_lower", f"Empirical {EPS} lower bound", EPSILON_MEANING, _epsilon),
        _epsilon_spec(
            "epsilon_claim",
            f"Claimed differential privacy: empirical {EPS} lower bound",
            f"The {EPS} the attacks prove at a claimed {DELTA}; shown only when a claim is given "
            f"(claimed_epsilon), whose {EPS} is then its bar. It is {POPULATION_LEVEL}.",
            _claim_reading,
            bar_setting="claimed_epsilon",
        ),
    ),
)
