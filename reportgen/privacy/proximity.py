"""Nearest-neighbour privacy statistics on embedded rows (METRICS.md sections 6 and 7).

Both work on rows already in the shared distance space (``PreparedTable.embedded``), so a table and
an entity-level view are measured by the same code. Every search goes through
``reportgen.privacy.neighbours.knn`` (exact, self excluded by index). The repeats and the 1-NN
curves ask for the nearest row of random subsets of the same sets; ``ProximitySearches`` searches
each pair of sets once and reads the subsets' answers from its neighbour lists where that costs
less (``reportgen.privacy.neighbour_lists``): the same distances, bit for bit.

Choices where METRICS.md is silent, stated in the report's methodology:

- 1-NN distances: the four curves use one common size ``m = min(|T|, |S|, |H|)``; the share of exact
  copies is counted on all sampled rows. A synthetic row is a copy when it equals a training row on
  every column of the distance space, values as given (a missing value equals a missing value), so a
  copy is at distance 0. The converse need not hold: values that the encoding merges (two pooled
  rare levels, two values beyond the clip, two timestamps closer than float32 resolves) put rows at
  distance 0 without making them copies. The check is hashed and streamed (``copy_share``): its
  memory grows with the rows, never with rows x rows or rows x levels.
- Proximity ratios: each repeat uses halves of ``h = min(|T| // 2, |S|)`` rows. The holdout ratio
  ``d(x, S') / d(x, R1)`` uses ``R1`` (``h`` rows) as the real set, so that its denominator, like
  TSPR's, is a distance to a set of ``h`` real rows (distances shrink as a set grows).
- The reference of the privacy score is the same score with ``h`` holdout rows in place of ``S'``
  in every repeat (same ``R1``, same threshold): what a generator that produced fresh real rows
  gets. It needs at least ``h`` holdout rows.
- The 95% interval of the privacy score is ``mean ± 1.96 x std`` over the repeats, clipped to
  [0, 100]: the range one repeat of these sizes may land in on fresh data. It is conservative for
  the score shown, the mean of the repeats, which varies about ``sqrt(n_repeats)`` times less: on
  data with 30% copied rows (1,200 and 4,000 rows, 30-40 independent draws) the std was 0.89-0.90
  times the spread of one repeat's score over the draws and 1.8-2.2 times that of the mean
  (``benchmarks/bench_privacy_std.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.privacy.distance_space import EmbeddedRows
from reportgen.privacy.neighbour_lists import SubsetNeighbours, worth_sharing
from reportgen.privacy.neighbours import knn

EPS = 1e-12
N_HIST_BINS = 40
COPY_CHUNK_ROWS = 65_536  # rows hashed and looked up at a time by the exact-copy check


class Histogram(BaseModel):
    """Counts on shared bins (the last bin also holds everything above its upper edge)."""

    edges: list[float]
    counts: dict[str, list[int]]


class NearestNeighbourDistances(BaseModel):
    """1-NN distance distributions at one common size, and the share of exact copies."""

    n_rows: int = Field(description="Common size m of the four samples.")
    medians: dict[str, float]
    histogram: Histogram
    exact_copies: float = Field(
        ge=0, le=1, description="Share of synthetic rows equal to a training row on every compared column."
    )
    exact_copies_holdout: float | None = Field(
        default=None, ge=0, le=1, description="Share of holdout rows equal to a training row (reference)."
    )


class PrivacyStats(BaseModel):
    """The proximity-ratio privacy score of one table, with its spread over repeats."""

    privacy_score: float = Field(ge=0, le=100, description="100 x min(1, p_T / p_S), mean over repeats.")
    privacy_score_std: float = Field(ge=0, description="Standard deviation over repeats.")
    privacy_score_interval: tuple[float, float]
    risk: float = Field(ge=0, le=1, description="Estimated share of training rows at risk.")
    risk_std: float = Field(ge=0)
    p_s: float = Field(ge=0, le=1, description="Share of TSPR at or below the threshold (mean).")
    p_t: float = Field(ge=0, le=1, description="Share of TTPR at or below the threshold (mean).")
    threshold: float = Field(ge=0, description="tau = q-quantile of TTPR (mean over repeats).")
    q: float
    risk_confidence: float | None
    n_repeats: int
    half_size: int = Field(description="Rows in R1, R2 and S' of each repeat.")
    duplicated_training_rows: float = Field(
        ge=0, le=1, description="Share of R1 rows with a duplicate in R1 (their ratios use eps)."
    )
    scores: list[float] = Field(description="The score of each repeat.")
    reference_score: float | None = Field(
        default=None,
        ge=0,
        le=100,
        description="The same score with holdout rows in place of S' (what a perfect generator gets; mean).",
    )
    histogram: Histogram = Field(description="TSPR, TTPR (and holdout ratio) pooled over repeats.")


def nearest_neighbour_distances(
    rows: EmbeddedRows,
    rng: np.random.Generator,
    *,
    frames: Mapping[str, pd.DataFrame],
    searches: ProximitySearches | None = None,
) -> NearestNeighbourDistances:
    """Real-to-real, synthetic-to-synthetic, synthetic-to-real and holdout-to-real 1-NN distances.

    ``frames`` holds the same rows per role (``"train"``, ``"synth"``, ``"test"``) with the distance
    space's columns as given: the exact copies are counted on them. ``searches``, those of the
    proximity ratios on the same rows, answers the real-to-real and holdout-to-real curves from its
    neighbour lists where it has them (the same distances as a direct search).
    """
    sizes = [len(rows.train), len(rows.synth)] + ([len(rows.test)] if rows.test is not None else [])
    m = min(sizes)
    searches = searches or ProximitySearches.direct(rows)
    train = _subsample_index(len(rows.train), m, rng)
    synth = rows.synth[_subsample_index(len(rows.synth), m, rng)]
    curves = {
        "real_to_real": searches.train_train.nearest(train, train),
        "synthetic_to_synthetic": knn(synth)[0][:, 0],
        "synthetic_to_real": knn(synth, rows.train[train])[0][:, 0],
    }
    if searches.test_train is not None:
        holdout = _subsample_index(len(searches.test_train.query), m, rng)
        curves["holdout_to_real"] = searches.test_train.nearest(holdout, train)
    return NearestNeighbourDistances(
        n_rows=m,
        medians={name: float(np.median(d)) for name, d in curves.items()},
        histogram=_histogram(curves, upper=max(float(np.quantile(d, 0.99)) for d in curves.values())),
        exact_copies=copy_share(frames[SYNTH], frames[TRAIN]),
        exact_copies_holdout=None if rows.test is None else copy_share(frames[TEST], frames[TRAIN]),
    )


def copy_share(rows: pd.DataFrame, reference: pd.DataFrame) -> float:
    """Share of ``rows`` equal to some row of ``reference`` on every column (missing equals missing)."""
    return float(copied_rows(rows, reference).mean()) if len(rows) else 0.0


def copied_rows(rows: pd.DataFrame, reference: pd.DataFrame) -> np.ndarray:
    """Whether each row of ``rows`` equals some row of ``reference`` on every column (missing equals missing).

    Hashed and streamed, so memory grows with the rows, never with rows x reference: each row's
    values become one 64-bit hash (``pandas.util.hash_pandas_object``), the reference's hashes are
    sorted once, and ``rows`` are looked up by binary search ``COPY_CHUNK_ROWS`` at a time. A hash
    match counts only once the values themselves are found equal, so a collision is never a copy.
    """
    found = np.zeros(len(rows), dtype=bool)
    if len(rows) == 0 or len(reference) == 0:
        return found
    hashes = _row_hashes(reference)
    order = np.argsort(hashes, kind="stable")
    known = hashes[order]
    for start in range(0, len(rows), COPY_CHUNK_ROWS):
        chunk = rows.iloc[start : start + COPY_CHUNK_ROWS]
        query = _row_hashes(chunk)
        low, high = np.searchsorted(known, query, "left"), np.searchsorted(known, query, "right")
        found[start : start + len(chunk)] = _confirmed(chunk, reference, order, low, high)
    return found


def _row_hashes(frame: pd.DataFrame) -> np.ndarray:
    """One uint64 hash per row of its values; equal values (-0.0 and 0.0, any NaN) hash alike."""
    columns = {}
    for column in frame.columns:
        values = frame[column]
        if pd.api.types.is_float_dtype(values.dtype):
            x = values.to_numpy(dtype=np.float64)
            values = pd.Series(np.where(np.isnan(x), np.nan, x + 0.0))
        columns[column] = values.reset_index(drop=True)
    return pd.util.hash_pandas_object(pd.DataFrame(columns), index=False).to_numpy()


def _confirmed(
    chunk: pd.DataFrame, reference: pd.DataFrame, order: np.ndarray, low: np.ndarray, high: np.ndarray
) -> np.ndarray:
    """Which rows of ``chunk`` equal a reference row of the same hash (``order[low:high]``).

    Compares each row with the first reference row of its hash, then, for the few that differ (a
    collision), with the next one, and so on.
    """
    found = np.zeros(len(chunk), dtype=bool)
    pending = np.flatnonzero(high > low)
    offset = 0
    while len(pending):
        same = _equal_rows(chunk.iloc[pending], reference.iloc[order[low[pending] + offset]])
        found[pending[same]] = True
        offset += 1
        pending = pending[~same & (low[pending] + offset < high[pending])]
    return found


def _equal_rows(a: pd.DataFrame, b: pd.DataFrame) -> np.ndarray:
    """Whether row ``i`` of ``a`` equals row ``i`` of ``b`` on every column (missing equals missing)."""
    equal = np.ones(len(a), dtype=bool)
    for column in a.columns:
        x, y = a[column].reset_index(drop=True), b[column].reset_index(drop=True)
        same = (x == y).fillna(False).to_numpy(dtype=bool)
        equal &= same | (x.isna() & y.isna()).to_numpy()
    return equal


class PrepareLists(Protocol):
    """``SubsetNeighbours.prepare``'s signature: the lists of ``query`` rows into ``reference``."""

    def __call__(
        self, query: np.ndarray, reference: np.ndarray | None, *, share: bool
    ) -> SubsetNeighbours: ...


