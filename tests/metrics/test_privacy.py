"""Known-answer tests of the privacy statistics on data the tests generate."""

import time
import tracemalloc
from itertools import pairwise

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen.catalogue import report_settings
from reportgen.data.roles import SYNTH, TRAIN
from reportgen.metrics.privacy import compute_privacy
from reportgen.preparation import prepare_context
from reportgen.privacy import proximity
from reportgen.privacy.proximity import EmbeddedRows, copy_share, nearest_neighbour_distances, proximity_stats
from reportgen.settings import MAX_ENCODED_LEVELS
from reportgen.standalone import compute_privacy_stats

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)


def people(n: int, rng: np.random.Generator) -> pd.DataFrame:
    x = rng.normal(size=n)
    return pd.DataFrame(
        {
            "age": 40 + 12 * x + rng.normal(0, 3, n),
            "income": np.exp(10 + 0.5 * x + rng.normal(0, 0.5, n)),
            "hours": rng.normal(38, 6, n),
            "city": rng.choice(["Rome", "Oslo", "Lima", "Pune"], n),
        }
    )


def with_copies(
    train: pd.DataFrame, fresh: pd.DataFrame, share: float, rng, noise: float = 0.0
) -> pd.DataFrame:
    n = round(share * len(fresh))
    copies = train.iloc[rng.choice(len(train), n, replace=False)].reset_index(drop=True)
    if noise:
        copies = copies.assign(hours=copies["hours"] + rng.normal(0, noise, n))
    return pd.concat([copies, fresh.iloc[n:]], ignore_index=True)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return people(3000, rng), people(3000, rng)


def stats(train, synth, **kwargs):
    return compute_privacy_stats(train, None, synth, **kwargs)["table"]


def test_a_fresh_sample_scores_near_100_with_no_risk(data):
    train, fresh = data
    result = stats(train, fresh)
    assert result.privacy_score > 85 and result.risk < 0.02


@pytest.mark.parametrize("noise", [0.0, 1e-3])
def test_copies_of_training_rows_score_near_the_floor(data, noise):
    train, fresh = data
    copied = with_copies(train, fresh, 1.0, np.random.default_rng(1), noise=noise)
    result = stats(train, copied)
    # p_T is q = 0.1 by construction and S' holds half the copies, so a full copy scores ~100 q / 0.55
    assert result.privacy_score < 25 and result.risk > 0.35


def test_more_copies_lower_the_score_and_raise_the_risk(data):
    train, fresh = data
    results = [
        stats(train, with_copies(train, fresh, share, np.random.default_rng(2)))
        for share in (0, 0.1, 0.3, 0.6, 1)
    ]
    scores = [r.privacy_score for r in results]
    risks = [r.risk for r in results]
    assert all(b < a + 2 for a, b in pairwise(scores)), scores
    assert all(b > a - 0.01 for a, b in pairwise(risks)), risks
    assert scores[0] - scores[-1] > 60 and risks[-1] - risks[0] > 0.3


def test_the_reported_std_is_the_spread_of_one_repeat_over_redrawn_data():
    """On a leaky case (30% copies) the std over repeats is honest about fresh data.

    It is the spread of one repeat's score over independent re-draws (within a factor 2; measured
    0.77-1.21 over four sets of 10 seeds), and never narrower than the spread of the reported
    score, the mean of the repeats, which varies about sqrt(5) less (measured 1.36-2.31 times less;
    ``benchmarks/bench_privacy_std.py``).
    """
    one_repeat, mean, reported = [], [], []
    for seed in range(10):
        rng = np.random.default_rng(100 + seed)
        train = people(1200, rng)
        synth = with_copies(train, people(1200, rng), 0.3, rng)
        result = stats(train, synth, seed=seed)
        one_repeat.append(result.scores[0])
        mean.append(result.privacy_score)
        reported.append(result.privacy_score_std)
    assert 0.5 < np.mean(reported) / np.std(one_repeat, ddof=1) < 2, (np.mean(reported), one_repeat)
    assert np.mean(reported) > np.std(mean, ddof=1), (np.mean(reported), mean)


def test_duplicated_training_rows_give_finite_numbers():
    rng = np.random.default_rng(3)
    base = rng.normal(size=(300, 3)).astype(np.float32)
    train = np.repeat(base, 4, axis=0)
    result = proximity_stats(EmbeddedRows(train, rng.normal(size=(600, 3)).astype(np.float32)), rng)
    assert result.duplicated_training_rows > 0.8  # each row has 3 twins; half of them land in R1
    assert np.isfinite([result.privacy_score, result.privacy_score_std, result.risk, result.threshold]).all()
    assert all(np.isfinite(result.histogram.edges))


