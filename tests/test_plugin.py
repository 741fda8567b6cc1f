"""A plugin section has a built-in's full powers: a page, a page-1 headline, a bar, a verdict input, methodology.

The plugin (``tests/plugins/example_plugin``) is found through its ``reportgen.metrics`` entry point,
as an installed package would be, and touches no reportgen file.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen import report
from reportgen.metrics import registry
from reportgen.verdict import verdicts

from .conftest import fresh_env

PLUGINS = Path(__file__).parent / "plugins"
ARGS = ["--train", "train.csv", "--test", "test.csv", "--synth", "synth.csv", "--out", "r.html"]


def _tables(n: int = 300, seed: int = 3) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Training and holdout rows that miss 30% of ``note``; synthetic rows that miss none."""
    rng = np.random.default_rng(seed)

    def real(size: int) -> pd.DataFrame:
        frame = pd.DataFrame(
            {
                "age": rng.normal(40, 12, size).round(1),
                "city": rng.choice(["Rome", "Oslo", "Lima"], size),
                "note": rng.choice(["a", "b", "c", "d"], size).astype(object),
            }
        )
        frame.loc[rng.random(size) < 0.3, "note"] = None
        return frame

    train, holdout, synth = real(n), real(n), real(n)
    synth["note"] = synth["note"].fillna("a")
    return train, holdout, synth


@contextmanager
def plugin_installed() -> Iterator[None]:
    """The example plugin on the path, so its entry point is found; the registry reads plugins afresh."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(PLUGINS))
        patch.setattr(registry, "_plugins", None)
        try:
            yield
        finally:
            sys.modules.pop("example_plugin", None)
            registry._plugins = None


@pytest.fixture(scope="module")
def plugin_report(tmp_path_factory):
    """A report with the example plugin installed and a bar on its number."""
    folder = tmp_path_factory.mktemp("plugin")
    train, holdout, synth = _tables()
    with plugin_installed():
        results = report(train, holdout, synth, folder / "r.html", fail_under={"my_score": 95})
    return results, folder


def test_a_plugin_puts_a_headline_a_bar_a_verdict_and_methodology_on_the_report(plugin_report):
    results, tmp_path = plugin_report

    headline = results.headlines["my_score"]
    assert headline.reference is not None and headline.reference > 95  # two real samples miss alike
    assert headline.value == pytest.approx(100 * (1 - 0.3 / 3), abs=2.5)  # one column of three loses 30%
    assert (headline.bar, headline.bar_status) == (95, "fail")
    gate = next(g for g in results.gates.gates if g.name == "my_score")
    assert gate.status == "fail" and gate.label == "Missing-value fidelity"
    fidelity = next(v for v in results.verdicts if v.concern == "fidelity")
    assert fidelity.status == "fail" and "Missing-value fidelity" in fidelity.why

    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["headlines"]["my_score"]["value"] == headline.value
    assert saved["headlines"]["my_score"]["bar_status"] == "fail"
    page = (tmp_path / "r.html").read_text()
    summary = page[page.index('id="summary"') : page.index("</section>", page.index('id="summary"'))]
    assert "Missing-value fidelity" in summary  # on page 1, with its bar
    assert "Fidelity: missing values" in page  # its own page
    # its methodology, numbered after every built-in part (as a built-in section of order 70 would be)
    numbered = re.findall(r"<h3>A\.(\d+) ([^<]*)</h3>", page)
    assert (
        numbered[-1] == (str(len(numbered)), "Fidelity: missing values")
        and "share missing in training" in page
    )
    assert [int(n) for n, _ in numbered] == list(range(1, len(numbered) + 1))


def test_a_plugin_finding_feeds_its_concern(plugin_report):
    """Without the failed bar, the plugin's finding alone makes fidelity a concern."""
    results, _ = plugin_report
    assert any(f.code == "missing_values_dropped" and f.column == "note" for f in results.findings)
    results = results.model_copy(deep=True)
    results.gates.gates = [g for g in results.gates.gates if g.name != "my_score"]
    with plugin_installed():
        fidelity = next(v for v in verdicts(results) if v.concern == "fidelity")
    assert fidelity.status == "concern" and "no missing values" in fidelity.why


def _report_on_the_command_line(tmp_path: Path, *options: str) -> subprocess.CompletedProcess:
    """``reportgen report`` on CSV files of the tables, with the plugin installed."""
    train, holdout, synth = _tables(n=200)
    for name, frame in (("train", train), ("test", holdout), ("synth", synth)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
    return subprocess.run(
        [sys.executable, "-m", "reportgen.cli", "report", *ARGS, *options, "-q"],
        cwd=tmp_path,
        env=fresh_env(PLUGINS),
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_command_line_takes_a_plugin_bar(tmp_path):
    run = _report_on_the_command_line(tmp_path, "--fail-under", "my_score=99.5")
    assert run.returncode == 3, run.stderr
    assert "Missing-value fidelity" in run.stdout + run.stderr
    helped = subprocess.run(
        [sys.executable, "-m", "reportgen.cli", "report", "--help"],
        env=fresh_env(PLUGINS),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "my_score" in helped.stdout
    assert "--missing-alarm-share SHARE" in helped.stdout  # the plugin's setting, from its declaration


def test_a_plugin_setting_is_a_keyword_of_report_recorded_in_the_json(tmp_path):
    """The plugin's declared setting reaches its compute step, the JSON's settings and the methodology."""
    train, holdout, synth = _tables(n=200)
    with plugin_installed():
        results = report(train, holdout, synth, tmp_path / "r.html", missing_alarm_share=0.5)
        with pytest.raises(rg.InvalidParameterError, match="'missing_alarm_share' parameter of report"):
            report(train, holdout, synth, tmp_path / "bad.html", missing_alarm_share=2.0)
    assert not any(f.code == "missing_values_dropped" for f in results.findings)  # 30% missing < 50%
    assert json.loads((tmp_path / "r.json").read_text())["run"]["settings"]["missing_alarm_share"] == 0.5
    assert "A column missing at least 50% of its training values" in (tmp_path / "r.html").read_text()
    assert not (tmp_path / "bad.html").exists()


def test_the_command_line_takes_a_plugin_setting(tmp_path):
    run = _report_on_the_command_line(tmp_path, "--missing-alarm-share", "0.5")
    assert run.returncode == 0, run.stderr
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["run"]["settings"]["missing_alarm_share"] == 0.5
    assert not any(f["code"] == "missing_values_dropped" for f in saved["findings"])
