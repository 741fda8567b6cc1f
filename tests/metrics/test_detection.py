"""The detection test (METRICS.md 12) and both new fidelity headlines, on data the tests generate."""

import re
from html import unescape

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

import reportgen as rg
from reportgen.api import prepare_context
from reportgen.headlines import headlines
from reportgen.metrics.detection import (
    MIN_ROWS,
    N_FOLDS,
    compute_detection,
    delong,
    detection_score,
    fold_auc,
)
from reportgen.metrics.registry import MetricNotComputed
from reportgen.render.formatting import fmt_num
from reportgen.settings import ReportSettings

from .test_association import marginals, population

N = 1000


def detection(train, test, synth, **settings):
    return compute_detection(prepare_context(train, test, synth, ReportSettings(**settings)))


@pytest.fixture(scope="module")
def real():
    rng = np.random.default_rng(0)
    return population(N, rng), population(N, rng)


@pytest.fixture(scope="module")
def fresh(real):
    train, test = real
    return detection(train, test, population(N, np.random.default_rng(1)))


@pytest.fixture(scope="module")
def independent(real):
    train, test = real
    return detection(train, test, marginals(train, np.random.default_rng(2)))


def test_delong_matches_the_definition():
    rng = np.random.default_rng(3)
    labels = np.repeat([0, 1], [7, 5])
    scores = rng.integers(0, 4, 12).astype(float)  # many ties
    auc, variance = delong(labels, scores)
    assert auc == pytest.approx(roc_auc_score(labels, scores))
    pos, neg = scores[labels == 1], scores[labels == 0]
    psi = np.array([[1.0 if p > q else 0.5 if p == q else 0.0 for q in neg] for p in pos])
    by_hand = psi.mean(axis=1).var(ddof=1) / len(pos) + psi.mean(axis=0).var(ddof=1) / len(neg)
    assert variance == pytest.approx(by_hand)
    assert delong(labels, labels.astype(float)) == (1.0, 0.0)


def test_the_interval_is_widened_for_the_shared_training_rows():
    rng = np.random.default_rng(4)
    labels = np.tile([0, 1], 250)
    scores = rng.normal(size=500) + 0.5 * labels
    folds = np.array_split(np.arange(500), N_FOLDS)
    auc, low, high = fold_auc(labels, scores, folds)
    parts = [delong(labels[f], scores[f]) for f in folds]
    assert auc == pytest.approx(np.mean([a for a, _ in parts]))
    plain = 1.959964 * np.sqrt(sum(v for _, v in parts)) / N_FOLDS
    assert (high - low) / 2 == pytest.approx(plain * np.sqrt(N_FOLDS * (1 / N_FOLDS + 1 / (N_FOLDS - 1))))


def test_the_score():
    assert [detection_score(a) for a in (0.3, 0.5, 0.6, 0.75, 1.0)] == pytest.approx([100, 100, 80, 50, 0])


def test_a_fresh_sample_cannot_be_told_apart(fresh):
    table = fresh.tables[0]
    for test in (table.synthetic, table.holdout):
        assert test.low <= 0.5 <= test.high and test.rows == N
        assert test.high - test.low < 0.12
    assert fresh.score > 90 and fresh.reference_score > 90
    assert table.leading == []  # nothing to explain


def test_independent_marginals_are_told_apart(independent, fresh):
    table = independent.tables[0]
    assert table.synthetic.auc > 0.75 and table.synthetic.low > 0.7
    assert independent.score < 50 and independent.reference_score == fresh.reference_score
    assert table.holdout == fresh.tables[0].holdout  # the reference has a stream of its own
    leading = [c.column for c in table.leading]
    assert set(leading[:2]) <= {"x", "y", "level"} and "d" not in leading[:2]
    assert table.columns == ["x", "y", "level", "d", "e"]


def test_same_seed_same_numbers_bit_for_bit(real):
    train, test = real
    synth = marginals(train, np.random.default_rng(2))
    first = detection(train, test, synth, n_max_detection=300)
    assert detection(train, test, synth, n_max_detection=300).model_dump_json() == first.model_dump_json()
    other_seed = detection(train, test, synth, n_max_detection=300, seed=1)
    assert other_seed.tables[0].synthetic.auc != first.tables[0].synthetic.auc


def test_a_lost_link_between_tables_shows_only_in_the_entity_view():
    """Orders moved to other customers: each table alone is unchanged, the entity view is not."""
    rng = np.random.default_rng(6)
    train, synth = shop(600, rng), shop(600, rng, start=10_000)
    synth["orders"]["customer_id"] = rng.permutation(synth["orders"]["customer_id"].to_numpy())
    result = compute_detection(
        prepare_context(
            rg.RelationalData(train, SHOP), None, rg.RelationalData(synth, SHOP), ReportSettings()
        )
    )
    tables = {t.table: t for t in result.tables}
    assert list(tables) == ["customers", "orders", "customers (entity)"]
    assert tables["customers (entity)"].view == "entity" and tables["customers (entity)"].holdout is None
    for name in ("customers", "orders"):
        assert tables[name].synthetic.low <= 0.5, name
    assert tables["customers (entity)"].synthetic.low > 0.6
    assert result.weakest_table == "customers (entity)" and result.reference_score is None
    assert "orders.amount.mean" in [c.column for c in tables["customers (entity)"].leading]


