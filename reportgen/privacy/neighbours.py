"""Exact k-nearest-neighbour search in the shared distance space (METRICS.md section 5).

``knn(query, reference)`` finds, for every query row, its ``k`` nearest reference rows by Euclidean
distance; ``knn(query)`` searches within ``query`` and excludes each row itself *by index*, so that
an exact duplicate finds its twin at distance 0. The privacy sections (1-NN distances, proximity
ratios, authenticity) all use this one engine, and ``brute_force_knn`` is its exact, simple oracle.

How a float32 search stays exact:

1. Rows that are bit-for-bit equal are grouped, and each distinct vector is searched once (a table
   of categories holds few distinct rows). A group lists its rows by increasing index. (A row with
   -0.0 where its twin has 0.0 forms a group of its own: same results, the work is just not shared.)
2. Pass 1, float32: a matrix product on centred data gives each pair the score
   ``s = ||r||^2 - 2 q.r`` (the squared distance less ``||q||^2``), block by block, and a running
   top-``G`` per query row keeps the ``G = k + MARGIN`` distinct reference vectors of lowest score.
   Blocks are bounded (``chunk_rows`` by ``chunk_rows``), so memory does not grow with the sizes.
3. Refine, float64: the candidates' distances are recomputed directly as ``sum((q - r)^2)`` and
   their rows ordered by (distance, index).
4. Certificate: every reference vector left out scored at least ``T`` (the largest kept score), and
   the float32 rounding error of a score is at most ``delta`` (the dot-product bound
   ``gamma_n = n u / (1 - n u)`` of Higham, *Accuracy and Stability of Numerical Algorithms* 3.1,
   times 2 for safety), so its exact squared distance is at least ``T - delta + ||q||^2``. When the
   k-th refined distance lies below that, nothing left out can come closer or tie: the row is done.
5. Pass 2, only for the rows without a certificate (near-ties at the boundary): every reference
   vector whose score lies within ``delta`` of the k-th refined distance is recomputed exactly.

Ties: among reference rows at exactly the same distance the lowest index comes first, so results
do not depend on chunk sizes, thread counts or the device. scikit-learn's brute-force search gives
the same distances; which of several exactly tied rows it returns is not specified.

Inputs are converted to float32 (the engine's data type); distances are exact for those values,
computed in float64 and returned as float32.

Speed: on a CPU the matrix product runs in NumPy (1.25x to 2x faster than torch's on the 2-core
machine this was tuned on, see ``benchmarks/bench_neighbours.py``) and the selection in torch
(whose per-segment minimum is about 20x faster than NumPy's). ``n_threads`` workers each take
blocks of query rows with single-threaded BLAS and torch, so a core busy with another process slows
the search by its share instead of stalling every product (multi-threaded BLAS waits for its
slowest thread each time). The selection scans a block once for per-segment minima and visits only
segments that can hold a candidate, so the search costs about 1.5 plain products of the same shapes.
Pass 1 keeps ``MARGIN = 2`` candidates beyond ``k``: a wider margin only loosens the threshold
(more scores pass the filter and are merged), and pass 2 stays rare with 2 (one thread, 12,000 x
12,000 rows, ``benchmarks/bench_search_margin.py``: margin 8 -> 2 took adult's distance space from
1.53 to 1.35 CPU s at k = 16 and 0.87 to 0.67 at k = 1, 25 dense features from 0.57 to 0.43 at
k = 1, and adult's categoricals alone, full of ties, from 0.89 to 0.88; margin 0 was slower on
every case but the last).
On a GPU (``device="cuda"``) every step runs in torch on the device, with TF32 off for the search.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch

from reportgen.errors import DataError, InvalidParameterError
from reportgen.params import InstanceOf, Interval, NoneValue, Options, check_param, validate_params
from reportgen.threads import map_in_threads, one_thread_each, usable_cores

MARGIN = 2  # extra candidates per row in pass 1 (see the module docstring, "Speed")
SEGMENT = 64  # columns per segment when scanning a block for candidates
CPU_CHUNK_ROWS = 2048  # a block of 2048 x 2048 float32 scores is 16 MB per worker thread
GPU_CHUNK_ROWS = 16384  # 1 GB per block on a GPU
EXACT_VALUES_PER_STEP = 1 << 21  # float64 values per exact-distance step (16 MB per array)
_U = 2.0**-24  # unit roundoff of float32


@validate_params(
    {
        "k": [Interval(int, 1, None)],
        "device": [NoneValue(), InstanceOf((str, torch.device), "a str or a torch.device")],
        "backend": [NoneValue(), Options(("numpy", "torch"))],
        "chunk_rows": [NoneValue(), Interval(int, 1, None)],
        "n_threads": [NoneValue(), Interval(int, 1, None)],
    }
)
def knn(
    query: Any,
    reference: Any = None,
    *,
    k: int = 1,
    device: str | torch.device | None = None,
    backend: str | None = None,
    chunk_rows: int | None = None,
    n_threads: int | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Exact Euclidean k nearest neighbours: ``(distances float32 (n, k), indices int64 (n, k))``.

    ``reference=None`` searches within ``query``, excluding each row itself by index (a reference
    that merely equals the query is a separate set: each row then finds itself at distance 0).
    Each result row is sorted by distance, ties by lowest reference index.

    - ``device``: ``None`` (the default: the device of the report in progress, see ``searching_on``;
      the CPU outside a report, even where a GPU exists), ``"cpu"``, ``"cuda"`` or any CUDA
      device, or ``"auto"`` (CUDA when torch sees one, else the CPU);
    - ``backend``: ``"numpy"`` (CPU only: NumPy's matrix product, torch for the selection) or
      ``"torch"`` (torch throughout, on any device); ``None`` picks NumPy on the CPU;
    - ``chunk_rows``: a block of scores holds ``chunk_rows`` query by ``chunk_rows`` reference rows
      (default 2048 on the CPU, 16 MB per worker; 16384 on a GPU, 1 GB);
    - ``n_threads``: CPU worker threads (default: the cores this process may run on).
    """
    within = reference is None
    q = _as_matrix(query, "query")
    r = q if within else _as_matrix(reference, "reference")
    _check_sizes(q, r, k, within)
    engine = _Engine.create(device, backend, chunk_rows, n_threads)
    if len(q) == 0:
        return np.zeros((0, k), np.float32), np.zeros((0, k), np.int64)
    k_search = k + 1 if within else k
    targets = _Groups.of(r, k_search)
    queries = targets if within else _Groups.of(q, 0)
    d2, idx = engine.search(queries.vectors, targets, k_search)
    d2, idx = d2[queries.inverse], idx[queries.inverse]
    if within:
        d2, idx = _drop_self(d2, idx)
    return np.sqrt(d2).astype(np.float32), idx


