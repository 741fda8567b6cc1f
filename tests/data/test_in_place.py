"""Reports on inputs read in place: all-row counts equal pandas, PostgreSQL equals CSV, memory bounded."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen.binning import bin_counts_in_memory
from reportgen.data.io import write_folder, write_sql
from reportgen.data.kinds import to_canonical
from reportgen.data.links import CountDistribution
from reportgen.data.relational import RelationalData
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.data.schema import ColumnKind as K
from reportgen.data.schema import ForeignKey, PrimaryKey, Schema, Table
from reportgen.errors import IncompatibleDataError
from reportgen.metrics.overview import KeyHealth, compute_overview
from reportgen.metrics.relational import compute_relational
from reportgen.metrics.similarity import compute_similarity
from reportgen.preparation import prepare_context, prepared
from reportgen.render.document import judge
from reportgen.sections.similarity import SECTION
from reportgen.settings import ReportSettings

from ..test_provenance import _duckdb_file, _engine_fingerprint, _kinds, _mixed
from .test_lake import mixed, people_csv, shop


def test_count_distribution_quantile_and_median_match_numpy():
    rng = np.random.default_rng(0)
    for n in (1, 2, 99, 100, 200, 1001):
        counts = rng.integers(0, 12, n)
        dist = CountDistribution.of(counts)
        assert dist.quantile_inverted_cdf(0.99) == np.quantile(counts, 0.99, method="inverted_cdf")
        assert dist.median() == np.median(counts)


def test_similarity_on_parquet_counts_every_row_exactly_as_pandas(tmp_path):
    for role, seed in (("train", 0), ("synth", 1)):
        (tmp_path / role / "events").mkdir(parents=True)
        frame = mixed(20_000, seed)
        for i in range(2):
            frame.iloc[i * 10_000 : (i + 1) * 10_000].to_parquet(tmp_path / role / "events" / f"p{i}.parquet")
    settings = ReportSettings(seed=0, n_max_train=3_000, n_max_synth=3_000)
    with rg.sources.parquet(tmp_path / "train") as train, rg.sources.parquet(tmp_path / "synth") as synth:
        context = prepare_context(train, None, synth, settings)
        prep = context.table("events")
        assert len(context.train["events"]) == 3_000  # the sample, drawn in DuckDB
        for role, side in ((TRAIN, "train"), (SYNTH, "synth")):
            full = pd.read_parquet(tmp_path / side / "events")
            frame = pd.DataFrame(
                {
                    c: to_canonical(full[c], prep.schema.kinds[c], c, show_examples=False)
                    for c in prep.compared_columns
                }
            )
            expected = bin_counts_in_memory(frame, prep.compared_columns, prep.bins, prep.pair_bins)
            got = prep.bin_counts(role, prep.compared_columns)
            for a, b in zip(got.univariate, expected.univariate, strict=True):
                np.testing.assert_array_equal(a, b)
            for key, cells in expected.pairs.items():
                np.testing.assert_array_equal(got.pairs[key], cells)
        result = compute_similarity(context).tables[0]
    assert result.basis.all_rows and result.basis.rows == {TRAIN: 20_000, SYNTH: 20_000}
    assert result.basis.engine == "duckdb"
    assert result.ks_basis.all_rows and result.ks_basis.rows == {TRAIN: 20_000, SYNTH: 20_000}
    assert all(c.ks_noise is None for c in result.column_details if c.ks is not None)


KS_KINDS = {"x": K.NUMERIC, "i": K.INTEGER, "d": K.DATETIME, "c": K.CATEGORICAL}


def tied(n: int, seed: int, shift: float) -> pd.DataFrame:
    """Numbers with heavy ties (-0.0 beside 0.0), NaN and infinities; integers and datetimes with gaps."""
    rng = np.random.default_rng(seed)
    x = np.round(rng.normal(shift, 1.0, n), 1)  # about 70 distinct values, -0.0 among them
    x[rng.random(n) < 0.05] = np.nan
    x[rng.random(n) < 0.02] = np.inf
    x[rng.random(n) < 0.02] = -np.inf
    i = pd.array(rng.integers(0, 50 + int(20 * shift), n), dtype="Int64")
    i[rng.random(n) < 0.05] = pd.NA
    days = pd.to_timedelta(rng.integers(0, 400, n), unit="D")
    micros = pd.to_timedelta(rng.integers(0, 3, n), unit="us")  # ties a microsecond apart
    d = pd.Series(pd.Timestamp("2021-01-01") + days + micros).where(rng.random(n) > 0.05)
    return pd.DataFrame({"x": x, "i": i, "d": d, "c": rng.choice(["a", "b"], n)})


def _rendered(result) -> str:
    """The similarity page of a result, as HTML text on one line."""
    from reportgen.render.environment import environment
    from reportgen.results import RunInfo

    run = RunInfo(
        title="t", reportgen_version="0", created_at="", seed=0, settings={}, versions={}, has_holdout=True
    )
    template = environment().get_template("sections/similarity.html.j2")
    return " ".join(
        template.render(result=result, figures={}, run=run, title="Similarity", worse=judge(SECTION)).split()
    )


def test_ks_on_parquet_inputs_is_exact_on_every_row_and_equals_the_in_memory_ks(tmp_path):
    frames = {"train": tied(6_000, 0, 0.0), "holdout": tied(5_000, 1, 0.0), "synth": tied(4_000, 2, 0.3)}
    for side, frame in frames.items():
        (tmp_path / side).mkdir()
        frame.to_parquet(tmp_path / side / "events.parquet", index=False)
    schema = Schema(events=Table(**KS_KINDS))
    memory = [{"events": frames[side]} for side in ("train", "holdout", "synth")]
    in_memory = compute_similarity(prepare_context(*memory, ReportSettings(seed=0), schema=schema))
    small = ReportSettings(seed=0, n_max_train=500, n_max_test=500, n_max_synth=500)
    opened = [rg.sources.parquet(tmp_path / side) for side in ("train", "holdout", "synth")]
    context = prepare_context(*opened, small, schema=schema)
    in_place = compute_similarity(context)
    for source in opened:
        source.close()
    expected, got = in_memory.tables[0], in_place.tables[0]
    assert expected.ks_basis.all_rows and expected.ks_basis.engine is None
    assert got.ks_basis.all_rows and got.ks_basis.engine == "duckdb"
    assert got.ks_basis.rows == {TRAIN: 6_000, TEST: 5_000, SYNTH: 4_000}
    numeric = [(a, b) for a, b in zip(expected.column_details, got.column_details, strict=True) if a.ks]
    assert [a.column for a, _ in numeric] == ["x", "i", "d"]
    for a, b in numeric:
        assert b.ks == pytest.approx(a.ks, rel=0, abs=1e-12), a.column
        assert b.ks_reference == pytest.approx(a.ks_reference, rel=0, abs=1e-12), a.column
        assert a.ks_noise is not None and b.ks_noise is None
    assert max(a.ks for a, _ in numeric) > 0.05  # the shifted synthetic data: not a trivial 0
    page = _rendered(in_place)
    assert "computed on all rows (counted in duckdb)" in page and page.count(">exact</td>") == 3
    (said,) = [f.message for f in context.findings if f.code == "read_in_place" and "training" in f.message]
    assert "similarity matrix and KS statistics count every row" in said


@pytest.mark.postgres
def test_ks_of_roles_in_two_postgres_databases_is_on_the_sample_and_says_why(
    fresh_postgres_url, second_postgres_url
):
    schema = Schema(events=Table(**KS_KINDS))
    for seed, url in ((0, fresh_postgres_url), (2, second_postgres_url)):
        write_sql(RelationalData({"events": tied(2_000, seed, 0.3 * seed)}, schema), url)
    settings = ReportSettings(seed=0, n_max_train=700, n_max_synth=700)
    with rg.sources.sql(fresh_postgres_url) as train, rg.sources.sql(second_postgres_url) as synth:
        found = compute_similarity(prepare_context(train, None, synth, settings, schema=schema))
    result = found.tables[0]
    assert result.basis.all_rows  # the counts are per role: every row of each database
    basis = result.ks_basis
    assert not basis.all_rows and basis.rows == {TRAIN: 700, SYNTH: 700} and basis.engine is None
    assert basis.reason.startswith("no one query reads every role")
    assert fresh_postgres_url.rsplit("/", 1)[1] in basis.reason
    assert second_postgres_url.rsplit("/", 1)[1] in basis.reason
    assert all(c.ks_noise is not None for c in result.column_details if c.ks is not None)
    page = _rendered(found)
    assert "computed on a seeded sample: 700 of 2,000 training rows" in page and "not all rows, as" in page
    assert ">exact</td>" not in page


@pytest.mark.postgres
def test_ks_of_roles_in_one_postgres_database_is_exact_and_equals_the_in_memory_ks(fresh_postgres_url):
    frames = {"train": tied(3_000, 0, 0.0), "synth": tied(2_000, 2, 0.3)}
    for side, frame in frames.items():  # two tables of one database
        write_sql(RelationalData({side: frame}, Schema(**{side: Table(**KS_KINDS)})), fresh_postgres_url)
    schema = Schema(train=Table(**KS_KINDS))  # the synthetic table is read as the training table
    memory = [{"train": frames["train"]}, None, {"train": frames["synth"]}]
    expected = compute_similarity(prepare_context(*memory, ReportSettings(), schema=schema)).tables[0]
    settings = ReportSettings(seed=0, n_max_train=500, n_max_synth=500)
    with (
        rg.sources.sql(fresh_postgres_url, tables=["train"]) as train,
        rg.sources.sql(fresh_postgres_url, tables=["synth"]) as synth,
    ):
        got = compute_similarity(prepare_context(train, None, synth, settings, schema=schema)).tables[0]
    assert got.ks_basis.all_rows and got.ks_basis.engine == "postgresql"
    numeric = [(a, b) for a, b in zip(expected.column_details, got.column_details, strict=True) if a.ks]
    assert len(numeric) == 3
    for a, b in numeric:
        assert b.ks == pytest.approx(a.ks, rel=0, abs=1e-12) and b.ks_noise is None, a.column


@pytest.mark.postgres
def test_a_postgres_input_gives_the_numbers_of_the_same_data_as_csv(fresh_postgres_url, tmp_path):
    real, synth = shop(0, repeated_key=False), shop(1)  # PostgreSQL's constraints refuse broken keys
    write_sql(real, fresh_postgres_url)
    folders = {}
    for role, data in (("real", real), ("synth", synth)):
        write_folder(data, tmp_path / role)
        folders[role] = tmp_path / role
    settings = ReportSettings(seed=0)
    with rg.sources.sql(fresh_postgres_url) as pg_real, rg.sources.csv(folders["synth"]) as csv_synth:
        from_pg = prepare_context(pg_real, None, csv_synth, settings)
        pg_numbers = _counted_numbers(from_pg)
    with rg.sources.csv(folders["real"]) as csv_real, rg.sources.csv(folders["synth"]) as csv_synth:
        from_csv = prepare_context(csv_real, None, csv_synth, settings)
        csv_numbers = _counted_numbers(from_csv)
    assert pg_numbers == csv_numbers
    assert from_pg.in_place is not None and from_pg.in_place.engines[TRAIN] == "postgresql"


@pytest.mark.postgres
def test_the_same_table_in_duckdb_and_postgresql_has_the_same_fingerprint(
    people, tmp_path, fresh_postgres_url
):
    frame = _mixed(people)
    kinds = _kinds(frame)
    write_sql(RelationalData({"people": frame}), fresh_postgres_url)
    in_duckdb = _engine_fingerprint(_duckdb_file(tmp_path / "a.duckdb", frame), kinds)
    assert _engine_fingerprint(fresh_postgres_url, kinds) == in_duckdb


def _counted_numbers(context) -> str:
    """The all-row numbers of a context: similarity matrices, KS, relational counts and integrity.

    Where they were computed is left out: one query cannot read PostgreSQL and CSV together, so
    there the KS runs in memory on the sample (every row, under the cap), which has a noise level.
    """
    where = {"basis": True, "ks_basis": True, "column_details": {"__all__": {"ks_noise"}}}
    similarity = compute_similarity(context).model_dump(exclude={"tables": {"__all__": where}})
    relational = compute_relational(context).model_dump(exclude={"relations": {"__all__": {"basis"}}})
    return json.dumps([similarity, relational], sort_keys=True, default=str)


CHILD = textwrap.dedent(
    """
    import resource, sys
    import reportgen as rg
    folder = sys.argv[1]
    sources = [rg.sources.parquet(f"{folder}/{side}", memory_limit="256MB") for side in ("train", "synth")]
    results = rg.report(sources[0], None, sources[1], f"{folder}/r.html", n_max_train=1000, n_max_synth=1000,
                        n_max_utility=500, n_max_detection=500, risk_attacks=50)
    print(results.sections["similarity"].tables[0].basis.rows["training"])
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    """
)


@pytest.mark.slow
def test_a_parquet_input_larger_than_the_memory_it_may_use_produces_a_report(tmp_path):
    """Peak RSS stays far below what pandas would need for the data (the data would not fit).

    RLIMIT_AS is not used: torch and DuckDB reserve gigabytes of address space they never touch,
    so a virtual-memory limit measures reservations, not use. DuckDB is capped with memory_limit
    and the process's peak resident memory is compared with the data's size in memory.
    """
    import duckdb

    rows = 6_000_000
    for side, seed in (("train", 1), ("synth", 2)):
        (tmp_path / side).mkdir()
        duckdb.sql(
            f"COPY (SELECT (hash(i, {seed}) % 100000)::DOUBLE / 7 AS x, (hash(i, {seed + 5}) % 1000)::DOUBLE AS y, "
            f"['a', 'b', 'c', 'd'][(1 + hash(i, {seed + 9}) % 4)::BIGINT] AS c FROM range({rows}) AS t(i)) "
            f"TO '{tmp_path / side / 'events.parquet'}' (FORMAT parquet)"
        )
    baseline = subprocess.run(
        [
            sys.executable,
            "-c",
            "import resource, reportgen, torch, duckdb, sklearn; "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    counted, peak_kib = (int(line) for line in done.stdout.split()[-2:])
    assert counted == rows
    in_pandas = 2 * rows * (8 + 8 + 8 + 50)  # two sides: two floats, a string object and its pointer
    used = (peak_kib - int(baseline.stdout)) * 1024
    assert used < in_pandas / 2, (used / 2**20, in_pandas / 2**20)


# -- relational samples drawn in the engine --------------------------------------------------------
STORE = Schema(
    customers=Table(customer_id=PrimaryKey()),
    orders=Table(order_id=PrimaryKey(), customer_id=ForeignKey(parent="customers")),
    items=Table(
        item_id=PrimaryKey(), order_id=ForeignKey(parent="orders"), product_id=ForeignKey(parent="products")
    ),
    reviews=Table(
        review_id=PrimaryKey(),
        customer_id=ForeignKey(parent="customers"),
        order_id=ForeignKey(parent="orders"),
    ),
    products=Table(product_id=PrimaryKey(), parent_id=ForeignKey(parent="products")),
)


def store(seed: int, *, big_customer: bool = False, orphans: bool = True) -> RelationalData:
    """Customers (the root) with orders, their items (a grandchild) and reviews (two keys into the
    customers' hierarchy: a customer and an order, one in ten another customer's); products, outside that
    hierarchy, are referred to by items and may name a parent product (a self-reference).

    ``big_customer``: 20 customers, one of them with 2,000 orders (one entity holds most rows).
    ``orphans``: some items name a product that does not exist, some orders no customer.
    """
    rng = np.random.default_rng(seed)
    n_customers = 20 if big_customer else 1_000
    per_customer = np.ones(n_customers, int) if big_customer else rng.integers(0, 3, n_customers)
    per_customer[0] = 2_000 if big_customer else per_customer[0]
    owner = pd.array(np.repeat(np.arange(n_customers), per_customer), dtype="Int64")
    n_orders, n_products = len(owner), 1_000
    per_order = rng.integers(0, 3, n_orders)
    reviewed, someone = rng.integers(0, n_orders, 1_000), rng.integers(0, n_customers, 1_000)
    reviewed_by_owner = rng.random(1_000) < 0.9  # else a gift: another customer reviews the order
    parents = np.where(rng.random(n_products) < 0.3, rng.integers(0, n_products, n_products), -1)
    tables = {
        "customers": pd.DataFrame(
            {"customer_id": np.arange(n_customers), "country": rng.choice(["FR", "DE", "NL"], n_customers)}
        ),
        "orders": pd.DataFrame(
            {
                "order_id": np.arange(n_orders),
                "customer_id": owner,
                "channel": rng.choice(["web", "shop"], n_orders),
            }
        ),
        "items": pd.DataFrame(
            {
                "item_id": np.arange(per_order.sum()),
                "order_id": np.repeat(np.arange(n_orders), per_order),
                "product_id": rng.integers(0, n_products, per_order.sum()),
            }
        ),
        "reviews": pd.DataFrame(
            {
                "review_id": np.arange(1_000),
                "customer_id": np.where(reviewed_by_owner, owner.fillna(0)[reviewed], someone),
                "order_id": reviewed,
                "stars": rng.integers(1, 6, 1_000),
            }
        ),
        "products": pd.DataFrame(
            {
                "product_id": np.arange(n_products),
                "parent_id": pd.array(np.where(parents >= 0, parents, None), dtype="Int64"),
                "category": rng.choice(["a", "b", "c", "d"], n_products),
            }
        ),
    }
    if orphans:
        tables["items"].loc[:4, "product_id"] = 5_000 + np.arange(5)
        tables["orders"].loc[:2, "customer_id"] = pd.NA
    return RelationalData(tables, STORE)


def write_duckdb(data: RelationalData, path) -> None:
    import duckdb

    with duckdb.connect(str(path)) as connection:
        for name, frame in data.items():
            connection.register("frame", frame)
            connection.execute(f'CREATE TABLE "{name}" AS SELECT * FROM frame')
            connection.unregister("frame")


def drawn(source, n_max: int, seed: int):
    """One role's sample read in place, and its record."""
    from reportgen.data.in_place import read_in_place

    frames, record = read_in_place({TRAIN: source}, None, {TRAIN: n_max}, {TRAIN: seed})
    return frames[TRAIN], record.sampling[TRAIN]


