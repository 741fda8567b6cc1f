"""alpha-precision, beta-recall and authenticity: the paper's toy experiments and exact oracles."""

import numpy as np
import pandas as pd
import pytest
import torch

import reportgen.privacy.alpha_beta as alpha_beta_math
from reportgen.data.roles import TRAIN
from reportgen.data.schema import ColumnKind
from reportgen.demo import demo_data
from reportgen.metrics.alpha_beta import AlphaBetaResult, compute_alpha_beta
from reportgen.preparation import prepare_context
from reportgen.privacy.alpha_beta import (
    LEVELS,
    RealReference,
    RowFlags,
    _radii,
    beta_recall,
    integrated,
    row_scores,
    sample_scores,
    subsample,
)
from reportgen.privacy.distance_space import DistanceSpace
from reportgen.privacy.neighbours import brute_force_knn, knn
from reportgen.privacy.one_class import OneClassConfig, fit_one_class
from reportgen.settings import ReportSettings

D = 8


def frame(x: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(x, columns=[f"x{i}" for i in range(x.shape[1])])


def measure_sets(train: np.ndarray, sets: dict[str, np.ndarray], seed: int = 0) -> dict:
    """Train the network once on ``train`` (raw numbers), then score every set as the section does."""
    space = DistanceSpace.fit(frame(train), {f"x{i}": ColumnKind.NUMERIC for i in range(train.shape[1])})
    rng = np.random.default_rng(seed)
    embedding = fit_one_class(space.transform(frame(train)), rng)
    embedded = {name: embedding.transform(space.transform(frame(x))) for name, x in sets.items()}
    m = min(len(train), *(len(x) for x in embedded.values()))
    real = RealReference.of(embedding.transform(space.transform(frame(train))), embedding.centre, m, rng)
    return {
        name: sample_scores(real, row_scores(real, x), subsample(x, m, rng)) for name, x in embedded.items()
    }


@pytest.fixture(scope="module")
def gaussian_shift():
    rng = np.random.default_rng(1)
    n = 2000
    train = rng.normal(size=(n, D))
    sets = {mu: rng.normal(mu, 1, size=(n, D)) for mu in (0.0, 0.5, 1.0)}
    copies = train[rng.choice(n, n // 2, replace=False)]
    sets["half copies"] = np.vstack([copies, rng.normal(size=(n - n // 2, D))])
    return measure_sets(train, sets)


def test_precision_and_recall_are_near_one_for_the_same_distribution_and_fall_with_the_shift(gaussian_shift):
    ip = [gaussian_shift[mu].ip_alpha for mu in (0.0, 0.5, 1.0)]
    ir = [gaussian_shift[mu].ir_beta for mu in (0.0, 0.5, 1.0)]
    assert ip[0] > 0.9 and ir[0] > 0.75, (ip, ir)
    assert ip[0] - ip[1] > 0.1 and ip[1] - ip[2] > 0.2, ip
    assert ir[0] - ir[1] > 0.1 and ir[1] - ir[2] > 0.2, ir


def test_copies_of_training_rows_lower_the_authenticity(gaussian_shift):
    fresh, copied = gaussian_shift[0.0].authenticity, gaussian_shift["half copies"].authenticity
    assert copied < fresh - 0.15, (fresh, copied)
    assert copied < 0.5 * fresh + 0.05  # the copies are never authentic; the fresh half scores as a fresh set


def test_a_mode_between_two_real_modes_is_caught_at_small_alpha_and_a_dropped_mode_by_recall():
    rng = np.random.default_rng(2)
    n = 1500

    def two_modes(k):
        return np.where(rng.random(k)[:, None] < 0.5, -2.0, 2.0) + rng.normal(size=(k, D))

    scores = measure_sets(
        two_modes(n),
        {
            "fresh": two_modes(n),
            "between": rng.normal(size=(n, D)),
            "one mode": 2.0 + rng.normal(size=(n, D)),
        },
    )
    at = {name: np.asarray(s.curves.precision)[LEVELS <= 0.25] for name, s in scores.items()}
    small = LEVELS[LEVELS <= 0.25]
    # synthetic rows in the empty region between the modes land in the densest part of the embedding
    assert np.mean(np.abs(at["fresh"] - small)) < 0.05
    assert np.mean(at["between"] - small) > 0.4
    assert scores["between"].ip_alpha < scores["fresh"].ip_alpha - 0.3
    # one real mode left out: precision stays fair, recall drops
    assert scores["one mode"].ir_beta < scores["fresh"].ir_beta - 0.2
    assert scores["one mode"].ip_alpha > scores["one mode"].ir_beta


def test_same_seed_same_numbers_other_seed_other_network():
    rng = np.random.default_rng(3)
    train, synth = rng.normal(size=(600, D)), rng.normal(0.3, 1, size=(600, D))
    a, b = measure_sets(train, {"s": synth}, seed=5), measure_sets(train, {"s": synth}, seed=5)
    assert a["s"].model_dump() == b["s"].model_dump()
    c = measure_sets(train, {"s": synth}, seed=6)
    assert c["s"].model_dump() != a["s"].model_dump()


def test_training_leaves_torch_global_state_alone():
    threads, state = torch.get_num_threads(), torch.random.get_rng_state()
    deterministic = torch.are_deterministic_algorithms_enabled()
    fit_one_class(np.random.default_rng(0).normal(size=(200, 4)).astype(np.float32), np.random.default_rng(0))
    assert torch.get_num_threads() == threads
    assert torch.equal(torch.random.get_rng_state(), state)
    assert torch.are_deterministic_algorithms_enabled() == deterministic


def test_training_gives_the_weights_of_the_plain_optimizer_loop(monkeypatch):
    """AdamW's ``foreach`` form (fewer calls, for speed) does the for-loop form's arithmetic exactly."""
    x = np.random.default_rng(1).normal(size=(700, 5)).astype(np.float32)
    fast = fit_one_class(x, np.random.default_rng(2), OneClassConfig(max_epochs=30))
    adamw = torch.optim.AdamW
    monkeypatch.setattr(torch.optim, "AdamW", lambda *a, **k: adamw(*a, **(k | {"foreach": False})))
    plain = fit_one_class(x, np.random.default_rng(2), OneClassConfig(max_epochs=30))
    assert fast.training == plain.training
    for a, b in zip(fast.network.parameters(), plain.network.parameters(), strict=True):
        assert torch.equal(a, b)


def test_the_network_is_as_specified_and_early_stopping_keeps_the_best_epoch():
    x = np.random.default_rng(0).normal(size=(500, 6)).astype(np.float32)
    embedding = fit_one_class(x, np.random.default_rng(0), OneClassConfig(max_epochs=40, patience=3))
    linear = [m for m in embedding.network if isinstance(m, torch.nn.Linear)]
    assert [(m.in_features, m.out_features) for m in linear] == [(6, 32), (32, 32), (32, 32), (32, 25)]
    assert all(m.bias is None for m in linear)
    assert sum(isinstance(m, torch.nn.ReLU) for m in embedding.network) == 3
    t = embedding.training
    assert (t.training_rows, t.validation_rows) == (400, 100)
    assert t.epochs == len(t.training_loss) == len(t.validation_loss) <= 40
    kept = t.validation_loss[t.best_epoch - 1]
    assert kept == min(t.validation_loss[t.warm_up_epochs - 1 :])
    assert embedding.transform(x).shape == (500, 25)


def test_early_stopping_ends_an_objective_driven_to_zero_and_lets_a_falling_one_train():
    """Progress is measured against the first objective after the warm-up, not the best so far.

    Constant rows: the network maps them onto the centre and the objective shrinks by a share per
    epoch towards 0, which a rule relative to the best so far never calls a plateau (it ran all 200
    epochs); here it stops soon after the objective is negligible. The demo's 4,000 adult rows: the
    objective still falls, and training runs to the epoch cap.
    """
    easy = fit_one_class(np.ones((1000, 3), np.float32), np.random.default_rng(0)).training
    first = easy.validation_loss[easy.warm_up_epochs - 1]
    assert easy.epochs < 60 and easy.best_epoch == easy.epochs - easy.patience
    assert easy.validation_loss[easy.best_epoch - 1] < 1e-3 * first
    train, _, _ = demo_data()
    rows = prepare_context(train, None, train.iloc[:100], ReportSettings()).table("table").embedded(TRAIN)
    hard = fit_one_class(rows, np.random.default_rng(0), OneClassConfig(max_epochs=120)).training
    assert hard.epochs == hard.best_epoch == 120


# -- exact oracles of the metric computations (identity embedding) ------------------------------------
def brute_force(
    real: np.ndarray,
    centre: np.ndarray,
    generated: np.ndarray,
    recall_real: np.ndarray,
    recall_generated: np.ndarray,
    k: int = 5,
):
    """P_alpha, R_beta and authenticity straight from the definitions, ball by ball."""
    radius = np.sqrt(((real.astype(np.float64) - centre) ** 2).sum(1))
    g_radius = np.sqrt(((generated.astype(np.float64) - centre) ** 2).sum(1))
    precision = [np.mean(g_radius <= np.quantile(radius, a)) for a in LEVELS]
    c_g = recall_generated.mean(axis=0, dtype=np.float64)
    to_cg = np.sqrt(((recall_generated.astype(np.float64) - c_g) ** 2).sum(1))
    nnd = brute_force_knn(recall_real, k=k)[0][:, k - 1]
    recall = []
    for b in LEVELS:
        inside = recall_generated[to_cg <= np.quantile(to_cg, b)]
        recall.append(np.mean(brute_force_knn(recall_real, inside)[0][:, 0] <= nnd) if len(inside) else 0.0)
    d, i = brute_force_knn(generated, real)
    authentic = d[:, 0] > brute_force_knn(real)[0][:, 0][i[:, 0]]
    return np.array(precision), np.array(recall), authentic


@pytest.mark.parametrize("m", [300, 200], ids=["every-real-row-recalls", "a-sample-recalls"])
@pytest.mark.parametrize("case", ["fresh", "shifted", "collapsed", "with copies"])
def test_metrics_equal_a_direct_computation_of_the_definitions(case, m):
    rng = np.random.default_rng(4)
    real = rng.normal(size=(300, 3)).astype(np.float32)
    generated = {
        "fresh": rng.normal(size=(300, 3)),
        "shifted": rng.normal(0.7, 1, size=(300, 3)),
        # many generated rows on few points: most real rows need more than 32 candidates
        "collapsed": np.repeat(rng.normal(size=(6, 3)), 50, axis=0) + rng.normal(0, 1e-3, size=(300, 3)),
        "with copies": np.vstack([real[:150], rng.normal(size=(150, 3))]),
    }[case].astype(np.float32)
    centre = real.mean(axis=0)
    reference = RealReference.of(real, centre, m=m, rng=np.random.default_rng(0))
    rows = row_scores(reference, generated)
    scores = sample_scores(reference, rows, subsample(generated, m, np.random.default_rng(1)))
    recall_generated = subsample(generated, m, np.random.default_rng(1))
    precision, recall, authentic = brute_force(
        real, centre, generated, reference.recall_rows, recall_generated
    )
    np.testing.assert_allclose(scores.curves.precision, precision)
    np.testing.assert_allclose(scores.curves.recall, recall)
    np.testing.assert_array_equal(rows.authentic, authentic)
    assert scores.authenticity == pytest.approx(authentic.mean())
    assert scores.ip_alpha == pytest.approx(1 - 2 * np.trapezoid(np.abs(precision - LEVELS), LEVELS))
    assert scores.ir_beta == pytest.approx(1 - 2 * np.trapezoid(np.abs(recall - LEVELS), LEVELS))


def beta_recall_by_balls(real: np.ndarray, nnd_k: np.ndarray, generated: np.ndarray) -> np.ndarray:
    """The former ``beta_recall``, kept as an oracle: ``g(x)`` from 8 then 32 neighbours, ball by ball.

    Every comparison goes through ``knn``, so it says what ``knn`` says, ties included.
    """
    if len(generated) == 0 or len(real) == 0:
        return np.zeros(len(LEVELS))
    g_radius = _radii(generated, generated.mean(axis=0, dtype=np.float64))
    ball_radii = np.quantile(g_radius, LEVELS)
    g = np.full(len(real), np.inf)
    unsure = np.arange(len(real))
    for k in (8, 32):
        k = min(k, len(generated))
        distance, index = knn(real[unsure], generated, k=k)
        close = distance <= nnd_k[unsure, None]
        g[unsure] = np.where(close, g_radius[index], np.inf).min(axis=1)
        unsure = unsure[close[:, -1]] if k < len(generated) else unsure[:0]
        if len(unsure) == 0:
            break
    covered = g[:, None] <= ball_radii[None, :]
    for j, r in enumerate(ball_radii):
        rows = unsure[g[unsure] > r]
        inside = np.flatnonzero(g_radius <= r)
        if len(rows) and len(inside):
            covered[rows, j] = knn(real[rows], generated[inside])[0][:, 0] <= nnd_k[rows]
    return covered.mean(axis=0)


def recall_cases(rng: np.random.Generator):
    """(name, real, nnd_k, generated) on which the range search must give the former numbers."""
    real = rng.normal(size=(400, 4)).astype(np.float32)
    nnd = knn(real, k=5)[0][:, 4]
    centres = rng.normal(size=(5, 4))
    collapsed = (np.repeat(centres, 80, axis=0) + rng.normal(0, 1e-3, size=(400, 4))).astype(np.float32)
    near_real = (np.repeat(real[:4], 100, axis=0) + rng.normal(0, 1e-3, size=(400, 4))).astype(np.float32)
    yield "fresh", real, nnd, rng.normal(size=(300, 4)).astype(np.float32)
    yield "collapsed", real, nnd, collapsed
    # a few dense clumps on real rows: > 32 rows within NND_k, so the former code went ball by ball
    yield "clumps on real rows", real, nnd, near_real
    yield "copies of real rows: ties at exactly NND_k", real, nnd, np.vstack([real, real[:100]])
    grid = rng.integers(0, 3, size=(500, 3)).astype(np.float32)  # few points: duplicates, exact ties
    yield "grid", grid, knn(grid, k=5)[0][:, 4], rng.integers(0, 3, size=(1000, 3)).astype(np.float32)
    wide = rng.normal(size=(300, 3)) * 10.0 ** rng.integers(-3, 3, size=(300, 1))
    yield "float64 rows, float32 twins", wide[:150], knn(wide[:150], k=5)[0][:, 4], wide + 1e-12
    # NND_k at a knn distance (the 1st to the 40th), or one float32 step either side, or a float64 value
    d = knn(real, near_real, k=40)[0][np.arange(len(real)), rng.integers(0, 40, size=len(real))]
    step = rng.choice(np.array([0, np.inf, -np.inf], np.float32), size=len(real))
    yield "NND_k on a distance", real, np.where(step == 0, d, np.nextafter(d, step)), near_real
    yield "NND_k in float64", real, d * (1 + rng.choice([-1e-8, 0, 1e-8], size=len(real))), near_real


def test_the_range_search_gives_the_former_ball_by_ball_numbers_bit_for_bit():
    rng = np.random.default_rng(7)
    ball_by_ball = 0
    for name, real, nnd, generated in recall_cases(rng):
        k = min(32, len(generated))
        ball_by_ball += int((knn(real, generated, k=k)[0][:, -1] <= nnd).sum())
        expected = beta_recall_by_balls(real, nnd, generated)
        assert beta_recall(real, nnd, generated).tobytes() == expected.tobytes(), name
    assert ball_by_ball > 100  # the former code's last path ran


@pytest.mark.parametrize("share", [0.0, 1e300], ids=["float64-products", "float32-products"])
def test_the_range_search_gives_the_same_numbers_on_either_product(share, monkeypatch):
    """Which rows get a float32 product is a speed choice: all of them, or none, give the oracle's numbers."""
    monkeypatch.setattr(alpha_beta_math, "FLOAT32_SHARE", share)
    rng = np.random.default_rng(7)
    for name, real, nnd, generated in recall_cases(rng):
        expected = beta_recall_by_balls(real, nnd, generated)
        assert beta_recall(real, nnd, generated).tobytes() == expected.tobytes(), name


def test_the_range_search_equals_the_former_code_on_small_random_sets_full_of_ties():
    rng = np.random.default_rng(8)
    for _ in range(300):
        p, n, m = rng.integers(1, 4), rng.integers(6, 40), rng.integers(1, 60)
        # float64 rows (float32 times a float64 scale); at 1e-20, squared distances far below 1
        real = rng.integers(-2, 3, size=(n, p)).astype(np.float32) * rng.choice([1.0, 0.1, 1e-20])
        generated = rng.integers(-2, 3, size=(m, p)).astype(np.float32) * rng.choice([1.0, 0.1])
        nnd = knn(real, k=int(rng.integers(1, 6)))[0][:, -1]
        expected = beta_recall_by_balls(real, nnd, generated)
        assert beta_recall(real, nnd, generated).tobytes() == expected.tobytes(), (p, n, m)


def test_the_grid_and_the_integral():
    assert len(LEVELS[LEVELS > 0]) >= 20 and LEVELS[-1] == 1.0 and LEVELS[0] == 0.0
    assert integrated(LEVELS) == 1.0
    assert integrated(np.ones_like(LEVELS)) == pytest.approx(0.0)  # every row in the densest point
    assert beta_recall(np.zeros((3, 2)), np.zeros(3), np.zeros((0, 2))).tolist() == [0.0] * len(LEVELS)


def test_row_flags_round_trip():
    rng = np.random.default_rng(0)
    levels, authentic = rng.integers(0, 42, 1001).astype(np.uint8), rng.random(1001) < 0.5
    flags = RowFlags.model_validate_json(RowFlags.encode(levels, authentic).model_dump_json())
    decoded_levels, decoded_authentic = flags.decode()
    np.testing.assert_array_equal(decoded_levels, levels)
    np.testing.assert_array_equal(decoded_authentic, authentic)


# -- the section --------------------------------------------------------------------------------------
def test_the_section_measures_synthetic_and_holdout_rows_and_keeps_their_flags():
    rng = np.random.default_rng(5)
    n = 800
    people = lambda k: pd.DataFrame(  # noqa: E731
        {"age": rng.normal(40, 10, k), "hours": rng.normal(38, 5, k), "city": rng.choice(["a", "b", "c"], k)}
    )
    train, holdout, synth = people(n), people(n // 2), people(n)
    ctx = prepare_context(train, holdout, synth, ReportSettings(seed=0))
    result = compute_alpha_beta(ctx)
    assert isinstance(result, AlphaBetaResult) and result.status == "ok"
    (table,) = result.tables
    assert table.rows == {"training": n, "synthetic": n, "holdout": n // 2}
    assert table.recall_rows == n // 2 and table.k == 5
    assert table.holdout is not None and table.holdout.ip_alpha > 0.8
    assert result.ip_alpha == table.synthetic.ip_alpha and result.weakest["ip_alpha"] == "table"
    levels, authentic = table.flags.decode()
    assert len(levels) == len(authentic) == n
    assert table.not_authentic == int((~authentic).sum())
    assert table.outside_support == int((levels > np.flatnonzero(np.isclose(LEVELS, 0.95))[0]).sum())
    assert table.flagged >= max(table.not_authentic, table.outside_support)
    again = compute_alpha_beta(prepare_context(train, holdout, synth, ReportSettings(seed=0)))
    assert again.model_dump() == result.model_dump()


def test_small_tables_are_skipped_with_the_reason():
    rng = np.random.default_rng(6)
    tiny = pd.DataFrame({"x": rng.normal(size=30), "y": rng.normal(size=30)})
    ctx = prepare_context(tiny, None, tiny, ReportSettings())
    with pytest.raises(Exception, match="too few rows"):
        compute_alpha_beta(ctx)
