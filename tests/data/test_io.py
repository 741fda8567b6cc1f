"""Loading and writing datasets: schema files, CSV/Parquet folders, SQLite and PostgreSQL.

Round trips use the shared real datasets (chinook: 11 tables with a self-reference, a composite
key of two foreign keys and a child with two parents; restaurant_consumer: 3 core tables, an
all-missing column, a nullable boolean column and string keys).

No dtype normalisation is needed before comparing: every loader ends with the same dtype step
(datetime strings -> datetime64, object columns of booleans -> ``boolean``), and integer columns
with missing values are float64 in all forms (CSV and pandas' SQL reader both give float64), so
the frames are compared exactly, dtypes and values included.

One normalisation of row order, for PostgreSQL only: it returns rows in storage order, which is
not insertion order (a later, shorter row can fill the space left at the end of an earlier page),
and ``load_sql`` sorts nothing. So for PostgreSQL both sides are sorted by primary key first.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa

from reportgen.data.io import (
    load,
    load_folder,
    load_sql,
    read_schema,
    write_folder,
    write_schema,
    write_sql,
)
from reportgen.data.relational import RelationalData
from reportgen.data.schema import ColumnKind, ForeignKey, PrimaryKey, Relation, Schema, Table
from reportgen.errors import LoadError, SchemaError

from ..system import unavailable

DATASETS = Path(__file__).resolve().parents[2].parent / "shared" / "datasets"
TARGETS = ["csv", "parquet", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def _dataset_folder(name: str) -> Path:
    folder = DATASETS / name
    if not (folder / "metadata.json").is_file():
        unavailable(f"shared dataset folder {folder} is missing")
    return folder


@pytest.fixture(scope="module")
def chinook_io() -> RelationalData:
    data = load_folder(_dataset_folder("chinook"))  # the folder's own metadata.json
    assert len(data) == 11 and len(data.schema.relations) == 11
    assert data["Track"].shape == (3503, 9) and data["PlaylistTrack"].shape == (8715, 2)
    assert data.schema["PlaylistTrack"].primary_key == ("PlaylistId", "TrackId")
    assert Relation("Employee", "ReportsTo", "Employee", "EmployeeId") in data.schema.relations
    assert data["Invoice"]["InvoiceDate"].dtype.kind == "M"
    return data


@pytest.fixture(scope="module")
def restaurant_io(tmp_path_factory: pytest.TempPathFactory) -> RelationalData:
    """The 3 core tables, through a copy of metadata.json cut down to them."""
    folder = _dataset_folder("restaurant_consumer")
    meta = json.loads((folder / "metadata.json").read_text())
    core = set(meta["core_tables"])
    meta["tables"] = {n: t for n, t in meta["tables"].items() if n in core}
    meta["relationships"] = [r for r in meta["relationships"] if r["child_table"] in core]
    schema_file = tmp_path_factory.mktemp("restaurant") / "core.json"
    schema_file.write_text(json.dumps(meta))
    data = load_folder(folder, schema_file)
    assert list(data) == ["userprofile", "geoplaces2", "rating_final"]
    assert [len(f) for f in data.values()] == [138, 130, 1161]
    assert data["geoplaces2"]["fax"].isna().all()
    assert data["userprofile"]["smoker"].dtype == "boolean"
    assert data.schema["rating_final"].primary_key == ("userID", "placeID")
    return data


@pytest.mark.parametrize("name", ["chinook", "restaurant"])
def test_load_folder_reads_what_plain_pandas_reads(name, request):
    """Against tests/conftest.py's independent reader (pandas + Schema.from_dict)."""
    plain, loaded = request.getfixturevalue(name), request.getfixturevalue(f"{name}_io")
    assert list(loaded) == list(plain)
    for table, frame in plain.items():
        expected = frame.copy()
        for column in frame.columns:  # the loaders' dtype step, spelled out
            if plain.schema[table].kinds[column] is ColumnKind.DATETIME:
                expected[column] = pd.to_datetime(frame[column], format="ISO8601")
            elif frame[column].dtype == object:
                expected[column] = frame[column].astype("boolean")
        pd.testing.assert_frame_equal(loaded[table], expected, check_exact=True, obj=table)
    assert loaded.schema == plain.schema


def _by_primary_key(data: RelationalData) -> RelationalData:
    """The rows of every table sorted by its primary key (see the module docstring)."""
    return data.with_tables(
        {
            name: frame.sort_values(list(data.schema[name].primary_key)).reset_index(drop=True)
            for name, frame in data.items()
        }
    )


def _round_trip(data: RelationalData, target: str, tmp_path: Path, request) -> RelationalData:
    if target in ("csv", "parquet"):
        write_folder(data, tmp_path / target, format=target)
        return load_folder(tmp_path / target)
    if target == "sqlite":
        url = f"sqlite:///{tmp_path / 'data.db'}"
    else:
        url = request.getfixturevalue("fresh_postgres_url")
    write_sql(data, url)
    return load_sql(url)  # keys from the database's own constraints, no schema given