def _keys(frame: pd.DataFrame, columns) -> list:
    from reportgen.data.links import key_values

    values = zip(*(key_values(frame[c]) for c in columns), strict=True)
    return [None if any(pd.isna(v) for v in row) else tuple(row) for row in values]


def assert_closed(sample: dict, full: RelationalData) -> None:
    """No foreign key of the sample points outside it, unless it is an orphan of the full data."""
    for rel in full.schema.relations:
        held = set(_keys(sample[rel.parent], rel.parent_columns))
        exists = set(_keys(full[rel.parent], rel.parent_columns))
        outside = [k for k in _keys(sample[rel.child], rel.columns) if k is not None and k not in held]
        assert not [k for k in outside if k in exists], str(rel)


def assert_whole_entities(sample: dict, full: RelationalData, root: str) -> None:
    """Every full-data row below the root whose parents in the hierarchy are all sampled is sampled."""
    inside = [root, *full.schema.descendants(root)]
    for table in inside[1:]:
        ups = [r for r in full.schema.parents(table) if r.parent in inside]
        kept = np.ones(len(full[table]), bool)
        linked = np.zeros(len(full[table]), bool)
        for rel in ups:
            exists = set(_keys(full[rel.parent], rel.parent_columns))
            held = set(_keys(sample[rel.parent], rel.parent_columns))
            keys = _keys(full[table], rel.columns)
            valid = np.array([k is not None and k in exists for k in keys])
            linked |= valid
            kept &= ~valid | np.array([k in held for k in keys])
        pk = list(full.schema[table].primary_key)
        expected = set(_keys(full[table][kept & linked], pk))
        assert expected and expected <= set(_keys(sample[table], pk)), table


