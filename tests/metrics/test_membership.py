"""The membership section on data the tests generate: outliers, entities, no holdout, round trips."""

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen.catalogue import report_settings
from reportgen.metrics.membership import NO_HOLDOUT, MembershipResult, compute_membership_section
from reportgen.metrics.registry import MetricNotComputed
from reportgen.preparation import prepare_context
from reportgen.privacy.neighbours import knn
from reportgen.results import ReportResults, RunInfo
from reportgen.settings import ReportSettings
from reportgen.standalone import compute_membership
from tests.metrics.test_privacy import SHOP, people, shop


@pytest.fixture(scope="module")
def population():
    rng = np.random.default_rng(0)
    return people(4000, rng), people(4000, rng), people(4000, rng)


def most_outlying(train: pd.DataFrame, share: float) -> pd.DataFrame:
    """The training rows farthest from their nearest other training row, in the report's distance space."""
    ctx = prepare_context(train, None, train, ReportSettings())
    name, view = next(iter(ctx.distance_views().items()))
    distance = knn(view.rows.train)[0][:, 0]
    rows = ctx.train[name]  # the embedded rows, in the canonical order that preparation gives them
    return rows.iloc[np.argsort(-distance, kind="stable")[: round(share * len(rows))]]


def test_copying_the_1_percent_most_outlying_rows_is_caught_while_the_privacy_score_stays_high(population):
    train, test, fresh = population
    outliers = most_outlying(train, 0.01)
    synth = pd.concat([outliers, fresh.iloc[len(outliers) :]], ignore_index=True)
    privacy = rg.compute_privacy_stats(train, test, synth)["table"]
    attacks = compute_membership(train, test, synth)["table"]
    assert privacy.privacy_score > 90  # the distance-based score barely moves
    chance = attacks.self_test.chance
    strongest = max(attacks.attacks, key=lambda a: a.at(0.001).tpr)
    low_fpr = strongest.at(0.001)
    assert low_fpr.achieved_fpr <= 0.001 and low_fpr.tpr_interval[0] > 0.003  # chance there: about 0.1%
    assert attacks.highest_tpr_at_1pct_fpr > chance.tpr_at_1pct_fpr
    # A fresh sample is caught by neither rule: no attack's 1%-FPR rate is above the chance level,
    # and none clears the 0.1%-FPR bar the copies clear. (The TPR itself at 0.1% FPR, a handful of
    # the 2,000 member targets, is under 0.003 for only about 2 fresh draws in 3: measured on 60.)
    clean = compute_membership(train, test, fresh)["table"]
    assert clean.highest_tpr_at_1pct_fpr <= clean.self_test.chance.tpr_at_1pct_fpr
    assert all(a.at(0.001).tpr_interval[0] <= 0.003 for a in clean.attacks)


def test_copying_whole_customers_is_caught_at_entity_level_only():
    rng = np.random.default_rng(6)
    train, holdout = shop(600, rng), shop(600, rng, start=20_000)
    copied = {name: frame.copy() for name, frame in train.items()}
    copied["customers"]["customer_id"] += 50_000
    copied["orders"]["customer_id"] += 50_000
    copied["orders"]["order_id"] += 500_000
    data = {
        role: rg.RelationalData(d, SHOP)
        for role, d in (("train", train), ("test", holdout), ("synth", copied))
    }
    ctx = prepare_context(data["train"], data["test"], data["synth"], ReportSettings())
    result = compute_membership_section(ctx)
    aucs = {t.table: t.stats.worst.auc for t in result.tables}
    assert aucs["customers (entity)"] > 0.95, aucs
    for table in ("customers", "orders"):  # few distinct rows: a copy looks like any sample
        low, high = result.tables[[t.table for t in result.tables].index(table)].stats.worst.auc_interval
        assert aucs[table] < 0.56 and low < 0.5 + 0.02, (table, low, high)
    assert result.entity_auc.table == "customers (entity)" and result.table_auc.table in (
        "customers",
        "orders",
    )
    assert result.entity_auc.interval[0] > result.table_auc.interval[1]
    assert result.auc == result.entity_auc
    # The largest epsilon bound is over three attacks on each of the three views: 9 bounds, one level.
    assert {t.stats.epsilon_bounds for t in result.tables} == {9}


def test_without_a_holdout_the_section_says_how_to_keep_one(population):
    train, _, fresh = population
    ctx = prepare_context(train, None, fresh, ReportSettings())
    with pytest.raises(MetricNotComputed, match="keep a random 20-30% of the real data back"):
        compute_membership_section(ctx)
    assert "before fitting the generator" in NO_HOLDOUT.lower() and "--test" in NO_HOLDOUT
    with pytest.raises(rg.InvalidParameterError, match="needs data_test"):
        compute_membership(train, None, fresh)


