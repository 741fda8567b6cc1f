"""The packaged demos: their PDFs open, show every section, and say exactly what their JSON says."""

import math
import re
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pandas as pd
import pytest
from pypdf import PdfReader

import reportgen.metrics.correlation as correlation
import reportgen.render.document as document
from reportgen import ForeignKey, PrimaryKey, RelationalData, ReportResults, Schema, Table, report
from reportgen.catalogue import sections
from reportgen.cli import main
from reportgen.headlines import headlines
from reportgen.render.document import render_html
from reportgen.render.formatting import fmt_count, fmt_num, fmt_pct
from reportgen.render.wide import HEATMAP_COLUMNS

from .test_readme import inside

# Every test here reads one of three reports made once per process (module fixtures). Under xdist
# the tests of one report share a worker (tests/conftest.py groups the tests of a module fixture),
# and the three reports are made side by side in the two workers.

QUICK_START = "reportgen demo"  # README's quick start
RELATIONAL = "reportgen demo --relational --out demo.pdf"  # README's command-line examples


@contextmanager
def printed_layouts() -> Iterator[list[Any]]:
    """The pages of every PDF written meanwhile, as WeasyPrint laid them out to print them.

    The layout checks read these, the very pages of the written PDF, instead of laying the report
    out a second time.
    """
    kept: list[Any] = []
    lay_out = document.laid_out_report

    def keep(*args: Any, **kwargs: Any) -> Any:
        kept.append(lay_out(*args, **kwargs))
        return kept[-1]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(document, "laid_out_report", keep)
        yield kept


def written(folder, line: str, pdf: str) -> tuple[ReportResults, str, Any]:
    """Run a README demo line in ``folder`` as the command line would: what it wrote, and its pages."""
    with inside(folder), printed_layouts() as pages:
        assert main(shlex.split(line)[1:]) == 0
    path = folder / pdf
    text = "\n".join(page.extract_text() for page in PdfReader(path).pages)
    return ReportResults.load(path.with_suffix(".json")), re.sub(r"\s+", " ", text), pages[0]


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    return written(tmp_path_factory.mktemp("demo"), QUICK_START, "reportgen-demo/report.pdf")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return written(tmp_path_factory.mktemp("demo"), RELATIONAL, "demo.pdf")


def wide_schema(seed: int, drift: float = 0.0, n_parents: int = 150) -> RelationalData:
    """Three wide tables: parents of 30 columns, two child tables of 25, three children per parent.

    Every third column is categorical; the numbers share a latent factor so that pairs matter;
    ``drift`` moves every other number, as a generator that gets them wrong would.
    """
    rng = np.random.default_rng(seed)

    def columns(n_rows: int, prefix: str, n: int) -> dict[str, np.ndarray]:
        latent, out = rng.normal(size=n_rows), {}
        for i in range(n):
            if i % 3 == 2:
                out[f"{prefix}_category_{i}"] = rng.choice(
                    [f"{prefix}_level_{k}" for k in range(4 + i % 5)], n_rows
                )
            else:
                noise = rng.normal(size=n_rows)
                out[f"{prefix}_measurement_{i}"] = (latent * (i % 4) + noise + drift * (i % 2)).round(2)
        return out

    tables = {
        "parents": pd.DataFrame({"parent_id": np.arange(n_parents), **columns(n_parents, "parent", 29)})
    }
    for name in ("visits", "claims"):
        n = 3 * n_parents
        ids = {f"{name}_id": np.arange(n), "parent_id": rng.integers(0, n_parents, n)}
        tables[name] = pd.DataFrame({**ids, **columns(n, name, 23)})
    schema = Schema(
        parents=Table(parent_id=PrimaryKey()),
        visits=Table(visits_id=PrimaryKey(), parent_id=ForeignKey("parents")),
        claims=Table(claims_id=PrimaryKey(), parent_id=ForeignKey("parents")),
    )
    return RelationalData(tables, schema)


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    """A report on three wide tables (79 compared columns): its length must not grow with the width.

    phik's column cap is lowered from 30 to 17, still past the 16 columns up to which the three
    heatmaps fit side by side (reportgen.render.wide.HEATMAP_COLUMNS), so the heatmaps and the note
    on sampled columns are laid out as at any width, at a third of the pairs (48 CPU-s, not 67).
    150 parents, not 300: the same 51 pages, section statuses and findings in 33 CPU-s, not 39.
    """
    path = tmp_path_factory.mktemp("wide") / "wide.pdf"
    train = wide_schema(0)
    with pytest.MonkeyPatch.context() as patch, printed_layouts() as pages:
        patch.setattr(correlation, "MAX_PHIK_COLUMNS", HEATMAP_COLUMNS + 1)
        report(train, wide_schema(1), wide_schema(2, drift=0.5), path, schema=train.schema)
    return ReportResults.load(path.with_suffix(".json")), "", pages[0]


