"""The packaged demo: its PDF opens, shows the overview, and says exactly what its JSON says."""

import re

import pytest
from pypdf import PdfReader

from reportgen import ReportResults
from reportgen.demo import run_demo
from reportgen.render.formatting import fmt_count, fmt_pct


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    path = tmp_path_factory.mktemp("demo") / "demo.pdf"
    run_demo(path)
    text = "\n".join(page.extract_text() for page in PdfReader(path).pages)
    return ReportResults.load(path.with_suffix(".json")), re.sub(r"\s+", " ", text)


def test_demo_pdf_has_the_overview(demo):
    results, text = demo
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
    results, text = demo
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
    results, _ = demo
    tables = {t.name: t for t in results.sections["overview"].tables}
    assert all(t.keys["synthetic"].is_clean and t.keys["training"].is_clean for t in tables.values())
    assert tables["Track"].rows_synth == 3503


def test_the_privacy_headline_and_table_in_the_pdf_equal_the_json(demo):
    from reportgen.render.formatting import fmt_num

    results, text = demo
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