def test_in_place_sample_keeps_whole_customers_and_closes_the_lookup_tables(tmp_path):
    data = store(0)
    write_folder(data, tmp_path / "lake", format="parquet")
    write_duckdb(data, tmp_path / "store.duckdb")
    with rg.sources.parquet(tmp_path / "lake") as source:
        sample, record = drawn(source, 400, seed=3)
        again, _ = drawn(source, 400, seed=3)
        other, _ = drawn(source, 400, seed=4)
    with rg.sources.duckdb_file(tmp_path / "store.duckdb", schema=STORE) as source:
        in_database, database_record = drawn(source, 400, seed=3)
    assert_closed(sample, data)
    assert_whole_entities(sample, data, "customers")
    assert all(len(sample[t]) <= 400 for t in ("customers", "orders", "items", "reviews"))
    assert 400 <= len(sample["products"]) < 500  # the cap, plus the parents that kept products name
    entities = "whole entities of 'customers' (each with all its rows below it"
    assert record == {t: type(record[t])(len(data[t]), len(sample[t]), record[t].method) for t in data}
    assert {t: s.method for t, s in record.items()} == {
        "customers": entities + "), drawn in duckdb",
        "orders": entities + "), drawn in duckdb",
        "items": entities + "), drawn in duckdb",
        "reviews": entities + "; a row with several parents among them when all are kept), drawn in duckdb",
        "products": "the rows that sampled 'items' rows refer to, then uniform random rows, drawn in duckdb",
    }
    for table in data:
        pd.testing.assert_frame_equal(sample[table], again[table])
        pd.testing.assert_frame_equal(sample[table], in_database[table], check_dtype=False)
    assert database_record == record
    assert set(_keys(other["customers"], ["customer_id"])) != set(_keys(sample["customers"], ["customer_id"]))
    kept_orphans = [k for k in _keys(sample["items"], ["product_id"]) if k[0] >= 5_000]
    assert kept_orphans  # the data's orphans stay: the report's integrity sees them


