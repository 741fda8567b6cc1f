"""Choosing among candidates: ``compare_candidates`` and ``reportgen compare``.

One comparison of two generated candidates (an independent sample and a verbatim copy of the
training rows) against the same real data is computed once for the module, beside each
candidate's own ``report()`` with the same seed and settings.
"""

from __future__ import annotations

import json
import re
from html import unescape
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen.choice import Candidate, CandidateComparison, ranked
from reportgen.cli import main
from reportgen.errors import InvalidParameterError
from reportgen.real_side import RealSide, digest
from reportgen.results import CONCERNS, ConcernVerdict, GatesResult
from reportgen.settings import MIN_RISK_ATTACKS

from .drawing import drawing_skipped

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)

FAST = {
    "n_max_phik": 100,
    "n_max_utility": 100,
    "n_max_detection": 100,
    "risk_attacks": MIN_RISK_ATTACKS,
    "targets": {"table": "rich"},
    "seed": 4,
}
FRESH, COPY = "R&D <fresh>", "copy"  # a name the page must escape


def draw(n: int, seed: int) -> pd.DataFrame:
    """One table of a known process: age, city, income growing with age, and whether it is high."""
    rng = np.random.default_rng(seed)
    age = rng.normal(40, 12, n).round(1)
    income = np.exp(10 + 0.02 * age + rng.normal(0, 0.5, n))
    return pd.DataFrame(
        {
            "age": age,
            "city": rng.choice(["Rome", "Oslo", "Lima", "Pune"], n),
            "income": income,
            "rich": np.where(income > np.median(income), "yes", "no"),
        }
    )


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> tuple[CandidateComparison, dict[str, dict], Path]:
    """The comparison of a fresh sample and a copy, and each one's own report's JSON."""
    folder = tmp_path_factory.mktemp("candidates")
    train, test = draw(300, 1), draw(300, 2)
    candidates = {FRESH: draw(300, 3), COPY: train.sample(frac=1.0, random_state=0).reset_index(drop=True)}
    with drawing_skipped():
        comparison = rg.compare_candidates(train, test, candidates, folder / "compare.html", **FAST)
        alone = {
            name: json.loads(rg.report(train, test, synth, folder / f"{i}.html", **FAST).to_json())
            for i, (name, synth) in enumerate(candidates.items())
        }
    return comparison, alone, folder


def test_each_candidate_gets_exactly_its_own_reports_numbers(judged):
    comparison, alone, _ = judged
    assert comparison.reused > 0  # the real side was computed once
    for name, own in alone.items():
        inside = json.loads(comparison.candidate(name).results.to_json())
        for results in (inside, own):
            results["run"].pop("created_at")
        assert inside == own, name


def test_a_copy_of_the_training_data_is_never_recommended(judged):
    comparison, _, _ = judged
    copy = comparison.candidate(COPY)
    assert copy.rank is None and copy.excluded is not None and "Privacy score" in copy.excluded
    assert comparison.recommended != COPY


def test_the_rule_recommends_the_candidate_that_passes_over_a_better_looking_copy(judged):
    comparison, _, _ = judged
    copy, fresh = comparison.candidate(COPY).results, comparison.candidate(FRESH).results
    assert copy.headlines["similarity"].value > fresh.headlines["similarity"].value  # the copy looks better
    passing = fresh.model_copy(
        update={
            "verdicts": [ConcernVerdict(concern=c, status="pass", why="") for c in CONCERNS],
            "gates": GatesResult(gates=[g.model_copy(update={"status": "pass"}) for g in fresh.gates.gates]),
        }
    )
    candidates = [Candidate(name="copy", results=copy), Candidate(name="fresh", results=passing)]
    recommended, why = ranked(candidates)
    assert recommended == "fresh" and why.startswith("fresh is the only candidate")
    assert [c.rank for c in candidates] == [None, 1]


def test_the_comparison_is_written_with_its_json_and_names_escaped(judged):
    comparison, _, folder = judged
    html = (folder / "compare.html").read_text()
    assert "R&amp;D &lt;fresh&gt;" in html and "<fresh>" not in html
    text = unescape(html.replace("<wbr>", ""))
    assert comparison.rule in text and comparison.why.replace("<fresh>", "") in text.replace("<fresh>", "")
    assert CandidateComparison.load(folder / "compare.json") == comparison


def test_no_candidate_is_recommended_when_none_passes(judged):
    comparison, _, _ = judged
    copy = comparison.candidate(COPY)
    copies = [Candidate(name=n, results=copy.results) for n in ("a", "b")]
    recommended, why = ranked(copies)
    assert recommended is None and why.startswith("No candidate can be recommended: a: fails")
    assert all(c.rank is None for c in copies)


def test_the_real_side_reuses_a_result_only_for_identical_inputs():
    side, calls = RealSide(), []
    frame = pd.DataFrame({"x": [1.0, 2.0]})

    def compute() -> int:
        calls.append(1)
        return len(calls)

    assert side.result("p", [frame, 3], compute) == 1
    assert side.result("p", [frame.copy(), 3], compute) == 1  # equal content: reused
    assert side.result("p", [frame.astype("float32"), 3], compute) == 2  # another dtype
    assert side.result("p", [frame, 4], compute) == 3
    assert side.result("q", [frame, 3], compute) == 4
    assert side.reused == 1
    assert digest([np.array(["a", None], dtype=object)]) != digest([np.array(["a", "b"], dtype=object)])


@pytest.mark.parametrize(
    ("specs", "message"),
    [
        (["=x.csv"], r"--synth '=x.csv': expected NAME=PATH"),
        (["a="], r"--synth 'a=': expected NAME=PATH"),
        (["a=x.csv", "a=y.csv"], r"--synth 'a=y.csv': a candidate named 'a' was given already"),
    ],
)
def test_bad_synth_specs_are_refused_naming_the_argument(specs, message, tmp_path, capsys):
    argv = ["compare", "--train", "t.csv", "--out", str(tmp_path / "c.html")]
    assert main([*argv, *(a for s in specs for a in ("--synth", s))]) == 2
    err = capsys.readouterr().err
    assert err.startswith("reportgen: error:") and re.search(message, err), err


def test_candidate_names_must_name_files(tmp_path):
    with pytest.raises(InvalidParameterError, match=r"Candidate name 'a/b'"):
        rg.compare_candidates(draw(20, 1), None, {"a/b": draw(20, 2)}, tmp_path / "c.html", reports=tmp_path)
    with pytest.raises(InvalidParameterError, match="at least one candidate"):
        rg.compare_candidates(draw(20, 1), None, {}, tmp_path / "c.html")
