"""Known-answer tests of the sequences section and of the order a schema declares (``order_by``).

Generated visits per customer: dates with gaps, an amount that drifts upwards (a random walk) and a
status that mostly stays and otherwise moves on. An honest synthetic set is another draw of the
same process; the defects are a shuffled order within each customer and sequences whose every row
repeats the first. Each defect must fall clearly below its reference, the honest draw must not.
"""

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen import ForeignKey, PrimaryKey, RelationalData, Schema, Table
from reportgen.catalogue import get_section, sections
from reportgen.data.io import read_schema, write_schema
from reportgen.data.roles import TRAIN
from reportgen.errors import SchemaError
from reportgen.metrics.registry import MetricNotApplicable
from reportgen.metrics.sequences import (
    MIN_VALUES,
    SequencesResult,
    compute_sequences,
    lag1_autocorrelation,
    ordered_rows,
)
from reportgen.preparation import prepare_context
from reportgen.reference_split import training_split
from reportgen.render.document import appendix_numbers, judge
from reportgen.render.environment import environment
from reportgen.render.sequence_figures import furthest_measures
from reportgen.sections.sequences import SECTION
from reportgen.settings import ReportSettings

STATES = np.array(["new", "active", "lapsed", "closed"])
SECRET = "held-by-one-real-row"
SCHEMA = Schema(
    customers=Table(cid=PrimaryKey(), region="categorical"),
    visits=Table(
        vid=PrimaryKey(),
        cid=ForeignKey(parent="customers"),
        date="datetime",
        amount="numeric",
        status="categorical",
        order_by=["date"],
    ),
)
CLEARLY = 0.15  # below the reference by more than this: caught
WITHIN = 0.10  # the honest draw's measures stay this close to their reference