def assert_same_data(loaded: RelationalData, original: RelationalData) -> None:
    # Table order is not compared: a database lists its tables in its own order.
    assert sorted(loaded) == sorted(original)
    for name, frame in original.items():
        assert list(loaded[name].columns) == list(frame.columns), name
        pd.testing.assert_frame_equal(loaded[name], frame, check_exact=True, obj=name)
        assert loaded.schema[name].primary_key == original.schema[name].primary_key, name
    assert set(loaded.schema.relations) == set(original.schema.relations)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dataset", ["chinook_io", "restaurant_io"])
def test_dataset_round_trips(dataset, target, tmp_path, request) -> None:
    original: RelationalData = request.getfixturevalue(dataset)
    loaded = _round_trip(original, target, tmp_path, request)
    if target == "postgres":
        loaded, original = _by_primary_key(loaded), _by_primary_key(original)
    assert_same_data(loaded, original)


def test_write_folder_writes_one_file_per_table_and_no_temporary_files(restaurant_io, tmp_path):
    restaurant = restaurant_io
    write_folder(restaurant, tmp_path, format="parquet")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["geoplaces2.parquet", "rating_final.parquet", "schema.yaml", "userprofile.parquet"]
    # The written schema names each file, so a stale file of another format is no ambiguity.
    (tmp_path / "userprofile.csv").write_text("junk\n1\n")
    assert_same_data(load_folder(tmp_path), restaurant)


def test_load_dispatches_on_the_source(restaurant_io, tmp_path):
    restaurant = restaurant_io
    write_folder(restaurant, tmp_path / "folder")
    write_sql(restaurant, f"sqlite:///{tmp_path / 'data.db'}")
    assert_same_data(load(tmp_path / "folder"), restaurant)
    assert_same_data(load(f"sqlite:///{tmp_path / 'data.db'}"), restaurant)
    single = load(tmp_path / "folder" / "rating_final.csv")
    assert list(single) == ["rating_final"]
    pd.testing.assert_frame_equal(single["rating_final"], restaurant["rating_final"])


def test_csv_missing_values_are_only_empty_fields(tmp_path):
    (tmp_path / "t.csv").write_text("id,label,flag\n1,NA,True\n2,None,\n3,,False\n4,null,True\n")
    data = load_folder(tmp_path)
    frame = data["t"]
    assert frame["label"].tolist()[:2] == ["NA", "None"]
    assert frame["label"].isna().tolist() == [False, False, True, False]
    # read_csv's booleans with a gap: the nullable boolean dtype, and inferred as boolean.
    assert frame["flag"].dtype == "boolean" and frame["flag"].isna().tolist()[1]
    assert data.schema["t"].kinds["flag"] is ColumnKind.BOOLEAN


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_schema_files_round_trip(chinook_io, tmp_path, suffix):
    chinook = chinook_io
    path = tmp_path / f"schema{suffix}"
    write_schema(chinook.schema, path)
    again = read_schema(path)
    assert again == chinook.schema
    assert again.relations == chinook.schema.relations


HAND_MADE = """
CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT, manager INTEGER REFERENCES person(id),
                     born DATE);
CREATE TABLE project (code TEXT PRIMARY KEY, started TIMESTAMP, budget REAL);
CREATE TABLE assignment (person_id INTEGER NOT NULL REFERENCES person(id), hours REAL,
                         project_code TEXT REFERENCES project(code),
                         PRIMARY KEY (project_code, person_id));
INSERT INTO person VALUES (1, 'Ann', NULL, '1970-01-02'), (2, 'Bob', 1, '1980-03-04'),
                          (3, 'Cy', 1, NULL);
INSERT INTO project VALUES ('zeta', '2024-05-06 07:08:09', 10.5), ('alpha', NULL, NULL);
INSERT INTO assignment VALUES (3, 1.5, 'zeta'), (1, 2.0, 'alpha'), (2, NULL, 'zeta');
"""


def _hand_made_sqlite(path: Path, script: str = HAND_MADE) -> str:
    with sqlite3.connect(path) as conn:
        conn.executescript(script)
    conn.close()
    return f"sqlite:///{path}"


