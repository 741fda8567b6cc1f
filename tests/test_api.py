import json
import threading

import numpy as np
import pandas as pd
import pytest
import torch

import reportgen
import reportgen.evaluation
import reportgen.metrics.alpha_beta as alpha_beta
from reportgen import InvalidParameterError, RenderError, ReportColumns, ReportResults, report
from reportgen.privacy import one_class_process
from reportgen.render import document


def split_people(people):
    return (
        people.iloc[:150],
        people.iloc[150:],
        people.sample(frac=1.0, random_state=1).reset_index(drop=True),
    )


def strip_time(text: str) -> dict:
    data = json.loads(text)
    data["run"].pop("created_at")
    return data


def test_html_report_with_json_beside_it(people, tmp_path):
    train, test, synth = split_people(people)
    results = report(train, test, synth, tmp_path / "r.html", seed=3)
    html = (tmp_path / "r.html").read_text()
    assert html.startswith("<!DOCTYPE html>") and "The data" in html
    assert "data:image" not in html or 'src="data:' in html  # figures, if any, are inlined
    saved = ReportResults.load(tmp_path / "r.json")
    assert saved == results
    table = saved.sections["overview"].tables[0]
    assert (table.rows_train, table.rows_test, table.rows_synth) == (150, 150, 300)
    excluded = {c.name: c.excluded_reason for c in table.columns if c.excluded_reason}
    assert excluded == {"note": "free text or near-unique values"}


@pytest.mark.usefixtures("figures_not_drawn")  # compares numbers (tests/drawing.py)
def test_same_inputs_and_seed_give_the_same_json(people, tmp_path):
    train, test, synth = split_people(people)
    report(train, test, synth, tmp_path / "a.html", seed=5, n_max_synth=100)
    report(train, test, synth, tmp_path / "b.html", seed=5, n_max_synth=100)
    assert strip_time((tmp_path / "a.json").read_text()) == strip_time((tmp_path / "b.json").read_text())


def test_inputs_are_not_mutated(people, tmp_path):
    train, test, synth = split_people(people)
    copies = [f.copy(deep=True) for f in (train, test, synth)]
    report(train, test, synth, tmp_path / "r.html", n_max_train=20)
    for before, after in zip(copies, (train, test, synth), strict=True):
        pd.testing.assert_frame_equal(before, after)


def test_a_failing_render_leaves_no_partial_file(people, tmp_path, monkeypatch):
    train, test, synth = split_people(people)
    target = tmp_path / "r.pdf"
    target.write_bytes(b"previous report")

    def broken(results, pages, **given):
        raise RuntimeError("renderer crashed")

    monkeypatch.setattr(document, "report_pdf", broken)
    with pytest.raises(RuntimeError):
        report(train, test, synth, target)
    assert target.read_bytes() == b"previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.pdf"]


def test_unknown_suffix_is_refused_before_any_work(people, tmp_path):
    train, test, synth = split_people(people)
    with pytest.raises(RenderError, match="name the file with .pdf or .html"):
        report(train, test, synth, tmp_path / "r.docx")
    assert list(tmp_path.iterdir()) == []


def test_user_strings_are_escaped(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"<script>alert(1)</script>": rng.choice(["<b>x</b>", "y"], 100), "v": rng.normal(size=100)}
    )
    report(frame, None, frame, tmp_path / "r.html", title="<i>t</i>")
    html = (tmp_path / "r.html").read_text()
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<i>t</i>" not in html


def test_synthetic_key_problems_are_reported_not_raised(tmp_path):
    real = {
        "p": pd.DataFrame({"id": [1, 2, 3]}),
        "c": pd.DataFrame({"p_id": [1, 1, 2, 3], "x": [1.0, 2.0, 3.0, 4.0]}),
    }
    synth = {
        "p": pd.DataFrame({"id": [1, 1, 2]}),
        "c": pd.DataFrame({"p_id": [1, 7, 8, 2], "x": [1.0, 2.0, 3.0, 4.0]}),
    }
    schema = reportgen.Schema(
        p=reportgen.Table(id=reportgen.PrimaryKey()),
        c=reportgen.Table(p_id=reportgen.ForeignKey(parent="p")),
    )
    results = report(real, None, synth, tmp_path / "r.html", schema=schema)
    codes = {(f.code, f.table) for f in results.findings if "key" in f.code or "orphan" in f.code}
    assert codes == {("synthetic_duplicate_primary_keys", "p"), ("synthetic_orphans", "c")}
    tables = {t.name: t for t in results.sections["overview"].tables}
    assert tables["c"].keys["synthetic"].orphans == {"c.p_id -> p.id": 2}
    html = (tmp_path / "r.html").read_text()
    assert "2 orphans" in html and "1 duplicate keys" in html


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"n_max_train": 0},
            r"The 'n_max_train' parameter of report must be an int in the range \[1, inf\). Got 0 instead.",
        ),
        (
            {"seed": -1},
            r"The 'seed' parameter of report must be an int in the range \[0, 4.29497e\+09\]. Got -1 instead.",
        ),
        ({"seed": 1.5}, r"The 'seed' parameter of report must be an int"),
        (
            {"columns": {"univ": 3}},
            r"The 'columns' parameter of report must be None or a ReportColumns",
        ),
        (
            {"columns": ReportColumns(univ=["nope"])},
            r"ReportColumns.univ names column\(s\) \['nope'\]",
        ),
    ],
)
def test_bad_parameters_get_one_message_form(people, tmp_path, kwargs, message):
    with pytest.raises(InvalidParameterError, match=message):
        report(people, None, people, tmp_path / "r.html", **kwargs)


