"""Relational data as it really is: giant entities, a lookup referenced twice, composite keys with
real orphans, a column in two foreign keys, missing synthetic tables; each on a schema made here."""

import json

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen import ForeignKey, PrimaryKey, RelationalData, Schema, SplitWarning, Table
from reportgen.cli import main
from reportgen.data.io import read_schema, write_folder
from reportgen.data.links import link
from reportgen.data.roles import TRAIN
from reportgen.data.validation import key_findings


def closed(data: RelationalData) -> bool:
    return all(not any(found.orphans.values()) for found in data.integrity().values())


# -- a giant entity: one region holds 95% of the customers ------------------------------------------
def regions(seed: int = 0, n_customers: int = 2000, n_orders: int = 10_000) -> RelationalData:
    rng = np.random.default_rng(seed)
    region = pd.DataFrame({"region_id": [1, 2], "name": ["north", "south"]})
    customers = pd.DataFrame(
        {
            "customer_id": np.arange(n_customers),
            "region_id": np.where(rng.random(n_customers) < 0.95, 1, 2),
            "age": rng.normal(45, 12, n_customers).round(),
            "segment": rng.choice(["a", "b", "c"], n_customers),
        }
    )
    orders = pd.DataFrame(
        {
            "order_id": np.arange(n_orders),
            "customer_id": rng.integers(0, n_customers, n_orders),
            "amount": rng.lognormal(3, 1, n_orders).round(2),
            "channel": rng.choice(["web", "shop"], n_orders),
        }
    )
    schema = Schema(
        region=Table(region_id=PrimaryKey()),
        customers=Table(customer_id=PrimaryKey(), region_id=ForeignKey(parent="region")),
        orders=Table(order_id=PrimaryKey(), customer_id=ForeignKey(parent="customers")),
    )
    return RelationalData({"region": region, "customers": customers, "orders": orders}, schema)


def test_sampling_a_giant_entity_draws_rows_where_they_are_and_never_empties_a_table():
    data = regions()
    assert data.default_root() == "region"  # whole-entity sampling from here would keep 0 entities
    sample = data.sample(1000, seed=0)
    assert {n: len(f) for n, f in sample.items()} == {"region": 2, "customers": 1000, "orders": 1000}
    assert closed(sample)
    assert sample.sampling["orders"].method == "uniform random rows"
    assert sample.sampling["customers"].method.startswith("the rows that sampled 'orders' rows refer to")
    assert (sample.sampling["orders"].available, sample.sampling["orders"].used) == (10_000, 1000)
    assert sample.sampling["region"].method == "all rows"


def test_sampling_keeps_whole_entities_when_they_fit():
    data = regions()
    sample = data.sample(4000, seed=0, root="customers")
    assert sample.sampling["orders"].method.startswith("whole entities of 'customers'")
    counts = link(sample, sample.schema.relations[1]).children_per_parent()
    full = link(data, data.schema.relations[1]).children_per_parent_row()
    kept = data["customers"]["customer_id"].isin(sample["customers"]["customer_id"]).to_numpy()
    assert sorted(counts) == sorted(full[kept])  # every kept customer kept all of its orders


@pytest.mark.usefixtures("figures_not_drawn")  # compares numbers (tests/drawing.py)
def test_a_report_on_a_giant_entity_evaluates_every_table_on_rows_and_says_how(tmp_path):
    train, synth = regions(0), regions(1)
    results = rg.report(train, None, synth, tmp_path / "r.html", n_max_train=1000, n_max_synth=1000, seed=0)
    tables = {t.name: t for t in results.sections["overview"].tables}
    assert {n: (t.used_train, t.used_synth) for n, t in tables.items()} == {
        "region": (2, 2),
        "customers": (1000, 1000),
        "orders": (1000, 1000),
    }
    assert tables["orders"].sampling == {
        "training": "uniform random rows",
        "synthetic": "uniform random rows",
    }
    sampled = [f for f in results.findings if f.code == "sampled"]
    assert {(f.table, "10,000 rows" in f.message) for f in sampled} == {
        ("customers", False),
        ("orders", True),
    }
    assert not [f for f in results.findings if f.code == "all_missing_column"]
    # cardinality is counted on all rows (of the kept training part: no holdout, so references come
    # from a split), so a fresh sample of the same process scores near 1
    relational = results.sections["relational"]
    by_label = {r.label: r for r in relational.relations}
    kept = results.run.reference_split.kept["orders"]
    assert by_label["orders.customer_id → customers.customer_id"].train.children == kept
    assert by_label["orders.customer_id → customers.customer_id"].similarity > 0.9
    html = (tmp_path / "r.html").read_text()
    assert "uniform random rows" in html


