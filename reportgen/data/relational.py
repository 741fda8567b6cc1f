"""``RelationalData``: named DataFrames with a schema whose every column has a kind.

Construction checks the data against the schema (tables and columns on both sides) and infers the
kinds the schema leaves open. Inputs are never modified: the object keeps its own shallow copies.
Key integrity (duplicate primary keys, orphan foreign keys) is measured by ``integrity()``; whether
that is an error depends on the role of the data (real or synthetic), see ``validation``.
"""

from __future__ import annotations

import warnings
from collections.abc import Collection, Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import connected_components

from reportgen.data.kinds import DEFAULT_MAX_CATEGORIES, canonical_array, infer_kind
from reportgen.data.links import close_under_keys, link
from reportgen.data.roles import SINGLE_TABLE_NAME
from reportgen.data.schema import ColumnKind, Relation, Schema, Table
from reportgen.errors import DataError, InvalidParameterError, ReportgenError, SchemaError
from reportgen.params import Interval, NoneValue, Options, check_param

HOLDOUT_ADVICE = (
    "Before fitting the generator, keep a random 20-30% of the real data back "
    "(RelationalData.split(0.75, seed=0) keeps each entity's rows together), fit the generator on the "
    "rest only, and pass the kept-back rows as the holdout (data_test in Python, --test on the command line)"
)
MIN_SERVED = 0.5  # whole-entity sampling is kept while every table gets half the rows the cap allows


@dataclass(frozen=True)
class KeyIntegrity:
    """Key findings of one table: duplicate and missing primary keys, orphans per foreign key."""

    rows: int
    duplicate_primary_keys: int = 0
    missing_primary_keys: int = 0
    orphans: dict[Relation, int] = field(default_factory=dict)

    @property
    def is_clean(self) -> bool:
        return not (self.duplicate_primary_keys or self.missing_primary_keys or any(self.orphans.values()))


@dataclass(frozen=True)
class TableSample:
    """How the rows of one table were chosen by ``RelationalData.sample``: for the report's run page."""

    available: int
    used: int
    method: str

    @property
    def is_sampled(self) -> bool:
        return self.used < self.available


@dataclass(frozen=True)
class SplitPlan:
    """How ``RelationalData.split`` divided the data, and what the reader should know about it.

    ``root`` is the table whose rows are the entities; ``split_tables`` its hierarchy (each row on
    one side only); ``copied_tables`` the tables outside it, copied whole to both sides (so their
    holdout equals their training data); ``largest_entity_share`` the share of each split table's
    rows held by its largest entity; ``problems`` what makes the holdout less useful, in words.
    """

    root: str
    split_tables: tuple[str, ...]
    copied_tables: tuple[str, ...]
    largest_entity_share: dict[str, float]
    problems: tuple[str, ...] = ()


