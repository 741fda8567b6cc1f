"""How much of a wide table the document shows: the columns where the generator does worst.

The JSON keeps every column and pair. The document shows at most a fixed number of them per table,
so that its length grows with the number of tables, not with their width, and says under each cut
list or figure how many it left out and where they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np

from reportgen.metrics.correlation import TableCorrelation
from reportgen.metrics.overview import ColumnSummary
from reportgen.metrics.similarity import shortfall

FIGURES_SHOWN = 12  # distribution figures of one table: three rows of four, about two thirds of a page
ROWS_SHOWN = 12  # rows of a per-column list of one table
SECRETS_SHOWN = 5  # inference rows of one table: the secrets most at risk
HEATMAP_COLUMNS = 16  # columns of a phik heatmap: up to here the three matrices fit side by side


class AtRisk(Protocol):
    """An attack's result: its estimated risk."""

    risk: float


class Scored(Protocol):
    """A column's similarity to the real data and its reference level (training vs holdout)."""

    similarity: float
    reference: float | None


def worst_shown(items: Sequence[Scored], limit: int = FIGURES_SHOWN) -> list[int]:
    """Positions of the ``limit`` items with the largest shortfall, in their original order.

    Ties go to the earlier position, so the same results always show the same columns.
    """
    ranked = sorted(range(len(items)), key=lambda i: (-shortfall(items[i].similarity, items[i].reference), i))
    return sorted(ranked[:limit])


def picked(positions: Sequence[int], items: Sequence[Scored]) -> list[Scored]:
    """The items at ``positions``."""
    return [items[i] for i in positions]


def heatmap_columns(table: TableCorrelation, limit: int = HEATMAP_COLUMNS) -> list[int]:
    """Positions of the columns a phik heatmap shows: all, or those whose largest gap is greatest."""
    n = len(table.columns)
    if n <= limit:
        return list(range(n))
    largest_gap = np.max(np.asarray(table.difference, dtype=float), axis=1)
    ranked = sorted(range(n), key=lambda i: (-largest_gap[i], i))
    return sorted(ranked[:limit])


def left_out(items: Sequence[Scored], shown: Sequence[int]) -> dict[str, float | int] | None:
    """What a cut list leaves out: how many columns and the range of their similarities."""
    kept = set(shown)
    rest = [item.similarity for i, item in enumerate(items) if i not in kept]
    if not rest:
        return None
    return {"count": len(rest), "lowest": min(rest), "highest": max(rest)}


def most_at_risk(results: Sequence[AtRisk], limit: int = SECRETS_SHOWN) -> list[AtRisk]:
    """The ``limit`` results with the highest risk, highest first; ties keep their order."""
    return sorted(results, key=lambda r: -r.risk)[:limit]


def plain_columns(columns: Sequence[ColumnSummary]) -> dict[str, list[str]]:
    """A wide table's columns with nothing to note, by kind: compared, not keys, never missing.

    The kind reads "numeric (inferred)" where it was inferred from the values, as in the table.

    The data section lists them by name in one paragraph instead of a table row each. Empty for a
    table of at most ``ROWS_SHOWN`` columns, which gets its full table.
    """
    if len(columns) <= ROWS_SHOWN:
        return {}
    plain: dict[str, list[str]] = {}
    for c in columns:
        if _is_plain(c):
            kind = f"{c.kind} (inferred)" if c.kind_source == "inferred" else c.kind
            plain.setdefault(kind, []).append(c.name)
    return plain


def _is_plain(c: ColumnSummary) -> bool:
    missing = (c.missing_train, c.missing_test or 0.0, c.missing_synth)
    return c.key is None and c.excluded_reason is None and not any(missing)


GLOBALS = {"ROWS_SHOWN": ROWS_SHOWN}
FILTERS = {
    "worst_shown": worst_shown,
    "picked": picked,
    "heatmap_columns": heatmap_columns,
    "left_out": left_out,
    "plain_columns": plain_columns,
    "most_at_risk": most_at_risk,
}
