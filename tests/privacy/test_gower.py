"""Gower similarity and the maximum-similarity test (METRICS.md section 10), on data made here."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from reportgen.data.schema import ColumnKind
from reportgen.errors import DataError, IncompatibleDataError, InvalidParameterError, SchemaError
from reportgen.privacy.gower import (
    GowerRows,
    GowerSpace,
    MaxSimilarityStats,
    max_similarity,
    max_similarity_stats,
)

NUM, INT, CAT, DT = ColumnKind.NUMERIC, ColumnKind.INTEGER, ColumnKind.CATEGORICAL, ColumnKind.DATETIME


def oracle_similarities(a: GowerRows, b: GowerRows) -> np.ndarray:
    """Every pair's Gower similarity by the definition, one pair at a time."""
    cat_a, cat_b = comparable_codes(a), comparable_codes(b)
    out = np.empty((len(a), len(b)))
    for i in range(len(a)):
        for j in range(len(b)):
            terms = []
            for x, y in zip(a.numeric[i], b.numeric[j], strict=True):
                if np.isnan(x) or np.isnan(y):
                    terms.append(float(np.isnan(x) != np.isnan(y)))
                else:
                    terms.append(min(abs(x - y), 1.0))
            terms += [float(x != y) for x, y in zip(cat_a[i], cat_b[j], strict=True)]
            out[i, j] = 1 - sum(terms) / len(terms)
    return out


def comparable_codes(rows: GowerRows) -> list[list[object]]:
    """Categorical values as comparable objects: training codes as ints, unseen codes as their labels."""
    out = []
    for codes in rows.categorical:
        row: list[object] = []
        for j, code in enumerate(codes):
            n_levels = rows.n_levels[j]
            row.append(int(code) if code <= n_levels else rows.unseen[j][code - n_levels - 1])
        out.append(row)
    return out


def oracle_max(sim: np.ndarray, within: bool) -> tuple[np.ndarray, np.ndarray]:
    """Row maxima and the lowest index attaining them (within 1e-12), self excluded by index."""
    sim = sim.copy()
    if within:
        np.fill_diagonal(sim, -np.inf)
    best = sim.max(axis=1)
    index = np.array([np.flatnonzero(row >= m - 1e-12)[0] for row, m in zip(sim, best, strict=True)])
    return best, index


# --- a hand-computed example ----------------------------------------------------------------------

TRAIN = pd.DataFrame(
    {
        "x": [0.0, 10.0, np.nan],  # range 10
        "y": [1, 3, 5],  # range 4
        "c": ["a", "b", None],
    }
)
KINDS = {"x": NUM, "y": INT, "c": CAT}
SYNTH = pd.DataFrame(
    {
        "x": [25.0, np.nan, 4.0, -30.0],  # 25 and -30 lie outside the training range
        "y": [3, 5, 2, 1],
        "c": ["a", None, "z", "b"],  # "z" is unseen
    }
)


def pair(a: GowerRows, i: int, b: GowerRows, j: int) -> float:
    sim, _ = max_similarity(a.take(np.array([i])), b.take(np.array([j])))
    return float(sim[0])


def test_hand_computed_similarities() -> None:
    space = GowerSpace.fit(TRAIN, KINDS)
    real, synth = space.transform(TRAIN), space.transform(SYNTH)
    # within the training data: x by range 10, y by range 4, missing vs present counts 1
    expected_real = {
        (0, 1): 1 - (1 + 0.5 + 1) / 3,
        (0, 2): 1 - (1 + 1 + 1) / 3,
        (1, 2): 1 - (1 + 0.5 + 1) / 3,
    }
    for (i, j), value in expected_real.items():
        assert pair(real, i, real, j) == pytest.approx(value, abs=1e-15)
        assert pair(real, j, real, i) == pytest.approx(value, abs=1e-15)
    expected_cross = [
        [1 - (1 + 0.5 + 0) / 3, 1 - (1 + 0 + 1) / 3, 1 - (1 + 0.5 + 1) / 3],  # x=25 capped at 1
        [1 - (1 + 1 + 1) / 3, 1 - (1 + 0.5 + 1) / 3, 1.0],  # all missing/equal to row 2: a copy
        [1 - (0.4 + 0.25 + 1) / 3, 1 - (0.6 + 0.25 + 1) / 3, 1 - (1 + 0.75 + 1) / 3],  # unseen "z"
        [1 - (1 + 0 + 1) / 3, 1 - (1 + 0.5 + 0) / 3, 1 - (1 + 1 + 1) / 3],  # x=-30 capped at 1
    ]
    for i, row in enumerate(expected_cross):
        for j, value in enumerate(row):
            assert pair(synth, i, real, j) == pytest.approx(value, abs=1e-15)
    sim, index = max_similarity(synth, real)
    np.testing.assert_allclose(sim, [0.5, 1.0, 1 - 1.65 / 3, 0.5], atol=1e-15)
    assert index.tolist() == [0, 2, 0, 1]