class SplitWarning(UserWarning):
    """``RelationalData.split`` could not give every table a usable holdout share."""


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
        self.schema.notes = schema.notes
        self.max_categories = max_categories
        self.sampling: dict[str, TableSample] | None = None
        self.split_plan: SplitPlan | None = None

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

    def with_tables(self, tables: Mapping[str, pd.DataFrame], schema: Schema | None = None) -> RelationalData:
        """The same schema (or ``schema``, same tables and columns) over other tables."""
        new = object.__new__(RelationalData)
        new._tables = dict(tables)
        new.schema = self.schema if schema is None else schema
        new.max_categories = self.max_categories
        new.sampling = None
        new.split_plan = None
        return new

    def in_canonical_order(self) -> RelationalData:
        """The same tables, each with its rows sorted by a hash of their values (labels 0..n-1).

        Every seeded draw by row position (samples, folds, attack targets, halves) then picks the
        same rows of the same data however its rows came, so a report does not depend on the
        order a file, a query or a shuffle gave. Rows read as the same values (``canonical_array``:
        1 and 1.0, any NaN, a timestamp in any time zone, a category in any dtype) hash alike, so
        duplicate rows tie and, being the same values, are interchangeable; distinct rows tie only
        when their 64-bit hashes collide (about 1 in 10^10 for 50,000 rows), and keep the order
        given then. The index is renumbered: no number can depend on the caller's labels.
        """
        return self.with_tables(
            {name: _in_canonical_order(f, self.schema[name].kinds) for name, f in self.items()}
        )

    def restricted(self, tables: Collection[str]) -> RelationalData:
        """Only ``tables`` (in this order of the schema), with the foreign keys among them."""
        new = self.with_tables({t: f for t, f in self._tables.items() if t in tables})
        new.schema = self.schema.subset(tables)
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
            orphans = {rel: link(self, rel).n_orphans for rel in self.schema.relations if rel.child == name}
            out[name] = KeyIntegrity(len(frame), dup, missing, orphans)
        return out

    # -- split and sample ------------------------------------------------------------------------
    def default_root(self) -> str:
        """The table whose rows are the entities: the root with the most rows below it."""
        return entity_root(self.schema, self.row_counts)

    @property
    def row_counts(self) -> dict[str, int]:
        return {name: len(frame) for name, frame in self._tables.items()}

    def _hierarchy_rows(self, table: str) -> int:
        return hierarchy_rows(self.schema, self.row_counts, table)

    def plan_split(self, ratio: float, *, root: str | None = None) -> SplitPlan:
        """Which table ``split`` divides on, and why (see ``split``); nothing is split here."""
        check_param("plan_split", "ratio", ratio, [Interval(float, 0, 1, closed="neither")])
        check_param("plan_split", "root", root, [NoneValue(), Options(tuple(self))])
        candidates = [root] if root is not None else list(self)
        plans = [self._split_plan(c, ratio) for c in candidates]
        usable = [p for p in plans if not p.problems] or plans
        return max(usable, key=lambda p: (self._hierarchy_rows(p.root), len(p.split_tables), -plans.index(p)))

    def _split_plan(self, root: str, ratio: float) -> SplitPlan:
        labels, n_entities = self._entity_labels(root)
        shares = {t: float(np.bincount(lab).max() / len(lab)) for t, lab in labels.items() if len(lab) > 0}
        bound = (1 - ratio) / 2
        problems = [
            f"one {root!r} entity holds {share:.0%} of table {t!r}'s rows, so its holdout share "
            "depends on where that entity lands"
            for t, share in shares.items()
            if share > bound and len(labels[t]) > 1
        ]
        if n_entities < 2:
            problems.insert(0, f"table {root!r} and its descendants form only {n_entities} entity")
        copied = tuple(t for t in self if t not in labels)
        return SplitPlan(root, tuple(labels), copied, shares, tuple(problems))

    def split(
        self, ratio: float, seed: int = 0, *, root: str | None = None
    ) -> tuple[RelationalData, RelationalData]:
        """Split into (train, test) by entity, ``ratio`` of the entities going to train.

        An entity is a row of the ``root`` table with every row that descends from it along the
        foreign keys; rows linked through a self-reference or a child with two parents in the
        root's hierarchy travel together. No entity lands on both sides. Tables outside the root's
        hierarchy (lookup tables such as a genre list) are copied to both sides, so each side stays
        referentially closed; their holdout is their training data. Without ``root``, the table
        is chosen (``plan_split``) so that no entity holds more than half of the expected holdout
        share of any table, covering as many rows as possible; when no table allows that, the
        split goes on and a ``SplitWarning`` says why. Both sides carry the plan as ``split_plan``.
        """
        check_param("split", "ratio", ratio, [Interval(float, 0, 1, closed="neither")])
        check_param("split", "seed", seed, [Interval(int, 0, None)])
        check_param("split", "root", root, [NoneValue(), Options(tuple(self))])
        plan = self.plan_split(ratio, root=root)
        rng = np.random.default_rng(seed)
        labels, n_entities = self._entity_labels(plan.root)
        if n_entities < 2:
            raise DataError(
                f"Cannot split on table {plan.root!r}: it has {n_entities} entity; a split needs at "
                "least 2. Name another table with root=, or split the data yourself."
            )
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
        empty = [t for t in labels if len(self._tables[t]) and (len(test[t]) == 0 or len(train[t]) == 0)]
        problems = plan.problems + tuple(f"table {t!r} has rows on one side only" for t in empty)
        plan = SplitPlan(
            plan.root, plan.split_tables, plan.copied_tables, plan.largest_entity_share, problems
        )
        if problems:
            warnings.warn(
                f"Split on table {plan.root!r}: " + "; ".join(problems) + ". Choose root= or more data.",
                SplitWarning,
                stacklevel=2,
            )
        out = self.with_tables(train), self.with_tables(test)
        for side in out:
            side.split_plan = plan
        return out

    def sample(self, n_max: int, seed: int = 0, *, root: str | None = None) -> RelationalData:
        """At most about ``n_max`` rows per table, referentially closed; ``sampling`` says how.

        First choice: whole entities of ``root`` (default ``default_root()``), drawn in a seeded
        random order and kept while every table stays within ``n_max``, so each kept parent keeps
        all its children. When that would leave a table with under half of the rows it could have
        (one entity holds most rows, or tables belong to several hierarchies) and no ``root`` was
        named, rows are drawn where they are instead (``_row_sample``), if that serves the
        least-served table better: tables within the cap are kept whole, and from the children up,
        each table over the cap keeps the rows its kept child rows refer to, then uniform random
        rows up to ``n_max``; where the referenced rows alone exceed the cap, a uniform ``n_max`` of
        them is kept and the child rows that referred to the others are dropped (``close_under_keys``).
        ``sampling`` gives, per table, the rows available, the rows used and how they were drawn.
        """
        check_param("sample", "n_max", n_max, [Interval(int, 1, None)])
        check_param("sample", "seed", seed, [Interval(int, 0, None)])
        check_param("sample", "root", root, [NoneValue(), Options(tuple(self))])
        if all(len(f) <= n_max for f in self._tables.values()):
            return self
        rng = np.random.default_rng(seed)
        kept, methods = self._closed(*self._entity_sample(root or self.default_root(), n_max, rng))
        if root is None and self._served(kept, n_max) < MIN_SERVED:
            by_rows = self._row_sample(n_max, rng)
            if self._served(by_rows[0], n_max) > self._served(kept, n_max):
                kept, methods = by_rows
        sample = self.with_tables({n: f[kept[n]] for n, f in self._tables.items()})
        sample.sampling = {
            n: TableSample(len(f), int(kept[n].sum()), methods[n]) for n, f in self._tables.items()
        }
        return sample

    def _entity_sample(
        self, root: str, n_max: int, rng: np.random.Generator
    ) -> tuple[dict[str, np.ndarray], dict[str, str]]:
        labels, n_entities = self._entity_labels(root)
        order = rng.permutation(n_entities)
        rank = np.empty(n_entities, dtype=np.int64)
        rank[order] = np.arange(n_entities)
        fits = np.ones(n_entities, dtype=bool)
        for lab in labels.values():
            per_entity = np.bincount(rank[lab], minlength=n_entities)
            fits &= np.cumsum(per_entity) <= n_max
        n_keep = int(np.argmin(fits)) if not fits.all() else n_entities
        kept = {name: rank[lab] < n_keep for name, lab in labels.items()}
        methods = dict.fromkeys(labels, f"whole entities of {root!r} (each with all its rows below it)")
        for name in reversed(self.schema.topological_order()):
            if name not in labels:
                kept[name], methods[name] = self._closed_rows(name, kept, n_max, rng)
        return kept, methods

    def _served(self, kept: Mapping[str, np.ndarray], n_max: int) -> float:
        return served({n: int(k.sum()) for n, k in kept.items()}, self.row_counts, n_max)

    def _row_sample(
        self, n_max: int, rng: np.random.Generator
    ) -> tuple[dict[str, np.ndarray], dict[str, str]]:
        """Children first: each table keeps what its kept child rows refer to, then random rows."""
        kept: dict[str, np.ndarray] = {}
        methods: dict[str, str] = {}
        for name in reversed(self.schema.topological_order()):
            kept[name], methods[name] = self._closed_rows(name, kept, n_max, rng)
        return self._closed(kept, methods)

    def _closed(
        self, kept: dict[str, np.ndarray], methods: dict[str, str]
    ) -> tuple[dict[str, np.ndarray], dict[str, str]]:
        """Less the kept rows whose parent row was not kept (a table's referred rows past the cap)."""
        _, dropped = close_under_keys(self, self.schema.relations, kept)
        for name, lost in dropped.items():
            if lost.any():
                kept[name] &= ~lost
                methods[name] += ", less the rows whose parent row was not kept"
        return kept, methods

    def _closed_rows(
        self, name: str, kept: dict[str, np.ndarray], n_max: int, rng: np.random.Generator
    ) -> tuple[np.ndarray, str]:
        """The rows of one table that kept child rows refer to, then random ones up to ``n_max``."""
        frame = self._tables[name]
        if len(frame) <= n_max:
            return np.ones(len(frame), dtype=bool), "all rows"
        required = np.zeros(len(frame), dtype=bool)
        referring = []
        for rel in self.schema.children(name):
            if rel.child in kept:
                pos = link(self, rel).parent_rows()[kept[rel.child]]
                required[pos[pos >= 0]] = True
                referring.append(rel.child)
        over_cap = int(required.sum()) > n_max
        if over_cap:
            chosen = np.zeros(len(frame), dtype=bool)
            chosen[rng.choice(np.flatnonzero(required), size=n_max, replace=False)] = True
        else:
            free = np.flatnonzero(~required)
            chosen = required.copy()
            chosen[rng.choice(free, size=n_max - int(required.sum()), replace=False)] = True
        for rel in self.schema.self_references(name):
            parents = link(self, rel).parent_rows()
            while True:
                needed = parents[chosen]
                needed = needed[needed >= 0]
                if chosen[needed].all():
                    break
                chosen[needed] = True
        if not referring:
            return chosen, "uniform random rows"
        method = f"the rows that sampled {', '.join(map(repr, dict.fromkeys(referring)))} rows refer to"
        if over_cap:
            return chosen, f"uniform random rows among {method}"
        return chosen, method + ", then uniform random rows"

    def _entity_labels(self, root: str) -> tuple[dict[str, np.ndarray], int]:
        """Entity number of every row of ``root`` and its descendants (connected components)."""
        tables = [root, *self.schema.descendants(root)]
        offsets = dict(zip(tables, np.cumsum([0] + [len(self._tables[t]) for t in tables[:-1]]), strict=True))
        n_nodes = sum(len(self._tables[t]) for t in tables)
        rows, cols = [], []
        for rel in self.schema.relations:
            if rel.child in offsets and rel.parent in offsets:
                parent = link(self, rel).parent_rows()
                child = np.flatnonzero(parent >= 0)
                rows.append(child + offsets[rel.child])
                cols.append(parent[child] + offsets[rel.parent])
        rows_arr = np.concatenate(rows) if rows else np.empty(0, dtype=np.int64)
        cols_arr = np.concatenate(cols) if cols else np.empty(0, dtype=np.int64)
        graph = coo_matrix((np.ones(len(rows_arr)), (rows_arr, cols_arr)), shape=(n_nodes, n_nodes))
        n, labels = connected_components(graph, directed=False)
        return {t: labels[offsets[t] : offsets[t] + len(self._tables[t])] for t in tables}, n


