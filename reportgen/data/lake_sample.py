"""Relational samples drawn in the engine, by the rules of ``RelationalData.sample``.

``sample`` gives one role's sample, at most about ``n_max`` rows per table, read by SQL where the
data lives. Python holds the sample and the key values of sampled rows, never a whole table: the
keys that sampled rows refer to travel to the engine as ``VALUES`` lists (in chunks of ``CHUNK``).
"Random" is the md5 order of each row's values as text with the seed (``lake.row_hash_sql``), so
the same data and seed give the same sample, in DuckDB and in PostgreSQL alike. The rules:

- First choice, ``entity_sample``: whole entities of the root (the root with the most rows below
  it), entered in a seeded order and kept while every table of its hierarchy stays within
  ``n_max``. A root row enters at the md5 of its primary key; a row below it enters with the last
  of the parent rows it refers to inside the hierarchy (the largest of their entry keys), so it is
  kept exactly when every such parent row is; a row that refers to none (missing key, orphan) is an
  entity of its own, entered at the md5 of its values. A kept root row thus keeps every row below
  it whose other parents in the hierarchy are kept too. (In memory, rows linked through a table
  with two parents in the hierarchy form one entity, a connected component; computing those in the
  engine would need every key of every row, iterated to a fixed point, so the engine keeps a
  two-parent row only when both parents are kept.)
- Children first, each table outside the hierarchy keeps the rows its sampled child rows refer to,
  then random rows up to ``n_max``; where the referenced rows alone exceed the cap, ``n_max`` of
  them at random (``closed_rows``). A self-reference adds the rows that kept rows refer to, until
  none is missing, inside the hierarchy too.
- When whole entities would leave some table with under ``MIN_SERVED`` of the rows it could have
  (one entity holds most rows), every table is drawn by the second rule instead, if that serves the
  least-served table better.
- Either way, a sampled row that refers to an existing row which was not kept is dropped, and so
  are the rows that refer to it (``closed``): the sample is referentially closed, and only the full
  data's orphans (keys that no parent row holds) refer outside it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from reportgen.data.engines import Source, quote
from reportgen.data.lake import literal, matches, row_hash_sql
from reportgen.data.links import key_values
from reportgen.data.relational import MIN_SERVED, entity_root, served
from reportgen.data.schema import Relation, Schema

ORDER = "reportgen_order"  # each fetched row's md5 (its random order), dropped before returning
ENTRY = "reportgen_entry"  # each hierarchy row's entry key (the md5 its entity enters at)
CHUNK = 5_000  # key values per VALUES list
Key = tuple[Any, ...]
Frames = dict[str, pd.DataFrame]


def sample(
    source: Source, schema: Schema, rows: Mapping[str, int], n_max: int, seed: int
) -> tuple[Frames, dict[str, str]]:
    """Each table's sample and how it was drawn (the module docstring gives the rules)."""
    frames, methods = _entity_sample(source, schema, entity_root(schema, rows), rows, n_max, seed)
    if _served(frames, rows, n_max) < MIN_SERVED:
        by_rows = _row_sample(source, schema, rows, n_max, seed)
        if _served(by_rows[0], rows, n_max) > _served(frames, rows, n_max):
            frames, methods = by_rows
    where = f", drawn in {source.engine.dialect}"
    return (
        {t: frames[t].drop(columns=ORDER).reset_index(drop=True) for t in schema},
        {t: methods[t] + where for t in schema},
    )


def _served(frames: Mapping[str, pd.DataFrame], rows: Mapping[str, int], n_max: int) -> float:
    return served({t: len(f) for t, f in frames.items()}, rows, n_max)


def _entity_sample(
    source: Source, schema: Schema, root: str, rows: Mapping[str, int], n_max: int, seed: int
) -> tuple[Frames, dict[str, str]]:
    """Whole entities of ``root``, then the other tables by ``closed_rows``, closed."""
    frames = entity_sample(source, schema, root, n_max, seed)
    methods = {}
    for table in frames:
        parents = [r for r in schema.parents(table) if r.parent in frames]
        methods[table] = f"whole entities of {root!r} (each with all its rows below it" + (
            "; a row with several parents among them when all are kept)" if len(parents) > 1 else ")"
        )
        frames[table], added = with_referred_rows(source, schema, table, frames[table], seed)
        methods[table] += ", and the rows they refer to in the table" if added else ""
    for table in reversed(schema.topological_order()):
        if table not in frames:
            frames[table], methods[table] = closed_rows(source, schema, table, frames, rows, n_max, seed)
    return closed(source, schema, frames, methods)


