"""Without a holdout, fidelity and utility are judged against training rows set aside for it."""

import json

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen.headlines import headlines
from reportgen.reference_split import MAX_SET_ASIDE, set_aside_share
from tests.test_verdict import population, run, verdicts

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)


def independent_columns(real: pd.DataFrame, n: int, seed: int) -> pd.DataFrame:
    """A generator that samples each column on its own: every marginal right, every dependence lost."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame({c: rng.choice(real[c].to_numpy(), n) for c in real.columns})


@pytest.fixture(scope="module")
def train():
    return population(1200, 1)


def test_independent_columns_are_a_fidelity_concern_without_a_holdout(train, tmp_path):
    results = run(tmp_path, train, None, independent_columns(train, 1200, 7))
    fidelity = next(v for v in results.verdicts if v.concern == "fidelity")
    assert fidelity.status in ("concern", "fail")
    assert "training rows set aside as a reference" in fidelity.why
    split = results.run.reference_split
    assert split is not None and split.share == MAX_SET_ASIDE
    assert split.kept == {"table": 600} and split.set_aside == {"table": 600}
    assert results.computed("association").reference is not None
    assert results.computed("detection").reference_score is not None
    page = (tmp_path / "r.html").read_text()
    assert "references from 600 training rows set aside" in page  # page 1 says where they come from


def test_a_fresh_sample_passes_fidelity_and_utility_without_a_holdout(train, tmp_path):
    results = run(tmp_path, train, None, population(1200, 3))
    assert verdicts(results) == {"privacy": "concern", "fidelity": "pass", "utility": "pass"}
    assert "no holdout was given" in next(v.why for v in results.verdicts if v.concern == "privacy")


def test_copies_make_utility_a_concern_without_a_holdout(train, tmp_path):
    """The models are scored on set-aside training rows, which a copying generator copied too."""
    copied = pd.concat([train.iloc[:600], population(600, 4)], ignore_index=True)
    results = run(tmp_path, train, None, copied)
    found = verdicts(results)
    assert found["utility"] == "concern" and found["privacy"] in ("concern", "fail")
    codes = {f.code for f in results.findings}
    assert {"exact_copies_above_reference", "utility_flattered_by_copies"} <= codes
    copies = next(f for f in results.findings if f.code == "exact_copies_above_reference")
    assert "set aside for the references" in copies.message


def test_a_holdout_when_given_is_used_and_no_split_is_made(train, tmp_path):
    results = run(tmp_path, train, population(600, 2), population(1200, 3))
    assert results.run.reference_split is None and results.run.has_holdout
    assert results.computed("utility").tables[0].holdout == "given"


def test_the_set_aside_share_matches_the_synthetic_size_at_most_half():
    train = rg.RelationalData({"t": population(1000, 1)})
    assert set_aside_share(train, rg.RelationalData({"t": population(200, 2)})) == pytest.approx(0.2)
    assert set_aside_share(train, rg.RelationalData({"t": population(5000, 2)})) == MAX_SET_ASIDE


def test_entities_travel_whole_into_one_part(tmp_path):
    """A relational split keeps each parent's children with it, and the split is in the JSON."""
    rng = np.random.default_rng(0)
    parents = pd.DataFrame({"pid": np.arange(300), "size": rng.choice(["s", "m", "l"], 300)})
    children = pd.DataFrame(
        {
            "cid": np.arange(900),
            "pid": rng.integers(0, 300, 900),
            "amount": rng.gamma(2.0, 10.0, 900).round(2),
        }
    )
    schema = rg.Schema(
        parents=rg.Table(pid=rg.PrimaryKey()),
        children=rg.Table(cid=rg.PrimaryKey(), pid=rg.ForeignKey(parent="parents")),
    )
    real = rg.RelationalData({"parents": parents, "children": children}, schema)
    results = rg.report(real, None, real, tmp_path / "r.html", seed=0)
    split = results.run.reference_split
    assert split is not None and split.root == "parents"
    assert split.kept["parents"] + split.set_aside["parents"] == 300
    assert split.kept["children"] + split.set_aside["children"] == 900
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["run"]["reference_split"]["set_aside"] == split.set_aside


def test_an_independent_target_is_never_credited_with_predictive_power(tmp_path):
    """Each column sampled on its own: the synthetic target depends on nothing, whatever TSTR says."""
    train, test = population(1200, 1), population(600, 2)
    results = run(tmp_path, train, test, independent_columns(train, 1200, 7))
    codes = {f.code for f in results.findings}
    assert codes & {"tstr_at_chance", "synthetic_target_unlearnable"}
    assert verdicts(results)["utility"] == "concern"
    relative = headlines(results).get("utility")
    assert relative is None or relative.caveat is not None