def test_the_default_demo_shows_every_section_with_its_references(single):
    results, text, _ = single
    assert text.startswith("SYNTHETIC DATA EVALUATION REPORT UCI Adult")
    assert results.run.has_holdout
    not_computed = {name: r.reason for name, r in results.sections.items() if r.status != "ok"}
    assert not_computed == {
        "relational": "the data has no foreign keys",
        "sequences": "no table declares the order of its rows (order_by)",
    }
    assert results.sections["relational"].status == "not_applicable"
    shown = headlines(results)
    assert {"similarity", "detection", "mia_auc", "singling_out", "tstr", "utility"} <= set(shown)
    without = {name for name, h in shown.items() if h.reference is None}
    # no reference by nature: the attack risks and epsilon (0 is their level), rows at risk, utility
    # (already relative to real data) and SRA
    assert without <= {"epsilon_lower", "risk", "singling_out", "linkability", "inference", "utility", "sra"}
    for h in shown.values():
        if h.unit == "score" and h.reference is not None:
            assert f"{h.label.split(' (')[0]}" in text
    similarity = shown["similarity"]
    assert f"Similarity {fmt_num(similarity.value, 1)} {fmt_num(similarity.reference, 1)}" in text


def test_the_contents_number_every_part_in_page_order_over_both_columns(single):
    results, _, _ = single
    html = render_html(results, sections())
    contents = html[html.index('<nav class="toc"') : html.index("</nav>")]
    pattern = r'<ol start="(\d+)" style="counter-reset: list-item (\d+)">(.*?)</ol>'
    columns = re.findall(pattern, contents, re.DOTALL)
    first, second = (re.findall(r'href="#([^"]+)"', entries) for _, _, entries in columns)
    # The second column goes on counting, in browsers (start) and in WeasyPrint (the counter).
    assert [(int(start), int(counter)) for start, counter, _ in columns] == [
        (1, 0),
        (len(first) + 1, len(first)),
    ]
    assert len(first) - len(second) in (0, 1)
    parts = re.findall(r'<[a-z]+ class="[^"]*" id="(findings|sec-[^"]+|decision|run|m-standards)"', html)
    assert first + second == parts
    # The appendix follows, unnumbered: the PDF lays it out on its own and numbers its pages A-1, ...
    appendix = re.findall(r'<ul class="toc-appendix">(.*?)</ul>', contents, re.DOTALL)[0]
    assert re.findall(r'href="#([^"]+)"', appendix) == ["methodology", "glossary"]
    assert html.index('id="m-standards"') < html.index('id="methodology"') < html.index('id="glossary"')


def test_demo_pdf_has_the_overview(demo):
    results, text, _ = demo
    assert text.startswith("SYNTHETIC DATA EVALUATION REPORT Chinook catalogue")
    assert "The data 4 tables linked by 3 foreign keys" in text
    assert "No holdout data was given" in text
    assert [t.name for t in results.sections["overview"].tables] == [
        "Album",
        "Genre",
        "MediaType",
        "Track",
    ]


def test_every_overview_number_in_the_pdf_equals_the_json(demo):
    results, text, _ = demo
    checked = 0
    for t in results.sections["overview"].tables:
        row = f"{t.name} {fmt_count(t.rows_train)} {fmt_count(t.rows_test)} {fmt_count(t.rows_synth)} {t.n_compared} of {len(t.columns)}"
        assert row in text, row
        used = f"Rows used {fmt_count(t.used_train)} {fmt_count(t.used_test)} {fmt_count(t.used_synth)}"
        assert used in text, used
        for c in t.columns:
            kind = c.kind + (" (inferred)" if c.kind_source == "inferred" else "")
            line = f"{c.name} {kind} {fmt_pct(c.missing_train)} {fmt_pct(c.missing_test)} {fmt_pct(c.missing_synth)}"
            assert line in text, line
            checked += 1
    assert checked == 16
    composer = next(c for t in results.sections["overview"].tables for c in t.columns if c.name == "Composer")
    assert 0.2 < composer.missing_train < 0.35  # 977 of 3,503 real tracks have no composer


