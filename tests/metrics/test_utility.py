"""Known-answer tests of the utility section (TSTR, SRA) on data the tests generate."""

from itertools import permutations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import BayesianRidge
from sklearn.naive_bayes import GaussianNB

import reportgen as rg
from reportgen.catalogue import report_settings
from reportgen.cli import main
from reportgen.data.io import write_folder
from reportgen.data.schema import ColumnKind, Schema, Table
from reportgen.metrics import utility_models
from reportgen.metrics.registry import MetricNotComputed
from reportgen.metrics.utility import UtilityResult, compute_utility, sra
from reportgen.preparation import prepare_context
from reportgen.settings import ReportSettings

KINDS = {
    "x1": ColumnKind.NUMERIC,
    "x2": ColumnKind.NUMERIC,
    "x3": ColumnKind.NUMERIC,
    "city": ColumnKind.CATEGORICAL,
}
NOT_COMPUTED = "not computed (a problem with the data, see the table's messages)"
FEW = ("Logistic regression", "Random forest", "Gaussian naive Bayes", "Histogram gradient boosting")


def people(n: int, rng: np.random.Generator, *, shuffle: bool = False) -> pd.DataFrame:
    """A binary target that depends on an interaction (trees beat linear models) and a category."""
    x1, x2, x3 = rng.normal(size=(3, n))
    city = rng.choice(["Rome", "Oslo", "Lima", "Pune"], n)
    logit = 2 * x1 * x2 + x3 + (city == "Rome")
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-logit)), "yes", "no")
    return pd.DataFrame(
        {"x1": x1, "x2": x2, "x3": x3, "city": city, "y": rng.permutation(y) if shuffle else y}
    )


def utility(train, test, synth, targets=None, **settings):
    ctx = prepare_context(train, test, synth, report_settings(targets=targets or {"table": "y"}, **settings))
    return compute_utility(ctx)


def interaction(n: int, rng: np.random.Generator, *, shuffle: bool = False) -> pd.DataFrame:
    """A target that only an interaction predicts: no linear signal for a random direction to catch."""
    x1, x2, x3 = rng.normal(size=(3, n))
    y = np.where(x1 * x2 + rng.normal(0, 0.3, n) > 0, "yes", "no")
    city = rng.choice(["Rome", "Oslo", "Lima", "Pune"], n)
    return pd.DataFrame(
        {"x1": x1, "x2": x2, "x3": x3, "city": city, "y": rng.permutation(y) if shuffle else y}
    )


@pytest.fixture
def few_models(monkeypatch):
    """A reduced model list (the private test hook): four families, a quarter of the fits."""
    monkeypatch.setattr(
        utility_models, "FAMILIES", tuple(f for f in utility_models.FAMILIES if f.name in FEW)
    )


@pytest.fixture
def only_utility(monkeypatch):
    """report() computes the overview and this section only: the other sections have their own tests."""
    import reportgen.evaluation
    from reportgen.catalogue import sections

    kept = [s for s in sections() if s.name in ("overview", "utility")]
    monkeypatch.setattr(reportgen.evaluation, "sections", lambda: kept)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return people(3000, rng), people(3000, rng), people(3000, rng)


# -- SRA -----------------------------------------------------------------------------------------
def test_sra_equals_a_hand_computation_with_ties():
    real = [0.9, 0.8, 0.8, 0.7]
    synth = [0.85, 0.86, 0.6, 0.6]
    # unordered pairs: (0,1) disagree, (0,2) agree, (0,3) agree, (1,2) tie in R: agrees in any
    # order, (1,3) agree, (2,3) tie in S alone: half, a guess. 4.5 of 6 unordered pairs, 9 of 12
    assert sra(real, synth) == pytest.approx(9 / 12)
    assert sra(real, real) == 1.0  # the tie (1,2) agrees with itself
    assert sra([0.9, 0.8, 0.7], [0.5, 0.4, 0.3]) == 1.0
    assert sra([0.9, 0.8, 0.7], [0.3, 0.4, 0.5]) == 0.0
    assert sra([0.5, 0.5, 0.5], [0.1, 0.2, 0.3]) == 1.0  # the real data orders no pair
    assert sra([0.1, 0.2, 0.3], [0.5, 0.5, 0.5]) == 0.5  # the synthetic data orders no pair: chance
    assert sra([0.7], [0.6]) is None


