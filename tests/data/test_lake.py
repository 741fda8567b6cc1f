"""Aggregates computed in the engine (DuckDB, PostgreSQL) equal the in-memory ones exactly."""

import json
import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import sqlglot
from sqlglot import exp

from reportgen.binning import bin_counts_in_memory, fit_bins
from reportgen.data import lake, lake_sample, sources
from reportgen.data.engines import Source, withheld
from reportgen.data.io import write_sql
from reportgen.data.kinds import to_canonical
from reportgen.data.links import CountDistribution, link
from reportgen.data.relational import RelationalData
from reportgen.data.schema import ColumnKind as K
from reportgen.data.schema import ForeignKey, PrimaryKey, Schema, Table
from reportgen.errors import LoadError

KINDS = {"x": K.NUMERIC, "i": K.INTEGER, "c": K.CATEGORICAL, "b": K.BOOLEAN, "d": K.DATETIME, "z": K.NUMERIC}


def mixed(n: int, seed: int) -> pd.DataFrame:
    """Mixed types with missing values, NaN, ties (a zero-inflated column) and a rare level."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=n),
            "i": rng.integers(0, 1000, n),
            "c": rng.choice([*"abcdefghij", "rare it's"], n, p=[0.0995] * 10 + [0.005]),
            "b": rng.choice([True, False], n),
            "d": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 10**8, n), unit="s"),
            "z": np.where(rng.random(n) < 0.3, 0.0, rng.gamma(2.0, size=n)),
        }
    )
    frame.loc[rng.random(n) < 0.1, "x"] = np.nan
    frame["c"] = frame["c"].where(rng.random(n) > 0.05)
    return frame


def canonical(frame: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame({c: to_canonical(frame[c], k, c, show_examples=False) for c, k in KINDS.items()})


def fitted(sample: pd.DataFrame, max_levels: int | None) -> dict:
    return {c: fit_bins(c, k, sample[c], n_bins=20, max_levels=max_levels) for c, k in KINDS.items()}


def assert_same_counts(a, b):
    assert a.columns == b.columns
    for x, y in zip(a.univariate, b.univariate, strict=True):
        np.testing.assert_array_equal(x, y)
    assert a.pairs.keys() == b.pairs.keys()
    for key in a.pairs:
        np.testing.assert_array_equal(a.pairs[key], b.pairs[key])


@pytest.fixture(scope="module")
def parquet_table(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lake")
    frame = mixed(30_000, 0)
    parts = folder / "events"
    parts.mkdir()
    for i, start in enumerate(range(0, len(frame), 10_000)):
        frame.iloc[start : start + 10_000].to_parquet(parts / f"part-{i}.parquet", index=False)
    return folder, frame


def test_duckdb_bin_counts_equal_the_in_memory_counts_exactly(parquet_table):
    folder, frame = parquet_table
    source = sources.parquet(folder)
    assert list(source.relations) == ["events"]
    real = canonical(frame)
    sample = real.sample(3000, random_state=1)
    bins, pair_bins = fitted(sample, None), fitted(sample, 4)  # 4: the category pairs pool levels
    in_engine = lake.bin_counts(source, "events", list(KINDS), bins, pair_bins)
    assert_same_counts(in_engine, bin_counts_in_memory(real, list(KINDS), bins, pair_bins))
    assert lake.row_count(source, "events") == len(frame)
    missing = lake.missing_counts(source, "events", ["x", "i", "z"], list(frame.columns))
    assert missing == {c: int(n) for c, n in frame.isna().sum().items()}


def test_counts_in_statements_of_a_few_sets_each_equal_one_statements(parquet_table, monkeypatch):
    # A wide table's pairs are counted in batches, each within the engine's memory: the cut may
    # change how many statements run, never a count.
    folder, frame = parquet_table
    source = sources.parquet(folder)
    sample = canonical(frame).sample(3000, random_state=1)
    bins, pair_bins = fitted(sample, None), fitted(sample, 4)
    whole = lake.bin_counts(source, "events", list(KINDS), bins, pair_bins)
    statements = []
    run = source.engine.rows
    monkeypatch.setattr(source.engine, "rows", lambda q: statements.append(q) or run(q))
    monkeypatch.setattr(lake, "SETS_PER_STATEMENT", 2)
    assert_same_counts(lake.bin_counts(source, "events", list(KINDS), bins, pair_bins), whole)
    n_sets = 4 + 15  # the own bins of the numbers and dates (x, i, z, d), and the 15 pairs
    assert sum(") AS codes GROUP BY GROUPING SETS" in q for q in statements) == -(-n_sets // 2)
    assert sum("GROUPING(" in q for q in statements) == 1  # the distinct values of c and b: one scan


def test_batches_keep_the_sets_in_order_within_both_bounds():
    sizes = {"a": 10, "b": 10, "c": 1_000, "d": 2}
    sets = [("a",), ("a", "b"), ("c", "d"), ("b", "d"), ("a", "c")]
    assert lake.grouping_batches(sets, sizes, cells=2_000) == [
        [("a",), ("a", "b")],  # 110 cells; with c-d's 2,000 more it would pass 2,000
        [("c", "d")],  # larger than the bound: a batch alone
        [("b", "d")],
        [("a", "c")],  # 20 + 10,000 would pass it
    ]


def test_the_engine_sample_is_seeded_and_independent_of_the_file_layout(parquet_table, tmp_path):
    folder, frame = parquet_table
    frame.iloc[::-1].to_parquet(tmp_path / "events.parquet", index=False)  # other order, one file
    one, again = (lake.sample_rows(sources.parquet(folder), "events", 500, seed=7) for _ in range(2))
    reordered = lake.sample_rows(sources.parquet(tmp_path), "events", 500, seed=7)
    other_seed = lake.sample_rows(sources.parquet(folder), "events", 500, seed=8)
    assert len(one) == 500
    pd.testing.assert_frame_equal(one, again)
    pd.testing.assert_frame_equal(one, reordered)
    assert not one.equals(other_seed)


def shop(seed: int, orphans: int = 0, *, repeated_key: bool = True) -> RelationalData:
    """Customers with 0 to 6 orders each, a repeated customer key, missing and orphan order keys."""
    rng = np.random.default_rng(seed)
    customers = pd.DataFrame({"id": np.arange(400), "country": rng.choice(["FR", "DE", "NL"], 400)})
    if repeated_key:
        customers.loc[5, "id"] = 4  # a repeated key: one parent
    n_orders = rng.integers(0, 7, 400)
    orders = pd.DataFrame(
        {
            "order_id": np.arange(n_orders.sum()),
            "customer_id": np.repeat(np.arange(400), n_orders).astype(float),
            "amount": rng.gamma(2.0, 10.0, n_orders.sum()),
        }
    )
    orders.loc[:2, "customer_id"] = np.nan
    orders.loc[3 : 3 + orphans - 1, "customer_id"] = 10_000.0
    schema = Schema(
        customers=Table(id=PrimaryKey()),
        orders=Table(order_id=PrimaryKey(), customer_id=ForeignKey(parent="customers")),
    )
    return RelationalData({"customers": customers, "orders": orders}, schema)


@pytest.fixture(scope="module")
def shop_folder(tmp_path_factory):
    from reportgen.data.io import write_folder

    data = shop(0, orphans=4)
    folder = tmp_path_factory.mktemp("shop")
    write_folder(data, folder, format="parquet")
    return data, folder


def test_children_per_parent_and_key_counts_equal_links(shop_folder):
    data, folder = shop_folder
    source = sources.parquet(folder)
    (rel,) = data.schema.relations
    found = link(data, rel)
    expected = CountDistribution.of(found.children_per_parent())
    got = lake.children_per_parent(source, rel)
    np.testing.assert_array_equal(got.values, expected.values)
    np.testing.assert_array_equal(got.weights, expected.weights)
    counts = lake.key_counts(source, rel)
    assert counts == lake.KeyCounts(
        child_rows=len(data["orders"]),
        missing_keys=found.n_null_keys,
        orphans=found.n_orphans,
        parent_rows=len(data["customers"]),
        duplicate_parent_keys=found.n_duplicate_parent_keys,
    )
    assert counts.orphans > 4 and counts.duplicate_parent_keys == 1  # orders of the overwritten customer too
    assert lake.primary_key_counts(source, "customers", ["id"]) == (1, 0)


def test_entity_sample_keeps_whole_customers_within_the_cap(shop_folder):
    data, folder = shop_folder
    source = sources.parquet(folder)
    sample = lake_sample.entity_sample(source, data.schema, "customers", 300, seed=3)
    assert lake_sample.entity_sample(source, data.schema, "customers", 300, seed=3)["orders"].equals(
        sample["orders"]
    )
    assert len(sample["customers"]) <= 300 and len(sample["orders"]) <= 300
    kept = set(sample["customers"]["id"])
    orders = data["orders"]
    expected = orders[orders["customer_id"].isin(kept)]
    alone = ~sample["orders"]["customer_id"].isin(data["customers"]["id"])  # missing or orphan: own entity
    got = sample["orders"][~alone]
    assert sorted(got["order_id"]) == sorted(expected["order_id"])  # every order of each


def test_a_missing_folder_is_refused_with_its_path(tmp_path):
    with pytest.raises(LoadError, match="does not exist"):
        sources.parquet(tmp_path / "nowhere")


@pytest.mark.postgres
def test_postgres_gives_the_counts_of_the_same_data_as_csv(fresh_postgres_url, tmp_path):
    frame = mixed(5_000, 2)
    data = RelationalData({"events": frame}, Schema(events=Table(**{c: k for c, k in KINDS.items()})))
    write_sql(data, fresh_postgres_url)
    frame.to_csv(tmp_path / "events.csv", index=False)
    real = canonical(frame)
    bins, pair_bins = fitted(real.sample(1000, random_state=0), None), fitted(real, 4)
    results = []
    for open_source in (lambda: sources.sql(fresh_postgres_url), lambda: sources.csv(tmp_path)):
        with open_source() as source:
            results.append(lake.bin_counts(source, "events", list(KINDS), bins, pair_bins))
    assert_same_counts(*results)
    assert_same_counts(results[0], bin_counts_in_memory(real, list(KINDS), bins, pair_bins))


def test_one_query_reads_files_with_any_duckdb_source_but_not_dataframes_of_two_connections(parquet_table):
    from reportgen.data.in_place import InPlace

    folder, frame = parquet_table
    files, more_files = sources.parquet(folder), sources.parquet(folder)
    memory, more_memory = sources.frames({"events": frame}), sources.frames({"events": frame})
    both_files = InPlace({"training": files, "synthetic": more_files}, {})
    assert both_files.host is files and both_files.apart() is None
    same = both_files.ks_statistics("events", {"x": K.NUMERIC, "d": K.DATETIME})
    assert same == {"x": {"synthetic": 0.0}, "d": {"synthetic": 0.0}}
    assert files.columns("events") == list(frame.columns)  # the source stays open: the KS had its own
    assert InPlace({"training": files, "synthetic": memory}, {}).host is memory  # its connection reads files
    apart = InPlace({"training": memory, "synthetic": more_memory}, {})
    assert apart.host is None and apart.ks_statistics("events", {"x": K.NUMERIC}) is None
    assert apart.apart() == (
        "no one query reads every role (training: DataFrames in memory; synthetic: DataFrames in memory)"
    )


def test_a_query_past_the_memory_limit_says_which_limit_and_how_to_raise_it(tmp_path):
    frame = pd.DataFrame({"a": np.arange(2_000_000), "b": np.arange(2_000_000) % 7})
    frame.to_parquet(tmp_path / "big.parquet", index=False)
    source = sources.parquet(tmp_path / "big.parquet", memory_limit="1MB")
    with pytest.raises(LoadError, match=r"memory limit \(1MB\).*memory_limit='2GB'"):
        source.engine.rows(f"SELECT a, COUNT(*) FROM {source.relations['big']} GROUP BY a")


# -- part files of one table ------------------------------------------------------------------------
def parts(folder, *frames, fmt: str = "parquet"):
    """A table folder of part files, one per frame."""
    folder.mkdir(parents=True)
    for i, frame in enumerate(frames):
        file = folder / f"part-{i}.{fmt}"
        frame.to_parquet(file, index=False) if fmt == "parquet" else frame.to_csv(file, index=False)
    return folder.parent


def test_part_files_whose_columns_differ_are_refused_naming_table_files_and_columns(tmp_path):
    """One part names ``income``, the next ``income_usd``: a union would make half of each column missing."""
    frame = mixed(200, 0)[["x", "i", "c"]]
    lake_folder = parts(tmp_path / "lake" / "people", frame[:100], frame[100:].rename(columns={"i": "i_usd"}))
    with pytest.raises(LoadError) as caught:
        sources.parquet(lake_folder)
    message = str(caught.value)
    assert "Table 'people'" in message and "part-0.parquet" in message and "part-1.parquet" in message
    assert "['i']" in message and "['i_usd']" in message and "same columns" in message


def test_part_files_whose_column_holds_other_kinds_of_values_are_refused(tmp_path):
    frame = pd.DataFrame({"age": np.arange(200), "city": ["Rome", "Oslo"] * 100})
    later = frame[100:].astype({"age": str})
    with pytest.raises(
        LoadError, match=r"Table 'people'.*column 'age'.*numbers in part-0.parquet.*text in part-1"
    ):
        sources.parquet(parts(tmp_path / "lake" / "people", frame[:100], later))
    csv_folder = parts(
        tmp_path / "csv" / "people", frame[:100], frame[100:].rename(columns={"age": "years"}), fmt="csv"
    )
    with pytest.raises(LoadError, match=r"Table 'people'.*\['age'\].*\['years'\]"):
        sources.csv(csv_folder)


def test_part_files_that_differ_only_in_width_or_missing_values_are_one_table(tmp_path):
    """int32 and int64, int and double, an all-missing column (Arrow's null type): DuckDB widens them."""
    first = pd.DataFrame({"n": np.arange(3, dtype="int32"), "x": [1.5, 2.5, 3.5], "s": ["a", "b", "c"]})
    second = pd.DataFrame({"n": np.arange(3, dtype="int64"), "x": [1, 2, 3], "s": [None, None, None]})
    with sources.parquet(parts(tmp_path / "lake" / "t", first, second)) as source:
        assert lake.row_count(source, "t") == 6 and source.columns("t") == ["n", "x", "s"]


def hive(folder, frame: pd.DataFrame, by: str):
    """``frame`` written as Hive partitions: ``folder/<by>=<value>/part-0.parquet`` without the column."""
    for value, rows in frame.groupby(by):
        (folder / f"{by}={value}").mkdir(parents=True)
        rows.drop(columns=by).to_parquet(folder / f"{by}={value}" / "part-0.parquet", index=False)
    return folder


def people(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.integers(18, 90, n),
            "city": rng.choice(["Rome", "Oslo"], n),
            "year": rng.choice([2020, 2021], n),
        }
    )