def test_load_sql_reads_keys_and_datetimes_from_the_database(tmp_path):
    data = load_sql(_hand_made_sqlite(tmp_path / "hand.db"))
    assert sorted(data) == ["assignment", "person", "project"]
    schema = data.schema
    assert schema["person"].primary_key == ("id",)
    assert schema["project"].primary_key == ("code",)
    assert schema["assignment"].primary_key == ("project_code", "person_id")
    assert set(schema.relations) == {
        Relation("person", "manager", "person", "id"),
        Relation("assignment", "person_id", "person", "id"),
        Relation("assignment", "project_code", "project", "code"),
    }
    assert schema["person"].kinds["born"] is ColumnKind.DATETIME
    assert schema["project"].kinds["started"] is ColumnKind.DATETIME
    # Column order and row order are the database's; nothing is sorted.
    assert list(data["assignment"].columns) == ["person_id", "hours", "project_code"]
    assert data["project"]["code"].tolist() == ["zeta", "alpha"]
    assert data["project"]["started"].tolist()[0] == pd.Timestamp("2024-05-06 07:08:09")
    assert data["person"]["born"].isna().tolist() == [False, False, True]
    assert data["person"]["manager"].tolist()[1:] == [1.0, 1.0]


def test_load_sql_with_tables_and_with_a_schema(tmp_path):
    url = _hand_made_sqlite(tmp_path / "hand.db")
    assert list(load_sql(url, tables=["project"])) == ["project"]
    with pytest.raises(SchemaError, match=r"Table 'assignment'.*foreign key.*Add it to tables="):
        load_sql(url, tables=["assignment"])
    schema = Schema(project=Table(code=PrimaryKey(), budget="numeric"))
    data = load_sql(url, schema=schema)
    assert list(data) == ["project"] and data.schema["project"].kinds["budget"] == "numeric"


def test_load_sql_reads_composite_foreign_keys(tmp_path):
    url = _hand_made_sqlite(
        tmp_path / "composite.db",
        """
        CREATE TABLE a (x INTEGER, y INTEGER, PRIMARY KEY (x, y));
        CREATE TABLE b (id INTEGER PRIMARY KEY, x INTEGER, y INTEGER,
                        FOREIGN KEY (x, y) REFERENCES a (x, y));
    """,
    )
    data = load_sql(url)
    assert data.schema.relations == (Relation("b", ("x", "y"), "a", ("x", "y")),)
    assert data.schema["b"].key_columns == {"id", "x", "y"}


# -- errors ------------------------------------------------------------------------------------
def test_missing_folder(tmp_path):
    with pytest.raises(LoadError, match=r"no_such_folder.*does not exist"):
        load_folder(tmp_path / "no_such_folder")


def test_schema_table_without_file(tmp_path):
    (tmp_path / "users.csv").write_text("id\n1\n")
    write_schema(
        Schema(users=Table(id=PrimaryKey()), orders=Table(id=PrimaryKey(), user=ForeignKey("users"))),
        tmp_path / "schema.yaml",
    )
    with pytest.raises(LoadError, match=r"Table 'orders'.*orders\.csv"):
        load_folder(tmp_path)


def test_two_files_for_one_table(tmp_path):
    (tmp_path / "users.csv").write_text("id\n1\n")
    pd.DataFrame({"id": [1]}).to_parquet(tmp_path / "users.parquet")
    with pytest.raises(LoadError, match=r"Table 'users'.*users\.csv.*users\.parquet"):
        load_folder(tmp_path)


def test_schema_file_that_is_not_valid_yaml(tmp_path):
    (tmp_path / "users.csv").write_text("id\n1\n")
    (tmp_path / "schema.yaml").write_text("tables: [users\n  - : :\n")
    with pytest.raises(LoadError, match=r"schema\.yaml.*not valid YAML"):
        load_folder(tmp_path)
    with pytest.raises(LoadError, match=r"schema\.yaml.*not valid YAML"):
        read_schema(tmp_path / "schema.yaml")


def test_schema_file_problems_name_the_file(tmp_path):
    with pytest.raises(LoadError, match=r"missing\.yaml.*does not exist"):
        read_schema(tmp_path / "missing.yaml")
    (tmp_path / "bad.json").write_text('{"tables": {"t": {"primary_key": ["id"], "oops": 1}}}')
    with pytest.raises(SchemaError, match=r"bad\.json.*'oops'"):
        read_schema(tmp_path / "bad.json")


def test_unknown_suffix(tmp_path):
    with pytest.raises(LoadError, match=r"schema\.toml.*unknown suffix '\.toml'"):
        read_schema(tmp_path / "schema.toml")
    with pytest.raises(LoadError, match=r"unknown suffix '\.txt'"):
        write_schema(Schema(t=Table()), tmp_path / "schema.txt")
    (tmp_path / "data.txt").write_text("id\n1\n")
    with pytest.raises(LoadError, match=r"data\.txt.*expected a database URL"):
        load(tmp_path / "data.txt")


def test_load_sql_on_a_missing_sqlite_file(tmp_path):
    with pytest.raises(LoadError, match=r"nothing\.db.*does not exist"):
        load_sql(f"sqlite:///{tmp_path / 'nothing.db'}")
    assert not (tmp_path / "nothing.db").exists()


