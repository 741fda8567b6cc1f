"""How the rows of a child table meet the rows of its parent: foreign keys as shared integer codes.

The one place that decides how keys match, for every user of relations (integrity checks and
findings, the relational fidelity section, entity views, sampling, splitting and subsets, with
the closure of a subset under its keys: ``close_under_keys``), so one
key has one count everywhere:

- a foreign key is a ``Relation`` of the schema: one or more child columns matched, in pairs, on
  the tuple of their values against the parent's referenced columns;
- key values are compared through ``key_values`` (integral floats as integers, so a key read as
  float because of missing values still matches its integer parent key);
- a missing key value (in any column of the key) links to no parent and is not an orphan;
- a child key value that no parent row holds is an orphan;
- when parent rows repeat a key value, children count once per distinct key value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from reportgen.data.schema import Relation
from reportgen.errors import InvalidParameterError


def key_values(keys: pd.Series) -> np.ndarray:
    """Key values comparable across dtypes: integral floats as ints, everything else as is."""
    if pd.api.types.is_float_dtype(keys.dtype):
        values = keys.to_numpy()
        finite = values[np.isfinite(values)]
        if np.all(np.mod(finite, 1) == 0):
            return keys.astype("Int64").to_numpy(dtype=object, na_value=None)
    return keys.to_numpy(dtype=object, na_value=None)


def key_codes(frames: list[pd.DataFrame], columns: list[tuple[str, ...]]) -> list[np.ndarray]:
    """Integer codes of the key tuples of several frames, shared across them (-1: missing part).

    ``columns[i]`` names the key's columns in ``frames[i]``, paired in order.
    """
    sizes = [len(f) for f in frames]
    codes = np.zeros(sum(sizes), dtype=np.int64)
    for part in zip(*columns, strict=True):
        values = np.concatenate([key_values(f[c]) for f, c in zip(frames, part, strict=True)])
        column_codes, uniques = pd.factorize(values)
        codes = np.where((codes < 0) | (column_codes < 0), -1, codes * len(uniques) + column_codes)
        valid = codes >= 0
        codes[valid] = pd.factorize(codes[valid])[0]  # compact again, so composite keys cannot overflow
    return np.split(codes, np.cumsum(sizes)[:-1])


@dataclass(frozen=True)
class Links:
    """How the rows of a child table meet the rows of its parent, as integer key codes.

    ``parent_codes`` and ``child_codes`` give each row's key value as a code shared by both tables
    (-1 for a missing key value), so matching is array lookups rather than joins.
    """

    parent_codes: np.ndarray
    child_codes: np.ndarray

    @cached_property
    def keys(self) -> np.ndarray:
        """Distinct key codes of the parent rows (missing keys left out)."""
        return np.unique(self.parent_codes[self.parent_codes >= 0])

    @cached_property
    def has_parent(self) -> np.ndarray:
        """For each child row, whether its key matches a parent row."""
        return (self.child_codes >= 0) & np.isin(self.child_codes, self.keys)

    @property
    def n_orphans(self) -> int:
        return int(np.count_nonzero((self.child_codes >= 0) & ~self.has_parent))

    @property
    def n_null_keys(self) -> int:
        """Child rows with a missing key value (no parent, and not orphans)."""
        return int(np.count_nonzero(self.child_codes < 0))

    @property
    def n_duplicate_parent_keys(self) -> int:
        """Parent rows that repeat the key value of an earlier parent row."""
        present = self.parent_codes[self.parent_codes >= 0]
        return len(present) - len(np.unique(present))

    def key_counts(self) -> KeyCounts:
        """The integrity counts of this foreign key (``reportgen.data.lake.key_counts`` in a database)."""
        return KeyCounts(
            child_rows=len(self.child_codes),
            missing_keys=self.n_null_keys,
            orphans=self.n_orphans,
            parent_rows=len(self.parent_codes),
            duplicate_parent_keys=self.n_duplicate_parent_keys,
        )

    def parent_rows(self) -> np.ndarray:
        """For each child row, the position of the first parent row with its key.

        -1 marks a missing key value, -2 an orphan.
        """
        first_row = np.full(len(self._per_code), -2, dtype=np.int64)
        present = np.flatnonzero(self.parent_codes >= 0)
        codes, first = np.unique(self.parent_codes[present], return_index=True)
        first_row[codes] = present[first]
        found = np.where(self.child_codes >= 0, first_row[np.maximum(self.child_codes, 0)], -2)
        return np.where(self.child_codes < 0, -1, found)

    @cached_property
    def _per_code(self) -> np.ndarray:
        n_codes = int(max(self.parent_codes.max(initial=0), self.child_codes.max(initial=0))) + 1
        return np.bincount(self.child_codes[self.has_parent], minlength=n_codes)

    def children_per_parent(self) -> np.ndarray:
        """Children of each distinct parent key value, then a 0 for each parent row without a key."""
        no_key = np.zeros(np.count_nonzero(self.parent_codes < 0), dtype=np.int64)
        return np.concatenate([self._per_code[self.keys], no_key])

    def children_per_parent_row(self) -> np.ndarray:
        """Children of each parent row (rows sharing a key value share its children)."""
        found = self.parent_codes >= 0
        return np.where(found, self._per_code[np.where(found, self.parent_codes, 0)], 0)

    def mean_per_parent_row(self, values: np.ndarray) -> np.ndarray:
        """Mean of a child column over each parent row's children (NaN: no child with a value)."""
        linked = self.has_parent & ~np.isnan(values)
        n = len(self._per_code)
        sums = np.bincount(self.child_codes[linked], weights=values[linked], minlength=n)
        counts = np.bincount(self.child_codes[linked], minlength=n)
        means = np.divide(sums, counts, out=np.full(n, np.nan), where=counts > 0)
        found = self.parent_codes >= 0
        return np.where(found, means[np.where(found, self.parent_codes, 0)], np.nan)