def _status(first: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A status per row: a new sequence starts new or active; each step stays (70%) or moves on."""
    moves = np.where(first, 0, rng.random(len(first)) > 0.7)
    starts = np.where(first, rng.integers(0, 2, len(first)), 0)
    since = np.cumsum(first) - 1  # the sequence of each row
    level = pd.Series(starts + moves).groupby(since).cumsum().to_numpy()
    return STATES[np.minimum(level, 3)]


def draw(n: int, seed: int, defect: str | None = None, first_id: int = 0) -> dict[str, pd.DataFrame]:
    """``n`` customers with 2-9 visits each, the visits' rows in random order in the data."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(2, 10, n)
    cid = np.repeat(np.arange(first_id, first_id + n), lengths)
    first = np.r_[True, cid[1:] != cid[:-1]]
    gaps = np.where(first, rng.uniform(0, 365, len(cid)), rng.exponential(30, len(cid)))
    steps = np.where(first, rng.normal(100, 20, len(cid)), rng.normal(5, 3, len(cid)))
    visits = pd.DataFrame(
        {
            "vid": np.arange(len(cid)) + 10 * first_id,
            "cid": cid,
            "date": pd.Timestamp("2020-01-01")
            + pd.to_timedelta(pd.Series(gaps).groupby(cid).cumsum(), unit="D"),
            "amount": pd.Series(steps).groupby(cid).cumsum().to_numpy(),
            "status": _status(first, rng),
        }
    )
    if defect == "shuffled":  # each customer's amounts and statuses in a random order; dates kept
        within = np.lexsort((rng.random(len(cid)), cid))
        visits[["amount", "status"]] = visits[["amount", "status"]].to_numpy()[within]
    elif defect == "constant":  # every visit repeats the customer's first
        columns = ["date", "amount", "status"]
        visits[columns] = visits.groupby("cid")[columns].transform("first")
    customers = pd.DataFrame({"cid": np.arange(first_id, first_id + n), "region": rng.choice(["n", "s"], n)})
    return {"customers": customers, "visits": visits.sample(frac=1.0, random_state=seed)}


def sequences(train, test, synth, schema: Schema = SCHEMA) -> SequencesResult:
    context = prepare_context(RelationalData(train, schema), test, synth, ReportSettings())
    return compute_sequences(context)


@pytest.fixture(scope="module")
def results() -> dict[str, SequencesResult]:
    train, holdout = draw(300, 1), draw(300, 2, first_id=1000)
    return {
        defect: sequences(train, holdout, draw(300, 3, defect, first_id=5000))
        for defect in ("honest", "shuffled", "constant")
    }


def shortfalls(result: SequencesResult) -> dict[tuple[str, str], float]:
    """Per (column, measure): how far the similarity falls below its reference."""
    (table,) = result.tables
    return {(m.column, m.measure): m.shortfall for m in table.measures}


def page_one(result: SequencesResult):
    spec = get_section("sequences").headlines[0]
    return spec.headline(spec.read(result))


def test_an_honest_sample_stays_within_its_references(results):
    honest = results["honest"]
    assert len(shortfalls(honest)) == 10  # 3 measures of date and status, 4 of amount
    assert all(gap < WITHIN for gap in shortfalls(honest).values()), shortfalls(honest)
    headline = page_one(honest)
    assert headline.name == "sequence_similarity" and not headline.worse
    assert 0 <= headline.value <= 100 and headline.reference is not None


def test_a_shuffled_order_is_caught_by_the_steps_autocorrelation_and_transitions_only(results):
    gaps = shortfalls(results["shuffled"])
    caught = {
        ("amount", "steps"),
        ("amount", "autocorrelation"),
        ("status", "transitions"),
        ("status", "stay"),
    }
    assert all(gaps[key] > CLEARLY for key in caught), gaps
    # what a sequence holds is unchanged (its mean, spread and distinct values), and so are the dates
    assert all(gap < WITHIN for key, gap in gaps.items() if key not in caught), gaps
    assert page_one(results["shuffled"]).worse


def test_constant_sequences_are_caught_by_spread_steps_stays_and_distinct_values(results):
    gaps = shortfalls(results["constant"])
    for key in [("amount", "spread"), ("amount", "steps"), ("date", "spread"), ("date", "steps")]:
        assert gaps[key] > 0.5, (key, gaps)
    for key in [("status", "transitions"), ("status", "stay"), ("status", "distinct")]:
        assert gaps[key] > CLEARLY, (key, gaps)
    assert page_one(results["constant"]).worse


def test_the_order_comes_from_the_order_columns_then_the_primary_key():
    day = pd.Timestamp("2024-01-01")
    customers = pd.DataFrame({"cid": range(12), "region": ["n"] * 12})
    visits = pd.DataFrame(
        {
            "vid": [3, 2, 1, *range(10, 43)],
            "cid": [0, 0, 0] + [c for c in range(1, 12) for _ in range(3)],
            "date": [day + pd.Timedelta(days=1), day, day]
            + [day + pd.Timedelta(days=i % 3) for i in range(33)],
            "amount": [30.0, 20.0, 10.0, *np.arange(33.0)],
            "status": ["c", "b", "a"] + ["a", "b", "c"] * 11,
        }
    )
    data = {"customers": customers, "visits": visits}
    context = prepare_context(RelationalData(data, SCHEMA), None, data, ReportSettings())
    ordered = ordered_rows(context, SCHEMA.sequences("visits")[0], TRAIN)
    mine = (ordered.frame["amount"] == 10.0) & (ordered.frame["status"] == "a")  # one of customer 0's visits
    first = ordered.frame[ordered.group == ordered.group[mine.to_numpy()][0]]
    # customer 0: the two visits of the first day are tied, the primary key orders them (1, then 2)
    assert first["amount"].tolist() == [10.0, 20.0, 30.0]
    assert first["status"].tolist() == ["a", "b", "c"]


def test_the_rows_order_in_the_data_changes_nothing():
    train = draw(200, 4)
    reversed_rows = {name: frame.iloc[::-1] for name, frame in train.items()}
    result = sequences(train, None, reversed_rows)
    assert all(m.similarity == 1.0 for m in result.tables[0].measures)
    assert result.reference is None  # no holdout, no reference


def test_without_a_holdout_the_training_rows_set_aside_give_the_references():
    context = prepare_context(
        RelationalData(draw(600, 1), SCHEMA), None, draw(300, 3, "shuffled", first_id=5000), ReportSettings()
    )
    split = training_split(context)
    assert split is not None and split.split.root == "customers"
    result = compute_sequences(split.context)
    assert result.reference is not None and page_one(result).worse
    assert shortfalls(result)[("amount", "steps")] > CLEARLY


def test_without_an_order_the_section_does_not_apply():
    unordered = Schema(
        customers=Table(cid=PrimaryKey(), region="categorical"),
        visits=Table(vid=PrimaryKey(), cid=ForeignKey(parent="customers"), date="datetime"),
    )
    data = draw(50, 5)
    data["visits"] = data["visits"][["vid", "cid", "date"]]
    with pytest.raises(MetricNotApplicable, match="order_by"):
        sequences(data, None, data, unordered)


def test_the_page_and_the_json_show_aggregates_only(results):
    train = draw(300, 1)
    train["visits"].iloc[0, train["visits"].columns.get_loc("status")] = SECRET
    result = sequences(train, draw(300, 2, first_id=1000), draw(300, 3, "shuffled", first_id=5000))
    figure = furthest_measures(result.tables[0])
    assert len(figure.axes) == 2
    env = environment()
    page = env.get_template("sections/sequences.html.j2").render(
        result=result, figures={}, run=None, title="Fidelity: sequences", findings=[], worse=judge(SECTION)
    )
    method = env.get_template("sections/sequences_methodology.html.j2").render(
        result=result, results=None, numbers=appendix_numbers(env, sections())
    )
    text = result.model_dump_json()
    assert 'visits</span> per <span class="name">customers' in page and "KS(" in method
    # the shuffled steps, autocorrelation, transitions and stays, by page 1's rule
    assert page.count('class="num bad"') == 4
    assert f"needs {MIN_VALUES} training sequences" in method  # the constants the appendix writes out
    assert f"at least {MIN_VALUES} real steps" in method
    assert SECRET not in page and SECRET not in text
    assert SequencesResult.model_validate_json(text) == result


# -- the order a schema declares ----------------------------------------------------------------
def test_order_by_round_trips_through_a_schema_file(tmp_path):
    write_schema(SCHEMA, tmp_path / "schema.yaml")
    text = (tmp_path / "schema.yaml").read_text()
    assert "order_by:\n    - date" in text
    assert read_schema(tmp_path / "schema.yaml")["visits"].order_by == ("date",)
    assert rg.Table(order_by="date").order_by == ("date",)


def test_an_order_column_the_data_lacks_is_named():
    data = draw(20, 6)
    schema = Schema(
        customers=Table(cid=PrimaryKey()),
        visits=Table(vid=PrimaryKey(), cid=ForeignKey(parent="customers"), order_by=["when"]),
    )
    with pytest.raises(SchemaError, match=r"Table 'visits': order_by names column\(s\) \['when'\]"):
        RelationalData(data, schema)


def test_an_order_needs_a_parent_to_order_within():
    with pytest.raises(SchemaError, match="Table 'visits': order_by \\['date'\\].*no foreign key"):
        Schema(visits=Table(vid=PrimaryKey(), order_by=["date"]))
    with pytest.raises(SchemaError, match="Table 'seasons'.*all hold an order column"):
        Schema(
            teams=Table(year=PrimaryKey(kind="integer"), team=PrimaryKey()),
            seasons=Table(
                foreign_keys=[ForeignKey(parent="teams", columns=["year", "team"])], order_by=["year"]
            ),
        )
    with pytest.raises(SchemaError, match="Schema table 'visits': order_by takes a list of distinct"):
        Schema.from_dict({"tables": {"visits": {"order_by": ["date", "date"]}}})


def test_a_key_that_holds_the_order_column_is_no_sequence_and_a_subset_drops_an_orphaned_order():
    schema = Schema(
        people=Table(pid=PrimaryKey()),
        teams=Table(year=PrimaryKey(kind="integer"), team=PrimaryKey()),
        seasons=Table(
            pid=ForeignKey(parent="people"),
            foreign_keys=[ForeignKey(parent="teams", columns=["year", "team"])],
            order_by=["year"],
        ),
    )
    assert [r.parent for r in schema.sequences("seasons")] == ["people"]
    assert schema.subset(["teams", "seasons"])["seasons"].order_by == ()
    assert schema.subset(["people", "seasons"])["seasons"].order_by == ("year",)


# -- one measure's defect is not diluted by the others ---------------------------------------------
def shuffle_within(data: dict[str, pd.DataFrame], columns: list[str], seed: int) -> dict[str, pd.DataFrame]:
    """``data`` with ``columns`` of the visits shuffled within each customer (all else kept)."""
    visits = data["visits"].sort_values(["cid", "date"]).reset_index(drop=True)
    within = np.lexsort((np.random.default_rng(seed).random(len(visits)), visits["cid"].to_numpy()))
    for column in columns:
        visits[column] = visits[column].to_numpy()[within]
    return {"customers": data["customers"], "visits": visits}


def test_one_shuffled_column_among_many_is_caught_by_the_headline():
    train, holdout, synth = draw(300, 1), draw(300, 2, first_id=1000), draw(300, 3, first_id=5000)
    for data, seed in ((train, 11), (holdout, 12), (synth, 13)):  # columns a shuffle leaves alone
        rng = np.random.default_rng(seed)
        for i in range(4):
            data["visits"][f"x{i}"] = rng.normal(size=len(data["visits"]))
    schema = Schema(
        customers=SCHEMA["customers"],
        visits=Table(
            **{**dict(SCHEMA["visits"].kinds), "vid": PrimaryKey(), "cid": ForeignKey(parent="customers")},
            order_by=["date"],
        ),
    )
    honest = sequences(train, holdout, synth, schema)
    shuffled = sequences(train, holdout, shuffle_within(synth, ["amount"], 14), schema)
    (table,) = shuffled.tables
    assert len(table.measures) == 26  # 4 of each of 5 numbers, 3 of the date and of the status
    # the mean over the measures hardly moves: the old headline (the mean) did not see it
    assert table.reference - table.similarity < 0.05 < table.worst.shortfall
    assert table.worst.column == "amount" and table.worst.measure in ("steps", "autocorrelation")
    assert page_one(shuffled).worse and not page_one(honest).worse
    assert all(m.excess < 0 for m in honest.tables[0].measures), shortfalls(honest)


def test_a_measure_s_tolerance_is_its_sampling_noise_and_never_under_ten_points(results):
    (table,) = results["honest"].tables
    assert all(m.tolerance is not None and m.tolerance >= 0.10 for m in table.measures)
    # the noise of a real sample of the synthetic's size: not the synthetic data's own spread, which
    # a generator that repeats one value everywhere would shrink to nothing
    for defect in ("shuffled", "constant"):
        assert [m.tolerance for m in results[defect].tables[0].measures] == [
            m.tolerance for m in table.measures
        ]
    small = sequences(draw(40, 1), draw(40, 2, first_id=1000), draw(40, 3, first_id=5000))
    widest = max(m.tolerance for m in small.tables[0].measures)
    assert widest > 0.2  # 40 sequences a side: a per-sequence mean's KS moves by more than 10 points
    again = sequences(draw(40, 1), draw(40, 2, first_id=1000), draw(40, 3, first_id=5000))
    assert again == small  # deterministic per seed


# -- order consistency with the parent: claims before their policy starts ----------------------
POLICY_SCHEMA = Schema(
    policies=Table(pid=PrimaryKey(), holder_born="datetime", start="datetime", premium="numeric"),
    claims=Table(
        claim=PrimaryKey(),
        pid=ForeignKey(parent="policies"),
        date="datetime",
        amount="numeric",
        order_by="date",
    ),
)


def policies(n: int, seed: int, early: float = 0.0, first_id: int = 0) -> dict[str, pd.DataFrame]:
    """``n`` policies with 1-5 claims after their start.

    ``early``: the share whose claims all move to before the start (the defect). A holder's birth
    precedes every claim too, by decades.
    """
    rng = np.random.default_rng(seed)
    start = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.uniform(0, 700, n), unit="D")
    lengths = rng.integers(1, 6, n)
    pid = np.repeat(np.arange(n), lengths)
    lead = pd.Series(rng.exponential(40, len(pid))).groupby(pid).cumsum().to_numpy()
    moved = np.repeat(rng.random(n) < early, lengths)
    lead = np.where(moved, lead - 400, lead)  # the whole sequence before the start
    claims = pd.DataFrame(
        {
            "claim": np.arange(len(pid)) + 10 * first_id,
            "pid": pid + first_id,
            "date": start[pid] + pd.to_timedelta(lead, unit="D"),
            "amount": rng.gamma(2, 500, len(pid)),
        }
    )
    holders = pd.DataFrame(
        {
            "pid": np.arange(n) + first_id,
            "holder_born": start - pd.to_timedelta(rng.uniform(20, 70, n) * 365, unit="D"),
            "start": start,
            "premium": rng.normal(800, 100, n),
        }
    )
    return {"policies": holders, "claims": claims}


