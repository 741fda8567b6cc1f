"""Membership inference attacks: whether the synthetic data lets an attacker tell training rows apart.

The reference of the AUC and the TPR is the chance level of the view they come from: the 95th
percentile that random relabellings of the same targets reach.
"""

from __future__ import annotations

from matplotlib.figure import Figure

from reportgen.metrics.membership import MIN_TARGETS, MembershipResult, compute_membership_section
from reportgen.metrics.registry import HeadlineSpec, Reading, Section
from reportgen.params import Interval
from reportgen.render.membership_figures import roc_figure
from reportgen.results import Headline, SectionResult
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
    ),
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
        HeadlineSpec(
            name="epsilon_lower",
            label="Empirical \N{GREEK SMALL LETTER EPSILON} lower bound",
            unit="number",
            higher_is_better=False,
            concern="privacy",
            meaning=EPSILON_MEANING,
            read=_epsilon,
            rule=BeyondLevel(),
            tolerance=EPSILON_TOLERANCE,
            reference_kind="none",
            compares_holdout=True,
            assumes_unseen_holdout=True,
        ),
    ),
)
