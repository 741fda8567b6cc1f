"""Measurable properties of a laid-out report: what a reader would see as broken, found in WeasyPrint's boxes.

The visual regression tests render a report's HTML with WeasyPrint (the same layout the PDF gets)
and walk its boxes: text that runs past its table cell or the page's margin, a name split across two
lines inside a word, and the pages the body of the report takes.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from weasyprint import HTML
from weasyprint.formatting_structure import boxes

TOLERANCE = 1.5  # CSS px (0.4 mm): rounding in the line breaker, not an overflow anyone sees


@dataclass(frozen=True)
class Line:
    """One laid-out line of text: its page (from 1), its text and the block that holds it."""

    page: int
    text: str
    block: int  # id() of the containing block: consecutive lines of one paragraph or cell


def layout(html: str):
    """The WeasyPrint document of ``html``: pages of boxes, as the PDF will print them."""
    return HTML(string=html).render()


def _walk(box) -> Iterator:
    yield box
    for child in getattr(box, "children", ()):
        yield from _walk(child)


def overflowing_text(document) -> list[str]:
    """Text boxes whose right edge passes their table cell's or the page's content edge."""
    found = []
    for number, page in enumerate(document.pages, 1):
        page_box = page._page_box
        right = page_box.content_box_x() + page_box.width
        for cell in _walk(page_box):
            limit = right
            if isinstance(cell, boxes.TableCellBox):
                limit = min(right, cell.border_box_x() + cell.border_width())
            elif cell is not page_box:
                continue
            for text in _walk(cell):
                if (
                    isinstance(text, boxes.TextBox)
                    and text.text.strip()
                    and text.position_x + text.width > limit + TOLERANCE
                ):
                    found.append(
                        f"page {number}: {text.text!r} passes its edge by {text.position_x + text.width - limit:.1f}px"
                    )
    return found


def lines(document) -> list[Line]:
    """Every line of text in reading order."""
    found = []
    for number, page in enumerate(document.pages, 1):
        for block in _walk(page._page_box):
            for child in getattr(block, "children", ()):
                if isinstance(child, boxes.LineBox):
                    text = "".join(t.text for t in _walk(child) if isinstance(t, boxes.TextBox))
                    found.append(Line(number, text, id(block)))
    return found


# Where a name may wrap without looking broken: after a separator, or between lower and upper case.
_ALLOWED = re.compile(r"[_/:.\\-]$")


def names_broken_mid_word(document, names: Iterable[str]) -> list[str]:
    """Names split across two lines of one block anywhere but at a separator or a case change."""
    names = sorted({n for n in names if len(n) >= 4 and " " not in n}, key=len, reverse=True)
    found = []
    all_lines = lines(document)
    for first, second in itertools.pairwise(all_lines):
        if first.block != second.block or not first.text.strip() or not second.text.strip():
            continue
        end, start = first.text.rstrip().split()[-1], second.text.lstrip().split()[0]
        for name in names:
            for k in range(1, len(name)):
                head, tail = name[:k], name[k:]
                if end.endswith(head) and start.startswith(tail) and not _allowed_break(head, tail):
                    found.append(f"page {first.page}: {name!r} broken as {end!r} / {start!r}")
    return found


def _allowed_break(head: str, tail: str) -> bool:
    return bool(_ALLOWED.search(head)) or (head[-1].islower() and tail[0].isupper())


def page_of(document, element_id: str) -> int:
    """The page (from 1) on which the element with ``element_id`` starts."""
    for number, page in enumerate(document.pages, 1):
        for box in _walk(page._page_box):
            element = getattr(box, "element", None)
            if element is not None and element.get("id") == element_id:
                return number
    raise AssertionError(f"no element with id {element_id!r} in the document")
