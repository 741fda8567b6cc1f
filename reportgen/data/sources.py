"""Inputs that stay where they are: Parquet and CSV files, DuckDB databases, SQLAlchemy databases.

A ``Source`` is one role's dataset (training, holdout or synthetic) left in an engine that answers
SQL: DuckDB for files (Parquet or CSV of any size, read in place, never loaded whole) and DuckDB
database files, or the database itself for a SQLAlchemy URL (PostgreSQL, ...). Each table is a SQL
relation (a quoted table name, or ``read_parquet([...])``), so the aggregates of
``reportgen.data.lake`` run where the data lives and only their small results reach Python.

Constructors, one per kind of input::

    parquet("lake/train/")       # a .parquet file, or a folder: one table per file or sub-folder
    csv("data/real/")            # a .csv file, or a folder of them
    duckdb_file("lake.duckdb")   # the tables of a DuckDB database file (read-only)
    sql("postgresql+psycopg://user@host/db")
    frames({"t": df})            # DataFrames already in memory, queried by DuckDB in place

A folder's tables follow ``reportgen.data.io``: a schema file in the folder (or ``schema=``) names
the tables and keys; without one, each table file (or each sub-folder of Parquet part files, the
usual data-lake layout) is a table with inferred kinds. The part files of one table must agree:
the same columns, each holding the same kind of values (numbers of any width, text, booleans,
timestamps with or without a zone, dates; an all-missing column agrees with any kind); a table
whose parts differ is refused, naming the files and the columns (``_check_parts``), since reading
them as one would make each differing column look half missing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import pandas as pd
import sqlalchemy as sa

from reportgen.data.engines import (
    _FORMATS,
    DEFAULT_MEMORY_LIMIT,
    DuckDBEngine,
    Source,
    SQLAlchemyEngine,
    _folder_tables,
    _stem,
    is_partition,
    is_partitioned,
    quote,
)
from reportgen.data.io import (
    SCHEMA_FILE_NAMES,
    PathLike,
    SchemaSource,
    db_message,
    reflect_schema,
    resolve_schema,
    safe_url,
)
from reportgen.data.schema import Schema
from reportgen.errors import InvalidParameterError, LoadError


def parquet(
    path: PathLike, schema: SchemaSource = None, *, memory_limit: str = DEFAULT_MEMORY_LIMIT
) -> Source:
    """A Parquet file (one table) or folder (a table per file or per sub-folder of part files)."""
    return _files_source(Path(path), "parquet", schema, memory_limit)


def csv(path: PathLike, schema: SchemaSource = None, *, memory_limit: str = DEFAULT_MEMORY_LIMIT) -> Source:
    """A CSV file (one table) or folder of CSV files, read by DuckDB in place.

    As in ``reportgen.data.io``, only empty fields are missing values.
    """
    return _files_source(Path(path), "csv", schema, memory_limit)


def duckdb_file(
    path: PathLike,
    *,
    tables: Sequence[str] | None = None,
    schema: SchemaSource = None,
    memory_limit: str = DEFAULT_MEMORY_LIMIT,
) -> Source:
    """The tables of a DuckDB database file, opened read-only (default: every table)."""
    file = Path(path)
    if not file.is_file():
        raise LoadError(f"DuckDB database file {str(file)!r} does not exist. Check the path.")
    engine = DuckDBEngine(str(file), memory_limit=memory_limit)
    found = [str(r[0]) for r in engine.rows("SELECT table_name FROM information_schema.tables ORDER BY 1")]
    resolved = resolve_schema(schema)[0]
    names = list(resolved) if resolved is not None else list(tables or found)
    _check_tables(names, found, f"DuckDB database {str(file)!r}")
    return Source(engine, {n: quote(n) for n in names}, resolved, f"DuckDB database {str(file)!r}")


def sql(url: str, *, tables: Sequence[str] | None = None, schema: SchemaSource = None) -> Source:
    """Tables of any SQLAlchemy database, left there; keys from its constraints unless ``schema``."""
    engine = SQLAlchemyEngine(url)
    resolved = resolve_schema(schema)[0]
    if resolved is None:
        try:
            with engine.engine.connect() as conn:
                resolved = reflect_schema(conn, tables)
        except sa.exc.SQLAlchemyError as error:
            raise LoadError(f"Cannot read database {safe_url(url)}: {db_message(error)}") from None
    return Source(engine, {n: quote(n) for n in resolved}, resolved, f"database {safe_url(url)}")


def frames(
    data: Mapping[str, pd.DataFrame] | pd.DataFrame,
    schema: Schema | None = None,
    *,
    memory_limit: str = DEFAULT_MEMORY_LIMIT,
) -> Source:
    """DataFrames already in memory, queried in place by DuckDB (to mix with other sources)."""
    from reportgen.data.relational import SINGLE_TABLE_NAME

    tables = {SINGLE_TABLE_NAME: data} if isinstance(data, pd.DataFrame) else dict(data)
    engine = DuckDBEngine(memory_limit=memory_limit)
    relations = {}
    for i, (name, frame) in enumerate(tables.items()):
        view = f"reportgen_frame_{i}"
        engine.connection.register(view, frame)
        relations[str(name)] = quote(view)
    return Source(engine, relations, schema, "DataFrames in memory")


def spark(session: Any, tables: Mapping[str, Any] | Sequence[str], *, schema: SchemaSource = None) -> Source:
    """Tables of a ``SparkSession`` (classic or Connect): ``{"name": "catalog.schema.table" or a DataFrame}``.

    Needs pyspark (``pip install "reportgen[spark]"``); ``reportgen.data.spark`` says how it runs.
    """
    from reportgen.data.spark import spark as spark_source

    return spark_source(session, tables, schema=schema)


def open_source(text: PathLike, schema: SchemaSource = None) -> Source:
    """A source from a command-line argument: a URL, a ``.duckdb`` file, a Parquet or CSV path.

    ``spark://`` and ``sc://`` URLs are Spark sources (``reportgen.data.spark.open_spark_url``).
    """
    value = os.fspath(text)
    if value.split("://", 1)[0].lower() in ("spark", "sc"):
        from reportgen.data.spark import open_spark_url

        return open_spark_url(value, schema)
    if "://" in value:
        return sql(value, schema=schema)
    path = Path(value)
    if path.suffix.lower() in (".duckdb", ".ddb"):
        return duckdb_file(path, schema=schema)
    return _files_source(path, _file_format(path), schema, DEFAULT_MEMORY_LIMIT)


def is_lake_input(text: PathLike) -> bool:
    """Whether a command-line input is read in place: Parquet files or folders, or DuckDB files.

    CSV folders and database URLs keep the in-memory loader unless asked (``--in-engine``), so
    their reports do not change; Parquet, DuckDB and Spark inputs, the large ones, always stay in place.
    """
    value = os.fspath(text)
    if "://" in value:
        return value.split("://", 1)[0].lower() in ("spark", "sc")
    path = Path(value)
    if path.suffix.lower() in (".duckdb", ".ddb", ".parquet"):
        return True
    return path.is_dir() and folder_format(path) == "parquet"


def _file_format(path: Path) -> str:
    if path.is_dir():
        return folder_format(path)
    name = path.name.lower()
    for fmt, suffixes in _FORMATS.items():
        if name.endswith(suffixes):
            return fmt
    raise LoadError(
        f"Cannot read {str(path)!r} in place: expected a database URL, a .duckdb file, or a "
        "Parquet or CSV file or folder."
    )


def folder_format(folder: Path) -> Literal["csv", "parquet"]:
    """Parquet when the folder holds any Parquet file (at any depth: Hive partitions nest), else CSV."""
    return "parquet" if next(folder.rglob("*.parquet"), None) is not None else "csv"


def _files_source(path: Path, fmt: str, schema: SchemaSource, memory_limit: str) -> Source:
    """Files of one format as DuckDB relations, one per table."""
    if not path.exists():
        raise LoadError(f"{str(path)!r} does not exist. Give a {fmt} file or a folder of {fmt} files.")
    if path.is_dir() and schema is None:
        schema = next((path / n for n in SCHEMA_FILE_NAMES if (path / n).is_file()), None)
    resolved, named = resolve_schema(schema)
    if path.is_file():
        name = next(iter(resolved)) if resolved is not None and len(resolved) == 1 else _stem(path)
        files = {name: [path]}
    else:
        files = _folder_tables(path, fmt, named)
        if resolved is not None and len(resolved) == 1 and not named and is_partitioned(path, _FORMATS[fmt]):
            files = {next(iter(resolved)): files[path.name]}  # one table, as a single file is
        if resolved is not None:
            _check_tables(list(resolved), list(files), f"Folder {str(path)!r}")
    engine = DuckDBEngine(memory_limit=memory_limit)
    try:
        _check_parts(fmt, files, engine)
    except LoadError:
        engine.close()
        raise
    relations = {name: _reader(fmt, found, path) for name, found in files.items()}
    return Source(engine, relations, resolved, f"{fmt} input {str(path)!r}", files)


def _check_parts(fmt: str, files: Mapping[str, list[Path]], engine: DuckDBEngine) -> None:
    """Refuse a table whose part files differ in their columns or in the kind of a column's values.

    Each part is compared with the first: Parquet by its footer's schema, CSV by its header.
    """
    for table, found in files.items():
        if len(found) < 2:
            continue
        first = _part_columns(fmt, found[0], engine)
        folder = Path(os.path.commonpath(found))
        for part in found[1:]:
            problem = _parts_differ(
                first,
                _part_columns(fmt, part, engine),
                *(str(f.relative_to(folder)) for f in (found[0], part)),
            )
            if problem:
                raise LoadError(
                    f"Table {table!r}: its part files in {str(folder)!r} differ: {problem}. Read as one "
                    "table, such a column would be missing in some files' rows or mix kinds of values. "
                    "Write every part with the same columns and the same kind of values (or give each "
                    "its own table)."
                )


def _part_columns(fmt: str, file: Path, engine: DuckDBEngine) -> dict[str, str]:
    """A part file's columns, each with the kind of its values (``""`` for CSV, whose types are guessed)."""
    if fmt == "csv":
        return {
            str(row[0]): "" for row in engine.rows(f"DESCRIBE SELECT * FROM {_reader(fmt, [file], file)}")
        }
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(file)
    except (OSError, ValueError) as error:
        raise LoadError(f"Cannot read the Parquet file {str(file)!r}: {error}") from None
    return {field.name: _arrow_kind(field.type) for field in schema}