@pytest.fixture(scope="module")
def small_result(population):
    train, test, fresh = (frame.iloc[:800] for frame in population)
    ctx = prepare_context(train, test, fresh, ReportSettings(seed=3))
    return compute_membership_section(ctx), (train, test, fresh)


def with_run(result: MembershipResult) -> ReportResults:
    """Report results holding only this section, with the run record of its settings."""
    run = RunInfo(
        title="t",
        reportgen_version="0",
        created_at="2025-01-01T00:00:00+00:00",
        seed=3,
        settings=report_settings(seed=3).to_dict(),
        versions={},
        has_holdout=True,
    )
    return ReportResults(run=run, sections={"membership": result})


def test_compute_membership_gives_the_sections_numbers_and_the_same_seed_the_same(small_result):
    result, (train, test, fresh) = small_result
    direct = compute_membership(train, test, fresh, seed=3)
    assert direct == {t.table: t.stats for t in result.tables}
    assert compute_membership(train, test, fresh, seed=4)["table"] != direct["table"]


def test_the_result_round_trips_through_json(small_result):
    result, _ = small_result
    results = with_run(result)
    again = ReportResults.from_json(results.to_json())
    assert isinstance(again.sections["membership"], MembershipResult)
    assert again == results


def test_the_page_shows_the_headlines_the_figure_and_the_self_test(small_result):
    from reportgen.catalogue import sections
    from reportgen.headlines import headlines
    from reportgen.render.document import render_html
    from reportgen.render.formatting import fmt_num, fmt_pct

    result, _ = small_result
    results = with_run(result)
    results.headlines = headlines(results)
    html = render_html(results, sections())
    start = html.index('id="membership"')
    section = html[start : html.index("</section>", start)]
    assert "Threat model:" in section and "self-test" in section
    assert fmt_num(result.auc.value, 3) in section and fmt_pct(result.tpr_at_1pct_fpr.value, 2) in section
    assert f"{fmt_num(result.epsilon_lower.value, 2)}</td>" in section
    assert section.count('<img src="data:image/svg+xml;base64,') == len(result.tables)
    assert section.count("most outlying") == len(
        result.tables
    )  # one row per kind of plant, a column per share
    for plant in result.tables[0].stats.self_test.plants:
        assert fmt_pct(plant.tpr_at_1pct_fpr, 2) in section
    words = " ".join(section.split())
    for sentence in (
        "It is a population-level lower bound on the ε of pure ε-differential privacy (δ = 0)",
        "with the holdout split from the same data at random",
        "not of the worst-off record that a guarantee must cover: the true ε can be far larger, and 0 does "
        "not mean the release is private.",
        "It is the largest of 3 bounds (1 table or view \N{MULTIPLICATION SIGN} 3 attacks), each at a level "
        "that makes all 3 hold "
        "together with 97.5% confidence, so the largest holds with 97.5% confidence too.",
    ):
        assert sentence in words, sentence
    assert "95% confidence (" not in words and "at 95% confidence" not in words


def test_a_release_comparison_flags_an_attack_rise_beyond_its_noise(small_result):
    from reportgen.comparison import compare

    result, _ = small_result
    before = with_run(result)

    def moved(auc: float, epsilon: float) -> ReportResults:
        update = {
            "auc": result.auc.model_copy(update={"value": auc}),
            "epsilon_lower": result.epsilon_lower.model_copy(update={"value": epsilon}),
        }
        return with_run(result.model_copy(update=update))

    base_auc, base_eps = result.auc.value, result.epsilon_lower.value
    quiet = {
        c.name: c.regression for c in compare(moved(base_auc + 0.005, base_eps + 0.5), before, "x").changes
    }
    loud = {c.name: c.regression for c in compare(moved(base_auc + 0.2, base_eps + 3), before, "x").changes}
    assert quiet["mia_auc"] is False and quiet["epsilon_lower"] is False
    assert loud["mia_auc"] is True and loud["epsilon_lower"] is True
    better = {c.name: c.regression for c in compare(moved(0.5, 0.0), moved(0.9, 5.0), "x").changes}
    assert better["mia_auc"] is False and better["epsilon_lower"] is False


def test_a_table_whose_holdout_is_its_training_data_is_not_attacked(population):
    train, _, fresh = (frame.iloc[:400] for frame in population)
    ctx = prepare_context(train, train, fresh, ReportSettings())
    with pytest.raises(MetricNotComputed, match="holdout rows are its training rows.*no row is a non-member"):
        compute_membership_section(ctx)