@dataclass(frozen=True)
class ProximitySearches:
    """The searches behind the proximity ratios of one table, each shared over the repeats or not.

    ``train_train`` (within the training rows), ``train_synth``, ``train_test``, ``test_synth`` and
    ``test_train`` (query rows, then reference rows) answer every repeat's nearest-neighbour
    distances (``SubsetNeighbours``); the holdout ones are None without a holdout.
    """

    train_train: SubsetNeighbours
    train_synth: SubsetNeighbours
    train_test: SubsetNeighbours | None = None
    test_synth: SubsetNeighbours | None = None
    test_train: SubsetNeighbours | None = None

    @classmethod
    def plan(
        cls, rows: EmbeddedRows, n_repeats: int, *, real_lists: PrepareLists | None = None
    ) -> ProximitySearches:
        """One shared search per pair of sets where it is cheaper than the subsets' own searches.

        Counts the searches of ``n_repeats`` repeats and of the 1-NN curves, which read
        ``train_train`` and ``test_train`` once more. ``real_lists`` prepares the pairs of real
        rows only (``train_train``, ``train_test``, ``test_train``) in place of
        ``SubsetNeighbours.prepare``, with the same arguments and answers (a caller keeps them to
        reuse, see ``reportgen.real_side``).
        """
        half = min(len(rows.train) // 2, len(rows.synth))

        def pair(
            query: np.ndarray, reference: np.ndarray | None, searches: int, *, real: bool = False
        ) -> SubsetNeighbours:
            n_reference = len(query) if reference is None else len(reference)
            share = worth_sharing(len(query), n_reference, searches, half, half)
            prepare = real_lists if real and real_lists is not None else SubsetNeighbours.prepare
            return prepare(query, reference, share=share)

        train, synth, test = rows.train, rows.synth, rows.test
        if test is None:
            return cls(pair(train, None, 2 * n_repeats + 1, real=True), pair(train, synth, n_repeats))
        return cls(
            pair(train, None, 2 * n_repeats + 1, real=True),
            pair(train, synth, n_repeats),
            pair(train, test, n_repeats, real=True),
            pair(test, synth, n_repeats),
            pair(test, train, n_repeats + 1, real=True),
        )

    @classmethod
    def direct(cls, rows: EmbeddedRows) -> ProximitySearches:
        """Every subset searched on its own (no shared search)."""
        test = rows.test
        return cls(
            SubsetNeighbours(rows.train, None, None),
            SubsetNeighbours(rows.train, rows.synth, None),
            None if test is None else SubsetNeighbours(rows.train, test, None),
            None if test is None else SubsetNeighbours(test, rows.synth, None),
            None if test is None else SubsetNeighbours(test, rows.train, None),
        )


def proximity_stats(
    rows: EmbeddedRows,
    rng: np.random.Generator,
    *,
    holdout_rng: np.random.Generator | None = None,
    q: float = 0.1,
    risk_confidence: float | None = None,
    n_repeats: int = 5,
    searches: ProximitySearches | None = None,
) -> PrivacyStats:
    """TSPR and TTPR over ``n_repeats`` seeded splits of the training rows (METRICS.md section 7).

    ``holdout_rng`` draws the holdout rows of the third curve, from a stream of its own, so that
    the score and risk (drawn from ``rng``) are the same with or without a holdout. ``searches``
    (default ``ProximitySearches.plan``) does the nearest-neighbour work; the numbers do not
    depend on whether its searches are shared.
    """
    half = min(len(rows.train) // 2, len(rows.synth))
    if rows.test is not None and holdout_rng is None:
        raise ValueError("proximity_stats needs holdout_rng when the rows include a holdout")
    searches = searches or ProximitySearches.plan(rows, n_repeats)
    repeats = [
        _one_repeat(rows, searches, half, rng, holdout_rng, q, risk_confidence) for _ in range(n_repeats)
    ]
    scores = np.array([r.score for r in repeats])
    risks = np.array([r.risk for r in repeats])
    ddof = 1 if n_repeats > 1 else 0
    mean, std = float(scores.mean()), float(scores.std(ddof=ddof))
    ratios = {name: np.concatenate([r.ratios[name] for r in repeats]) for name in repeats[0].ratios}
    return PrivacyStats(
        privacy_score=mean,
        privacy_score_std=std,
        privacy_score_interval=(max(0.0, mean - 1.96 * std), min(100.0, mean + 1.96 * std)),
        risk=float(risks.mean()),
        risk_std=float(risks.std(ddof=ddof)),
        p_s=float(np.mean([r.p_s for r in repeats])),
        p_t=float(np.mean([r.p_t for r in repeats])),
        threshold=float(np.mean([r.tau for r in repeats])),
        q=q,
        risk_confidence=risk_confidence,
        n_repeats=n_repeats,
        half_size=half,
        duplicated_training_rows=float(np.mean([r.duplicated for r in repeats])),
        scores=scores.tolist(),
        reference_score=None
        if repeats[0].reference is None
        else float(np.mean([r.reference for r in repeats])),
        histogram=_histogram(ratios, upper=max(2.0, float(np.quantile(ratios["ttpr"], 0.99)))),
    )


@dataclass(frozen=True)
class _Repeat:
    score: float
    risk: float
    p_s: float
    p_t: float
    tau: float
    duplicated: float
    ratios: dict[str, np.ndarray]
    reference: float | None = None


def _one_repeat(
    rows: EmbeddedRows,
    searches: ProximitySearches,
    half: int,
    rng: np.random.Generator,
    holdout_rng: np.random.Generator | None,
    q: float,
    risk_confidence: float | None,
) -> _Repeat:
    order = rng.permutation(len(rows.train))
    r1, r2 = order[:half], order[half : 2 * half]
    s_prime = rng.choice(len(rows.synth), size=half, replace=False)
    d_in = searches.train_train.nearest(r1, r1).astype(np.float64)
    tspr = safe_ratio(searches.train_synth.nearest(r1, s_prime), d_in)
    ttpr = safe_ratio(searches.train_train.nearest(r1, r2), d_in)
    tau = float(np.quantile(ttpr, q))
    at_risk = tspr <= tau
    p_s, p_t = float(at_risk.mean()), float((ttpr <= tau).mean())
    score = 100.0 if p_s == 0 else 100.0 * min(1.0, p_t / p_s)
    n_risk = float(at_risk.sum())
    if risk_confidence is not None:
        n_risk = max(0.0, n_risk - risk_confidence * np.sqrt(n_risk))
    ratios = {"tspr": tspr, "ttpr": ttpr}
    reference = None
    if rows.test is not None and holdout_rng is not None:
        assert searches.test_synth is not None and searches.test_train is not None
        assert searches.train_test is not None
        holdout = _subsample_index(len(rows.test), half, holdout_rng)
        ratios["holdout"] = safe_ratio(
            searches.test_synth.nearest(holdout, s_prime),
            searches.test_train.nearest(holdout, r1).astype(np.float64),
        )
        if len(holdout) == half:  # the holdout in place of S', at the same size
            p_h = float((safe_ratio(searches.train_test.nearest(r1, holdout), d_in) <= tau).mean())
            reference = 100.0 if p_h == 0 else 100.0 * min(1.0, p_t / p_h)
    return _Repeat(
        score=score,
        risk=max(0.0, n_risk / half - p_t),
        p_s=p_s,
        p_t=p_t,
        tau=tau,
        duplicated=float((d_in == 0).mean()),
        ratios=ratios,
        reference=reference,
    )


def safe_ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """``numerator / denominator``, with ``EPS`` added to both where the denominator is 0."""
    eps = np.where(denominator == 0, EPS, 0.0)
    return (numerator.astype(np.float64) + eps) / (denominator + eps)


def _subsample_index(n_rows: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Positions of ``n`` of ``n_rows`` rows drawn without replacement, in order (all when fewer)."""
    if n_rows <= n:
        return np.arange(n_rows)
    return np.sort(rng.choice(n_rows, size=n, replace=False))


def _histogram(curves: dict[str, np.ndarray], *, upper: float) -> Histogram:
    """Counts of every curve on ``N_HIST_BINS`` equal bins over [0, upper]; above goes in the last bin."""
    edges = np.linspace(0.0, upper if upper > 0 else 1.0, N_HIST_BINS + 1)
    counts = {}
    for name, values in curves.items():
        index = np.clip(np.searchsorted(edges, values, side="right") - 1, 0, N_HIST_BINS - 1)
        counts[name] = np.bincount(index, minlength=N_HIST_BINS).astype(int).tolist()
    return Histogram(edges=edges.tolist(), counts=counts)
