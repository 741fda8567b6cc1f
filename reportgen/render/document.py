"""Results -> one self-contained HTML document -> PDF (WeasyPrint), written with its JSON as a pair.

Rendering never computes: each section's figures are drawn from its result, and its template lays
out the result (page 1's headlines are in the results, as printed). Nor does it look sections up:
the caller hands it the sections that may have pages, whose declarations it reads (template,
figures, the rules its templates mark numbers with, methodology, bars). The HTML inlines its CSS and
figures, so the one file works offline; the PDF is made from the same HTML.

The methodology appendix is numbered here, before anything is rendered: its general parts (in
``appendix.html.j2``), then each registered section's parts (its ``methodology`` template), in
registry order, so a plugin's methodology is numbered like a built-in's. Every template links to a
part by its anchor (``xref`` in ``methodology_macros.html.j2``), never by a number.

The body ends with the decision block (``decision.html.j2``): the approver's decision where the
results hold one, a blank form to complete otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal

from jinja2 import Environment, nodes
from markupsafe import Markup

from reportgen.errors import RenderError
from reportgen.metrics.registry import Section
from reportgen.outputs import json_path_of, results_sha256, write_pair
from reportgen.record import predicate_of
from reportgen.render.environment import environment, packages_of
from reportgen.render.figures import to_data_uri
from reportgen.render.formatting import break_opportunities
from reportgen.render.pdf import joined, laid_out_appendix, lay_out, write_pdf
from reportgen.results import ReportResults, SectionResult

FORMATS = {".pdf": "pdf", ".html": "html", ".htm": "html"}
NOT_COMPUTED_TEMPLATE = "sections/not_computed.html.j2"
APPENDIX_TEMPLATE = "appendix.html.j2"
METHOD_MACRO = "method"  # methodology_macros.html.j2: one numbered part of the appendix


@dataclass(frozen=True)
class RenderedSection:
    """A section's title and HTML, ready for the document template."""

    name: str
    title: str
    html: Markup


@dataclass(frozen=True)
class RenderedMethodology:
    """A section's methodology for the appendix; ``anchor`` is set where the document adds its heading.

    A template that declares its parts (``{% call method("m-x", "Title") %}``) brings their
    headings; one that holds paragraphs only (a plugin's, say) is one part, headed by the section's
    title, at ``anchor``.
    """

    anchor: str | None
    title: str
    html: Markup


class AppendixNumbers(dict[str, int]):
    """Each methodology part's number by its anchor id; an anchor no part declares is an error."""

    def __missing__(self, anchor: str) -> int:
        raise RenderError(
            f"A template links to the methodology part {anchor!r}, which no methodology template declares "
            f"(declared: {', '.join(self)})."
        )


Part = Literal["whole", "body", "appendix"]
FigureSource = Callable[[Section, SectionResult], dict[str, str]]  # a section's figures as data URIs


def draw_figures(section: Section, result: SectionResult) -> dict[str, str]:
    """A section's figures, drawn from its result now, as data URIs by name."""
    if section.figures is None:
        return {}
    return {name: to_data_uri(figure) for name, figure in section.figures(result).items()}


def render_html(
    results: ReportResults,
    pages: Sequence[Section],
    *,
    json_sha256: str | None = None,
    figures: FigureSource = draw_figures,
) -> str:
    """The whole report as one HTML document; ``json_sha256`` is the fingerprint of its JSON.

    ``pages``: every registered section (``reportgen.catalogue.sections()``), of which those that
    apply to these results get a page. ``figures`` gives each section's figures (default: drawn
    now; ``reportgen.render.ahead`` has them drawn while the sections computed).
    """
    return _render_document(results, pages, "whole", json_sha256=json_sha256, figures=figures)


def render_body_html(
    results: ReportResults,
    pages: Sequence[Section],
    *,
    json_sha256: str | None,
    appendix_pages: Mapping[str, str],
    figures: FigureSource = draw_figures,
) -> str:
    """The report without its appendix, for the PDF; ``appendix_pages``: each appendix anchor's page label."""
    return _render_document(
        results, pages, "body", json_sha256=json_sha256, appendix_pages=appendix_pages, figures=figures
    )


def render_appendix_html(results: ReportResults, pages: Sequence[Section]) -> str:
    """The appendix alone (methodology, references, glossary), for the PDF, which lays it out on its own.

    It reads only the run's settings, seed and holdout (``run``), never a number of the results, so
    reports with the same settings share its text and its layout (``reportgen.render.pdf``).
    """
    return _render_document(results, pages, "appendix")