def test_split_avoids_a_lumpy_root_and_names_the_tables_copied_to_both_sides():
    data = regions()
    plan = data.plan_split(0.8)
    assert plan.root == "customers"
    assert plan.copied_tables == ("region",)
    assert plan.problems == ()
    train, test = data.split(0.8, seed=0)
    assert train.split_plan == plan
    assert 300 < len(test["customers"]) < 500 and 1500 < len(test["orders"]) < 2500
    assert test["region"].equals(train["region"])
    assert closed(train) and closed(test)


def test_split_on_a_lumpy_root_warns_with_the_share():
    with pytest.warns(SplitWarning, match=r"one 'region' entity holds 9\d% of table 'customers'"):
        train, test = regions().split(0.8, seed=0, root="region")
    assert len(train["customers"]) + len(test["customers"]) == 2000


# -- a fact table that references one lookup twice -------------------------------------------------
def trips(orphans: int = 0) -> RelationalData:
    rng = np.random.default_rng(3)
    cities = pd.DataFrame({"city_id": np.arange(30), "size": rng.choice(["s", "m", "l"], 30)})
    n = 600
    trips = pd.DataFrame(
        {
            "trip_id": np.arange(n),
            "from_city": rng.integers(0, 30, n),
            "to_city": rng.integers(0, 10, n),  # only the first ten cities are destinations
            "km": rng.gamma(2, 50, n).round(),
        }
    )
    trips.loc[: orphans - 1, "to_city"] = 99  # no such city
    schema = Schema(
        cities=Table(city_id=PrimaryKey()),
        trips=Table(
            trip_id=PrimaryKey(), from_city=ForeignKey(parent="cities"), to_city=ForeignKey(parent="cities")
        ),
    )
    return RelationalData({"cities": cities, "trips": trips}, schema)


def test_a_lookup_referenced_twice_is_two_relations_each_with_its_own_count():
    data = trips(orphans=7)
    assert [str(r) for r in data.schema.relations] == [
        "trips.from_city -> cities.city_id",
        "trips.to_city -> cities.city_id",
    ]
    orphans = {str(r): n for r, n in data.integrity()["trips"].orphans.items()}
    assert orphans == {"trips.from_city -> cities.city_id": 0, "trips.to_city -> cities.city_id": 7}
    to_city = link(data, data.schema.relations[1])
    assert (to_city.children_per_parent() > 0).sum() == 10  # twenty cities are nobody's destination


def test_real_orphans_are_reported_and_the_report_goes_on(tmp_path):
    train, synth = trips(orphans=7), trips(orphans=30)
    results = rg.report(train, train, synth, tmp_path / "r.html", seed=0)
    real = [f for f in results.findings if f.code == "real_orphans"]
    assert [(f.table, f.column) for f in real] == [("trips", "to_city")] * 2  # training, then holdout
    assert ["7 of 600 training rows" in real[0].message, "7 of 600 holdout rows" in real[1].message] == [
        True
    ] * 2
    relation = results.sections["relational"].relations[1]
    assert (relation.integrity.orphans, relation.train_integrity.orphans) == (30, 7)
    keys = {t.name: t.keys for t in results.sections["overview"].tables}["trips"]
    assert (keys["training"].n_orphans, keys["synthetic"].n_orphans) == (7, 30)