def test_a_hive_partitioned_folder_is_one_table_whose_partition_keys_are_columns(tmp_path):
    """``train/year=2020/part-0.parquet``: one table, ``train``, with ``year`` read from the folder names."""
    frame = people(300, 0)
    flat = hive(tmp_path / "train", frame, "year")
    nested = hive(tmp_path / "lake" / "people", frame, "year").parent
    for given, table in ((flat, "train"), (nested, "people")):
        assert sources.is_lake_input(given)
        with sources.open_source(given) as source:
            assert list(source.relations) == [table] and source.columns(table) == ["age", "city", "year"]
            read = source.engine.frame(
                f"SELECT year, COUNT(*) AS n FROM {source.relations[table]} GROUP BY 1 ORDER BY 1"
            )
        assert (
            dict(zip(read["year"], read["n"], strict=True))
            == frame["year"].value_counts().sort_index().to_dict()
        )


def test_a_folder_named_like_a_partition_above_the_input_adds_no_column(tmp_path):
    """DuckDB reads every ``key=value`` folder of a path as a partition; only those below the input are."""
    frame = people(50, 0)
    folder = tmp_path / "run=5" / "lake" / "people"
    folder.mkdir(parents=True)
    frame.to_parquet(folder / "part-0.parquet", index=False)
    with sources.parquet(folder.parent) as source:
        assert source.columns("people") == ["age", "city", "year"]
    partitioned = hive(tmp_path / "run=6" / "lake" / "people", frame, "year").parent
    with sources.parquet(partitioned) as source:
        assert source.columns("people") == ["age", "city", "year"] and lake.row_count(source, "people") == 50