def test_public_names_are_exactly_these():
    assert set(reportgen.__all__) == {
        "CandidateComparison",
        "ColumnKind",
        "DataError",
        "Finding",
        "ForeignKey",
        "IncompatibleDataError",
        "InvalidParameterError",
        "LoadError",
        "PrimaryKey",
        "RelationalData",
        "RenderError",
        "ReportColumns",
        "ReportResults",
        "ReportgenError",
        "Schema",
        "SplitWarning",
        "SchemaError",
        "Table",
        "Verification",
        "__version__",
        "audit",
        "compare_candidates",
        "compute_membership",
        "compute_privacy_risks",
        "compute_privacy_stats",
        "report",
        "sources",
        "verify_statement",
    }


def test_progress_is_reported_in_order_and_ends_at_one(people, tmp_path):
    seen = []
    report(
        people,
        None,
        people,
        tmp_path / "r.html",
        progress=lambda stage, fraction: seen.append((stage, fraction)),
    )
    fractions = [f for _, f in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert any("The data" in stage for stage, _ in seen)


def test_non_string_column_names_are_accepted_without_touching_the_input(tmp_path):
    frame = pd.DataFrame({0: np.arange(50.0), 1: ["a", "b"] * 25})
    results = report(frame, None, frame, tmp_path / "r.html")
    assert results.run.title == "Synthetic data report: one table of 2 columns"  # no made-up name
    assert [c.name for c in results.sections["overview"].tables[0].columns] == ["0", "1"]
    assert list(frame.columns) == [0, 1]


def test_a_lookup_table_copied_to_both_sides_of_a_split_is_flagged(chinook):
    from reportgen.preparation import prepare_context
    from reportgen.settings import ReportSettings

    train, test = chinook.split(0.5, seed=1)
    context = prepare_context(train, test, train, ReportSettings())
    flagged = {f.table for f in context.findings if f.code == "holdout_equals_training"}
    # split by Artist: the tables outside its hierarchy are copied to both sides
    assert flagged == {"Genre", "MediaType", "Playlist", "Employee", "Customer", "Invoice"}


@pytest.fixture
def sample_level_threads(monkeypatch):
    """The names of the threads the sample-level section measured its views in, on 2 cores."""
    threads = []
    measure = alpha_beta.measure

    def recorded(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return measure(*args, **kwargs)

    monkeypatch.setattr(alpha_beta, "measure", recorded)
    monkeypatch.setattr(reportgen.evaluation, "usable_cores", lambda: 2)  # as on a machine of 2 cores
    return threads


@pytest.mark.usefixtures("figures_not_drawn")  # compares numbers (tests/drawing.py)
@pytest.mark.parametrize("apart", [False, True], ids=["network-in-thread", "network-in-process"])
def test_the_sample_level_section_beside_the_others_gives_the_numbers_it_gives_in_its_turn(
    people, tmp_path, monkeypatch, sample_level_threads, apart
):
    """It runs in a background thread from the start (its networks train on one core, in a process
    of their own on large tables); where it ran must not change a number, and torch's thread count
    is the caller's again afterwards."""
    train, test, synth = split_people(people)
    threads = sample_level_threads
    children = []
    if apart:  # as on a table of 20,000 rows or more
        trained_in_child = one_class_process._trained_in_child
        monkeypatch.setattr(one_class_process, "APART_MIN_ROWS", 0)
        monkeypatch.setattr(
            one_class_process,
            "_trained_in_child",
            lambda *a: children.append(trained_in_child(*a)) or children[-1],
        )
    torch_threads = torch.get_num_threads()
    texts = {}
    for beside in (True, False):
        monkeypatch.setattr(reportgen.evaluation, "SECTIONS_BESIDE", beside)
        report(train, test, synth, tmp_path / f"{beside}.html", seed=4)
        texts[beside] = strip_time((tmp_path / f"{beside}.json").read_text())
        assert torch.get_num_threads() == torch_threads
    assert texts[True]["sections"]["alpha_beta"]["status"] == "ok"
    assert texts[True] == texts[False]
    assert len(children) == int(apart) and all(c is not None for c in children)
    assert threads[0].startswith("reportgen-beside") and threads[-1] == threading.main_thread().name


def test_inputs_read_in_place_keep_every_section_in_its_turn(people, tmp_path, sample_level_threads):
    """DuckDB's threads use every core while it counts: no section runs beside them."""
    train, _, synth = split_people(people)
    for role, frame in (("train", train), ("synth", synth)):
        (tmp_path / role / "people").mkdir(parents=True)
        frame.to_parquet(tmp_path / role / "people" / "part.parquet")
    threads = sample_level_threads
    with (
        reportgen.sources.parquet(tmp_path / "train") as t,
        reportgen.sources.parquet(tmp_path / "synth") as s,
    ):
        results = report(t, None, s, tmp_path / "r.html", seed=4)
    assert results.sections["alpha_beta"].status == "ok"
    assert threads == [threading.main_thread().name]
