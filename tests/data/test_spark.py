"""The same numbers, samples and fingerprints on DuckDB, PostgreSQL and Spark, from one SQL definition.

The data are generated with the values engines disagree on when they write them as text: NaN and
missing values apart, infinities, -0.0, subnormal, tiny and huge doubles, datetimes with and
without a zone, text and column names with quotes. Each engine reads the same rows: DuckDB from
Parquet files, Spark from the same files (as DataFrames), PostgreSQL from tables filled row by row.
The Spark tests share one local session (``spark_session``) in one xdist group.
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sqlalchemy as sa

import reportgen as rg
from reportgen.binning import fit_bins
from reportgen.cli import main
from reportgen.data import lake, lake_sample
from reportgen.data.dialects import DIALECTS, translate
from reportgen.data.engines import DuckDBEngine, Source
from reportgen.data.kinds import to_canonical
from reportgen.data.schema import ColumnKind as K
from reportgen.data.schema import ForeignKey, PrimaryKey, Schema, Table
from reportgen.data.spark import literal_path
from reportgen.data.statements import sent_statements
from reportgen.errors import LoadError

ODD = "we\"ird 'name"  # a column name with both quotes
SPECIAL = [math.nan, math.inf, -math.inf, None, -0.0, 5e-324, 1e-310, 1e-300, 1e300, 1.7976931348623157e308]
SPECIAL += [0.1, 1e-5, 12345678.5, 2.0**53 + 2, -2.5, 3.0]
KINDS = {"x": K.NUMERIC, "i": K.INTEGER, "c": K.CATEGORICAL, "b": K.BOOLEAN, "d": K.DATETIME, "z": K.DATETIME}
KINDS[ODD] = K.NUMERIC
SPARK, SPARK_GROUP = pytest.mark.spark, pytest.mark.xdist_group("spark")  # one worker starts the session
JAVA = pytest.mark.needs("Java")  # the local session's runtime: skipped (failed under CI) without it


def events(n: int, seed: int) -> pa.Table:
    """One table with every awkward value, as Arrow (NaN and missing kept apart)."""
    rng = np.random.default_rng(seed)
    x = [float(v) for v in rng.normal(seed, 1, n)]
    x[: len(SPECIAL)] = SPECIAL
    stamps = pd.Timestamp("2019-06-01") + pd.to_timedelta(rng.integers(0, 10**8, n), unit="s")
    micro = pd.to_timedelta(rng.integers(0, 10**6, n), unit="us")
    naive = [
        None if i % 17 == 0 else (s + m).to_pydatetime()
        for i, (s, m) in enumerate(zip(stamps, micro, strict=True))
    ]
    naive[1] = dt.datetime(1969, 12, 31, 23, 59, 59, 500000)  # before 1970
    zoned = [None if v is None else v.replace(tzinfo=dt.timezone.utc) for v in naive]
    odd = [float(v) for v in rng.gamma(2.0, 1e-3, n)]
    odd[:4] = [1e-320, math.nan, None, 1e308]
    return pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "x": pa.array(x, pa.float64()),
            "i": pa.array([None if v % 13 == 0 else int(v) for v in rng.integers(0, 50, n)], pa.int64()),
            "c": pa.array([None if v == "-" else v for v in rng.choice(["a", "it's", 'say "hi"', "-"], n)]),
            "b": pa.array([None if v == 2 else bool(v) for v in rng.integers(0, 3, n)], pa.bool_()),
            "d": pa.array(naive, pa.timestamp("us")),
            "z": pa.array(zoned, pa.timestamp("us", tz="UTC")),
            ODD: pa.array(odd, pa.float64()),
        }
    )


def shop(seed: int) -> dict[str, pa.Table]:
    """Customers and their orders: awkward amounts, missing keys, orphans, a repeated customer key."""
    rng = np.random.default_rng(seed)
    n_orders = rng.integers(0, 6, 300)
    ids = list(range(300))
    ids[7] = 6  # a repeated key
    keys = [float(k) for k in np.repeat(np.arange(300), n_orders)]
    keys[:3] = [None, None, 10_000.0]  # missing keys and an orphan
    amount = [float(v) for v in rng.gamma(2.0, 10.0, len(keys))]
    amount[: len(SPECIAL)] = SPECIAL
    customers = pa.table({"id": pa.array(ids, pa.int64()), "country": rng.choice(["FR", "D'E", "NL"], 300)})
    orders = pa.table(
        {
            "order_id": pa.array(range(len(keys)), pa.int64()),
            "customer_id": pa.array(keys, pa.float64()),
            "amount": pa.array(amount, pa.float64()),
        }
    )
    return {"customers": customers, "orders": orders}


SHOP = Schema(
    customers=Table(id=PrimaryKey()),
    orders=Table(order_id=PrimaryKey(), customer_id=ForeignKey(parent="customers")),
)


def write_parquet(tables: dict[str, pa.Table], folder) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, table in tables.items():
        pq.write_table(table, folder / f"{name}.parquet")


_PG_TYPES = {"double": "DOUBLE PRECISION", "int64": "BIGINT", "bool": "BOOLEAN", "string": "TEXT"}
_PG_TYPES |= {"large_string": "TEXT", "timestamp[us]": "TIMESTAMP", "timestamp[us, tz=UTC]": "TIMESTAMPTZ"}


def write_postgres(tables: dict[str, pa.Table], url: str) -> None:
    """The Arrow tables as PostgreSQL tables, value by value (NaN stays NaN, missing is NULL)."""
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            for name, table in tables.items():
                columns = ", ".join(
                    f'"{f.name.replace(chr(34), chr(34) * 2)}" {_PG_TYPES[str(f.type)]}' for f in table.schema
                )
                conn.exec_driver_sql(f'CREATE TABLE "{name}" ({columns})')
                marks = ", ".join(["%s"] * table.num_columns)
                conn.exec_driver_sql(
                    f'INSERT INTO "{name}" VALUES ({marks})', [tuple(r.values()) for r in table.to_pylist()]
                )
    finally:
        engine.dispose()


def spark_source(session, folder, names, schema=None) -> Source:
    frames = {name: session.read.parquet(str(folder / f"{name}.parquet")) for name in names}
    return rg.sources.spark(session, frames, schema=schema)


def numbers(source: Source, table: str, kinds: dict, bins: dict) -> dict:
    """Every all-row number of one table that a report counts in the engine."""
    numeric = [c for c, k in kinds.items() if k in (K.NUMERIC, K.INTEGER)]
    counted = lake.bin_counts(source, table, list(kinds), bins, bins)
    return {
        "rows": lake.row_count(source, table),
        "missing": lake.missing_counts(source, table, numeric, list(kinds)),
        "univariate": [c.tolist() for c in counted.univariate],
        "pairs": {k: v.tolist() for k, v in counted.pairs.items()},
        "digest": lake.content_digest(source, table, kinds),
    }


def roles(source: Source) -> Source:
    """The train and synth tables of ``source`` as the roles of one KS query, train first."""
    return Source(source.engine, {t: source.relations[t] for t in ("train", "synth")}, None, "roles")


def sample_ids(source: Source, table: str, n: int, seed: int) -> list[int]:
    return [int(v) for v in lake.sample_rows(source, table, n, seed)["id"]]


# -- without Spark -------------------------------------------------------------------------------------
def test_every_statement_translates_for_every_dialect_and_the_command_prints_them(capsys, tmp_path):
    write_parquet(shop(0), tmp_path)
    with rg.sources.parquet(tmp_path, SHOP) as source:
        written = sent_statements(source, "duckdb", n_max=100)
        assert len(written) > 15
        for dialect in DIALECTS:
            assert all(translate(s, dialect).strip() for s in written)
        assert any("PARTITION BY b" in s for s in sent_statements(source, "bigquery", n_max=100))  # scaled KS
    assert (
        main(["sql", "--dialect", "snowflake", str(tmp_path), "--schema", str(_shop_schema(tmp_path))]) == 0
    )
    printed = capsys.readouterr().out
    assert (
        "GROUP BY GROUPING SETS" in printed
        and "TO_NUMBER(" in printed
        and "read_parquet" not in printed.lower()
    )
    assert "epoch_ns" not in translate("SELECT epoch_ns(CAST(d AS TIMESTAMP)) FROM t", "spark").lower()


def _shop_schema(folder):
    from reportgen.data.io import write_schema

    write_schema(SHOP, folder / "shop.yaml")
    return folder / "shop.yaml"


def test_the_canonical_text_of_a_double_gives_back_the_exact_double_in_duckdb():
    values = [v for v in SPECIAL if v is not None] + [2.0**-1074 * 3, 2.0**1023, -(2.0**-1022)]
    engine = DuckDBEngine()
    engine.connection.register("t", pa.table({"x": pa.array(values, pa.float64())}))  # NaN stays NaN
    texts = [r[0] for r in engine.rows(f"SELECT {lake.double_text_sql('x')} FROM t")]
    engine.close()
    for value, text in zip(values, texts, strict=True):
        if math.isnan(value) or math.isinf(value):
            assert text == {"nan": "nan", "inf": "inf", "-inf": "-inf"}[repr(value)]
        elif "p" not in text:
            assert float(text) == value and value.is_integer() and text == str(int(value))
        else:
            significand, exponent = text.lstrip("-").split("p")
            assert 2**52 <= int(significand) < 2**53
            assert (
                math.copysign(math.ldexp(int(significand), int(exponent)), -1 if text[0] == "-" else 1)
                == value
            )


def test_the_scale_out_ks_equals_the_one_window_ks_on_duckdb(tmp_path):
    write_parquet({"train": events(800, 0)}, tmp_path / "a")
    write_parquet({"train": events(500, 1)}, tmp_path / "b")
    kinds = {c: k for c, k in KINDS.items() if k.is_ordered}
    with rg.sources.parquet(tmp_path / "a") as a, rg.sources.parquet(tmp_path / "b") as b:
        joint = Source(a.engine, {"train": a.relations["train"], "synth": b.relations["train"]}, None, "both")
        exact = lake.ks_statistics(joint, kinds)
        a.engine.scales_out = True
        assert lake.ks_statistics(joint, kinds) == exact
    assert all(0 < v["synth"] < 1 for v in exact.values())


# -- DuckDB, PostgreSQL and Spark ----------------------------------------------------------------------
ONE_TABLE = {"train": (700, 0), "synth": (500, 1)}  # rows and seed of each generated table


@pytest.fixture(scope="module")
def one_table(tmp_path_factory) -> tuple[dict[str, pa.Table], Path]:
    """The generated train and synth tables, and the folder of their Parquet files."""
    data = {name: events(n, seed) for name, (n, seed) in ONE_TABLE.items()}
    folder = tmp_path_factory.mktemp("one_table")
    write_parquet(data, folder)
    return data, folder


@pytest.fixture(scope="module")
def counted_on_duckdb(one_table) -> dict:
    """``everything_counted`` on DuckDB: what every other engine must give."""
    data, folder = one_table
    with rg.sources.parquet(folder) as duck:
        return everything_counted(duck, data)


def everything_counted(source: Source, data: dict[str, pa.Table]) -> dict:
    """Every number, sample and batch of ``data``'s tables that the engine computes for a report."""
    canonical = pd.DataFrame(
        {
            c: to_canonical(data["train"].column(c).to_pandas(), k, c, show_examples=False)
            for c, k in KINDS.items()
        }
    )
    bins = {c: fit_bins(c, k, canonical[c], n_bins=12) for c, k in KINDS.items()}
    streamed = source.engine.batches(f"SELECT id FROM {source.relations['synth']} ORDER BY id", 400)
    return {
        "numbers": {t: numbers(source, t, KINDS, bins) for t in data},
        "ks": lake.ks_statistics(roles(source), {c: k for c, k in KINDS.items() if k.is_ordered}),
        "sample": sample_ids(source, "train", 100, seed=3),
        "other seed": sample_ids(source, "train", 100, seed=4),
        "batches": [frame["id"].tolist() for frame in streamed],
    }