def test_the_command_line_reads_hive_partitioned_folders(tmp_path, capsys):
    from reportgen.cli import main

    hive(tmp_path / "train", people(400, 0), "year")
    hive(tmp_path / "synth", people(400, 1), "year")
    out = tmp_path / "r.html"
    args = [
        "report",
        "--train",
        str(tmp_path / "train"),
        "--synth",
        str(tmp_path / "synth"),
        "--out",
        str(out),
    ]
    assert main([*args, "--quiet", "--risk-attacks", "100", "--n-max-utility", "100"]) in (0, 3)
    (table,) = json.loads(out.with_suffix(".json").read_text())["sections"]["overview"]["tables"]
    assert [c["name"] for c in table["columns"]] == ["age", "city", "year"] and table["rows_train"] == 400
    assert "Traceback" not in capsys.readouterr().err


# -- engine errors never quote a record ------------------------------------------------------------
SECRET = "Alice Smith"


def people_csv(path, n: int = 25_000, bad_row: int | None = 24_000, bad: str = SECRET):
    """A CSV whose 'age' column is whole numbers but for one row past DuckDB's type sniffing."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "age": rng.integers(18, 90, n).astype(object),
            "income": rng.normal(30_000, 5_000, n).round(2),
            "city": rng.choice(["Paris", "Rome"], n),
            "member": rng.choice([True, False], n),
        }
    )
    if bad_row is not None:
        frame.loc[bad_row, "age"] = bad
    frame.to_csv(path, index=False)
    return frame


def test_a_value_that_does_not_fit_its_column_is_named_by_place_never_by_value(tmp_path):
    people_csv(tmp_path / "people.csv")
    with sources.csv(tmp_path / "people.csv") as source, pytest.raises(LoadError) as caught:
        source.engine.rows(f"SELECT SUM(age) FROM {source.relations['people']}")
    message = str(caught.value)
    assert "table 'people'" in message and "column 'age'" in message and "line 24002" in message
    assert str(tmp_path / "people.csv") in message and "without --in-place" in message
    assert SECRET not in message and "Paris" not in message and "Rome" not in message
    assert "Original Line" not in message


def test_a_byte_that_is_not_utf8_is_named_by_line_never_by_the_lines_values(tmp_path):
    people_csv(tmp_path / "people.csv", bad_row=None)
    raw = (tmp_path / "people.csv").read_bytes()
    at = raw.index(b"Paris", len(raw) // 2)
    (tmp_path / "people.csv").write_bytes(raw[:at] + b"Par\xffs" + raw[at + 5 :])
    with sources.csv(tmp_path / "people.csv") as source, pytest.raises(LoadError) as caught:
        lake.row_count(source, "people")
    message = str(caught.value)
    assert "table 'people'" in message and "UTF-8" in message and "CSV Error on Line" in message
    assert (
        "Original Line" not in message
        and "Rome" not in message
        and "Par" not in message.replace("Parquet", "")
    )


def test_a_cast_error_of_a_parquet_column_withholds_the_value(tmp_path):
    pd.DataFrame({"age": ["41", SECRET]}).to_parquet(tmp_path / "people.parquet")
    with sources.parquet(tmp_path / "people.parquet") as source, pytest.raises(LoadError) as caught:
        source.engine.rows(f"SELECT CAST(age AS INTEGER) FROM {source.relations['people']}")
    message = str(caught.value)
    assert "table 'people'" in message and "column 'age'" in message and SECRET not in message


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        ('invalid input syntax for type double precision: "Alice Smith"', "for type double precision"),
        ("[CAST_INVALID_INPUT] The value 'Alice Smith' of the type \"STRING\" cannot be cast", "CAST_INVALID_INPUT"),
        ("Could not convert string 'Alice Smith' to INT32 when casting from source column age", "column age"),
        ("Type DOUBLE with value 1234567.5 can't be cast because the value is out of range", "out of range"),
        ('invalid timestamp field format: "1234567", expected format is (YYYY-MM-DD)', "expected format"),
        ("CSV Error on Line: 9\nOriginal Line: 1234567,Alice Smith,Paris\nError", "Line: 9"),
        ("Could not convert 'Alice Smith' with type str: tried to convert to int64", "tried to convert"),
        ("could not convert string to float: 'Alice Smith'", "to float"),
    ],
)  # fmt: skip
def test_every_engines_way_of_quoting_a_value_is_withheld(said, kept):
    """DuckDB's, PostgreSQL's, Spark's, Arrow's and Python's ways of quoting the value that failed."""
    shown = withheld(said)
    assert kept in shown and "Alice" not in shown and "1234567" not in shown


