"""Where a source's SQL runs, and the ``Source`` that holds one role's tables there.

An ``Engine`` answers SQL over a source's tables: ``DuckDBEngine`` for files and frames (and DuckDB
database files), ``SQLAlchemyEngine`` for a database URL, and the Spark engine of
``reportgen.data.spark``. The constructors users call (``parquet``, ``csv``, ``sql``, ``spark``...)
live in ``reportgen.data.sources``, above every engine.
"""

from __future__ import annotations

import hashlib
import re
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import sqlalchemy as sa

from reportgen.data.dialects import DIALECTS, SCALES_OUT, translate
from reportgen.data.io import (
    db_message,
    engine_for,
    safe_url,
)
from reportgen.data.schema import Schema
from reportgen.errors import LoadError

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
    labels: dict[str, str]
    """Each relation's SQL (and each file's path) with the table it is, for error messages (``name``)."""

    def name(self, relations: Mapping[str, str], files: Mapping[str, list[Path]], description: str) -> None:
        """Remember which table each relation and file is, so that an error can name it."""
        labels = {relation: f"table {table!r} of the {description}" for table, relation in relations.items()}
        labels |= {
            str(f): f"table {table!r} of the {description}" for table, found in files.items() for f in found
        }
        self.labels = getattr(self, "labels", {}) | labels

    def tables_in(self, query: str, message: str) -> list[str]:
        """The tables an error of ``query`` concerns: the file it names, else the relations it reads."""
        labels = getattr(self, "labels", {})
        named = [label for file, label in labels.items() if f"file = {file}" in message]
        return named or list(dict.fromkeys(label for rel, label in labels.items() if rel in query))

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


_QUOTED = r"""("(?:[^"]|"")*"|'(?:[^']|'')*')"""
_VALUE = re.compile(
    rf"""\b(string|value|format|input|literal|convert)(:?\s+)({_QUOTED[1:-1]}|[-+]?\d[\w.+:-]*)""", re.I
)
_AFTER_COLON = re.compile(rf":\s*{_QUOTED}")
_COLUMN = re.compile(r'column "((?:[^"]|"")+)"|source column (\S+)|Column (\S+) is being', re.I)
WITHHELD = "(value withheld)"


def withheld(text: str) -> str:
    """An engine's message with every value of the data it quotes replaced by ``WITHHELD``.

    Engines quote the value that failed (``Could not convert string 'Alice' to INT32``, ``with
    value 1e12``, PostgreSQL's ``invalid input syntax for type integer: "Alice"``) and DuckDB the
    whole line of a CSV (``Original Line: ...``): the report and the command line never print a
    record. Column names, types and file paths stay.
    """
    kept = [line for line in text.splitlines() if not line.lstrip().startswith("Original Line")]
    masked = _VALUE.sub(lambda m: f"{m[1]}{m[2]}{WITHHELD}", "\n".join(kept))
    return _AFTER_COLON.sub(f": {WITHHELD}", masked)


def engine_error(engine: str, text: str, tables: list[str]) -> str:
    """What an engine's failed query means, naming the table, column, file and line, never a value.

    Only the first paragraph of the engine's message is kept (DuckDB appends its reader's settings,
    advice for its own API and the statement), with the values withheld.
    """
    head = " ".join(line.strip() for line in withheld(text).split("\n\n")[0].splitlines() if line.strip())
    column = next((next(g for g in m.groups() if g) for m in _COLUMN.finditer(text)), None)
    file = re.search(r"^\s*file = (.+)$", text, re.M)
    where = " and ".join(tables) if tables else "the data"
    where += f", column {column.replace(chr(34) * 2, chr(34))!r}" if column else ""
    line = re.search(r"on Line: (\d+)", text)
    place = [f"file {file[1].strip()!r}"] if file and file[1].strip() not in where else []
    place += [f"line {line[1]}"] if line else []
    where += f" ({', '.join(place)})" if place else ""
    return f"{engine} could not read {where}: {head.rstrip('.')}. {_advice(text)}"


