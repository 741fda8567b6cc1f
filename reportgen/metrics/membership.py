"""The membership-inference section: attacks on every table and entity view (METRICS.md section 13).

Per table (keys dropped) and per entity-level view, the attacks of ``reportgen.privacy.membership``
run on the rows of the shared distance space, with training rows as members and holdout rows as
non-members, so the section needs a holdout. Each view draws from its own named streams
(``membership-targets:<view>``, ``-epsilon``, ``-chance``, ``-plants``).

``compute_membership`` is the public function behind the section: ``report()`` runs the same
per-view code with the same streams, so the two agree on the same inputs and seed.

The headline is the worst case, each number on its own: the highest AUC, the highest TPR at 1% FPR
and the largest epsilon lower bound over every attack and view, each with the view and attack it
comes from. A line compares the worst entity view with the worst table (copying whole entities can
show only at entity level).

The largest of several epsilon bounds is corrected for their number: every view's bounds are
computed at the level that makes all ``3 x views`` bounds of the report hold together with 97.5%
confidence (``reportgen.privacy.membership.epsilon_level``), so the views to be attacked are counted
before any is. The AUC and the TPR are read against their view's chance level (the 95th percentile
of the worst of the three attacks under random relabellings) plus a margin (``reportgen.headlines``).

A claimed differential-privacy guarantee (the ``claimed_epsilon`` and ``claimed_delta`` settings) is
audited against the largest bound at the claimed delta (``EpsilonClaim``): above the claimed epsilon,
the evidence contradicts the claim. The bound is population-level (pooled over random rows), so it
can refute a claim, never confirm one. Without a claim nothing is added and no number changes.
"""

from __future__ import annotations

from pydantic import BaseModel, Field, computed_field

from reportgen.context import DistanceView, EvaluationContext, ViewKind
from reportgen.data.relational import HOLDOUT_ADVICE
from reportgen.metrics.registry import MetricNotComputed, measured_and_skipped
from reportgen.privacy.membership import (
    ATTACKS,
    SELF_TEST_FPR,
    AttackResult,
    MembershipStats,
    membership_stats,
    target_count,
)
from reportgen.results import SectionResult

MIN_TARGETS = 50  # per side: fewer leave every interval too wide to tell anything

NO_HOLDOUT = (
    "the membership attacks need real rows the generator never saw (a holdout) to play the "
    f"non-members, and none was given. {HOLDOUT_ADVICE}"
)


SHARED_TABLE = (
    "its holdout rows are its training rows (a table copied to both sides of the split, such as a lookup "
    "table; for an entity view, its parent table): no row is a non-member"
)


class ViewMembership(BaseModel):
    """The membership attacks on one table or entity view."""

    table: str = Field(description="Table name; entity views end with ' (entity)'.")
    view: ViewKind
    columns: list[str] = Field(description="Columns of the distance space.")
    stats: MembershipStats


class WorstCase(BaseModel):
    """One headline number: its worst value over attacks and views, and where it comes from."""

    value: float
    interval: tuple[float, float] | None = None
    table: str
    attack: str


class EpsilonClaim(BaseModel):
    """A claimed (epsilon, delta)-DP guarantee against the largest empirical bound at the claimed delta."""

    epsilon: float = Field(ge=0, description="The claimed epsilon.")
    delta: float = Field(ge=0, lt=1, description="The claimed delta (0: pure epsilon-DP).")
    lower_bound: float = Field(
        ge=0,
        description=(
            "The largest empirical lower bound on epsilon at the claimed delta over every attack and "
            "view (at delta 0, epsilon_lower itself); all hold together with 97.5% confidence."
        ),
    )
    table: str
    attack: str

    @computed_field  # type: ignore[prop-decorator]
    @property
    def contradicted(self) -> bool:
        """Whether the evidence contradicts the claim: the bound exceeds the claimed epsilon."""
        return self.lower_bound > self.epsilon


class MembershipResult(SectionResult):
    """The attacks on every table and entity view, and the worst case of each headline number."""

    tables: list[ViewMembership]
    auc: WorstCase = Field(description="Highest AUC, with its 95% DeLong interval.")
    tpr_at_1pct_fpr: WorstCase = Field(
        description="Highest TPR at 1% FPR, with its Clopper-Pearson interval."
    )
    epsilon_lower: WorstCase = Field(description="Largest empirical epsilon lower bound.")
    table_auc: WorstCase | None = Field(default=None, description="Highest AUC over the tables.")
    entity_auc: WorstCase | None = Field(default=None, description="Highest AUC over the entity views.")
    sequence_auc: WorstCase | None = Field(default=None, description="Highest AUC over the sequence views.")
    skipped: dict[str, str] = Field(default_factory=dict, description="Views not attacked, and why.")
    claim: EpsilonClaim | None = Field(
        default=None, description="The claimed differential privacy, audited (None: no claim given)."
    )


