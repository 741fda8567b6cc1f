"""Singling out, linkability and inference on generated data: no leak, copies, settings, the document."""

import json

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen.cli import _given_settings, _parser
from reportgen.metrics.privacy_risks import PrivacyRisksResult, ViewRisks, compute_privacy_risks_section
from reportgen.metrics.registry import MetricNotComputed
from reportgen.preparation import prepare_context
from reportgen.privacy.risks import excess_risk, risk_interval
from reportgen.settings import ReportSettings

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)

N_ATTACKS = 500
RARE_CITY = "Zanzibar-Qx7"
RARE_INCOME = 987654.321


def population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """People with dependent numeric and categorical columns."""
    age = rng.integers(18, 90, n)
    income = np.round(rng.lognormal(9 + 0.02 * age, 0.6), 2)
    city = rng.choice(["Rome", "Oslo", "Lima", "Pune", "Kyiv", "Baku"], n, p=[0.3, 0.25, 0.2, 0.1, 0.1, 0.05])
    rich = income > np.median(income)
    job = np.where(rich, rng.choice(["law", "med", "eng"], n), rng.choice(["shop", "farm", "care"], n))
    return pd.DataFrame(
        {"age": age, "income": income, "city": city, "sex": rng.choice(["F", "M"], n), "job": job}
    )


def attacks(view: ViewRisks):
    return [*view.singling_out, view.linkability, *view.inference]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    train, test, fresh = population(1500, rng), population(1500, rng), population(1500, rng)
    train.loc[7, ["city", "income"]] = [RARE_CITY, RARE_INCOME]  # one rare real row, copied below
    copies = train.sample(frac=1.0, random_state=1).reset_index(drop=True)
    return train, test, fresh, copies


@pytest.fixture(scope="module")
def fresh_risks(data):
    train, test, fresh, _ = data
    return rg.compute_privacy_risks(train, test, fresh, n_attacks=N_ATTACKS)["table"]


@pytest.fixture(scope="module")
def copied_risks(data):
    train, test, _, copies = data
    return rg.compute_privacy_risks(train, test, copies, n_attacks=N_ATTACKS)["table"]


def test_a_fresh_sample_gives_risks_whose_intervals_contain_zero(fresh_risks):
    found = attacks(fresh_risks)
    assert [r.detail for r in found] == [
        "univariate", "multivariate", "k = 10", "age", "income", "city", "sex", "job",
    ]  # fmt: skip
    for result in found:
        assert result.risk_interval[0] == 0.0, (result.attack, result.detail, result.risk_interval)
        assert result.risk < 0.1
    assert fresh_risks.targets == N_ATTACKS and fresh_risks.population == 1500


def test_copies_of_training_rows_give_high_risks_that_beat_random_guessing(data, copied_risks):
    for result in attacks(copied_risks):
        assert result.risk_interval[0] > 0.0, (result.detail, result.risk_interval)
        assert result.members.rate > result.controls.rate
        assert result.beats_baseline
    for result in copied_risks.inference + copied_risks.singling_out:
        assert result.risk_interval[0] > 0.4 and result.risk > 0.7, (result.detail, result.risk_interval)
    # Rows equal on the attacker's columns are equally near: the copy is among them, picked at random.
    # Linkability through three categorical columns: the copy ties with the other rows of its city, sex
    # and job (about 20), 10 are kept, and the numbers find the copy itself: a member target is linked
    # with chance min(1, 10 / rows of its kind), 0.44 on average here. (Its interval, about +-0.08,
    # covers that in 60 of 60 draws of these tables; its low end clears 0.4 in only 10.)
    train = data[0]
    kind_rows = train.groupby(["city", "sex", "job"])["age"].transform("size")
    expected = float(np.mean(np.minimum(1.0, 10 / kind_rows)))
    assert copied_risks.linkability.known == [["city", "sex", "job"], ["age", "income"]]
    low, high = copied_risks.linkability.risk_interval
    assert 0.4 < copied_risks.linkability.risk < 0.6 and low <= expected <= high, (expected, low, high)


def test_estimates_keep_their_table_level_and_intervals_cover_the_whole_report(copied_risks, fresh_risks):
    """Two singling-out modes, linkability and five secrets: M = 8 risk intervals, each at 1 - 5%/8."""
    assert {r.confidence for r in copied_risks.singling_out} == {1 - 0.05 / 2}
    assert {r.confidence for r in copied_risks.inference} == {1 - 0.05 / 5}
    assert copied_risks.linkability.confidence == 0.95
    for view in (copied_risks, fresh_risks):
        assert len(view.results()) == 8
        for r in view.results():
            assert r.risk_confidence == pytest.approx(1 - 0.05 / 8)
            own = risk_interval(r.members, r.controls, r.confidence)
            assert r.risk == pytest.approx(max(0.0, excess_risk(r.members, r.controls, r.confidence)[0]))
            assert r.risk_interval == risk_interval(r.members, r.controls, 1 - 0.05 / 8)
            assert r.risk_interval[0] <= min(own[0], r.risk) and r.risk_interval[1] >= max(own[1], r.risk)


