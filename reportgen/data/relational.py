"""``RelationalData``: named DataFrames with a schema whose every column has a kind.

Construction checks the data against the schema (tables and columns on both sides) and infers the
kinds the schema leaves open. Inputs are never modified: the object keeps its own shallow copies.
Key integrity (duplicate primary keys, orphan foreign keys) is measured by ``integrity()``; whether
that is an error depends on the role of the data (real or synthetic), see ``validation``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from reportgen.data.kinds import DEFAULT_MAX_CATEGORIES, infer_kind
from reportgen.data.schema import ColumnKind, Relation, Schema, Table
from reportgen.errors import DataError, InvalidParameterError, SchemaError
from reportgen.params import Interval, NoneValue, Options, check_param

SINGLE_TABLE_NAME = "table"


@dataclass(frozen=True)
class KeyIntegrity:
    """Key findings of one table: duplicate and missing primary keys, orphan foreign keys."""

    rows: int
    duplicate_primary_keys: int = 0
    missing_primary_keys: int = 0
    orphans: dict[str, int] = field(default_factory=dict)

    @property
    def is_clean(self) -> bool:
        return not (self.duplicate_primary_keys or self.missing_primary_keys or any(self.orphans.values()))


class RelationalData(Mapping[str, pd.DataFrame]):
    """Tables of one dataset plus their schema, with every column's kind resolved.

    ``data`` is a mapping of table names to DataFrames, or one DataFrame (a single table). Columns
    the schema does not declare get their kind inferred (``inferred_columns`` lists them).
    """

    def __init__(
        self,
        data: Mapping[str, pd.DataFrame] | pd.DataFrame,
        schema: Schema | None = None,
        *,
        max_categories: int = DEFAULT_MAX_CATEGORIES,
    ):
        check_param("RelationalData", "max_categories", max_categories, [Interval(int, 1, None)])
        tables = _as_table_dict(data, schema)
        schema = schema if schema is not None else Schema({name: Table() for name in tables})
        _check_tables_match(tables, schema)
        resolved: dict[str, Table] = {}
        for name, frame in tables.items():
            resolved[name] = _resolve_table(name, frame, schema[name], max_categories)
        self._tables = {name: frame.copy(deep=False) for name, frame in tables.items()}
        self.schema = Schema(resolved)
        self.max_categories = max_categories

    # -- Mapping interface -------------------------------------------------------------------
    def __getitem__(self, name: str) -> pd.DataFrame:
        if name not in self._tables:
            raise SchemaError(f"No table {name!r}; the tables are {sorted(self._tables)}.")
        return self._tables[name]

    def __contains__(self, name: object) -> bool:
        return name in self._tables

    def __iter__(self) -> Iterator[str]:
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)

    def __repr__(self) -> str:
        shapes = ", ".join(f"{n}: {f.shape[0]}x{f.shape[1]}" for n, f in self._tables.items())
        return f"RelationalData({shapes})"

    @property
    def inferred_columns(self) -> dict[str, dict[str, ColumnKind]]:
        """Per table, the columns whose kind was inferred from data, with that kind."""
        return {
            name: {c: t.kinds[c] for c in t.columns if c in t.inferred} for name, t in self.schema.items()
        }

    def with_tables(self, tables: Mapping[str, pd.DataFrame]) -> RelationalData:
        """The same schema over other tables (used for subsets of this data)."""
        new = object.__new__(RelationalData)
        new._tables = dict(tables)
        new.schema = self.schema
        new.max_categories = self.max_categories
        return new

    # -- keys ----------------------------------------------------------------------------------
    def integrity(self) -> dict[str, KeyIntegrity]:
        """Duplicate and missing primary keys and orphan foreign keys, per table."""
        out = {}
        for name, table in self.schema.items():
            frame = self._tables[name]
            dup = missing = 0
            if table.primary_key:
                keys = frame[list(table.primary_key)]
                missing = int(keys.isna().any(axis=1).sum())
                dup = int(keys.dropna().duplicated().sum())
            orphans = {
                rel.column: int(np.count_nonzero(self._parent_positions(rel) == -2))
                for rel in self.schema.relations
                if rel.child == name
            }
            out[name] = KeyIntegrity(len(frame), dup, missing, orphans)
        return out

    def _parent_positions(self, rel: Relation) -> np.ndarray:
        """For each child row: the position of its parent row, -1 for a null key, -2 for an orphan."""
        child_keys = self._tables[rel.child][rel.column]
        parent_keys = self._tables[rel.parent][rel.parent_column]
        parent_index = pd.Index(key_values(parent_keys))
        first = ~parent_index.duplicated(keep="first")  # a duplicated parent key refers to its first row
        found = parent_index[first].get_indexer(key_values(child_keys))
        found = np.where(found >= 0, np.flatnonzero(first)[np.maximum(found, 0)], -2)
        return np.where(child_keys.isna().to_numpy(), -1, found)

    # -- split and sample ------------------------------------------------------------------------
    def default_root(self) -> str:
        """The table whose rows are the entities: the root with the most rows below it."""

        def weight(table: str) -> int:
            return sum(len(self._tables[t]) for t in [table, *self.schema.descendants(table)])

        roots = self.schema.roots()
        return max(roots, key=lambda t: (weight(t), -roots.index(t)))

    def split(
        self, ratio: float, seed: int = 0, *, root: str | None = None
    ) -> tuple[RelationalData, RelationalData]:
        """Split into (train, test) by entity, ``ratio`` of the entities going to train.

        An entity is a row of the ``root`` table (default: ``default_root()``) with every row that
        descends from it along the foreign keys; rows linked through a self-reference or a child
        with two parents in the root's hierarchy travel together. No entity lands on both sides.
        Tables outside the root's hierarchy (lookup tables such as a genre list) are copied to
        both sides, so that each side stays referentially closed.
        """
        check_param("split", "ratio", ratio, [Interval(float, 0, 1, closed="neither")])
        check_param("split", "seed", seed, [Interval(int, 0, None)])
        check_param("split", "root", root, [NoneValue(), Options(tuple(self))])
        rng = np.random.default_rng(seed)
        labels, n_entities = self._entity_labels(root or self.default_root())
        if n_entities < 2:
            raise DataError(f"Cannot split: the data has {n_entities} entity; a split needs at least 2.")
        order = rng.permutation(n_entities)
        n_train = min(max(round(ratio * n_entities), 1), n_entities - 1)
        in_train = np.zeros(n_entities, dtype=bool)
        in_train[order[:n_train]] = True
        train, test = {}, {}
        for name, frame in self._tables.items():
            if name in labels:
                mask = in_train[labels[name]]
                train[name], test[name] = frame[mask], frame[~mask]
            else:
                train[name], test[name] = frame, frame
        return self.with_tables(train), self.with_tables(test)

    def sample(self, n_max: int, seed: int = 0, *, root: str | None = None) -> RelationalData:
        """At most ``n_max`` rows per table, sampled by whole entities, referentially closed.

        Entities of the root's hierarchy are drawn in a seeded random order and kept while every
        table stays within ``n_max``. Other tables keep the rows the kept rows refer to, filled up
        at random to ``n_max``; where the referenced rows alone exceed ``n_max``, closure wins.
        """
        check_param("sample", "n_max", n_max, [Interval(int, 1, None)])
        check_param("sample", "seed", seed, [Interval(int, 0, None)])
        if all(len(f) <= n_max for f in self._tables.values()):
            return self
        rng = np.random.default_rng(seed)
        labels, n_entities = self._entity_labels(root or self.default_root())
        order = rng.permutation(n_entities)
        rank = np.empty(n_entities, dtype=np.int64)
        rank[order] = np.arange(n_entities)
        fits = np.ones(n_entities, dtype=bool)
        for lab in labels.values():
            per_entity = np.bincount(rank[lab], minlength=n_entities)
            fits &= np.cumsum(per_entity) <= n_max
        n_keep = int(np.argmin(fits)) if not fits.all() else n_entities
        kept = {name: rank[lab] < n_keep for name, lab in labels.items()}
        for name in reversed(self.schema.topological_order()):
            if name not in labels:
                kept[name] = self._closed_sample(name, kept, n_max, rng)
        return self.with_tables({n: f[kept[n]] for n, f in self._tables.items()})

    def _closed_sample(
        self, name: str, kept: dict[str, np.ndarray], n_max: int, rng: np.random.Generator
    ) -> np.ndarray:
        """Rows of a table outside the root's hierarchy: those referred to, then random ones."""
        frame = self._tables[name]
        required = np.zeros(len(frame), dtype=bool)
        for rel in self.schema.children(name):
            if rel.child in kept:
                pos = self._parent_positions(rel)[kept[rel.child]]
                required[pos[pos >= 0]] = True
        free = np.flatnonzero(~required)
        n_fill = max(0, n_max - int(required.sum()))
        chosen = required.copy()
        chosen[rng.choice(free, size=min(n_fill, len(free)), replace=False)] = True
        for rel in self.schema.self_references(name):
            parents = self._parent_positions(rel)
            while True:
                needed = parents[chosen]
                needed = needed[needed >= 0]
                if chosen[needed].all():
                    break
                chosen[needed] = True
        return chosen

    def _entity_labels(self, root: str) -> tuple[dict[str, np.ndarray], int]:
        """Entity number of every row of ``root`` and its descendants (connected components)."""
        tables = [root, *self.schema.descendants(root)]
        offsets = dict(zip(tables, np.cumsum([0] + [len(self._tables[t]) for t in tables[:-1]]), strict=True))
        n_nodes = sum(len(self._tables[t]) for t in tables)
        rows, cols = [], []
        for rel in self.schema.relations:
            if rel.child in offsets and rel.parent in offsets:
                parent = self._parent_positions(rel)
                child = np.flatnonzero(parent >= 0)
                rows.append(child + offsets[rel.child])
                cols.append(parent[child] + offsets[rel.parent])
        rows_arr = np.concatenate(rows) if rows else np.empty(0, dtype=np.int64)
        cols_arr = np.concatenate(cols) if cols else np.empty(0, dtype=np.int64)
        graph = coo_matrix((np.ones(len(rows_arr)), (rows_arr, cols_arr)), shape=(n_nodes, n_nodes))
        n, labels = connected_components(graph, directed=False)
        return {t: labels[offsets[t] : offsets[t] + len(self._tables[t])] for t in tables}, n