def test_in_place_sample_falls_back_to_rows_when_one_customer_holds_most_rows(tmp_path):
    data = store(1, big_customer=True)
    write_folder(data, tmp_path / "lake", format="parquet")
    with rg.sources.parquet(tmp_path / "lake") as source:
        sample, record = drawn(source, 300, seed=0)
    assert_closed(sample, data)
    assert all(len(sample[t]) <= 300 for t in ("orders", "items", "reviews"))
    assert len(sample["orders"]) >= 150 and len(sample["items"]) >= 150  # served: half the cap at least
    methods = {t: s.method for t, s in record.items()}
    assert not any(m.startswith("whole entities") for m in methods.values())
    assert methods["customers"] == "all rows, drawn in duckdb"
    assert "the rows that sampled 'items', 'reviews' rows refer to" in methods["orders"]
    assert methods["items"].startswith("uniform random rows")
    in_memory = data.sample(300, seed=0).sampling
    assert in_memory is not None and not any(s.method.startswith("whole") for s in in_memory.values())


def test_a_report_on_a_relational_parquet_input_reads_closed_samples(tmp_path):
    data = store(2, big_customer=True)
    write_folder(data, tmp_path / "lake", format="parquet")
    settings = ReportSettings(seed=0, n_max_train=300, n_max_synth=300)
    with rg.sources.parquet(tmp_path / "lake") as train, rg.sources.parquet(tmp_path / "lake") as synth:
        context = prepare_context(train, None, synth, settings)
    (said,) = [f.message for f in context.findings if f.code == "read_in_place" and "training" in f.message]
    assert "less the rows whose parent row was not kept, drawn in duckdb" in said
    assert_closed(dict(context.train), data)