def test_the_command_line_gives_the_report_s_numbers_and_prints_no_record(
    data, copied_risks, tmp_path, capsys
):
    """The report (through the command line, its exit code 3 above a risk bar), its JSON and its page."""
    from reportgen.cli import EXIT_BAR_FAILED, main
    from reportgen.data.io import write_folder

    for role, frame in zip(("train", "test", "synth"), (data[0], data[1], data[3]), strict=True):
        write_folder(rg.RelationalData({"people": frame}), tmp_path / role)
    out = tmp_path / "r.html"
    inputs = [f"--{role}={tmp_path / role}" for role in ("train", "test", "synth")]
    bars = ["--fail-under=privacy=0", "--fail-under=singling_out=0.2", "--fail-under=linkability=0.9"]
    assert (
        main(["report", *inputs, f"--out={out}", "--quiet", "--risk-attacks=500", *bars]) == EXIT_BAR_FAILED
    )
    err = capsys.readouterr().err
    assert (
        "release bar failed: singling_out is" in err
        and "above the bar of 20.0%" in err
        and "linkab" not in err
    )
    results = rg.ReportResults.load(out.with_suffix(".json"))
    section = results.sections["privacy_risks"]
    assert isinstance(section, PrivacyRisksResult)
    assert section.tables == [copied_risks.model_copy(update={"table": "people"})]
    assert section.linkability.table == "people" and section.linkability.risk == copied_risks.linkability.risk
    gates = {g.name: g for g in results.gates.gates}
    assert gates["singling_out"].status == "fail" and not gates["singling_out"].higher_is_better
    assert gates["linkability"].status == "pass" and gates["linkability"].value < 0.9
    html = out.read_text()
    assert "Singling out" in html and "Singling-out risk is" in html and "above the bar of 20.0%" in html
    json_text = out.with_suffix(".json").read_text()
    for value in (RARE_CITY, str(RARE_INCOME), "987654", "987,654"):
        assert value not in html and value not in json_text, value
    shown = json.loads(json_text)["sections"]["privacy_risks"]["tables"][0]["singling_out"][0]
    assert set(shown) == {
        "attack", "detail", "known", "members", "controls", "baseline", "confidence", "risk", "risk_interval",
        "risk_confidence",
    }  # fmt: skip
    assert json.loads(json_text)["sections"]["privacy_risks"]["intervals"] == 8


def test_the_same_seed_gives_the_same_numbers_and_another_seed_other_targets(data, fresh_risks):
    train, test, fresh, _ = data
    again = rg.compute_privacy_risks(train, test, fresh, n_attacks=N_ATTACKS)["table"]
    assert again == fresh_risks
    other = rg.compute_privacy_risks(train, test, fresh, n_attacks=N_ATTACKS, seed=1)["table"]
    assert attacks(other) != attacks(fresh_risks)


def test_secrets_and_link_columns_set_by_the_user(data):
    train, test, fresh, _ = data
    risks = rg.compute_privacy_risks(
        train, test, fresh, n_attacks=100, secrets=["income"], link_columns=(["age"], ["job", "city"])
    )["table"]
    assert [r.detail for r in risks.inference] == ["income"]
    assert risks.inference[0].known == [["age", "city", "sex", "job"]]
    assert risks.linkability.known == [["age"], ["city", "job"]]
    with pytest.raises(
        rg.InvalidParameterError, match=r"risk_secrets .*names column\(s\) 'nope' that no table has"
    ):
        rg.report(train, test, fresh, "r.html", risk_secrets=["nope"])
    with pytest.raises(rg.InvalidParameterError, match="risk_link_columns names \\['age'\\] in both"):
        rg.report(train, test, fresh, "r.html", risk_link_columns=(["age"], ["age", "job"]))
    with pytest.raises(rg.InvalidParameterError, match="'risk_secrets' parameter of report must be"):
        rg.report(train, test, fresh, "r.html", risk_secrets="income")
    args = _parser().parse_args(
        ["report", "--train=a", "--synth=b", "--out=r.html", "--secret=job", "--secret=sex"]
    )
    assert _given_settings(args) == {"risk_secrets": ["job", "sex"]}  # the others keep their defaults


def test_without_a_holdout_the_attacks_say_why(data):
    train, _, fresh, _ = data
    with pytest.raises(
        MetricNotComputed, match="no holdout data was given. Before fitting the generator, keep"
    ):
        compute_privacy_risks_section(prepare_context(train, None, fresh, ReportSettings()))
    with pytest.raises(rg.InvalidParameterError, match="needs the holdout data"):
        rg.compute_privacy_risks(train, None, fresh)


def customers_and_orders(n: int, rng: np.random.Generator, start: int) -> dict[str, pd.DataFrame]:
    people = population(n, rng).assign(id=np.arange(start, start + n))
    count = rng.integers(1, 4, n)
    orders = pd.DataFrame(
        {
            "customer_id": np.repeat(people["id"], count),
            "amount": np.round(rng.gamma(2.0, 30.0, count.sum()), 2),
            "channel": rng.choice(["web", "shop", "phone"], count.sum()),
        }
    ).assign(id=lambda f: np.arange(start * 10, start * 10 + len(f)))
    return {"customers": people, "orders": orders}


def test_copied_customers_with_their_orders_are_caught_at_entity_level():
    rng = np.random.default_rng(2)
    schema = rg.Schema(
        customers=rg.Table(id=rg.PrimaryKey()),
        orders=rg.Table(id=rg.PrimaryKey(), customer_id=rg.ForeignKey(parent="customers")),
    )
    train = rg.RelationalData(customers_and_orders(400, rng, 0), schema)
    test = rg.RelationalData(customers_and_orders(400, rng, 1000), schema)
    risks = rg.compute_privacy_risks(train, test, train, n_attacks=200)
    assert list(risks) == ["customers", "orders", "customers (entity)"]
    entity = risks["customers (entity)"]
    assert "orders.count" in entity.columns and entity.linkability.risk_interval[0] > 0.5
    # One family over the whole report: every table and view, every attack, mode and secret.
    per_view = {name: len(view.results()) for name, view in risks.items()}
    m = sum(per_view.values())
    assert per_view["orders"] == 2 + 1 + 2 and m > per_view["customers (entity)"] + per_view["customers"]
    assert {r.risk_confidence for view in risks.values() for r in view.results()} == {1 - 0.05 / m}
