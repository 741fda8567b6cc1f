"""Issue 15, outputs: a bad output path is refused before the work, the report and its JSON change
together or not at all (also when the process is stopped), one long name or a wide table does not
hold the report hostage, no rare real value is printed, and numbers from too few rows say so.

Small generated data, HTML where the format does not matter, small caps: the module runs in about a
minute on two cores.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
import reportgen.metrics.correlation as correlation
import reportgen.outputs as outputs
from reportgen.catalogue import sections
from reportgen.cli import main
from reportgen.disclosure import Disclosure
from reportgen.headlines import MIN_ROWS_CAVEAT, headlines
from reportgen.preparation import prepare_context
from reportgen.render.document import write_report
from reportgen.render.formatting import MAX_WORD, short_words
from reportgen.render.pdf import html_to_pdf
from reportgen.results import ReportResults
from reportgen.settings import ReportColumns, ReportSettings

from .conftest import fresh_env

FAST = {"risk_attacks": 50, "n_max_utility": 300, "fail_under": {"privacy": 0}}
RARE_CLASS, RARE_COLOUR = "ZZ-rare-class", "QQ-rare-colour"


def tiny(n: int, seed: int, *, rare: bool = False) -> pd.DataFrame:
    """A small mixed table; ``rare`` plants a target class and a colour held by 3 rows each."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    target = rng.choice(["alpha", "beta"], n).astype(object)
    colour = rng.choice(["red", "green", "blue"], n).astype(object)
    if rare:
        target[:3], colour[:3] = RARE_CLASS, RARE_COLOUR
    return pd.DataFrame({"x": x, "y": x + rng.normal(size=n), "colour": colour, "target": target})


def no_temporaries(folder: Path) -> bool:
    return not [name for name in os.listdir(folder) if name.endswith(".tmp")]


def pair_title(folder: Path, name: str = "r") -> tuple[str, str]:
    """The run title the JSON holds and the one the HTML shows."""
    html = (folder / f"{name}.html").read_text()
    return (
        json.loads((folder / f"{name}.json").read_text())["run"]["title"],
        re.search(r"<title>(.*?)</title>", html).group(1),
    )


def fingerprint_matches(folder: Path, name: str = "r") -> bool:
    """Whether the document prints the SHA-256 of the JSON beside it."""
    digest = hashlib.sha256((folder / f"{name}.json").read_bytes()).hexdigest()
    return f'name="reportgen-results-sha256" content="{digest}"' in (folder / f"{name}.html").read_text()


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """One report on data with a rare target class (absent from the synthetic data) and a rare colour."""
    folder = tmp_path_factory.mktemp("written")
    train, test, synth = tiny(200, 0, rare=True), tiny(100, 1), tiny(200, 2)
    results = rg.report(train, test, synth, folder / "r.html", targets={"table": "target"}, **FAST)
    return folder, results


# -- 1. the output path is checked before any work ------------------------------------------------
def _folder_as_path(tmp: Path) -> Path:
    (tmp / "r.html").mkdir()
    return tmp / "r.html"


def _json_is_folder(tmp: Path) -> Path:
    (tmp / "r.json").mkdir()
    return tmp / "r.html"


def _parent_is_file(tmp: Path) -> Path:
    (tmp / "notes.txt").write_text("x")
    return tmp / "notes.txt" / "r.html"


def _grandparent_is_file(tmp: Path) -> Path:
    (tmp / "notes.txt").write_text("x")
    return tmp / "notes.txt" / "sub" / "r.html"


def _bad_suffix(tmp: Path) -> Path:
    return tmp / "r.txt"


PATH_CASES = {
    "path is a folder": (_folder_as_path, "is a folder"),
    "json path is a folder": (_json_is_folder, "is a folder"),
    "parent is a file": (_parent_is_file, "is a file, not a folder"),
    "grandparent is a file": (_grandparent_is_file, "is a file, not a folder"),
    "no format suffix": (_bad_suffix, "Cannot tell the report format"),
}