def test_the_exact_copy_share_is_the_planted_share(data):
    train, fresh = data
    synth = with_copies(train, fresh, 0.25, np.random.default_rng(4))[["age", "hours"]]
    rows = EmbeddedRows(
        train=np.asarray(train[["age", "hours"]], dtype=np.float32),
        synth=np.asarray(synth, dtype=np.float32),
    )
    frames = {TRAIN: train[["age", "hours"]], SYNTH: synth}
    result = nearest_neighbour_distances(rows, np.random.default_rng(0), frames=frames)
    assert result.exact_copies == pytest.approx(0.25)
    assert result.medians["synthetic_to_real"] < result.medians["real_to_real"]


def test_compute_privacy_stats_agrees_with_the_report(data, tmp_path):
    train, fresh = data
    synth = with_copies(train, fresh, 0.2, np.random.default_rng(5))
    direct = rg.compute_privacy_stats(train, None, synth, seed=7)["table"]
    results = rg.report(train, None, synth, tmp_path / "r.html", seed=7)
    section = results.sections["privacy"].tables[0]
    assert section.proximity == direct
    assert stats(train, synth, seed=7) == direct  # deterministic


def shop(n_customers: int, rng: np.random.Generator, start: int = 0):
    """Customers with a 3-level segment; orders with two small integer columns (200 distinct rows)."""
    customers = pd.DataFrame(
        {
            "customer_id": np.arange(start, start + n_customers),
            "segment": rng.choice(list("ABC"), n_customers),
        }
    )
    n_orders = rng.integers(5, 16, n_customers)
    orders = pd.DataFrame(
        {
            "order_id": np.arange(start * 10, start * 10 + n_orders.sum()),
            "customer_id": np.repeat(customers["customer_id"].to_numpy(), n_orders),
            "amount": rng.integers(1, 21, n_orders.sum()).astype(float),
            "items": rng.integers(1, 11, n_orders.sum()).astype(float),
        }
    )
    return {"customers": customers, "orders": orders}


SHOP = rg.Schema(
    customers=rg.Table(customer_id=rg.PrimaryKey(), segment="categorical"),
    orders=rg.Table(
        order_id=rg.PrimaryKey(),
        customer_id=rg.ForeignKey(parent="customers"),
        amount="numeric",
        items="numeric",
    ),
)


def test_copying_whole_customers_shows_only_in_the_entity_view():
    rng = np.random.default_rng(6)
    train = shop(600, rng)
    fresh = shop(600, rng, start=10_000)
    copied = {name: frame.copy() for name, frame in train.items()}
    copied["customers"]["customer_id"] += 50_000
    copied["orders"]["customer_id"] += 50_000
    copied["orders"]["order_id"] += 500_000
    fresh_stats = compute_privacy_stats(rg.RelationalData(train, SHOP), None, rg.RelationalData(fresh, SHOP))
    copied_stats = compute_privacy_stats(
        rg.RelationalData(train, SHOP), None, rg.RelationalData(copied, SHOP)
    )
    for table in ("customers", "orders"):  # few distinct rows: a copy looks like any sample
        assert copied_stats[table].privacy_score > 80, table
    assert fresh_stats["customers (entity)"].privacy_score > 80
    assert copied_stats["customers (entity)"].privacy_score < 30


def test_the_report_with_a_holdout_agrees_with_compute_privacy_stats_on_two_tables(tmp_path):
    rng = np.random.default_rng(21)

    def shop(n_customers: int, seed: int) -> dict[str, pd.DataFrame]:
        r = np.random.default_rng(seed)
        customers = people(n_customers, r).assign(customer_id=np.arange(n_customers))
        orders = pd.DataFrame(
            {
                "customer_id": r.integers(0, n_customers, 3 * n_customers),
                "amount": r.gamma(2, 20, 3 * n_customers),
            }
        )
        return {"customers": customers, "orders": orders.assign(order_id=np.arange(len(orders)))}

    schema = rg.Schema(
        customers=rg.Table(customer_id=rg.PrimaryKey()),
        orders=rg.Table(order_id=rg.PrimaryKey(), customer_id=rg.ForeignKey(parent="customers")),
    )
    train, holdout, synth = shop(300, 1), shop(200, 2), shop(300, 3)
    synth["customers"] = with_copies(train["customers"], synth["customers"], 0.3, rng).assign(
        customer_id=np.arange(300)
    )
    results = rg.report(train, holdout, synth, tmp_path / "r.html", schema=schema, seed=4)
    with_holdout = rg.compute_privacy_stats(train, holdout, synth, schema=schema, seed=4)
    without = rg.compute_privacy_stats(train, None, synth, schema=schema, seed=4)
    section = {t.table: t.proximity for t in results.sections["privacy"].tables}
    assert section == with_holdout
    assert [s.privacy_score for s in without.values()] == [s.privacy_score for s in with_holdout.values()]
    assert section["customers"].privacy_score < 80  # the copies are seen, with or without a holdout


