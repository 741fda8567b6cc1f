"""The release bars as a JUnit XML file, which CI systems (GitHub Actions, GitLab, Jenkins) show as tests.

Each bar in force is one test case of the suite "reportgen release bars", named after the bar: it
passes when the number meets its bar, fails with the number and the bar when it does not, and when
the number could not be computed it is an error that names the reason (it fails the release), or
skipped with the reason where ``allow_not_evaluated`` accepts that. The suite's properties say which
report, results JSON and seed the bars come from.
"""

from __future__ import annotations

from pathlib import Path

from junitparser import Error, Failure, JUnitXml, Skipped, TestCase, TestSuite

from reportgen.errors import RenderError
from reportgen.files import write_atomic
from reportgen.gates import gate_message
from reportgen.render.formatting import fmt_bar, fmt_unit
from reportgen.results import GateResult, ReportResults

SUITE = "reportgen release bars"


def write_junit(results: ReportResults, path: Path, *, report: Path | None = None) -> None:
    """Write the bars of ``results`` to ``path`` as JUnit XML, atomically (``report``: its file)."""
    suite = TestSuite(SUITE)
    for name, value in _properties(results, report).items():
        suite.add_property(name, value)
    for gate in results.gates.gates:
        suite.add_testcase(_case(gate, results.gates.allow_not_evaluated))
    suite.update_statistics()
    document = JUnitXml()
    document.add_testsuite(suite)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise RenderError(f"Cannot create the folder of the JUnit file {str(path)!r}: {error}") from None
    write_atomic(path, lambda tmp: document.write(str(tmp), pretty=True))


def _properties(results: ReportResults, report: Path | None) -> dict[str, str]:
    found = {"title": results.run.title, "seed": str(results.run.seed)}
    if report is not None:
        found |= {"report": str(report), "results": str(report.with_suffix(".json"))}
    return found


def _case(gate: GateResult, allow_not_evaluated: bool) -> TestCase:
    """One bar as a test case: passed, failed, an error (not evaluated) or skipped (accepted)."""
    case = TestCase(f"{gate.name} ({gate.label})", classname="reportgen.bars", time=0)
    kind = "at least" if gate.higher_is_better else "at most"
    if gate.status == "fail":
        case.result = [Failure(gate_message(gate), type_="release_bar_failed")]
    elif gate.status == "not_evaluated" and allow_not_evaluated:
        case.result = [Skipped(f"not evaluated, accepted by allow_not_evaluated: {gate.reason}")]
    elif gate.status == "not_evaluated":
        case.result = [Error(gate_message(gate), type_="release_bar_not_evaluated")]
    else:
        value, bar = fmt_unit(gate.value, gate.unit), fmt_bar(gate.bar, gate.unit)
        case.system_out = f"{gate.name} is {value}; the bar is {kind} {bar}"
    return case