def test_demo_finds_the_known_synthetic_flaws_in_keys_only_where_they_are(demo):
    results, _, _ = demo
    tables = {t.name: t for t in results.sections["overview"].tables}
    assert all(t.keys["synthetic"].is_clean and t.keys["training"].is_clean for t in tables.values())
    assert tables["Track"].rows_synth == 3503


def test_the_privacy_headline_and_table_in_the_pdf_equal_the_json(demo):
    results, text, _ = demo
    privacy = results.sections["privacy"]
    assert f"Privacy score (weakest table) {fmt_num(privacy.privacy_score, 1)}" in text
    assert f"Exact copies of training rows {fmt_pct(privacy.exact_copies)}" in text
    for t in privacy.tables:
        p = t.proximity
        if p is None:  # a small lookup table: exact copies and distances only
            assert f"{t.table} too few rows for the ratios {fmt_pct(t.distances.exact_copies)}" in text
            continue
        row = f"{t.table} {fmt_num(p.privacy_score, 1)} ± {fmt_num(p.privacy_score_std, 1)}"
        assert row in text, row
        assert f"{fmt_pct(p.risk)} {fmt_pct(t.distances.exact_copies)}" in text


def test_the_run_table_reads_as_words_not_python(single):
    _, text, _ = single
    run = text[text.index("How this report was produced") :]
    assert "targets table: income" in run and "columns default" in run and "n_max_train 50,000" in run
    assert "{'" not in run and "None" not in run


def test_without_a_holdout_no_caption_speaks_of_one(demo):
    """The relational demo has no holdout: its figures and tables must not describe holdout curves."""
    _, text, _ = demo
    for caption in (
        "grey dashed: holdout",
        "holdout value is what",
        "Values in brackets: the holdout",
        "compare with the holdout",
    ):
        assert caption not in text, caption


# -- the pages as a reader sees them (visual regression on measurable properties) ---------------
# Page budget: the body (page 1 to the last section) of a one-table report, the pages each further
# table may add whatever its width (wide tables show their worst columns: reportgen.render.wide),
# and the appendix (run, methodology, references, glossary: the same text in every report, apart
# from the run table). The appendix grew from 17 to 18 pages when every registered section's
# methodology became part of it (sequences included where it does not apply) and the rules for one
# row order, the holdout overlap against chance and the sequences' tolerances were written down.
# The body grew from 17 to 18 pages with the approver's decision block (its own last page), and the
# appendix from 18 to 20 with the standards part (11 criteria of five documents, each with its numbers).
# The run part lists each input table's fingerprint, one row per role and table: three rows for one
# table with a holdout; laid out with the JSON's SHA-256 line as the PDF prints it, the relational
# demo's eight rows and the wide report's nine take one page more (21), so the budget grows by a page
# per 20 rows past three.
BODY_PAGES_ONE_TABLE = 18
BODY_PAGES_PER_EXTRA_TABLE = 6
APPENDIX_PAGES = 20
APPENDIX_FINGERPRINT_ROWS_PER_PAGE = 20


@pytest.fixture(scope="module")
def single_pages(single):
    return single[2]


@pytest.fixture(scope="module")
def demo_pages(demo):
    return demo[2]


@pytest.fixture(scope="module")
def wide_pages(wide):
    return wide[2]


def names_in(results: ReportResults) -> set[str]:
    tables = results.sections["overview"].tables
    return {t.name for t in tables} | {c.name for t in tables for c in t.columns}