def test_scores_equal_at_the_decimals_shown_are_tied_in_sra_and_ranks(few_models):
    # R^2 0.88204 and 0.882041 read alike in the table (0.882): their order on S is no disagreement
    assert sra([0.95, 0.88204, 0.882041], [0.9, 0.85, 0.84]) == 1.0
    assert sra([0.95, 0.88204, 0.882041], [0.9, 0.84, 0.85]) == 1.0
    assert sra([0.95, 0.8821, 0.8829], [0.9, 0.85, 0.84]) == pytest.approx(4 / 6)  # 0.882 < 0.883: ordered
    # in a report: ridge, Bayesian ridge and least squares tie on a linear target, ranks shared
    rng = np.random.default_rng(4)
    beta = rng.normal(size=4)

    def frame(n):
        x = rng.normal(size=(n, 4))
        return pd.DataFrame(x, columns=["a", "b", "c", "d"]).assign(y=x @ beta + rng.normal(0, 0.3, n))

    table = utility(frame(3000), frame(3000), frame(3000)).tables[0]
    by_name = {m.model: m for m in table.models}
    linear = [by_name["Ridge regression"], by_name["Bayesian ridge"]]
    assert round(linear[0].real, 3) == round(linear[1].real, 3)
    assert linear[0].rank_real == linear[1].rank_real


def test_sra_equals_the_formula_on_random_vectors():
    rng = np.random.default_rng(3)
    for _ in range(20):
        k = int(rng.integers(2, 9))
        r, s = rng.integers(0, 4, k).astype(float), rng.integers(0, 4, k).astype(float)  # many ties
        pairs = list(permutations(range(k), 2))
        hits = sum((r[i] - r[j]) * (s[i] - s[j]) > 0 or r[i] == r[j] for i, j in pairs)
        hits += sum(0.5 for i, j in pairs if s[i] == s[j] and r[i] != r[j])
        assert sra(r, s) == pytest.approx(hits / (k * (k - 1)))


# -- known answers -------------------------------------------------------------------------------
def test_same_distribution_gives_sra_near_1_and_tstr_near_the_baseline_with_all_12_models(data):
    train, test, synth = data
    table = utility(train, test, synth).tables[0]
    assert len(table.models) == 12 and table.n_ranked == 12
    assert {m.model for m in table.models} == {f.name for f in utility_models.FAMILIES}
    assert all(m.real is not None and m.synthetic is not None and m.tstr is not None for m in table.models)
    assert all(not m.notes for m in table.models), [m.notes for m in table.models]
    assert (table.task, table.metric, table.n_classes) == ("classification", "AUROC", 2)
    assert abs(table.tstr - table.real_baseline) < 0.02
    # an independent sample is the best a generator can do; near-ties between the three linear
    # models flip at random, so even it stays below 1
    assert table.sra >= 0.75
    assert [m.rank_real for m in table.models] == sorted(m.rank_real for m in table.models)
    assert table.models[0].real == max(m.real for m in table.models)


def test_shuffled_labels_give_tstr_near_a_guess(few_models):
    # AUROC ignores a score's scale, so a linear model fitted to noise still ranks by a random
    # direction; the target here has no linear signal, so every such direction scores 0.5
    rng = np.random.default_rng(0)
    train, test = interaction(2000, rng), interaction(2000, rng)
    table = utility(train, test, interaction(2000, rng, shuffle=True)).tables[0]
    assert min(m.real for m in table.models if m.model in FEW[1::2]) > 0.85  # trees learn it
    assert abs(table.tstr - 0.5) < 0.03
    assert all(abs(m.tstr - 0.5) < 0.05 for m in table.models)


def test_a_numeric_target_is_regressed_and_scored_by_r2(few_models):
    rng = np.random.default_rng(1)

    def frame(n):
        x = rng.normal(size=(2, n))
        group = rng.choice(["a", "b"], n)
        return pd.DataFrame(
            {
                "x1": x[0],
                "x2": x[1],
                "group": group,
                "y": 3 * x[0] + x[1] ** 2 + (group == "a") + rng.normal(0, 0.3, n),
            }
        )

    table = utility(frame(1500), frame(1500), frame(1500)).tables[0]
    assert (table.task, table.metric, table.n_classes) == ("regression", "R2", None)
    assert table.real_baseline > 0.8 and abs(table.tstr - table.real_baseline) < 0.05
    assert {m.estimator for m in table.models} == {
        "Ridge",
        "RandomForestRegressor",
        "BayesianRidge",
        "HistGradientBoostingRegressor",
    }
    # named by their regressors, not by the classifier families
    assert {m.model for m in table.models} == {
        "Ridge regression",
        "Random forest",
        "Bayesian ridge",
        "Histogram gradient boosting",
    }