@pytest.fixture(scope="module")
def claims() -> dict[str, SequencesResult]:
    train, holdout = policies(400, 1), policies(400, 2, first_id=1000)
    return {
        name: sequences(train, holdout, policies(400, 3, early, first_id=5000), POLICY_SCHEMA)
        for name, early in (("honest", 0.0), ("early", 0.2))
    }


def before_parent(result: SequencesResult):
    spec = get_section("sequences").headlines[1]
    assert spec.name == "sequences_before_parent"
    return spec.headline(spec.read(result))


def test_claims_before_their_policy_starts_are_flagged_against_the_holdout(claims):
    order = claims["early"].tables[0].parent_order
    assert order is not None and order.parent_column == "start" and order.child_column == "date"
    assert order.before["training"] == 0.0 and order.before["holdout"] == 0.0
    assert 0.15 < order.before["synthetic"] < 0.25
    headline = before_parent(claims["early"])
    assert headline.worse and headline.value == order.before["synthetic"] and headline.reference == 0.0
    honest = before_parent(claims["honest"])
    assert honest.value == 0.0 and not honest.worse


def test_the_parent_date_is_the_one_most_sequences_start_after_then_the_nearest(claims):
    order = claims["honest"].tables[0].parent_order
    assert order is not None
    # both dates precede every training claim; the policy's start is the nearer of the two
    assert order.candidates == {"holder_born": 0.0, "start": 0.0} and order.parent_column == "start"


