"""Spark as an engine: any ``SparkSession`` (classic or Spark Connect) answers reportgen's statements.

``reportgen.sources.spark(session, tables={...})`` names each table as a catalog table
(``"catalog.schema.table"``) or a Spark ``DataFrame`` (registered as a temporary view). Each
statement of ``reportgen.data.lake`` is translated to Spark SQL (``reportgen.data.dialects``) and
run by ``session.sql``; only its small result comes back (through Arrow). Spark spreads the work
over its executors, so the KS uses the form without a window over all values
(``lake.ks_scaled_sql``). reportgen sets the session's time zone to UTC, as it does DuckDB's, so
that datetimes with a zone convert as pandas does and naive ones count as UTC.

On the command line a Spark input is a URL (``open_spark_url``)::

    spark://local[2]/lake/train/       a folder of Parquet files (as ``parquet()`` reads it)
    spark://yarn/sales                 every table of database ``sales`` (on YARN)
    spark://host:7077/main.sales       a schema of a standalone cluster's catalog
    sc://host:15002/main.sales         Spark Connect (Databricks, managed clusters)

with ``--spark-conf key=value`` (repeatable) for the session's settings, which the command line adds
to the URL's query (``?spark.executor.memory=4g``). Sources opened from URLs share the process's
one session (Spark's ``getOrCreate``), which stops when the last of them closes.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import pandas as pd

from reportgen.data.dialects import translate
from reportgen.data.engines import (
    DOUBLE,
    OTHER,
    TIMESTAMP,
    Engine,
    Source,
    _folder_tables,
    _rechunked,
    partition_base,
    quote,
    withheld,
)
from reportgen.data.io import SchemaSource, resolve_schema
from reportgen.errors import InvalidParameterError, LoadError

SPARK_SCHEMES = ("spark", "sc")
_views = itertools.count()
_users: dict[int, int] = {}  # sources open on each session reportgen started (by id)


class SparkEngine(Engine):
    """A ``SparkSession`` running reportgen's statements, translated to Spark SQL.

    ``owned``: reportgen started the session (from a URL) and stops it on ``close``; a session the
    caller passed stays running, and only the temporary views reportgen made are dropped.
    """

    dialect = "spark"
    scales_out = True

    def __init__(self, session: Any, *, owned: bool = False):
        if not hasattr(session, "sql") or not hasattr(session, "conf"):
            raise InvalidParameterError(
                f"reportgen.sources.spark needs a SparkSession; got {type(session).__name__}."
            )
        self.session = session
        self.owned = owned
        if owned:
            _users[id(session)] = _users.get(id(session), 0) + 1
        self.views: list[str] = []
        session.conf.set("spark.sql.session.timeZone", "UTC")

    def _query(self, query: str) -> Any:
        try:
            return self.session.sql(translate(query, self.dialect))
        except Exception as error:  # pyspark's errors share no base class across classic and Connect
            raise LoadError(
                f"Spark could not run a query on the data: {withheld(_first_line(error))}"
            ) from None

    def rows(self, query: str) -> list[tuple[Any, ...]]:
        frame = self._query(query)
        try:
            return [tuple(row) for row in frame.collect()]
        except Exception as error:
            raise LoadError(
                f"Spark could not run a query on the data: {withheld(_first_line(error))}"
            ) from None

    def frame(self, query: str) -> pd.DataFrame:
        result = self._query(query)
        try:
            return arrow_frame(result.toArrow())
        except Exception as error:
            raise LoadError(f"Spark could not read the data: {_first_line(error)}") from None

    def batches(self, query: str, size: int) -> Iterator[pd.DataFrame]:
        result = self._query(query)
        columns = list(result.columns)
        rows = result.toLocalIterator()
        parts = (pd.DataFrame([tuple(r) for r in chunk], columns=columns) for chunk in _chunked(rows, size))
        yield from _rechunked(parts, size)

    def column_families(self, relation: str) -> dict[str, str]:
        fields = self._query(f"SELECT * FROM {relation} LIMIT 0").schema.fields
        return {f.name: _family(f.dataType.typeName()) for f in fields}

    def register(self, frame: Any) -> str:
        """A Spark DataFrame as a temporary view of this session; its quoted name."""
        view = f"reportgen_spark_{os.getpid()}_{next(_views)}"
        frame.createOrReplaceTempView(view)
        self.views.append(view)
        return quote(view)

    def close(self) -> None:
        for view in self.views:
            self.session.catalog.dropTempView(view)
        self.views.clear()
        if self.owned:
            self.owned = False
            _users[id(self.session)] -= 1
            if not _users[id(self.session)]:
                self.session.stop()


def arrow_frame(table: Any) -> pd.DataFrame:
    """An Arrow result as DuckDB's ``.df()`` gives it, so both engines' samples are alike.

    Integers and booleans with missing values as pandas' nullable types (without: NumPy's),
    decimals as floats, dates as datetimes; timestamps with a zone stay in UTC.
    """
    import pyarrow as pa

    nullable = {pa.int8(): "Int8", pa.int16(): "Int16", pa.int32(): "Int32", pa.int64(): "Int64"}
    columns = {}
    for name, column in zip(table.column_names, table.columns, strict=True):
        kind = column.type
        if pa.types.is_decimal(kind):
            column = column.cast(pa.float64())
        elif pa.types.is_date(kind):
            column = column.cast(pa.timestamp("us"))
        values = column.to_pandas()
        if column.null_count and kind in nullable:
            values = values.astype(nullable[kind])
        elif column.null_count and pa.types.is_boolean(kind):
            values = values.astype("boolean")
        columns[name] = values
    return pd.DataFrame(columns, index=pd.RangeIndex(table.num_rows))


def _family(type_name: str) -> str:
    """The storage family of a Spark type (``DataType.typeName()``)."""
    if type_name in ("double", "float"):
        return DOUBLE
    if type_name in ("timestamp", "timestamp_ntz"):
        return TIMESTAMP
    return OTHER


def _chunked(rows: Iterator[Any], size: int) -> Iterator[list[Any]]:
    while chunk := list(itertools.islice(rows, size)):
        yield chunk


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def spark(
    session: Any,
    tables: Mapping[str, Any] | Sequence[str],
    *,
    schema: SchemaSource = None,
    description: str = "Spark session",
    owned: bool = False,
) -> Source:
    """Tables of a ``SparkSession``, each a catalog table name or a Spark ``DataFrame``.

    ``tables`` maps reportgen's table names to ``"catalog.schema.table"`` (any name Spark SQL
    resolves, quoted as Spark quotes it: backticks) or to DataFrames; a list of names uses each as
    its own table. Keys come from ``schema`` (Spark catalogs hold no foreign keys).
    """
    engine = SparkEngine(session, owned=owned)
    named = {str(t): t for t in tables} if not isinstance(tables, Mapping) else dict(tables)
    try:
        relations = {name: _relation(engine, name, value) for name, value in named.items()}
        for name, relation in relations.items():
            _check_readable(engine, name, relation)
    except Exception:
        engine.close()
        raise
    return Source(engine, relations, resolve_schema(schema)[0], description)


def _relation(engine: SparkEngine, name: str, value: Any) -> str:
    """A table's relation in reportgen's SQL (DuckDB's): a translated catalog name or a view."""
    if isinstance(value, str):
        from sqlglot import exp

        try:
            return exp.to_table(value, dialect="spark").sql(dialect="duckdb")
        except Exception:
            raise InvalidParameterError(
                f"Table {name!r}: {value!r} is not a Spark table name (catalog.schema.table)."
            ) from None
    if hasattr(value, "createOrReplaceTempView"):
        return engine.register(value)
    raise InvalidParameterError(
        f"Table {name!r}: expected a Spark table name or a Spark DataFrame; got {type(value).__name__}."
    )


def _check_readable(engine: SparkEngine, name: str, relation: str) -> None:
    """Fail now, naming the table, when Spark cannot resolve it (rather than in a later statement)."""
    try:
        engine.column_families(relation)
    except LoadError as error:
        raise LoadError(f"Spark table {name!r} ({relation}): {error}") from None


# -- command line --------------------------------------------------------------------------------
def is_spark_url(text: str) -> bool:
    """Whether a command-line input names a Spark source (``spark://...`` or ``sc://...``)."""
    return text.split("://", 1)[0].lower() in SPARK_SCHEMES if "://" in text else False


def open_spark_url(url: str, schema: SchemaSource = None, conf: Mapping[str, str] | None = None) -> Source:
    """A Spark source from a URL (the module docstring gives the forms), in a session of its own.

    The path after the master is a Parquet folder when it has a slash inside or names an existing
    folder, else a database (``schema`` or ``catalog.schema``) whose tables are read; ``?tables=a,b``
    keeps some of them. ``conf`` holds the session's settings (``--spark-conf``).
    """
    scheme, _, rest = url.partition("://")
    rest, _, query = rest.partition("?")
    netloc, _, where = rest.partition("/")
    if scheme.lower() not in SPARK_SCHEMES or not netloc:
        raise InvalidParameterError(
            f"{url!r} is not a Spark URL: expected spark://MASTER/PATH-OR-DATABASE (MASTER such as "
            "local[2], yarn or host:7077) or sc://HOST:PORT/DATABASE (Spark Connect)."
        )
    asked = parse_qs(query)
    wanted = [t for v in asked.pop("tables", []) for t in v.split(",") if t]
    settings = {k: v[-1] for k, v in asked.items() if k.startswith("spark.")} | dict(conf or {})
    if unknown := sorted(k for k in asked if not k.startswith("spark.")):
        raise InvalidParameterError(
            f"{url}: unknown parameter(s) {unknown}; expected tables= or spark.* settings."
        )
    found = next((f for f in (Path(where), Path("/" + where)) if where and f.is_dir()), None)
    folder = found.resolve() if found is not None else None  # Spark's working folder is not ours
    if folder is None and "/" in where.rstrip("/"):
        raise LoadError(f"{url}: no folder {where!r} (nor {'/' + where!r}). Give a folder of Parquet files.")
    session, owned = _session(scheme.lower(), netloc, settings)
    try:
        if folder is not None:
            return _folder_source(session, folder, schema, url, owned)
        return _database_source(session, where.rstrip("/"), wanted, schema, url, owned)
    except Exception:
        if owned and not _users.get(id(session)):
            session.stop()
        raise


def _session(scheme: str, netloc: str, conf: Mapping[str, str]) -> tuple[Any, bool]:
    """The process's Spark session, and whether reportgen started it (then it stops it when done).

    A session already running (a notebook's, a test's) is used as it is, whatever the URL's master.
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise LoadError(
            'Spark inputs need pyspark: pip install "reportgen[spark]" (and a Java runtime, 17 or newer).'
        ) from None
    active = SparkSession.getActiveSession()
    if active is not None:
        return active, bool(_users.get(id(active)))
    builder = SparkSession.builder.appName("reportgen")
    if scheme == "sc":
        builder = builder.remote(f"sc://{netloc}")
    else:
        master = netloc if netloc.startswith(("local", "yarn", "k8s")) else f"spark://{netloc}"
        builder = builder.master(master)
    for key, value in conf.items():
        builder = builder.config(key, value)
    try:
        return builder.getOrCreate(), True
    except Exception as error:
        raise LoadError(
            f"Cannot start a Spark session for {scheme}://{netloc}: {_first_line(error)}"
        ) from None


def _folder_source(session: Any, folder: Path, schema: SchemaSource, url: str, owned: bool) -> Source:
    """A folder laid out as ``reportgen.sources.parquet`` reads it, each table read by Spark."""
    if not folder.is_dir():
        raise LoadError(f"{url}: folder {str(folder)!r} does not exist. Give a folder of Parquet files.")
    resolved, named = resolve_schema(schema if schema is not None else _schema_file(folder))
    files = _folder_tables(folder, "parquet", named)
    tables = {name: _read_parts(session, found, folder) for name, found in files.items()}
    return spark(session, tables, schema=resolved, description=f"Spark input {url!r}", owned=owned)


def _read_parts(session: Any, files: list[Path], root: Path) -> Any:
    """A table's part files as one Spark DataFrame, Hive partition keys below ``root`` as columns.

    Spark finds partitions in the paths of listed files only below a ``basePath`` (a plain path,
    never a pattern); each file's path is given as a literal (``literal_path``).
    """
    base = partition_base(files, root)
    reader = session.read if base is None else session.read.option("basePath", str(base))
    return reader.parquet(*[literal_path(f) for f in files])


_GLOB_CHARACTERS = re.compile(r"([\\\[\]{}*?])")


def literal_path(path: Path) -> str:
    """``path`` as Spark reads exactly that file: Hadoop takes a path to read as a glob pattern.

    ``[...]``, ``{a,b}``, ``*`` and ``?`` in a folder's or file's name would match other files or
    none (``PATH_NOT_FOUND`` for ``events[1]``); a backslash before each (and before a backslash)
    makes it literal.
    """
    return _GLOB_CHARACTERS.sub(r"\\\1", str(path))


def _schema_file(folder: Path) -> Path | None:
    from reportgen.data.io import SCHEMA_FILE_NAMES

    return next((folder / n for n in SCHEMA_FILE_NAMES if (folder / n).is_file()), None)


def _database_source(
    session: Any, database: str, wanted: list[str], schema: SchemaSource, url: str, owned: bool
) -> Source:
    """The tables of a database (every one, or ``wanted``, or the schema's) as a Spark source."""
    resolved = resolve_schema(schema)[0]
    prefix = f"{database}." if database else ""
    if resolved is not None:
        names = list(resolved)
    elif wanted:
        names = wanted
    else:
        listed = session.sql(f"SHOW TABLES IN {database}" if database else "SHOW TABLES").collect()
        names = [str(row["tableName"]) for row in listed if not row["isTemporary"]]
    if not names:
        raise LoadError(f"{url}: database {database or '(the current one)'!r} holds no tables.")
    tables = {name: prefix + f"`{name}`" for name in names}
    return spark(session, tables, schema=resolved, description=f"Spark input {url!r}", owned=owned)
