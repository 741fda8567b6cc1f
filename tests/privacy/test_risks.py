"""The pieces of the singling-out, linkability and inference attacks, against direct computations."""

from math import sqrt

import numpy as np
import pytest
from scipy.stats import binomtest, norm

from reportgen.privacy.risks import (
    Predicates,
    attack_result,
    count_matches,
    random_predicates,
    single_out_synthetic,
    success_rate,
    univariate_predicates,
    wilson,
)


@pytest.mark.parametrize(("k", "n"), [(0, 50), (1, 50), (17, 50), (50, 50), (123, 1000), (999, 1000)])
@pytest.mark.parametrize("confidence", [0.95, 0.99])
def test_the_rate_interval_is_scipys_wilson_interval(k, n, confidence):
    low, high = binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    rate = success_rate(k, n, confidence)
    assert rate.rate == k / n
    assert rate.interval == pytest.approx((low, high), abs=1e-12)


def test_the_risk_and_its_interval_follow_the_two_rates_as_anonymeter_does():
    """Centres and half-widths from scipy's Wilson intervals, the risk and its propagated error by hand."""
    z = norm.ppf(0.975)
    for (k_m, n_m), (k_c, n_c) in [
        ((300, 1000), (200, 1000)),
        ((40, 500), (60, 500)),
        ((990, 1000), (5, 1000)),
    ]:
        (lm, hm), (lc, hc) = (
            binomtest(k, n).proportion_ci(0.95, "wilson") for k, n in ((k_m, n_m), (k_c, n_c))
        )
        p_m, e_m, p_c, e_c = (lm + hm) / 2, (hm - lm) / 2, (lc + hc) / 2, (hc - lc) / 2
        risk = (p_m - p_c) / (1 - p_c)
        error = sqrt((e_m / (1 - p_c)) ** 2 + (e_c * (1 - p_m) / (1 - p_c) ** 2) ** 2)
        result = attack_result(
            "linkability", "k = 10", [["a"], ["b"]], ((k_m, n_m), (k_c, n_c), (1, n_m)), 0.95
        )
        clip = lambda x: min(max(x, 0.0), 1.0)  # noqa: E731
        assert result.risk == pytest.approx(clip(risk), abs=1e-12)
        assert result.risk_interval == pytest.approx((clip(risk - error), clip(risk + error)), abs=1e-12)
        assert wilson(k_m, n_m, 0.95)[1] == pytest.approx(
            z / (n_m + z * z) * sqrt(k_m * (n_m - k_m) / n_m + z * z / 4)
        )


def brute_force_counts(codes: np.ndarray, predicates: Predicates) -> np.ndarray:
    """Row by row, condition by condition: the oracle of count_matches."""
    counts = []
    for cols, low, high, neg in zip(
        predicates.columns, predicates.low, predicates.high, predicates.negate, strict=True
    ):
        hits = 0
        for row in codes.T:
            ok = True
            for j, lo, hi, ng in zip(cols, low, high, neg, strict=True):
                inside = lo <= row[j] <= hi
                ok &= (not inside and row[j] != -1) if ng else inside
            hits += ok
        counts.append(hits)
    return np.array(counts)


def small_codes(rng: np.random.Generator, n: int = 300) -> tuple[np.ndarray, np.ndarray]:
    numeric = np.array([True, True, False, False])
    codes = np.vstack(
        [rng.integers(0, 5 * n, n), rng.integers(-1, 8, n), rng.integers(0, 3, n), rng.integers(-1, 5, n)]
    ).astype(np.int32)
    return codes, numeric


def test_counts_match_a_brute_force_count_for_every_kind_of_condition():
    rng = np.random.default_rng(3)
    codes, numeric = small_codes(rng)
    predicates = random_predicates(codes, numeric, 200, 3, rng)
    assert predicates.negate.any() and (predicates.low == -1).any()
    assert np.array_equal(count_matches(codes, predicates), brute_force_counts(codes, predicates))


def test_the_staged_check_finds_exactly_the_conditions_that_fit_their_row_alone():
    rng = np.random.default_rng(4)
    codes, _ = small_codes(rng, 2000)
    rows = rng.integers(0, codes.shape[1], 400)
    columns = np.sort(rng.random((400, 4)).argsort(axis=1)[:, :2], axis=1)
    values = codes[columns, rows[:, None]]
    predicates = Predicates(columns, values, values, np.zeros(columns.shape, bool))
    flags = single_out_synthetic(codes, predicates, rows)
    assert np.array_equal(flags, count_matches(codes, predicates) == 1)
    assert 0 < flags.sum() < len(flags)


def test_univariate_conditions_each_fit_one_synthetic_row():
    rng = np.random.default_rng(5)
    codes, numeric = small_codes(rng)
    predicates = univariate_predicates(codes, numeric, 1000, rng)
    assert len(predicates) > 10
    assert (count_matches(codes, predicates) == 1).all()