def test_every_family_has_a_name_of_its_own_for_each_task():
    for task in ("classification", "regression"):
        assert len({f.label(task) for f in utility_models.FAMILIES}) == 12  # the figure keys by name
    assert [f.label("regression") for f in utility_models.FAMILIES][:3] == [
        "Ridge regression",
        "Random forest",
        "Bayesian ridge",
    ]


# -- problems are marked, not raised -------------------------------------------------------------
def test_a_target_missing_from_the_synthetic_data_marks_the_models(data, few_models):
    train, test, synth = data
    table = utility(train[:1000], test[:1000], synth[:1000].assign(y=np.nan)).tables[0]
    assert all(m.real is not None and m.synthetic is None and m.tstr is None for m in table.models)
    assert all(m.notes == ["S, TSTR: " + NOT_COMPUTED] for m in table.models)
    assert "S_i not computed for any model: the synthetic data has no 'y' value at all." in table.messages
    assert "TSTR_i not computed for any model: the synthetic data has no 'y' value at all." in table.messages
    assert table.tstr is None and table.sra is None and table.n_ranked == 0
    assert table.real_baseline is not None


def test_a_constant_synthetic_target_marks_the_models(data, few_models):
    train, test, synth = data
    table = utility(train[:1000], test[:1000], synth[:1000].assign(y="no")).tables[0]
    assert all(m.synthetic is None and m.tstr is None and m.real is not None for m in table.models)
    assert any("only one class ('no')" in msg for msg in table.messages)
    assert any("Class 'yes' of the real training data never occurs" in msg for msg in table.messages)
    assert table.sra is None


def test_a_constant_real_target_marks_the_models(data, few_models):
    train, test, synth = data
    table = utility(train[:1000].assign(y="no"), test[:1000], synth[:1000]).tables[0]
    assert all(m.real is None for m in table.models)
    assert any(
        "R_i not computed for any model: the real training data has only one class" in msg
        for msg in table.messages
    )


def test_a_class_absent_from_the_synthetic_data_scores_as_a_guess_for_it(few_models):
    rng = np.random.default_rng(2)

    def frame(n):
        x = rng.normal(size=n)
        y = np.select([x < -0.5, x < 0.5], ["low", "mid"], "high")
        return pd.DataFrame({"x": x, "noise": rng.normal(size=n), "y": y})

    train, test, synth = frame(1500), frame(1500), frame(1500)
    synth = synth[synth["y"] != "high"]
    table = utility(train, test, synth).tables[0]
    assert table.n_classes == 3
    assert any("Class 'high' of the real training data never occurs" in msg for msg in table.messages)
    assert all(m.tstr is not None for m in table.models)
    # the model cannot tell 'high' from the rest: its one-vs-rest AUROC is 0.5, so the macro mean
    # falls short of the real baseline
    assert table.tstr < table.real_baseline - 0.1


def test_a_target_with_too_many_classes_is_skipped_with_the_reason():
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"x": rng.normal(size=600), "y": [f"c{i % 60}" for i in range(600)]})
    with pytest.raises(
        MetricNotComputed, match="table 'table': the target 'y' has 60 classes.*more than the 50"
    ):
        utility(frame, None, frame)


def test_a_failing_model_is_marked_and_left_out_of_sra(data, monkeypatch):
    class Broken:
        def fit(self, x, y):
            raise ValueError("cannot fit this\nsecond line")

    broken = utility_models.Family("Broken", lambda s: Broken(), lambda s: Broken())
    kept = tuple(f for f in utility_models.FAMILIES if f.name in FEW[:2])
    monkeypatch.setattr(utility_models, "FAMILIES", (*kept, broken))
    train, test, synth = data
    table = utility(train.iloc[:600], test.iloc[:600], synth.iloc[:600]).tables[0]
    row = next(m for m in table.models if m.model == "Broken")
    assert row.real is row.synthetic is row.tstr is None and row.rank_real is None
    assert row.notes == ["R, S, TSTR: failed: ValueError: cannot fit this"]
    assert table.n_ranked == 2 and table.models[-1] is row


