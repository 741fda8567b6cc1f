"""Formatting for the report's pages: the one place that decides how a number or a name reads.

Tests compare the PDF's text with the JSON by formatting the JSON's values with these functions.
Names and labels from the data (tables, columns, categories) are shortened for display by
``short`` (figures) and ``short_words`` (every value a template prints): one string of thousands of
characters without a space made WeasyPrint's layout take minutes. The JSON keeps the full names.
"""

from __future__ import annotations

import math
import re

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


def fmt_unit(value: float | None, unit: str) -> str:
    """A headline number by its unit: a share as a percentage, a score with one decimal, a number with two.

    Scores are on 0-100; plain numbers are the membership attacks' AUC and epsilon bound.
    """
    if unit == "share":
        return fmt_pct(value, 1)
    return fmt_num(value, 1 if unit == "score" else 2)


def fmt_score(value: float | None) -> str:
    """A 0-1 measure on the 0-100 scale page 1 shows it on: 0.935 -> 93.5 (one scale per measure)."""
    return fmt_num(None if value is None else 100 * value, 1)


def fmt_setting(value: object) -> str:
    """A run setting in words: a mapping as ``key: value`` pairs, a list joined, unset as a dash.

    ``columns`` with no selection at all reads "default" rather than a row of Nones.
    """
    if value is None:
        return DASH
    if isinstance(value, dict):
        chosen = {k: v for k, v in value.items() if v is not None}
        if not chosen:
            return "default"
        return "; ".join(f"{k}: {fmt_setting(v)}" for k, v in chosen.items())
    if isinstance(value, (list, tuple)):
        nested = any(isinstance(v, (list, tuple)) for v in value)  # linkability's two column sets
        return (" / " if nested else ", ").join(fmt_setting(v) for v in value) if value else DASH
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def fmt_bar(value: float, unit: str) -> str:
    """A release bar as the user set it: 80, 0.6, or a share as a percentage (5.0%)."""
    return fmt_pct(value, 1) if unit == "share" else f"{value:g}"


def fmt_change(previous: float, current: float, unit: str) -> str:
    """The change between two headline numbers: percentage points for a share, signed otherwise."""
    if unit == "share":
        return f"{100 * (current - previous):+.1f} pp"
    return f"{current - previous:+.{1 if unit == 'score' else 2}f}"


# Longest run of characters without a space that a page prints. SHA-256 fingerprints (64 hex
# digits) must stay whole; longer runs are cut in the middle.
MAX_WORD = 80


def listed(items: list[str]) -> str:
    """Items as a sentence lists them: ``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def sentence(text: str) -> str:
    """``text`` with its first letter capitalised (``str.capitalize`` would lower the rest)."""
    return text[:1].upper() + text[1:]


def short(text: str, limit: int = 22) -> str:
    """A label cut to ``limit`` characters in the middle, so ``measurement_07_value`` keeps its number."""
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2
    return text[:head] + "…" + text[len(text) - (limit - 1 - head) :]


def short_words(text: str, limit: int = MAX_WORD) -> str:
    """``text`` with every run of more than ``limit`` characters without a space cut to ``limit``."""
    if len(text) <= limit:
        return text
    return re.sub(rf"\S{{{limit + 1},}}", lambda word: short(word.group(), limit), text)


# Where a long name may wrap: after a separator, or where a lower-case letter meets an upper-case one
# (``rating_fina|l`` never, ``rating_|final`` and ``user|ID`` yes). Words shorter than this stay whole.
_BREAK_AFTER = re.compile(
    r"(?<=[_/:\\])(?=\w)"  # after _ / : \ before a letter or digit
    r"|(?<=[A-Za-z]\.)(?=[A-Za-z])"  # after . between letters (not in 0.25); lines break after - anyway
    r"|(?<=[a-z])(?=[A-Z])"  # camelCase
)
# A tag, or a whole style/script/title/head element, is kept as it is; a word of 10 or more
# characters of text between tags may get break opportunities.
_TAG_OR_LONG_WORD = re.compile(
    r"(?P<tag><(style|script|title|head)\b.*?</\2>|<[^>]*>)|[^\s<>&]{10,}", re.DOTALL | re.IGNORECASE
)


def break_opportunities(html: str) -> str:
    """``html`` with ``<wbr>`` where long words of its text may wrap, so names never break mid-word.

    Only text between tags changes: attributes, styles and scripts stay as they are. A table cell
    can then be as narrow as a name's longest part; the stylesheet breaks inside a part only when
    that part alone is wider than the page allows.
    """
    return _TAG_OR_LONG_WORD.sub(
        lambda m: m.group() if m.group("tag") else _BREAK_AFTER.sub("<wbr>", m.group()), html
    )


def shown(value: object) -> object:
    """What a template prints for ``value`` (Jinja's ``finalize``): plain strings with long words cut.

    Markup (HTML already rendered, with its own escaping) and inline figures (data URIs) pass whole.
    """
    if isinstance(value, str) and not hasattr(value, "__html__") and not value.startswith("data:"):
        return short_words(value)
    return value


FILTERS = {
    "count": fmt_count,
    "pct": fmt_pct,
    "num": fmt_num,
    "score": fmt_score,
    "setting": fmt_setting,
    "unit": fmt_unit,
    "change": fmt_change,
    "bar": fmt_bar,
    "short": short,
    "listed": listed,
}
