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
``g(x)`` the smallest such radius over the rows of ``G`` within ``NND_k(x)``. A search of the 8
nearest rows of ``G`` finds them all unless the 8th lies within ``NND_k(x)``; those rows are searched
again with 32 neighbours, and rows still unsure (dense, collapsed synthetic data) are decided ball
by ball, as the definition reads, for the balls smaller than the bound on ``g(x)`` found so far.
The tests check both against a direct, per-``beta`` computation.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, Field

from reportgen.privacy.neighbours import knn

N_LEVELS = 40
LEVELS = np.linspace(0.0, 1.0, N_LEVELS + 1)
K_RECALL = 5
K_CANDIDATES = (8, 32)  # neighbours searched for g(x); rows still unsure go ball by ball


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
        return cls(
            embedded=embedded,
            centre=centre,
            radii=radii,
            support_radii=np.quantile(radii, LEVELS),
            nearest_other=knn(embedded)[0][:, 0],
            recall_rows=recall_rows,
            nnd_k=knn(recall_rows, k=k)[0][:, k - 1],
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
    g = np.full(len(real), np.inf)  # exact g(x) once a row is settled, else an upper bound
    unsure = np.arange(len(real))
    for k in K_CANDIDATES:
        k = min(k, len(generated))
        distance, index = knn(real[unsure], generated, k=k)
        close = distance <= nnd_k[unsure, None]
        g[unsure] = np.where(close, g_radius[index], np.inf).min(axis=1)
        unsure = unsure[close[:, -1]] if k < len(generated) else unsure[:0]
        if len(unsure) == 0:
            break
    covered = g[:, None] <= ball_radii[None, :]
    for j, r in enumerate(ball_radii):  # unsure rows: only the balls smaller than their bound g(x)
        rows = unsure[g[unsure] > r]
        inside = np.flatnonzero(g_radius <= r)
        if len(rows) and len(inside):
            covered[rows, j] = knn(real[rows], generated[inside])[0][:, 0] <= nnd_k[rows]
    return covered.mean(axis=0)


def _radii(x: np.ndarray, centre: np.ndarray) -> np.ndarray:
    diff = x.astype(np.float64) - np.asarray(centre, dtype=np.float64)
    return np.sqrt((diff * diff).sum(axis=1))


def subsample(rows: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` rows drawn without replacement, in their original order (all rows when fewer)."""
    if len(rows) <= n:
        return rows
    return rows[np.sort(rng.choice(len(rows), size=n, replace=False))]
