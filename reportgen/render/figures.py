"""Turning matplotlib figures into images embedded in the page (no files beside the report).

Also the conventions every figure shares, in one place: how numbers and long labels read on an
axis (``compact_labels``, ``tick_label``), where a legend goes (``legend_below``), how a figure
adds a note under itself (``figure_note``), and which fonts draw its text (``FONT_FALLBACKS``).
"""

from __future__ import annotations

import base64
import io
import unicodedata
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Literal
from xml.etree import ElementTree

import matplotlib
import numpy as np
import pandas as pd
from fontTools.ttLib import TTFont, TTLibError
from matplotlib import font_manager
from matplotlib.axes import Axes
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.text import Text

matplotlib.rcParams["svg.hashsalt"] = "reportgen"  # stable SVG ids, so equal figures give equal bytes
matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text: small files, searchable PDFs

# Figure text is drawn by the PDF's renderer (Pango, through fontconfig) from the SVG's font list.
# DejaVu Sans covers Latin, Greek and Cyrillic; the others, where installed, draw CJK and symbols.
# A colour emoji font is left out: matplotlib cannot size bitmap fonts (fontconfig still finds it).
FONT_FALLBACKS = (
    "DejaVu Sans",
    "Noto Sans",
    "Noto Sans CJK JP",
    "Noto Sans CJK SC",
    "Noto Sans Symbols 2",
    "Noto Emoji",
)


def _installed_families(families: Iterable[str]) -> list[str]:
    """The families matplotlib can find, in order (a missing one would log a warning per text)."""
    known = {font.name for font in font_manager.fontManager.ttflist}
    return [family for family in families if family in known]


matplotlib.rcParams["font.family"] = [*_installed_families(FONT_FALLBACKS), "sans-serif"]


def new_figure(
    width: float, height: float, *, layout: Literal["constrained"] | None = "constrained"
) -> Figure:
    """A figure not registered with pyplot (no global state, safe in threads and notebooks)."""
    return Figure(figsize=(width, height), layout=layout)


def to_data_uri(figure: Figure) -> str:
    """The figure as an inline SVG data URI, readable by browsers and WeasyPrint alike.

    Text that no installed font can draw gets a note under the figure (``note_undrawable``).
    Drawn once, by the SVG canvas itself: ``savefig`` first draws a figure that has a layout engine
    without output, to settle the layout, and then draws it again, but the constrained layout
    every figure here uses is settled in the one draw. On the 179 figures of adult's, lahman's and
    both demos' reports and a small one, the SVG is the same, byte for byte, in 15-38% less time
    (``tests/render/test_figures.py`` keeps checking it).
    """
    note_undrawable(figure)
    buffer = io.BytesIO()
    FigureCanvasSVG(figure).print_svg(buffer, metadata={"Date": None})
    encoded = base64.b64encode(without_bare_groups(buffer.getvalue())).decode("ascii")
    return f"data:image/svg+xml;base64,{encoded}"


_SVG_NAMESPACE = "http://www.w3.org/2000/svg"
_BARE_GROUP = f"{{{_SVG_NAMESPACE}}}g"
ElementTree.register_namespace("xlink", "http://www.w3.org/1999/xlink")  # xlink:href as written, not ns1:href


def without_bare_groups(svg: bytes) -> bytes:
    """The SVG with each group that carries nothing but an id (or nothing) replaced by its children.

    Matplotlib wraps every artist, tick and label in such a group (ids name them; it refers by id
    only to paths, clip paths and patterns). They change nothing drawn, and WeasyPrint saves and
    restores its drawing state for each: without them the PDF is written in a fifth less time.
    An SVG that is not well-formed XML (a control character in a name) is kept as it is.
    """
    try:
        root = ElementTree.fromstring(svg)
    except ElementTree.ParseError:
        return svg
    _dissolve_bare_groups(root)
    for element in root.iter():  # SVG as the default namespace again: <svg xmlns=...>, not <ns0:svg>
        element.tag = element.tag.removeprefix(f"{{{_SVG_NAMESPACE}}}")
    root.set("xmlns", _SVG_NAMESPACE)
    return ElementTree.tostring(root, encoding="utf-8")


def _dissolve_bare_groups(parent: ElementTree.Element) -> None:
    children: list[ElementTree.Element] = []
    for child in parent:
        _dissolve_bare_groups(child)
        bare = child.tag == _BARE_GROUP and set(child.keys()) <= {"id"}
        children.extend(child if bare else [child])
    parent[:] = children


def no_mathtext(ax: Axes) -> None:
    """Names and categories are data: never let matplotlib read ``$...$`` in them as formulas."""
    for text in [*ax.get_xticklabels(), *ax.get_yticklabels(), ax.title, ax.xaxis.label, ax.yaxis.label]:
        text.set_parse_math(False)


def legend_below(ax: Axes, *, ncols: int = 2) -> None:
    """The axes' legend under its x-axis label, outside the plotted data.

    Constrained layout counts the legend in the axes' extent, so the figure makes room for it; a
    legend inside the axes covers data wherever the data happen to lie.
    """
    ax.legend(
        fontsize=5.2,
        frameon=False,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.32),
        ncols=ncols,
        borderaxespad=0,
    )


NOTE_STYLE = {"fontsize": 5.2, "color": "#5b6672"}


def figure_note(figure: Figure, text: str) -> None:
    """A line of small print under the whole figure; a second note goes on a line of its own.

    The figure's ``supxlabel``, so constrained layout makes room for it: only figures with that
    layout engine get notes (the schema diagram, drawn without one, has none).
    """
    current = figure.get_supxlabel()
    joined = f"{current}\n{text}" if current else text
    figure.supxlabel(joined, parse_math=False, **NOTE_STYLE)


