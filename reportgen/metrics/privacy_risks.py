"""The attacks section: singling out, linkability and attribute inference (METRICS.md section 13).

Per table and per entity-level view, on the rows left by the ``n_max`` caps, with the holdout as
control (``reportgen.privacy.risks`` holds the attacks and says how each number is computed). Without
a holdout the section is not computed: the control is what makes an attack's success a risk.

Defaults the user can change: ``risk_attacks`` targets per side and predicates per singling-out
mode; ``risk_secrets``, the columns inference guesses (default: every column, or ``MAX_SECRETS``
of them drawn at random when a table has more); ``risk_link_columns``, the two column sets of
linkability (default: the columns shuffled, seeded, and cut in halves).

Several attacks, one verdict. The dataset's headline for each attack is the table or view with the
highest risk, and page 1 turns privacy into a concern when the interval of one of the three
headlines lies above 1%. The headlines are chosen by their estimates, so any of the report's risk
intervals can be the one that decides: every one of them, over all tables and entity views, all
three attacks, both singling-out modes and every secret (``M`` in all), is at the level
``1 - 0.05 / M`` (Bonferroni), so that all ``M`` hold together with 95% confidence. A generator
that leaks nothing then makes a lower end exceed its true risk (0) in at most 2.5% of random
train/holdout splits, whatever the number of tables and columns (``benchmarks/bench_false_alarms.py``
measures it). The estimates do not change: within a table, the Wilson centres behind the risk stay at
``1 - 0.05 / m`` for the ``m`` attacks of one kind (two modes, the secrets), as anonymeter computes
a risk at its confidence level.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from reportgen.context import DistanceView, EvaluationContext, ViewKind
from reportgen.data.relational import HOLDOUT_ADVICE
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.metrics.membership import SHARED_TABLE
from reportgen.metrics.registry import MetricNotComputed, measured_and_skipped
from reportgen.privacy.risks import (
    CONFIDENCE,
    MAX_SECRETS,
    MIN_TARGETS,
    AttackData,
    AttackResult,
    Targets,
    inference,
    linkability,
    singling_out,
    with_risk_confidence,
)
from reportgen.results import SectionResult
from reportgen.settings import LinkColumns

NO_HOLDOUT = (
    "these attacks compare training rows with real rows the generator never saw, and no holdout "
    f"data was given. {HOLDOUT_ADVICE}"
)
MODES: tuple[Literal["univariate", "multivariate"], ...] = ("univariate", "multivariate")


class ViewRisks(BaseModel):
    """The three attacks on one table or entity view."""

    table: str = Field(description="Table name; entity views end with ' (entity)'.")
    view: ViewKind
    columns: list[str] = Field(description="The columns the attacks read (those of the distance space).")
    targets: int = Field(ge=1, description="Rows attacked on each side (linkability, inference).")
    population: int = Field(
        ge=1, description="Distinct rows per side in which singling out must isolate one."
    )
    candidates: int = Field(ge=0, description="Candidate multivariate predicates tried.")
    singling_out: list[AttackResult] = Field(description="One result per mode that found a predicate.")
    linkability: AttackResult | None = None
    inference: list[AttackResult] = Field(description="One result per secret column.")

    def results(self) -> list[AttackResult]:
        """Every attack's result on this view: singling out, linkability, inference."""
        return [*self.singling_out, *([self.linkability] if self.linkability else []), *self.inference]

    def worst(self, attack: str) -> AttackResult | None:
        """The result with the highest risk among this view's attacks of one kind (first on ties)."""
        found = {"singling_out": self.singling_out, "inference": self.inference}.get(
            attack, [self.linkability] if self.linkability else []
        )
        return max(found, key=lambda r: r.risk, default=None)


class RiskHeadline(BaseModel):
    """The highest risk of one kind of attack over every table and view, and where it is."""

    risk: float = Field(ge=0, le=1)
    risk_interval: tuple[float, float]
    table: str
    detail: str


class PrivacyRisksResult(SectionResult):
    """Singling out, linkability and inference on every table and view, and the worst of each."""

    tables: list[ViewRisks]
    singling_out: RiskHeadline | None = None
    linkability: RiskHeadline | None = None
    inference: RiskHeadline | None = None
    skipped: dict[str, str] = Field(default_factory=dict, description="Tables not attacked, and why.")
    intervals: int | None = Field(
        default=None,
        description="M: the risk intervals of every table and view, each at the level 1 - 5%/M (None: "
        "results written before the report-wide correction).",
    )


def compute_privacy_risks_section(ctx: EvaluationContext) -> PrivacyRisksResult:
    """The attacks section of the report."""
    if ctx.test is None:
        raise MetricNotComputed(NO_HOLDOUT)
    measured, skipped = measured_and_skipped(risk_outcomes(ctx))
    return PrivacyRisksResult(
        section="privacy_risks",
        tables=measured,
        singling_out=_headline(measured, "singling_out"),
        linkability=_headline(measured, "linkability"),
        inference=_headline(measured, "inference"),
        skipped=skipped,
        intervals=interval_count(measured),
    )


def interval_count(views: Sequence[ViewRisks]) -> int:
    """M: the risk intervals that can decide the verdict, over every view, attack, mode and secret."""
    return sum(len(view.results()) for view in views)