def _row_sample(
    source: Source, schema: Schema, rows: Mapping[str, int], n_max: int, seed: int
) -> tuple[Frames, dict[str, str]]:
    """Children first, every table by ``closed_rows``, closed (``RelationalData._row_sample``)."""
    frames: Frames = {}
    methods: dict[str, str] = {}
    for table in reversed(schema.topological_order()):
        frames[table], methods[table] = closed_rows(source, schema, table, frames, rows, n_max, seed)
    return closed(source, schema, frames, methods)


# -- whole entities --------------------------------------------------------------------------------
def entity_sample(source: Source, schema: Schema, root: str, n: int, seed: int) -> Frames:
    """The rows of ``root``'s hierarchy whose entities enter while every table fits ``n``.

    Each row's entry key is computed in SQL (``entry_sql``); one statement finds the last entry key
    at which every table's running count is still within ``n``, and one per table reads the rows
    entered by then. Frames carry the ``ORDER`` column and are in that order.
    """
    tables = [root, *schema.descendants(root)]
    entries = entry_sql(source, schema, tables, seed)
    ((cutoff,),) = source.engine.rows(f"{entries}, {_cutoff_sql(len(tables), n)}")
    where = f" WHERE t.{ENTRY} <= {literal(cutoff, f'table {root!r}')}"
    return {t: _fetch(source, t, seed, where, relation=f"e{i}", prefix=entries) for i, t in enumerate(tables)}


def entry_sql(source: Source, schema: Schema, tables: Sequence[str], seed: int) -> str:
    """``WITH e0 AS (...), e1 AS (...)``: each table of ``tables`` (root first) with its entry key.

    The root's is the md5 of its primary key (of its values, without one); another table's the
    largest entry key of the parent rows it refers to in ``tables`` (parents sharing a key value:
    the first to enter), else the md5 of its own values.
    """
    ctes = []
    for i, table in enumerate(tables):
        ups = [r for r in schema.parents(table) if r.parent in tables]
        joins = "".join(_entry_join(r, f"e{tables.index(r.parent)}", f"p{j}") for j, r in enumerate(ups))
        families = source.families(table)
        key = schema[table].primary_key if i == 0 and schema[table].primary_key else list(families)
        own = row_hash_sql("t", {c: families[c] for c in key}, seed)
        found = [f"p{j}.e" for j in range(len(ups))]
        entry = own if not found else f"COALESCE({_greatest(found)}, {own})"
        ctes.append(f"e{i} AS (SELECT t.*, {entry} AS {ENTRY} FROM {source.relations[table]} AS t{joins})")
    return "WITH " + ", ".join(ctes)


def _entry_join(rel: Relation, parent: str, alias: str) -> str:
    """A LEFT JOIN to the first entry key of each key value of the parent (one row per value)."""
    names = [f"k{m}" for m in range(len(rel.parent_columns))]
    keys = ", ".join(f"{quote(c)} AS {n}" for c, n in zip(rel.parent_columns, names, strict=True))
    grouped = ", ".join(quote(c) for c in rel.parent_columns)
    return (
        f" LEFT JOIN (SELECT {keys}, MIN({ENTRY}) AS e FROM {parent} GROUP BY {grouped}) AS {alias} "
        f"ON {matches('t', rel.columns, alias, names)}"
    )


def _greatest(expressions: Sequence[str]) -> str:
    """The largest non-NULL of ``expressions`` (GREATEST ignores NULLs in PostgreSQL and DuckDB)."""
    return expressions[0] if len(expressions) == 1 else f"GREATEST({', '.join(expressions)})"