def link(tables: Mapping[str, pd.DataFrame], rel: Relation) -> Links:
    """The key codes of ``rel`` over ``tables`` (a ``RelationalData`` or any mapping of frames)."""
    parent_codes, child_codes = key_codes(
        [tables[rel.parent], tables[rel.child]], [rel.parent_columns, rel.columns]
    )
    return Links(parent_codes=parent_codes, child_codes=child_codes)


def close_under_keys(
    tables: Mapping[str, pd.DataFrame], relations: Iterable[Relation], keep: Mapping[str, np.ndarray]
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The rows ``keep`` marks (tables it omits keep every row), less every row left without its parent.

    Drops, again and again until nothing changes, every row whose foreign key refers to a dropped
    row: a dropped customer takes their orders with them, and the orders take their order lines;
    self-references follow the same rule. A child row refers to a dropped row when its key value
    belongs to a dropped parent row and to no kept one (broken synthetic data may repeat a parent
    key); rows whose key is missing or matches no parent row (orphans) are not touched. Returns the
    kept rows per table, and the rows dropped only because a row they refer to (directly or through
    other rows) was dropped. ``reportgen.data.subsets.keep_rows`` builds the subset from them.
    """
    kept: dict[str, np.ndarray] = {}
    for name, frame in tables.items():
        mask = np.ones(len(frame), bool) if name not in keep else np.asarray(keep[name], dtype=bool)
        if mask.shape != (len(frame),):
            raise InvalidParameterError(
                f"The mask for table {name!r} has shape {mask.shape}, but the table has {len(frame)} rows."
            )
        kept[name] = mask.copy()
    orphaned = {name: np.zeros(len(frame), bool) for name, frame in tables.items()}
    links = {rel: link(tables, rel) for rel in relations}
    changed = True
    while changed:
        changed = False
        for rel, links_of in links.items():
            lost = _refers_to_dropped(links_of, kept[rel.parent])
            newly = lost & kept[rel.child]
            if newly.any():
                kept[rel.child] &= ~newly
                orphaned[rel.child] |= newly
                changed = True
    return kept, orphaned


def _refers_to_dropped(links: Links, parent_kept: np.ndarray) -> np.ndarray:
    """Child rows whose key value is held by a dropped parent row and by no kept parent row."""
    codes = links.parent_codes
    held_by_kept = np.unique(codes[parent_kept & (codes >= 0)])
    held_by_dropped = np.unique(codes[~parent_kept & (codes >= 0)])
    lost = np.setdiff1d(held_by_dropped, held_by_kept, assume_unique=True)
    return (links.child_codes >= 0) & np.isin(links.child_codes, lost)


@dataclass(frozen=True)
class CountDistribution:
    """A distribution of non-negative integers as distinct values and how many times each occurs."""

    values: np.ndarray
    weights: np.ndarray

    @classmethod
    def of(cls, counts: np.ndarray) -> CountDistribution:
        values, weights = np.unique(np.asarray(counts, dtype=np.int64), return_counts=True)
        return cls(values, weights.astype(np.int64))

    @property
    def n(self) -> int:
        return int(self.weights.sum())

    @property
    def total(self) -> int:
        """The sum of all the values (children, for children per parent)."""
        return int((self.values * self.weights).sum())

    def at_rank(self, rank: int) -> int:
        """The value at position ``rank`` (from 0) of the values sorted with their repeats."""
        return int(self.values[np.searchsorted(np.cumsum(self.weights), rank, side="right")])

    def quantile_inverted_cdf(self, q: float) -> int:
        """``np.quantile(values_with_repeats, q, method="inverted_cdf")``, without the repeats."""
        index = self.n * q - 1  # numpy's virtual index for this method, in the same float arithmetic
        below = np.floor(index)
        rank = below if index - below == 0 else below + 1
        return self.at_rank(int(min(max(rank, 0), self.n - 1)))

    def median(self) -> float:
        """``np.median`` of the values with their repeats."""
        return (self.at_rank((self.n - 1) // 2) + self.at_rank(self.n // 2)) / 2


@dataclass(frozen=True)
class KeyCounts:
    """Key integrity of one foreign key: child rows, their missing keys and orphans, repeated parents."""

    child_rows: int
    missing_keys: int
    orphans: int
    parent_rows: int
    duplicate_parent_keys: int
