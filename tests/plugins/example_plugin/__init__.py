"""An example plugin section, installed through the ``reportgen.metrics`` entry point.

It touches no reportgen file, yet has every power a built-in section has: a page, a page-1 headline
with a reference, a release bar (``--fail-under my_score=70``), a finding that feeds the fidelity
verdict, a setting (``report(missing_alarm_share=0.2)``, ``--missing-alarm-share 0.2``) and a
methodology paragraph. The measure: how well the synthetic data keeps each column's
share of missing values.
"""

from __future__ import annotations

import pandas as pd

from reportgen.metrics.registry import Alarm, HeadlineSpec, MetricNotComputed, Reading, Section
from reportgen.params import Interval
from reportgen.results import Finding, SectionResult
from reportgen.rules import BelowReference
from reportgen.settings import Setting


class MissingValuesResult(SectionResult):
    """Per table, the mean gap between the training and synthetic (and holdout) missing shares."""

    score: float
    reference: float | None
    columns: int


def _score(train: pd.DataFrame, other: pd.DataFrame) -> float:
    gaps = (train.isna().mean() - other[train.columns].isna().mean()).abs()
    return float(100 * (1 - gaps.mean()))


def compute(ctx) -> MissingValuesResult:
    tables = [name for name in ctx.table_names if len(ctx.train[name].columns)]
    if not tables:
        raise MetricNotComputed("no compared columns")
    dropped = ctx.settings.missing_alarm_share
    scores, references, columns = [], [], 0
    for name in tables:
        train, synth = ctx.train[name], ctx.synth[name]
        scores.append(_score(train, synth))
        if ctx.test is not None:
            references.append(_score(train, ctx.test[name]))
        columns += len(train.columns)
        for column in train.columns:
            if train[column].isna().mean() >= dropped and not synth[column].isna().any():
                ctx.findings.append(
                    Finding(
                        severity="warning",
                        code="missing_values_dropped",
                        message=f"The synthetic data has no missing values in a column where the training "
                        f"data misses at least {dropped:.0%}.",
                        table=name,
                        column=column,
                    )
                )
    return MissingValuesResult(
        section="missing_values",
        score=min(scores),
        reference=min(references) if references else None,
        columns=columns,
    )


def _my_score(result: MissingValuesResult) -> Reading:
    return Reading(value=result.score, reference=result.reference)


SECTION = Section(
    name="missing_values",
    title="Fidelity: missing values",
    order=70,
    result_type=MissingValuesResult,
    compute=compute,
    template="missing_values.html.j2",
    template_package="example_plugin",
    methodology="missing_values_methodology.html.j2",
    settings=(
        Setting(
            "missing_alarm_share",
            0.05,
            "share of training values missing above which a synthetic column with none is flagged",
            (Interval(float, 0, 1, closed="right"),),
            parse=float,
            metavar="SHARE",
        ),
    ),
    headlines=(
        HeadlineSpec(
            name="my_score",
            label="Missing-value fidelity",
            unit="score",
            higher_is_better=True,
            concern="fidelity",
            meaning="How well each column's share of missing values is kept (100: exactly).",
            read=_my_score,
            rule=BelowReference(),
        ),
    ),
    alarms=(Alarm("missing_values_dropped", "fidelity"),),
)