def _cutoff_sql(n_tables: int, n: int) -> str:
    """The last entry key at which every table's running row count is within ``n`` (NULL: none)."""
    counts = " UNION ALL ".join(
        f"SELECT {ENTRY} AS e, {i} AS i, COUNT(*) AS n FROM e{i} GROUP BY {ENTRY}" for i in range(n_tables)
    )
    wide = ", ".join(f"SUM(CASE WHEN i = {i} THEN n ELSE 0 END) AS n{i}" for i in range(n_tables))
    running = ", ".join(
        f"SUM(n{i}) OVER (ORDER BY e ROWS UNBOUNDED PRECEDING) AS c{i}" for i in range(n_tables)
    )
    fits = " AND ".join(f"c{i} <= {int(n)}" for i in range(n_tables))
    return (
        f"counts AS ({counts}), wide AS (SELECT e, {wide} FROM counts GROUP BY e), "
        f"running AS (SELECT e, {running} FROM wide) "
        f"SELECT MAX(e) FROM running WHERE {fits}"
    )


# -- referred rows -----------------------------------------------------------------------------------
def closed_rows(
    source: Source, schema: Schema, table: str, frames: Frames, rows: Mapping[str, int], n_max: int, seed: int
) -> tuple[pd.DataFrame, str]:
    """The rows that sampled child rows refer to, then random ones up to ``n_max`` (in md5 order).

    ``RelationalData._closed_rows`` in the engine, with its wording; ``frames`` holds the tables
    sampled so far (the children of ``table`` among them).
    """
    if rows[table] <= n_max:
        return _fetch(source, table, seed), "all rows"
    referring = [r for r in schema.children(table) if r.child in frames]
    parts = [
        rows_with_keys(source, table, r.parent_columns, _keys(frames[r.child], r.columns), seed)
        for r in referring
    ]
    required = _union(parts) if parts else _fetch(source, table, seed, limit=0)
    over_cap = len(required) > n_max
    if over_cap:
        chosen = required.iloc[:n_max]
    else:
        extra = _fetch(source, table, seed, limit=n_max)
        extra = extra[~extra[ORDER].isin(required[ORDER])].iloc[: n_max - len(required)]
        chosen = _union([required, extra])
    chosen, _ = with_referred_rows(source, schema, table, chosen, seed)
    if not referring:
        return chosen, "uniform random rows"
    children = ", ".join(dict.fromkeys(repr(r.child) for r in referring))
    method = f"the rows that sampled {children} rows refer to"
    if over_cap:
        return chosen, f"uniform random rows among {method}"
    return chosen, method + ", then uniform random rows"


def with_referred_rows(
    source: Source, schema: Schema, table: str, frame: pd.DataFrame, seed: int
) -> tuple[pd.DataFrame, bool]:
    """``frame`` with the rows its rows refer to through self-references, until none is missing.

    Keys that no row holds (orphans) are asked once. Returns the frame and whether rows were added.
    """
    asked: dict[Relation, set[Key]] = {r: set() for r in schema.self_references(table)}
    added, changed = False, True
    while changed:
        changed = False
        for rel, done in asked.items():
            held = set(_keys(frame, rel.parent_columns))
            needed = {k for k in _keys(frame, rel.columns) if k is not None and k not in held} - done
            if needed:
                done |= needed
                changed = True
                more = rows_with_keys(source, table, rel.parent_columns, list(needed), seed)
                if len(more):
                    frame, added = _union([frame, more]), True
    return frame, added


def rows_with_keys(
    source: Source, table: str, columns: Sequence[str], keys: Sequence[Key | None], seed: int
) -> pd.DataFrame:
    """The rows of ``table`` whose ``columns`` hold one of ``keys`` (None ones left out), md5 order."""
    present = list(dict.fromkeys(k for k in keys if k is not None))
    parts = []
    for start in range(0, len(present), CHUNK):
        values, names = _values(present[start : start + CHUNK], f"table {table!r}, columns {list(columns)}")
        where = f" WHERE EXISTS (SELECT 1 FROM {values} WHERE {matches('t', columns, 'v', names)})"
        parts.append(_fetch(source, table, seed, where))
    return _union(parts) if parts else _fetch(source, table, seed, limit=0)