def read_only(folder: Path, monkeypatch) -> None:
    """Make ``folder`` unwritable; as root (who may write anyway) the permission check is told so."""
    folder.mkdir()
    folder.chmod(0o555)
    if os.access(folder, os.W_OK):
        real = os.access
        monkeypatch.setattr(
            "reportgen.outputs.os.access", lambda p, mode: False if Path(p) == folder else real(p, mode)
        )


@pytest.mark.parametrize("case", PATH_CASES)
def test_api_refuses_an_unwritable_path_before_any_work(case, tmp_path):
    make, words = PATH_CASES[case]
    path, stages = make(tmp_path), []
    with pytest.raises(rg.RenderError, match=words) as raised:
        rg.report(tiny(50, 0), None, tiny(50, 1), path, progress=lambda s, f: stages.append(s))
    assert stages == []  # nothing was computed
    assert path.name in str(raised.value) or "format" in str(raised.value)


def test_api_refuses_a_read_only_folder_before_any_work(tmp_path, monkeypatch):
    read_only(tmp_path / "locked", monkeypatch)
    stages: list[str] = []
    with pytest.raises(rg.RenderError, match="is not writable") as raised:
        rg.report(
            tiny(50, 0),
            None,
            tiny(50, 1),
            tmp_path / "locked" / "r.html",
            progress=lambda s, f: stages.append(s),
        )
    assert str(tmp_path / "locked") in str(raised.value) and stages == []


@pytest.fixture(scope="module")
def csv_inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("csv")
    tiny(150, 0).to_csv(folder / "train.csv", index=False)
    tiny(150, 1).to_csv(folder / "synth.csv", index=False)
    return folder


def cli_report(inputs: Path, out: Path, *extra: str) -> list[str]:
    return [
        "report",
        *("--train", str(inputs / "train.csv"), "--synth", str(inputs / "synth.csv")),
        *("--out", str(out), "--quiet", "--risk-attacks", "50", "--n-max-utility", "300"),
        *("--fail-under", "privacy=0", *extra),
    ]


@pytest.mark.parametrize("case", PATH_CASES)
def test_cli_refuses_an_unwritable_path_with_exit_2_and_no_traceback(case, tmp_path, csv_inputs, capsys):
    make, words = PATH_CASES[case]
    assert main(cli_report(csv_inputs, make(tmp_path))) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and err.startswith("reportgen: error:")


def test_cli_refuses_a_read_only_folder(tmp_path, csv_inputs, capsys, monkeypatch):
    read_only(tmp_path / "locked", monkeypatch)
    assert main(cli_report(csv_inputs, tmp_path / "locked" / "r.html")) == 2
    err = capsys.readouterr().err
    assert "is not writable" in err and str(tmp_path / "locked") in err and "Traceback" not in err


def test_cli_says_it_creates_a_missing_folder_and_writes_there(tmp_path, csv_inputs, capsys):
    out = tmp_path / "new" / "deeper" / "r.html"
    assert main(cli_report(csv_inputs, out)) == 0
    err = capsys.readouterr().err
    assert f"folder {tmp_path / 'new'} does not exist; it will be created" in err
    assert out.exists() and out.with_suffix(".json").exists() and fingerprint_matches(out.parent)


# -- 2. the report and its JSON change together --------------------------------------------------
def test_the_document_carries_the_fingerprint_of_its_json(written):
    folder, _ = written
    assert fingerprint_matches(folder) and no_temporaries(folder)
    assert "Results JSON (SHA-256)" in (folder / "r.html").read_text()


def old_pair(written, tmp_path) -> Path:
    folder, _ = written
    for name in ("r.html", "r.json", "r.intoto.json"):
        shutil.copy(folder / name, tmp_path / name)
    return tmp_path