def test_too_few_rows_are_not_measured():
    rng = np.random.default_rng(7)
    small = population(MIN_ROWS - 1, rng)
    with pytest.raises(MetricNotComputed, match="too few rows"):
        detection(small, None, small)


def test_report_headlines_bars_json_and_html_agree(real, tmp_path):
    """Both new headlines on page 1 and as release bars; the page shows the JSON's numbers."""
    train, test = (frame.iloc[:500] for frame in real)
    synth = marginals(train, np.random.default_rng(2))
    bars = {"privacy": 0, "association": 50, "detection": 50}
    results = rg.report(train, test, synth, tmp_path / "r.html", fail_under=bars, n_max_detection=400)
    found = headlines(results)
    association, detection_ = results.sections["association"], results.sections["detection"]
    assert found["association"].value == 100 * association.retained < 10
    assert found["association"].reference == 100 * association.reference > 90
    assert found["detection"].value == detection_.score < 50
    assert detection_.tables[0].synthetic.rows == 400
    assert {g.name: g.status for g in results.gates.gates} == {
        "privacy": "pass",
        "association": "fail",
        "detection": "fail",
    }
    assert rg.ReportResults.load(tmp_path / "r.json") == results
    text = re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", (tmp_path / "r.html").read_text())))
    for h in (found["association"], found["detection"]):
        assert f"{h.label} {fmt_num(h.value, 1)} {fmt_num(h.reference, 1)}" in text, h.label
    t = detection_.tables[0]
    row = f"{fmt_num(t.synthetic.auc, 3)} {fmt_num(t.synthetic.low, 3)}\N{EN DASH}{fmt_num(t.synthetic.high, 3)}"
    assert row in text
    # one scale per measure: the sections show page 1's 0-100 numbers
    assert f"Association retained (all tables) {fmt_num(found['association'].value, 1)}" in text
    assert f"Correlation similarity (all tables) {fmt_num(found['correlation'].value, 1)}" in text


def shop(n_customers: int, rng: np.random.Generator, start: int = 0) -> dict[str, pd.DataFrame]:
    """Customers in three segments; each order's amount depends on its customer's segment."""
    segment = rng.choice(list("ABC"), n_customers)
    customers = pd.DataFrame({"customer_id": np.arange(start, start + n_customers), "segment": segment})
    n_orders = rng.integers(2, 7, n_customers)
    base = pd.Series({"A": 10.0, "B": 20.0, "C": 40.0})[np.repeat(segment, n_orders)].to_numpy()
    orders = pd.DataFrame(
        {
            "order_id": np.arange(10 * start, 10 * start + n_orders.sum()),
            "customer_id": np.repeat(customers["customer_id"].to_numpy(), n_orders),
            "amount": base + rng.normal(0, 2, n_orders.sum()),
        }
    )
    return {"customers": customers, "orders": orders}


SHOP = rg.Schema(
    customers=rg.Table(customer_id=rg.PrimaryKey(), segment="categorical"),
    orders=rg.Table(
        order_id=rg.PrimaryKey(), customer_id=rg.ForeignKey(parent="customers"), amount="numeric"
    ),
)


def test_association_of_a_lost_link_between_tables_shows_only_in_the_entity_view():
    """The same lost link: each table keeps its associations, the entity view loses them; a fresh
    sample keeps them at its reference."""
    from reportgen.metrics.association import compute_association

    rng = np.random.default_rng(7)
    train, test = rg.RelationalData(shop(600, rng), SHOP), rg.RelationalData(shop(600, rng, 10_000), SHOP)
    fresh = shop(600, rng, start=20_000)
    broken = {name: frame.copy() for name, frame in fresh.items()}
    broken["orders"]["customer_id"] = rng.permutation(broken["orders"]["customer_id"].to_numpy())

    def measured(synth):
        context = prepare_context(train, test, rg.RelationalData(synth, SHOP), ReportSettings())
        return compute_association(context)

    kept, lost = measured(fresh), measured(broken)
    assert lost.weakest_entity == "customers (entity)" and lost.entities[0].view == "entity"
    assert lost.entities[0].retained < 0.3 < 0.8 < lost.entities[0].reference
    assert abs(kept.entities[0].retained - kept.entities[0].reference) < 0.1
    # each table alone has one column: nothing to measure there, so only the entity view sees the loss
    assert lost.tables == [] and lost.retained is None and set(lost.skipped) == {"customers", "orders"}
    found = headlines(rg.ReportResults.model_construct(sections={"association": lost}, findings=[]))
    assert "association" not in found and found["association_entity"].value == 100 * lost.entities[0].retained
