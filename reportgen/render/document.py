"""Results -> one self-contained HTML document -> PDF (WeasyPrint), written with its JSON as a pair.

Rendering never computes: each section's figures are drawn from its result, and its template lays
out the result (page 1's headlines are in the results, as printed). Nor does it look sections up:
the caller hands it the sections that may have pages, whose declarations it reads (template,
figures, the rules its templates mark numbers with, methodology, bars). The HTML inlines its CSS and
figures, so the one file works offline; the PDF is made from the same HTML.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from markupsafe import Markup

from reportgen.errors import RenderError
from reportgen.metrics.registry import Section
from reportgen.outputs import json_path_of, results_sha256, write_pair
from reportgen.render.environment import environment, packages_of
from reportgen.render.figures import to_data_uri
from reportgen.render.formatting import break_opportunities
from reportgen.results import ReportResults

FORMATS = {".pdf": "pdf", ".html": "html", ".htm": "html"}
NOT_COMPUTED_TEMPLATE = "sections/not_computed.html.j2"


@dataclass(frozen=True)
class RenderedSection:
    """A section's title and HTML, ready for the document template."""

    name: str
    title: str
    html: Markup


def render_html(results: ReportResults, pages: Sequence[Section], *, json_sha256: str | None = None) -> str:
    """The whole report as one HTML document; ``json_sha256`` is the fingerprint of its JSON.

    ``pages``: every registered section (``reportgen.catalogue.sections()``), of which those that
    apply to these results get a page.
    """
    registered = {s.name: s for s in pages}
    shown = [registered[name] for name in _page_order(results, registered)]
    env = environment(packages_of(s.template_package for s in shown))
    rendered = [_render_section(env, s, results) for s in shown]
    css = "".join(
        files("reportgen").joinpath(f"templates/{name}").read_text(encoding="utf-8")
        for name in ("report.css", "appendix.css")
    )
    html = env.get_template("report.html.j2").render(
        run=results.run,
        gates=results.gates,
        verdicts=results.verdicts,
        comparison=results.comparison,
        headlines=results.headlines,
        overview=results.computed("overview"),
        findings=results.findings,
        not_applicable={
            registered[name].title: r.reason
            for name, r in results.sections.items()
            if r.status == "not_applicable" and name in registered
        },
        sections=rendered,
        bar_specs=[h for s in registered.values() for h in s.headlines if h.bar],
        methodologies=[_methodology(env, s, results) for s in shown if s.methodology],
        contents=_contents(results, rendered),
        css=Markup(css),
        json_sha256=json_sha256,
    )
    return break_opportunities(html)


def _contents(results: ReportResults, rendered: list[RenderedSection]) -> list[tuple[str, str]]:
    """The table of contents in page order: (anchor, title) of each numbered part of the report."""
    return [
        *([("comparison", "Compared with the previous release")] if results.comparison else []),
        ("findings", "Findings"),
        *((f"sec-{s.name}", s.title) for s in rendered),
        ("run", "How this report was produced"),
        ("methodology", "Methodology"),
        ("glossary", "Glossary"),
    ]


def _page_order(results: ReportResults, registered: dict[str, Section]) -> list[str]:
    """The sections that get pages, in page order: those that apply to these inputs."""
    shown = {name for name, r in results.sections.items() if r.status != "not_applicable"}
    return [s.name for s in registered.values() if s.name in shown]


def _render_section(env, section: Section, results: ReportResults) -> RenderedSection:
    result = results.sections[section.name]
    if result.status != "ok":
        html = env.get_template(NOT_COMPUTED_TEMPLATE).render(result=result, title=section.title)
        return RenderedSection(section.name, section.title, Markup(html))
    figures = {}
    if section.figures is not None:
        figures = {name: to_data_uri(fig) for name, fig in section.figures(result).items()}
    html = env.get_template(section.template).render(
        result=result,
        figures=figures,
        run=results.run,
        title=section.title,
        findings=results.findings,
        headlines=results.headlines,
        worse=judge(section),
    )
    return RenderedSection(section.name, section.title, Markup(html))


def judge(section: Section) -> Callable[..., bool]:
    """``worse(name, value, reference, ...)``: the section's rule for headline ``name``, for its page.

    Templates mark a number as bad only through this, so a page and page 1 judge alike.
    """
    declared = {spec.name: spec for spec in section.headlines}

    def worse(name: str, value: float | None, reference: float | None = None, **given: Any) -> bool:
        return declared[name].judge(value, reference, **given)

    return worse


def _methodology(env, section: Section, results: ReportResults) -> RenderedSection:
    """A section's own methodology paragraphs, for the appendix (given its result, None if not computed)."""
    assert section.methodology is not None
    html = env.get_template(section.methodology).render(
        result=results.computed(section.name), results=results
    )
    return RenderedSection(section.name, section.title, Markup(html))


def html_to_pdf(html: str) -> bytes:
    """The PDF of an HTML document (fonts and layout by WeasyPrint)."""
    from weasyprint import HTML

    return HTML(string=html).write_pdf()


def output_format(path: Path) -> str:
    """'pdf' or 'html', from the file name's suffix; anything else is refused before any work."""
    try:
        return FORMATS[path.suffix.lower()]
    except KeyError:
        raise RenderError(
            f"Cannot tell the report format from {path.name!r}: name the file with .pdf or "
            ".html (a .json with the results is written beside it)."
        ) from None


def write_report(results: ReportResults, path: str | Path, pages: Sequence[Section]) -> Path:
    """Write the report (PDF or HTML by suffix) and its JSON beside it; return the JSON's path.

    ``pages`` are ``render_html``'s.

    Both are rendered in memory first, the document printing the SHA-256 of the JSON's text, and
    then written as a pair (``reportgen.outputs.write_pair``): both files change, or neither.
    """
    path = Path(path)
    fmt = output_format(path)
    json_text = results.to_json()
    html = render_html(results, pages, json_sha256=results_sha256(json_text))
    document = html_to_pdf(html) if fmt == "pdf" else html.encode("utf-8")
    write_pair(path, document, json_text)
    return json_path_of(path)
