"""alpha-Precision, beta-Recall and Authenticity (METRICS.md section 8; Alaa et al., ICML 2022).

Everything here works on rows already passed through the one-class embedding ``Phi``
(``reportgen.privacy.one_class``) and on its centre ``c_r``; any embedding works (the tests use the
identity with the mean as centre as a simple reference). Every nearest-neighbour step goes
through ``reportgen.privacy.neighbours.knn`` (exact; "nearest other" excludes the row itself by index).

For a generated set ``G`` (the synthetic rows, or the holdout rows as the reference level):

- ``r_alpha = quantile_alpha(||Phi(x) - c_r||, x in T)``, ``P_alpha = mean over y in G of
  [||Phi(y) - c_r|| <= r_alpha]``;
- ``c_g = mean of Phi(G)``, ``r_beta = quantile_beta(||Phi(y) - c_g||, y in G)``; a real ``x`` counts
  for ``R_beta`` when the row of ``G`` nearest to ``Phi(x)`` among those inside ``B(c_g, r_beta)`` lies
  within ``NND_k(x)``, the distance from ``Phi(x)`` to its k-th nearest other real row (``k = 5``);
- ``IP_alpha = 1 - 2 * integral_0^1 |P_alpha - alpha| d alpha`` and ``IR_beta`` alike, by the
  trapezoid rule on the grid ``0, 1/N, ..., 1`` (``N = 40``: 40 points in (0, 1], plus 0, where
  the quantiles are the smallest radii, so the curves start near 0 as the definitions give);
- a row ``y`` of ``G`` is authentic when ``d(y, x_i*) > d(x_i*, T minus x_i*)``, where ``x_i*`` is its
  nearest row of ``T``; ``A`` is the share of authentic rows.

Choices where METRICS.md is silent (stated in the report):

- quantiles use linear interpolation (NumPy's default); "inside" a ball includes its boundary;
- ``P_alpha`` and authenticity are shares over every row of ``G`` against every row of ``T``: both are
  means of per-row flags that do not depend on the size of ``G``;
- ``R_beta`` does depend on the sizes (a real row is more likely to find a generated row within
  ``NND_k`` when ``G`` is larger than ``T``), so it is computed on one common size ``m``: ``m`` rows each
  of ``T`` (whose own k-NN distances give ``NND_k``), of the synthetic rows and of the holdout rows,
  ``m`` the smallest of the sizes, sampled with the caller's generator. With equal sizes a perfect
  generator reaches about ``1 - 2^-k`` (0.97) at ``beta = 1``, which the holdout curve shows.

How ``R_beta`` is computed for every ``beta`` at once: ``x`` counts at ``beta`` exactly when some row
of ``G`` within ``NND_k(x)`` of ``x`` has ``||Phi(y) - c_g|| <= r_beta``, i.e. when ``g(x) <= r_beta`` with
``g(x)`` the smallest such radius over the rows of ``G`` within ``NND_k(x)``. ``g`` comes from one exact
range search (``smallest_radius_within``): a matrix product, block by block, keeps every pair that
can lie within ``NND_k(x)`` (with a bound on its rounding error), and those pairs are decided on the
distance ``knn`` would return for them, so ``R_beta`` is what a ``knn`` search of every ball gives, ties
at exactly ``NND_k(x)`` included. Rows equal bit for bit are searched once. The product is float32
for the real rows whose float32 error bound is at most a tenth of their squared ``NND_k`` (it widens
the kept set by that much at most: a few more pairs to decide exactly), float64 for the others (rows
far from the generated mean beside their ``NND_k``, or values beyond float32's comfortable range):
the same pairs are decided, so the same numbers. On the 200,000-row benchmark's 50,000 embedded
training and synthetic rows (``benchmarks/bench_large.py``'s data, a network of 30 epochs) three
quarters of the rows took float32, and the search 7.0-8.1 CPU s instead of 12.8-13.1.

Why not top-k searches (8 neighbours, then 32 for the rows whose 8th lay within ``NND_k``, then ball
by ball, as before): on dense synthetic data many rows have more than 32 rows of ``G`` within
``NND_k``, and ``knn`` gets much dearer from ``k = 24`` (its first block of 2,048 columns is bounded by
the ``k + 8``-th smallest of 32 segment minima, which needs ``k + 8 < 32``; beyond, every score of
that block is merged). On adult (16,281 rows, synthetic and holdout sets together) the range search
takes 1.2 CPU s (0.7 s wall on 2 cores), the searches took 3.4 s (2.2 s); on data of few distinct
rows or collapsed synthetic data the gap is larger still. The tests check it against those searches
and against a direct, per-``beta`` computation.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, Field

from reportgen.errors import DataError
from reportgen.privacy.neighbours import distinct_rows, exact_sq_distances, knn
from reportgen.threads import map_in_threads

N_LEVELS = 40
LEVELS = np.linspace(0.0, 1.0, N_LEVELS + 1)
K_RECALL = 5
VALUES_PER_BLOCK = 1 << 20  # scores per block of the range search (8 MB in float64)


class Curves(BaseModel):
    """alpha-precision and beta-recall over the grid of levels (0 first, then 40 points in (0, 1])."""

    levels: list[float]
    precision: list[float] = Field(description="P_alpha at each alpha of levels.")
    recall: list[float] = Field(description="R_beta at each beta of levels.")


class SampleScores(BaseModel):
    """The three numbers and two curves of one generated set (synthetic, or holdout as reference)."""

    ip_alpha: float = Field(le=1, description="1 - 2 x integral of |P_alpha - alpha|; 1 is best.")
    ir_beta: float = Field(le=1, description="1 - 2 x integral of |R_beta - beta|; 1 is best.")
    authenticity: float = Field(
        ge=0, le=1, description="Share of rows that are not too close to their nearest training row."
    )
    rows: int = Field(description="Rows of the set behind IP_alpha and authenticity.")
    curves: Curves


class RowFlags(BaseModel):
    """Per-row flags of the synthetic rows the section measured, packed to stay small in JSON.

    ``support_level``: base64 of one byte per row, the index into the levels of the smallest alpha
    whose support holds the row (41: outside even the alpha = 1 ball). ``authentic``: base64 of the
    rows' authenticity bits (``numpy.packbits``, big-endian). ``decode()`` unpacks both.
    """

    rows: int
    support_level: str
    authentic: str

    @classmethod
    def encode(cls, support_level: np.ndarray, authentic: np.ndarray) -> RowFlags:
        return cls(
            rows=len(authentic),
            support_level=base64.b64encode(support_level.astype(np.uint8).tobytes()).decode("ascii"),
            authentic=base64.b64encode(np.packbits(authentic.astype(bool)).tobytes()).decode("ascii"),
        )

    def decode(self) -> tuple[np.ndarray, np.ndarray]:
        """``(support_level uint8 (rows,), authentic bool (rows,))``."""
        levels = np.frombuffer(base64.b64decode(self.support_level), dtype=np.uint8)
        bits = np.frombuffer(base64.b64decode(self.authentic), dtype=np.uint8)
        return levels.copy(), np.unpackbits(bits, count=self.rows).astype(bool)


@dataclass(frozen=True)
class RealReference:
    """What the metrics need of the embedded training rows, computed once per table."""

    embedded: np.ndarray  # Phi(T), float32 (n, p)
    centre: np.ndarray  # c_r
    radii: np.ndarray  # ||Phi(x) - c_r||, float64
    support_radii: np.ndarray  # r_alpha at every level
    nearest_other: np.ndarray  # d(x_i, T minus x_i), float32, for authenticity
    recall_rows: np.ndarray  # Phi of the m rows of T behind R_beta
    nnd_k: np.ndarray  # their distances to the k-th nearest other of those m rows

    @classmethod
    def of(
        cls, embedded: np.ndarray, centre: np.ndarray, m: int, rng: np.random.Generator, k: int = K_RECALL
    ) -> RealReference:
        """Prepare ``Phi(T)``: support radii, nearest-other distances, and the ``m`` recall rows."""
        radii = _radii(embedded, centre)
        recall_rows = subsample(embedded, m, rng)
        if recall_rows is embedded:  # every row recalls: one search gives both distances
            nearest = knn(embedded, k=k)[0]
            nearest_other, nnd_k = nearest[:, 0], nearest[:, k - 1]
        else:
            nearest_other, nnd_k = knn(embedded)[0][:, 0], knn(recall_rows, k=k)[0][:, k - 1]
        return cls(
            embedded=embedded,
            centre=centre,
            radii=radii,
            support_radii=np.quantile(radii, LEVELS),
            nearest_other=nearest_other,
            recall_rows=recall_rows,
            nnd_k=nnd_k,
        )


@dataclass(frozen=True)
class RowScores:
    """Per-row results of one generated set: its support level, authenticity and nearest real row."""

    support_level: np.ndarray  # uint8: index of the smallest level whose alpha-support holds the row
    radius: np.ndarray  # ||Phi(y) - c_r||, float64
    authentic: np.ndarray  # bool

    def inside(self, support_radius: float) -> np.ndarray:
        return self.radius <= support_radius


def row_scores(real: RealReference, generated: np.ndarray) -> RowScores:
    """Support level, radius and authenticity of every generated row (``Phi(G)``)."""
    radius = _radii(generated, real.centre)
    level = np.searchsorted(real.support_radii, radius, side="left").astype(np.uint8)
    distance, nearest = knn(generated, real.embedded)
    authentic = distance[:, 0] > real.nearest_other[nearest[:, 0]]
    return RowScores(level, radius, authentic)


@dataclass(frozen=True)
class RowTally:
    """Rows per support level and authentic rows of a generated set: what precision needs of it.

    Tallies add up, so a set scored batch by batch (``reportgen.auditing.curate``) gets the numbers
    of the whole set without holding its rows.
    """

    levels: np.ndarray  # rows per support level, N_LEVELS + 2 bins
    authentic: int
    rows: int

    @classmethod
    def of(cls, rows: RowScores, keep: np.ndarray | None = None) -> RowTally:
        """The tally of ``rows`` (only the ``keep`` ones when given)."""
        level = rows.support_level if keep is None else rows.support_level[keep]
        authentic = rows.authentic if keep is None else rows.authentic[keep]
        return cls(np.bincount(level, minlength=N_LEVELS + 2), int(authentic.sum()), len(level))

    def __add__(self, other: RowTally) -> RowTally:
        return RowTally(self.levels + other.levels, self.authentic + other.authentic, self.rows + other.rows)


def sample_scores(
    real: RealReference, rows: RowScores, recall_generated: np.ndarray, *, keep: np.ndarray | None = None
) -> SampleScores:
    """The curves and numbers of a generated set from its row scores and its ``m`` recall rows.

    ``keep`` (bool per row) restricts precision and authenticity to some rows (an audited set);
    ``recall_generated`` must then hold only kept rows.
    """
    recall = beta_recall(real.recall_rows, real.nnd_k, recall_generated)
    return tally_scores(RowTally.of(rows, keep), recall)


def tally_scores(tally: RowTally, recall: np.ndarray) -> SampleScores:
    """The curves and numbers of a generated set from its tally and its beta-recall curve."""
    precision = np.cumsum(tally.levels[: N_LEVELS + 1]) / max(tally.rows, 1)
    return SampleScores(
        ip_alpha=integrated(precision),
        ir_beta=integrated(recall),
        authenticity=tally.authentic / tally.rows if tally.rows else 0.0,
        rows=tally.rows,
        curves=Curves(levels=LEVELS.tolist(), precision=precision.tolist(), recall=recall.tolist()),
    )


def integrated(curve: np.ndarray) -> float:
    """``1 - 2 * integral_0^1 |curve(level) - level|`` by the trapezoid rule on ``LEVELS``."""
    gap = np.abs(np.asarray(curve, dtype=np.float64) - LEVELS)
    return float(1.0 - 2.0 * np.sum((gap[1:] + gap[:-1]) / 2 * np.diff(LEVELS)))


def beta_recall(real: np.ndarray, nnd_k: np.ndarray, generated: np.ndarray) -> np.ndarray:
    """``R_beta`` at every level (see the module docstring for the method)."""
    if len(generated) == 0 or len(real) == 0:
        return np.zeros(len(LEVELS))
    g_radius = _radii(generated, generated.mean(axis=0, dtype=np.float64))
    ball_radii = np.quantile(g_radius, LEVELS)
    g = smallest_radius_within(real, nnd_k, generated, g_radius)
    return (g[:, None] <= ball_radii[None, :]).mean(axis=0)


def smallest_radius_within(
    real: np.ndarray, nnd_k: np.ndarray, generated: np.ndarray, g_radius: np.ndarray
) -> np.ndarray:
    """``g(x)``: the smallest ``g_radius[y]`` over the rows ``y`` of ``generated`` within ``nnd_k[x]``.

    "Within" is ``knn``'s distance, float32 of the square root of the float64 squared distance of the
    float32 rows, at most ``nnd_k``; ``inf`` where no row is. Rows equal bit for bit (real rows with
    their ``nnd_k`` too) are searched once, as ``knn`` does: a table of categories holds few distinct
    rows, and every pair of duplicates within reach would otherwise be checked on its own.
    """
    real, generated = _float32(real, "real"), _float32(generated, "generated")
    real_first, real_group = distinct_rows(real, nnd_k)
    generated_first, generated_group = distinct_rows(generated)
    radius = np.full(len(generated_first), np.inf)
    np.minimum.at(radius, generated_group, g_radius)
    centred = _Centred.of(real[real_first], nnd_k[real_first], generated[generated_first])
    single = centred.float32_suffices()
    g = np.empty(len(real_first))
    for dtype, rows in ((np.float32, single), (np.float64, ~single)):
        if rows.any():
            g[rows] = _RangeSearch.of(centred, rows, dtype).smallest(radius)
    return g[real_group]


FLOAT32_SHARE = 0.1  # float32 where its error bound is at most this share of the squared NND_k
FLOAT32_SCALE = 1e30  # ... and squared norms stay below this (no overflow, no subnormal products)


@dataclass(frozen=True)
class _Centred:
    """The rows of a range search about the generated mean, with what its error bounds need.

    ``bound`` is the largest squared distance a pair of each real row may have to qualify:
    ``(nnd_k (1 + 2^-20))^2`` (float32 rounding of the distance moves it by at most 2^-24 relative).
    """

    real: np.ndarray  # float32 (n, p)
    nnd_k: np.ndarray  # (n,)
    generated: np.ndarray  # float32 (m, p)
    q: np.ndarray  # float64 (n, p): real rows less the centre
    r: np.ndarray  # float64 (m, p): generated rows less the centre
    q_norms: np.ndarray  # ||q||^2
    r_norms: np.ndarray  # ||r||^2
    bound: np.ndarray

    @classmethod
    def of(cls, real: np.ndarray, nnd_k: np.ndarray, generated: np.ndarray) -> _Centred:
        centre = generated.mean(axis=0, dtype=np.float64)
        q, r = real - centre, generated - centre
        return cls(
            real=real,
            nnd_k=nnd_k,
            generated=generated,
            q=q,
            r=r,
            q_norms=np.einsum("ij,ij->i", q, q),
            r_norms=np.einsum("ij,ij->i", r, r),
            bound=(nnd_k.astype(np.float64) * (1 + 2.0**-20)) ** 2,
        )

    def slack(self, dtype: type) -> np.ndarray:
        """Four times a bound on a product's rounding error in ``dtype``, for each real row."""
        unit = float(np.finfo(dtype).eps) / 2
        r_norm_max = self.r_norms.max(initial=0.0)
        return 8 * (self.q.shape[1] + 8) * unit * (self.q_norms + r_norm_max + self.bound) + 1e-30

    def float32_suffices(self) -> np.ndarray:
        """The real rows whose range search may run on a float32 product (see the module docstring)."""
        if max(self.q_norms.max(initial=0.0), self.r_norms.max(initial=0.0)) >= FLOAT32_SCALE:
            return np.zeros(len(self.real), dtype=bool)
        return self.slack(np.float32) <= FLOAT32_SHARE * self.bound


