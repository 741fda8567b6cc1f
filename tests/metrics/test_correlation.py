"""Known-answer tests of the phik correlation section on data the tests generate."""

import warnings

import numpy as np
import pandas as pd
import phik
import pytest

from reportgen import ReportResults, report
from reportgen.catalogue import report_settings
from reportgen.metrics.correlation import CorrelationResult, compute_correlation
from reportgen.metrics.registry import MetricNotComputed
from reportgen.preparation import prepare_context
from reportgen.settings import ReportSettings

N = 3000


def population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """x and y strongly linked, c and t depend on x, d independent of everything."""
    x = rng.normal(size=n)
    return pd.DataFrame(
        {
            "x": x,
            "y": x + 0.3 * rng.normal(size=n),
            "c": np.where(x + rng.normal(size=n) > 0, "high", "low"),
            "t": pd.Timestamp("2021-01-01", tz="UTC")
            + pd.to_timedelta(30 * (x + rng.normal(size=n)), unit="D"),
            "d": rng.choice(["p", "q", "r"], n, p=[0.5, 0.3, 0.2]),
        }
    )


def correlation(train, test, synth, **settings):
    ctx = prepare_context(train, test, synth, report_settings(**settings))
    return compute_correlation(ctx), ctx


def table_of(train, test, synth, **settings):
    return correlation(train, test, synth, **settings)[0].tables[0]


def cell(table, matrix, a, b):
    return getattr(table, matrix)[table.columns.index(a)][table.columns.index(b)]


@pytest.fixture(scope="module")
def real():
    rng = np.random.default_rng(0)
    return population(N, rng), population(N, rng)


@pytest.fixture(scope="module")
def fresh(real):
    train, test = real
    return table_of(train, test, population(N, np.random.default_rng(99)))


def test_fresh_sample_scores_near_its_reference(fresh):
    assert fresh.reference_similarity > 0.95
    assert abs(fresh.similarity - fresh.reference_similarity) < 0.02