def key_values(keys: pd.Series) -> np.ndarray:
    """Key values comparable across dtypes: integral floats as ints, everything else as is."""
    if pd.api.types.is_float_dtype(keys.dtype):
        values = keys.to_numpy()
        finite = values[np.isfinite(values)]
        if np.all(np.mod(finite, 1) == 0):
            return keys.astype("Int64").to_numpy(dtype=object, na_value=None)
    return keys.to_numpy(dtype=object, na_value=None)


def as_relational(
    data: RelationalData | Mapping[str, pd.DataFrame] | pd.DataFrame,
    schema: Schema | None = None,
    *,
    max_categories: int = DEFAULT_MAX_CATEGORIES,
) -> RelationalData:
    """Accept RelationalData, a dict of DataFrames, or one DataFrame, wherever data is expected."""
    if isinstance(data, RelationalData):
        if schema is not None and data.schema != schema:
            return RelationalData(dict(data), schema, max_categories=max_categories)
        return data
    return RelationalData(data, schema, max_categories=max_categories)


def _as_table_dict(
    data: Mapping[str, pd.DataFrame] | pd.DataFrame, schema: Schema | None
) -> dict[str, pd.DataFrame]:
    if isinstance(data, pd.DataFrame):
        name = next(iter(schema)) if schema is not None and len(schema) == 1 else SINGLE_TABLE_NAME
        return {name: with_string_columns(data)}
    if not isinstance(data, Mapping):
        raise InvalidParameterError(
            "Data must be a pandas DataFrame, a dict of table names to DataFrames, or a "
            f"RelationalData; got {type(data).__name__}."
        )
    if not data:
        raise DataError("The data has no tables.")
    out = {}
    for name, frame in data.items():
        if not isinstance(frame, pd.DataFrame):
            raise InvalidParameterError(
                f"Table {name!r}: expected a pandas DataFrame, got {type(frame).__name__}."
            )
        out[str(name)] = with_string_columns(frame)
    return out