def test_a_parent_date_after_its_children_is_no_start_and_is_said_so():
    train = policies(100, 1)
    train["policies"]["start"] = train["policies"]["start"] + pd.Timedelta(days=5000)
    train["policies"] = train["policies"].drop(columns="holder_born")
    schema = Schema(
        policies=Table(pid=PrimaryKey(), start="datetime", premium="numeric"), claims=POLICY_SCHEMA["claims"]
    )
    (table,) = sequences(train, None, train, schema).tables
    assert table.parent_order is None and "do not precede" in (table.parent_order_skipped or "")
    assert get_section("sequences").headlines[1].read(sequences(train, None, train, schema)) is None


def test_a_small_difference_in_a_few_sequences_is_within_the_noise():
    train, holdout = policies(40, 1), policies(40, 2, first_id=1000)
    synth = policies(40, 3, early=0.05, first_id=5000)  # a sequence or two before the start
    headline = before_parent(sequences(train, holdout, synth, POLICY_SCHEMA))
    assert headline.tolerance is not None and headline.tolerance > headline.value - headline.reference
    assert not headline.worse


def test_the_page_shows_the_shares_before_the_parent_and_marks_the_defect(claims):
    env = environment()

    def page(result: SequencesResult) -> str:
        return env.get_template("sections/sequences.html.j2").render(
            result=result,
            figures={},
            run=None,
            title="Fidelity: sequences",
            findings=[],
            worse=judge(SECTION),
        )

    early, honest = page(claims["early"]), page(claims["honest"])
    assert 'policies row\'s <span class="name">start</span>' in early
    assert '<span class="bad">' in early and '<span class="bad">' not in honest
    method = env.get_template("sections/sequences_methodology.html.j2").render(
        result=None, results=None, numbers=appendix_numbers(env, sections())
    )
    assert "3 · √" in method and "before the parent" in method


