"""Issue 35, the verifiable record and the accessible PDF: every report has an in-toto statement
naming its files by SHA-256, ``verify`` finds a changed byte in the PDF, the JSON or an input, and
the PDF is tagged (PDF/UA-1) with its JSON attached.

One small report, made once (a PDF through ``report()``; its HTML written from the same results),
and copies of it for the tampering: the module runs in about a minute on two cores, nearly all of
it the one report.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from pypdf import PdfReader

import reportgen as rg
from reportgen.catalogue import sections
from reportgen.cli import EXIT_NOT_VERIFIED, EXIT_OK, main
from reportgen.intoto import PREDICATE_TYPE, STATEMENT_TYPE, statement_problems
from reportgen.record import predicate_of
from reportgen.render.document import laid_out_report, render_appendix_html, write_report
from reportgen.results import ReportResults

pytestmark = pytest.mark.xdist_group("record")

FAST = {"risk_attacks": 50, "n_max_utility": 300, "mia_max_targets": 100}


def table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n).round(3)
    return pd.DataFrame({"x": x, "y": (x + rng.normal(size=n)).round(3), "c": rng.choice(list("abcd"), n)})


@pytest.fixture(scope="module")
def inputs() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    return table(300, 0), table(300, 1), table(300, 2)


@pytest.fixture(scope="module")
def made(tmp_path_factory, inputs) -> Path:
    """The report's folder: r.pdf, r.json and r.intoto.json as report() wrote them, and the HTML."""
    folder = tmp_path_factory.mktemp("record")
    results = rg.report(*inputs, folder / "r.pdf", fail_under={"privacy": 0}, **FAST)
    write_report(results, folder / "html" / "r.html", sections())
    return folder


@pytest.fixture
def copy(made, tmp_path) -> Path:
    """A copy of the PDF report's three files, to change."""
    for name in ("r.pdf", "r.json", "r.intoto.json"):
        shutil.copy(made / name, tmp_path / name)
    return tmp_path


def statement(folder: Path, name: str = "r") -> dict:
    return json.loads((folder / f"{name}.intoto.json").read_text())


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def flip_a_byte(path: Path, at: int) -> None:
    content = bytearray(path.read_bytes())
    content[at] ^= 0x01
    path.write_bytes(bytes(content))


def statuses(verification: rg.Verification) -> dict[str, str]:
    return {c.item: c.status for c in verification.checks}


# -- the statement ----------------------------------------------------------------------------------
def test_the_statement_has_every_field_in_toto_v1_requires(made):
    written = statement(made)
    assert statement_problems(written) == []
    assert written["_type"] == STATEMENT_TYPE and written["predicateType"] == PREDICATE_TYPE
    assert [s["name"] for s in written["subject"]] == ["r.pdf", "r.json"]


def test_the_statement_names_the_files_by_the_sha256_of_their_bytes(made):
    subjects = {s["name"]: s["digest"]["sha256"] for s in statement(made)["subject"]}
    assert subjects == {"r.pdf": sha256(made / "r.pdf"), "r.json": sha256(made / "r.json")}


def test_the_predicate_is_the_run_record_with_bars_and_verdicts_as_the_json_holds_them(made):
    predicate, results = statement(made)["predicate"], json.loads((made / "r.json").read_text())
    assert predicate["run"]["inputs"] == results["run"]["inputs"]
    assert set(predicate["run"]["inputs"]) == {"training", "holdout", "synthetic"}
    for field in ("seed", "settings", "versions", "reportgen_version", "fingerprint_format"):
        assert predicate["run"][field] == results["run"][field]
    assert predicate["bars"]["gates"] == results["gates"]["gates"] and predicate["bars"]["passed"] is True
    assert predicate["verdicts"] == results["verdicts"]
    assert "decision" not in predicate  # these results hold none


def test_a_decision_in_the_results_is_carried_into_the_statement_whatever_its_fields(made):
    results = json.loads((made / "r.json").read_text())
    decided = {"approver": "A. Person", "role": "Data steward", "decision": "approve"}
    assert predicate_of({**results, "decision": decided})["decision"] == decided
    assert "decision" not in predicate_of({**results, "decision": None})


def test_the_html_report_is_named_by_the_statement_beside_it(made):
    folder = made / "html"
    subjects = {s["name"]: s for s in statement(folder)["subject"]}
    assert subjects["r.html"]["digest"]["sha256"] == sha256(folder / "r.html")
    assert subjects["r.html"]["mediaType"] == "text/html"
    assert rg.verify_statement(folder / "r.intoto.json").passed


