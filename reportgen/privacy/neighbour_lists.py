"""Nearest neighbours within many random subsets of one reference set, from one shared search.

The proximity ratios (METRICS.md section 7) ask, in each of several repeats, for the nearest row of
a random subset of the training, synthetic or holdout rows (``R1``, ``R2``, ``S'``, ``H'``) for
every row of another random subset. Searching each subset afresh costs a full search per repeat
and per ratio. ``SubsetNeighbours`` instead searches once for the ``k`` nearest rows of the whole
reference set (exact, ``reportgen.privacy.neighbours.knn``: sorted by distance, ties by index), and
answers "nearest row of this subset" by reading each query row's list up to its first member of
the subset. That member is the subset's nearest row: every reference row left out of the list is
at least as far as the list's last entry. A row whose list holds no member of the subset (with a
subset of a share ``f`` of the rows, a chance of about ``(1 - f)^k``) is searched exactly against
the subset, so every answer is exact.

Distances are the engine's exact ones (float64 differences of the float32 rows, returned as
float32), so an answer from the lists is the same number, bit for bit, as a direct search of the
subset. ``share=False`` makes the same object search every subset directly: callers choose by
cost (``worth_sharing``), and the answers do not depend on the choice.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reportgen.privacy.neighbours import knn

K_LISTS = 16  # neighbours kept per row: a random half of the rows misses all 16 with chance 2^-16


@dataclass(frozen=True)
class SubsetNeighbours:
    """Nearest-neighbour distances from rows of ``query`` to subsets of ``reference``.

    ``reference is None`` means within ``query``: a row is never its own neighbour (excluded by
    index, so a duplicate row finds its twin at distance 0), as ``knn(query)`` does.
    ``lists`` holds the ``k`` nearest reference rows of every query row, or None to search each
    subset directly.
    """

    query: np.ndarray
    reference: np.ndarray | None
    lists: tuple[np.ndarray, np.ndarray] | None

    @classmethod
    def prepare(
        cls, query: np.ndarray, reference: np.ndarray | None = None, *, share: bool, k: int = K_LISTS
    ) -> SubsetNeighbours:
        """The shared search of every query row (``share``), or none (each subset searched alone)."""
        if not share:
            return cls(query, reference, None)
        available = len(query) - 1 if reference is None else len(reference)
        return cls(query, reference, knn(query, reference, k=min(k, available)))

    @property
    def within(self) -> bool:
        return self.reference is None

    def _reference(self) -> np.ndarray:
        return self.query if self.reference is None else self.reference

    def nearest(self, rows: np.ndarray, subset: np.ndarray) -> np.ndarray:
        """Distance (float32) from each ``query[rows]`` to its nearest row of ``reference[subset]``.

        ``rows`` and ``subset`` are integer row positions. Within one set, each row's own position is
        left out of ``subset``.
        """
        if self.lists is None:
            return self._exact(rows, subset)
        distances, indices = self.lists
        member = np.zeros(len(self._reference()), dtype=bool)
        member[subset] = True
        hit = member[indices[rows]]
        first = hit.argmax(axis=1)
        out = distances[rows, first]
        missing = np.flatnonzero(~hit.any(axis=1))
        if len(missing):
            out[missing] = self._exact(rows[missing], subset)
        return out

    def _exact(self, rows: np.ndarray, subset: np.ndarray) -> np.ndarray:
        """The same distances by a direct search of the subset."""
        reference = self._reference()
        if not self.within:
            return knn(self.query[rows], reference[subset])[0][:, 0]
        if np.array_equal(rows, subset):
            return knn(self.query[rows])[0][:, 0]
        position = np.full(len(reference), -1)
        position[subset] = np.arange(len(subset))
        distances, indices = knn(self.query[rows], reference[subset], k=min(2, len(subset)))
        if distances.shape[1] == 1:
            return distances[:, 0]
        own = indices[:, 0] == position[rows]  # the row itself came first: take the next one
        return np.where(own, distances[:, 1], distances[:, 0])


def worth_sharing(n_query: int, n_reference: int, searches: int, query_rows: int, subset_rows: int) -> bool:
    """Whether one search of all rows costs no more than ``searches`` searches of the subsets.

    A search's cost grows as query rows x reference rows. Keeping ``K_LISTS`` neighbours costs about
    1.2x keeping one, which the fixed costs of the several smaller searches offset: on adult (2 cores)
    the 32,561 x 32,561 search with lists took 6.5 CPU s, five searches of half the rows 7.9.
    """
    return n_query * n_reference <= searches * query_rows * subset_rows
