"""Singling out, linkability and inference: the attacks of the Article 29 Working Party's criteria."""

from __future__ import annotations

from collections.abc import Callable

from reportgen.metrics.privacy_risks import PrivacyRisksResult, compute_privacy_risks_section
from reportgen.metrics.registry import HeadlineSpec, Reading, Section
from reportgen.params import InstanceOf, Interval, NoneValue
from reportgen.rules import IntervalAboveZero
from reportgen.settings import (
    MIN_RISK_ATTACKS,
    N_RISK_ATTACKS,
    Setting,
    check_link_columns,
    check_secret_columns,
)


def risk_interval_label(intervals: int | None) -> str:
    """What a risk headline's interval is, in words: simultaneous over the report's ``M`` intervals."""
    if intervals is None or intervals <= 1:
        return "95% interval"
    return f"95% interval, corrected for the report's {intervals} risk intervals,"


def _risk_of(attack: str) -> Callable[[PrivacyRisksResult], Reading | None]:
    def read(r: PrivacyRisksResult) -> Reading | None:
        headline = getattr(r, attack)
        if headline is None:
            return None
        return Reading(
            value=headline.risk,
            interval=headline.risk_interval,
            interval_label=risk_interval_label(r.intervals),
        )

    return read


def _risk(name: str, label: str, meaning: str) -> HeadlineSpec:
    return HeadlineSpec(
        name=name,
        label=label,
        unit="share",
        higher_is_better=False,
        concern="privacy",
        meaning=meaning,
        read=_risk_of(name),
        rule=IntervalAboveZero(),
        reference_kind="none",
        compares_holdout=True,
        assumes_unseen_holdout=True,
    )


SECTION = Section(
    name="privacy_risks",
    title="Privacy: singling out, linkability and inference attacks",
    order=47,
    result_type=PrivacyRisksResult,
    compute=compute_privacy_risks_section,
    template="sections/privacy_risks.html.j2",
    methodology="sections/privacy_risks_methodology.html.j2",
    settings=(
        Setting(
            "risk_attacks",
            N_RISK_ATTACKS,
            "targets per side of the singling-out, linkability and inference attacks",
            (Interval(int, MIN_RISK_ATTACKS, None),),
        ),
        Setting(
            "risk_secrets",
            None,
            "a column the inference attack guesses, repeatable (default: every column, capped)",
            (NoneValue(), InstanceOf((list, tuple), "a list of column names")),
            parse=str,
            flag="--secret",
            metavar="COLUMN",
            repeatable=True,
            check_columns=check_secret_columns,
        ),
        Setting(
            "risk_link_columns",
            None,
            "the linkability attacker's two column sets (default: a seeded random split)",
            (NoneValue(), InstanceOf((list, tuple), "two lists of column names")),
            parse=None,
            check_columns=check_link_columns,
        ),
    ),
    headlines=(
        _risk(
            "singling_out",
            "Singling-out risk",
            "How much more often conditions built from the synthetic data isolate exactly one training row "
            "than one holdout row (the worst table; 0 is best).",
        ),
        _risk(
            "linkability",
            "Linkability risk",
            "How much more often the synthetic data lets an attacker join two partial records of a training "
            "row than of a holdout row (the worst table; 0 is best).",
        ),
        _risk(
            "inference",
            "Inference risk",
            "How much more often the synthetic data reveals a column of a training row than of a holdout row "
            "(the worst table and secret column; 0 is best).",
        ),
    ),
)
