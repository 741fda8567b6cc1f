"""Distance-based privacy checks: how close synthetic rows sit to training rows (proxies, not attacks)."""

from __future__ import annotations

from matplotlib.figure import Figure

from reportgen.metrics.privacy import PrivacyResult, compute_privacy
from reportgen.metrics.registry import Alarm, HeadlineSpec, Reading, Section
from reportgen.params import Interval, NoneValue
from reportgen.render.privacy_figures import privacy_figure
from reportgen.results import SectionResult
from reportgen.rules import BelowReference, ShareAboveReference
from reportgen.settings import Setting


def _figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, PrivacyResult)
    return {f"privacy:{i}": privacy_figure(t) for i, t in enumerate(result.tables)}


def _not_measured(skipped: dict[str, str]) -> str | None:
    """A caveat naming the tables (and views) the section could not measure."""
    return f"not measured in {', '.join(skipped)} (see the findings)" if skipped else None


def _privacy(r: PrivacyResult) -> Reading | None:
    if r.privacy_score is None:
        return None
    return Reading(
        value=r.privacy_score,
        reference=r.privacy_score_reference,
        spread=r.privacy_score_std,
        caveat=_not_measured(r.skipped),
        tables=(r.weakest_table,) if r.weakest_table else (),
    )


def _risk(r: PrivacyResult) -> Reading | None:
    return None if r.privacy_score is None or r.risk is None else Reading(value=r.risk)


def _exact_copies(r: PrivacyResult) -> Reading:
    return Reading(
        value=r.exact_copies,
        reference=r.exact_copies_reference,
        tables=(r.exact_copies_table,) if r.exact_copies_table else (),
    )


SECTION = Section(
    name="privacy",
    title="Privacy: distance-based checks (proxies)",
    order=50,
    result_type=PrivacyResult,
    compute=compute_privacy,
    template="sections/privacy.html.j2",
    methodology="sections/privacy_methodology.html.j2",
    figures=_figures,
    settings=(
        Setting(
            "privacy_q",
            0.1,
            "quantile of the training-to-training proximity ratio (TTPR) used as the threshold",
            (Interval(float, 0, 1, closed="neither"),),
            parse=float,
            aliases=("--q",),
            metavar="Q",
        ),
        Setting(
            "risk_confidence",
            None,
            "the privacy risk's correction C: the risk counts n - C*sqrt(n) close rows (default none)",
            (NoneValue(), Interval(float, 0, None)),
            parse=float,
            metavar="C",
        ),
        Setting(
            "privacy_repeats",
            5,
            "random halvings of the training data the proximity ratios are averaged over",
            (Interval(int, 1, None),),
        ),
        Setting(
            "n_max_gower",
            5_000,
            "cap on the rows of each role in the maximum-similarity (Gower) comparison",
            (Interval(int, 1, None),),
        ),
    ),
    headlines=(
        HeadlineSpec(
            name="privacy",
            label="Privacy score",
            unit="score",
            higher_is_better=True,
            concern="privacy",
            meaning=(
                "Whether synthetic rows sit closer to real training rows than real rows sit to each "
                "other (100: no closer; low values mean memorised records)."
            ),
            read=_privacy,
            rule=BelowReference(),
            default_bar=80.0,
        ),
        HeadlineSpec(
            name="risk",
            label="Training rows at risk",
            unit="share",
            higher_is_better=False,
            concern="privacy",
            meaning="Estimated share of real training rows the synthetic data sits unusually close to.",
            read=_risk,
            rule=ShareAboveReference(),
            reference_kind="none",
            bar=False,
        ),
        HeadlineSpec(
            name="exact_copies",
            label="Exact copies",
            unit="share",
            higher_is_better=False,
            concern="privacy",
            meaning="Share of synthetic rows identical to a real training row on every compared column.",
            read=_exact_copies,
            rule=ShareAboveReference(),
        ),
    ),
    alarms=(
        Alarm("exact_copies_above_reference", "privacy"),
        Alarm("holdout_overlaps_training", "privacy"),
        Alarm(
            "generator_saw_holdout",
            "privacy",
            also={
                "utility": (
                    "TSTR is scored on holdout rows that the generator appears to have seen (see the "
                    "privacy verdict), so it is unreliable and too kind."
                )
            },
        ),
        Alarm("privacy_not_measured", "privacy"),
    ),
)