@dataclass(frozen=True)
class _RangeSearch:
    """Which (real, generated) pairs can lie within ``nnd_k``, and their exact ``knn`` distances.

    On rows centred at the generated mean (``_Centred``), a pair is within ``bound`` exactly when
    ``q.r - ||r||^2 / 2 >= (||q||^2 - bound) / 2``. The product's rounding error in ``dtype``
    (centring and rounding the rows and norms to ``dtype``, and the product: a few
    ``(p + 2) u (||q||^2 + ||r||^2)``, Higham 3.1, plus a tiny absolute term for subnormal products)
    stays below ``slack``, which is subtracted, so no qualifying pair is missed.
    """

    real: np.ndarray  # float32 (n, p)
    nnd_k: np.ndarray  # (n,)
    generated: np.ndarray  # float32 (m, p)
    queries: np.ndarray  # rows [q', 1], in the product's dtype
    targets: np.ndarray  # (p + 1, m): columns [r', -||r'||^2 / 2], in the product's dtype
    limit: np.ndarray  # a pair is kept when its product is at least its row's limit

    @classmethod
    def of(cls, centred: _Centred, rows: np.ndarray, dtype: type) -> _RangeSearch:
        """The search of the real rows ``rows`` (a mask) on a product in ``dtype``."""
        q = centred.q[rows]
        targets = np.hstack([centred.r, -centred.r_norms[:, None] / 2]).T
        limit = (centred.q_norms[rows] - centred.bound[rows] - centred.slack(dtype)[rows]) / 2
        return cls(
            real=centred.real[rows],
            nnd_k=centred.nnd_k[rows],
            generated=centred.generated,
            queries=np.hstack([q, np.ones((len(q), 1))]).astype(dtype),
            targets=np.ascontiguousarray(targets.astype(dtype)),
            limit=limit.astype(dtype),
        )

    def smallest(self, radius: np.ndarray) -> np.ndarray:
        """Per real row, the smallest ``radius`` of a generated row within its ``nnd_k`` (else inf).

        Blocks of real rows run on every usable core with single-threaded BLAS, as ``knn`` does.
        """
        g = np.full(len(self.real), np.inf)
        step = max(1, VALUES_PER_BLOCK // max(len(self.generated), 1))

        def one(start: int) -> None:
            rows, columns = self.pairs(start, start + step)
            close = np.flatnonzero(self.distances(rows, columns) <= self.nnd_k[rows])
            np.minimum.at(g, rows[close], radius[columns[close]])

        map_in_threads(one, range(0, len(self.real), step))
        return g

    def pairs(self, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
        """(real row, generated row) of every pair of real rows ``start:stop`` that may qualify."""
        product = self.queries[start:stop] @ self.targets
        kept = np.flatnonzero(product >= self.limit[start:stop, None])
        rows, columns = np.divmod(kept, self.targets.shape[1])
        return rows + start, columns

    def distances(self, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:
        """The pairs' distances exactly as ``knn`` returns them."""
        return np.sqrt(exact_sq_distances(self.real[rows], self.generated[columns])).astype(np.float32)


def _float32(rows: np.ndarray, name: str) -> np.ndarray:
    """The float32 rows ``knn`` would search: it refuses NaN and infinite values, and so do we."""
    matrix = np.ascontiguousarray(rows, dtype=np.float32)
    if not np.isfinite(matrix).all():
        raise DataError(f"The {name} rows of beta-recall hold NaN or infinite values (or beyond float32).")
    if matrix.shape[1] == 0:  # no features: every distance is 0
        matrix = np.zeros((len(matrix), 1), np.float32)
    return matrix


def _radii(x: np.ndarray, centre: np.ndarray) -> np.ndarray:
    diff = x.astype(np.float64) - np.asarray(centre, dtype=np.float64)
    return np.sqrt((diff * diff).sum(axis=1))


def subsample(rows: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` rows drawn without replacement, in their original order (all rows when fewer)."""
    if len(rows) <= n:
        return rows
    return rows[np.sort(rng.choice(len(rows), size=n, replace=False))]
