"""Clopper-Pearson, DeLong and the epsilon bound against direct computations with scipy."""

import math

import numpy as np
import pytest
from scipy.stats import beta, binom
from sklearn.metrics import roc_auc_score

from reportgen.privacy.intervals import clopper_pearson, delong_auc, epsilon_lower_bounds, normal_interval

CASES = [(0, 20), (1, 20), (7, 20), (20, 20), (5, 5000), (50, 5000), (4990, 5000)]


@pytest.mark.parametrize(("k", "n"), CASES)
def test_clopper_pearson_matches_the_beta_quantiles(k, n):
    low, high = clopper_pearson(k, n)
    assert float(low) == pytest.approx(0.0 if k == 0 else beta.ppf(0.025, k, n - k + 1), abs=1e-12)
    assert float(high) == pytest.approx(1.0 if k == n else beta.ppf(0.975, k + 1, n - k), abs=1e-12)
    one_low = clopper_pearson(k, n, confidence=0.95, side="lower")
    one_high = clopper_pearson(k, n, confidence=0.95, side="upper")
    assert float(one_low[0]) == pytest.approx(0.0 if k == 0 else beta.ppf(0.05, k, n - k + 1), abs=1e-12)
    assert float(one_low[1]) == 1.0 and float(one_high[0]) == 0.0
    assert float(one_high[1]) == pytest.approx(1.0 if k == n else beta.ppf(0.95, k + 1, n - k), abs=1e-12)


@pytest.mark.parametrize(("k", "n"), [c for c in CASES if 0 < c[0] < c[1]])
def test_clopper_pearson_bounds_are_where_the_binomial_tails_reach_the_level(k, n):
    """The definition: P(X >= k | p = low) = P(X <= k | p = high) = 2.5%."""
    low, high = clopper_pearson(k, n)
    assert binom.sf(k - 1, n, float(low)) == pytest.approx(0.025, rel=1e-6)
    assert binom.cdf(k, n, float(high)) == pytest.approx(0.025, rel=1e-6)


def test_clopper_pearson_takes_arrays():
    low, high = clopper_pearson(np.array([0, 3, 10]), 10)
    assert low.shape == high.shape == (3,)
    assert low[0] == 0.0 and high[2] == 1.0 and 0 < low[1] < 0.3 < high[1] < 1


@pytest.mark.parametrize(
    ("tp", "fp", "n_pos", "n_neg"), [(900, 10, 1000, 1000), (50, 1, 2500, 2500), (3, 40, 100, 100)]
)
def test_the_epsilon_bounds_match_a_direct_computation(tp, fp, n_pos, n_neg):
    tpr_low = beta.ppf(0.05, tp, n_pos - tp + 1)
    fpr_high = beta.ppf(0.95, fp + 1, n_neg - fp)
    direct = max(0.0, math.log(tpr_low / fpr_high))
    complementary = max(0.0, math.log((1 - fpr_high) / (1 - tpr_low)))
    got = epsilon_lower_bounds(tp, fp, n_pos, n_neg)
    assert float(got[0]) == pytest.approx(direct, abs=1e-9)
    assert float(got[1]) == pytest.approx(complementary, abs=1e-9)


@pytest.mark.parametrize(
    ("tp", "fp", "n_pos", "n_neg", "delta"),
    [(900, 10, 1000, 1000, 1e-5), (900, 10, 1000, 1000, 0.3), (60, 2, 100, 100, 0.1)],
)
def test_the_bounds_at_a_claimed_delta_match_the_inequalities_with_delta(tp, fp, n_pos, n_neg, delta):
    """(eps, delta)-DP: TPR <= e^eps FPR + delta and 1 - FPR <= e^eps (1 - TPR) + delta (Jagielski et al.)."""
    tpr_low = beta.ppf(0.05, tp, n_pos - tp + 1)
    fpr_high = beta.ppf(0.95, fp + 1, n_neg - fp)
    direct = max(0.0, math.log((tpr_low - delta) / fpr_high)) if tpr_low > delta else 0.0
    complementary = (
        max(0.0, math.log((1 - fpr_high - delta) / (1 - tpr_low))) if 1 - fpr_high > delta else 0.0
    )
    got = epsilon_lower_bounds(tp, fp, n_pos, n_neg, delta=delta)
    assert float(got[0]) == pytest.approx(direct, abs=1e-9)
    assert float(got[1]) == pytest.approx(complementary, abs=1e-9)
    pure = epsilon_lower_bounds(tp, fp, n_pos, n_neg)
    assert got[0] <= pure[0] and got[1] <= pure[1]  # a delta can only weaken what the rates prove
    assert [float(b) for b in epsilon_lower_bounds(tp, fp, n_pos, n_neg, delta=0.0)] == [
        float(b) for b in pure
    ]


def test_a_rate_no_higher_than_delta_proves_nothing():
    assert [float(b) for b in epsilon_lower_bounds(5, 0, 100, 100, delta=0.5)] == [0.0, 0.0]


def test_no_hit_or_no_evidence_gives_zero_not_minus_infinity():
    direct, complementary = epsilon_lower_bounds(np.array([0, 10, 100]), np.array([0, 10, 100]), 100, 100)
    assert np.all(direct == 0.0) and np.all(complementary == 0.0)


def pairwise_delong(x, y):
    """DeLong's variance straight from its definition: pairwise comparisons, O(m n)."""
    psi = (x[:, None] > y[None, :]) + 0.5 * (x[:, None] == y[None, :])
    auc = psi.mean()
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    return auc, math.sqrt(v10.var(ddof=1) / len(x) + v01.var(ddof=1) / len(y))


def test_delong_matches_sklearn_and_the_pairwise_definition_with_ties():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 8, 300).astype(float) + 0.5  # many ties within and across the sets
    y = rng.integers(0, 8, 200).astype(float)
    auc, se = delong_auc(x, y)
    labels = np.r_[np.ones(len(x)), np.zeros(len(y))]
    assert auc == pytest.approx(roc_auc_score(labels, np.r_[x, y]), abs=1e-12)
    direct_auc, direct_se = pairwise_delong(x, y)
    assert auc == pytest.approx(direct_auc, abs=1e-12) and se == pytest.approx(direct_se, rel=1e-9)


def test_the_auc_interval_stays_within_0_and_1():
    assert normal_interval(0.999, 0.01) == (pytest.approx(0.999 - 1.959964 * 0.01), 1.0)
    low, high = normal_interval(0.5, 0.01)
    assert low == pytest.approx(0.5 - 0.0195996, abs=1e-6) and high == pytest.approx(
        0.5 + 0.0195996, abs=1e-6
    )