# -- a composite foreign key with real orphans, and a column in two foreign keys -------------------
def seasons(orphans: int) -> RelationalData:
    """teams keyed by (year, team); players refer to it by (year, team) and to leagues by league."""
    rng = np.random.default_rng(5)
    years, names = np.arange(2000, 2010), ["A", "B", "C", "D"]
    teams = pd.DataFrame([(y, t) for y in years for t in names], columns=["year", "team"])
    teams["wins"] = rng.integers(50, 110, len(teams))
    teams.loc[teams["year"] == 2009, "team"] = teams["team"].where(teams["team"] != "D", "E")
    n = 800
    players = pd.DataFrame(
        {
            "player_id": np.arange(n),
            "year": rng.choice(years[:-1], n),
            "team": rng.choice(names, n),
            "salary": rng.lognormal(13, 1, n).round(-3),
        }
    )
    # each part of these keys exists on its own, but the pair (2009, "D") does not
    players.loc[: orphans - 1, ["year", "team"]] = [2009, "D"]
    leagues = pd.DataFrame({"year": years, "commissioner": rng.choice(["x", "y"], len(years))})
    schema = Schema(
        leagues=Table(year=PrimaryKey()),
        teams=Table(year=ForeignKey(parent="leagues", primary_key=True), team=PrimaryKey(), wins="integer"),
        players=Table(
            player_id=PrimaryKey(),
            foreign_keys=[
                ForeignKey(parent="teams", columns=["year", "team"]),
                ForeignKey(parent="leagues", columns=["year"]),
            ],
        ),
    )
    return RelationalData({"leagues": leagues, "teams": teams, "players": players}, schema)


def test_a_composite_key_has_one_orphan_count_everywhere_and_a_column_may_be_in_two_keys(tmp_path):
    data = seasons(orphans=11)
    by_key = {str(r): n for r, n in data.integrity()["players"].orphans.items()}
    assert by_key == {"players.(year, team) -> teams.(year, team)": 11, "players.year -> leagues.year": 0}
    assert data.schema["players"].key_columns == {"player_id", "year", "team"}
    finding = next(f for f in key_findings(data, TRAIN) if f.code == "real_orphans")
    assert (finding.table, finding.column) == ("players", "year, team")
    assert "11 of 800 training rows" in finding.message

    synth = seasons(orphans=40)
    results = rg.report(data, None, synth, tmp_path / "r.html", seed=0)
    composite = next(
        r for r in results.sections["relational"].relations if r.parent == "teams" and r.child == "players"
    )
    assert (composite.train_integrity.orphans, composite.integrity.orphans) == (11, 40)
    overview = {t.name: t for t in results.sections["overview"].tables}["players"]
    assert overview.keys["training"].orphans == by_key
    assert [f.message.split(" rows")[0] for f in results.findings if f.code == "real_orphans"] == [
        "11 of 800 training"
    ]
    assert "synthetic_orphans" in {f.code for f in results.findings}


def test_composite_keys_round_trip_through_schema_files(tmp_path):
    schema = seasons(0).schema
    again = Schema.from_dict(schema.to_dict())
    assert again.to_dict() == schema.to_dict() and again.relations == schema.relations
    assert schema.to_dict()["tables"]["players"]["foreign_keys"] == [
        {"columns": ["year", "team"], "parent": "teams"},
        {"column": "year", "parent": "leagues"},
    ]
    neutral = {
        "tables": {
            "teams": {
                "primary_key": ["year", "team"],
                "columns": {"year": "id", "team": "id", "w": "numerical"},
            },
            "players": {
                "primary_key": ["pid"],
                "columns": {"pid": "id", "y": "numerical", "t": "categorical"},
            },
        },
        "relationships": [
            {
                "parent_table": "teams",
                "parent_key": ["year", "team"],
                "child_table": "players",
                "child_key": ["y", "t"],
            }
        ],
    }
    path = tmp_path / "metadata.json"
    path.write_text(json.dumps(neutral))
    read = read_schema(path)
    assert [str(r) for r in read.relations] == ["players.(y, t) -> teams.(year, team)"]


