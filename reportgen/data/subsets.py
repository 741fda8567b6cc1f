"""Keeping some rows of a relational dataset without leaving children behind their dropped parents.

``keep_rows(data, keep)`` keeps the rows of each table that ``keep`` marks, then drops, again and
again until nothing changes, every row whose foreign key refers to a dropped row: a dropped
customer takes their orders with them, and the orders take their order lines. Self-references
follow the same rule (dropping a manager drops the rows that report to them, and theirs).

How a key refers to a row: key values are compared as in ``reportgen.data.entities`` (integral
floats as integers); the foreign keys from one child table into one parent whose referenced
columns together are the parent's composite primary key form one key, matched on the tuple of
values. A child row refers to a dropped row when its key value belongs to a dropped parent row
and to no kept one (broken synthetic data may repeat a parent key). Rows whose key is missing or
matches no parent row at all (orphans) are not touched: they did not lose a parent here.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from reportgen.data.relational import RelationalData, key_values
from reportgen.errors import InvalidParameterError


def keep_rows(
    data: RelationalData, keep: Mapping[str, np.ndarray]
) -> tuple[RelationalData, dict[str, np.ndarray]]:
    """The rows of ``data`` that ``keep`` marks (tables it omits keep every row), closed under keys.

    Returns the subset and, per table, a boolean mask of the rows dropped only because a row they
    refer to (directly or through other rows) was dropped.
    """
    kept: dict[str, np.ndarray] = {}
    for name, frame in data.items():
        mask = np.ones(len(frame), bool) if name not in keep else np.asarray(keep[name], dtype=bool)
        if mask.shape != (len(frame),):
            raise InvalidParameterError(
                f"The mask for table {name!r} has shape {mask.shape}, but the table has {len(frame)} rows."
            )
        kept[name] = mask.copy()
    orphaned = {name: np.zeros(len(frame), bool) for name, frame in data.items()}
    keys = _keys(data)
    changed = True
    while changed:
        changed = False
        for child, child_columns, parent, parent_columns in keys:
            lost = _refers_to_dropped(data, child, child_columns, parent, parent_columns, kept[parent])
            newly = lost & kept[child]
            if newly.any():
                kept[child] &= ~newly
                orphaned[child] |= newly
                changed = True
    subset = data.with_tables({name: frame[kept[name]] for name, frame in data.items()})
    return subset, orphaned


def _keys(data: RelationalData) -> list[tuple[str, tuple[str, ...], str, tuple[str, ...]]]:
    """Every foreign key as (child, child columns, parent, parent columns), composite ones grouped."""
    schema = data.schema
    out = []
    pairs = dict.fromkeys((r.child, r.parent) for r in schema.relations)
    for child, parent in pairs:
        into = [r for r in schema.relations if r.child == child and r.parent == parent]
        pk = schema[parent].primary_key
        if len(pk) > 1 and sorted(r.parent_column for r in into) == sorted(pk):
            by_parent = {r.parent_column: r.column for r in into}
            out.append((child, tuple(by_parent[c] for c in pk), parent, tuple(pk)))
        else:
            out += [(child, (r.column,), parent, (r.parent_column,)) for r in into]
    return out


def _refers_to_dropped(
    data: RelationalData,
    child: str,
    child_columns: tuple[str, ...],
    parent: str,
    parent_columns: tuple[str, ...],
    parent_kept: np.ndarray,
) -> np.ndarray:
    """Child rows whose key value is held by a dropped parent row and by no kept parent row."""
    parent_keys = _tuples(data[parent], parent_columns)
    dropped = {
        key for key, kept in zip(parent_keys, parent_kept, strict=True) if not kept and key is not None
    }
    if not dropped:
        return np.zeros(len(data[child]), bool)
    dropped -= {key for key, kept in zip(parent_keys, parent_kept, strict=True) if kept}
    return np.fromiter(
        (key in dropped for key in _tuples(data[child], child_columns)), bool, len(data[child])
    )


def _tuples(frame: pd.DataFrame, columns: tuple[str, ...]) -> list[tuple[object, ...] | None]:
    """Each row's key value as a tuple; None where any part is missing."""
    parts = [key_values(frame[c]) for c in columns]
    return [None if any(_missing(p) for p in row) else row for row in zip(*parts, strict=True)]


def _missing(value: object) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value)) or value is pd.NA