def test_synthetic_data_read_in_place_may_lack_tables_as_in_memory_and_page_1_says_so(tmp_path):
    # As with DataFrames: a table the generator did not make is left out and fails its bar,
    # and the holdout need not have it; a holdout lacking a table the synthetic data has is refused.
    data = store(3)
    made = [t for t in data if t != "reviews"]
    write_folder(data, tmp_path / "train", format="parquet")
    write_folder(data.restricted(made), tmp_path / "synth", format="parquet")
    write_folder(data.restricted(made), tmp_path / "holdout", format="parquet")
    settings = ReportSettings(seed=0, n_max_train=300, n_max_test=300, n_max_synth=300)
    with prepared(tmp_path / "train", tmp_path / "holdout", tmp_path / "synth", settings) as context:
        assert context.in_place is not None and sorted(context.train) == sorted(made)
        assert [f.table for f in context.findings if f.code == "synthetic_table_missing"] == ["reviews"]
        reviews = next(t for t in compute_overview(context).tables if t.name == "reviews")
        assert reviews.synthetic_missing and (reviews.rows_train, reviews.counted_in) == (1_000, "duckdb")
        counted = {str(r): n for r, n in data.integrity()["reviews"].orphans.items()}  # in memory
        assert reviews.keys == {TRAIN: KeyHealth(orphans=counted)}  # the engine counts every row alike
    write_folder(data.restricted([t for t in made if t != "items"]), tmp_path / "short", format="parquet")
    with pytest.raises(IncompatibleDataError, match=r"holdout data .* lacks table\(s\) \['items'\]"):
        prepare_context(tmp_path / "train", tmp_path / "short", tmp_path / "synth", settings)