def with_string_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with column names as strings (a new frame if any was not; the input is untouched)."""
    if all(isinstance(c, str) for c in frame.columns):
        return frame
    return frame.rename(columns=str)


def _check_tables_match(tables: Mapping[str, pd.DataFrame], schema: Schema) -> None:
    missing = [t for t in schema if t not in tables]
    if missing:
        raise SchemaError(
            f"The schema declares table(s) {missing} that the data does not have (data tables: "
            f"{sorted(tables)}). Provide them, or remove them from the schema."
        )
    extra = [t for t in tables if t not in schema]
    if extra:
        raise SchemaError(
            f"The data has table(s) {extra} that the schema does not declare. Add them to the "
            "schema (an empty Table() infers every column), or leave them out of the data."
        )


def _resolve_table(name: str, frame: pd.DataFrame, table: Table, max_categories: int) -> Table:
    columns = [str(c) for c in frame.columns]
    if len(set(columns)) != len(columns):
        dupes = sorted({c for c in columns if columns.count(c) > 1})
        raise SchemaError(f"Table {name!r}: duplicate column names {dupes}. Rename them.")
    missing = [c for c in table.columns if c not in columns]
    if missing:
        raise SchemaError(
            f"Table {name!r}: the schema declares column(s) {missing} that the data does not "
            f"have. Its columns are {columns}."
        )
    inferred = {c: infer_kind(frame[c], max_categories) for c in columns if c not in table.kinds}
    return table.with_inferred(inferred).ordered(columns)
