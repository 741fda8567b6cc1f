"""The release bars as JUnit XML: what a CI system's test-results page reads."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from junitparser import Error, Failure, JUnitXml, Skipped

import reportgen as rg
from reportgen.cli import EXIT_BAR_FAILED, main
from reportgen.junit import SUITE, write_junit

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)


@pytest.fixture
def three(people):
    """Training, holdout and synthetic thirds of one generated table (an honest generator)."""
    people = people.drop(columns="note")
    return people.iloc[:100], people.iloc[100:200], people.iloc[200:].reset_index(drop=True)


def _cases(path):
    suites = list(JUnitXml.fromfile(str(path)))
    assert [s.name for s in suites] == [SUITE]
    return {case.name.split(" ")[0]: case for case in suites[0]}


def test_a_failing_bar_is_one_failure_naming_the_bar_and_an_unevaluated_bar_an_error(tmp_path, three):
    bars = {"similarity": 99.9, "utility": 10}  # similarity cannot reach 99.9; no target: no utility
    results = rg.report(*three, tmp_path / "r.html", fail_under=bars, junit=tmp_path / "bars.xml")

    cases = _cases(tmp_path / "bars.xml")
    assert set(cases) == {g.name for g in results.gates.gates}
    (failure,) = [r for r in cases["similarity"].result if isinstance(r, Failure)]
    value = results.headlines["similarity"].value
    assert "similarity" in failure.message and "below the bar of 99.9" in failure.message
    assert f"{value:.1f}" in failure.message
    assert any(isinstance(r, Error) and "utility" in r.message for r in cases["utility"].result)
    passed = [name for name, case in cases.items() if not case.result]
    assert passed == [g.name for g in results.gates.gates if g.status == "pass"]
    suite = ET.parse(tmp_path / "bars.xml").getroot().find("testsuite")
    failed = [g for g in results.gates.gates if g.status == "fail"]
    assert (suite.get("failures"), suite.get("errors")) == (str(len(failed)), "1")
    properties = {p.get("name"): p.get("value") for p in suite.iter("property")}
    assert properties["report"].endswith("r.html") and properties["results"].endswith("r.json")

    accepted = results.model_copy(deep=True)
    accepted.gates.allow_not_evaluated = True
    write_junit(accepted, tmp_path / "accepted.xml")
    assert any(isinstance(r, Skipped) for r in _cases(tmp_path / "accepted.xml")["utility"].result)


def test_the_command_line_writes_the_junit_file_and_fails_the_job(tmp_path, three, capsys):
    for name, frame in zip(("train", "test", "synth"), three, strict=True):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    code = main(
        [
            "report", "-q", "--out", str(tmp_path / "r.html"), "--junit", str(tmp_path / "ci" / "bars.xml"),
            *("--train", str(tmp_path / "train.csv"), "--test", str(tmp_path / "test.csv")),
            *("--synth", str(tmp_path / "synth.csv"), "--fail-under", "similarity=99.9"),
        ]
    )  # fmt: skip
    assert code == EXIT_BAR_FAILED
    failures = [
        r for r in _cases(tmp_path / "ci" / "bars.xml")["similarity"].result if isinstance(r, Failure)
    ]
    assert len(failures) == 1


def test_a_junit_path_that_cannot_be_written_is_refused_before_any_work(tmp_path, three):
    (tmp_path / "taken").write_text("a file, not a folder")
    with pytest.raises(rg.ReportgenError, match="taken"):
        rg.report(*three, tmp_path / "r.html", junit=tmp_path / "taken" / "bars.xml")
    assert not (tmp_path / "r.html").exists()


def test_the_example_workflow_runs_a_report_the_command_line_accepts():
    """examples/github_actions_release.yml calls `reportgen report` with options that exist."""
    import shlex
    from pathlib import Path

    import yaml

    from reportgen.cli import _parser

    workflow = yaml.safe_load(
        (Path(__file__).parents[1] / "examples" / "github_actions_release.yml").read_text()
    )
    runs = [
        step["run"]
        for step in workflow["jobs"]["report"]["steps"]
        if "reportgen report" in step.get("run", "")
    ]
    (command,) = runs
    words = shlex.split(command.replace("\\\n", " "))
    args = _parser().parse_args(words[1:])
    assert args.junit == "release/bars.xml" and "privacy=80" in args.fail_under