@pytest.mark.postgres
def test_the_sample_of_a_postgres_database_is_the_sample_of_the_same_parquet_data(
    fresh_postgres_url, tmp_path
):
    data = store(0, orphans=False)  # PostgreSQL's constraints refuse orphans
    write_sql(data, fresh_postgres_url)
    write_folder(data, tmp_path / "lake", format="parquet")
    with rg.sources.sql(fresh_postgres_url) as source:
        from_postgres, record = drawn(source, 400, seed=3)
    with rg.sources.parquet(tmp_path / "lake") as source:
        from_parquet, _ = drawn(source, 400, seed=3)
    assert_closed(from_postgres, data)
    assert_whole_entities(from_postgres, data, "customers")
    assert record["reviews"].method.endswith("drawn in postgresql")
    for table, schema in STORE.items():
        pk = list(schema.primary_key)
        assert _keys(from_postgres[table], pk) == _keys(from_parquet[table], pk), table


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_file_names_with_glob_characters_are_read_as_those_files(tmp_path, fmt):
    """``sales[2024].parquet`` is one file, not the pattern that matches ``sales2.parquet``."""
    tables = {
        "sales[2024]": [1, 2, 3],
        "sales2": [100],
        "a*": [7],
        "ab": [8, 9],
        "q?": [5],
        "qz": [6, 6],
        "parts[1]/part-0": [11, 12],  # a table of part files in a folder whose name is a pattern
        "parts1/part-0": [13],
    }
    for name, values in tables.items():
        file = tmp_path / f"{name}.{fmt}"
        file.parent.mkdir(exist_ok=True)
        frame = pd.DataFrame({"x": values})
        frame.to_parquet(file) if fmt == "parquet" else frame.to_csv(file, index=False)
    source = getattr(rg.sources, fmt)(tmp_path)
    read = {
        name: source.engine.frame(f"SELECT x FROM {relation} ORDER BY x")["x"].tolist()
        for name, relation in source.relations.items()
    }
    assert read == {name.split("/")[0]: values for name, values in tables.items()}