def test_a_failure_writing_the_statement_leaves_the_previous_three_files(made, tmp_path, monkeypatch):
    import errno

    import reportgen.outputs as outputs

    for name in ("r.html", "r.json", "r.intoto.json"):
        shutil.copy(made / "html" / name, tmp_path / name)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    real, calls = outputs._write_synced, []

    def full(path: Path, content: bytes) -> None:
        calls.append(path)
        if path.name.startswith(".r.intoto.json."):  # the third file: the disk is full
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, content)

    monkeypatch.setattr(outputs, "_write_synced", full)
    json_text = (tmp_path / "r.json").read_text().replace('"title": "', '"title": "NEW RUN ')
    with pytest.raises(rg.RenderError, match="its statement: .*No space left"):
        outputs.write_pair(
            tmp_path / "r.html", b"<html>new</html>", json_text, predicate_of(json.loads(json_text))
        )
    assert len(calls) == 3 and {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_a_folder_where_the_statement_goes_is_refused_before_any_work(inputs, tmp_path):
    (tmp_path / "r.intoto.json").mkdir()
    with pytest.raises(rg.RenderError, match="statement of the report .* is a folder"):
        rg.report(*inputs, tmp_path / "r.pdf")


# -- verify -----------------------------------------------------------------------------------------
def test_verify_passes_on_the_report_and_its_inputs(made, inputs):
    train, test, synth = inputs
    verification = rg.verify_statement(
        made / "r.intoto.json", data_train=train, data_test=test, data_synth=synth
    )
    assert verification.passed and verification.not_checked == []
    assert set(statuses(verification).values()) == {"match"}
    assert len(verification.checks) == 5  # two files, three input tables


def test_verify_without_inputs_checks_the_files_and_says_the_inputs_were_not(made):
    verification = rg.verify_statement(made / "r.intoto.json")
    assert verification.passed
    assert {c.item for c in verification.not_checked} == {
        "input training/table",
        "input holdout/table",
        "input synthetic/table",
    }
    assert "3 not checked" in verification.lines()[-1]


@pytest.mark.parametrize("name", ["r.pdf", "r.json"])
def test_verify_finds_one_changed_byte_in_the_pdf_or_the_json(copy, name):
    flip_a_byte(copy / name, at=(copy / name).stat().st_size // 2)
    verification = rg.verify_statement(copy / "r.intoto.json")
    assert not verification.passed
    assert statuses(verification)[name] == "mismatch"
    assert statuses(verification)[({"r.pdf", "r.json"} - {name}).pop()] == "match"


def test_verify_reports_a_missing_file(copy):
    (copy / "r.json").unlink()
    verification = rg.verify_statement(copy / "r.intoto.json")
    assert not verification.passed and statuses(verification)["r.json"] == "missing"


def test_verify_finds_one_changed_value_in_an_input(made, inputs):
    train, test, synth = inputs
    changed = synth.copy()
    changed.loc[7, "x"] += 0.001
    verification = rg.verify_statement(
        made / "r.intoto.json", data_train=train, data_test=test, data_synth=changed
    )
    assert not verification.passed
    found = statuses(verification)
    assert found["input synthetic/table"] == "mismatch"
    assert found["input training/table"] == found["input holdout/table"] == found["r.pdf"] == "match"


def test_verify_refuses_the_inputs_without_the_holdout_the_report_had(made, inputs):
    train, _, synth = inputs
    with pytest.raises(rg.InvalidParameterError, match="holdout"):
        rg.verify_statement(made / "r.intoto.json", data_train=train, data_synth=synth)


def test_verify_refuses_a_file_that_is_not_a_statement(made, tmp_path):
    with pytest.raises(rg.LoadError, match="not an in-toto Statement v1"):
        rg.verify_statement(made / "r.json")
    with pytest.raises(rg.LoadError, match="No statement"):
        rg.verify_statement(tmp_path / "absent.intoto.json")


def test_the_command_line_verifies_and_exits_non_zero_on_a_tampered_input(
    made, copy, inputs, tmp_path, capsys
):
    files = {role: tmp_path / role / "table.csv" for role in ("train", "test", "synth")}  # table "table"
    for file, frame in zip(files.values(), inputs, strict=True):
        file.parent.mkdir()
        frame.to_csv(file, index=False)
    given = [f"--{role}={file}" for role, file in files.items()]
    assert main(["verify", str(made / "r.intoto.json"), *given]) == EXIT_OK
    good = capsys.readouterr().out
    assert "VERIFIED: everything checked matches" in good and "not checked" not in good
    train = inputs[0].copy()
    train.loc[0, "c"] = "b" if train.loc[0, "c"] != "b" else "a"
    train.to_csv(files["train"], index=False)
    assert main(["verify", str(made / "r.intoto.json"), *given]) == EXIT_NOT_VERIFIED
    bad = capsys.readouterr().out
    assert re.search(r"MISMATCH +input training/table +sha256 recorded", bad)
    assert "NOT VERIFIED: 1 of 5 checks do not match the statement" in bad
    assert main(["verify", str(copy / "r.intoto.json")]) == EXIT_OK
    assert re.search(r"not checked +input training/table +inputs not given", capsys.readouterr().out)


# -- the PDF -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pdf(made) -> PdfReader:
    return PdfReader(made / "r.pdf")


def test_the_pdf_carries_its_json_byte_for_byte(made, pdf):
    attachments = pdf.attachments
    assert list(attachments) == ["r.json"]
    assert attachments["r.json"] == [(made / "r.json").read_bytes()]


def test_the_pdf_is_tagged_pdf_ua_with_its_language_title_and_alt_text(made, pdf):
    catalog = pdf.trailer["/Root"]
    assert bool(catalog["/MarkInfo"]["/Marked"]) and "/StructTreeRoot" in catalog
    assert catalog["/Lang"] == "en" and bool(catalog["/ViewerPreferences"]["/DisplayDocTitle"])
    assert pdf.metadata.title == json.loads((made / "r.json").read_text())["run"]["title"]
    assert b'pdfuaid:part="1"' in catalog["/Metadata"].get_object().get_data()
    figures = list(structure_elements(catalog["/StructTreeRoot"], "/Figure"))
    assert figures and all(str(f.get("/Alt", "")).strip() for f in figures)


def structure_elements(node, kind: str):
    """Every element of the structure tree under ``node`` of type ``kind`` (``/Figure``, ``/Table``...)."""
    node = node.get_object()
    if not hasattr(node, "get"):
        return
    if node.get("/S") == kind:
        yield node
    kids = node.get("/K")
    for kid in kids if isinstance(kids, list) else [] if kids is None else [kids]:
        yield from structure_elements(kid, kind)


# -- the appendix, laid out on its own and joined ------------------------------------------------------
def footers(pdf: PdfReader) -> list[str]:
    """Each page's "Page ..." footer, as the PDF prints it."""
    return [re.findall(r"Page (A?-?\d+ of A?-?\d+)", page.extract_text())[-1] for page in pdf.pages]


def test_the_appendix_pages_are_numbered_on_their_own_and_every_link_into_them_resolves(pdf):
    shown = footers(pdf)
    body = sum(not label.startswith("A-") for label in shown)
    appendix = len(shown) - body
    assert body >= 10 and appendix >= 10
    assert shown == [f"{n} of {body}" for n in range(1, body + 1)] + [
        f"A-{n} of A-{appendix}" for n in range(1, appendix + 1)
    ]
    destinations = {name: pdf.get_destination_page_number(d) for name, d in pdf.named_destinations.items()}
    assert destinations["methodology"] == body and destinations["glossary"] > body  # from 0
    contents = next(page.extract_text() for page in pdf.pages if "Contents" in page.extract_text())
    glossary = f"A-{destinations['glossary'] - body + 1}"
    assert re.search(r"Appendix: Methodology[ .]*A-1\b", contents), contents
    assert re.search(rf"Appendix: Glossary[ .]*{glossary}\b", contents), contents
    assert all("/StructParents" in page for page in pdf.pages)  # every page is in the structure tree


def test_every_part_is_headed_with_the_number_the_contents_give_it(pdf):
    parts = [entry for entry in pdf.outline[1] if not isinstance(entry, list)]  # under the report's title
    titles = [entry["/Title"] for entry in parts]
    numbered = parts[titles.index("Findings") : titles.index("Methodology")]
    assert [entry["/Title"] for entry in numbered][-3:] == [
        "Decision on this release",
        "How this report was produced",
        "Standards and guidance: what the numbers speak to",
    ]
    contents = next(n for n, page in enumerate(pdf.pages) if "Contents" in page.extract_text())
    for number, entry in enumerate(numbered, 1):
        page = pdf.get_destination_page_number(entry)
        if page != contents:  # where the contents list it too
            heading = "".join(f"{number}. {entry['/Title']}".split())  # compared without the line breaks
            assert heading in "".join(pdf.pages[page].extract_text().split()), heading


@pytest.mark.usefixtures("figures_not_drawn")  # compares the appendix's text (tests/drawing.py)
def test_a_kept_appendix_layout_prints_the_text_a_fresh_one_would_and_follows_the_settings(made, monkeypatch):
    from reportgen.render import pdf

    from .render.layout import lines

    results = ReportResults.load(made / "r.json")
    real, laid_out = pdf.lay_out, []

    def counted(html: str):
        laid_out.append(html)
        return real(html)

    monkeypatch.setattr(pdf, "lay_out", counted)
    pdf.laid_out_appendix.cache_clear()
    fresh = laid_out_report(results, sections(), json_sha256=None)
    kept = laid_out_report(results, sections(), json_sha256=None)
    assert len(laid_out) == 1
    assert [line.text for line in lines(kept)] == [line.text for line in lines(fresh)]
    reseeded = results.model_copy(update={"run": results.run.model_copy(update={"seed": 7})})
    other = " ".join(
        line.text
        for line in lines(pdf.laid_out_appendix(render_appendix_html(reseeded, sections())).document)
    )
    assert len(laid_out) == 2  # the seed is printed in the appendix: laid out anew
    assert "(seed 7)" in other and "(seed 7)" not in " ".join(line.text for line in lines(fresh))