def _advice(text: str) -> str:
    """What to do about an engine's error, by its kind."""
    lower = text.lower()
    if "unicode" in lower or "utf-8" in lower or "utf8" in lower:
        return "The file is not UTF-8: save it as UTF-8 and run again."
    if "convert" in lower or "cast" in lower or "conversion" in lower or "out of range" in lower:
        return (
            "A value does not fit the type of its column (inferred from the first rows of a CSV, or the "
            "file's own). Correct it where the message says, give the column one type in every file, or "
            "read a CSV without --in-place, where a column of mixed values is read and reported. The value "
            "is withheld: reportgen never prints a record of the data."
        )
    return "Check the input named here; values of the data are withheld from this message."


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
        with self._errors(query):
            return self.connection.execute(query).fetchall()

    def frame(self, query: str) -> pd.DataFrame:
        with self._errors(query):
            return self.connection.execute(query).df()

    def batches(self, query: str, size: int) -> Iterator[pd.DataFrame]:
        cursor = self.connection.cursor()  # its own result: other queries may run meanwhile
        try:
            with self._errors(query):
                result = cursor.execute(query)
                yield from _rechunked(_chunks(result, max(1, size // DUCKDB_VECTOR)), size)
        finally:
            cursor.close()

    @contextmanager
    def _errors(self, query: str) -> Iterator[None]:
        """DuckDB's errors, running or fetching ``query``, as ``LoadError`` without a value of the data."""
        import duckdb

        try:
            yield
        except duckdb.OutOfMemoryException as error:
            raise LoadError(
                f"DuckDB ran out of its memory limit ({self.memory_limit}) on a query of the data. "
                "Open the inputs with a higher limit, e.g. reportgen.data.sources.parquet(path, "
                f"memory_limit='2GB'), and pass the source to report(). DuckDB said: {withheld(str(error))}"
            ) from None
        except duckdb.Error as error:
            text = str(error)
            raise LoadError(engine_error("DuckDB", text, self.tables_in(query, text))) from None

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
            raise LoadError(f"Database {safe_url(self.engine)}: {withheld(db_message(error))}") from None

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
        self.engine.name(self.relations, self.files, self.description)
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


def _folder_tables(folder: Path, fmt: str, named: Mapping[str, str]) -> dict[str, list[Path]]:
    """Each table's files: ``<table>.<suffix>``, a sub-folder of part files, or the schema's file.

    A folder of Hive partitions (``year=2024/part-0.parquet``, no table files beside them) is one
    table, named after the folder; so is each sub-folder of part files, partitioned or not.
    """
    suffixes = _FORMATS[fmt]
    tables: dict[str, list[Path]] = {}
    if is_partitioned(folder, suffixes):
        tables[folder.name] = _part_files(folder, suffixes)
    for entry in sorted(folder.iterdir()) if not tables else []:
        if entry.is_file() and entry.name.lower().endswith(suffixes):
            tables[_stem(entry)] = [entry]
        elif entry.is_dir():
            parts = _part_files(entry, suffixes)
            if parts:
                tables[entry.name] = parts
    for table, file in named.items():
        target = folder / file
        if not target.exists():
            raise LoadError(
                f"Table {table!r}: the schema names {str(target)!r}, which does not exist. Fix the "
                "schema's 'file' entry or add the file."
            )
        tables[table] = _part_files(target, suffixes) if target.is_dir() else [target]
    if not tables:
        raise LoadError(
            f"Folder {str(folder)!r} holds no {fmt} tables: expected <table>{suffixes[0]} files or "
            f"sub-folders of {suffixes[0]} part files."
        )
    return tables


def is_partition(name: str) -> bool:
    """Whether a folder's name is a Hive partition, ``key=value``."""
    key, equals, _ = name.partition("=")
    return bool(key and equals)


def partition_base(files: list[Path], root: Path) -> Path | None:
    """The folder whose ``key=value`` sub-folders hold ``files`` (Spark's ``basePath``); None if none do."""
    for file in files:
        parts = file.relative_to(root).parts[:-1]
        first = next((i for i, d in enumerate(parts) if is_partition(d)), None)
        if first is not None:
            return root.joinpath(*parts[:first])
    return None


def is_partitioned(folder: Path, suffixes: tuple[str, ...]) -> bool:
    """Whether ``folder`` is one table of Hive partitions: only ``key=value`` folders of part files."""
    entries = [e for e in folder.iterdir() if e.is_dir() or e.name.lower().endswith(suffixes)]
    return bool(entries) and all(e.is_dir() and is_partition(e.name) for e in entries)


def _part_files(folder: Path, suffixes: tuple[str, ...]) -> list[Path]:
    """The part files anywhere under ``folder``, in path order (other files, such as _SUCCESS, left out)."""
    return sorted(f for f in folder.rglob("*") if f.is_file() and f.name.lower().endswith(suffixes))


def _stem(path: Path) -> str:
    name = path.name
    for suffix in (".csv.gz", ".csv", ".parquet"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return path.stem
