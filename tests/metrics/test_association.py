"""Association retained (METRICS.md 12): known answers on data the tests generate."""

import numpy as np
import pandas as pd
import pytest

from reportgen.catalogue import report_settings
from reportgen.metrics.association import NOISE_Z, association_retained, compute_association, noise_pairs
from reportgen.metrics.correlation import compute_correlation, phik_matrices
from reportgen.metrics.registry import MetricNotComputed
from reportgen.preparation import prepare_context
from reportgen.settings import ReportSettings

N = 2000


def population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """y follows x, the level is determined by x, d and e are independent of everything."""
    x = rng.normal(size=n)
    return pd.DataFrame(
        {
            "x": x,
            "y": x + 0.3 * rng.normal(size=n),
            "level": np.select([x < -0.5, x > 0.5], ["low", "high"], "mid"),
            "d": rng.choice(["p", "q", "r"], n),
            "e": rng.normal(size=n),
        }
    )


def marginals(frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """Each column shuffled on its own: the same marginals, no association left."""
    return pd.DataFrame({c: rng.permutation(frame[c].to_numpy()) for c in frame})


def association(train, test, synth, **settings):
    return compute_association(prepare_context(train, test, synth, report_settings(**settings)))


@pytest.fixture(scope="module")
def real():
    rng = np.random.default_rng(0)
    return population(N, rng), population(N, rng)


def test_a_hand_computed_value():
    real = np.array([[1.0, 0.8, 0.2], [0.8, 1.0, 0.0], [0.2, 0.0, 1.0]])
    other = np.array([[1.0, 0.5, 0.3], [0.5, 1.0, 0.1], [0.3, 0.1, 1.0]])
    # pairs above the diagonal: |0.8 - 0.5| + |0.2 - 0.3| + |0.0 - 0.1| = 0.5 over 0.8 + 0.2 + 0.0 = 1.0
    assert association_retained(real, other) == pytest.approx(0.5)
    counted = ~np.eye(3, dtype=bool)
    counted[1, 2] = counted[2, 1] = False  # leave out the pair (1, 2): 1 - 0.4 / 1.0
    assert association_retained(real, other, counted) == pytest.approx(0.6)
    assert association_retained(real, real) == 1.0
    assert association_retained(real, np.ones((3, 3))) == 0.0  # 1 - 1.8 / 1.0, clipped
    assert association_retained(np.eye(3), other) is None  # no association to retain


def test_noise_pairs_are_below_the_bar_in_every_real_set():
    z_train = np.array([[0.0, 10.0, 1.0], [10.0, 0.0, 2.0], [1.0, 2.0, 0.0]])
    z_holdout = np.array([[0.0, 9.0, 4.0], [9.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
    assert NOISE_Z == 3.0
    assert noise_pairs([z_train]).tolist() == (z_train < 3).tolist()
    both = noise_pairs([z_train, z_holdout])
    assert [both[0, 1], both[0, 2], both[1, 2]] == [False, False, True]


def test_independent_marginals_retain_nothing_and_a_fresh_sample_sits_at_the_reference(real):
    train, test = real
    rng = np.random.default_rng(5)
    fresh = association(train, test, population(N, rng)).tables[0]
    independent = association(train, test, marginals(train, rng))
    table = independent.tables[0]
    assert fresh.reference > 0.9 and abs(fresh.retained - fresh.reference) < 0.05
    assert table.retained < 0.1 and independent.retained == table.retained
    assert table.reference == fresh.reference  # the reference does not depend on the synthetic data
    lost = {frozenset((p.a, p.b)) for p in table.most_lost}
    assert lost == {frozenset(("x", "y")), frozenset(("x", "level")), frozenset(("y", "level"))}


def test_the_noise_pairs_are_the_independent_ones(real):
    train, test = real
    table = association(train, test, population(N, np.random.default_rng(3))).tables[0]
    assert (table.n_pairs, table.n_noise) == (3, 7)  # x, y, level linked; d and e with nothing


def test_the_section_reads_the_correlation_sections_matrices(real):
    train, test = real
    ctx = prepare_context(train, test, population(N, np.random.default_rng(3)), ReportSettings())
    correlation = compute_correlation(ctx)
    shared = phik_matrices(ctx.table("table"))
    result = compute_association(ctx)
    assert phik_matrices(ctx.table("table")) is shared  # computed once
    assert np.allclose(shared.matrices["training"], correlation.tables[0].real, atol=1e-6)
    noise = noise_pairs([shared.significance["training"], shared.significance["holdout"]])
    expected = association_retained(shared.matrices["training"], shared.matrices["synthetic"], ~noise)
    assert result.retained == pytest.approx(expected)
    assert len([f for f in ctx.findings if f.code == "phik_sampled"]) <= 1


def test_without_a_holdout_the_rule_reads_the_training_data_alone(real):
    train, _ = real
    result = association(train, None, marginals(train, np.random.default_rng(1)))
    assert result.reference is None and result.tables[0].reference is None
    assert result.tables[0].n_pairs == 3 and result.retained < 0.1


def test_a_table_with_no_association_is_not_measured():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"a": rng.normal(size=500), "b": rng.choice(["u", "v"], 500)})
    with pytest.raises(MetricNotComputed, match="no two columns are associated beyond phik's noise level"):
        association(frame, None, frame)


def test_same_seed_same_numbers(real):
    train, test = real
    synth = population(N, np.random.default_rng(9))
    assert association(train, test, synth, n_max_phik=1000, seed=3) == association(
        train, test, synth, n_max_phik=1000, seed=3
    )
