"""A report in a notebook: the results show page 1 as a cell's value, and the headlines as a frame.

Page 1 in a notebook is the document's page 1 (the same template, environment and escaping), so a
hostile name is as inert there as in the report, and results read back from JSON show the same.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
import reportgen.results
from reportgen.render.notebook import SCOPE, scoped_css

from .conftest import ROOT, fresh_python

SCRIPT_NAME = "<script>alert(1)</script>"
EXAMPLE = ROOT / "examples" / "notebook.ipynb"


def _page_one(html: str) -> str:
    """The ``summary`` section of an HTML document or block: page 1 below the title."""
    found = re.search(r'<section class="summary" id="summary">.*?</section>', html, flags=re.DOTALL)
    assert found, html[:2000]
    return found.group(0)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A small report whose training data has a table named like a script that the synthetic data lacks."""
    rng = np.random.default_rng(0)

    def people(n: int) -> pd.DataFrame:
        x = rng.normal(size=n)
        return pd.DataFrame({"x": x, "y": x + rng.normal(size=n), "kind": rng.choice(["a", "b"], n)})

    train = {"people": people(400), SCRIPT_NAME: people(50)}
    folder = tmp_path_factory.mktemp("notebook")
    results = rg.report(train, None, {"people": people(400)}, folder / "r.html", title=SCRIPT_NAME)
    return results, folder


def test_page_one_is_the_documents_with_hostile_names_escaped(written):
    results, folder = written
    html = results._repr_html_()
    assert html is not None
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/" in html  # the title and the missing table's name, escaped
    assert _page_one(html) == _page_one((folder / "r.html").read_text())
    for verdict in results.verdicts:
        assert verdict.concern.capitalize() in html
    assert 'class="findings-count"' in html and 'class="headlines"' in html


def test_the_styles_apply_inside_the_block_only(written):
    css = scoped_css(
        "@page { size: A4; @top-right { content: 'x'; } }\nhtml { color: red; }\n/* a { } */ th, td.num { padding: 0; }",
        ".s",
    )
    assert css == ".s { color: red; }\n.s th, .s td.num { padding: 0; }"
    results, _ = written
    style = re.search(r"<style>(.*?)</style>", results._repr_html_(), flags=re.DOTALL).group(1)
    selectors = [
        s.strip() for prelude in re.findall(r"([^{}]+)\{[^{}]*\}", style) for s in prelude.split(",")
    ]
    assert len(selectors) > 50 and all(s.startswith(f".{SCOPE}") for s in selectors), selectors


def test_the_frame_holds_exactly_the_headlines(written):
    results, _ = written
    frame = results.headlines_frame()
    assert list(frame["name"]) == list(results.headlines)
    assert list(frame.columns[:10]) == [
        "name",
        "label",
        "concern",
        "value",
        "reference",
        "unit",
        "higher_is_better",
        "worse",
        "bar",
        "bar_status",
    ]
    for row in frame.to_dict("records"):
        headline = results.headlines[row["name"]]
        assert row["value"] == headline.value and row["label"] == headline.label
        assert _same(row["reference"], headline.reference) and _same(row["bar"], headline.bar)
        assert _same(row["concern"], headline.concern) and _same(row["bar_status"], headline.bar_status)
        assert (
            bool(row["worse"]) is headline.worse
            and bool(row["higher_is_better"]) is headline.higher_is_better
        )
        low, high = headline.interval or (None, None)
        assert _same(row["interval_low"], low) and _same(row["interval_high"], high)


def test_an_empty_report_has_an_empty_frame_with_the_columns(written):
    results, _ = written
    frame = results.model_copy(update={"headlines": {}}).headlines_frame()
    assert frame.empty and list(frame.columns) == list(results.headlines_frame().columns)


def test_results_read_back_from_json_show_the_same_page_one(written, tmp_path):
    results, folder = written
    assert rg.ReportResults.load(folder / "r.json")._repr_html_() == results._repr_html_()
    # in a fresh process, where only reportgen.ReportResults has been touched
    code = (
        "import reportgen as rg, sys; "
        f"html = rg.ReportResults.load({str(folder / 'r.json')!r})._repr_html_(); "
        "sys.stdout.write(html)"
    )
    run = fresh_python(code, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout == results._repr_html_()


def test_without_a_renderer_the_notebook_shows_the_text_repr(written, monkeypatch):
    results, _ = written
    monkeypatch.setattr(reportgen.results, "_page_one_html", None)
    assert results._repr_html_() is None


def test_the_example_notebook_shows_page_one_and_the_frame():
    """The example runs as a user runs it (a kernel in the repository), and its outputs are page 1 and the frame."""
    nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install -e '.[test]')")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install -e '.[test]')")
    pytest.importorskip("ipykernel", reason="ipykernel is not installed (pip install -e '.[test]')")
    notebook = nbformat.read(EXAMPLE, as_version=4)
    nbclient.NotebookClient(
        notebook, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
    ).execute()
    html = [
        o["data"]["text/html"]
        for c in notebook.cells
        if c.cell_type == "code"
        for o in c.get("outputs", [])
        if "text/html" in o.get("data", {})
    ]
    pages = [h for h in html if f'class="{SCOPE}"' in h]
    assert len(pages) == 2 and pages[0] == pages[1]  # the results, and the same read back from JSON
    page = _page_one(pages[0])
    assert all(f"<th>{c}</th>" in page for c in ("Privacy", "Fidelity", "Utility"))
    assert 'class="badge badge-' in page and 'class="findings-count"' in page
    assert any('class="dataframe' in h and "higher_is_better" in h for h in html)


def _same(a: object, b: object) -> bool:
    """A frame cell equals a headline field (a missing value is None or NaN in the frame)."""
    return (b is None and (a is None or pd.isna(a))) or a == b