def test_within_set_excludes_self_and_breaks_ties_by_lowest_index() -> None:
    real = GowerSpace.fit(TRAIN, KINDS).transform(TRAIN)
    sim, index = max_similarity(real)
    np.testing.assert_allclose(sim, [1 / 6, 1 / 6, 1 / 6], atol=1e-15)
    assert index.tolist() == [1, 0, 1]  # row 1 ties between rows 0 and 2: the lower wins


def test_unseen_levels_compare_by_label_and_missing_is_a_level() -> None:
    space = GowerSpace.fit(pd.DataFrame({"c": ["a", "b"]}), {"c": CAT})
    first = space.transform(pd.DataFrame({"c": ["z", "w", None]}))
    second = space.transform(pd.DataFrame({"c": ["q", "z", None, "a"]}))
    sim, index = max_similarity(first, second)
    assert sim.tolist() == [1.0, 0.0, 1.0]  # "z" = "z"; "w" matches nothing; missing = missing
    assert index.tolist() == [1, 0, 2]
    sim, _ = max_similarity(first)
    assert sim.tolist() == [0.0, 0.0, 0.0]  # two different unseen labels are not equal


def test_a_wide_column_pools_its_rare_levels_as_the_distance_space_does() -> None:
    train = pd.DataFrame({"c": [*"aaaabbbccdde"]})
    space = GowerSpace.fit(train, {"c": CAT}, max_levels=3)
    assert space.categorical[0].levels == ("a", "b", "c")
    rows = space.transform(pd.DataFrame({"c": ["d", "e", "zzz", "a", None]}))
    sim, index = max_similarity(rows)
    assert sim.tolist() == [1.0, 1.0, 1.0, 0.0, 0.0]  # d, e and unseen zzz are one level "(other)"
    assert index.tolist()[:3] == [1, 0, 0]
    assert GowerSpace.fit(train, {"c": CAT}, max_levels=5).categorical[0].levels == tuple("abcde")


def test_datetime_and_constant_columns() -> None:
    train = pd.DataFrame(
        {"t": pd.to_datetime(["2020-01-01", "2020-01-11", "2020-01-21"]), "k": [7.0, 7.0, 7.0]}
    )
    space = GowerSpace.fit(train, {"t": DT, "k": NUM})
    synth = pd.DataFrame({"t": pd.to_datetime(["2020-01-06"]), "k": [7.5]})  # constant column: range 1
    sim, index = max_similarity(space.transform(synth), space.transform(train))
    assert sim[0] == pytest.approx(1 - (0.25 + 0.5) / 2)
    assert index[0] == 0


# --- agreement with the brute force -----------------------------------------------------------------


def random_mixed(
    rng: np.random.Generator, n: int, *, shift: float = 0.0, unseen: bool = False
) -> pd.DataFrame:
    """Mixed rows with missing values, a few exact duplicates and (optionally) out-of-range values."""
    frame = pd.DataFrame(
        {
            "u": rng.normal(shift, 1.0, n),
            "v": rng.integers(0, 50, n).astype(float),
            "w": rng.exponential(1.0, n),
            "c": rng.choice(["a", "b", "c"], n),
            "d": rng.choice(["x", "y"] + (["new1", "new2"] if unseen else []), n),
            "e": rng.choice([True, False], n),
        }
    )
    frame.loc[rng.random(n) < 0.15, "w"] = np.nan
    frame.loc[rng.random(n) < 0.15, "c"] = None
    frame.iloc[n - 5 :] = frame.iloc[:5].to_numpy()  # duplicates of the first rows
    return frame


MIXED_KINDS = {"u": NUM, "v": INT, "w": NUM, "c": CAT, "d": CAT, "e": ColumnKind.BOOLEAN}


