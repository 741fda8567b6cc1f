"""Membership attacks on embedded rows the tests generate: known answers, exactness, determinism."""

import numpy as np
import pytest

from reportgen.privacy.distance_space import EmbeddedRows
from reportgen.privacy.intervals import delong_auc
from reportgen.privacy.membership import (
    ATTACKS,
    FPR_LEVELS,
    N_ROC_POINTS,
    MembershipStats,
    Neighbours,
    Ranking,
    _auc,
    draw_targets,
    epsilon_level,
    membership_stats,
    planted_neighbours,
    rate_at,
    split_epsilon,
)
from reportgen.privacy.neighbours import brute_force_knn, knn


def streams(seed: int = 0):
    return lambda part: np.random.default_rng([seed, sum(map(ord, part))])


def gaussian(n: int, rng: np.random.Generator, d: int = 6) -> np.ndarray:
    return rng.normal(size=(n, d)).astype(np.float32)


@pytest.fixture(scope="module")
def population():
    rng = np.random.default_rng(0)
    return gaussian(3000, rng), gaussian(4000, rng), gaussian(3000, rng)


def attacks_on(train, test, synth, seed: int = 0) -> MembershipStats:
    return membership_stats(EmbeddedRows(train, synth, test), streams(seed))


@pytest.fixture(scope="module")
def fresh_stats(population):
    train, test, fresh = population
    return attacks_on(train, test, fresh)


def test_a_fresh_sample_is_indistinguishable_from_chance(fresh_stats):
    stats = fresh_stats
    assert stats.targets == 2000 and stats.reference_rows == 2000
    assert stats.k_synthetic == round(5 * 3000 / 2000)
    for attack in stats.attacks:
        low, high = attack.auc_interval
        assert low < 0.5 < high, attack
        assert 0.002 <= attack.at(0.01).tpr <= 0.025, attack
        assert attack.epsilon_lower < 0.5
    chance = stats.self_test.chance
    assert 0.5 < chance.auc < 0.53 and 0.01 < chance.tpr_at_1pct_fpr < 0.025


@pytest.mark.parametrize("noise", [0.0, 1e-3])
def test_copies_of_the_training_rows_are_caught(population, noise):
    train, test, _ = population
    copies = train + np.float32(noise) * np.random.default_rng(1).normal(size=train.shape).astype(np.float32)
    stats = attacks_on(train, test, copies)
    worst = stats.worst
    assert worst.auc > 0.95 and worst.auc_interval[0] > 0.9
    assert worst.at(0.001).tpr > 0.9 and worst.at(0.01).tpr_interval[0] > 0.9
    assert max(a.epsilon_lower for a in stats.attacks) > 4
    assert all(p.detected for p in stats.self_test.plants)


def test_the_self_test_detects_a_5_percent_plant_and_reports_it_in_counts(fresh_stats):
    stats = fresh_stats
    plants = {(p.kind, p.share): p for p in stats.self_test.plants}
    assert [p.planted for p in stats.self_test.plants] == [10, 20, 100] * 2  # 2000 of 3000 rows are targets
    assert plants[("random", 0.05)].detected and plants[("outlying", 0.05)].detected
    assert plants[("random", 0.05)].tpr_at_1pct_fpr > 0.05 - 0.01
    assert stats.self_test.smallest_detected["random"] is not None


def test_planted_neighbours_equal_a_search_of_the_grown_synthetic_set(population):
    train, test, fresh = population
    rng = np.random.default_rng(5)
    rows = EmbeddedRows(train[:400], fresh[:150], test[:800])
    targets = draw_targets(rows, rng, 400)
    k = 4
    neighbours = Neighbours(knn(targets.rows, rows.synth, k=k)[0].astype(np.float64), np.zeros((800, 1)))
    plants = [np.arange(3), rng.choice(400, 60, replace=False), np.arange(400)]
    for plant, merged in zip(plants, planted_neighbours(targets, neighbours, plants), strict=True):
        grown = np.concatenate([rows.synth, targets.rows[plant]])
        assert np.array_equal(merged, brute_force_knn(targets.rows, grown, k=k)[0].astype(np.float64))


