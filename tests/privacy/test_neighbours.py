"""The exact neighbour engine against scikit-learn's brute force and against its own oracle."""

import numpy as np
import pytest
import torch
from sklearn.neighbors import NearestNeighbors

import reportgen.privacy.neighbours as neighbours
from reportgen.errors import DataError, InvalidParameterError
from reportgen.privacy.neighbours import brute_force_knn, knn

BACKENDS = ["numpy", "torch"]


def sklearn_knn(query, reference, k):
    """scikit-learn's brute force; within a set (reference None) the first column is each row itself."""
    within = reference is None
    model = NearestNeighbors(n_neighbors=k + within, algorithm="brute").fit(query if within else reference)
    distances, indices = model.kneighbors(query)
    return (distances[:, 1:], indices[:, 1:]) if within else (distances, indices)


def untied(distances, k, gap=1e-5):
    """Positions whose distance differs from its neighbours' in the sorted row (index well defined)."""
    padded = np.column_stack([np.full(len(distances), -np.inf), distances, np.full(len(distances), np.inf)])
    return (np.diff(padded, axis=1)[:, :k] > gap) & (np.diff(padded, axis=1)[:, 1:] > gap)


def assert_same(result, expected):
    np.testing.assert_array_equal(result[0], expected[0])
    np.testing.assert_array_equal(result[1], expected[1])


@pytest.mark.parametrize(
    ("n", "m", "d", "k"), [(200, 300, 5, 1), (150, 90, 40, 4), (64, 1000, 2, 7), (1, 3, 3, 3)]
)
@pytest.mark.parametrize("backend", BACKENDS)
def test_agrees_with_sklearn_on_random_data(n, m, d, k, backend):
    rng = np.random.default_rng(n + m + d + k)
    query, reference = rng.random((n, d), np.float32), rng.random((m, d), np.float32)
    distances, indices = knn(query, reference, k=k, backend=backend)
    expected_d, expected_i = sklearn_knn(query, reference, k)
    assert distances.dtype == np.float32 and indices.dtype == np.int64
    np.testing.assert_allclose(distances, expected_d, rtol=1e-6, atol=1e-6)
    mask = untied(expected_d, k)
    assert mask.mean() > 0.9
    np.testing.assert_array_equal(indices[mask], expected_i[mask])
    assert_same((distances, indices), brute_force_knn(query, reference, k=k))