# One table's numbers, samples and fingerprints on three engines: DuckDB's (what every other engine
# must give, checked here against known counts), then PostgreSQL's and Spark's, one test each so that
# a failure names its engine and the Spark session's start is not added to PostgreSQL's work.


def test_one_table_is_counted_on_duckdb_as_the_data_holds_it(counted_on_duckdb):
    duck_numbers = counted_on_duckdb["numbers"]["train"]
    assert duck_numbers["rows"] == 700 and duck_numbers["missing"]["x"] == 4  # NaN, +-inf, missing
    assert sum(duck_numbers["univariate"][0]) == 700
    assert counted_on_duckdb["sample"] != counted_on_duckdb["other seed"]
    assert [len(ids) for ids in counted_on_duckdb["batches"]] == [400, 100]


@pytest.mark.postgres
@SPARK_GROUP  # PostgreSQL's server is started in the worker that runs the other engines' tests
def test_one_table_gives_the_same_numbers_samples_and_fingerprints_on_postgresql_as_on_duckdb(
    fresh_postgres_url, one_table, counted_on_duckdb
):
    data, _ = one_table
    write_postgres(data, fresh_postgres_url)
    with rg.sources.sql(fresh_postgres_url) as postgres:
        assert everything_counted(postgres, data) == counted_on_duckdb