def _render_document(
    results: ReportResults,
    pages: Sequence[Section],
    part: Part,
    *,
    json_sha256: str | None = None,
    appendix_pages: Mapping[str, str] | None = None,
    figures: FigureSource = draw_figures,
) -> str:
    registered = {s.name: s for s in pages}
    shown = [registered[name] for name in _page_order(results, registered)] if part != "appendix" else []
    env = environment(packages_of(s.template_package for s in pages))
    numbers = appendix_numbers(env, pages)
    rendered = [_render_section(env, s, results, numbers, figures) for s in shown]
    css = "".join(
        files("reportgen").joinpath(f"templates/{name}").read_text(encoding="utf-8")
        for name in ("report.css", "appendix.css")
    )
    html = env.get_template("report.html.j2").render(
        **page_one_context(results),
        part=part,
        comparison=results.comparison,
        not_applicable={
            registered[name].title: r.reason
            for name, r in results.sections.items()
            if r.status == "not_applicable" and name in registered
        },
        sections=rendered,
        contents=_contents(results, rendered),
        appendix_contents=APPENDIX_CONTENTS,
        appendix_pages=appendix_pages,
        decision=results.decision,
        **appendix_context(env, results, pages, numbers),
        css=Markup(css),
        json_sha256=json_sha256,
    )
    return break_opportunities(html)


def page_one_context(results: ReportResults) -> dict[str, Any]:
    """What page 1 (``summary.html.j2``) reads of the results, for the report and a notebook alike."""
    return {
        "run": results.run,
        "gates": results.gates,
        "verdicts": results.verdicts,
        "headlines": results.headlines,
        "overview": results.computed("overview"),
        "findings": results.findings,
    }


APPENDIX_CONTENTS = (("methodology", "Methodology"), ("glossary", "Glossary"))  # (anchor, title), unnumbered


def _contents(results: ReportResults, rendered: list[RenderedSection]) -> list[tuple[str, str]]:
    """The table of contents in page order: (anchor, title) of each numbered part before the appendix."""
    return [
        *([("comparison", "Compared with the previous release")] if results.comparison else []),
        ("findings", "Findings"),
        *((f"sec-{s.name}", s.title) for s in rendered),
        ("decision", "Decision on this release"),
        ("run", "How this report was produced"),
        ("m-standards", "Standards and guidance: what the numbers speak to"),
    ]


def _page_order(results: ReportResults, registered: dict[str, Section]) -> list[str]:
    """The sections that get pages, in page order: those that apply to these inputs."""
    shown = {name for name, r in results.sections.items() if r.status != "not_applicable"}
    return [s.name for s in registered.values() if s.name in shown]


def appendix_context(
    env: Environment, results: ReportResults, pages: Sequence[Section], numbers: AppendixNumbers
) -> dict[str, Any]:
    """What the appendix and the glossary are rendered with, besides ``run``.

    Every registered section's methodology (described whether or not it applies to these inputs,
    as the appendix says), the part numbers their links read, the release bars on offer, and the
    standards page's rows (``results.standards``) with the gaps they share, printed once.
    """
    return {
        "numbers": numbers,
        "methodologies": [_methodology(env, s, results, numbers) for s in pages if s.methodology],
        "bar_specs": [h for s in pages for h in s.headlines if h.bar],
        "standards": results.standards,
        "shared_gaps": shared_gaps(results),
        "missing_reasons": missing_reasons(results),
    }


SHARED_GAP = 3  # a gap of at least this many criteria is printed once, lettered, on the standards page


def shared_gaps(results: ReportResults) -> dict[str, str]:
    """The gaps (what numbers do not cover) that several criteria share, each once, in first-seen order."""
    seen: dict[str, list[str]] = {}
    for criterion in results.standards:
        for key, text in criterion.not_covered.items():
            seen.setdefault(key, []).append(text)
    return {key: texts[0] for key, texts in seen.items() if len(texts) >= SHARED_GAP}


def missing_reasons(results: ReportResults) -> list[str]:
    """Why numbers of the standards page were not computed: each reason once, in first-seen order."""
    reasons = (e.reason for c in results.standards for e in c.evidence if e.status == "not_computed")
    return list(dict.fromkeys(r for r in reasons if r))


def render_back_matter(template: str, results: ReportResults, pages: Sequence[Section]) -> str:
    """One part alone (``appendix.html.j2``, ``glossary.html.j2``, ``standards.html.j2``) as in the report."""
    env = environment(packages_of(s.template_package for s in pages))
    numbers = appendix_numbers(env, pages)
    return env.get_template(template).render(
        run=results.run, **appendix_context(env, results, pages, numbers)
    )


def appendix_numbers(env: Environment, pages: Iterable[Section]) -> AppendixNumbers:
    """The number of each methodology part by its anchor.

    The general parts come first, then each section's in registry order. They are read from the
    templates' source, so every link can be resolved before anything is rendered; an anchor
    declared twice is an error.
    """
    anchors = [*declared_parts(env, APPENDIX_TEMPLATE)]
    for section in pages:
        if section.methodology:
            anchors += declared_parts(env, section.methodology) or [undeclared_anchor(section)]
    twice = sorted({a for a in anchors if anchors.count(a) > 1})
    if twice:
        raise RenderError(f"Methodology parts declare the same anchor more than once: {', '.join(twice)}.")
    return AppendixNumbers({anchor: i for i, anchor in enumerate(anchors, start=1)})