def test_a_model_that_stops_at_its_iteration_cap_is_noted_and_no_warning_leaks(data, monkeypatch):
    from sklearn.linear_model import LogisticRegression

    slow = utility_models.Family("Capped", lambda s: LogisticRegression(max_iter=1), lambda s: None)
    monkeypatch.setattr(utility_models, "FAMILIES", (slow,))
    train, test, synth = data
    table = utility(train[:1000], test[:1000], synth[:1000]).tables[0]  # a leaked warning would fail
    assert table.models[0].notes == ["R, S, TSTR: did not converge"]
    assert table.models[0].tstr is not None


# -- tables, targets and settings ----------------------------------------------------------------
def test_tables_without_a_target_are_skipped_with_a_note(few_models):
    rng = np.random.default_rng(4)
    parents = pd.DataFrame({"pid": range(300), "region": rng.choice(["n", "s"], 300)})
    children = people(1200, rng).assign(pid=rng.integers(0, 300, 1200))
    schema = Schema(parents=Table(pid=rg.PrimaryKey()), children=Table(pid=rg.ForeignKey(parent="parents")))
    real = rg.RelationalData({"parents": parents, "children": children}, schema)
    result = utility(real, None, real, targets={"children": "y"})
    assert [t.table for t in result.tables] == ["children"]
    assert result.skipped == {"parents": "no target column was given for this table"}
    assert "pid" not in result.tables[0].features  # keys are not features


def test_no_target_at_all_leaves_the_section_not_computed():
    rng = np.random.default_rng(5)
    ctx = prepare_context(people(200, rng), None, people(200, rng), ReportSettings())
    with pytest.raises(MetricNotComputed, match=r"no target column was given.*--target TABLE=COLUMN"):
        compute_utility(ctx)


def test_unknown_targets_raise_naming_table_and_column(data):
    train, test, synth = data
    with pytest.raises(rg.InvalidParameterError, match=r"Table 'table': the target column 'income'.*'x1'"):
        rg.report(train, test, synth, "never.html", targets={"table": "income"})
    with pytest.raises(rg.InvalidParameterError, match=r"for table 'people'.*\['table'\].*single DataFrame"):
        rg.report(train, test, synth, "never.html", targets={"people": "y"})
    with pytest.raises(rg.InvalidParameterError, match="The 'targets' parameter of report"):
        rg.report(train, test, synth, "never.html", targets=["y"])


def test_an_identifier_cannot_be_the_target():
    frame = pd.DataFrame({"id": range(100), "x": np.arange(100) % 7, "y": np.arange(100) % 2})
    schema = Schema(table=Table(id=rg.PrimaryKey()))
    with pytest.raises(rg.InvalidParameterError, match="Table 'table', column 'id'.*cannot be the target"):
        prepare_context(frame, None, frame, ReportSettings(targets={"table": "id"}), schema=schema)


def test_the_target_can_come_from_the_schema_and_its_file(data, few_models, tmp_path):
    train, test, synth = data
    schema = Schema(table=Table(target="y"))
    result = compute_utility(
        prepare_context(train[:600], test[:600], synth[:600], ReportSettings(), schema=schema)
    )
    assert result.tables[0].target == "y"
    assert Schema.from_dict(schema.to_dict())["table"].target == "y"
    assert schema.to_dict()["tables"]["table"]["target"] == "y"
    assert Table({"target": "categorical"}).kinds["target"].value == "categorical"  # a column called target
    with pytest.raises(rg.SchemaError, match="the target column 'nope' given in the schema"):
        prepare_context(train, test, synth, ReportSettings(), schema=Schema(table=Table(target="nope")))


def test_without_a_holdout_the_training_rows_are_split_70_30(data, few_models):
    train, _, synth = data
    table = utility(train[:2000], None, synth[:2000]).tables[0]
    assert table.holdout == "split"
    # R learns from as many of the other 1,400 training rows as S from half the synthetic rows
    assert table.rows == {"training": 1000, "holdout": 600, "synthetic": 2000} and table.fit_rows == 1000
    assert abs(table.tstr - table.real_baseline) < 0.03


