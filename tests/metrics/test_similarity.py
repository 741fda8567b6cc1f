"""Known-answer tests of the similarity section on data the tests generate."""

import re

import numpy as np
import pandas as pd
import pytest

from reportgen.api import prepare_context
from reportgen.metrics.similarity import compute_similarity
from reportgen.render.document import judge
from reportgen.sections.similarity import SECTION
from reportgen.settings import ReportSettings


def population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """x and y strongly correlated, c depends on x, d independent of everything."""
    x = rng.normal(size=n)
    return pd.DataFrame(
        {
            "x": x,
            "y": x + 0.3 * rng.normal(size=n),
            "c": np.where(x + 0.5 * rng.normal(size=n) > 0, "high", "low"),
            "d": rng.choice(["p", "q", "r"], n, p=[0.5, 0.3, 0.2]),
        }
    )


def similarity(train, test, synth):
    return compute_similarity(prepare_context(train, test, synth, ReportSettings())).tables[0]


def cell(table, a, b):
    return table.matrix[table.columns.index(a)][table.columns.index(b)]


@pytest.fixture(scope="module")
def real():
    rng = np.random.default_rng(0)
    return population(4000, rng), population(4000, rng)


def test_hand_computed_one_minus_tvd():
    real = pd.DataFrame({"c": ["a", "a", "b", "b"], "k": ["u", "v", "u", "v"]})
    synth = pd.DataFrame({"c": ["a", "b", "b", "b"], "k": ["u", "u", "u", "v"]})
    table = similarity(real, None, synth)
    # c: |0.5-0.25| + |0.5-0.75| = 0.5 -> TVD 0.25
    assert cell(table, "c", "c") == pytest.approx(0.75)
    # k: |0.5-0.75| + |0.5-0.25| -> TVD 0.25
    assert cell(table, "k", "k") == pytest.approx(0.75)
    # joint: real (a,u)(a,v)(b,u)(b,v) each .25; synth (a,u) .25, (b,u) .5, (b,v) .25 -> TVD 0.25
    assert cell(table, "c", "k") == pytest.approx(0.75)
    assert table.score == pytest.approx(75.0)


def test_fresh_sample_scores_near_its_reference(real):
    train, test = real
    synth = population(4000, np.random.default_rng(99))
    table = similarity(train, test, synth)
    assert table.reference_score > 95
    assert abs(table.score - table.reference_score) < 1.5


def test_a_shifted_category_is_the_least_similar_column(real):
    train, test = real
    synth = population(4000, np.random.default_rng(99))
    synth["d"] = np.random.default_rng(1).choice(["p", "q", "r"], 4000, p=[0.2, 0.3, 0.5])
    table = similarity(train, test, synth)
    worst = min(table.column_details, key=lambda c: c.similarity)
    assert worst.column == "d" and worst.similarity < 0.75
    assert all(c.similarity > 0.95 for c in table.column_details if c.column != "d")


def test_a_broken_correlation_is_the_least_similar_pair(real):
    train, test = real
    synth = population(4000, np.random.default_rng(99))
    synth["y"] = synth["y"].sample(frac=1.0, random_state=3).to_numpy()  # same marginal, no link to x
    table = similarity(train, test, synth)
    assert (table.worst_pairs[0].a, table.worst_pairs[0].b) in {("x", "y"), ("y", "c")}
    assert cell(table, "x", "y") < 0.6
    for a, b in [("y", "y"), ("x", "d"), ("c", "d")]:  # untouched cells stay at their reference level
        ref = table.reference_matrix[table.columns.index(a)][table.columns.index(b)]
        assert abs(cell(table, a, b) - ref) < 0.02, (a, b)


def test_independent_marginals_keep_the_diagonal_and_lose_dependent_pairs(real):
    train, test = real
    rng = np.random.default_rng(5)
    marginals = pd.DataFrame({c: rng.choice(train[c].to_numpy(), len(train)) for c in train})
    table = similarity(train, test, marginals)
    assert all(cell(table, c, c) > 0.95 for c in table.columns)
    assert cell(table, "x", "y") < 0.6 and cell(table, "x", "c") < 0.8
    ref_xd = table.reference_matrix[0][3]
    assert cell(table, "x", "d") > ref_xd - 0.02  # d was independent in the real data too


