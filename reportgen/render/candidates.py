"""The comparison of candidates as one document: page 1 ranks them, then each candidate's own page 1.

Page 1 is a table of every headline (rows) by candidate (columns), with the reference, the bar,
each candidate's verdicts and whether it passed its bars, and the recommendation with the rule
that made it (``reportgen.choice``). Each candidate then gets its own page 1 exactly as its own
report prints it (``summary.html.j2``). Rendering never computes: every number is read from the
candidates' results.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any

from markupsafe import Markup

from reportgen.choice import Candidate, CandidateComparison, badness
from reportgen.outputs import json_path_of, results_sha256, write_pair
from reportgen.record import predicate_of
from reportgen.render.document import output_format, page_one_context
from reportgen.render.environment import environment
from reportgen.render.formatting import break_opportunities
from reportgen.render.pdf import html_to_pdf
from reportgen.results import CONCERNS, ConcernVerdict, Headline, Unit

TEMPLATE = "candidates.html.j2"
_CSS = """
table.candidates th.cand { max-width: 28mm; overflow-wrap: anywhere; }
table.candidates td.best { font-weight: bold; }
table.candidates td.bad { color: #b3261e; }
table.candidates td.num { white-space: normal; }
section.candidate { page-break-before: always; }
"""


@dataclass(frozen=True)
class Cell:
    """One candidate's number on one measure, as page 1 marks it."""

    headline: Headline | None
    best: bool
    bad: bool
    own_reference: float | None


@dataclass(frozen=True)
class Row:
    """One measure across the candidates."""

    label: str
    unit: Unit
    direction: str
    reference: float | None
    bar: float | None
    bar_sign: str
    cells: list[Cell]


def rows(comparison: CandidateComparison) -> tuple[list[Row], bool]:
    """Every headline across the candidates, and whether any reference differs between candidates.

    The best number of a row is marked among the candidates that can be recommended only (a copy of
    the training data is "best" at fidelity, and is not a choice).
    """
    out, mixed = [], False
    for name in comparison.headline_names():
        found = [c.results.headlines.get(name) for c in comparison.candidates]
        present = [h for h in found if h is not None]
        first = present[0]
        references = {h.reference for h in present if h.reference is not None}
        shared = len(references) <= 1
        mixed |= not shared
        recommendable = [c.excluded is None for c in comparison.candidates]
        scores = [badness(h) for h, ok in zip(found, recommendable, strict=True) if h is not None and ok]
        best = min(scores) if len(scores) > 1 and len(set(scores)) > 1 else None
        cells = [
            Cell(
                headline=h,
                best=h is not None and ok and best is not None and badness(h) == best,
                bad=h is not None and (h.worse or h.bar_status in ("fail", "not_evaluated")),
                own_reference=None if shared or h is None else h.reference,
            )
            for h, ok in zip(found, recommendable, strict=True)
        ]
        out.append(
            Row(
                label=first.label,
                unit=first.unit,
                direction=_direction(first),
                reference=next(iter(references)) if shared and references else None,
                bar=first.bar,
                bar_sign="≥" if first.higher_is_better else "≤",
                cells=cells,
            )
        )
    return out, mixed


def _direction(headline: Headline) -> str:
    if headline.closer_to_reference:
        return "closer to the reference is better"
    return "higher is better" if headline.higher_is_better else "lower is better"


def _verdict_of(candidate: Candidate, concern: str) -> ConcernVerdict | None:
    return next((v for v in candidate.results.verdicts if v.concern == concern), None)


def render_comparison_html(comparison: CandidateComparison, *, json_sha256: str | None = None) -> str:
    """The whole comparison as one self-contained HTML document."""
    env = environment()
    summary = env.get_template("summary.html.j2")
    pages = [(c, Markup(summary.render(**page_one_context(c.results)))) for c in comparison.candidates]
    css = files("reportgen").joinpath("templates/report.css").read_text(encoding="utf-8") + _CSS
    table, mixed = rows(comparison)
    html = env.get_template(TEMPLATE).render(
        comparison=comparison,
        candidates=comparison.candidates,
        run=comparison.candidates[0].results.run,
        concerns=CONCERNS,
        verdict_of=_verdict_of,
        rows=table,
        mixed_references=mixed,
        pages=pages,
        css=Markup(css),
        json_sha256=json_sha256,
    )
    return break_opportunities(html)


def write_comparison(comparison: CandidateComparison, path: Path) -> None:
    """Write the comparison (PDF or HTML by suffix), its JSON and its in-toto statement: all or none."""
    fmt = output_format(path)
    json_text = comparison.to_json()
    html = render_comparison_html(comparison, json_sha256=results_sha256(json_text))
    if fmt == "pdf":
        document = html_to_pdf(html, [(json_path_of(path).name, json_text.encode("utf-8"))])
    else:
        document = html.encode("utf-8")
    write_pair(path, document, json_text, _predicate(comparison))


def _predicate(comparison: CandidateComparison) -> dict[str, Any]:
    """The statement's predicate: what was recommended by which rule, and each candidate's own record."""
    return {
        "comparison": {"title": comparison.title, "seed": comparison.seed, "rule": comparison.rule},
        "recommended": comparison.recommended,
        "why": comparison.why,
        "candidates": {c.name: predicate_of(json.loads(c.results.to_json())) for c in comparison.candidates},
    }