# -- closing -------------------------------------------------------------------------------------------
def closed(
    source: Source, schema: Schema, frames: Frames, methods: dict[str, str]
) -> tuple[Frames, dict[str, str]]:
    """Drop the sampled rows that refer to an existing row which was not kept, until none does.

    As ``subsets.keep_rows``: a key value held by any kept parent row is kept; one that no row of
    the full parent table holds is an orphan of the data and stays. Which missing values exist is
    asked of the engine (``existing_keys``), once per value.
    """
    known: dict[Relation, dict[Key, bool]] = {r: {} for r in schema.relations}
    dropped = dict.fromkeys(frames, 0)
    changed = True
    while changed:
        changed = False
        for rel, exists in known.items():
            keys = _keys(frames[rel.child], rel.columns)
            held = set(_keys(frames[rel.parent], rel.parent_columns))
            missing = [k for k in keys if k is not None and k not in held]
            unknown = list(dict.fromkeys(k for k in missing if k not in exists))
            if unknown:
                found = existing_keys(source, rel, unknown)
                exists.update({k: k in found for k in unknown})
            lost = np.array([k is not None and k not in held and exists[k] for k in keys], dtype=bool)
            if lost.any():
                frames[rel.child] = frames[rel.child][~lost]
                dropped[rel.child] += int(lost.sum())
                changed = True
    less = ", less the rows whose parent row was not kept"
    return frames, {t: m + (less if dropped[t] else "") for t, m in methods.items()}


def existing_keys(source: Source, rel: Relation, keys: Sequence[Key]) -> set[Key]:
    """The ``keys`` that some row of ``rel``'s parent table holds, asked in chunks."""
    found: set[Key] = set()
    parent = source.relations[rel.parent]
    for start in range(0, len(keys), CHUNK):
        chunk = keys[start : start + CHUNK]
        values, names = _values(chunk, f"foreign key {rel}")
        query = (
            f"SELECT v.i FROM {values} WHERE EXISTS "
            f"(SELECT 1 FROM {parent} AS p WHERE {matches('p', rel.parent_columns, 'v', names)})"
        )
        found |= {chunk[int(i)] for (i,) in source.engine.rows(query)}
    return found


# -- small helpers -------------------------------------------------------------------------------------
def _fetch(
    source: Source,
    table: str,
    seed: int,
    where: str = "",
    *,
    limit: int | None = None,
    relation: str = "",
    prefix: str = "",
) -> pd.DataFrame:
    """``table``'s rows (from ``relation``, default its own) that ``where`` keeps, in md5 order.

    The frame has the table's columns and ``ORDER`` (the md5), which orders it.
    """
    families = source.families(table)
    listed = ", ".join(f"t.{quote(c)}" for c in families)
    order = row_hash_sql("t", families, seed)
    cap = f" LIMIT {int(limit)}" if limit is not None else ""
    query = f"SELECT {listed}, {order} AS {ORDER} FROM {relation or source.relations[table]} AS t{where}"
    return source.engine.frame(f"{prefix} {query} ORDER BY {ORDER}{cap}".strip())


def _union(parts: Sequence[pd.DataFrame]) -> pd.DataFrame:
    """Rows of several fetches of one table, each row once, in md5 order (empty parts left out)."""
    full = [p for p in parts if len(p)] or list(parts[:1])
    return pd.concat(full, ignore_index=True).drop_duplicates().sort_values(ORDER, kind="stable")


def _keys(frame: pd.DataFrame, columns: Sequence[str]) -> list[Key | None]:
    """Each row's key as a tuple of comparable values (``links.key_values``), None if a part is missing."""
    values = [key_values(frame[c]) for c in columns]
    return [None if any(pd.isna(v) for v in row) else tuple(row) for row in zip(*values, strict=True)]


def _values(keys: Sequence[Key], where: str) -> tuple[str, list[str]]:
    """``(VALUES (0, ...), (1, ...)) AS v(i, k0, ...)``: the keys, numbered, and their column names."""
    names = [f"k{m}" for m in range(len(keys[0]))]
    rows = ", ".join(
        "(" + ", ".join([str(i), *(literal(v, where) for v in key)]) + ")" for i, key in enumerate(keys)
    )
    return f"(VALUES {rows}) AS v(i, {', '.join(names)})", names