@SPARK
@JAVA
@SPARK_GROUP
def test_one_table_gives_the_same_numbers_samples_and_fingerprints_on_spark_as_on_duckdb(
    spark_session, one_table, counted_on_duckdb
):
    data, folder = one_table
    with spark_source(spark_session, folder, ["train", "synth"]) as spark:
        assert everything_counted(spark, data) == counted_on_duckdb


@SPARK
@JAVA
@SPARK_GROUP
def test_a_spark_connect_client_gives_the_numbers_of_duckdb_too(spark_connect, one_table, counted_on_duckdb):
    """Spark Connect (Databricks' way in) is a client of the same session's server: its own SQL path."""
    data, folder = one_table
    with spark_source(spark_connect, folder, ["train", "synth"]) as connect:
        assert type(spark_connect).__module__.startswith("pyspark.sql.connect")
        assert everything_counted(connect, data) == counted_on_duckdb


@pytest.mark.postgres
@SPARK
@JAVA
@SPARK_GROUP
def test_relational_samples_keys_and_fingerprints_are_the_same_on_three_engines(
    spark_session, fresh_postgres_url, tmp_path
):
    data = shop(0)
    write_parquet(data, tmp_path)
    write_postgres(data, fresh_postgres_url)
    rows = {"customers": 300, "orders": data["orders"].num_rows}
    kinds = {"customers": {"id": K.ID, "country": K.CATEGORICAL}}
    kinds["orders"] = {"order_id": K.ID, "customer_id": K.ID, "amount": K.NUMERIC}
    (relation,) = SHOP.relations
    found = {}
    with (
        rg.sources.parquet(tmp_path, SHOP) as duck,
        rg.sources.sql(fresh_postgres_url, schema=SHOP) as postgres,
        spark_source(spark_session, tmp_path, list(data), SHOP) as spark,
    ):
        for name, source in (("duckdb", duck), ("postgresql", postgres), ("spark", spark)):
            frames, methods = lake_sample.sample(source, SHOP, rows, 150, seed=5)
            children = lake.children_per_parent(source, relation)
            found[name] = {
                "sampled": {t: sorted(int(v) for v in f[SHOP[t].primary_key[0]]) for t, f in frames.items()},
                "methods": {t: m.rsplit(", drawn in", 1)[0] for t, m in methods.items()},
                "children": (children.values.tolist(), children.weights.tolist()),
                "keys": lake.key_counts(source, relation),
                "primary": lake.primary_key_counts(source, "customers", ["id"]),
                "digests": {t: lake.content_digest(source, t, kinds[t]) for t in data},
            }
    assert found["duckdb"] == found["postgresql"] == found["spark"]
    keys = found["duckdb"]["keys"]
    assert (keys.missing_keys, keys.orphans, keys.duplicate_parent_keys) == (2, 1, 1)
    assert 0 < len(found["duckdb"]["sampled"]["orders"]) <= 150


