"""Keeping some rows of a relational dataset without leaving children behind their dropped parents.

``keep_rows(data, keep)`` keeps the rows of each table that ``keep`` marks, then drops, again and
again until nothing changes, every row whose foreign key refers to a dropped row: a dropped
customer takes their orders with them, and the orders take their order lines. Self-references
follow the same rule (dropping a manager drops the rows that report to them, and theirs).

Which rows go is decided by ``reportgen.data.links.close_under_keys`` (which ``RelationalData``'s
sampling uses too). A child row refers to a dropped row when its key value belongs to a dropped
parent row and to no kept one (broken synthetic data may repeat a parent key). Rows whose key is
missing or matches no parent row at all (orphans) are not touched: they did not lose a parent here.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from reportgen.data.links import close_under_keys
from reportgen.data.relational import RelationalData


def keep_rows(
    data: RelationalData, keep: Mapping[str, np.ndarray]
) -> tuple[RelationalData, dict[str, np.ndarray]]:
    """The rows of ``data`` that ``keep`` marks (tables it omits keep every row), closed under keys.

    Returns the subset and, per table, a boolean mask of the rows dropped only because a row they
    refer to (directly or through other rows) was dropped.
    """
    kept, orphaned = close_under_keys(data, data.schema.relations, keep)
    subset = data.with_tables({name: frame[kept[name]] for name, frame in data.items()})
    return subset, orphaned
