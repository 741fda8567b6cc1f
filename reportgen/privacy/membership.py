"""Membership inference attacks on synthetic data, with intervals and a self-test (METRICS.md 13).

The threat: an attacker holds the synthetic data ``S`` and real rows from the same population, and
wants to tell whether a given real row was in the training data ``T``. Training rows are the
members, holdout rows ``H`` the non-members. ``H`` is split once (seeded): ``n`` rows become the
non-member targets ``H_tgt``, the rest the attacker's real reference ``H_ref``; ``n`` training rows
drawn at random are the member targets. ``n = min(max_targets, |H| // 2, |T|)``, so ``H_ref`` is at
least as large as ``H_tgt``.

Each attack scores every target, higher meaning "member", from two exact searches in the shared
distance space (``reportgen.privacy.neighbours.knn``): the targets' nearest synthetic rows and their
nearest ``H_ref`` rows.

- ``dcr``: minus the distance to the closest synthetic row;
- ``dcr_ratio``: minus that distance divided by the distance to the closest ``H_ref`` row (a row
  that is close to the synthetic data only because it sits in a dense region is close to real
  rows too);
- ``density_ratio``: ``p_S(x) / p_ref(x)`` (DOMIAS, van Breugel et al. 2023) by k-nearest-neighbour
  density estimates ``p(x) = k / (N V_d r_k(x)^d)``. The k-th neighbour distances are taken so that
  both balls hold the same share of their set: ``k_ref = 5`` in ``H_ref`` and ``k_S = round(5 |S| /
  |H_ref|)`` in ``S``. The estimate of the ratio is then ``(r_ref / r_S)^d`` (times a constant), whose
  order over targets is that of ``r_ref / r_S`` whatever the dimension ``d``: the score is that ratio,
  so no dimension is estimated. Distances of 0 get the proximity ratios' ``eps`` rule.

Each attack is measured by its ROC over the thresholds "score at least t": AUC with DeLong's
interval, the TPR at FPR 0.1%, 1% and 10% (the best TPR among thresholds whose FPR on the targets
is at most the level, with the FPR of the tightest threshold that reaches it) with Clopper-Pearson
intervals, the advantage ``max(TPR - FPR)``, and the empirical epsilon lower bound
(``reportgen.privacy.intervals``): the targets are split in halves (stratified, seeded), the
threshold and direction with the largest bound on one half are chosen, and the bound is evaluated
on the other half, so it is not fitted to the data it reports on.

What the epsilon bound is: a lower bound on the epsilon of pure epsilon-differential privacy
(delta = 0) that the release could claim, shown on the population level: the targets are random
rows of a random train/holdout split, so it bounds how far the synthetic data sets a typical
training row apart from a typical unseen one, not the worst case over records and datasets that a
privacy guarantee covers (0 does not mean the release is private). Each bound rests on two
one-sided Clopper-Pearson bounds (TPR low, FPR high) and fails only when one of them does. A report
takes the largest of ``bounds`` of them (three attacks per view), so each Clopper-Pearson bound is
at ``1 - (1 - EPSILON_CONFIDENCE) / (2 bounds)`` (``epsilon_level``): every bound, and so the largest,
holds together with ``EPSILON_CONFIDENCE``, 97.5%. The other 2.5% of the report's 5% false-alarm
budget is the risk intervals' (``reportgen.metrics.privacy_risks``).

A claimed (epsilon, delta) with delta above 0 adds, per attack, the bound of (epsilon, delta)-DP at
that delta (``epsilon_lower_at_delta``), chosen on the same half and at the same level as the pure
bound, which the claim is then audited against (``reportgen.metrics.membership``).

The self-test plants training rows into ``S`` and runs the attacks again. A plant of a share ``p``
of ``|S|`` stands for ``p |S|`` copied training rows, of which only those among the member targets
can be seen: it plants ``round(p |S| n / |T|)`` member targets (at least 1), at random or the most
outlying ones (largest distance to the closest ``H_ref`` row). The planted distances are merged
into the existing neighbour lists, so no search is repeated. The chance level is the 95th
percentile, over 200 random relabellings of the same targets, of the worst attack's TPR at 1% FPR
and AUC: an attack result above it is distinguishable from chance at these sample sizes.

Only counts, rates and their intervals leave this module: never a target's score or row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from reportgen.privacy.distance_space import EmbeddedRows
from reportgen.privacy.intervals import (
    CONFIDENCE,
    clopper_pearson,
    delong_auc,
    epsilon_lower_bounds,
    normal_interval,
)
from reportgen.privacy.neighbours import knn
from reportgen.privacy.proximity import safe_ratio
from reportgen.settings import MIA_MAX_TARGETS

AttackName = Literal["dcr", "dcr_ratio", "density_ratio"]
ATTACKS: tuple[AttackName, ...] = ("dcr", "dcr_ratio", "density_ratio")
DENSITY_K = 5  # neighbours in H_ref behind the density estimate
FPR_LEVELS = (0.001, 0.01, 0.1)
SELF_TEST_FPR = 0.01
PLANT_SHARES = (0.005, 0.01, 0.05)
PlantKind = Literal["random", "outlying"]
PLANT_KINDS: tuple[PlantKind, ...] = ("random", "outlying")
N_RELABELLINGS = 200
CHANCE_QUANTILE = 0.95
N_ROC_POINTS = 60  # points of each stored ROC curve, log-spaced in FPR
EPSILON_CONFIDENCE = 0.975  # every epsilon bound of a report together (half the 5% false-alarm budget)

Streams = Callable[[str], np.random.Generator]
"""A seeded generator per named part: "targets", "epsilon", "plants" and "chance"."""


class RateAtFpr(BaseModel):
    """The best TPR of an attack among the thresholds whose FPR is at most ``fpr``."""

    fpr: float = Field(gt=0, lt=1, description="The FPR level.")
    achieved_fpr: float = Field(
        ge=0,
        le=1,
        description="The FPR on the targets of the tightest threshold that reaches that TPR.",
    )
    tpr: float = Field(ge=0, le=1)
    tpr_interval: tuple[float, float] = Field(description="Two-sided 95% Clopper-Pearson interval.")


class RocCurve(BaseModel):
    """The best TPR at FPR at most each of a few log-spaced levels (for the figure)."""

    fpr: list[float]
    tpr: list[float]


class AttackResult(BaseModel):
    """How well one attack tells member targets from non-member targets."""

    attack: AttackName
    auc: float = Field(ge=0, le=1, description="Area under the ROC curve; 0.5 is chance.")
    auc_std: float = Field(ge=0, description="DeLong standard error.")
    auc_interval: tuple[float, float] = Field(description="95% interval, AUC ± 1.96 std, within [0, 1].")
    rates: list[RateAtFpr] = Field(description="TPR at FPR 0.1%, 1% and 10%.")
    advantage: float = Field(ge=0, le=1, description="max over thresholds of TPR - FPR.")
    epsilon_lower: float = Field(
        ge=0,
        description="Empirical epsilon lower bound (split halves; its level: see epsilon_bounds).",
    )
    epsilon_rule: Literal["tpr/fpr", "tnr/fnr"] = Field(description="Which of the two bounds it is.")
    roc: RocCurve
    epsilon_lower_at_delta: float | None = Field(
        default=None,
        ge=0,
        description=(
            "Empirical lower bound on the epsilon of (epsilon, delta)-DP at the claimed delta, chosen and "
            "measured as epsilon_lower (None: no claim with a delta above 0)."
        ),
    )

    def at(self, fpr: float) -> RateAtFpr:
        """The rate at an FPR level of ``FPR_LEVELS``."""
        return next(r for r in self.rates if r.fpr == fpr)


class ChanceLevels(BaseModel):
    """What chance alone reaches at these sample sizes: the worst attack under random labels."""

    relabellings: int
    quantile: float
    auc: float = Field(ge=0, le=1)
    tpr_at_1pct_fpr: float = Field(ge=0, le=1)


class PlantResult(BaseModel):
    """The attacks after planting training rows into the synthetic data."""

    kind: PlantKind
    share: float = Field(gt=0, lt=1, description="Share of |S| the plant stands for.")
    planted: int = Field(ge=1, description="Member targets planted.")
    attack: AttackName = Field(description="The attack with the highest TPR at 1% FPR.")
    tpr_at_1pct_fpr: float = Field(ge=0, le=1)
    tpr_interval: tuple[float, float]
    auc: float = Field(ge=0, le=1, description="Highest AUC of the attacks.")
    detected: bool = Field(description="TPR at 1% FPR above the chance level.")


class SelfTest(BaseModel):
    """The chance level and what each plant reaches."""

    chance: ChanceLevels
    plants: list[PlantResult]

    @property
    def smallest_detected(self) -> dict[str, float | None]:
        """Per kind of plant, the smallest share detected (None: none was)."""
        return {
            kind: min((p.share for p in self.plants if p.kind == kind and p.detected), default=None)
            for kind in PLANT_KINDS
        }


class MembershipStats(BaseModel):
    """The membership attacks on one table or entity view."""

    targets: int = Field(description="Targets per side (members, and non-members).")
    training_rows: int
    reference_rows: int = Field(description="Holdout rows the attacker uses as reference (H_ref).")
    synthetic_rows: int
    k_reference: int = Field(description="k of the density estimate in H_ref.")
    k_synthetic: int = Field(description="k of the density estimate in S (the same share of the set).")
    attacks: list[AttackResult]
    worst_attack: AttackName = Field(description="The attack with the highest AUC.")
    self_test: SelfTest
    epsilon_bounds: int | None = Field(
        default=None,
        description=(
            "The epsilon bounds the report takes the largest of (attacks x views): each rests on "
            "one-sided Clopper-Pearson bounds at 1 - 2.5% / (2 x epsilon_bounds), so all hold together "
            "with 97.5% confidence. None: each at 95% (results written before this correction)."
        ),
    )

    @property
    def worst(self) -> AttackResult:
        return self.attack(self.worst_attack)

    @property
    def highest_tpr_at_1pct_fpr(self) -> float:
        """The highest TPR at 1% FPR of the attacks (the statistic the self-test's chance level is of)."""
        return max(a.at(SELF_TEST_FPR).tpr for a in self.attacks)

    def attack(self, name: str) -> AttackResult:
        return next(a for a in self.attacks if a.attack == name)


@dataclass(frozen=True)
class Targets:
    """The member targets (first ``n`` rows), the non-member targets, and the attacker's reference."""

    rows: np.ndarray
    n: int
    reference: np.ndarray

    @property
    def is_member(self) -> np.ndarray:
        return np.arange(2 * self.n) < self.n


@dataclass(frozen=True)
class Neighbours:
    """Each target's ``k_S`` nearest synthetic distances and ``k_ref`` nearest reference distances."""

    synth: np.ndarray
    reference: np.ndarray


def target_count(rows: EmbeddedRows, max_targets: int = MIA_MAX_TARGETS) -> int:
    """Targets per side: ``min(max_targets, |H| // 2, |T|)``."""
    n_test = 0 if rows.test is None else len(rows.test)
    return min(max_targets, n_test // 2, len(rows.train))


def epsilon_level(bounds: int) -> float:
    """The level of each one-sided Clopper-Pearson bound behind ``bounds`` epsilon bounds.

    Each epsilon bound rests on two, so all ``bounds`` hold together with ``EPSILON_CONFIDENCE``.
    """
    return 1 - (1 - EPSILON_CONFIDENCE) / (2 * max(bounds, 1))


def membership_stats(
    rows: EmbeddedRows,
    streams: Streams,
    *,
    max_targets: int = MIA_MAX_TARGETS,
    bounds: int = len(ATTACKS),
    delta: float = 0.0,
) -> MembershipStats:
    """Every attack on one table's (or view's) embedded rows, with the self-test.

    ``bounds``: the epsilon bounds the report takes the largest of (three per view attacked);
    ``delta``: a claimed delta above 0 adds each attack's bound at that delta (the pure bounds, and
    every other number, are the same with or without it).
    """
    targets = draw_targets(rows, streams("targets"), max_targets)
    neighbours = search_neighbours(targets, rows.synth)
    scores = attack_scores(neighbours)
    halves = stratified_halves(targets, streams("epsilon"))
    level = epsilon_level(bounds)
    attacks = [
        evaluate_attack(name, scores[name], targets.is_member, halves, level, delta=delta) for name in ATTACKS
    ]
    chance = chance_levels(scores, targets.is_member, streams("chance"))
    plants = self_test_plants(targets, neighbours, rows, chance, streams("plants"))
    return MembershipStats(
        targets=targets.n,
        training_rows=len(rows.train),
        reference_rows=len(targets.reference),
        synthetic_rows=len(rows.synth),
        k_reference=DENSITY_K,
        k_synthetic=neighbours.synth.shape[1],
        attacks=attacks,
        worst_attack=max(attacks, key=lambda a: a.auc).attack,
        self_test=SelfTest(chance=chance, plants=plants),
        epsilon_bounds=bounds,
    )


def draw_targets(rows: EmbeddedRows, rng: np.random.Generator, max_targets: int) -> Targets:
    """``n`` random training rows, ``n`` random holdout rows, and the other holdout rows as reference."""
    assert rows.test is not None
    n = target_count(rows, max_targets)
    holdout = rng.permutation(len(rows.test))
    members = np.sort(rng.choice(len(rows.train), size=n, replace=False))
    return Targets(
        rows=np.concatenate([rows.train[members], rows.test[np.sort(holdout[:n])]]),
        n=n,
        reference=rows.test[np.sort(holdout[n:])],
    )


def search_neighbours(targets: Targets, synth: np.ndarray) -> Neighbours:
    """The two exact searches every attack reads: the targets into ``S`` and into ``H_ref``.

    ``k_S = round(DENSITY_K x |S| / |H_ref|)``, so that the density estimate's balls hold the same
    share of ``S`` as of ``H_ref``.
    """
    k_synth = min(len(synth), max(1, round(DENSITY_K * len(synth) / len(targets.reference))))
    return Neighbours(
        knn(targets.rows, synth, k=k_synth)[0].astype(np.float64),
        knn(targets.rows, targets.reference, k=DENSITY_K)[0].astype(np.float64),
    )


def attack_scores(neighbours: Neighbours) -> dict[AttackName, np.ndarray]:
    """Each attack's score of every target (higher = "member")."""
    dcr, dcr_ref = neighbours.synth[:, 0], neighbours.reference[:, 0]
    return {
        "dcr": -dcr,
        "dcr_ratio": -safe_ratio(dcr, dcr_ref),
        "density_ratio": safe_ratio(neighbours.reference[:, -1], neighbours.synth[:, -1]),
    }


def stratified_halves(targets: Targets, rng: np.random.Generator) -> np.ndarray:
    """A mask of half the members and half the non-members (the half that picks the threshold)."""
    half = np.zeros(2 * targets.n, dtype=bool)
    half[rng.permutation(targets.n)[: targets.n // 2]] = True
    half[targets.n + rng.permutation(targets.n)[: targets.n // 2]] = True
    return half


@dataclass(frozen=True)
class Ranking:
    """Targets ordered by score, highest first; a threshold sits after each run of equal scores."""

    order: np.ndarray
    ends: np.ndarray
    thresholds: np.ndarray

    @classmethod
    def of(cls, scores: np.ndarray) -> Ranking:
        order = np.argsort(-scores, kind="stable")
        ranked = scores[order]
        ends = np.flatnonzero(np.r_[ranked[1:] != ranked[:-1], True])
        return cls(order, ends, ranked[ends])

    def counts(self, is_member: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Members and non-members scoring at least each threshold (TP and FP counts)."""
        tp = np.cumsum(is_member[self.order])[self.ends]
        return tp, self.ends + 1 - tp


def evaluate_attack(
    name: AttackName,
    scores: np.ndarray,
    is_member: np.ndarray,
    half: np.ndarray,
    epsilon_confidence: float = CONFIDENCE,
    *,
    delta: float = 0.0,
) -> AttackResult:
    """ROC, AUC with its interval, rates at low FPR, advantage and the epsilon bound of one attack.

    ``epsilon_confidence``: the level of each one-sided Clopper-Pearson bound behind the epsilon bound;
    ``delta`` above 0: the bound at that delta too (``epsilon_lower_at_delta``), chosen on the same half.
    """
    n_pos, n_neg = int(is_member.sum()), int((~is_member).sum())
    tp, fp = Ranking.of(scores).counts(is_member)
    auc, std = delong_auc(scores[is_member], scores[~is_member])
    epsilon, rule = split_epsilon(scores, is_member, half, epsilon_confidence)
    grid = np.geomspace(1 / n_neg, 1, N_ROC_POINTS)
    return AttackResult(
        attack=name,
        auc=auc,
        auc_std=std,
        auc_interval=normal_interval(auc, std),
        rates=[rate_at(tp, fp, n_pos, n_neg, level) for level in FPR_LEVELS],
        advantage=max(0.0, float(np.max(tp / n_pos - fp / n_neg))),
        epsilon_lower=epsilon,
        epsilon_rule=rule,
        roc=RocCurve(fpr=grid.tolist(), tpr=[_best_tp(tp, fp, x * n_neg)[0] / n_pos for x in grid]),
        epsilon_lower_at_delta=(
            split_epsilon(scores, is_member, half, epsilon_confidence, delta)[0] if delta > 0 else None
        ),
    )


def rate_at(tp: np.ndarray, fp: np.ndarray, n_pos: int, n_neg: int, level: float) -> RateAtFpr:
    """The best TPR among thresholds with at most ``level x n_neg`` false positives, with its interval."""
    hits, false = _best_tp(tp, fp, level * n_neg)
    low, high = clopper_pearson(hits, n_pos)
    return RateAtFpr(
        fpr=level, achieved_fpr=false / n_neg, tpr=hits / n_pos, tpr_interval=(float(low), float(high))
    )


def _best_tp(tp: np.ndarray, fp: np.ndarray, allowed: float) -> tuple[int, int]:
    """(TP, FP) of the tightest threshold reaching the most TP with at most ``allowed`` false positives.

    Thresholds that only add non-members keep the TP count and raise the FP count: of those equally
    good thresholds the tightest (fewest false positives) is the one reported. No true positive at
    all: (0, 0), the threshold above every score.
    """
    j = int(np.searchsorted(fp, np.floor(allowed + 1e-9), side="right")) - 1
    if j < 0 or tp[j] == 0:
        return 0, 0
    first = int(np.searchsorted(tp, tp[j], side="left"))  # tp never falls: the first threshold with as many
    return int(tp[j]), int(fp[first])


def split_epsilon(
    scores: np.ndarray,
    is_member: np.ndarray,
    half: np.ndarray,
    confidence: float = CONFIDENCE,
    delta: float = 0.0,
) -> tuple[float, Literal["tpr/fpr", "tnr/fnr"]]:
    """The epsilon bound of the threshold and direction chosen on ``half``, measured on the rest.

    Both halves use one-sided Clopper-Pearson bounds at ``confidence``, of (epsilon, ``delta``)-DP.
    """
    ranking = Ranking.of(scores[half])
    tp, fp = ranking.counts(is_member[half])
    sizes = _sizes(is_member[half])
    picked = np.vstack(epsilon_lower_bounds(tp, fp, *sizes, confidence=confidence, delta=delta))
    rule, j = np.unravel_index(int(np.argmax(picked)), picked.shape)
    rest = ~half
    called = scores[rest] >= ranking.thresholds[j]
    member = is_member[rest]
    bounds = epsilon_lower_bounds(
        int((called & member).sum()),
        int((called & ~member).sum()),
        *_sizes(member),
        confidence=confidence,
        delta=delta,
    )
    return float(bounds[rule]), ("tpr/fpr", "tnr/fnr")[rule]


def _sizes(is_member: np.ndarray) -> tuple[int, int]:
    return int(is_member.sum()), int((~is_member).sum())


def chance_levels(
    scores: dict[AttackName, np.ndarray], is_member: np.ndarray, rng: np.random.Generator
) -> ChanceLevels:
    """The 95th percentiles of the worst attack's TPR at 1% FPR and AUC over random relabellings."""
    rankings = {name: Ranking.of(s) for name, s in scores.items()}
    n_pos, n_neg = _sizes(is_member)
    worst_tpr, worst_auc = np.zeros(N_RELABELLINGS), np.zeros(N_RELABELLINGS)
    for r in range(N_RELABELLINGS):
        labels = rng.permutation(is_member)
        for ranking in rankings.values():
            tp, fp = ranking.counts(labels)
            worst_tpr[r] = max(worst_tpr[r], _best_tp(tp, fp, SELF_TEST_FPR * n_neg)[0] / n_pos)
            worst_auc[r] = max(worst_auc[r], _auc(tp, fp, n_pos, n_neg))
    return ChanceLevels(
        relabellings=N_RELABELLINGS,
        quantile=CHANCE_QUANTILE,
        auc=float(np.quantile(worst_auc, CHANCE_QUANTILE)),
        tpr_at_1pct_fpr=float(np.quantile(worst_tpr, CHANCE_QUANTILE)),
    )


def _auc(tp: np.ndarray, fp: np.ndarray, n_pos: int, n_neg: int) -> float:
    """The AUC from the counts at every threshold (trapezoids: ties count one half)."""
    tpr = np.r_[0, tp] / n_pos
    fpr = np.r_[0, fp] / n_neg
    return float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))


def self_test_plants(
    targets: Targets,
    neighbours: Neighbours,
    rows: EmbeddedRows,
    chance: ChanceLevels,
    rng: np.random.Generator,
) -> list[PlantResult]:
    """The attacks after each plant: every share, of random and of the most outlying member targets.

    Plants of one kind are nested (the first rows of one random order, or of the outlying order),
    so that a larger plant adds to a smaller one.
    """
    orders = {
        "random": rng.permutation(targets.n),
        "outlying": np.argsort(-neighbours.reference[: targets.n, 0], kind="stable"),
    }
    plants = [
        (kind, share, orders[kind][: _plant_count(share, targets, rows)])
        for kind in PLANT_KINDS
        for share in PLANT_SHARES
    ]
    merged = planted_neighbours(targets, neighbours, [chosen for _, _, chosen in plants])
    return [
        _plant_result(kind, share, len(chosen), Neighbours(synth, neighbours.reference), targets, chance)
        for (kind, share, chosen), synth in zip(plants, merged, strict=True)
    ]


def _plant_count(share: float, targets: Targets, rows: EmbeddedRows) -> int:
    """Member targets a plant of ``share x |S|`` training rows puts in ``S``, in expectation (at least 1)."""
    return min(targets.n, max(1, round(share * len(rows.synth) * targets.n / len(rows.train))))


def planted_neighbours(
    targets: Targets, neighbours: Neighbours, plants: list[np.ndarray]
) -> list[np.ndarray]:
    """Each target's ``k_S`` nearest synthetic distances once each plant (member targets) joins ``S``.

    One search finds every target's ``k_S`` nearest rows among all planted rows together. For a
    plant, its rows among them are merged with the synthetic distances. That is exact wherever the
    ``k_S``-th planted distance is at least the ``k_S``-th synthetic one (a planted row left out of the
    search cannot enter the merged list); the other targets are searched again against the plant.
    """
    union = np.unique(np.concatenate(plants))
    k = neighbours.synth.shape[1]
    distances, found = knn(targets.rows, targets.rows[union], k=min(k, len(union)))
    found = union[found]
    unsure = np.flatnonzero((len(union) > k) & (distances[:, -1] < neighbours.synth[:, -1]))
    merged = []
    for plant in plants:
        planted = np.where(np.isin(found, plant), distances, np.inf)
        synth = _smallest(neighbours.synth, planted, k)
        if len(unsure):
            again = knn(targets.rows[unsure], targets.rows[plant], k=min(k, len(plant)))[0]
            synth[unsure] = _smallest(neighbours.synth[unsure], again, k)
        merged.append(synth)
    return merged


def _smallest(a: np.ndarray, b: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` smallest values of each row of ``a`` and ``b`` together, sorted."""
    return np.sort(np.hstack([a, b.astype(np.float64)]), axis=1)[:, :k]


def _plant_result(
    kind: PlantKind,
    share: float,
    planted: int,
    neighbours: Neighbours,
    targets: Targets,
    chance: ChanceLevels,
) -> PlantResult:
    """The best TPR at 1% FPR over the attacks once a plant is in ``S``, and whether chance reaches it."""
    scores = attack_scores(neighbours)
    is_member = targets.is_member
    n_pos, n_neg = _sizes(is_member)
    best: tuple[int, AttackName] = (-1, "dcr")
    aucs = []
    for name in ATTACKS:
        tp, fp = Ranking.of(scores[name]).counts(is_member)
        best = max(best, (_best_tp(tp, fp, SELF_TEST_FPR * n_neg)[0], name), key=lambda b: b[0])
        aucs.append(_auc(tp, fp, n_pos, n_neg))
    low, high = clopper_pearson(best[0], n_pos)
    return PlantResult(
        kind=kind,
        share=share,
        planted=planted,
        attack=best[1],
        tpr_at_1pct_fpr=best[0] / n_pos,
        tpr_interval=(float(low), float(high)),
        auc=max(aucs),
        detected=best[0] / n_pos > chance.tpr_at_1pct_fpr,
    )