def test_rows_are_capped_by_n_max_utility(data, few_models):
    """Each model learns from at most n_max rows and is scored on at most n_max rows."""
    train, test, synth = data
    result = utility(train, test, synth, n_max_utility=800)
    assert result.n_max == 800
    assert result.tables[0].rows == {"training": 800, "holdout": 800, "synthetic": 1600}
    assert result.tables[0].fit_rows == 800


def test_every_model_learns_from_as_many_rows_and_s_and_tstr_share_one_fit(data, monkeypatch):
    """R learns from as many real rows as S and TSTR from the first synthetic half, fitted once."""
    fitted = []

    class Recorded(GaussianNB):
        def fit(self, x, y, sample_weight=None):
            fitted.append(len(y))
            return super().fit(x, y, sample_weight)

    family = utility_models.Family("Recorded", lambda s: Recorded(), lambda s: BayesianRidge())
    monkeypatch.setattr(utility_models, "FAMILIES", (family,))
    train, test, synth = data
    table = utility(train.iloc[:1500], test, synth.iloc[:2400]).tables[0]
    assert fitted == [1200, 1200]  # real rows and the synthetic half: two fits, not three
    assert table.fit_rows == 1200
    assert table.rows == {"training": 1200, "holdout": 3000, "synthetic": 2400}
    assert None not in (table.models[0].real, table.models[0].synthetic, table.models[0].tstr)


def test_a_side_too_small_to_train_on_leaves_the_other_all_of_its_rows(data, few_models):
    train, test, synth = data
    table = utility(train.iloc[:500], test.iloc[:500], synth.iloc[:15]).tables[0]
    assert table.rows["training"] == 500
    assert all(m.real is not None and m.synthetic is None and m.tstr is None for m in table.models)
    assert any("too few rows to train on (7 in the first synthetic half" in m for m in table.messages)
    table = utility(train.iloc[:8], test.iloc[:500], synth.iloc[:600]).tables[0]
    assert table.fit_rows == 300 and table.rows["synthetic"] == 600
    assert all(m.real is None and m.synthetic is not None and m.tstr is not None for m in table.models)


def test_the_same_seed_gives_the_same_numbers(data, few_models):
    train, test, synth = (d.iloc[:400] for d in data)
    first = utility(train, test, synth, seed=3)
    assert first == utility(train, test, synth, seed=3)
    assert first != utility(train, test, synth, seed=4)


def test_the_numbers_do_not_depend_on_the_number_of_cores(data, few_models, monkeypatch):
    import reportgen.threads

    train, test, synth = (d.iloc[:400] for d in data)
    parallel = utility(train, test, synth)
    monkeypatch.setattr(reportgen.threads, "usable_cores", lambda: 1)
    assert utility(train, test, synth) == parallel


# -- the page ------------------------------------------------------------------------------------
def test_the_report_shows_the_section_with_its_figure(tmp_path, only_utility):
    rng = np.random.default_rng(6)
    train, test, synth = people(600, rng), people(600, rng), people(600, rng)
    results = rg.report(train, test, synth, tmp_path / "r.html", targets={"table": "y"}, n_max_utility=500)
    section = results.sections["utility"]
    assert isinstance(section, UtilityResult) and section.status == "ok"
    html = (tmp_path / "r.html").read_text()
    assert "Utility: models trained on synthetic data" in html
    assert "Synthetic ranking agreement" in html
    assert "model learns from 300 rows, real or synthetic, and is scored on at most 500" in html
    assert 'alt="Model rankings and scores for y"' in html
    loaded = rg.ReportResults.load(tmp_path / "r.json")
    assert loaded.sections["utility"] == section
    assert loaded.run.settings["targets"] == {"table": "y"} and loaded.run.settings["n_max_utility"] == 500