def _arrow_kind(kind: Any) -> str:
    """The kind of values an Arrow type holds, as reportgen reads them (widths do not matter)."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        return _arrow_kind(kind.value_type)
    checks = [
        (pa.types.is_null, "missing"),
        (pa.types.is_boolean, "booleans"),
        (lambda t: pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t), "numbers"),
        (lambda t: pa.types.is_string(t) or pa.types.is_large_string(t), "text"),
        (lambda t: pa.types.is_timestamp(t) and t.tz is not None, "timestamps with a time zone"),
        (pa.types.is_timestamp, "timestamps"),
        (pa.types.is_date, "dates"),
    ]
    return next((name for check, name in checks if check(kind)), str(kind))


def _parts_differ(first: dict[str, str], other: dict[str, str], a: str, b: str) -> str | None:
    """How the columns of part files ``a`` and ``b`` differ (None when they agree)."""
    only_first = [c for c in first if c not in other]
    only_other = [c for c in other if c not in first]
    if only_first or only_other:
        said = [f"{a} has {only_first} that {b} lacks"] if only_first else []
        said += [f"{b} has {only_other} that {a} lacks"] if only_other else []
        return " and ".join(said)
    for column, kind in first.items():
        if "missing" not in (kind, other[column]) and kind != other[column]:
            return f"column {column!r} holds {kind} in {a} and {other[column]} in {b}"
    return None


def _reader(fmt: str, files: list[Path], root: Path) -> str:
    """The DuckDB table function that reads ``files`` in place (in name order), under the input ``root``.

    Hive partitions between ``root`` and the files (``year=2024/``) become columns, as DuckDB reads
    them; a ``key=value`` folder above them (``/data/run=5/lake``) does not: DuckDB would read every
    one of the path, so those are dropped (or partitions are not read at all where there are none).
    """
    listed = "[" + ", ".join("'" + _literal_path(f).replace("'", "''") + "'" for f in files) + "]"
    below = {_key(d) for f in files for d in f.relative_to(root).parts[:-1] if is_partition(d)}
    options = ("" if fmt == "parquet" else "header = true, ") + "union_by_name = true"
    reader = f"read_{fmt}({listed}, {options}, hive_partitioning = {str(bool(below)).lower()})"
    above = sorted({_key(d) for d in root.absolute().parts if is_partition(d)} - below)
    if below and above:
        return f"(SELECT * EXCLUDE ({', '.join(quote(k) for k in above)}) FROM {reader})"
    return reader


def _key(partition: str) -> str:
    return partition.partition("=")[0]


def _literal_path(file: Path) -> str:
    """``file`` as a DuckDB path that matches that file only, however it is named.

    DuckDB reads a path holding ``*``, ``?`` or ``[`` as a glob pattern, so ``sales[2024].parquet``
    would read ``sales2.parquet`` and ``a*.parquet`` every ``a...`` file. Each such character goes
    into a class of its own (``[*]``, ``[?]``, ``[[]``), which matches only that character.
    """
    return "".join(f"[{c}]" if c in "*?[" else c for c in str(file))


def _check_tables(wanted: list[str], found: list[str], where: str) -> None:
    missing = [t for t in wanted if t not in found]
    if missing or not wanted:
        raise LoadError(
            f"{where} has no table(s) {missing or '(none at all)'}; its tables are {sorted(found)}."
        )


def as_source(value: object) -> Source | None:
    """``value`` if it is a ``Source``; None otherwise (an in-memory input)."""
    if isinstance(value, Source):
        return value
    if isinstance(value, (str, os.PathLike)):
        raise InvalidParameterError(
            f"Got a path ({os.fspath(value)!r}) where data was expected; wrap it as "
            "reportgen.sources.parquet(path), csv(path), duckdb_file(path) or sql(url)."
        )
    return None