def report_wide(views: Sequence[ViewRisks]) -> list[ViewRisks]:
    """The views with every risk interval at ``1 - 0.05 / M``, so that all ``M`` hold together."""
    level = _family_level(interval_count(views))
    return [
        view.model_copy(
            update={
                "singling_out": [with_risk_confidence(r, level) for r in view.singling_out],
                "linkability": view.linkability and with_risk_confidence(view.linkability, level),
                "inference": [with_risk_confidence(r, level) for r in view.inference],
            }
        )
        for view in views
    ]


def _headline(views: list[ViewRisks], attack: str) -> RiskHeadline | None:
    found = [(view.table, result) for view in views if (result := view.worst(attack)) is not None]
    if not found:
        return None
    table, result = max(found, key=lambda item: item[1].risk)
    return RiskHeadline(
        risk=result.risk, risk_interval=result.risk_interval, table=table, detail=result.detail
    )


def risk_outcomes(ctx: EvaluationContext) -> dict[str, ViewRisks | str]:
    """The three attacks on every table and entity view, or why it cannot be attacked (a holdout is given).

    The intervals are corrected across every view returned (``report_wide``), as the report's are.
    """
    found = {name: _view_risks(ctx, name, view) for name, view in ctx.distance_views().items()}
    corrected = iter(report_wide([risks for risks in found.values() if isinstance(risks, ViewRisks)]))
    return {name: next(corrected) if isinstance(risks, ViewRisks) else risks for name, risks in found.items()}


def _view_risks(ctx: EvaluationContext, name: str, view: DistanceView) -> ViewRisks | str:
    """The three attacks on one table or entity view, or why it cannot be attacked."""
    if ctx.holdout_is_training(ctx.view_table(name)):
        return SHARED_TABLE
    if view.space.n_features == 0:
        return "no column to attack (only keys, identifiers or free text)"
    rows = view.rows
    assert rows.test is not None
    smallest = min(len(rows.train), len(rows.test), len(rows.synth))
    if smallest < MIN_TARGETS:
        return (
            f"too few rows ({len(rows.train):,} training, {len(rows.test):,} holdout, "
            f"{len(rows.synth):,} synthetic; the attacks need at least {MIN_TARGETS} of each)"
        )
    embedded = {TRAIN: rows.train, TEST: rows.test, SYNTH: rows.synth}
    data = AttackData.build(view.frames, view.kinds, view.space, embedded)
    settings = ctx.settings
    targets = Targets.draw(data, settings.risk_attacks, ctx.rng(f"risks:{name}"))
    ctx.progress(f"{name}: singling out")
    found, candidates = _singling_out(ctx, name, data, targets)
    ctx.progress(f"{name}: linkability")
    link_rng = ctx.rng(f"linkability:{name}")
    sets = _link_sets(data.columns, settings.risk_link_columns, link_rng)
    linked = None if sets is None else linkability(data, targets, sets, link_rng)
    ctx.progress(f"{name}: inference")
    return ViewRisks(
        table=name,
        view=view.view,
        columns=list(data.columns),
        targets=len(targets.members),
        population=len(targets.member_population),
        candidates=candidates,
        singling_out=found,
        linkability=linked,
        inference=_inference(ctx, name, data, targets),
    )


def _singling_out(
    ctx: EvaluationContext, name: str, data: AttackData, targets: Targets
) -> tuple[list[AttackResult], int]:
    rng = ctx.rng(f"singling-out:{name}")
    level = _family_level(len(MODES))
    found, candidates = [], 0
    for mode in MODES:
        result, tried = singling_out(data, targets, mode, ctx.settings.risk_attacks, rng, confidence=level)
        candidates += tried
        if result is not None:
            found.append(result)
    return found, candidates


def _inference(ctx: EvaluationContext, name: str, data: AttackData, targets: Targets) -> list[AttackResult]:
    rng = ctx.rng(f"inference:{name}")
    secrets = _secrets(data.columns, ctx.settings.risk_secrets, rng)
    level = _family_level(len(secrets))
    found = (inference(data, targets, j, rng, confidence=level) for j in secrets)
    return [result for result in found if result is not None]


def _family_level(m: int) -> float:
    """The confidence of each of ``m`` intervals that hold together with 95% confidence (Bonferroni)."""
    return 1 - (1 - CONFIDENCE) / max(m, 1)


def _secrets(columns: Sequence[str], named: Sequence[str] | None, rng: np.random.Generator) -> list[int]:
    """The named secrets this table holds; else every column, or ``MAX_SECRETS`` drawn at random."""
    chosen = [j for j, column in enumerate(columns) if named and column in named]
    if chosen:
        return chosen
    if len(columns) <= MAX_SECRETS:
        return list(range(len(columns)))
    return sorted(int(j) for j in rng.choice(len(columns), MAX_SECRETS, replace=False))


def _link_sets(
    columns: Sequence[str], named: LinkColumns, rng: np.random.Generator
) -> tuple[list[int], list[int]] | None:
    """The user's two column sets where this table holds some of each; else a seeded split in halves."""
    if named is not None:
        sets = tuple([j for j, column in enumerate(columns) if column in part] for part in named)
        if sets[0] and sets[1]:
            return sets[0], sets[1]
    if len(columns) < 2:
        return None
    order = rng.permutation(len(columns))
    half = (len(columns) + 1) // 2
    return sorted(int(j) for j in order[:half]), sorted(int(j) for j in order[half:])