def test_write_sql_if_exists(tmp_path):
    url = f"sqlite:///{tmp_path / 'data.db'}"
    first = RelationalData({"users": pd.DataFrame({"id": [1, 2]})}, Schema(users=Table(id=PrimaryKey())))
    write_sql(first, url)
    with pytest.raises(LoadError, match=r"already has table\(s\) \['users'\].*if_exists='replace'"):
        write_sql(first, url)
    second = RelationalData(
        {"users": pd.DataFrame({"id": [7], "name": ["Zoe"]})}, Schema(users=Table(id=PrimaryKey()))
    )
    write_sql(second, url, if_exists="replace")
    pd.testing.assert_frame_equal(load_sql(url)["users"], second["users"])


def _employees(reports_to: list[float]) -> RelationalData:
    frame = pd.DataFrame({"id": [2, 1, 3], "boss": reports_to})
    return RelationalData({"staff": frame}, Schema(staff=Table(id=PrimaryKey(), boss=ForeignKey("staff"))))


@pytest.mark.postgres
def test_postgres_foreign_keys_are_deferred_and_enforced(fresh_postgres_url):
    # Row 2 refers to row 1 before row 1 is inserted: fine, the check waits for the commit.
    data = _employees([1.0, float("nan"), 2.0])
    write_sql(data, fresh_postgres_url)
    assert_same_data(load_sql(fresh_postgres_url), data)
    # ...but the constraint is real: an orphan fails at commit, and nothing is left behind.
    with pytest.raises(LoadError, match="foreign key"):
        write_sql(_employees([1.0, float("nan"), 99.0]), fresh_postgres_url, if_exists="replace")
    engine = sa.create_engine(fresh_postgres_url)
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM staff")).scalar() == 3
    engine.dispose()


@pytest.mark.parametrize("format", ["csv", "parquet"])
def test_table_names_like_paths_are_written_inside_the_folder_and_load_back(tmp_path, format):
    """A table name is data: ``../up``, ``/etc/x`` or ``a[1]`` must not leave or glob the folder."""
    frame = pd.DataFrame({"x": [1.5, 2.5], "y": ["a", "b"]})
    names = ["../up", "/etc/absolute", "a[1]*", "a%2Fb", "a/b", ".hidden", "plain"]
    folder = tmp_path / "inner" / "out"
    write_folder(RelationalData({n: frame for n in names}), folder, format=format)
    assert [p.name for p in (tmp_path / "inner").iterdir()] == ["out"]
    files = sorted(p.name for p in folder.iterdir())
    assert len(files) == len(names) + 1 and all("/" not in f and not f.startswith(".") for f in files)
    loaded = load_folder(folder)
    assert sorted(loaded) == sorted(names)
    for name in names:
        pd.testing.assert_frame_equal(loaded[name], frame)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("tables:\n  a: {}\n  a: {}\n", r"key 'a' appears twice \(lines 2 and 3\)"),
        ("base: &cols {x: numeric}\ntables:\n  a: {columns: *cols}\n", r"the alias \*cols"),
    ],
)
def test_a_schema_file_with_a_repeated_key_or_an_alias_is_refused_naming_the_file(tmp_path, text, message):
    (tmp_path / "schema.yaml").write_text(text)
    with pytest.raises(LoadError, match=rf"Schema file '.*schema\.yaml' is not valid YAML: {message}"):
        read_schema(tmp_path / "schema.yaml")


@pytest.mark.parametrize("entry", ["../outside.csv", "sub/../../outside.csv", "ABSOLUTE"])
def test_a_schema_file_entry_outside_the_data_folder_is_refused(tmp_path, entry):
    """A schema file may name files in its folder only: not ``../x``, not ``/etc/passwd``."""
    import reportgen as rg

    outside = tmp_path / "outside.csv"
    outside.write_text("id\n1\n")
    folder = tmp_path / "data"
    (folder / "sub").mkdir(parents=True)
    entry = str(outside) if entry == "ABSOLUTE" else entry
    (folder / "schema.yaml").write_text(f"tables:\n  users:\n    file: {json.dumps(entry)}\n")
    message = (
        rf"Schema file '.*schema\.yaml': Schema table 'users': 'file' names {entry!r}, outside the "
        r"data folder; name a file inside the folder"
    ).replace("(", r"\(")
    for read in (load_folder, rg.sources.csv):
        with pytest.raises(SchemaError, match=message):
            read(folder)


def test_a_schema_file_entry_in_a_sub_folder_is_read(tmp_path):
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "users.csv").write_text("id\n1\n2\n")
    (tmp_path / "schema.yaml").write_text("tables:\n  users:\n    file: parts/users.csv\n")
    assert load_folder(tmp_path)["users"]["id"].tolist() == [1, 2]