@pytest.mark.parametrize("backend", BACKENDS)
def test_within_a_set_excludes_each_row_by_index(backend):
    rng = np.random.default_rng(1)
    data = rng.random((300, 6), np.float32)
    data[100:110] = data[50]  # 11 copies of row 50
    distances, indices = knn(data, k=3, backend=backend)
    assert not (indices == np.arange(300)[:, None]).any()
    copies = [50, *range(100, 110)]
    for row in copies:
        np.testing.assert_array_equal(distances[row], 0.0)
        assert indices[row].tolist() == [c for c in copies if c != row][:3]
    expected_d, _ = sklearn_knn(data, None, 3)
    np.testing.assert_allclose(distances, expected_d, rtol=1e-6, atol=1e-6)
    assert_same((distances, indices), brute_force_knn(data, k=3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_planted_duplicates_and_copies(backend):
    rng = np.random.default_rng(2)
    reference = rng.random((400, 8), np.float32)
    reference[200:260] = reference[rng.integers(0, 200, 60)]
    query = np.vstack([reference[rng.integers(0, 400, 50)], rng.random((50, 8), np.float32)])
    distances, indices = knn(query, reference, k=2, backend=backend)
    assert_same((distances, indices), brute_force_knn(query, reference, k=2))
    np.testing.assert_array_equal(distances[:50, 0], 0.0)
    first_copy = [int(np.flatnonzero((reference == q).all(axis=1))[0]) for q in query[:50]]
    assert indices[:50, 0].tolist() == first_copy  # a tie goes to the lowest index
    np.testing.assert_allclose(distances, sklearn_knn(query, reference, 2)[0], rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("within", [False, True])
def test_exact_ties_on_an_integer_grid(backend, within):
    rng = np.random.default_rng(3)
    reference = rng.integers(0, 4, (500, 3)).astype(np.float32)
    query = rng.integers(0, 4, (200, 3)).astype(np.float32)
    args = (reference, None) if within else (query, reference)
    distances, indices = knn(*args, k=5, backend=backend)
    expected_d, _ = sklearn_knn(*args, 5)
    np.testing.assert_array_equal(distances, expected_d.astype(np.float32))  # integer squares: exact
    assert_same((distances, indices), brute_force_knn(*args, k=5))
    sources = reference if within else query
    np.testing.assert_array_equal(
        np.sqrt(((sources[:, None, :] - reference[indices]) ** 2).sum(-1)).astype(np.float32), distances
    )


@pytest.mark.parametrize("chunk_rows", [2, 7, 64])
@pytest.mark.parametrize("backend", BACKENDS)
def test_tiny_chunks_give_the_same_result(chunk_rows, backend):
    rng = np.random.default_rng(4)
    reference = np.vstack([rng.random((120, 4), np.float32), rng.integers(0, 2, (80, 4)).astype(np.float32)])
    query = np.vstack([reference[::7], rng.random((30, 4), np.float32)])
    for args in ((query, reference), (reference, None)):
        expected = knn(*args, k=3)
        assert_same(knn(*args, k=3, chunk_rows=chunk_rows, backend=backend), expected)
        assert_same(knn(*args, k=3, chunk_rows=chunk_rows, backend=backend, n_threads=2), expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_row_blocks(backend):
    rng = np.random.default_rng(9)
    reference = np.vstack([rng.random((20, 3), np.float32), np.zeros((10, 3), np.float32)])
    query = rng.random((15, 3), np.float32)
    for args in ((query, reference), (reference, None)):
        assert_same(knn(*args, k=2, chunk_rows=1, backend=backend), brute_force_knn(*args, k=2))


def test_all_identical_rows_give_zeros_not_nan():
    data = np.full((50, 5), 0.3, np.float32)
    distances, indices = knn(data, k=4)
    assert np.isfinite(distances).all()
    np.testing.assert_array_equal(distances, 0.0)
    assert indices[0].tolist() == [1, 2, 3, 4] and indices[3].tolist() == [0, 1, 2, 4]
    distances, indices = knn(data[:3], data, k=50)
    np.testing.assert_array_equal(indices, np.tile(np.arange(50), (3, 1)))


def test_negative_zero_is_a_twin_of_zero():
    data = np.array([[0.0, 1.0], [5.0, 5.0], [-0.0, 1.0], [0.0, 1.0]], np.float32)
    distances, indices = knn(data, k=2)
    np.testing.assert_array_equal(distances[[0, 2, 3]], 0.0)
    assert indices[:, 0].tolist() == [2, 0, 0, 0] and indices[2].tolist() == [0, 3]


def test_far_from_the_origin_needs_no_luck():
    """Naive float32 |q|^2 + |r|^2 - 2 q.r loses every digit at an offset of 1000; the engine does not."""
    rng = np.random.default_rng(5)
    data = (1000 + 1e-2 * rng.random((300, 10))).astype(np.float32)
    assert_same(knn(data[:100], data[100:], k=2), brute_force_knn(data[:100], data[100:], k=2))
    assert_same(knn(data, k=2), brute_force_knn(data, k=2))


@pytest.mark.parametrize("backend", BACKENDS)
def test_near_ties_beyond_float32_resolution_take_the_exact_path(backend, monkeypatch):
    """Points on a circle around the query differ in distance by less than float32 can tell."""
    calls = []
    exact_pass = neighbours._pass2
    monkeypatch.setattr(neighbours, "_pass2", lambda *a, **kw: calls.append(1) or exact_pass(*a, **kw))
    rng = np.random.default_rng(6)
    angles = rng.random(200) * 2 * np.pi
    radius = 1 + 1e-6 * rng.random(200)
    reference = np.column_stack([radius * np.cos(angles), radius * np.sin(angles)]).astype(np.float32)
    query = np.zeros((3, 2), np.float32)
    result = knn(query, reference, k=2, backend=backend, chunk_rows=64)
    assert calls
    assert_same(result, brute_force_knn(query, reference, k=2))


@pytest.mark.parametrize("margin", [0, 1, 2, 8])
def test_the_answers_do_not_depend_on_the_margin_of_pass_1(margin, monkeypatch):
    """Pass 1 keeps ``k + MARGIN`` candidates per row, a speed setting: any margin gives the oracle's
    answers, on data full of exact ties (categories) and of near ties (a rounded number beside them)."""
    monkeypatch.setattr(neighbours, "MARGIN", margin)
    rng = np.random.default_rng(11)
    grid = rng.integers(0, 3, size=(400, 4)).astype(np.float32) * np.float32(np.sqrt(0.5))
    mixed = np.hstack([grid, rng.random((400, 1), np.float32).round(1)])
    for data in (grid, mixed):
        query, reference = data[:150], data[150:]
        assert_same(knn(query, reference, k=5, chunk_rows=64), brute_force_knn(query, reference, k=5))
        assert_same(knn(data, k=3, chunk_rows=64), brute_force_knn(data, k=3))


def test_no_features_means_every_distance_is_zero():
    distances, indices = knn(np.zeros((4, 0)), k=2)
    np.testing.assert_array_equal(distances, 0.0)
    assert indices.tolist() == [[1, 2], [0, 2], [0, 1], [0, 1]]


def test_empty_query_and_float64_input():
    distances, indices = knn(np.zeros((0, 3)), np.ones((2, 3)), k=2)
    assert distances.shape == indices.shape == (0, 2)
    data = np.random.default_rng(7).random((20, 3))  # float64 in: converted to float32
    assert_same(knn(data, k=1), knn(data.astype(np.float32), k=1))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_gpu_gives_the_cpu_result():
    rng = np.random.default_rng(8)
    reference = np.vstack(
        [rng.random((3000, 20), np.float32), rng.integers(0, 2, (1000, 20)).astype(np.float32)]
    )
    query = np.vstack([reference[::5], rng.random((500, 20), np.float32)])
    for args in ((query, reference), (reference, None)):
        assert_same(knn(*args, k=3, device="cuda"), knn(*args, k=3))
        assert_same(knn(*args, k=3, device="cuda", chunk_rows=700), knn(*args, k=3))


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"query": np.ones((3, 2)), "reference": np.ones((3, 3))},
            InvalidParameterError,
            "query has 2 features",
        ),
        (
            {"query": np.ones((3, 2)), "reference": np.ones((3, 2)), "k": 4},
            InvalidParameterError,
            r"at most the number of rows in the reference set \(3\). Got 4",
        ),
        (
            {"query": np.ones((3, 2)), "k": 3},
            InvalidParameterError,
            r"other rows in the query set \(2\). Got 3",
        ),
        (
            {"query": np.ones((3, 2)), "k": 0},
            InvalidParameterError,
            r"The 'k' parameter of knn must be an int in the range \[1, inf\). Got 0 instead.",
        ),
        ({"query": np.ones(3)}, InvalidParameterError, r"must be a 2-D array.*shape \(3,\)"),
        ({"query": np.array([["a", "b"]])}, InvalidParameterError, "must hold numbers"),
        (
            {"query": np.array([[1.0, np.nan], [0.0, 0.0]])},
            DataError,
            r"query of the neighbour search holds 1 NaN.*rows such as \[0\]",
        ),
        (
            {"query": np.ones((2, 2)), "reference": np.array([[np.inf, 0.0]])},
            DataError,
            "reference of the neighbour search holds 1",
        ),
        (
            {"query": np.ones((3, 2)), "reference": np.array([[1e30, 0], [-1e30, 0]])},
            DataError,
            "too large for float32",
        ),
        (
            {"query": np.ones((3, 2)), "backend": "faiss"},
            InvalidParameterError,
            "'backend' parameter of knn must be None or one of 'numpy', 'torch'. Got 'faiss'",
        ),
        (
            {"query": np.ones((3, 2)), "device": "tpu:x"},
            InvalidParameterError,
            "'device' parameter of knn must name a torch device",
        ),
        ({"query": np.ones((3, 2)), "chunk_rows": 0}, InvalidParameterError, "'chunk_rows' parameter"),
    ],
)
def test_errors_say_what_was_expected(kwargs, error, message):
    with pytest.raises(error, match=message):
        knn(**kwargs)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the message where CUDA is absent")