def layout_problems(results: ReportResults, document) -> dict[str, object]:
    """What a reader would see as broken on the laid-out pages; empty when nothing is.

    Text that runs past its table cell or the page margin, a table or column name broken inside a
    word, and a body or appendix longer than its page budget.
    """
    from .render.layout import names_broken_mid_word, overflowing_text, page_of

    extra_tables = len(results.sections["overview"].tables) - 1
    extra_fingerprints = sum(len(tables) for tables in results.run.inputs.values()) - 3
    body = page_of(document, "run") - 1
    appendix = APPENDIX_PAGES + math.ceil(max(0, extra_fingerprints) / APPENDIX_FINGERPRINT_ROWS_PER_PAGE)
    budgets = {
        "body pages": (body, BODY_PAGES_ONE_TABLE + BODY_PAGES_PER_EXTRA_TABLE * extra_tables),
        "appendix pages": (len(document.pages) - body, appendix),
    }
    problems = {
        "text past its cell or the page margin": overflowing_text(document),
        "names broken inside a word": names_broken_mid_word(document, names_in(results)),
        **{f"{what} over budget": f"{n} > {most}" for what, (n, most) in budgets.items() if n > most},
    }
    return {what: found for what, found in problems.items() if found}


def test_the_default_demo_reads_cleanly_within_its_page_budget(single, single_pages):
    assert layout_problems(single[0], single_pages) == {}


def test_the_relational_demo_reads_cleanly_within_its_page_budget(demo, demo_pages):
    assert layout_problems(demo[0], demo_pages) == {}


def test_a_wide_report_reads_cleanly_within_its_page_budget(wide, wide_pages):
    assert layout_problems(wide[0], wide_pages) == {}


def test_a_narrow_table_of_long_names_wraps_them_at_separators_only():
    """The hard case on its own: six narrow columns of long snake_case and camelCase names."""
    from importlib.resources import files

    from reportgen.render.formatting import break_opportunities

    from .render.layout import layout, names_broken_mid_word, overflowing_text

    names = ["german_credit_rating_final", "customerAccountIdentifier", "rating_final_score_2024"]
    css = files("reportgen").joinpath("templates/report.css").read_text(encoding="utf-8")
    cells = "".join(f"<td>{n}</td>" for n in names * 2)
    html = f"<html><head><style>{css}</style></head><body><table><tr>{cells}</tr></table></body></html>"
    wrapped = layout(break_opportunities(html))
    assert names_broken_mid_word(wrapped, names) == [] and overflowing_text(wrapped) == []
    assert names_broken_mid_word(layout(html.replace("break-word", "anywhere")), names)  # the check bites


def legends_outside_the_data(results: ReportResults) -> int:
    """Check every figure's legends against its plotted areas; return how many were checked."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    checked = 0
    for section in sections():
        result = results.sections.get(section.name)
        if section.figures is None or result is None or result.status != "ok":
            continue
        for name, figure in section.figures(result).items():
            renderer = FigureCanvasAgg(figure).get_renderer()
            figure.draw(renderer)  # constrained layout places the legends
            legends = [ax.get_legend() for ax in figure.axes] + list(figure.legends)
            data = [ax.get_window_extent(renderer) for ax in figure.axes if ax.get_visible()]
            for legend in filter(None, legends):
                box = legend.get_window_extent(renderer)
                assert not any(box.overlaps(area) for area in data), f"{section.name}: {name}"
                checked += 1
    return checked


def test_every_figure_legend_of_the_default_demo_sits_outside_the_plotted_data(single):
    assert legends_outside_the_data(single[0]) >= 6


def test_every_figure_legend_of_the_relational_demo_sits_outside_the_plotted_data(demo):
    assert legends_outside_the_data(demo[0]) >= 1


def test_a_reason_shared_by_several_tables_is_one_finding(demo):
    """The relational demo's lookup tables are too small for several sections: one finding each."""
    results, _, _ = demo
    not_measured = [f for f in results.findings if f.code.endswith("_not_measured")]
    by_code: dict[tuple[str, str], list] = {}
    for f in not_measured:
        by_code.setdefault((f.code, f.severity), []).append(f)
    grouped = [f for f in not_measured if f.tables]
    assert grouped and all(f.table is None for f in grouped)
    for f in grouped:
        assert all(t in f.message for t in f.tables)
    detection = next(f for f in grouped if f.code == "detection_not_measured")
    assert detection.message.count("the test needs") == 1  # the requirement once, not per table
    assert all(len(same) == len({f.message.split(":")[1] for f in same}) for same in by_code.values())