@SPARK
@JAVA
@SPARK_GROUP
@pytest.mark.usefixtures("figures_not_drawn")  # compares numbers (tests/drawing.py)
def test_a_whole_report_from_spark_equals_the_report_from_parquet_read_by_duckdb(spark_session, tmp_path):
    write_parquet({"events": events(400, 0)}, tmp_path / "train")
    write_parquet({"events": events(400, 1)}, tmp_path / "synth")
    settings = {"seed": 0, "n_max_train": 300, "n_max_synth": 300}
    from_duckdb = rg.report(tmp_path / "train", None, tmp_path / "synth", tmp_path / "duck.html", **settings)
    with (
        spark_source(spark_session, tmp_path / "train", ["events"]) as train,
        spark_source(spark_session, tmp_path / "synth", ["events"]) as synth,
    ):
        from_spark = rg.report(train, None, synth, tmp_path / "spark.html", **settings)
    assert _differences(_numbers(from_spark), _numbers(from_duckdb)) == []


def _numbers(results) -> dict:
    """A report's results without what says where and when it ran (engines, fingerprints, times).

    The findings keep their codes (their messages name the inputs), and "drawn in spark" reads as
    "drawn in duckdb".
    """
    dumped = results.model_dump(mode="json")
    for key in ("provenance", "run", "timings", "inputs"):
        dumped.pop(key, None)
    dumped["findings"] = [finding["code"] for finding in dumped.get("findings", [])]
    for table in dumped["sections"]["overview"]["tables"]:
        table["sampling"] = {
            r: m.replace("drawn in spark", "drawn in duckdb") for r, m in table["sampling"].items()
        }
    return _without(dumped, {"engine", "counted_in", "read_in_place", "fingerprints", "seconds", "method"})