def entity_root(schema: Schema, rows: Mapping[str, int]) -> str:
    """The root whose entities a sample keeps whole: the one with the most rows in its hierarchy.

    Shared by ``RelationalData.sample`` and the sample drawn in a database (``lake_sample``).
    """
    roots = schema.roots()
    return max(roots, key=lambda t: (hierarchy_rows(schema, rows, t), -roots.index(t)))


def hierarchy_rows(schema: Schema, rows: Mapping[str, int], table: str) -> int:
    """Rows of ``table`` and of every table below it."""
    return sum(rows[t] for t in [table, *schema.descendants(table)])


def served(used: Mapping[str, int], available: Mapping[str, int], n_max: int) -> float:
    """The smallest share, over tables with rows, of the rows a table could have had within the cap.

    Below ``MIN_SERVED``, a sample by rows replaces one by whole entities if it serves better.
    """
    shares = (used[t] / min(n, n_max) for t, n in available.items() if n and t in used)
    return min(shares, default=1.0)


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


def with_columns(frame: pd.DataFrame, columns: Mapping[Any, pd.Series]) -> pd.DataFrame:
    """Return ``frame`` with some columns replaced (a new frame; the input is left alone)."""
    if not columns:
        return frame
    out = frame.copy(deep=False)
    for name, values in columns.items():
        out[name] = values
    return out


