"""Subset neighbours read from shared lists equal direct searches of the subsets, bit for bit."""

import numpy as np
import pandas as pd
import pytest

from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.privacy.distance_space import EmbeddedRows
from reportgen.privacy.neighbour_lists import SubsetNeighbours, worth_sharing
from reportgen.privacy.neighbours import knn
from reportgen.privacy.proximity import ProximitySearches, nearest_neighbour_distances, proximity_stats


def rows_with_ties(rng: np.random.Generator, n: int, d: int = 4) -> np.ndarray:
    """Rows on a coarse grid (many exact ties) with some exact duplicates."""
    x = rng.integers(0, 3, size=(n, d)).astype(np.float32) / 2
    x[: n // 10] = x[n // 10 : 2 * (n // 10)]  # a tenth duplicated
    return x[rng.permutation(n)]


def shared(rows: EmbeddedRows, k: int) -> ProximitySearches:
    """Every search shared, with short lists (k) so that many rows fall back to an exact search."""
    test = rows.test
    return ProximitySearches(
        SubsetNeighbours.prepare(rows.train, None, share=True, k=k),
        SubsetNeighbours.prepare(rows.train, rows.synth, share=True, k=k),
        None if test is None else SubsetNeighbours.prepare(rows.train, test, share=True, k=k),
        None if test is None else SubsetNeighbours.prepare(test, rows.synth, share=True, k=k),
        None if test is None else SubsetNeighbours.prepare(test, rows.train, share=True, k=k),
    )


@pytest.mark.parametrize("k", [1, 3, 16])
@pytest.mark.parametrize("within", [True, False])
def test_nearest_in_a_subset_equals_a_direct_search(k, within):
    rng = np.random.default_rng(k + within)
    query = rng.normal(size=(300, 3)).astype(np.float32)
    query[:40] = query[40:80]  # duplicates: a row's twin is at distance 0
    reference = None if within else rng.normal(size=(250, 3)).astype(np.float32)
    lists = SubsetNeighbours.prepare(query, reference, share=True, k=k)
    n_reference = len(query) if within else 250
    for _ in range(5):
        rows = rng.choice(len(query), size=120, replace=False)
        subset = rng.choice(n_reference, size=100, replace=False)
        expected = SubsetNeighbours(query, reference, None).nearest(rows, subset)
        np.testing.assert_array_equal(lists.nearest(rows, subset), expected)
    same = rng.choice(n_reference, size=150, replace=False)  # within one subset: self left out
    direct = knn(query[same])[0][:, 0] if within else knn(query[same], reference[same])[0][:, 0]
    np.testing.assert_array_equal(lists.nearest(same, same), direct)


@pytest.mark.parametrize("k", [1, 4, 16])
@pytest.mark.parametrize("with_holdout", [True, False])
def test_proximity_stats_are_the_same_with_shared_searches(k, with_holdout):
    rng = np.random.default_rng(7)
    train, synth = rows_with_ties(rng, 400), rows_with_ties(rng, 300)
    test = rows_with_ties(rng, 250) if with_holdout else None
    rows = EmbeddedRows(train, synth, test)

    def stats(searches):
        return proximity_stats(
            rows,
            np.random.default_rng(1),
            holdout_rng=np.random.default_rng(2),
            n_repeats=4,
            searches=searches,
        )

    direct, lists = stats(ProximitySearches.direct(rows)), stats(shared(rows, k))
    assert lists.model_dump() == direct.model_dump()


@pytest.mark.parametrize("k", [2, 16])
def test_nearest_neighbour_curves_are_the_same_with_shared_searches(k):
    rng = np.random.default_rng(3)
    rows = EmbeddedRows(rows_with_ties(rng, 500), rows_with_ties(rng, 260), rows_with_ties(rng, 300))
    frames = {TRAIN: pd.DataFrame(rows.train), SYNTH: pd.DataFrame(rows.synth), TEST: pd.DataFrame(rows.test)}
    direct = nearest_neighbour_distances(rows, np.random.default_rng(4), frames=frames)
    lists = nearest_neighbour_distances(
        rows, np.random.default_rng(4), frames=frames, searches=shared(rows, k)
    )
    assert lists.model_dump() == direct.model_dump()


def test_sharing_is_chosen_by_cost():
    assert worth_sharing(32_561, 32_561, 11, 16_280, 16_280)  # adult: 11 searches of half the rows
    assert not worth_sharing(1_000, 50_000, 5, 500, 500)  # a small training set, a large synthetic one
