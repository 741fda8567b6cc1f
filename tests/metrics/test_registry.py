"""The plugin protocol: a section from another package runs and renders like a built-in one."""

import sys
from pathlib import Path

import pytest

from reportgen import report
from reportgen.metrics import registry
from reportgen.metrics.registry import MetricNotComputed, Section
from reportgen.results import ReportResults, SectionResult

from ..conftest import fresh_python

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)


class RowRatio(SectionResult):
    ratio: float


def compute_ratio(ctx):
    name = ctx.table_names[0]
    return RowRatio(section="row_ratio", ratio=len(ctx.synth[name]) / len(ctx.train[name]))


def refuse(ctx):
    raise MetricNotComputed("needs a target column")


INSTALLED = """
from reportgen.metrics.registry import Section
from reportgen.results import SectionResult


class RowRatio(SectionResult):
    ratio: float


ROW_RATIO = Section("row_ratio", "Row ratio", 50, RowRatio, None, "row_ratio.html.j2", template_package="rg_plugin")
"""

READ_BACK = """
import reportgen as rg
results = rg.ReportResults.load("r.json")
print(type(results.sections["row_ratio"]).__name__, results.sections["row_ratio"].ratio)
print(results.sections["overview"].tables[0].rows_synth)
"""


def install(folder: Path) -> None:
    """The plugin installed in ``folder``: its module, and its section in the entry-point group."""
    (folder / "rg_plugin" / "section.py").write_text(INSTALLED)
    info = folder / "rg_plugin-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rg-plugin\nVersion: 0.1\n")
    group = registry.ENTRY_POINT_GROUP
    (info / "entry_points.txt").write_text(f"[{group}]\nrow_ratio = rg_plugin.section:ROW_RATIO\n")


class FakeEntryPoint:
    def __init__(self, name, obj):
        self.name, self.obj = name, obj

    def load(self):
        return self.obj


@pytest.fixture
def plugin_package(tmp_path, monkeypatch):
    pkg = tmp_path / "rg_plugin"
    (pkg / "templates").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "templates" / "row_ratio.html.j2").write_text(
        '<section id="row-ratio"><h2>{{ title }}</h2><p>Ratio {{ result.ratio | num }}</p></section>'
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    sections = [
        Section(
            "row_ratio",
            "Row ratio",
            50,
            RowRatio,
            compute_ratio,
            "row_ratio.html.j2",
            template_package="rg_plugin",
        ),
        lambda: Section(
            "refuser",
            "Refuser",
            60,
            SectionResult,
            refuse,
            "row_ratio.html.j2",
            template_package="rg_plugin",
        ),
    ]
    monkeypatch.setattr(
        registry,
        "entry_points",
        lambda group: [FakeEntryPoint(f"p{i}", s) for i, s in enumerate(sections)],
    )
    monkeypatch.setattr(registry, "_plugins", None)
    yield
    sys.modules.pop("rg_plugin", None)
    registry._plugins = None


def test_entry_point_section_is_computed_rendered_and_round_trips(plugin_package, people, tmp_path):
    results = report(people, None, people.iloc[:150], tmp_path / "r.html")
    assert results.sections["row_ratio"].ratio == 0.5
    assert "Ratio 0.50" in (tmp_path / "r.html").read_text()
    again = ReportResults.load(tmp_path / "r.json")
    assert isinstance(again.sections["row_ratio"], RowRatio)
    install(tmp_path)  # a new process finds the plugin as installed, through its entry point
    read = fresh_python(READ_BACK, tmp_path, tmp_path)
    assert read.returncode == 0, read.stderr
    assert read.stdout.split() == ["RowRatio", "0.5", "150"]


def test_a_section_that_cannot_run_is_marked_and_the_report_goes_on(plugin_package, people, tmp_path):
    results = report(people, None, people, tmp_path / "r.html")
    refused = results.sections["refuser"]
    assert (refused.status, refused.reason) == ("not_computed", "needs a target column")
    assert results.sections["overview"].status == "ok"
    assert ReportResults.load(tmp_path / "r.json") == results
    assert "This section was not computed: needs a target column" in (tmp_path / "r.html").read_text()


def test_a_section_beside_the_others_reports_why_it_cannot_run_or_stops_the_report_with_its_error(
    people, tmp_path, monkeypatch
):
    """A section computed in the background thread: a MetricNotComputed marks it as usual; any
    other error reaches the caller as itself, and no output is written."""
    import reportgen.evaluation

    def crash(ctx):
        raise RuntimeError("plugin bug")

    def beside(name, compute, order):
        return Section(name, name.title(), order, SectionResult, compute, "x.html.j2", beside=True)

    monkeypatch.setattr(reportgen.evaluation, "usable_cores", lambda: 2)
    for plugins, error in (
        ([beside("refuser", refuse, 60)], None),
        ([beside("crasher", crash, 61)], "plugin bug"),
    ):
        monkeypatch.setattr(
            registry, "entry_points", lambda group, p=plugins: [FakeEntryPoint("p", s) for s in p]
        )
        monkeypatch.setattr(registry, "_plugins", None)
        if error:
            with pytest.raises(RuntimeError, match=error):
                report(people, None, people, tmp_path / "crash.html")
            assert not (tmp_path / "crash.html").exists()
        else:
            results = report(people, None, people, tmp_path / "r.html")
            assert (results.sections["refuser"].status, results.sections["refuser"].reason) == (
                "not_computed",
                "needs a target column",
            )
    registry._plugins = None


def test_an_error_in_turn_stops_the_report_without_waiting_for_the_section_beside(
    people, tmp_path, monkeypatch
):
    """The section beside the others is still computing when another one fails: the error reaches
    the caller at once (the background thread does not hold the report, nor the process's exit)."""
    import threading

    import reportgen.evaluation

    begun, release, finished = threading.Event(), threading.Event(), threading.Event()
    daemon = []

    def slow(ctx):
        daemon.append(threading.current_thread().daemon)  # Python's exit does not wait for it
        begun.set()
        release.wait(timeout=60)
        finished.set()
        raise MetricNotComputed("released")

    def crash(ctx):
        begun.wait(timeout=60)
        raise RuntimeError("plugin bug")

    plugins = [
        Section("slow", "Slow", 5, SectionResult, slow, "x.html.j2", beside=True),
        Section("crasher", "Crasher", 1, SectionResult, crash, "x.html.j2"),
    ]
    monkeypatch.setattr(reportgen.evaluation, "usable_cores", lambda: 2)
    monkeypatch.setattr(registry, "entry_points", lambda group: [FakeEntryPoint("p", s) for s in plugins])
    monkeypatch.setattr(registry, "_plugins", None)
    try:
        with pytest.raises(RuntimeError, match="plugin bug"):
            report(people, None, people, tmp_path / "r.html")
        assert not finished.is_set() and daemon == [True]
    finally:
        release.set()
        registry._plugins = None
