"""Page 1 of a report as HTML for a notebook cell (``ReportResults._repr_html_``).

The same templates as the document's page 1 (``title_block.html.j2`` and ``summary.html.j2``), in
the same environment (autoescaped), with the report's stylesheet scoped to the block: a notebook
page has its own styles, which the report's must neither take over nor be lost to.
"""

from __future__ import annotations

import re
from importlib.resources import files

from markupsafe import Markup

from reportgen.render.document import page_one_context
from reportgen.render.environment import environment
from reportgen.render.formatting import break_opportunities
from reportgen.results import ReportResults

SCOPE = "reportgen-page1"
TEMPLATE = "notebook.html.j2"
# On a notebook's own background (a dark theme, say) the report keeps its white page.
_PAGE = f".{SCOPE} {{ background: #fff; padding: 3mm 4mm; border: 1px solid #d5dbe2; }}"


def page_one_html(results: ReportResults) -> str:
    """Page 1 (title, verdicts, headlines with references and bars, count of findings) as an HTML block."""
    css = files("reportgen").joinpath("templates/report.css").read_text(encoding="utf-8")
    html = (
        environment()
        .get_template(TEMPLATE)
        .render(
            scope=SCOPE,
            css=Markup(scoped_css(css, f".{SCOPE}") + "\n" + _PAGE),
            **page_one_context(results),
        )
    )
    return break_opportunities(html)


def scoped_css(css: str, scope: str) -> str:
    """``css`` with every rule applying inside ``scope`` only; at-rules (``@page``) are dropped.

    ``html`` and ``body`` become the scope itself, so the report's font and width apply to the block.
    """
    text = re.sub(r"/\*.*?\*/", "", css, flags=re.DOTALL)
    rules = []
    for prelude, body in _top_level_rules(text):
        if prelude.startswith("@"):
            continue
        selectors = ", ".join(_scoped_selector(s.strip(), scope) for s in prelude.split(","))
        rules.append(f"{selectors} {{{body}}}")
    return "\n".join(rules)


def _top_level_rules(css: str) -> list[tuple[str, str]]:
    """(selector, declarations) of each top-level rule, an at-rule's nested blocks kept in its body."""
    rules: list[tuple[str, str]] = []
    depth, start, open_at = 0, 0, 0
    for i, char in enumerate(css):
        if char == "{":
            if depth == 0:
                open_at = i
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                rules.append((css[start:open_at].strip(), css[open_at + 1 : i]))
                start = i + 1
    return rules


def _scoped_selector(selector: str, scope: str) -> str:
    """One selector inside ``scope``: ``html`` and ``body`` (alone or leading) stand for the scope."""
    head, _, rest = selector.partition(" ")
    if head in ("html", "body"):
        return f"{scope} {rest}".strip()
    return f"{scope} {selector}"
