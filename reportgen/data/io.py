"""Reading and writing datasets: schema files, folders of table files, and SQL databases.

Three storage forms hold a relational dataset, and each one round-trips through reportgen:

- a schema file: YAML (``.yaml``/``.yml``) or JSON (``.json``), in reportgen's layout or the
  neutral ``metadata.json`` layout (see ``Schema.from_dict``);
- a folder with one ``.csv``, ``.csv.gz`` or ``.parquet`` file per table, plus a schema file;
- a SQL database (any SQLAlchemy URL: ``sqlite:///file.db``, ``postgresql+psycopg://...``), whose
  own primary and foreign key constraints are the schema.

CSV carries no types, so every loader ends with the same step: strings of datetime columns become
datetimes and object columns of booleans (read_csv's "True"/"False") become the nullable
``boolean`` dtype. The same data therefore loads with the same dtypes from every form.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Literal

import numpy as np
import pandas as pd
import sqlalchemy as sa
import yaml

from reportgen.data.relational import RelationalData, as_relational, with_columns
from reportgen.data.schema import (
    ColumnKind,
    ColumnSpec,
    ForeignKey,
    PrimaryKey,
    Schema,
    Table,
    value_shape,
)
from reportgen.errors import InvalidParameterError, LoadError, SchemaError
from reportgen.files import safe_file_name, write_atomic
from reportgen.params import Options, check_param
from reportgen.structured import parse_yaml_or_json

PathLike = str | os.PathLike[str]
SchemaSource = Schema | PathLike | None

SCHEMA_FILE_NAMES = ("schema.yaml", "schema.yml", "schema.json", "metadata.json")
TABLE_SUFFIXES = (".csv.gz", ".csv", ".parquet")
_SCHEMA_SUFFIXES = (".yaml", ".yml", ".json")


# -- schema files ------------------------------------------------------------------------------
def read_schema(path: PathLike) -> Schema:
    """Read a schema from a YAML or JSON file (the format follows the file's suffix)."""
    return _read_schema_file(Path(path))[0]


def write_schema(schema: Schema, path: PathLike) -> None:
    """Write ``schema`` to a YAML or JSON file (by suffix), replacing the file atomically."""
    _write_schema_spec(schema.to_dict(), Path(path))


def _read_schema_file(path: Path) -> tuple[Schema, dict[str, str]]:
    """Read the schema in ``path`` and the table files it names (``"file"`` entries)."""
    spec = _parse_schema_text(path)
    tables = spec.get("tables") if isinstance(spec, Mapping) else None
    files: dict[str, str] = {}
    try:
        if isinstance(tables, Mapping):
            tables = {name: dict(t) if isinstance(t, Mapping) else t for name, t in tables.items()}
            for name, table in tables.items():
                if isinstance(table, dict) and table.get("file") is not None:
                    files[str(name)] = _file_entry(table.pop("file"), str(name))
                elif isinstance(table, dict):
                    table.pop("file", None)
            spec = {**spec, "tables": tables}
        return Schema.from_dict(spec), files
    except SchemaError as error:
        raise SchemaError(f"Schema file {str(path)!r}: {error}") from None


def _file_entry(value: Any, table: str) -> str:
    """A table's ``file`` entry: the name of its file inside the data folder.

    A schema file describes its folder, so it may not reach outside it: an absolute path or a
    ``..`` is refused (a schema file from elsewhere must not make reportgen read ``/etc/passwd``
    or a neighbour's data into a report). Sub-folders are fine; the check is on the name as
    written, so a link the folder's owner placed inside the folder is still followed.
    """
    if not isinstance(value, str) or not value:
        raise SchemaError(
            f"Schema table {table!r}: 'file' must be a file name, such as '{table}.csv'; got "
            f"{value_shape(value)}."
        )
    posix, windows = PurePosixPath(value.replace("\\", "/")), PureWindowsPath(value)
    if posix.is_absolute() or windows.drive or ".." in posix.parts:
        raise SchemaError(
            f"Schema table {table!r}: 'file' names {value!r}, outside the data folder; name a file "
            f"inside the folder (such as '{table}.csv' or 'parts/{table}.parquet'), and move the "
            "file there."
        )
    return value


def _parse_schema_text(path: Path) -> Any:
    suffix = _schema_suffix(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LoadError(f"Schema file {str(path)!r} does not exist. Check the path.") from None
    except (OSError, UnicodeDecodeError) as error:
        raise LoadError(f"Cannot read schema file {str(path)!r}: {error}") from None
    return parse_yaml_or_json(text, as_json=suffix == ".json", where=f"Schema file {str(path)!r}")


def _write_schema_spec(spec: Mapping[str, Any], path: Path) -> None:
    if _schema_suffix(path) == ".json":
        text = json.dumps(spec, indent=2, ensure_ascii=False) + "\n"
    else:
        text = yaml.safe_dump(dict(spec), sort_keys=False, allow_unicode=True)
    _atomic_write(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def _schema_suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in _SCHEMA_SUFFIXES:
        raise LoadError(
            f"Schema file {str(path)!r}: unknown suffix {path.suffix!r}. Name it .yaml, .yml or .json."
        )
    return suffix


def resolve_schema(schema: SchemaSource) -> tuple[Schema | None, dict[str, str]]:
    """Turn a ``Schema``, a schema file path or None into a Schema (or None) and named files."""
    if schema is None or isinstance(schema, Schema):
        return schema, {}
    if isinstance(schema, (str, os.PathLike)):
        return _read_schema_file(Path(schema))
    raise InvalidParameterError(
        f"schema must be a reportgen Schema, a path to a schema file, or None; got {type(schema).__name__}."
    )


# -- folders of table files --------------------------------------------------------------------
def load_folder(path: PathLike, schema: SchemaSource = None) -> RelationalData:
    """Load a folder with one ``.csv``, ``.csv.gz`` or ``.parquet`` file per table.

    ``schema`` is a ``Schema``, a schema file, or None: then the folder's own ``schema.yaml``,
    ``schema.yml``, ``schema.json`` or ``metadata.json`` is used, and without one every table
    file is a table with inferred kinds and no keys. With a schema, only its tables are loaded
    (other files are ignored); a table's file is the one the schema file names, else
    ``<table>.<suffix>``, else, for a one-table schema (such as SDV's single-table metadata), the
    folder's only table file.
    """
    folder = Path(path)
    if not folder.is_dir():
        raise LoadError(
            f"Folder {str(folder)!r} does not exist or is not a folder. Give a folder with one "
            f"{'/'.join(TABLE_SUFFIXES)} file per table."
        )
    resolved, named = resolve_schema(schema if schema is not None else _folder_schema(folder))
    found = _table_files(folder)
    names = list(resolved) if resolved is not None else list(found)
    if not names:
        nested = any(f.is_dir() for f in folder.iterdir())
        raise LoadError(
            f"Folder {str(folder)!r} holds no table files; expected {'/'.join(TABLE_SUFFIXES)}."
            + (
                " Sub-folders of CSV part files (Hive partitions such as year=2024/ included) are read "
                "in place: add --in-place (reportgen.sources.csv(folder) in Python)."
                if nested
                else ""
            )
        )
    if resolved is not None and len(names) == 1 and names[0] not in found and len(found) == 1:
        found = {names[0]: next(iter(found.values()))}  # a one-table schema describes the only file
    files = {name: _table_file(folder, name, named.get(name), found) for name in names}
    return _finish({name: _read_table_file(file, name) for name, file in files.items()}, resolved)


def write_folder(
    data: RelationalData | Mapping[str, pd.DataFrame] | pd.DataFrame,
    path: PathLike,
    *,
    format: Literal["csv", "parquet"] = "csv",
) -> None:
    """Write one file per table plus ``schema.yaml`` (naming each file), each atomically.

    The folder loads back with ``load_folder`` into the same tables, columns, values and keys.
    """
    check_param("write_folder", "format", format, [Options(("csv", "parquet"))])
    data = as_relational(data)
    folder = Path(path)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise LoadError(f"Cannot create folder {str(folder)!r}: {error}") from None
    files = {name: safe_file_name(name, f".{format}") for name in data}  # inside the folder
    for name, frame in data.items():
        _atomic_write(folder / files[name], _frame_writer(frame, format))
    write_folder_schema(data.schema, folder, files)


def write_folder_schema(schema: Schema, folder: Path, files: Mapping[str, str]) -> None:
    """Write ``schema.yaml`` into ``folder``, naming each table's file (``write_folder``'s layout)."""
    spec = schema.to_dict()
    for name, file_name in files.items():
        spec["tables"][name] = {"file": file_name, **spec["tables"][name]}
    _write_schema_spec(spec, folder / "schema.yaml")


def _folder_schema(folder: Path) -> Path | None:
    """Find the folder's own schema file, if it has one."""
    return next((folder / n for n in SCHEMA_FILE_NAMES if (folder / n).is_file()), None)


def _table_name(path: Path) -> str | None:
    """Name the table a file holds (its name less a table suffix); None for other files."""
    lower = path.name.lower()
    suffix = next((s for s in TABLE_SUFFIXES if lower.endswith(s)), None)
    return path.name[: -len(suffix)] if suffix and len(path.name) > len(suffix) else None


def _table_files(folder: Path) -> dict[str, list[Path]]:
    """List the table files directly in ``folder``, by table name."""
    found: dict[str, list[Path]] = {}
    for file in sorted(folder.iterdir()):
        name = _table_name(file)
        if name is not None and file.is_file():
            found.setdefault(name, []).append(file)
    return found


def _table_file(folder: Path, table: str, named: str | None, found: dict[str, list[Path]]) -> Path:
    """Find the file of ``table``: the one the schema names, else the only ``<table>.*``."""
    if named is not None:
        file = folder / named
        if not file.is_file():
            raise LoadError(
                f"Table {table!r}: the schema names file {str(file)!r}, which does not exist. "
                "Fix the schema's 'file' entry or add the file."
            )
        return file
    files = found.get(table, [])
    if len(files) > 1:
        raise LoadError(
            f"Table {table!r}: folder {str(folder)!r} has several files for it "
            f"({[f.name for f in files]}). Keep one."
        )
    if not files:
        raise LoadError(
            f"Table {table!r} is in the schema but folder {str(folder)!r} has no file for it "
            f"(expected {' or '.join(table + s for s in TABLE_SUFFIXES)}). Add the file, or "
            "remove the table from the schema."
        )
    return files[0]


def _read_table_file(file: Path, table: str) -> pd.DataFrame:
    """One table file; in CSV only empty fields are missing ("NA" or "None" stay values)."""
    try:
        if file.name.lower().endswith(".parquet"):
            return pd.read_parquet(file)
        _check_csv_header(file, table)
        return pd.read_csv(file, keep_default_na=False, na_values=[""])
    except (OSError, ValueError) as error:
        raise LoadError(f"Cannot read table file {str(file)!r}: {error}") from None


def _check_csv_header(file: Path, table: str) -> None:
    """Refuse a header that names a column twice, which read_csv would rename silently ("x.1")."""
    header = pd.read_csv(file, header=None, nrows=1, dtype=str, keep_default_na=False)
    names = [str(n) for n in header.iloc[0]] if len(header) else []
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise LoadError(
            f"Table {table!r}: the header of {str(file)!r} names column(s) {repeated} twice; "
            "pandas would rename the second one silently. Give each column its own name."
        )


def _frame_writer(frame: pd.DataFrame, format: str) -> Callable[[Path], object]:
    if format == "parquet":
        return lambda tmp: frame.to_parquet(tmp, index=False)
    return lambda tmp: frame.to_csv(tmp, index=False, lineterminator="\n")


def _atomic_write(path: Path, write: Callable[[Path], object]) -> None:
    """Write ``path`` through a temporary file in the same folder, then rename it into place."""
    try:
        write_atomic(path, write)
    except OSError as error:
        raise LoadError(f"Cannot write {str(path)!r}: {error}") from None


# -- SQL databases -----------------------------------------------------------------------------
def load_sql(url: str, *, tables: Sequence[str] | None = None, schema: SchemaSource = None) -> RelationalData:
    """Load tables of a database (default: all), with their keys read from the database.

    Without ``schema``, primary and foreign keys come from the database's constraints, and
    DATE/DATETIME/TIMESTAMP columns are datetimes (identifiers in a one-column key); other kinds are
    inferred from the data. Pass either ``tables`` or ``schema`` (whose tables are then the ones
    loaded), not both.
    """
    resolved = resolve_schema(schema)[0]
    if tables is not None and resolved is not None:
        raise InvalidParameterError(
            "load_sql: pass either tables= or schema= (the schema's tables are loaded), not both."
        )
    engine = engine_for(url, must_exist=True)
    try:
        with engine.connect() as conn:
            resolved = resolved if resolved is not None else reflect_schema(conn, tables)
            frames = {name: pd.read_sql_table(name, conn) for name in resolved}
    except sa.exc.SQLAlchemyError as error:
        raise LoadError(f"Cannot read database {safe_url(engine)}: {db_message(error)}") from None
    finally:
        engine.dispose()
    return _finish(frames, resolved)


def write_sql(
    data: RelationalData | Mapping[str, pd.DataFrame] | pd.DataFrame,
    url: str,
    *,
    if_exists: Literal["fail", "replace"] = "fail",
) -> None:
    """Create one table per table of ``data``, with its keys as constraints, and insert the rows.

    Foreign keys are DEFERRABLE INITIALLY DEFERRED, so self-references and insertion order never
    fail where the database checks them at once. Everything happens in one transaction.
    ``if_exists="fail"`` refuses to touch an existing table; ``"replace"`` drops it first.
    """
    check_param("write_sql", "if_exists", if_exists, [Options(("fail", "replace"))])
    data = as_relational(data)
    frames = {name: _datetimes(frame, data.schema[name]) for name, frame in data.items()}
    metadata = sa.MetaData()
    for name in data.schema.topological_order():
        _sql_table(metadata, name, frames[name], data.schema)
    engine = engine_for(url, must_exist=False)
    try:
        with engine.begin() as conn:
            _drop_existing(conn, list(frames), if_exists)
            metadata.create_all(conn)
            for name in data.schema.topological_order():
                table = metadata.tables[name]
                if len(frames[name]):
                    conn.execute(table.insert(), _records(frames[name], table))
    except sa.exc.SQLAlchemyError as error:
        raise LoadError(f"Cannot write to database {safe_url(engine)}: {db_message(error)}") from None
    finally:
        engine.dispose()


def engine_for(url: str, *, must_exist: bool) -> sa.Engine:
    """Make an engine for ``url``; to read, a SQLite file must exist (SQLite would create it)."""
    try:
        engine = sa.create_engine(url, hide_parameters=True)  # no data rows in error messages
    except (sa.exc.ArgumentError, sa.exc.NoSuchModuleError, ImportError) as error:
        raise LoadError(
            f"Cannot use database URL {safe_url(url)}: {error}. Give a SQLAlchemy URL such as "
            "'sqlite:///data.db' or 'postgresql+psycopg://user@host/db' (driver installed)."
        ) from None
    file = engine.url.database or ""
    in_file = engine.url.get_backend_name() == "sqlite" and file not in ("", ":memory:")
    if must_exist and in_file and not file.startswith("file:") and not Path(file).is_file():
        raise LoadError(f"SQLite database file {file!r} does not exist (or is not a file).")
    return engine


def safe_url(target: sa.Engine | sa.Connection | str) -> str:
    """Quote a database URL for a message, with any password hidden."""
    try:
        url = target if isinstance(target, str) else target.engine.url
        return repr(sa.make_url(url).render_as_string(hide_password=True))
    except sa.exc.ArgumentError:
        return "(an unreadable URL)"


def db_message(error: sa.exc.SQLAlchemyError) -> str:
    """Give the database's own message (without the SQL statement, which can be very long)."""
    return str(getattr(error, "orig", None) or error).strip()


def reflect_schema(conn: sa.Connection, tables: Sequence[str] | None) -> Schema:
    """Tables, primary keys, foreign keys and datetime columns as the database declares them."""
    inspector = sa.inspect(conn)
    available = inspector.get_table_names()
    names = list(tables) if tables is not None else available
    missing = [t for t in names if t not in available]
    if missing or not names:
        raise LoadError(
            f"Database {safe_url(conn)} has no table(s) {missing or '(none at all)'}; its "
            f"tables are {sorted(available)}."
        )
    return Schema({name: _reflect_table(inspector, name, names) for name in names})


def _reflect_table(inspector: sa.Inspector, name: str, loaded: list[str]) -> Table:
    primary_key = inspector.get_pk_constraint(name).get("constrained_columns") or []
    dates = [c["name"] for c in inspector.get_columns(name) if isinstance(c["type"], (sa.Date, sa.DateTime))]
    specs: dict[str, ColumnSpec] = {
        c: PrimaryKey(ColumnKind.DATETIME if c in dates else None) for c in primary_key
    }
    keys = []
    for fk in inspector.get_foreign_keys(name):
        columns, parent = fk["constrained_columns"], fk["referred_table"]
        if parent not in loaded:
            raise SchemaError(
                f"Table {name!r}, column(s) {columns}: foreign key to table {parent!r}, which "
                "is not among the tables to load. Add it to tables=."
            )
        keys.append(ForeignKey(parent, columns=tuple(columns), parent_columns=tuple(fk["referred_columns"])))
    specs.update({c: ColumnKind.DATETIME for c in dates if c not in specs})
    return Table(specs, foreign_keys=keys)


def _drop_existing(conn: sa.Connection, names: list[str], if_exists: str) -> None:
    """Refuse (``"fail"``) or drop (``"replace"``, children first) the tables that exist."""
    existing = [n for n in names if sa.inspect(conn).has_table(n)]
    if not existing:
        return
    if if_exists == "fail":
        raise LoadError(
            f"Database {safe_url(conn)} already has table(s) {existing}. Pass "
            "if_exists='replace' to replace them, or write to another database."
        )
    old = sa.MetaData()
    old.reflect(conn, only=existing)
    old.drop_all(conn)


def _sql_table(metadata: sa.MetaData, name: str, frame: pd.DataFrame, schema: Schema) -> sa.Table:
    """Declare the SQL table of ``frame``: types from its dtypes, keys from the schema."""
    table = schema[name]
    keys = table.key_columns
    columns = [sa.Column(c, _sql_type(frame[c], c in keys), nullable=True) for c in frame.columns]
    constraints: list[sa.Constraint] = [
        sa.ForeignKeyConstraint(
            list(r.columns),
            [f"{r.parent}.{c}" for c in r.parent_columns],
            deferrable=True,
            initially="DEFERRED",
        )
        for r in schema.relations
        if r.child == name
    ]
    if table.primary_key:
        constraints.append(sa.PrimaryKeyConstraint(*table.primary_key))
    return sa.Table(name, metadata, *columns, *constraints)


def _sql_type(values: pd.Series, is_key: bool) -> sa.types.TypeEngine[Any]:
    """Choose the SQL type that holds ``values`` without loss (integral keys as integers)."""
    if pd.api.types.is_datetime64_any_dtype(values.dtype):
        return sa.DateTime(timezone=getattr(values.dt, "tz", None) is not None)
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred == "boolean":
        return sa.Boolean()
    if inferred == "integer" or (is_key and _is_integral(values)):
        return sa.BigInteger()
    if inferred in ("floating", "mixed-integer-float", "decimal"):
        return sa.Float()
    if is_key:  # a bounded type, which every database accepts in a key
        lengths = values.dropna().astype(str).str.len()
        return sa.String(max(1, int(lengths.max())) if len(lengths) else 1)
    return sa.Text()


def _is_integral(values: pd.Series) -> bool:
    """Float values that are all whole numbers (integer keys that gained a NaN)."""
    if not pd.api.types.is_float_dtype(values.dtype):
        return False
    present = values.dropna().to_numpy()
    return bool(np.isfinite(present).all() and np.all(np.mod(present, 1) == 0))


def _records(frame: pd.DataFrame, table: sa.Table) -> list[dict[str, Any]]:
    """Rows as dicts of Python values, missing as None, floats of integer columns as ints."""
    whole = {
        c.name: frame[c.name].astype("Int64")
        for c in table.columns
        if isinstance(c.type, sa.BigInteger) and pd.api.types.is_float_dtype(frame[c.name].dtype)
    }
    frame = with_columns(frame, whole)
    return frame.astype(object).where(frame.notna(), None).to_dict("records")


# -- all sources -------------------------------------------------------------------------------
def load(source: PathLike, schema: SchemaSource = None) -> RelationalData:
    """Load a database URL (contains "://"), a folder of table files, or one table file."""
    text = os.fspath(source) if isinstance(source, (str, os.PathLike)) else None
    if text is not None and "://" in text:
        return load_sql(text, schema=schema)
    path = Path(text) if text is not None else None
    if path is not None and path.is_dir():
        return load_folder(path, schema)
    if path is not None and path.is_file() and _table_name(path) is not None:
        resolved = resolve_schema(schema)[0]
        name = next(iter(resolved)) if resolved is not None and len(resolved) == 1 else None
        name = name or str(_table_name(path))
        return _finish({name: _read_table_file(path, name)}, resolved)
    raise LoadError(
        f"Cannot load {source!r}: expected a database URL (such as 'sqlite:///data.db'), an "
        f"existing folder of table files, or one existing {'/'.join(TABLE_SUFFIXES)} file."
    )


def _finish(frames: dict[str, pd.DataFrame], schema: Schema | None) -> RelationalData:
    """Make ``RelationalData`` of freshly read tables, with the dtypes CSV cannot carry."""
    data = RelationalData({name: _booleans(frame) for name, frame in frames.items()}, schema)
    return data.with_tables({name: _datetimes(frame, data.schema[name]) for name, frame in data.items()})


def _booleans(frame: pd.DataFrame) -> pd.DataFrame:
    """Give object columns of booleans (read_csv's True/False with gaps) the ``boolean`` dtype."""
    return with_columns(
        frame,
        {
            column: values.astype("boolean")
            for column, values in frame.items()
            if values.dtype == object and pd.api.types.infer_dtype(values, skipna=True) == "boolean"
        },
    )


def _datetimes(frame: pd.DataFrame, table: Table) -> pd.DataFrame:
    """Parse the datetime columns that hold ISO 8601 strings (others are left as they are)."""
    return with_columns(
        frame,
        {
            column: _parsed_datetimes(values)
            for column, values in frame.items()
            if table.kinds.get(str(column)) is ColumnKind.DATETIME
            and not pd.api.types.is_datetime64_any_dtype(values.dtype)
        },
    )


def _parsed_datetimes(values: pd.Series) -> pd.Series:
    """ISO 8601 strings as datetimes; values that do not all parse are left as they are."""
    try:
        return pd.to_datetime(values, format="ISO8601")
    except (ValueError, TypeError):
        return values