def test_an_exception_in_pdf_rendering_leaves_the_old_pair(written, tmp_path, monkeypatch):
    folder = old_pair(written, tmp_path)
    shutil.copy(folder / "r.html", folder / "r.pdf")  # an old "PDF" beside the old JSON
    before = {p.name: p.read_bytes() for p in folder.iterdir()}

    def broken(results, pages, **given) -> bytes:
        raise RuntimeError("font cache corrupted")

    monkeypatch.setattr("reportgen.render.document.report_pdf", broken)
    results = ReportResults.load(folder / "r.json")
    with pytest.raises(RuntimeError, match="font cache"):
        write_report(results, folder / "r.pdf", sections())
    assert {n: (folder / n).read_bytes() for n in before} == before and no_temporaries(folder)


def test_a_full_disk_while_writing_leaves_the_old_pair_and_a_clear_error(written, tmp_path, monkeypatch):
    folder = old_pair(written, tmp_path)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    real, calls = outputs._write_synced, []

    def full(path: Path, content: bytes) -> None:
        calls.append(path)
        if len(calls) == 2:
            path.write_bytes(content[:10])  # a partial temporary file, then the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, content)

    monkeypatch.setattr(outputs, "_write_synced", full)
    results = ReportResults.load(folder / "r.json")
    results.run.title = "NEW RUN"
    with pytest.raises(rg.RenderError, match="No space left on device") as raised:
        write_report(results, folder / "r.html", sections())
    assert "unchanged" in str(raised.value)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before and no_temporaries(folder)


STOPPER = r"""
import os, sys, time
from pathlib import Path
import numpy as np, pandas as pd
import reportgen as rg
import reportgen.outputs as outputs
import reportgen.render.document as document
from reportgen.catalogue import sections
from reportgen.results import ReportResults

mode, folder = sys.argv[1], Path(sys.argv[2])


def pause(seconds):
    (folder / "ready").touch()
    time.sleep(seconds)


def page(results, sha):  # a cheap stand-in for the full page: the title and the JSON's fingerprint
    return f'<title>{results.run.title}</title><meta name="reportgen-results-sha256" content="{sha}">'


if mode == "computing":
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.normal(size=60), "c": rng.choice(["a", "b"], 60)})
    hold = lambda stage, fraction: pause(60) if stage.startswith("Computing") else None
    rg.report(frame, None, frame, folder / "r.html", title="NEW RUN", progress=hold)
results = ReportResults.load(folder / "r.json")
results.run.title = "NEW RUN"
document.render_html = lambda results, pages, json_sha256, **given: (
    pause(60) if mode == "rendering" else None,
    page(results, json_sha256),
)[1]


def after_first(real):  # the real call, then a pause after the first one only
    calls = []

    def wrapped(*args):
        real(*args)
        calls.append(args)
        if len(calls) == 1:
            pause(1)

    return wrapped


if mode == "temporaries":  # between writing the document's temporary file and the JSON's
    outputs._write_synced = after_first(outputs._write_synced)
if mode == "renames":  # between renaming the document and renaming the JSON
    outputs.os.replace = after_first(os.replace)
document.write_report(results, folder / "r.html", sections())
"""

STOP_CASES = {  # where SIGTERM arrives -> which pair is left
    "computing": "old",
    "rendering": "old",
    "temporaries": "new",  # held back: the pair is completed, then the process ends
    "renames": "new",  # between the document's rename and the JSON's: held back likewise
}


@pytest.mark.parametrize("moment", STOP_CASES)
def test_sigterm_leaves_the_old_pair_or_the_new_pair_and_no_temporary_file(moment, written, tmp_path):
    folder = old_pair(written, tmp_path)
    old_title = pair_title(folder)[0]
    process = subprocess.Popen(
        [sys.executable, "-c", STOPPER, moment, str(folder)],
        env=fresh_env(),
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (folder / "ready").exists():
        assert process.poll() is None, process.communicate()[1]
        assert time.monotonic() < deadline, "the subprocess never reached the moment"
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=30)
    assert process.returncode == -signal.SIGTERM, err
    expected = "NEW RUN" if STOP_CASES[moment] == "new" else old_title
    assert pair_title(folder) == (expected, expected)
    assert fingerprint_matches(folder) and no_temporaries(folder)
    assert rg.verify_statement(folder / "r.intoto.json").passed  # the statement names the files left