def test_asking_for_a_missing_gpu_is_an_error():
    with pytest.raises(InvalidParameterError, match="torch sees no CUDA device"):
        knn(np.ones((3, 2)), device="cuda")
    assert knn(np.eye(3), device="auto")[0].shape == (3, 1)


def test_oracle_validates_k():
    with pytest.raises(InvalidParameterError, match="'k' parameter of brute_force_knn"):
        brute_force_knn(np.ones((3, 2)), k=0)


@pytest.mark.parametrize(
    ("n_queries", "n_threads", "rows"), [(2000, 2, 1000), (5000, 2, 1250), (5000, 1, 1667), (0, 2, 1)]
)
def test_few_query_rows_are_split_so_that_every_worker_has_a_block(n_queries, n_threads, rows):
    assert neighbours._Engine.create(None, None, None, n_threads).query_rows(n_queries) == rows


@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_query_blocks_split_across_workers_give_the_same_result(n_threads):
    rng = np.random.default_rng(12)
    reference = np.vstack([rng.random((300, 4), np.float32), rng.integers(0, 2, (100, 4)).astype(np.float32)])
    query = np.vstack([reference[::5], rng.random((41, 4), np.float32)])
    for args in ((query, reference), (reference, None)):
        assert_same(knn(*args, k=4, chunk_rows=50, n_threads=n_threads), brute_force_knn(*args, k=4))
