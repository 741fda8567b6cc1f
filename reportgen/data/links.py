"""How the rows of a child table meet the rows of its parent: foreign keys as shared integer codes.

One place decides how keys match, for every user of relations (the relational fidelity section,
the entity views of the privacy section):

- the columns of a composite foreign key (declared as one ``ForeignKey`` per column) whose
  referenced columns are, together, the parent's composite primary key form one key, matched on
  the tuple of values;
- a missing key value (in any column of the key) links to no parent and is not an orphan;
- when parent rows repeat a key value, children count once per distinct key value.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from reportgen.data.relational import RelationalData, key_values
from reportgen.data.schema import Schema


@dataclass(frozen=True)
class ForeignKeyColumns:
    """A foreign key over one or more columns: ``child.child_columns -> parent.parent_columns``."""

    child: str
    child_columns: tuple[str, ...]
    parent: str
    parent_columns: tuple[str, ...]


def foreign_keys(schema: Schema) -> list[ForeignKeyColumns]:
    """The schema's foreign keys, the columns of one composite key grouped into one (schema order)."""
    keys: list[ForeignKeyColumns] = []
    grouped: set[tuple[str, str]] = set()
    for rel in schema.relations:
        if (rel.child, rel.parent) in grouped:
            continue
        pk = schema[rel.parent].primary_key
        into = [r for r in schema.relations if (r.child, r.parent) == (rel.child, rel.parent)]
        referenced = [r.parent_column for r in into]
        if len(pk) > 1 and sorted(referenced) == sorted(pk):
            by_parent = {r.parent_column: r.column for r in into}
            keys.append(ForeignKeyColumns(rel.child, tuple(by_parent[c] for c in pk), rel.parent, pk))
            grouped.add((rel.child, rel.parent))
        else:
            keys.append(ForeignKeyColumns(rel.child, (rel.column,), rel.parent, (rel.parent_column,)))
    return keys


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


def link(data: RelationalData, fk: ForeignKeyColumns) -> Links:
    """The key codes of ``fk`` in ``data``: both tables' key values factorised together."""
    parent, child = data[fk.parent], data[fk.child]
    n_parent = len(parent)
    codes = np.zeros(n_parent + len(child), dtype=np.int64)
    for parent_column, child_column in zip(fk.parent_columns, fk.child_columns, strict=True):
        values = np.concatenate([key_values(parent[parent_column]), key_values(child[child_column])])
        column_codes, uniques = pd.factorize(values)
        codes = np.where((codes < 0) | (column_codes < 0), -1, codes * len(uniques) + column_codes)
        valid = codes >= 0
        codes[valid] = pd.factorize(codes[valid])[0]  # compact again, so composite keys cannot overflow
    return Links(parent_codes=codes[:n_parent], child_codes=codes[n_parent:])