# -- 3. long names and wide tables are bounded ---------------------------------------------------
LONG_TABLE, LONG_COLUMN, LONG_LABEL = "T" * 3000, "C" * 3000, "V" * 3000


@pytest.fixture(scope="module")
def long_named(tmp_path_factory):
    folder = tmp_path_factory.mktemp("long")

    def frame(seed: int) -> pd.DataFrame:
        data = tiny(150, seed).rename(columns={"x": LONG_COLUMN})
        data["colour"] = data["colour"].replace({"red": LONG_LABEL})
        return data

    rg.report(
        {LONG_TABLE: frame(0)}, {LONG_TABLE: frame(1)}, {LONG_TABLE: frame(2)}, folder / "r.html", **FAST
    )
    return folder


def page_with_figures(html: str) -> str:
    """The page's text and the text of its inline SVG figures."""
    figures = re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', html)
    return "\n".join(
        [re.sub(r'src="data:[^"]+"', "", html), *(base64.b64decode(f).decode() for f in figures)]
    )


@pytest.mark.parametrize("name", ["table", "column", "category"])
def test_a_3000_character_name_is_shortened_on_the_page_and_whole_in_the_json(name, long_named):
    text = {"table": LONG_TABLE, "column": LONG_COLUMN, "category": LONG_LABEL}[name]
    page = page_with_figures((long_named / "r.html").read_text())
    runs = [len(run) for run in re.findall(rf"{text[0]}+", page)]
    assert runs and max(runs) <= MAX_WORD // 2  # shown, cut in the middle: "TTT…TTT"
    if name != "category":  # a category label reaches the JSON only where the plots show it
        assert text in (long_named / "r.json").read_text()


def test_a_page_with_a_3000_character_name_renders_to_pdf_in_seconds(long_named):
    started = time.monotonic()
    pdf = html_to_pdf((long_named / "r.html").read_text())
    assert pdf.startswith(b"%PDF") and time.monotonic() - started < 60  # 200 s before


def test_short_words_cuts_only_long_runs_and_keeps_both_ends():
    fingerprint = "a" * 64  # SHA-256 fingerprints stay whole
    text = f"column {'x' * 500}end kept {fingerprint}"
    shortened = short_words(text)
    assert fingerprint in shortened and "column" in shortened and shortened.count("…") == 1
    assert max(map(len, shortened.split())) == MAX_WORD and "xend" in shortened


@pytest.fixture(scope="module")
def wide(tmp_path_factory):
    """A 14-column table with the phik cap lowered to 5 columns (the rule is the same at 30)."""
    rng = np.random.default_rng(3)

    def frame(n: int) -> pd.DataFrame:
        return pd.DataFrame({f"m{i:02d}": rng.normal(size=n) for i in range(14)})

    folder = tmp_path_factory.mktemp("wide")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(correlation, "MAX_PHIK_COLUMNS", 5)
        results = rg.report(frame(120), frame(120), frame(120), folder / "r.html", **FAST)
    return results, folder


def test_a_wide_table_has_phik_on_a_stated_random_sample_of_columns(wide):
    results, folder = wide
    table = results.sections["correlation"].tables[0]
    assert len(table.columns) == 5 and table.columns_available == 14 and table.n_pairs == 10
    assert table.columns == sorted(table.columns)  # in table order
    finding = next(f for f in results.findings if f.code == "phik_columns_sampled")
    assert "random sample of 5" in finding.message and "14 compared columns" in finding.message
    html = (folder / "r.html").read_text()
    assert "phik was computed on a seeded random sample of 5 of them (10 pairs)" in html
    assert "more than 30\n        compared columns" in html or "more than 30 compared columns" in " ".join(
        html.split()
    )
    saved = json.loads((folder / "r.json").read_text())
    assert saved["sections"]["correlation"]["tables"][0]["columns_available"] == 14