@pytest.fixture(scope="module")
def mixed_rows() -> tuple[GowerRows, GowerRows]:
    rng = np.random.default_rng(7)
    train = random_mixed(rng, 60)
    synth = random_mixed(rng, 45, shift=1.5, unseen=True)
    space = GowerSpace.fit(train, MIXED_KINDS)
    return space.transform(train), space.transform(synth)


def test_max_similarity_agrees_with_brute_force(mixed_rows: tuple[GowerRows, GowerRows]) -> None:
    real, synth = mixed_rows
    for a, b in ((synth, real), (real, synth), (real, None), (synth, None)):
        within = b is None
        expected_sim, expected_index = oracle_max(oracle_similarities(a, a if b is None else b), within)
        sim, index = max_similarity(a, b)
        np.testing.assert_allclose(sim, expected_sim, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(index, expected_index)
        if within:  # the duplicated rows find their twins
            assert np.all(sim[-5:] == 1.0) and np.all(sim[:5] == 1.0)
            assert index[:5].tolist() == list(range(len(a) - 5, len(a)))


def test_ties_on_categorical_rows_go_to_the_lowest_index() -> None:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"p": rng.choice(["a", "b"], 80), "q": rng.choice(["x", "y", "z"], 80)})
    space = GowerSpace.fit(frame.iloc[:40], {"p": CAT, "q": CAT})
    a, b = space.transform(frame.iloc[:40]), space.transform(frame.iloc[40:])
    for left, right in ((a, b), (a, None)):
        expected_sim, expected_index = oracle_max(
            oracle_similarities(left, left if right is None else right), right is None
        )
        sim, index = max_similarity(left, right, chunk_rows=7, chunk_refs=3)
        np.testing.assert_array_equal(sim, expected_sim)
        np.testing.assert_array_equal(index, expected_index)


@pytest.mark.parametrize(("chunk_rows", "chunk_refs"), [(1, 1), (3, 5), (64, 2), (2, 1000)])
def test_chunking_changes_nothing(
    mixed_rows: tuple[GowerRows, GowerRows], chunk_rows: int, chunk_refs: int
) -> None:
    real, synth = mixed_rows
    for a, b in ((synth, real), (real, None)):
        expected = max_similarity(a, b)
        got = max_similarity(a, b, chunk_rows=chunk_rows, chunk_refs=chunk_refs)
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])


# --- the test's statistics --------------------------------------------------------------------------


def continuous(rng: np.random.Generator, n: int) -> pd.DataFrame:
    """Five independent continuous columns (no exact matches by chance) and a categorical one."""
    frame = pd.DataFrame(rng.normal(size=(n, 5)), columns=[f"x{i}" for i in range(5)])
    frame["g"] = rng.choice(["a", "b", "c"], n)
    return frame


CONTINUOUS_KINDS = {**{f"x{i}": NUM for i in range(5)}, "g": CAT}


def stats_of(train: pd.DataFrame, synth: pd.DataFrame, seed: int = 0, n: int = 10_000) -> MaxSimilarityStats:
    space = GowerSpace.fit(train, CONTINUOUS_KINDS)
    return max_similarity_stats(
        space.transform(train), space.transform(synth), n=n, rng=np.random.default_rng(seed)
    )


def test_copies_score_above_one_and_independent_samples_near_one() -> None:
    rng = np.random.default_rng(11)
    train = continuous(rng, 400)
    copies = stats_of(train, train.sample(frac=1.0, random_state=1))
    assert copies.copy_share == 1.0
    assert copies.mean_cross == 1.0
    # the score cannot exceed 1 / mean_within_real (about 1.06 here): copying shows as a few percent
    assert copies.score == pytest.approx(1 / copies.mean_within_real)
    assert copies.score is not None and copies.score > 1.04
    fresh = stats_of(train, continuous(rng, 400))
    assert fresh.copy_share == 0.0
    assert fresh.score is not None and 0.99 < fresh.score < 1.01
    assert copies.score - 1 > 5 * abs(fresh.score - 1)
    assert fresh.n == 400 and fresh.n_columns == 6