def test_same_seed_same_numbers_and_missing_values_count(real):
    train, test = real
    synth = population(1000, np.random.default_rng(2))
    holed = synth.copy()
    holed.loc[: len(holed) // 2, "x"] = np.nan  # a generator that invents missing values is penalised
    first, second = similarity(train, test, synth), similarity(train, test, synth)
    assert first == second
    assert cell(similarity(train, test, holed), "x", "x") < 0.55


def test_zero_inflated_column_still_sees_its_non_zero_part():
    rng = np.random.default_rng(3)
    n = 4000
    zeros = rng.random(n) < 0.9

    def loss(scale):
        return np.where(zeros, 0.0, rng.lognormal(scale, 0.5, n))

    real, holdout = pd.DataFrame({"loss": loss(7.0)}), pd.DataFrame({"loss": loss(7.0)})
    shifted = pd.DataFrame({"loss": loss(9.0)})  # same zeros, non-zero part moved far up
    table = similarity(real, holdout, shifted)
    detail = table.column_details[0]
    assert detail.reference > 0.95
    assert detail.similarity < 0.92  # the 10% non-zero mass no longer overlaps


def test_disjoint_histograms_give_exactly_zero_similarity_despite_rounding():
    from reportgen.binning import tvd

    a, b = np.array([44, 5, 14, 20, 45, 4, 23]), np.array([24, 1, 21, 32, 21, 15, 29])
    p = np.concatenate([a / a.sum(), np.zeros(7)])
    q = np.concatenate([np.zeros(7), b / b.sum()])
    assert 0.5 * np.abs(p - q).sum() > 1.0  # the float sum overshoots...
    assert tvd(p, q) == 1.0  # ...and the metric stays in its bounds


def test_the_shortfall_list_names_the_damaged_column_and_pair_first(real):
    train, test = real
    synth = population(4000, np.random.default_rng(99))
    synth["d"] = np.random.default_rng(1).choice(["p", "q", "r"], 4000, p=[0.2, 0.3, 0.5])
    synth["y"] = synth["y"].sample(frac=1.0, random_state=3).to_numpy()
    result = compute_similarity(prepare_context(train, test, synth, ReportSettings()))
    assert result.worst_columns[0].a == "d"
    assert {result.worst_pairs[0].a, result.worst_pairs[0].b} == {"x", "y"}
    for item in result.worst_columns + result.worst_pairs:
        assert item.shortfall == pytest.approx(item.reference - item.similarity)


def test_the_shortfall_list_on_the_page_is_sorted_columns_and_pairs_together(real):
    from reportgen.render.environment import environment
    from reportgen.results import RunInfo

    train, test = real
    rng = np.random.default_rng(9)
    synth = population(4000, rng).assign(
        d=lambda f: rng.permutation(f["d"].to_numpy()), x=lambda f: f["x"] + 0.5
    )
    result = compute_similarity(prepare_context(train, test, synth, ReportSettings()))
    run = RunInfo(
        title="t", reportgen_version="0", created_at="", seed=0, settings={}, versions={}, has_holdout=True
    )
    html = (
        environment()
        .get_template("sections/similarity.html.j2")
        .render(result=result, figures={}, run=run, title="Similarity", worse=judge(SECTION))
    )
    rows = html[html.index('<table class="shortfall">') :].split("</table>")[0]
    shortfalls = [float(v) for v in re.findall(r'<td class="num[^"]*">(-?[0-9.]+)</td></tr>', rows)]
    assert len(shortfalls) == len(result.worst_columns) + len(result.worst_pairs) > 2
    assert shortfalls == sorted(shortfalls, reverse=True)


def test_the_ks_statistic_is_scipys_on_ties_at_exact_and_asymptotic_sizes():
    from scipy.stats import ks_2samp

    from reportgen.metrics.similarity import ks_statistic

    rng = np.random.default_rng(4)
    for n, m in ((1, 1), (7, 5), (300, 2_000), (12_000, 15_000)):  # scipy is exact up to 10,000
        x, y = np.round(rng.normal(size=n), 1), np.round(rng.normal(0.2, size=m), 1)
        assert ks_statistic(x, y) == pytest.approx(ks_2samp(x, y).statistic, rel=1e-15, abs=0)
    assert ks_statistic(np.array([0.0, 1.0]), np.array([0.0, 1.0])) == 0.0
    assert ks_statistic(np.array([0.0, 0.0]), np.array([1.0])) == 1.0


def test_dataframes_beyond_the_caps_are_counted_on_every_row_as_inputs_read_in_place_are():
    # 60,000 rows per side, caps of 1,000: a sample's shares would miss the exact 0.5 / 0.7 split
    # by about 0.02; counted on every row, the similarity is exactly 1 - |0.5 - 0.7| = 0.8.
    n = 60_000
    rng = np.random.default_rng(0)
    train = pd.DataFrame({"colour": np.repeat(["red", "blue"], n // 2), "x": rng.normal(size=n)})
    synth = pd.DataFrame(
        {"colour": np.repeat(["red", "blue"], [7 * n // 10, 3 * n // 10]), "x": rng.normal(size=n)}
    )
    settings = ReportSettings(n_max_train=1_000, n_max_synth=1_000)
    ctx = prepare_context(
        train.sample(frac=1, random_state=1), None, synth.sample(frac=1, random_state=2), settings
    )
    assert len(ctx.train["table"]) == 1_000  # the sections that need rows see the sample
    table = compute_similarity(ctx).tables[0]
    colour = next(c for c in table.column_details if c.column == "colour")
    assert colour.similarity == pytest.approx(0.8, abs=1e-12)
    assert table.basis.all_rows and table.basis.rows == {"training": n, "synthetic": n}
    assert table.basis.label == "all rows"
    x = next(c for c in table.column_details if c.column == "x")  # the KS counts every row too
    from reportgen.metrics.similarity import ks_statistic

    expected = ks_statistic(train["x"].to_numpy(float), synth["x"].to_numpy(float))
    assert x.ks == expected and table.ks_basis is not None and table.ks_basis.all_rows