def check_frame(frame: pd.DataFrame, where: str) -> None:
    """Refuse what no comparison can read: repeated column names, cells holding lists or dicts."""
    check_unique_columns(frame, where)
    for column, values in frame.items():
        if values.dtype != object or pd.api.types.infer_dtype(values, skipna=True) != "mixed":
            continue
        unhashable = values.map(lambda v: not isinstance(v, Hashable))
        if unhashable.any():
            kind = type(values[unhashable].iloc[0]).__name__
            raise DataError(
                f"{where}, column {column!r}: some cells hold {kind} values, which cannot be "
                "compared. Turn them into columns or plain strings first, or drop the column."
            )


def check_unique_columns(frame: pd.DataFrame, where: str) -> None:
    """Refuse a frame with two columns of one name: every column must be addressable by its name."""
    names = [str(c) for c in frame.columns]
    if len(set(names)) != len(names):
        dupes = sorted({c for c in names if names.count(c) > 1})
        raise SchemaError(
            f"{where}: duplicate column names {dupes}; each column must have its own name. "
            "Rename or drop the repeated column(s)."
        )


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
    check_frame(frame, f"Table {name!r}")
    columns = [str(c) for c in frame.columns]
    missing = [c for c in table.columns if c not in columns]
    if missing:
        raise SchemaError(
            f"Table {name!r}: the schema declares column(s) {missing} that the data does not "
            f"have. Its columns are {columns}."
        )
    unordered = [c for c in table.order_by if c not in columns]
    if unordered:
        raise SchemaError(
            f"Table {name!r}: order_by names column(s) {unordered} that the data does not have. "
            f"Its columns are {columns}."
        )
    inferred = {c: infer_kind(frame[c], max_categories) for c in columns if c not in table.kinds}
    return table.with_inferred(inferred).ordered(columns)


def _in_canonical_order(frame: pd.DataFrame, kinds: Mapping[str, ColumnKind]) -> pd.DataFrame:
    """``frame``'s rows sorted by a hash of their canonical values, columns taken by name."""
    if frame.shape[1] == 0:  # no values to order by: every row is the same
        return frame.reset_index(drop=True)
    columns = sorted(frame.columns, key=str)
    values = pd.DataFrame({i: _hashed_values(frame[c], kinds[c]) for i, c in enumerate(columns)})
    order = np.argsort(pd.util.hash_pandas_object(values, index=False).to_numpy(), kind="stable")
    return frame.iloc[order].reset_index(drop=True)


def _hashed_values(values: pd.Series, kind: ColumnKind) -> np.ndarray:
    """A column's canonical values; as labels where they do not convert to its kind's dtype.

    Such a column fails the conversion check of preparation (which names its table and role) or
    the input fingerprint; ordering by its labels meanwhile keeps the order canonical and leaves
    the error to them.
    """
    try:
        return canonical_array(values, kind, f"Column {values.name!r}", show_examples=False)
    except ReportgenError:
        return canonical_array(values, ColumnKind.TEXT, f"Column {values.name!r}", show_examples=False)
