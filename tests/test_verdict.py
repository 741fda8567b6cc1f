"""Page 1's verdicts are earned: bars fail closed, and each concern reacts to its own planted defect."""

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen.cli import main

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)


def population(n: int, seed: int) -> pd.DataFrame:
    """A table with strong dependence: y follows x, the label follows both."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = 2 * x + rng.normal(0, 0.5, n)
    label = np.where(x + 0.5 * y + rng.normal(0, 0.5, n) > 0, "yes", "no")
    return pd.DataFrame(
        {"x": x.round(3), "y": y.round(3), "group": rng.choice(["a", "b", "c"], n), "label": label}
    )


@pytest.fixture(scope="module")
def real():
    return population(800, 1), population(800, 2)


def verdicts(results) -> dict[str, str]:
    return {v.concern: v.status for v in results.verdicts}


def run(tmp_path, train, test, synth, **kwargs):
    return rg.report(train, test, synth, tmp_path / "r.html", targets={"table": "label"}, seed=0, **kwargs)


def test_a_fresh_sample_passes_every_concern(real, tmp_path):
    train, test = real
    results = run(tmp_path, train, test, population(800, 3))
    assert verdicts(results) == {"privacy": "pass", "fidelity": "pass", "utility": "pass"}
    assert results.gates.passed


def test_copied_rows_fail_privacy_only(real, tmp_path):
    train, test = real
    copied = pd.concat([train.iloc[:400], population(400, 4)], ignore_index=True)
    results = run(tmp_path, train, test, copied)
    found = verdicts(results)
    assert found["privacy"] == "fail" and found["utility"] == "pass"
    assert {"exact_copies_above_reference", "detection_repeats_training"} <= {
        f.code for f in results.findings
    }


def test_an_inverted_label_is_a_utility_concern_with_an_alarm(real, tmp_path):
    train, test = real
    synth = population(800, 5)
    synth["label"] = synth["label"].map({"yes": "no", "no": "yes"})
    results = run(tmp_path, train, test, synth)
    assert verdicts(results)["utility"] == "concern"
    assert [f.code for f in results.findings if f.table == "table" and f.code == "tstr_at_chance"] == [
        "tstr_at_chance"
    ]
    assert results.findings[0].severity in ("error", "warning")  # alarms come first


def test_a_utility_bar_without_a_target_fails_closed_unless_allowed(real, tmp_path):
    train, test = real
    synth = population(800, 3)
    closed = rg.report(train, test, synth, tmp_path / "a.html", fail_under={"utility": 50}, seed=0)
    gate = next(g for g in closed.gates.gates if g.name == "utility")
    assert gate.status == "not_evaluated" and not closed.gates.passed
    assert "utility section" in gate.reason
    assert verdicts(closed)["utility"] == "fail"
    allowed = rg.report(
        train, test, synth, tmp_path / "b.html", fail_under={"utility": 50}, allow_not_evaluated=True, seed=0
    )
    assert allowed.gates.passed and verdicts(allowed)["utility"] == "not_evaluated"


def test_a_copy_of_a_60_row_table_is_caught_and_its_privacy_bar_fails_closed(tmp_path, capsys):
    train = population(60, 7)
    path = tmp_path / "train.csv"
    train.to_csv(path, index=False)
    code = main(
        ["report", "--train", str(path), "--synth", str(path), "--out", str(tmp_path / "r.html"), "--quiet"]
    )
    err = capsys.readouterr().err
    assert code == 3
    assert "release bar not evaluated: privacy" in err and "too few rows for the proximity ratios" in err
    results = rg.ReportResults.load(tmp_path / "r.json")
    assert results.sections["privacy"].exact_copies == 1.0
    assert {"exact_copies_above_reference", "detection_repeats_training"} <= {
        f.code for f in results.findings
    }
    assert verdicts(results)["privacy"] == "fail"
    html = (tmp_path / "r.html").read_text()
    assert "could not be evaluated" in html and "The synthetic data does not pass" in html


def test_an_exact_copies_bar_is_a_lower_is_better_share(real, tmp_path):
    train, test = real
    copied = pd.concat([train.iloc[:40], population(760, 8)], ignore_index=True)
    results = run(tmp_path, train, test, copied, fail_under={"exact_copies": 0.01})
    gate = next(g for g in results.gates.gates if g.name == "exact_copies")
    assert (gate.status, gate.higher_is_better, round(gate.value, 3)) == ("fail", False, 0.05)


def test_references_drawn_on_a_table_copied_to_both_sides_are_withheld_with_the_reason(tmp_path):
    from reportgen.headlines import headlines

    rng = np.random.default_rng(0)
    countries = pd.DataFrame(
        {
            "country_id": np.arange(30),
            "region": rng.choice(["north", "south"], 30),
            "gdp": rng.gamma(2, 9, 30),
        }
    )
    customers = population(600, 4).assign(customer_id=np.arange(600), country_id=rng.integers(0, 30, 600))
    schema = rg.Schema(
        countries=rg.Table(country_id=rg.PrimaryKey()),
        customers=rg.Table(customer_id=rg.PrimaryKey(), country_id=rg.ForeignKey(parent="countries")),
    )
    real = rg.RelationalData({"countries": countries, "customers": customers}, schema)
    train, test = real.split(0.7, seed=0, root="customers")
    synth = {
        "countries": countries,
        "customers": customers.sample(frac=1, random_state=1)[: len(train["customers"])],
    }
    results = rg.report(train, test, synth, tmp_path / "r.html", seed=0, risk_attacks=200)

    shown = headlines(results)
    assert shown["similarity"].reference is None
    assert "countries" in shown["similarity"].reference_withheld
    # the membership attacks' reference is chance, not the holdout: it stays
    assert shown["mia_auc"].reference is not None and shown["mia_auc"].reference_withheld is None
    assert "Reference withheld: the holdout of countries" in (tmp_path / "r.html").read_text()
    # no row of a shared table is a non-member: the attacks leave it out, saying why
    for section in ("membership", "privacy_risks"):
        assert "holdout rows are its training rows" in results.sections[section].skipped["countries"]


def test_privacy_on_distances_alone_is_a_concern_that_says_how_to_keep_a_holdout(real, tmp_path):
    train, _ = real
    results = run(tmp_path, train, None, population(800, 3))
    privacy = next(v for v in results.verdicts if v.concern == "privacy")
    assert privacy.status == "concern" and results.gates.passed
    assert "distances alone" in privacy.why and "no holdout was given" in privacy.why
    assert "RelationalData.split" in privacy.why  # what to do, with its capitals kept


def test_a_privacy_pass_names_the_attack_evidence(real, tmp_path):
    train, test = real
    results = run(tmp_path, train, test, population(800, 3))
    privacy = next(v for v in results.verdicts if v.concern == "privacy")
    assert (
        privacy.status == "pass" and "strongest membership attack does no better than chance" in privacy.why
    )


def test_an_attack_number_without_a_reference_is_ranked_from_zero():
    """A worse-than-chance attack number with no reference used to trip an assertion on page 1."""
    from reportgen.headlines import Headline
    from reportgen.rules import BeyondLevel
    from reportgen.verdict import _gap

    h = Headline(
        name="singling_out",
        label="Singling out",
        value=0.4,
        unit="number",
        higher_is_better=False,
        meaning="m",
    )
    assert BeyondLevel().worse(h)
    assert _gap(h) == pytest.approx(0.4)


def test_an_attack_risk_above_zero_is_a_privacy_concern_even_when_every_bar_passes(real, tmp_path):
    """Columns resampled from the training values on their own: no row is copied, but each unique
    training value is, and a condition on one singles its person out."""
    train, test = real
    rng = np.random.default_rng(5)
    marginals = train.apply(lambda column: rng.choice(column.to_numpy(), len(column)))
    results = run(tmp_path, train, test, marginals, risk_attacks=300)
    privacy = next(v for v in results.verdicts if v.concern == "privacy")
    assert results.gates.passed and privacy.status == "concern"
    assert privacy.why.startswith("Singling-out risk is") and "95% interval" in privacy.why
    assert "above the 0 of a release that reveals nothing" in privacy.why