def test_the_command_line_never_prints_the_record_of_an_engine_error(tmp_path, capsys):
    from reportgen.cli import main

    people_csv(tmp_path / "train.csv")
    people_csv(tmp_path / "synth.csv", bad_row=None)
    args = [
        "report",
        "--in-place",
        "--train",
        str(tmp_path / "train.csv"),
        "--synth",
        str(tmp_path / "synth.csv"),
    ]
    assert main([*args, "--out", str(tmp_path / "r.html"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "column 'age'" in err and SECRET not in err and "Traceback" not in err
    assert not (tmp_path / "r.html").exists()


# -- the canonical text of a double ----------------------------------------------------------------------
EDGE_DOUBLES = [0.0, -0.0, math.nan, math.inf, -math.inf, 5e-324, -5e-324, 3 * 2.0**-1074, 1e-310]
EDGE_DOUBLES += [
    2.0**-1022,
    2.2250738585072009e-308,
    1e-300,
    1e308,
    -1e308,
    1.7976931348623157e308,
    2.0**1023,
]
EDGE_DOUBLES += [0.1, 1 / 3, -2 / 3, 0.30000000000000004, 123456789.12345678, 1.2345678901234567e-100, 1e-5]
EDGE_DOUBLES += [2.0**53, 2.0**53 + 2, -(2.0**53), 2.0**53 - 1, 1e16, 1e22, 12345678.5, 4.35, -2.5, 3.0, -1.0]
EDGE_DOUBLES += [math.nextafter(v, 0) for v in (1.0, 2.0, 4.0, 0.5, 2.0**-1021)]  # just below a binade


def reference_text(value: float) -> str:
    """The canonical text of a double, from Python's exact ``frexp``: what the SQL must write."""
    if math.isnan(value):
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    fraction, exponent = math.frexp(abs(value))  # |value| = fraction * 2**exponent, fraction in [0.5, 1)
    return f"{'-' if value < 0 else ''}{int(fraction * 2**53)}p{exponent - 53}"


def test_the_canonical_text_of_every_awkward_double_is_its_exact_significand_and_exponent(tmp_path):
    rng = np.random.default_rng(3)
    bits = rng.integers(0, 2**63, size=5000, dtype=np.int64).view(np.float64)
    finite = [float(v) for v in bits[np.isfinite(bits)]] + [float(v) for v in rng.normal(size=1000)]
    pq.write_table(pa.table({"x": pa.array(finite, pa.float64())}), tmp_path / "t.parquet")
    with sources.parquet(tmp_path / "t.parquet") as source:  # Parquet: the engine sees row-group statistics
        rel = source.relations["t"]
        texts = [r[0] for r in source.engine.rows(f"SELECT {lake.double_text_sql('x')} FROM {rel}")]
        assert texts == [reference_text(v) for v in finite]
    pq.write_table(pa.table({"x": pa.array([*EDGE_DOUBLES, None], pa.float64())}), tmp_path / "edges.parquet")
    with sources.parquet(tmp_path / "edges.parquet") as source:
        rel = source.relations["edges"]
        texts = [r[0] for r in source.engine.rows(f"SELECT {lake.double_text_sql('x')} FROM {rel}")]
    assert texts == [*map(reference_text, EDGE_DOUBLES), None]


@pytest.fixture(scope="module")
def nan_parquet(tmp_path_factory):
    """A pyarrow Parquet file whose float column holds NaN, but no NULL nor infinity: its statistics
    (min and max, NaN left out) say every value is finite, which DuckDB 2.0 folded ``isnan`` from."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=3000)
    x[rng.random(3000) < 0.1] = np.nan
    table = pa.table({"x": pa.array(x, pa.float64()), "i": pa.array(np.arange(3000), pa.int64())})
    path = tmp_path_factory.mktemp("nan") / "t.parquet"
    pq.write_table(table, path, row_group_size=1000)
    present = pa.table({"x": pa.array(x[~np.isnan(x)], pa.float64())})
    pq.write_table(present, path.with_name("present.parquet"))  # the same values, NaN left out
    statistics = pq.ParquetFile(path).metadata.row_group(0).column(0).statistics
    assert statistics.has_min_max and np.isfinite([statistics.min, statistics.max]).all()
    return path, pd.DataFrame({"x": x, "i": np.arange(3000)})


def test_nan_in_parquet_whose_statistics_leave_it_out_is_missing_in_every_aggregate(nan_parquet):
    path, frame = nan_parquet
    kinds = {"x": K.NUMERIC, "i": K.INTEGER}
    with sources.parquet(path.parent) as source:
        assert lake.missing_counts(source, "t", ["x", "i"], ["x", "i"]) == {
            "x": int(frame.x.isna().sum()),
            "i": 0,
        }
        texts = [
            r[0]
            for r in source.engine.rows(f"SELECT {lake.double_text_sql('x')} FROM {source.relations['t']}")
        ]
        assert texts == [reference_text(v) for v in frame.x]
        bins = {c: fit_bins(c, k, frame[c].iloc[:500], n_bins=10) for c, k in kinds.items()}
        in_engine = lake.bin_counts(source, "t", list(kinds), bins, bins)
        assert_same_counts(in_engine, bin_counts_in_memory(frame, list(kinds), bins, bins))
        # KS of the values against the same values less NaN: 0 only if NaN is left out, as missing
        pair = Source(
            source.engine, {"a": source.relations["t"], "b": source.relations["present"]}, None, "t"
        )
        assert lake.ks_statistics(pair, {"x": K.NUMERIC}) == {"x": {"b": 0.0}}
        (present,) = source.engine.rows(
            f"SELECT COUNT(*) FROM {source.relations['t']} WHERE NOT {lake.number_expression('x', K.NUMERIC)[1]}"
        )
        assert present[0] == frame.x.notna().sum()


def test_a_sample_of_parquet_with_nan_is_drawn_in_place_and_keeps_its_nan(nan_parquet):
    path, frame = nan_parquet
    with sources.parquet(path) as source:
        drawn = lake.sample_rows(source, "t", 500, seed=3)  # failed: NaN cast to an integer
    assert len(drawn) == 500 and drawn.i.is_unique
    chosen = frame.set_index("i").loc[drawn.i, "x"].to_numpy()
    np.testing.assert_array_equal(drawn.x.to_numpy(), chosen)
    assert drawn.x.isna().any()


def test_the_canonical_texts_arithmetic_sits_outside_case_so_duckdb_computes_it_once():
    """DuckDB shares a repeated subexpression except under CASE (short-circuit): with ``LN`` and
    ``POWER`` inside a CASE branch, the seeded sample of 1M rows took twice as long
    (``benchmarks/bench_lake_sample.py``)."""
    tree = sqlglot.parse_one(f"SELECT {lake.double_text_sql('x')}", read="duckdb")
    heavy = [node for node in tree.find_all(exp.Ln, exp.Pow)]
    assert heavy and not any(node.find_ancestor(exp.Case) for node in heavy)