def test_pair_plots_of_a_wide_table_are_bounded(wide):
    results, _ = wide
    assert len(results.sections["distributions"].tables[0].pairs) <= 6


@pytest.mark.parametrize(
    ("selection", "expected"), [(None, 30), (ReportColumns(phik=40), 40), (ReportColumns(phik=12), 12)]
)
def test_the_phik_cap_applies_only_when_the_user_did_not_choose_the_columns(selection, expected):
    rng = np.random.default_rng(4)
    frame = pd.DataFrame({f"m{i:03d}": rng.normal(size=30) for i in range(120)})
    settings = ReportSettings(columns=selection or ReportColumns())
    ctx = prepare_context(frame, None, frame, settings)
    available = settings.columns.select("phik", "table", ctx.table("table").compared_columns)
    chosen = correlation.phik_columns(ctx, "table", available)
    assert len(chosen) == expected and chosen == correlation.phik_columns(ctx, "table", available)


# -- 4. no rare real value is printed ------------------------------------------------------------
@pytest.mark.parametrize("value", [RARE_CLASS, RARE_COLOUR])
@pytest.mark.parametrize("output", ["r.html", "r.json"])
def test_a_value_held_by_3_training_rows_is_printed_nowhere(value, output, written):
    folder, _ = written
    assert value not in (folder / output).read_text()


def test_the_utility_section_says_a_rare_class_is_missing_without_naming_it(written):
    folder, results = written
    messages = results.sections["utility"].tables[0].messages
    assert any("1 class held by fewer than 10 training rows (not named" in m for m in messages)
    assert "1 class held by fewer than 10 training rows" in (folder / "r.html").read_text()


def test_the_disclosure_rule_names_frequent_values_and_counts_rare_ones():
    rule = Disclosure.of(pd.Series(["a"] * 12 + ["b"] * 3), min_count=10)
    assert rule.name(["a", "b", "never"], ("class", "classes")).startswith(
        "Class 'a' and 2 classes held by fewer than 10 training rows"
    )
    assert rule.scrub("y contains previously unseen labels: ['b']", ["a", "b"]).count("'b'") == 0


# -- 5. headline numbers from too few rows say so ------------------------------------------------
@pytest.fixture(scope="module")
def small_reports(tmp_path_factory):
    folder = tmp_path_factory.mktemp("small")
    return {
        n: rg.report(
            tiny(n, 0), None, tiny(n, 1), folder / f"r{n}.html", **FAST | {"fail_under": {"similarity": 1}}
        )
        for n in (1, 12, 60)
    }


@pytest.mark.parametrize("n", [1, 12])
def test_a_headline_from_under_20_rows_is_withheld_and_its_bar_not_evaluated(n, small_reports):
    results = small_reports[n]
    assert "similarity" not in headlines(results)
    gate = next(g for g in results.gates.gates if g.name == "similarity")
    assert gate.status == "not_evaluated" and f"only {n} row" in gate.reason
    finding = next(f for f in results.findings if f.code == "too_few_rows")
    assert "withheld" in finding.message and "Similarity" in finding.message


def test_a_headline_from_under_100_rows_has_a_caveat_and_a_finding(small_reports):
    results = small_reports[60]
    similarity = headlines(results)["similarity"]
    assert f"only 60 rows ({MIN_ROWS_CAVEAT} or more" in similarity.caveat
    assert any(f.code == "too_few_rows" and "caveat" in f.message for f in results.findings)


def test_a_headline_from_enough_rows_has_no_size_caveat(written):
    _, results = written
    assert all("rows (" not in (h.caveat or "") for h in headlines(results).values())
    assert not any(f.code == "too_few_rows" for f in results.findings)
