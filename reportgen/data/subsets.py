"""Keeping some rows of a relational dataset without leaving children behind their dropped parents.

``keep_rows(data, keep)`` keeps the rows of each table that ``keep`` marks, then drops, again and
again until nothing changes, every row whose foreign key refers to a dropped row: a dropped
customer takes their orders with them, and the orders take their order lines. Self-references
follow the same rule (dropping a manager drops the rows that report to them, and theirs).

How a key refers to a row is decided by ``reportgen.data.links``. A child row refers to a dropped
row when its key value belongs to a dropped parent row and to no kept one (broken synthetic data
may repeat a parent key). Rows whose key is missing or matches no parent row at all (orphans) are
not touched: they did not lose a parent here.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from reportgen.data.links import Links, link
from reportgen.data.relational import RelationalData
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
    links = {rel: link(data, rel) for rel in data.schema.relations}
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
    subset = data.with_tables({name: frame[kept[name]] for name, frame in data.items()})
    return subset, orphaned


def _refers_to_dropped(links: Links, parent_kept: np.ndarray) -> np.ndarray:
    """Child rows whose key value is held by a dropped parent row and by no kept parent row."""
    codes = links.parent_codes
    held_by_kept = np.unique(codes[parent_kept & (codes >= 0)])
    held_by_dropped = np.unique(codes[~parent_kept & (codes >= 0)])
    lost = np.setdiff1d(held_by_dropped, held_by_kept, assume_unique=True)
    return (links.child_codes >= 0) & np.isin(links.child_codes, lost)