# --- the exact-copy check: hashed, streamed, exact -------------------------------------------------


def small_values(n: int, rng: np.random.Generator, n_values: int) -> pd.DataFrame:
    """Canonical columns drawn from few values, with missing values: many duplicates and copies."""
    x = rng.integers(0, n_values, n).astype(float)
    x[rng.random(n) < 0.1] = np.nan
    day = pd.Series(pd.Timestamp("2020-01-01", tz="UTC") + pd.to_timedelta(rng.integers(0, 5, n), unit="D"))
    day[rng.random(n) < 0.05] = pd.NaT
    colour = pd.Series(rng.choice(["red", "blue", None], n), dtype="string")
    return pd.DataFrame({"x": x, "colour": colour, "day": day})


def merged_share(rows: pd.DataFrame, reference: pd.DataFrame) -> float:
    """The brute-force count: an inner merge on every column (pandas matches missing with missing)."""
    return len(rows.merge(reference.drop_duplicates(), on=list(rows.columns))) / len(rows)


@pytest.mark.parametrize("n_values", [3, 40, 10_000])
def test_exact_copies_equal_a_brute_force_merge(n_values):
    rng = np.random.default_rng(n_values)
    train, synth = small_values(300, rng, n_values), small_values(2000, rng, n_values)
    synth.iloc[:300] = train.iloc[:300].to_numpy()  # planted copies, on top of chance coincidences
    expected = merged_share(synth, train)
    assert 0.15 < expected < 1.0
    assert copy_share(synth, train) == expected


def test_exact_copies_of_the_report_equal_the_brute_force_count():
    rng = np.random.default_rng(3)
    train, synth = small_values(1500, rng, 40), small_values(1500, rng, 40)
    synth.iloc[:200] = train.iloc[:200].to_numpy()
    ctx = prepare_context(train, None, synth, report_settings(privacy_repeats=1, n_max_gower=200))
    table = compute_privacy(ctx).tables[0]
    assert table.distances.exact_copies == merged_share(synth, train)


def test_a_hash_collision_is_never_a_copy(monkeypatch):
    rng = np.random.default_rng(5)
    train, synth = small_values(300, rng, 50), small_values(200, rng, 50)
    expected = merged_share(synth, train)
    monkeypatch.setattr(proximity, "_row_hashes", lambda frame: np.zeros(len(frame), np.uint64))
    assert copy_share(synth, train) == expected  # every row collides; only equal values count


def test_the_exact_copy_check_memory_grows_with_the_rows_only():
    """200,000 x 200,000 rows: rows x rows would be 40 billion cells; the check stays within megabytes."""
    rng = np.random.default_rng(8)

    def peak_bytes(n: int) -> int:
        train, synth = small_values(n, rng, 10**9), small_values(n, rng, 10**9)
        synth.iloc[: n // 3] = train.iloc[: n // 3].to_numpy()
        expected = merged_share(synth, train)
        tracemalloc.start()
        try:
            assert copy_share(synth, train) == expected
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak_bytes(50_000), peak_bytes(200_000)
    assert large < 64 * 2**20  # about 60 bytes a row
    assert large < 6 * small  # linear: 4 times the rows, not 16


# --- wide categoricals -------------------------------------------------------------------------------


def with_cities(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """A 3,000-level city column (every level used, the frequent ones much more) and three others."""
    city = np.concatenate([np.arange(3000), np.minimum(rng.zipf(1.5, n - 3000), 3000) - 1])
    return pd.DataFrame(
        {
            "city": [f"city {c}" for c in rng.permutation(city)],
            "age": rng.integers(18, 90, n).astype(float),
            "segment": rng.choice(list("ABCD"), n),
            "amount": rng.lognormal(3, 1, n),
        }
    )


def test_a_3000_level_column_gives_a_bounded_distance_space_and_a_finding():
    rng = np.random.default_rng(9)
    train, synth = with_cities(20_000, rng), with_cities(20_000, rng)
    ctx = prepare_context(train, None, synth, report_settings(privacy_repeats=2, n_max_gower=1000))
    space = ctx.table("table").distance_space
    assert train["city"].nunique() == 3000
    assert space.n_features == MAX_ENCODED_LEVELS + 1 + (1 + 4 + 1)  # kept + "(other)"; age, segment, amount
    pooled = [f for f in ctx.findings if f.code == "pooled_levels"]
    assert [(f.table, f.column) for f in pooled] == [("table", "city")]
    assert "3,000 levels" in pooled[0].message
    start = time.perf_counter()
    result = compute_privacy(ctx)
    assert time.perf_counter() - start < 60  # about 5 s; the 3,000-dimension one-hot took minutes
    assert result.tables[0].columns == ["city", "age", "segment", "amount"]
    assert result.privacy_score > 80
