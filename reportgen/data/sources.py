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
usual data-lake layout) is a table with inferred kinds.
"""

from __future__ import annotations

import hashlib
import os
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import sqlalchemy as sa

from reportgen.data.dialects import DIALECTS, SCALES_OUT, translate
from reportgen.data.io import (
    SCHEMA_FILE_NAMES,
    PathLike,
    SchemaSource,
    db_message,
    engine_for,
    reflect_schema,
    resolve_schema,
    safe_url,
)
from reportgen.data.schema import Schema
from reportgen.errors import InvalidParameterError, LoadError

DOUBLE, TIMESTAMP, OTHER = "double", "timestamp", "other"  # storage families (``column_families``)
DEFAULT_MEMORY_LIMIT = "512MB"  # DuckDB spills larger aggregates and sorts to disk
DUCKDB_VECTOR = 2048  # rows of one DuckDB vector: its results are fetched in whole vectors
_FORMATS = {"parquet": (".parquet",), "csv": (".csv", ".csv.gz")}


def quote(name: str) -> str:
    """A SQL identifier in double quotes (standard SQL: DuckDB, PostgreSQL, Spark with ANSI quoting)."""
    return '"' + name.replace('"', '""') + '"'


class Engine(ABC):
    """Where SQL runs: the one seam between reportgen and a database or DuckDB.

    Subclasses give the dialect's few differences (datetime arithmetic) and run queries; every
    query is plain SQL text, so the same text can be shown to the user and run on their warehouse.
    """

    dialect: str
    scales_out = False
    """Whether the engine spreads a statement over machines (then no window runs over all values)."""

    @abstractmethod
    def rows(self, query: str) -> list[tuple[Any, ...]]:
        """The result rows of ``query`` as Python values (for small results: aggregates)."""

    @abstractmethod
    def frame(self, query: str) -> pd.DataFrame:
        """The result of ``query`` as a DataFrame (for bounded results: samples)."""

    @abstractmethod
    def batches(self, query: str, size: int) -> Iterator[pd.DataFrame]:
        """The result of ``query`` as DataFrames of ``size`` rows (the last one shorter), streamed.

        Rows come in the engine's order: file order for Parquet and CSV and a DuckDB table's
        insertion order; a database's scan order otherwise (an ``ORDER BY`` in ``query`` fixes it).
        """

    @abstractmethod
    def close(self) -> None:
        """Release the connection."""

    def column_families(self, relation: str) -> dict[str, str]:
        """Each column of ``relation`` with its storage family: ``DOUBLE``, ``TIMESTAMP`` or ``OTHER``.

        The family decides how a value is written as canonical text (``lake.canonical_text_sql``).
        This default reads the types of an empty result as pandas sees them.
        """
        empty = self.frame(f"SELECT * FROM {relation} LIMIT 0")
        return {str(c): _family_of_dtype(t) for c, t in empty.dtypes.items()}


def _family_of_dtype(dtype: Any) -> str:
    if pd.api.types.is_float_dtype(dtype):
        return DOUBLE
    if pd.api.types.is_datetime64_any_dtype(dtype):
        return TIMESTAMP
    return OTHER


class DuckDBEngine(Engine):
    """An embedded DuckDB connection: in memory for files, or a database file opened read-only.

    ``memory_limit`` caps DuckDB's own memory (it spills to disk beyond it) and the time zone is
    UTC, so timestamps with a zone convert to UTC wall time as pandas does.
    """

    dialect = "duckdb"

    def __init__(self, database: str = ":memory:", *, memory_limit: str = DEFAULT_MEMORY_LIMIT):
        import duckdb

        self.memory_limit = memory_limit
        try:
            self.connection = duckdb.connect(database, read_only=database != ":memory:")
            self.connection.execute(f"SET memory_limit = '{memory_limit}'")
            self.connection.execute("SET TimeZone = 'UTC'")
        except duckdb.Error as error:
            raise LoadError(f"Cannot open DuckDB database {database!r}: {error}") from None

    def rows(self, query: str) -> list[tuple[Any, ...]]:
        return self._run(query).fetchall()

    def frame(self, query: str) -> pd.DataFrame:
        return self._run(query).df()

    def batches(self, query: str, size: int) -> Iterator[pd.DataFrame]:
        import duckdb

        cursor = self.connection.cursor()  # its own result: other queries may run meanwhile
        try:
            result = self._run(query, cursor)
            yield from _rechunked(_chunks(result, max(1, size // DUCKDB_VECTOR)), size)
        except duckdb.Error as error:
            raise LoadError(f"DuckDB could not read the data: {error}") from None
        finally:
            cursor.close()

    def _run(self, query: str, connection: Any = None) -> Any:
        import duckdb

        try:
            return (connection or self.connection).execute(query)
        except duckdb.OutOfMemoryException as error:
            raise LoadError(
                f"DuckDB ran out of its memory limit ({self.memory_limit}) on a query of the data. "
                "Open the inputs with a higher limit, e.g. reportgen.data.sources.parquet(path, "
                f"memory_limit='2GB'), and pass the source to report(). DuckDB said: {error}"
            ) from None
        except duckdb.Error as error:
            raise LoadError(f"DuckDB could not run a query on the data: {error}") from None

    def close(self) -> None:
        self.connection.close()

    def column_families(self, relation: str) -> dict[str, str]:
        described = self.rows(f"DESCRIBE SELECT * FROM {relation}")
        return {str(name): _family_of_type(str(kind)) for name, kind, *_ in described}


class SQLAlchemyEngine(Engine):
    """Any database SQLAlchemy reaches, its dialect from the URL (tested on PostgreSQL).

    Each statement is translated for the database's dialect (``reportgen.data.dialects``); a
    dialect reportgen does not know gets the statements as written.
    """

    def __init__(self, url: str):
        self.engine = engine_for(url, must_exist=True)
        self.dialect = self.engine.dialect.name
        self.scales_out = self.dialect in SCALES_OUT

    def column_families(self, relation: str) -> dict[str, str]:
        with self._connect() as conn:
            result = self._execute(conn, f"SELECT * FROM {relation} WHERE 1 = 0")
            described = result.cursor.description if result.cursor is not None else []
            return {str(d[0]): _family_of_type(_driver_type(conn, d[1])) for d in described}

    def rows(self, query: str) -> list[tuple[Any, ...]]:
        with self._connect() as conn:
            return [tuple(row) for row in self._execute(conn, query)]

    def frame(self, query: str) -> pd.DataFrame:
        with self._connect() as conn:
            result = self._execute(conn, query)
            return pd.DataFrame(result.fetchall(), columns=list(result.keys()))

    def batches(self, query: str, size: int) -> Iterator[pd.DataFrame]:
        with self._connect() as conn:
            result = self._execute(conn.execution_options(stream_results=True), query)
            columns = list(result.keys())
            for part in result.partitions(size):
                yield pd.DataFrame(part, columns=columns)

    def _connect(self) -> sa.Connection:
        try:
            return self.engine.connect()
        except sa.exc.SQLAlchemyError as error:
            raise LoadError(f"Cannot connect to {safe_url(self.engine)}: {db_message(error)}") from None

    def _execute(self, conn: sa.Connection, query: str) -> sa.CursorResult[Any]:
        try:
            sent = translate(query, self.dialect) if self.dialect in DIALECTS else query
            return conn.execute(sa.text(sent.replace(":", r"\:")))
        except sa.exc.SQLAlchemyError as error:
            raise LoadError(f"Database {safe_url(self.engine)}: {db_message(error)}") from None

    def close(self) -> None:
        self.engine.dispose()


def _family_of_type(name: str) -> str:
    """The storage family of a SQL type name (DuckDB's, PostgreSQL's, Spark's...)."""
    upper = name.upper()
    if upper.startswith(("DOUBLE", "FLOAT", "REAL")):
        return DOUBLE
    if upper.startswith("TIMESTAMP"):
        return TIMESTAMP
    return OTHER


def _driver_type(conn: sa.Connection, type_code: Any) -> str:
    """A DB-API type code as a type name: PostgreSQL's by its type OID, others as the driver says."""
    if isinstance(type_code, int) and conn.dialect.name == "postgresql":
        return _POSTGRES_TYPES.get(type_code, "other")
    return str(getattr(type_code, "__name__", type_code))


_POSTGRES_TYPES = {700: "real", 701: "double precision", 1114: "timestamp", 1184: "timestamptz"}


def _chunks(result: Any, vectors: int) -> Iterator[pd.DataFrame]:
    """A DuckDB result's rows as DataFrames of ``vectors`` vectors, until none is left."""
    while len(chunk := result.fetch_df_chunk(vectors)):
        yield chunk


def _rechunked(frames: Iterator[pd.DataFrame], size: int) -> Iterator[pd.DataFrame]:
    """``frames`` cut and joined into frames of exactly ``size`` rows (the last one shorter)."""
    pending: list[pd.DataFrame] = []
    held = 0
    for frame in frames:
        pending.append(frame)
        held += len(frame)
        while held >= size:
            joined = pd.concat(pending, ignore_index=True)
            yield joined.iloc[:size].reset_index(drop=True)
            pending, held = [joined.iloc[size:]], held - size
    if held:
        yield pd.concat(pending, ignore_index=True)


@dataclass
class Source:
    """One role's tables where they live: the engine, each table's SQL relation, and the schema.

    ``files`` lists each table's files (for fingerprints of file inputs; empty for databases and
    DataFrames); the relations of a source with files are table functions (``read_parquet``,
    ``read_csv``) that any DuckDB connection can run, which ``reaches`` relies on.
    Nothing is read until a query runs; ``reportgen.data.lake`` holds the queries.
    """

    engine: Engine
    relations: dict[str, str]
    schema: Schema | None
    description: str
    files: dict[str, list[Path]] = field(default_factory=dict)
    _families: dict[str, dict[str, str]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.relations:
            raise LoadError(f"{self.description} holds no tables.")
        if self.schema is not None:
            missing = [t for t in self.schema if t not in self.relations]
            if missing:
                raise LoadError(
                    f"{self.description}: the schema declares table(s) {missing} that it does not "
                    f"hold (its tables: {sorted(self.relations)}). Add them, or fix the schema."
                )
            self.relations = {t: self.relations[t] for t in self.schema}

    def close(self) -> None:
        """Release the engine's connection (a source is also a context manager that does this)."""
        self.engine.close()

    def __enter__(self) -> Source:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def columns(self, table: str) -> list[str]:
        """The column names of ``table``, in storage order."""
        return list(self.families(table))

    def families(self, table: str) -> dict[str, str]:
        """The columns of ``table`` in storage order, each with its storage family (asked once)."""
        if table not in self._families:
            self._families[table] = self.engine.column_families(self.relations[table])
        return self._families[table]

    def files_sha256(self, table: str) -> str | None:
        """SHA-256 over a table's files (names and bytes, in name order); None for database tables.

        Reading the bytes is fast (hundreds of MB a second) and needs no memory beyond a buffer.
        """
        files = self.files.get(table)
        if not files:
            return None
        digest = hashlib.sha256()
        for file in files:
            digest.update(file.name.encode() + b"\x00")
            with open(file, "rb") as handle:
                while chunk := handle.read(1 << 20):
                    digest.update(chunk)
        return digest.hexdigest()


def reaches(host: Source, other: Source) -> bool:
    """Whether one query on ``host``'s engine can read ``other``'s tables (to join the roles).

    It can on the same connection; for files, whose relations are DuckDB table functions that any
    DuckDB connection runs; and between two SQLAlchemy sources on the same database URL. DataFrames
    and DuckDB database files live in their own connection, and two databases do not meet in SQL.
    """
    if host.engine is other.engine:
        return True
    session = getattr(host.engine, "session", None)
    if session is not None:  # Spark: every table of one session meets in one query
        return session is getattr(other.engine, "session", None)
    if isinstance(host.engine, DuckDBEngine):
        return isinstance(other.engine, DuckDBEngine) and bool(other.files)
    if isinstance(host.engine, SQLAlchemyEngine) and isinstance(other.engine, SQLAlchemyEngine):
        return bool(host.engine.engine.url == other.engine.engine.url)
    return False


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
    return path.is_dir() and _folder_format(path) == "parquet"


def _file_format(path: Path) -> str:
    if path.is_dir():
        return _folder_format(path)
    name = path.name.lower()
    for fmt, suffixes in _FORMATS.items():
        if name.endswith(suffixes):
            return fmt
    raise LoadError(
        f"Cannot read {str(path)!r} in place: expected a database URL, a .duckdb file, or a "
        "Parquet or CSV file or folder."
    )


def _folder_format(folder: Path) -> str:
    """Parquet when the folder holds any Parquet file (directly or one level down), else CSV."""
    if any(folder.glob("*.parquet")) or any(folder.glob("*/*.parquet")):
        return "parquet"
    return "csv"


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
        if resolved is not None:
            _check_tables(list(resolved), list(files), f"Folder {str(path)!r}")
    engine = DuckDBEngine(memory_limit=memory_limit)
    relations = {name: _reader(fmt, found) for name, found in files.items()}
    return Source(engine, relations, resolved, f"{fmt} input {str(path)!r}", files)


def _folder_tables(folder: Path, fmt: str, named: Mapping[str, str]) -> dict[str, list[Path]]:
    """Each table's files: ``<table>.<suffix>``, a sub-folder of part files, or the schema's file."""
    suffixes = _FORMATS[fmt]
    tables: dict[str, list[Path]] = {}
    for entry in sorted(folder.iterdir()):
        if entry.is_file() and entry.name.lower().endswith(suffixes):
            tables[_stem(entry)] = [entry]
        elif entry.is_dir():
            parts = sorted(f for f in entry.rglob("*") if f.is_file() and f.name.lower().endswith(suffixes))
            if parts:
                tables[entry.name] = parts
    for table, file in named.items():
        target = folder / file
        if not target.exists():
            raise LoadError(
                f"Table {table!r}: the schema names {str(target)!r}, which does not exist. Fix the "
                "schema's 'file' entry or add the file."
            )
        tables[table] = sorted(target.rglob("*")) if target.is_dir() else [target]
    if not tables:
        raise LoadError(
            f"Folder {str(folder)!r} holds no {fmt} tables: expected <table>{suffixes[0]} files or "
            f"sub-folders of {suffixes[0]} part files."
        )
    return tables


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".csv.gz", ".csv", ".parquet"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def _reader(fmt: str, files: list[Path]) -> str:
    """The DuckDB table function that reads ``files`` in place (in name order)."""
    listed = "[" + ", ".join("'" + str(f).replace("'", "''") + "'" for f in files) + "]"
    if fmt == "parquet":
        return f"read_parquet({listed}, union_by_name = true)"
    return f"read_csv({listed}, header = true, union_by_name = true)"


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