def test_the_command_line_takes_a_target(tmp_path, few_models, only_utility):
    rng = np.random.default_rng(8)
    for name, frame in {
        "train": people(400, rng),
        "test": people(400, rng),
        "synth": people(400, rng),
    }.items():
        write_folder(rg.RelationalData({"people": frame}), tmp_path / name)
    args = ["report", "--out", str(tmp_path / "r.html"), "--quiet"]
    for role in ("train", "test", "synth"):
        args += [f"--{role}", str(tmp_path / role)]
    assert (
        main([*args, "--target", "y", "--n-max-utility", "300"]) == 3
    )  # only utility ran: privacy bar fails closed
    assert main([*args, "--target", "y", "--n-max-utility", "300", "--allow-not-evaluated"]) == 0
    table = rg.ReportResults.load(tmp_path / "r.json").sections["utility"].tables[0]
    assert (table.table, table.target, table.rows["holdout"]) == ("people", "y", 300)
    assert main([*args, "--target", "people=nope"]) == 2


def test_a_target_column_absent_from_the_synthetic_data_is_a_finding_not_a_crash(tmp_path):
    rng = np.random.default_rng(5)
    x = rng.normal(size=800)
    real = pd.DataFrame(
        {"x": x, "z": rng.normal(size=800), "y": np.where(x + rng.normal(size=800) > 0, "yes", "no")}
    )
    synth = real.sample(frac=1.0, random_state=1).drop(columns=["y"]).reset_index(drop=True).iloc[:400]
    results = rg.report(
        real.iloc[:400],
        real.iloc[400:],
        synth,
        tmp_path / "r.html",
        targets={"table": "y"},
        fail_under={"privacy": 0},
    )
    finding = next(f for f in results.findings if f.code == "missing_target")
    assert (finding.table, finding.column) == ("table", "y")
    table = results.sections["utility"].tables[0]
    assert table.tstr is None and any("no 'y' value" in m for m in table.messages)
    assert results.sections["similarity"].status == "ok"


def with_wide_city(frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """The city column replaced by one with half as many levels as rows (every level used)."""
    n_levels = len(frame) // 2
    levels = np.concatenate([np.arange(n_levels), rng.integers(0, n_levels, len(frame) - n_levels)])
    return frame.assign(city=[f"city {c}" for c in rng.permutation(levels)])


def test_a_wide_categorical_gets_a_bounded_number_of_features():
    rng = np.random.default_rng(2)
    frame = utility_models.feature_frame(with_wide_city(people(6000, rng), rng), KINDS)
    width = utility_models.preprocessor(KINDS, max_categories=20).fit_transform(frame).shape[1]
    assert width == 3 + 20  # three numbers; the city's 3,000 levels: the 19 most frequent, "infrequent"


def test_utility_runs_with_a_wide_categorical(few_models):
    rng = np.random.default_rng(3)
    train, test, synth = (with_wide_city(people(2000, rng), rng) for _ in range(3))
    table = utility(train, test, synth).tables[0]
    assert table.features == ["x1", "x2", "x3", "city"]
    assert all(m.real is not None and m.tstr is not None for m in table.models)


def test_a_near_unique_column_is_not_a_feature(few_models):
    rng = np.random.default_rng(4)
    train, test, synth = (
        people(600, rng).assign(code=lambda f: pd.Categorical(f.index.astype(str))) for _ in range(3)
    )
    result = utility(train, test, synth)
    assert result.tables[0].features == ["x1", "x2", "x3", "city"]


@pytest.mark.parametrize(
    "family", [f for f in utility_models.FAMILIES if f.features != "float64"], ids=lambda f: f.name
)
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_tree_families_give_the_same_numbers_in_the_form_they_are_given(family, task):
    """Families fitted on float32 or sparse features (as FEATURE_FORMS says) predict exactly as on float64."""
    rng = np.random.default_rng(5)
    frame = people(600, rng)
    kinds = {c: KINDS[c] for c in ("x1", "x2", "x3", "city")}
    prep = utility_models.preprocessor(kinds, 20)
    x = prep.fit_transform(utility_models.feature_frame(frame, kinds))
    y = frame["y"].to_numpy(dtype=object) if task == "classification" else frame["x1"].to_numpy() * 2
    fit, scored = slice(0, 400), slice(400, None)
    forms = {"float64": (x[fit], x[scored])}
    forms[family.features] = (
        utility_models.in_forms(x[fit], "csc")[family.features],
        utility_models.in_forms(x[scored], "csr")[family.features],
    )
    scores = [
        utility_models.score(family.make(task, 3).fit(a, y[fit]), b, y[scored], task)
        for a, b in forms.values()
    ]
    assert len(scores) == 2 and scores[0] == scores[1]
