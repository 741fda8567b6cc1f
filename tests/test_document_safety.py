"""The report as a document is safe to share: user strings are escaped and never run, and no real
record (a value held by a single real row) is printed anywhere."""

import re
import subprocess

import numpy as np
import pandas as pd
import pytest
from pypdf import PdfReader

import reportgen as rg

from .system import chromium

SCRIPT_COLUMN = "<script>alert(1)</script>"
HOSTILE_CATEGORY = "<img src=x onerror=\"document.title='pwned'\">"
SCRIPT_CATEGORY = "<script>document.title='pwned2'</script>"


def hostile(n: int, rng: np.random.Generator) -> pd.DataFrame:
    x = rng.normal(size=n)
    return pd.DataFrame(
        {
            SCRIPT_COLUMN: x,
            "y": x + rng.normal(size=n),
            "kind": rng.choice([HOSTILE_CATEGORY, SCRIPT_CATEGORY, "plain"], n),
            "name": [f"Person-{i:05d}-{rng.integers(1e9)}" for i in range(n)],  # unique: free text
        }
    )


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    rng = np.random.default_rng(0)
    train, synth = hostile(400, rng), hostile(400, rng)
    folder = tmp_path_factory.mktemp("safety")
    rg.report(train, None, synth, folder / "r.html", fail_under={"privacy": 0})
    rg.report(train, None, synth, folder / "r.pdf", fail_under={"privacy": 0})
    return train, folder


def test_user_strings_are_escaped_in_the_html(written):
    _, folder = written
    html = (folder / "r.html").read_text()
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<img src=x" not in html


@pytest.mark.needs("Chromium")
def test_nothing_in_the_html_executes_in_chromium(written):
    _, folder = written
    program = chromium()
    assert program is not None  # the needs marker has checked
    dom = subprocess.run(
        [
            program,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--dump-dom",
            (folder / "r.html").as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    title = re.search(r"<title>(.*?)</title>", dom, re.S).group(1)
    assert title.startswith("Synthetic data report") and "pwned" not in title
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom


def test_a_value_held_by_one_real_row_appears_nowhere(written):
    train, folder = written
    pdf_text = " ".join(page.extract_text() for page in PdfReader(folder / "r.pdf").pages)
    texts = [pdf_text, (folder / "r.html").read_text(), (folder / "r.json").read_text()]
    assert any("plain" in t for t in texts)  # categories that many rows hold are shown
    for name in train["name"]:
        assert all(name not in t for t in texts), name