def compute_membership_section(ctx: EvaluationContext) -> MembershipResult:
    """The membership-inference section of the report."""
    if ctx.test is None:
        raise MetricNotComputed(NO_HOLDOUT)
    measured, skipped = measured_and_skipped(membership_outcomes(ctx))
    tables = [v for v in measured if v.view == "table"]
    entities = [v for v in measured if v.view == "entity"]
    sequences = [v for v in measured if v.view == "sequence"]
    return MembershipResult(
        section="membership",
        tables=measured,
        auc=_worst_auc(measured),
        tpr_at_1pct_fpr=_worst_tpr(measured),
        epsilon_lower=_worst_epsilon(measured),
        table_auc=_worst_auc(tables) if tables else None,
        entity_auc=_worst_auc(entities) if entities else None,
        sequence_auc=_worst_auc(sequences) if sequences else None,
        skipped=skipped,
        claim=epsilon_claim(ctx, measured),
    )


def claimed_delta(ctx: EvaluationContext) -> float:
    """The delta the attacks bound epsilon at besides 0: the claimed one, 0 without a claim."""
    if ctx.settings.claimed_epsilon is None:
        return 0.0
    return float(ctx.settings.claimed_delta or 0.0)


def epsilon_claim(ctx: EvaluationContext, views: list[ViewMembership]) -> EpsilonClaim | None:
    """The claimed (epsilon, delta) against the largest bound at that delta, or None without a claim."""
    if ctx.settings.claimed_epsilon is None:
        return None
    delta = claimed_delta(ctx)

    def bound(attack: AttackResult) -> float:
        at_delta = attack.epsilon_lower_at_delta
        return attack.epsilon_lower if delta == 0 or at_delta is None else at_delta

    view, attack = max(((v, a) for v in views for a in v.stats.attacks), key=lambda va: bound(va[1]))
    return EpsilonClaim(
        epsilon=float(ctx.settings.claimed_epsilon),
        delta=delta,
        lower_bound=bound(attack),
        table=view.table,
        attack=attack.attack,
    )


def _worst_auc(views: list[ViewMembership]) -> WorstCase:
    """The highest AUC of any attack on any of ``views``, with its interval."""
    view, attack = max(((v, a) for v in views for a in v.stats.attacks), key=lambda va: va[1].auc)
    return WorstCase(value=attack.auc, interval=attack.auc_interval, table=view.table, attack=attack.attack)


def _worst_tpr(views: list[ViewMembership]) -> WorstCase:
    view, attack = max(
        ((v, a) for v in views for a in v.stats.attacks), key=lambda va: va[1].at(SELF_TEST_FPR).tpr
    )
    rate = attack.at(SELF_TEST_FPR)
    return WorstCase(value=rate.tpr, interval=rate.tpr_interval, table=view.table, attack=attack.attack)


def _worst_epsilon(views: list[ViewMembership]) -> WorstCase:
    view, attack = max(((v, a) for v in views for a in v.stats.attacks), key=lambda va: va[1].epsilon_lower)
    return WorstCase(value=attack.epsilon_lower, table=view.table, attack=attack.attack)


def membership_outcomes(ctx: EvaluationContext) -> dict[str, ViewMembership | str]:
    """The attacks on every table and entity view, or why a view cannot be attacked (a holdout is given).

    The views that can be attacked are counted first: their ``3 x views`` epsilon bounds share one
    level (``epsilon_level``).
    """
    views = ctx.distance_views()
    reasons = {name: _why_not(ctx, name, view) for name, view in views.items()}
    bounds = len(ATTACKS) * sum(reason is None for reason in reasons.values())
    return {
        name: reason if reason is not None else _view_membership(ctx, name, views[name], bounds)
        for name, reason in reasons.items()
    }


def _why_not(ctx: EvaluationContext, name: str, view: DistanceView) -> str | None:
    """Why a table or entity view cannot be attacked, or None when it can."""
    if ctx.holdout_is_training(ctx.view_table(name)):
        return SHARED_TABLE
    return skip_reason(view, ctx.settings.mia_max_targets)


def _view_membership(ctx: EvaluationContext, name: str, view: DistanceView, bounds: int) -> ViewMembership:
    """The attacks on one table or entity view, its epsilon bounds among ``bounds`` of the report."""
    ctx.progress(f"{name}: membership attacks and self-test")
    stats = membership_stats(
        view.rows,
        lambda part: ctx.rng(f"membership-{part}:{name}"),
        max_targets=ctx.settings.mia_max_targets,
        bounds=bounds,
        delta=claimed_delta(ctx),
    )
    return ViewMembership(table=name, view=view.view, columns=view.columns, stats=stats)


def skip_reason(view: DistanceView, max_targets: int) -> str | None:
    """Why a view cannot be attacked, or None when it can."""
    if view.space.n_features == 0:
        return "no column to compare (only keys, identifiers or free text)"
    rows = view.rows
    n_test = 0 if rows.test is None else len(rows.test)
    if target_count(rows, max_targets) < MIN_TARGETS or len(rows.synth) < MIN_TARGETS:
        return (
            f"too few rows ({len(rows.train):,} training, {n_test:,} holdout, {len(rows.synth):,} "
            f"synthetic; the attacks need {MIN_TARGETS} targets per side, so at least {MIN_TARGETS} "
            f"training, {2 * MIN_TARGETS} holdout and {MIN_TARGETS} synthetic rows)"
        )
    return None