def declared_parts(env: Environment, template: str) -> list[str]:
    """The anchors of the parts ``template`` declares, in order.

    They are the literal first arguments of its calls of ``method``; a call with a computed anchor
    is the appendix's own loop over the sections' methodologies.
    """
    assert env.loader is not None
    source = env.loader.get_source(env, template)[0]
    return [
        call.args[0].value
        for call in env.parse(source).find_all(nodes.Call)
        if isinstance(call.node, nodes.Name)
        and call.node.name == METHOD_MACRO
        and call.args
        and isinstance(call.args[0], nodes.Const)
    ]


def undeclared_anchor(section: Section) -> str:
    """The anchor of a methodology template that declares no parts: the whole of it is one part."""
    return f"m-section-{section.name}"


def _render_section(
    env, section: Section, results: ReportResults, numbers: AppendixNumbers, figures: FigureSource
) -> RenderedSection:
    result = results.sections[section.name]
    if result.status != "ok":
        html = env.get_template(NOT_COMPUTED_TEMPLATE).render(result=result, title=section.title)
        return RenderedSection(section.name, section.title, Markup(html))
    html = env.get_template(section.template).render(
        result=result,
        figures=figures(section, result),
        run=results.run,
        title=section.title,
        findings=results.findings,
        headlines=results.headlines,
        worse=judge(section),
        numbers=numbers,
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


def _methodology(
    env: Environment, section: Section, results: ReportResults, numbers: AppendixNumbers
) -> RenderedMethodology:
    """A section's methodology parts, for the appendix (given its result, None if not computed)."""
    assert section.methodology is not None
    html = env.get_template(section.methodology).render(
        result=results.computed(section.name), results=results, run=results.run, numbers=numbers
    )
    declared = bool(declared_parts(env, section.methodology))
    return RenderedMethodology(None if declared else undeclared_anchor(section), section.title, Markup(html))


def report_pdf(
    results: ReportResults,
    pages: Sequence[Section],
    *,
    json_text: str,
    json_name: str,
    figures: FigureSource = draw_figures,
) -> bytes:
    """The report's PDF, printing its JSON's SHA-256 and carrying the JSON as ``json_name``.

    See ``laid_out_report`` for how its pages are laid out.
    """
    document = laid_out_report(results, pages, json_sha256=results_sha256(json_text), figures=figures)
    return write_pdf(document, [(json_name, json_text.encode("utf-8"))])


def laid_out_report(
    results: ReportResults,
    pages: Sequence[Section],
    *,
    json_sha256: str | None,
    figures: FigureSource = draw_figures,
) -> Any:
    """The report's pages as its PDF prints them (a WeasyPrint document).

    The appendix is laid out on its own, or found laid out (``reportgen.render.pdf``), and its page
    labels go into the body's table of contents before the body is laid out and the two joined.
    """
    appendix = laid_out_appendix(render_appendix_html(results, pages))
    body = render_body_html(
        results, pages, json_sha256=json_sha256, appendix_pages=appendix.labels, figures=figures
    )
    return joined(lay_out(body), appendix)


def output_format(path: Path) -> str:
    """'pdf' or 'html', from the file name's suffix; anything else is refused before any work."""
    try:
        return FORMATS[path.suffix.lower()]
    except KeyError:
        raise RenderError(
            f"Cannot tell the report format from {path.name!r}: name the file with .pdf or "
            ".html (a .json with the results is written beside it)."
        ) from None


def write_report(
    results: ReportResults,
    path: str | Path,
    pages: Sequence[Section],
    *,
    figures: FigureSource = draw_figures,
) -> Path:
    """Write the report (PDF or HTML by suffix), its JSON and its in-toto statement; return the JSON's path.

    ``pages`` and ``figures`` are ``render_html``'s.

    Both are rendered in memory first, the document printing the SHA-256 of the JSON's text and a
    PDF carrying the JSON as an attachment, and then written with the statement that names both by
    digest (``reportgen.outputs.write_pair``): all three files change, or none. The statement is
    not embedded in the PDF: it names the PDF by the digest of its bytes, which embedding it would
    change.
    """
    path = Path(path)
    fmt = output_format(path)
    json_text = results.to_json()
    if fmt == "pdf":
        document = report_pdf(
            results, pages, json_text=json_text, json_name=json_path_of(path).name, figures=figures
        )
    else:
        html = render_html(results, pages, json_sha256=results_sha256(json_text), figures=figures)
        document = html.encode("utf-8")
    write_pair(path, document, json_text, predicate_of(json.loads(json_text)))
    return json_path_of(path)
