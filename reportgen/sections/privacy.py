"""Distance-based privacy checks: how close synthetic rows sit to training rows (proxies, not attacks)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.figure import Figure

from reportgen.context import ENTITY_SUFFIX
from reportgen.metrics.privacy import PrivacyResult, compute_privacy
from reportgen.metrics.registry import Alarm, HeadlineSpec, Reading, Section
from reportgen.params import Interval, NoneValue
from reportgen.render.privacy_figures import privacy_figure
from reportgen.results import Finding, ReportResults, SectionResult
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


def _raise_alarms(privacy: PrivacyResult, results: ReportResults, raised: Sequence[Finding]) -> list[Finding]:
    """Copies above the holdout's share, a holdout that overlaps the training rows or was seen."""
    shared = results.tables_with_training_holdout()
    split = results.run.reference_split
    copies_between_parts = split.copies if split is not None else {}
    return _copy_alarms(privacy, shared, copies_between_parts) + _holdout_seen_alarms(privacy, shared)


def _copy_alarms(privacy: Any, shared: set[str], copies_between_parts: Mapping[str, float]) -> list[Finding]:
    """Copies above the holdout's share, and a holdout that overlaps the training rows.

    Tables that a split copied to both sides are left out of the overlap alarm: a finding of their
    own says so. Without a holdout, copies are judged against ``copies_between_parts``: how often
    the training rows set aside for the references repeat the kept ones.
    """
    if privacy is None:
        return []
    alarms = []
    for t in privacy.tables:
        if t.table in privacy.copied_lookup_tables:
            alarms.append(
                Finding(
                    severity="info",
                    code="copied_lookup_table",
                    table=t.table,
                    message=(
                        "The synthetic data copies this lookup table whole (every row is a training row). "
                        "It is shown in the privacy section but left out of the exact-copies headline; "
                        "if it holds personal data, that is a leak."
                    ),
                )
            )
            continue
        copies, reference = t.distances.exact_copies, t.distances.exact_copies_holdout
        if (
            (overlap := t.holdout_overlap) is not None
            and overlap.leaked
            and t.table.removesuffix(ENTITY_SUFFIX) not in shared
        ):
            alarms.append(_overlap_finding(t.table, overlap))
        than = "" if reference is None else f", against {reference:.1%} of holdout rows"
        if reference is None and t.table in copies_between_parts:
            reference = copies_between_parts[t.table]
            than = f", against {reference:.1%} of the training rows set aside for the references (no holdout)"
        if copies > 0 and copies > (reference or 0.0):
            alarms.append(
                Finding(
                    severity="warning",
                    code="exact_copies_above_reference",
                    table=t.table,
                    message=(
                        f"{copies:.1%} of the synthetic rows are exact copies of a training row{than}: "
                        "the generator reproduces real records."
                    ),
                )
            )
    return alarms


def _overlap_finding(table: str, overlap: Any) -> Finding:
    """A holdout that repeats training rows beyond chance, with both shares (``HoldoutOverlap``)."""
    return Finding(
        severity="warning",
        code="holdout_overlaps_training",
        table=table,
        message=(
            f"{overlap.holdout_in_training:.1%} of the holdout rows equal one of {overlap.kept_rows:,} "
            f"training rows, against {overlap.set_aside_in_training:.1%} of {overlap.set_aside_rows:,} other "
            "training rows (what chance gives on these data), so the holdout is not data the generator "
            "never saw and every reference level is too kind. Keep the holdout apart before fitting the "
            "generator (unless it is a lookup table copied to both sides)."
        ),
    )


def _holdout_seen_alarms(privacy: Any, shared: set[str]) -> list[Finding]:
    """An error per table (or view) whose synthetic data repeats holdout rows clearly beyond chance.

    Tables whose holdout is their training data (a lookup table copied to both sides) are left out:
    a finding of their own says so.
    """
    if privacy is None:
        return []
    return [
        Finding(
            severity="error",
            code="generator_saw_holdout",
            table=t.table,
            message=_holdout_seen_message(check),
        )
        for t in privacy.tables
        if (check := t.holdout_check) is not None
        and check.seen
        and t.table.removesuffix(ENTITY_SUFFIX) not in shared
    ]


def _holdout_seen_message(check: Any) -> str:
    """What a holdout check that found the holdout seen means, in plain words, with its numbers."""
    return (
        f"The generator appears to have seen the holdout: {check.holdout_in_synthetic:.1%} of the holdout "
        "rows appear verbatim in the synthetic data, against "
        f"{check.holdout_in_real_sample:.1%} expected from an independent real sample of the same size "
        f"(training rows: {check.training_in_synthetic:.1%}). The membership attacks, the singling-out, "
        "linkability and inference risks and TSTR treat the holdout as rows the generator never saw, so "
        "they are unreliable and too kind here. Keep the holdout apart before fitting the generator."
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
    raise_alarms=_raise_alarms,
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