def test_rates_read_the_roc_step_at_the_level():
    scores = np.array([9, 8, 8, 7, 6, 5, 5, 4, 3, 2], dtype=float)
    member = np.array([1, 1, 0, 1, 0, 1, 0, 0, 0, 0], dtype=bool)
    tp, fp = Ranking.of(scores).counts(member)
    assert tp.tolist() == [1, 2, 3, 3, 4, 4, 4, 4] and fp.tolist() == [0, 1, 1, 2, 3, 4, 5, 6]
    assert rate_at(tp, fp, 4, 6, 0.1).tpr == 0.25  # no false positive allowed: only the 9
    assert rate_at(tp, fp, 4, 6, 0.2).tpr == 0.75  # one allowed: the tie at 8 and the 7
    assert _auc(tp, fp, 4, 6) == pytest.approx(delong_auc(scores[member], scores[~member])[0])


def test_the_fpr_reported_is_that_of_the_tightest_threshold_reaching_the_tpr():
    # 3 members score highest, then a non-member, then more: the thresholds "score >= 7" (FPR 0)
    # and ">= 6" (FPR 20%) catch the same 3 members, as ">= 4" (FPR 40%) and ">= 3" (60%) catch 4
    scores = np.array([9, 8, 7, 6, 5, 4, 3, 2, 1, 0], dtype=float)
    member = np.array([1, 1, 1, 0, 0, 1, 0, 0, 0, 1], dtype=bool)
    tp, fp = Ranking.of(scores).counts(member)
    rate = rate_at(tp, fp, 5, 5, 0.2)
    assert (rate.tpr, rate.achieved_fpr) == (0.6, 0.0)
    rate = rate_at(tp, fp, 5, 5, 0.6)
    assert (rate.tpr, rate.achieved_fpr) == (0.8, 0.4)
    non_member_first = Ranking.of(scores).counts(np.roll(member, 3))  # scores 9 and 8: non-members
    rate = rate_at(*non_member_first, 5, 5, 0.1)  # no false positive allowed: nothing is called a member
    assert (rate.tpr, rate.achieved_fpr) == (0.0, 0.0)


def test_same_seed_same_numbers_other_seed_other_draws(population):
    train, test, fresh = population
    rows = EmbeddedRows(train[:600], fresh[:600], test[:800])
    first = membership_stats(rows, streams(1))
    assert membership_stats(rows, streams(1)) == first
    assert membership_stats(rows, streams(2)) != first


def test_no_per_target_number_is_kept(fresh_stats):
    """Counts, rates and bounded curves only: no list grows with the targets."""
    stats = fresh_stats
    assert [a.attack for a in stats.attacks] == list(ATTACKS)

    def longest(value):
        if isinstance(value, dict):
            return max([0, *(longest(v) for v in value.values())])
        if isinstance(value, list):
            return max([len(value), *(longest(v) for v in value)])
        return 0

    assert longest(stats.model_dump()) == N_ROC_POINTS
    assert [r.fpr for r in stats.worst.rates] == list(FPR_LEVELS)


def test_every_epsilon_bound_of_a_report_shares_one_level_that_covers_them_together():
    """Each bound rests on two one-sided Clopper-Pearson bounds: 2 x bounds of them share 2.5%."""
    assert epsilon_level(3) == pytest.approx(1 - 0.025 / 6)  # one table: three attacks
    assert epsilon_level(9) == pytest.approx(1 - 0.025 / 18)  # three tables or views
    assert epsilon_level(0) == epsilon_level(1) == pytest.approx(1 - 0.025 / 2)


def test_the_largest_of_three_epsilon_bounds_exceeds_the_true_epsilon_at_most_as_often_as_stated():
    """Randomised response with a known epsilon: a member is flagged with probability e^eps / (1 + e^eps),
    a non-member with 1 / (1 + e^eps), so eps is exactly what the flag reveals (pure eps-DP, delta = 0).
    Over 400 draws of three such attacks, the largest bound lies above eps in at most 2.5% (plus
    sampling noise), and it is informative: above half of eps on average."""
    rng = np.random.default_rng(3)
    eps, n, draws = 1.0, 300, 400
    is_member = np.arange(2 * n) < n
    flagged = np.where(is_member, np.exp(eps) / (1 + np.exp(eps)), 1 / (1 + np.exp(eps)))
    level = epsilon_level(3)
    largest = []
    for _ in range(draws):
        half = np.zeros(2 * n, bool)
        half[rng.permutation(n)[: n // 2]] = half[n + rng.permutation(n)[: n // 2]] = True
        scores = (rng.random((3, 2 * n)) < flagged).astype(float)
        largest.append(max(split_epsilon(s, is_member, half, level)[0] for s in scores))
    largest = np.array(largest)
    assert (largest > eps).mean() <= 0.025 + 2 * np.sqrt(0.025 * 0.975 / draws)
    assert largest.mean() > eps / 2