def test_booleans_in_a_csv_read_in_place_count_their_missing_values(tmp_path):
    """DuckDB 2.0 pushes a CAST of a boolean column to DOUBLE into its CSV reader, which then fails."""
    frame = people_csv(tmp_path / "people.csv", n=500, bad_row=None)
    frame = frame.astype({"member": object})
    frame.loc[::7, "member"] = None
    frame.to_csv(tmp_path / "people.csv", index=False)
    source = rg.sources.csv(tmp_path / "people.csv")
    with prepared(source, None, source, ReportSettings(seed=0)) as context:
        (table,) = compute_overview(context).tables
    assert table.counted_in == "duckdb"
    missing = {c.name: c.missing_train for c in table.columns}
    assert missing == {"age": 0, "income": 0, "city": 0, "member": pytest.approx(72 / 500)}


def test_a_file_read_in_place_gives_the_rows_of_the_same_data_in_memory_whatever_its_row_order(tmp_path):
    """Under the cap every row, over it DuckDB's sample (md5 order): each in the canonical row order."""
    frame = mixed(2_000, 4)
    for name, rows in (("given", frame), ("shuffled", frame.sample(frac=1.0, random_state=9))):
        (tmp_path / name).mkdir()
        rows.to_parquet(tmp_path / name / "events.parquet", index=False)

    def prepared_rows(data, cap: int) -> pd.DataFrame:
        settings = ReportSettings(seed=0, n_max_train=cap, n_max_synth=cap)
        with prepared(data, None, data, settings) as context:
            return context.table("events").frame(TRAIN)

    in_memory = prepared_rows({"events": frame}, 5_000)
    for name in ("given", "shuffled"):
        with rg.sources.parquet(tmp_path / name) as source:
            pd.testing.assert_frame_equal(prepared_rows(source, 5_000), in_memory)
    with (
        rg.sources.parquet(tmp_path / "given") as given,
        rg.sources.parquet(tmp_path / "shuffled") as shuffled,
    ):
        sample = prepared_rows(given, 500)
        assert len(sample) == 500
        pd.testing.assert_frame_equal(prepared_rows(shuffled, 500), sample)