def test_stats_are_seeded_aggregates() -> None:
    rng = np.random.default_rng(5)
    train, synth = continuous(rng, 300), continuous(rng, 250)
    first, second = stats_of(train, synth, seed=3, n=120), stats_of(train, synth, seed=3, n=120)
    assert first == second
    assert first.n == 120
    assert stats_of(train, synth, seed=4, n=120) != first
    edges = first.histogram.edges
    assert len(edges) == 41 and edges[-1] == 1.0
    assert (
        edges[0] == min(first.mean_within_real, first.mean_within_synthetic, first.mean_cross) or edges[0] < 1
    )
    for counts in first.histogram.counts.values():
        assert sum(counts) == 120 and len(counts) == 40
    assert set(first.histogram.counts) == {"within_real", "within_synthetic", "cross"}
    assert "x0" not in first.model_dump_json()  # aggregates only: no column values, no records


def test_score_is_none_when_real_rows_share_nothing() -> None:
    train = pd.DataFrame({"c": ["a", "b", "c"]})
    space = GowerSpace.fit(train, {"c": CAT})
    stats = max_similarity_stats(
        space.transform(train), space.transform(train), n=3, rng=np.random.default_rng(0)
    )
    assert stats.mean_within_real == 0.0 and stats.score is None
    assert stats.copy_share == 1.0


def test_a_copy_is_equal_on_every_column_however_small_the_difference() -> None:
    categories = {f"c{i}": ["a", "b"] for i in range(6)}
    train = pd.DataFrame({"x": [0.0, 1.0], **categories})
    synth = pd.DataFrame({"x": [0.0, np.nextafter(1.0, 2.0)], **categories})
    space = GowerSpace.fit(train, {"x": NUM, **dict.fromkeys(categories, CAT)})
    rng = np.random.default_rng(0)
    stats = max_similarity_stats(space.transform(train), space.transform(synth), n=2, rng=rng)
    assert stats.copy_share == 0.5


# --- errors ------------------------------------------------------------------------------------------


def test_clear_errors() -> None:
    with pytest.raises(DataError, match="at least one numeric"):
        GowerSpace.fit(pd.DataFrame({"id": [1, 2]}), {"id": ColumnKind.ID})
    with pytest.raises(SchemaError, match=r"lacks column\(s\) \['x'\]"):
        GowerSpace.fit(pd.DataFrame({"y": [1, 2]}), {"x": NUM})
    space = GowerSpace.fit(TRAIN, KINDS)
    rows = space.transform(TRAIN)
    with pytest.raises(SchemaError, match="lacks"):
        space.transform(TRAIN.drop(columns="c"))
    other = GowerSpace.fit(TRAIN, {"x": NUM}).transform(TRAIN)
    with pytest.raises(IncompatibleDataError, match="different Gower spaces"):
        max_similarity(rows, other)
    with pytest.raises(DataError, match="at least 2 rows"):
        max_similarity(rows.take(np.array([0])))
    with pytest.raises(DataError, match="'b' has none"):
        max_similarity(rows, rows.take(np.array([], dtype=int)))
    with pytest.raises(InvalidParameterError, match="'chunk_rows' parameter of max_similarity"):
        max_similarity(rows, chunk_rows=0)
    rng = np.random.default_rng(0)
    with pytest.raises(InvalidParameterError, match="'n' parameter of max_similarity_stats"):
        max_similarity_stats(rows, rows, n=1, rng=rng)
    with pytest.raises(InvalidParameterError, match="'rng' parameter"):
        max_similarity_stats(rows, rows, n=5, rng=0)  # type: ignore[arg-type]
    with pytest.raises(DataError, match="at least 2 rows on each side"):
        max_similarity_stats(rows, rows.take(np.array([1])), n=5, rng=rng)
    empty = max_similarity(rows.take(np.array([], dtype=int)), rows)
    assert empty[0].shape == (0,) and empty[1].shape == (0,)


def test_values_near_the_largest_double_compare_by_their_share_of_the_range() -> None:
    # max - min of +-1.8e308 overflows: each term would be NaN (or 0) without the quarter unit
    largest = np.finfo(np.float64).max
    train = pd.DataFrame({"x": [-largest, 0.0, largest, largest / 2]})
    space = GowerSpace.fit(train, {"x": NUM})
    real = space.transform(train)
    assert pair(real, 0, real, 2) == 0.0  # the full range apart
    assert pair(real, 1, real, 2) == 0.5
    assert pair(real, 2, real, 3) == 0.75
    other = space.transform(pd.DataFrame({"x": [np.inf, -largest]}))
    assert pair(other, 0, real, 0) == 0.0 and pair(other, 1, real, 0) == 1.0  # clipped, never NaN