def brute_force_knn(query: Any, reference: Any = None, *, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The oracle of ``knn``: every distance in float64, a stable sort, no tricks.

    Same conventions as ``knn`` (float32 inputs, self excluded by index when ``reference`` is
    None, ties by lowest index). Time grows as ``n x m``: for tests and checks on small data.
    """
    check_param("brute_force_knn", "k", k, [Interval(int, 1, None)])
    within = reference is None
    q = _as_matrix(query, "query")
    r = q if within else _as_matrix(reference, "reference")
    _check_sizes(q, r, k, within)
    distances = np.empty((len(q), k), np.float32)
    indices = np.empty((len(q), k), np.int64)
    step = max(1, (1 << 22) // max(1, len(r) * r.shape[1]))
    for start in range(0, len(q), step):
        rows = np.arange(start, min(start + step, len(q)))
        d2 = exact_sq_distances(np.repeat(q[rows], len(r), axis=0), np.tile(r, (len(rows), 1)))
        d2 = d2.reshape(len(rows), len(r))
        if within:
            d2[np.arange(len(rows)), rows] = np.inf
        order = np.argsort(d2, axis=1, kind="stable")[:, :k]
        distances[rows] = np.sqrt(np.take_along_axis(d2, order, axis=1))
        indices[rows] = order
    return distances, indices


def exact_sq_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Squared distances between the rows of ``a`` and ``b`` (same shape), in float64."""
    diff = a.astype(np.float64) - b.astype(np.float64)
    return (diff * diff).sum(axis=1)


def _as_matrix(values: Any, name: str) -> np.ndarray:
    """A C-contiguous float32 matrix with at least one column, or a clear error."""
    array = np.asarray(values)
    if array.ndim != 2:
        raise InvalidParameterError(
            f"The {name!r} parameter of knn must be a 2-D array (rows x features). Got an array "
            f"of shape {array.shape} instead."
        )
    if not (np.issubdtype(array.dtype, np.number) or array.dtype == bool):
        raise InvalidParameterError(
            f"The {name!r} parameter of knn must hold numbers. Got dtype {array.dtype} instead; "
            "embed mixed data with reportgen.privacy.distance_space.DistanceSpace first."
        )
    matrix = np.ascontiguousarray(array, dtype=np.float32)
    bad = ~np.isfinite(matrix)
    if bad.any():
        rows = np.flatnonzero(bad.any(axis=1))
        raise DataError(
            f"The {name} of the neighbour search holds {int(bad.sum())} NaN or infinite values "
            f"(or values beyond the float32 range), in {len(rows)} rows such as {rows[:5].tolist()}. "
            "Embed the data with DistanceSpace, which encodes missing values, or drop those rows."
        )
    if matrix.shape[1] == 0:  # no features: every distance is 0
        matrix = np.zeros((len(matrix), 1), np.float32)
    return matrix


def _check_sizes(q: np.ndarray, r: np.ndarray, k: int, within: bool) -> None:
    if q.shape[1] != r.shape[1]:
        raise InvalidParameterError(
            f"The query has {q.shape[1]} features but the reference has {r.shape[1]}; both must be "
            "embedded in the same distance space."
        )
    available = len(r) - 1 if within else len(r)
    if k > available:
        what = "other rows in the query set" if within else "rows in the reference set"
        raise InvalidParameterError(
            f"The 'k' parameter of knn must be at most the number of {what} ({available}). Got {k} instead."
        )


def _sq_norms(x: np.ndarray) -> np.ndarray:
    """Squared row norms of a float32 matrix, accumulated in float64 (in slices: no big copy)."""
    out = np.empty(len(x))
    step = _pairs_per_step(x.shape[1])
    for start in range(0, len(x), step):
        part = x[start : start + step]
        out[start : start + step] = np.einsum("ij,ij->i", part, part, dtype=np.float64)
    return out


def _pairs_per_step(n_features: int) -> int:
    """How many rows or pairs one step of float64 work takes, so its arrays stay near 16 MB."""
    return max(1, EXACT_VALUES_PER_STEP // n_features)


def _check_range(sq_norms: np.ndarray, name: str) -> None:
    """Scores are float32: squared norms (after centring) must stay far below its largest value."""
    if len(sq_norms) and sq_norms.max() > np.finfo(np.float32).max / 16:
        raise DataError(
            f"The {name} of the neighbour search holds values too large for float32 arithmetic "
            f"(squared norms up to {sq_norms.max():.3g} after centring); rescale the data."
        )


def _drop_self(d2: np.ndarray, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Remove each row's own index from its k + 1 neighbours (else drop the last one)."""
    n, width = idx.shape
    keep = idx != np.arange(n)[:, None]
    keep[keep.all(axis=1), -1] = False
    return d2[keep].reshape(n, width - 1), idx[keep].reshape(n, width - 1)


@dataclass(frozen=True)
class _Groups:
    """The distinct rows of a matrix, which rows hold each, and each group's lowest row indices."""

    vectors: np.ndarray  # (m, d) float32, groups in order of their first row
    inverse: np.ndarray  # (n,) group of each row
    first_rows: np.ndarray  # (m, width) lowest row indices of each group, padded with -1

    @classmethod
    def of(cls, x: np.ndarray, width: int) -> _Groups:
        first, inverse = distinct_rows(x)
        if len(first) == len(x):  # all distinct: no copy
            every = np.arange(len(x))
            return cls(x, every, _first_rows(every, len(x), width))
        by_first = np.argsort(first, kind="stable")
        rank = np.empty_like(by_first)
        rank[by_first] = np.arange(len(by_first))
        inverse = rank[inverse]
        return cls(x[first[by_first]], inverse, _first_rows(inverse, len(first), width))


def distinct_rows(*arrays: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One row index per distinct row (equal bit for bit in every array), and each row's group.

    ``arrays[i][first][group]`` is ``arrays[i]``; groups are numbered in the order of their bytes.
    """
    raw = np.hstack([np.ascontiguousarray(a).reshape(len(a), -1).view(np.uint8) for a in arrays])
    keys = raw.view(np.dtype((np.void, raw.shape[1]))).ravel()
    _, first, group = np.unique(keys, return_index=True, return_inverse=True)
    return first, group.ravel()


def _first_rows(inverse: np.ndarray, n_groups: int, width: int) -> np.ndarray:
    rows = np.argsort(inverse, kind="stable")  # grouped, increasing row index within a group
    counts = np.bincount(inverse, minlength=n_groups)
    starts = np.cumsum(counts) - counts
    slot = np.arange(width)
    position = np.minimum(starts[:, None] + slot, max(len(rows) - 1, 0))
    return np.where(slot < counts[:, None], rows[position], -1).astype(np.int64)


@dataclass
class _Reference:
    """The distinct reference vectors prepared for scoring: centred, float32, augmented."""

    groups: _Groups
    center: np.ndarray  # float32 (d,): the same shift for both sides, so no distance changes
    augmented: Any  # (m_padded, d + 1) rows [-2 r', ||r'||^2], then zero rows up to whole blocks
    n_vectors: int
    sq_norm_max: float  # largest ||r'||^2


@dataclass
class _Engine:
    """Where and how blocks of scores are computed; the loop over blocks is the same everywhere."""

    device: torch.device
    numpy_matmul: bool
    chunk_rows: int
    n_threads: int

    @classmethod
    def create(
        cls,
        device: str | torch.device | None,
        backend: str | None,
        chunk_rows: int | None,
        n_threads: int | None,
    ) -> _Engine:
        target = resolve_device(device)
        on_cpu = target.type == "cpu"
        if backend == "numpy" and not on_cpu:
            raise InvalidParameterError(
                f"The 'backend' parameter of knn can be 'numpy' only on the CPU. Got device {target} "
                "instead; use backend='torch' or leave it as None."
            )
        numpy_matmul = on_cpu and backend != "torch"
        chunk = chunk_rows or (CPU_CHUNK_ROWS if on_cpu else GPU_CHUNK_ROWS)
        threads = (n_threads or usable_cores()) if on_cpu else 1
        return cls(target, numpy_matmul, chunk, threads)

    @property
    def segment(self) -> int:
        return min(SEGMENT, self.chunk_rows)

    @property
    def block_columns(self) -> int:
        """Reference rows per block: ``chunk_rows`` rounded up to whole segments."""
        return -(-self.chunk_rows // self.segment) * self.segment

    def search(self, queries: np.ndarray, groups: _Groups, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Exact top-``k`` (squared distance, row index) of each query vector among the rows."""
        reference = self._prepare(groups)
        step = self.query_rows(len(queries))
        starts = range(0, len(queries), step)

        def one(start: int) -> tuple[np.ndarray, np.ndarray]:
            return _search_chunk(self, queries[start : start + step], reference, k)

        if self.n_threads == 1 or len(starts) == 1:
            with self._threads():
                parts = [one(s) for s in starts]
        else:  # only on the CPU
            parts = map_in_threads(one, starts, workers=self.n_threads)
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def query_rows(self, n_queries: int) -> int:
        """Query rows per block: at most ``chunk_rows``, in as many equal blocks as keep every worker busy.

        The number of blocks is a multiple of ``n_threads``, so 2,000 queries on two threads are two
        blocks of 1,000 (not one block on one thread) and 5,000 are four of 1,250 (not 2,048 + 2,048 +
        904, which leaves one thread idle for a third of the time). The answers do not depend on it.
        """
        blocks = max(1, -(-n_queries // self.chunk_rows))
        blocks = -(-blocks // self.n_threads) * self.n_threads
        return max(1, -(-n_queries // blocks))

    def _prepare(self, groups: _Groups) -> _Reference:
        vectors = groups.vectors
        m, d = vectors.shape
        center = vectors.mean(axis=0, dtype=np.float64).astype(np.float32)
        augmented = np.zeros((-(-m // self.block_columns) * self.block_columns, d + 1), np.float32)
        body = augmented[:m, :d]
        np.subtract(vectors, center, out=body)
        sq_norms = _sq_norms(body)
        _check_range(sq_norms, "reference")
        body *= -2
        augmented[:m, d] = sq_norms
        return _Reference(groups, center, self.to_device(augmented), m, float(sq_norms.max()))

    def to_device(self, array: np.ndarray) -> Any:
        return array if self.numpy_matmul else torch.from_numpy(array).to(self.device)

    def scores(self, qa: Any, ra: Any, out: np.ndarray | None) -> torch.Tensor:
        """One block of float32 scores, as a torch tensor (on the CPU: sharing NumPy's memory)."""
        if self.numpy_matmul:
            return torch.from_numpy(np.matmul(qa, ra.T, out=out))
        return qa @ ra.T

    @contextlib.contextmanager
    def _threads(self) -> Iterator[None]:
        """Single-threaded BLAS and torch inside each worker; full float32 precision on GPUs."""
        if self.device.type != "cpu":
            previous = torch.get_float32_matmul_precision()
            torch.set_float32_matmul_precision("highest")
            try:
                yield
            finally:
                torch.set_float32_matmul_precision(previous)
            return
        with one_thread_each():
            yield


_RUN_DEVICE: contextvars.ContextVar[torch.device | None] = contextvars.ContextVar(
    "reportgen_run_device", default=None
)


@contextlib.contextmanager
def searching_on(device: torch.device) -> Iterator[None]:
    """Every ``knn`` that names no device runs on ``device`` inside the block.

    ``reportgen.evaluation.evaluate`` sets the report's ``device`` setting this way around all its
    sections, so the searches deep in the privacy modules need no device parameter. A context
    variable: the section thread beside the others and ``map_in_threads`` workers inherit it.
    """
    token = _RUN_DEVICE.set(device)
    try:
        yield
    finally:
        _RUN_DEVICE.reset(token)


def resolve_device(device: str | torch.device | None, where: str = "knn") -> torch.device:
    """The torch device ``device`` names, checked.

    ``None`` is the run's (``searching_on``; outside a run the CPU), ``"auto"`` CUDA when torch sees
    a GPU, else the CPU. Unknown names and a CUDA device torch cannot see are refused, naming
    ``where`` (the function or setting that was given it).
    """
    if device is None:
        return _RUN_DEVICE.get() or torch.device("cpu")
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        target = torch.device(device)
    except RuntimeError:
        raise InvalidParameterError(
            f"The 'device' parameter of {where} must name a torch device ('cpu', 'cuda', 'cuda:1', "
            f"'auto'). Got {device!r} instead."
        ) from None
    if target.type == "cuda" and not torch.cuda.is_available():
        raise InvalidParameterError(
            f"The 'device' parameter of {where} asks for {device!r}, but torch sees no CUDA device "
            "here. Use 'cpu', or 'auto' (a GPU where torch sees one, else the CPU)."
        )
    if target.type not in ("cpu", "cuda"):
        raise InvalidParameterError(
            f"The 'device' parameter of {where} asks for {device!r}; reportgen runs on 'cpu' or "
            "'cuda' devices only."
        )
    return target


def describe_device(device: torch.device) -> str:
    """``device`` as the run record shows it: ``"cpu"``, or ``"cuda:0 (NVIDIA H200)"``."""
    if device.type != "cuda":
        return str(device)
    index = device.index if device.index is not None else torch.cuda.current_device()
    return f"cuda:{index} ({torch.cuda.get_device_name(index)})"


def _search_chunk(
    engine: _Engine, queries: np.ndarray, reference: _Reference, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Pass 1, refine, certificate and (where needed) pass 2 for one block of query vectors."""
    if reference.n_vectors <= k + MARGIN:  # few distinct vectors: refine them all
        candidates = np.broadcast_to(np.arange(reference.n_vectors), (len(queries), reference.n_vectors))
        return _refine(queries, candidates, reference.groups, k)
    centred = queries - reference.center
    q_norms = _sq_norms(centred)
    _check_range(q_norms, "query")
    scores, candidates = _pass1(engine, _augmented_queries(engine, centred), reference, k + MARGIN)
    d2, idx = _refine(queries, candidates, reference.groups, k)
    slack = _error_bound(queries.shape[1] + 1, q_norms, reference.sq_norm_max)
    uncertain = np.flatnonzero(d2[:, -1] >= scores.max(axis=1).astype(np.float64) - slack + q_norms)
    if len(uncertain):
        bound = d2[uncertain, -1] - q_norms[uncertain] + slack[uncertain]
        qa = _augmented_queries(engine, centred[uncertain])
        d2[uncertain], idx[uncertain] = _pass2(engine, queries[uncertain], qa, reference, k, bound)
    return d2, idx


def _augmented_queries(engine: _Engine, centred: np.ndarray) -> Any:
    """Rows ``[q', 1]``: their product with ``[-2 r', ||r'||^2]`` is the score."""
    return engine.to_device(np.hstack([centred, np.ones((len(centred), 1), np.float32)]))


def _error_bound(n_terms: int, q_norms: np.ndarray, r_norm_max: float) -> np.ndarray:
    """Twice a bound on |float32 score - exact score| of any pair for each query row.

    The product sums ``n_terms`` terms whose absolute values add up to at most
    ``||q'||^2 + 2 ||r'||^2``, which bounds its error by ``gamma_n`` times that; rounding the
    centred data and the norms to float32 adds at most ``5 u`` times the same.
    """
    gamma = n_terms * _U / (1 - n_terms * _U)
    return 2 * (gamma + 5 * _U) * (q_norms + 2 * r_norm_max) + 1e-30


def _pass1(engine: _Engine, qa: Any, reference: _Reference, g: int) -> tuple[np.ndarray, np.ndarray]:
    """Running top-``g`` lowest float32 scores (and their vector ids) of each query row."""
    n = len(qa)
    best = np.full((n, g), np.inf, np.float32)
    ids = np.full((n, g), -1, np.int64)
    threshold = np.full(n, np.inf, np.float32)
    for start, block in _blocks(engine, qa, reference):
        segments = _segment_minima(block, engine.segment)
        bound = _as_tensor(threshold, block)
        if start == 0 and segments.shape[1] > g:  # g segments hold at least g scores this low
            bound = torch.minimum(bound, torch.kthvalue(segments, g, dim=1).values)
        rows, cols, values = _entries_at_most(block, segments, bound, engine.segment)
        best, ids = _merge_lowest(best, ids, rows, cols + start, values)
        threshold = best.max(axis=1)
    return best, ids


def _pass2(
    engine: _Engine, queries: np.ndarray, qa: Any, reference: _Reference, k: int, bound: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-``k`` among every vector whose score is at most ``bound`` (rounded up)."""
    best = np.full((len(queries), k), np.inf)
    rows_best = np.full((len(queries), k), -1, np.int64)
    limit = np.nextafter(bound.astype(np.float32), np.float32(np.inf))
    for start, block in _blocks(engine, qa, reference):
        segments = _segment_minima(block, engine.segment)
        rows, cols, _ = _entries_at_most(block, segments, _as_tensor(limit, block), engine.segment)
        step = _pairs_per_step(queries.shape[1])
        for s in range(0, len(rows), step):
            pair_rows, pair_ids = rows[s : s + step], cols[s : s + step] + start
            d2, members = _expand(queries[pair_rows], pair_ids, reference.groups)
            best, rows_best = _merge_exact(
                best, rows_best, np.repeat(pair_rows, members.shape[1]), d2, members
            )
    return best, rows_best


def _blocks(engine: _Engine, qa: Any, reference: _Reference) -> Iterator[tuple[int, torch.Tensor]]:
    """Blocks of scores of the query rows against successive reference blocks (padding: +inf)."""
    width = engine.block_columns
    out = np.empty((len(qa), width), np.float32) if engine.numpy_matmul else None
    for start in range(0, reference.n_vectors, width):
        block = engine.scores(qa, reference.augmented[start : start + width], out)
        block[:, reference.n_vectors - start :] = np.inf
        yield start, block


def _as_tensor(values: np.ndarray, like: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(np.ascontiguousarray(values, dtype=np.float32)).to(like.device)


def _segment_minima(block: torch.Tensor, segment: int) -> torch.Tensor:
    return block.view(block.shape[0], -1, segment).amin(dim=2)


def _entries_at_most(
    block: torch.Tensor, segments: torch.Tensor, bound: torch.Tensor, segment: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, column, score) of every finite score at most ``bound[row]``, rows in increasing order.

    Whole segments above the bound are skipped first, so a pass over a block costs about one
    reduction when few entries qualify.
    """
    seg_rows, seg_ids = torch.nonzero(segments <= bound[:, None], as_tuple=True)
    values = block.view(block.shape[0], -1, segment)[seg_rows, seg_ids]
    below = values <= bound[seg_rows, None]
    if not bool(torch.isfinite(bound).all()):
        below &= torch.isfinite(values)  # padding columns score +inf
    hit, offset = torch.nonzero(below, as_tuple=True)
    rows = seg_rows[hit].cpu().numpy()
    cols = (seg_ids[hit] * segment + offset).cpu().numpy()
    return rows.astype(np.int64), cols.astype(np.int64), values[hit, offset].cpu().numpy()


def _padded(
    best: np.ndarray, ids: np.ndarray, rows: np.ndarray, values: np.ndarray, new_ids: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The affected rows of ``best`` / ``ids`` widened by their new entries (inf / -1 padding)."""
    order = np.argsort(rows, kind="stable")
    rows, values, new_ids = rows[order], values[order], new_ids[order]
    first = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    affected = rows[first]
    counts = np.diff(np.r_[first, len(rows)])
    local = np.repeat(np.arange(len(affected)), counts)
    starts = first
    slot = np.arange(len(rows)) - starts[local] + best.shape[1]
    width = best.shape[1] + int(counts.max())
    pad_values = np.full((len(affected), width), np.inf, best.dtype)
    pad_ids = np.full((len(affected), width), -1, np.int64)
    pad_values[:, : best.shape[1]], pad_ids[:, : best.shape[1]] = best[affected], ids[affected]
    pad_values[local, slot], pad_ids[local, slot] = values, new_ids
    return affected, pad_values, pad_ids


def _merge_lowest(
    best: np.ndarray, ids: np.ndarray, rows: np.ndarray, new_ids: np.ndarray, values: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Keep the ``best.shape[1]`` lowest values per row among the old and the new entries."""
    if len(rows) == 0:
        return best, ids
    affected, pad_values, pad_ids = _padded(best, ids, rows, values, new_ids)
    g = best.shape[1]
    keep = np.argpartition(pad_values, g - 1, axis=1)[:, :g]
    best[affected] = np.take_along_axis(pad_values, keep, axis=1)
    ids[affected] = np.take_along_axis(pad_ids, keep, axis=1)
    return best, ids


def _merge_exact(
    best: np.ndarray, ids: np.ndarray, rows: np.ndarray, d2: np.ndarray, new_ids: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Keep the ``best.shape[1]`` smallest (distance, index) pairs per row, in that order.

    The new entries are first cut to that many per row, so a row with a crowd of near-ties costs
    a sort, not a wide padded matrix.
    """
    rows, d2, new_ids = _first_per_row(rows, d2.ravel(), new_ids.ravel(), best.shape[1])
    if len(rows) == 0:
        return best, ids
    affected, pad_d2, pad_ids = _padded(best, ids, rows, d2, new_ids)
    order = _lexical_order(pad_d2, pad_ids)[:, : best.shape[1]]
    best[affected] = np.take_along_axis(pad_d2, order, axis=1)
    ids[affected] = np.take_along_axis(pad_ids, order, axis=1)
    return best, ids


def _first_per_row(
    rows: np.ndarray, d2: np.ndarray, ids: np.ndarray, k: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``k`` smallest (distance, index) entries of each row (padding ids -1 dropped)."""
    valid = ids >= 0
    rows, d2, ids = rows[valid], d2[valid], ids[valid]
    order = np.lexsort((ids, d2, rows))
    rows, d2, ids = rows[order], d2[order], ids[order]
    first = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]]) if len(rows) else np.zeros(0, np.int64)
    rank = np.arange(len(rows)) - np.repeat(first, np.diff(np.r_[first, len(rows)]))
    keep = rank < k
    return rows[keep], d2[keep], ids[keep]


def _lexical_order(d2: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Per row, positions sorted by distance, then by index (padding, -1 with inf, last)."""
    by_index = np.argsort(np.where(ids < 0, np.iinfo(np.int64).max, ids), axis=1, kind="stable")
    by_distance = np.argsort(np.take_along_axis(d2, by_index, axis=1), axis=1, kind="stable")
    return np.take_along_axis(by_index, by_distance, axis=1)


def _expand(queries: np.ndarray, vector_ids: np.ndarray, groups: _Groups) -> tuple[np.ndarray, np.ndarray]:
    """Exact squared distances of (query, vector) pairs, repeated over the vectors' first rows."""
    d2 = exact_sq_distances(queries, groups.vectors[vector_ids])
    members = groups.first_rows[vector_ids]
    return np.repeat(d2, members.shape[1]).reshape(members.shape), members


def _refine(
    queries: np.ndarray, candidates: np.ndarray, groups: _Groups, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-``k`` (squared distance, row) among the rows of each query's candidate vectors."""
    n, g = candidates.shape
    step = max(1, _pairs_per_step(queries.shape[1]) // g)
    d2 = np.empty((n, k))
    idx = np.empty((n, k), np.int64)
    for s in range(0, n, step):
        block = candidates[s : s + step]
        rows = np.repeat(np.arange(len(block)), g)
        pair_d2, members = _expand(queries[s : s + step][rows], block.ravel(), groups)
        pair_d2 = np.where(members < 0, np.inf, pair_d2).reshape(len(block), -1)
        members = members.reshape(len(block), -1)
        order = _lexical_order(pair_d2, members)[:, :k]
        d2[s : s + step] = np.take_along_axis(pair_d2, order, axis=1)
        idx[s : s + step] = np.take_along_axis(members, order, axis=1)
    return d2, idx
