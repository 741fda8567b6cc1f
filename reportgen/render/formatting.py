"""Number formatting for the report's pages: the one place that decides how a number reads.

Tests compare the PDF's text with the JSON by formatting the JSON's values with these functions.
"""

from __future__ import annotations

import math

DASH = "—"


def fmt_count(value: int | None) -> str:
    """An integer with thousands separators: 32,561."""
    return DASH if value is None else f"{int(value):,}"


def fmt_pct(value: float | None, decimals: int = 1) -> str:
    """A share in [0, 1] as a percentage: 0.1234 -> 12.3%. Tiny non-zero shares read '<0.1%'."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return DASH
    if 0 < value < 0.5 * 10 ** (-decimals) / 100:
        return f"<{10**-decimals:.{decimals}f}%"
    return f"{100 * value:.{decimals}f}%"


def fmt_num(value: float | None, decimals: int = 2) -> str:
    """A real number with fixed decimals: 0.93."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return DASH
    return f"{value:,.{decimals}f}"


FILTERS = {"count": fmt_count, "pct": fmt_pct, "num": fmt_num}