def test_lag1_autocorrelation_known_answers():
    ramp = np.array([[-1.0, 0.0], [0.0, 1.0]])  # one sequence -1, 0, 1 centred on its mean
    assert lag1_autocorrelation(ramp) == 0.0  # sum(d_t d_t+1) = 0
    assert lag1_autocorrelation(np.array([[1.0, 2.0], [2.0, 4.0]])) == pytest.approx(1.0)
    assert lag1_autocorrelation(np.array([[1.0, -1.0], [-1.0, 1.0]])) == pytest.approx(-1.0)
    assert lag1_autocorrelation(np.zeros((3, 2))) == 0.0 and lag1_autocorrelation(np.zeros((0, 2))) == 0.0


def careers(n: int, seed: int, first_id: int, shuffled: bool = False) -> dict[str, pd.DataFrame]:
    """Seasons that rise and fall over a career (a player's games), each season's value once, in any order."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(4, 15, n)
    cid = np.repeat(np.arange(first_id, first_id + n), lengths)
    season = pd.Series(np.ones(len(cid))).groupby(cid).cumsum().to_numpy()
    length = np.repeat(lengths, lengths)
    arc = 60 * (1 - ((season - 1) / (length - 1) * 2 - 1) ** 2)  # 0 at both ends, 60 mid-career
    games = np.repeat(rng.normal(60, 20, n), lengths) + arc + rng.normal(0, 8, len(cid))
    if shuffled:  # each player's seasons in a random order: the same values, no career
        games = games[np.lexsort((rng.random(len(cid)), cid))]
    visits = pd.DataFrame(
        {"vid": np.arange(len(cid)) + 100 * first_id, "cid": cid, "year": season, "games": games}
    )
    customers = pd.DataFrame({"cid": np.arange(first_id, first_id + n)})
    return {"customers": customers, "visits": visits}


def test_seasons_shuffled_within_a_career_are_caught_by_the_autocorrelation():
    schema = Schema(
        customers=Table(cid=PrimaryKey()),
        visits=Table(
            vid=PrimaryKey(),
            cid=ForeignKey(parent="customers"),
            year="integer",
            games="numeric",
            order_by=["year"],
        ),
    )
    train, holdout = careers(300, 1, 0), RelationalData(careers(300, 2, 1000), schema)
    found = {
        shuffled: shortfalls(
            sequences(train, holdout, RelationalData(careers(300, 3, 5000, shuffled), schema), schema)
        )
        for shuffled in (False, True)
    }
    assert found[True][("games", "autocorrelation")] > CLEARLY, found[True]
    assert all(gap < WITHIN for gap in found[False].values()), found[False]
    assert found[True][("games", "mean")] < WITHIN and found[True][("games", "spread")] < WITHIN