def test_real_matrix_is_phiks_own(real, fresh):
    train, _ = real
    frame = train.assign(t=train["t"].astype("int64") / 1e9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # phik reports the columns it bins
        own = phik.phik_matrix(frame, interval_cols=["x", "y", "t"], dropna=False, njobs=1, verbose=False)
    own = own.reindex(index=fresh.columns, columns=fresh.columns).to_numpy()
    np.testing.assert_allclose(np.asarray(fresh.real), own, atol=1e-6)


def test_a_broken_link_is_the_largest_difference(real, fresh):
    train, test = real
    synth = population(N, np.random.default_rng(99))
    synth["y"] = synth["y"].sample(frac=1.0, random_state=3).to_numpy()  # same marginal, no link
    table = table_of(train, test, synth)
    top = table.largest_differences[0]
    assert (top.a, top.b) == ("x", "y")
    assert top.real > 0.9 and top.synthetic < 0.1
    assert table.similarity < fresh.similarity - 0.1
    assert abs(cell(table, "difference", "x", "c") - cell(fresh, "difference", "x", "c")) < 0.05


def test_independent_marginals_drop_the_similarity(real, fresh):
    train, test = real
    rng = np.random.default_rng(5)
    marginals = pd.DataFrame({c: rng.permutation(train[c].to_numpy()) for c in train})
    table = table_of(train, test, marginals)
    assert table.similarity < fresh.reference_similarity - 0.25
    synth = np.asarray(table.synthetic)
    assert synth[~np.eye(len(synth), dtype=bool)].max() < 0.25  # nothing left but phik's noise


def test_same_seed_same_numbers_and_the_seed_picks_the_sample(real):
    train, test = real
    synth = population(N, np.random.default_rng(2))
    first = correlation(train, test, synth, n_max_phik=1000, seed=4)[0]
    assert first == correlation(train, test, synth, n_max_phik=1000, seed=4)[0]
    assert first != correlation(train, test, synth, n_max_phik=1000, seed=5)[0]


def test_sampling_is_a_finding(real):
    train, test = real
    result, ctx = correlation(train, test, train.iloc[:800], n_max_phik=1000)
    table = result.tables[0]
    assert table.sampled and table.rows == {"training": 1000, "holdout": 1000, "synthetic": 800}
    assert [(f.code, f.severity, f.table) for f in ctx.findings] == [("phik_sampled", "info", "table")]
    _, unsampled = correlation(train, test, train, n_max_phik=N)
    assert not unsampled.findings


def test_matrices_and_json_round_trip(real, tmp_path):
    train, test = real[0].iloc[:800], real[1].iloc[:800]
    synth = population(800, np.random.default_rng(7))
    synth["d"] = "p"  # constant: phik undefined, counted as 0, never NaN in the JSON
    results = report(train, test, synth, tmp_path / "r.html", n_max_phik=500)
    section = results.sections["correlation"]
    assert isinstance(section, CorrelationResult)
    table = section.tables[0]
    for name in ("real", "synthetic", "difference", "holdout"):
        m = np.asarray(getattr(table, name))
        assert np.array_equal(m, m.T) and m.min() >= 0 and m.max() <= 1, name
    assert np.all(np.diag(table.real) == 1) and np.all(np.diag(table.difference) == 0)
    assert table.constant_columns == {"synthetic": ["d"]}
    assert np.all(np.asarray(table.synthetic)[table.columns.index("d")][:-1] == 0)
    codes = {(f.code, f.column) for f in results.findings}
    assert {("phik_sampled", None), ("phik_constant_column", "d")} <= codes
    assert ReportResults.load(tmp_path / "r.json") == results
    html = (tmp_path / "r.html").read_text()
    assert "Fidelity: correlations (phik)" in html
    assert "computed on a sample of 500 rows" in html
    assert 'In the synthetic data, <span class="name">d</span> takes a single value' in html


def test_missing_values_are_a_category():
    rng = np.random.default_rng(1)
    x = rng.normal(size=N)
    frame = pd.DataFrame({"x": x, "d": np.where(x > 0.5, None, rng.choice(["p", "q"], N))})
    table = table_of(frame, None, frame)
    assert cell(table, "real", "x", "d") > 0.5  # the link lives only in which values are missing
    assert table.reference_similarity is None and table.similarity == 1.0


def test_a_table_with_one_column_is_not_computed():
    frame = pd.DataFrame({"x": np.arange(100.0)})
    with pytest.raises(MetricNotComputed, match="two or more columns"):
        correlation(frame, None, frame)


def test_a_constant_column_is_one_finding_and_a_warning_only_where_real_and_synthetic_differ():
    rng = np.random.default_rng(5)
    train, test, synth = (population(600, rng) for _ in range(3))
    train, test = (f.assign(same="k", lost=rng.normal(size=600), made="k") for f in (train, test))
    synth = synth.assign(same="k", lost=1.0, made=rng.choice(["k", "m"], 600))
    _, ctx = correlation(train, test, synth)
    found = [f for f in ctx.findings if f.code == "phik_constant_column"]
    by_column = {f.column: f for f in found}
    assert len(found) == len(by_column) == 3  # one finding per column, not one per role
    assert by_column["same"].severity == "info"  # constant in the real data too: nothing is lost
    assert "in the training, holdout and synthetic rows" in by_column["same"].message
    assert by_column["lost"].severity == "warning"
    assert "in the synthetic rows used for phik, but varies in the training and holdout rows" in (
        by_column["lost"].message
    )
    assert "generator lost the variation" in by_column["lost"].message
    assert by_column["made"].severity == "warning"
    assert "varies where the real data does not" in by_column["made"].message


def test_a_parent_column_constant_in_its_entity_view_too_is_one_finding():
    import reportgen as rg
    from reportgen.metrics.association import compute_association
    from tests.metrics.test_privacy import SHOP, shop

    schema = rg.Schema(
        customers=rg.Table(customer_id=rg.PrimaryKey(), segment="categorical", tier="categorical"),
        orders=SHOP["orders"],
    )
    rng = np.random.default_rng(8)
    train, synth = shop(300, rng), shop(300, rng)
    train["customers"]["tier"] = rng.choice(["x", "y"], 300)
    synth["customers"]["tier"] = rng.choice(["x", "y"], 300)
    synth["customers"]["segment"] = "A"  # the generator lost it
    data = {role: rg.RelationalData(frames, schema) for role, frames in (("train", train), ("synth", synth))}
    ctx = prepare_context(data["train"], None, data["synth"], ReportSettings())
    compute_correlation(ctx)
    compute_association(ctx)  # the entity view "customers (entity)" holds segment again
    found = [(f.table, f.column, f.severity) for f in ctx.findings if f.code == "phik_constant_column"]
    assert found == [("customers", "segment", "warning")]