# Characters without a glyph --------------------------------------------------------------------

FONT_PACKAGES = {"cjk": "fonts-noto-cjk", "emoji": "fonts-noto-color-emoji", "other": "fonts-noto"}


@cache
def drawable_characters() -> frozenset[int]:
    """Code points some installed system font has a glyph for: the fonts Pango finds through fontconfig."""
    points: set[int] = set()
    for path in font_manager.findSystemFonts():
        try:
            with TTFont(path, lazy=True, fontNumber=0) as font:
                points.update(font.getBestCmap() or {})
        except (OSError, TTLibError):  # an unreadable font file draws nothing
            continue
    return frozenset(points)


def undrawable(text: str) -> str:
    """The characters of ``text`` that no installed font can draw (they would show as empty boxes).

    Spaces and control or format characters (joiners, variation selectors) have no glyph of their own.
    """
    drawable = drawable_characters()
    return "".join(
        dict.fromkeys(c for c in text if ord(c) not in drawable and unicodedata.category(c)[0] not in "ZC")
    )


def _script(character: str) -> str:
    name = unicodedata.name(character, "")
    if any(word in name for word in ("CJK", "HIRAGANA", "KATAKANA", "HANGUL", "IDEOGRAPH")):
        return "cjk"
    return "emoji" if ord(character) >= 0x1F000 or 0x2600 <= ord(character) <= 0x27BF else "other"


def note_undrawable(figure: Figure) -> int:
    """Say under the figure how many of its texts hold characters no installed font can draw.

    Matplotlib and the PDF renderer both draw a missing glyph as an empty box, which reads as
    data; the note says what is missing and which font package draws it. Returns the count.
    """
    texts = {t.get_text() for t in figure.findobj(Text) if t.get_visible() and t.get_text()}
    missing = {text: undrawable(text) for text in texts}
    missing = {text: chars for text, chars in missing.items() if chars}
    if not missing:
        return 0
    packages = sorted({FONT_PACKAGES[_script(c)] for chars in missing.values() for c in chars})
    n = len(missing)
    figure_note(
        figure,
        f"{n} label{'s' if n != 1 else ''} hold characters no installed font can draw (shown as boxes); "
        f"install {' and '.join(packages)}",
    )
    return n


# Number and label text ------------------------------------------------------------------------

_SCALES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))
COMPACT_FROM = 1e4  # below this numbers print whole (years stay 1990, not 1.99k)
MINUS = "\N{MINUS SIGN}"


def compact_labels(values: Sequence[float]) -> list[str]:
    """Numbers as short text on one shared scale: 5,050,000 and 342,566 read "5.05M" and "0.34M".

    One suffix (k, M, B, T) for all values, chosen by the largest; as few decimals as keep distinct
    values distinct and give the smallest non-zero value two significant digits, trailing zeros
    dropped when every label has them. Axis ticks and bin bounds both read this way, so a label is
    never a long number that a figure has to cut.
    """
    finite = [abs(v) for v in values if np.isfinite(v)]
    top = max(finite, default=0.0)
    scale, suffix = next(((s, x) for s, x in _SCALES if top >= max(s, COMPACT_FROM)), (1.0, ""))
    if top >= 1e15:
        return [f"{v:.2g}".replace("-", MINUS) for v in values]
    scaled = [v / scale for v in values]
    present = [abs(v) for v in scaled if np.isfinite(v) and v != 0]
    decimals = min(_decimals(min(present, default=1.0), 2), _decimals(max(present, default=1.0), 3))
    while decimals < 6 and len({f"{v:.{decimals}f}" for v in scaled}) < len(set(scaled)):
        decimals += 1
    texts = [f"{v:.{decimals}f}" for v in scaled]
    while decimals > 0 and all(t.endswith("0") for t in texts if "." in t):
        decimals -= 1
        texts = [f"{v:.{decimals}f}" for v in scaled]
    return [t.replace("-", MINUS) + suffix if t.strip("-0.") else "0" for t in texts]


def _decimals(value: float, digits: int) -> int:
    """Decimals that show ``value`` (> 0) with ``digits`` significant digits, at most 6."""
    return min(6, max(0, digits - 1 - int(np.floor(np.log10(value)))))


def date_labels(seconds: Sequence[float]) -> list[str]:
    """UTC seconds as years, months or days: the coarsest that keeps distinct days distinct."""
    days = [pd.Timestamp(v, unit="s") for v in seconds]
    n_days = len({d.normalize() for d in days})
    texts: list[str] = []
    for fmt in ("%Y", "%Y-%m", "%Y-%m-%d"):
        texts = [d.strftime(fmt) for d in days]
        if len(set(texts)) == n_days:
            break
    return texts


_NUMBER = set("0123456789.,")
_BREAKS = set(" _-/|:;,")


def tick_label(text: str, limit: int) -> str:
    """``text`` in at most ``limit`` characters, cut at a word or separator boundary with an ellipsis.

    The cut backs off to the last space or separator in the second half of the room; failing
    that, to the last position outside a number, so "5,050,000 to 5,342,566" never reads as the
    different number "5,050,…342,566". A label that is one long number is cut at its end.
    """
    if len(text) <= limit:
        return text
    room = max(limit - 1, 1)
    whole = [i for i in range(1, room + 1) if not (text[i - 1] in _NUMBER and text[i] in _NUMBER)]
    words = [i for i in whole if i >= room // 2 and (text[i] in _BREAKS or text[i - 1] in _BREAKS)]
    cut = (words or whole or [room])[-1]
    return text[:cut].rstrip("".join(_BREAKS)) + "…"