def _differences(a, b, path="") -> list[str]:
    """The paths at which two dumped results differ (empty when equal)."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = sorted(set(a) | set(b))
        return [d for k in keys for d in _differences(a.get(k), b.get(k), f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            d for i, (x, y) in enumerate(zip(a, b, strict=True)) for d in _differences(x, y, f"{path}[{i}]")
        ]
    return [] if a == b else [f"{path}: {a!r} != {b!r}"[:300]]


def _without(value, keys):
    if isinstance(value, dict):
        return {k: _without(v, keys) for k, v in value.items() if k not in keys}
    if isinstance(value, list):
        return [_without(v, keys) for v in value]
    return value


@SPARK
@JAVA
@SPARK_GROUP
def test_a_spark_url_reads_a_parquet_folder_in_the_running_session_and_leaves_it_running(
    spark_session, tmp_path
):
    write_parquet({"events": events(200, 0)}, tmp_path / "lake")
    with rg.sources.open_source(f"spark://local[2]{tmp_path / 'lake'}") as source:
        assert lake.row_count(source, "events") == 200
        assert source.engine.dialect == "spark"
    assert spark_session.sql("SELECT 1").collect()[0][0] == 1  # not stopped: the test's session


@SPARK
@JAVA
@SPARK_GROUP
def test_a_hive_partitioned_folder_reads_its_partition_keys_as_columns_in_spark(spark_session, tmp_path):
    """The layout DuckDB reads (``lake/events/year=2020/part-0.parquet``), read by Spark alike."""
    frame = pd.DataFrame({"x": np.arange(30.0), "year": np.repeat([2020, 2021, 2022], 10)})
    for year, rows in frame.groupby("year"):
        (tmp_path / "lake" / "events" / f"year={year}").mkdir(parents=True)
        rows.drop(columns="year").to_parquet(tmp_path / "lake" / "events" / f"year={year}" / "p.parquet")
    with rg.sources.open_source(f"spark://local[2]{tmp_path / 'lake'}") as source:
        assert source.columns("events") == ["x", "year"]
        assert sorted(
            source.engine.rows(f"SELECT year, COUNT(*) FROM {source.relations['events']} GROUP BY year")
        ) == [
            (2020, 10),
            (2021, 10),
            (2022, 10),
        ]


@SPARK
@JAVA
@SPARK_GROUP
def test_folder_and_file_names_that_look_like_globs_are_read_literally(spark_session, tmp_path):
    """Hadoop reads ``lake[1]{a,b}*`` as a pattern (of ``lake1a...``): the files read are the named ones."""
    odd = tmp_path / "lake[1]{a,b}*"
    write_parquet({"events": events(120, 0)}, odd)
    write_parquet({"events": events(40, 1)}, tmp_path / "lake1a")  # what the pattern matches
    visits = pd.DataFrame({"v": np.arange(6.0)})
    for year in (2020, 2021):
        (odd / "visits" / f"year={year}").mkdir(parents=True)
        visits.to_parquet(odd / "visits" / f"year={year}" / "part[0].parquet")
    with rg.sources.open_source(f"spark://local[2]{odd}") as source:
        assert lake.row_count(source, "events") == 120
        assert source.columns("visits") == ["v", "year"] and lake.row_count(source, "visits") == 12
    write_parquet({"q?": events(30, 2), "qX": events(20, 3)}, tmp_path / "files")
    assert spark_session.read.parquet(literal_path(tmp_path / "files" / "q?.parquet")).count() == 30


@SPARK
@JAVA
@SPARK_GROUP
def test_fingerprint_sums_and_ks_products_have_types_that_hold_any_row_count_on_spark(spark_session):
    """Summed as 64-bit integers (Spark's ``SUM(BIGINT)``), 2**31 rows of 32-bit md5 pieces overflow;
    the products of the scale-out KS's counts, past 3 billion rows a side. Their types say they hold
    2**32 (and 2**63) times Spark's largest count, without 2**31 rows to show it."""
    from pyspark.sql.types import DecimalType

    frame = spark_session.range(5).selectExpr("id", "CAST(id AS DOUBLE) AS x")
    with rg.sources.spark(spark_session, {"train": frame, "synth": frame}) as source:
        digest = spark_session.sql(translate(lake.digest_sql(source, "train", {"x": K.NUMERIC}), "spark"))
        ks = spark_session.sql(translate(lake.ks_scaled_sql(roles(source), "x", K.NUMERIC), "spark"))
        count, *sums = (f.dataType for f in digest.schema.fields)
        (gap, *_) = (f.dataType for f in ks.schema.fields)
        assert count.simpleString() == "bigint" and len(sums) == lake.DIGEST_PIECES
        assert all(isinstance(t, DecimalType) and 10 ** (t.precision - t.scale) > 2**95 for t in sums)
        assert isinstance(gap, DecimalType) and 10 ** (gap.precision - gap.scale) > 2**126
        assert lake.content_digest(source, "train", {"x": K.NUMERIC})[0] == 5


@SPARK
@JAVA
@SPARK_GROUP
def test_a_missing_spark_table_is_named_in_the_error(spark_session):
    with pytest.raises(LoadError, match="'orders'"):
        rg.sources.spark(spark_session, {"orders": "default.no_such_table"})


@SPARK
@JAVA
@SPARK_GROUP
def test_the_readme_spark_examples_run_as_written_against_a_local_session(
    spark_session, tmp_path, monkeypatch
):
    import re
    import shlex
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    (python,) = re.findall(r"```python spark\n(.*?)```", readme, flags=re.S)
    (command,) = re.findall(r"```bash spark\n(.*?)```", readme, flags=re.S)
    for side, seed in (("train", 0), ("synth", 1)):
        write_parquet({"events": events(300, seed)}, tmp_path / "lake" / side)
    monkeypatch.chdir(tmp_path)
    exec(compile(python, "README.md", "exec"), {})
    assert (tmp_path / "spark-report.html").is_file()
    assert main(shlex.split(command.strip())[1:]) == 0
    assert (tmp_path / "spark.html").is_file()
    assert spark_session.sql("SELECT 1").collect()[0][0] == 1  # the session the examples found still runs