def test_a_key_with_the_wrong_number_of_referenced_columns_is_explained():
    with pytest.raises(rg.SchemaError, match=r"Table 'c', columns 'a', 'b'.*primary key is 'id'"):
        Schema(p=Table(id=PrimaryKey()), c=Table(foreign_keys=[ForeignKey(parent="p", columns=["a", "b"])]))


# -- a synthetic table that is missing ---------------------------------------------------------------
def test_a_missing_synthetic_table_is_a_failed_bar_in_a_written_report(tmp_path):
    train = seasons(0)
    synth = {"leagues": train["leagues"], "teams": train["teams"]}  # no players
    results = rg.report(train, None, synth, tmp_path / "r.pdf", seed=0)
    assert (tmp_path / "r.pdf").exists()
    assert not results.gates.passed
    failed = next(g for g in results.gates.failed if g.name == "synthetic_tables")
    assert "players" in failed.label
    assert [(f.severity, f.table) for f in results.findings if f.code == "synthetic_table_missing"] == [
        ("error", "players")
    ]
    lacking = [t for t in results.sections["overview"].tables if t.synthetic_missing]
    assert [(t.name, t.rows_train, t.rows_synth, t.n_compared) for t in lacking] == [("players", 800, 0, 0)]
    empty = {**synth, "players": train["players"].iloc[:0]}
    again = rg.report(train, None, empty, tmp_path / "e.html", seed=0)
    assert [f.table for f in again.findings if f.code == "synthetic_table_missing"] == ["players"]


def test_a_table_the_synthetic_data_lacks_keeps_its_rows_and_the_real_orphans_pointing_at_it(
    tmp_path, monkeypatch
):
    import reportgen.evaluation
    from reportgen.catalogue import sections

    kept = [s for s in sections() if s.name in ("overview", "similarity")]
    monkeypatch.setattr(reportgen.evaluation, "sections", lambda: kept)
    train = seasons(orphans=11)  # 11 players name a (year, team) that teams does not have
    synth = {"leagues": train["leagues"], "players": train["players"]}  # no teams
    results = rg.report(train, None, synth, tmp_path / "r.html", seed=0)
    overview = results.sections["overview"]
    tables = {t.name: t for t in overview.tables}
    assert list(tables) == ["leagues", "teams", "players"]
    teams = tables["teams"]
    assert teams.synthetic_missing and (teams.rows_train, teams.rows_synth, teams.n_compared) == (40, 0, 0)
    assert list(teams.keys) == ["training"] and teams.keys["training"].is_clean
    assert {c.name: c.key for c in teams.columns} == {
        "year": "primary+foreign",
        "team": "primary",
        "wins": None,
    }
    assert tables["players"].keys["training"].orphans == {
        "players.(year, team) -> teams.(year, team)": 11,
        "players.year -> leagues.year": 0,
    }
    assert tables["players"].keys["synthetic"].orphans == {"players.year -> leagues.year": 0}
    assert "players.(year, team) -> teams.(year, team)" in {r.label for r in overview.relations}
    orphans = [f for f in results.findings if f.code == "real_orphans"]
    assert [(f.table, f.column) for f in orphans] == [("players", "year, team")]
    assert "11 of 800 training rows refer to a 'teams' row" in orphans[0].message
    assert "teams" not in {t.table for t in results.sections["similarity"].tables}  # nothing compared
    html = (tmp_path / "r.html").read_text()
    assert "The synthetic data lacks 1 of them" in html and "Missing from the synthetic data" in html
    assert rg.ReportResults.load(tmp_path / "r.json") == results


def test_the_command_line_exits_3_naming_a_missing_synthetic_table(tmp_path, capsys):
    train = seasons(0)
    real, fake = tmp_path / "real", tmp_path / "synth"
    write_folder(train, real)
    write_folder(train.restricted(["leagues", "teams"]), fake)
    code = main(
        ["report", "--train", str(real), "--synth", str(fake), "--out", str(tmp_path / "r.html"), "--quiet"]
    )
    assert code == 3
    assert "players" in capsys.readouterr().err
    assert (tmp_path / "r.html").exists()
