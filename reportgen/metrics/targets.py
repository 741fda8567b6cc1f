"""Target columns of the utility section: where they come from, and the check made before any work.

A table's target comes from ``report(targets={table: column})`` (``--target`` on the command line)
or, failing that, from the schema (``Table(..., target="income")``, ``target: income`` in a schema
file). The kind of the target decides the task: categorical and boolean targets are classified,
numeric and integer ones regressed. Identifiers (keys, except a composite key's columns declared
as data), free text and datetimes cannot be targets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from reportgen.data.schema import ColumnKind, Schema
from reportgen.errors import InvalidParameterError, ReportgenError, SchemaError

Task = Literal["classification", "regression"]

TASK_OF_KIND: dict[ColumnKind, Task] = {
    ColumnKind.CATEGORICAL: "classification",
    ColumnKind.BOOLEAN: "classification",
    ColumnKind.NUMERIC: "regression",
    ColumnKind.INTEGER: "regression",
}

_NOT_A_TARGET = {
    ColumnKind.ID: "an identifier",
    ColumnKind.TEXT: "free text (near-unique values)",
    ColumnKind.DATETIME: "a datetime",
}


def resolve_targets(schema: Schema, targets: Mapping[str, str] | None) -> dict[str, str]:
    """The target column of each table that has one: the schema's, overridden by ``targets``.

    Raises ``InvalidParameterError`` (for ``targets``) or ``SchemaError`` (for the schema) naming
    the table and column when a table or column does not exist or cannot be a target.
    """
    resolved: dict[str, str] = {}
    for name in schema:
        if schema[name].target is not None:
            resolved[name] = _checked(schema, name, schema[name].target, SchemaError, "the schema")
    for name, column in (targets or {}).items():
        resolved[name] = _checked(schema, name, column, InvalidParameterError, "the targets")
    return resolved


def _checked(schema: Schema, table: object, column: object, error: type[ReportgenError], source: str) -> str:
    if not isinstance(table, str) or not isinstance(column, str):
        raise error(
            f"Targets map table names to target column names (str to str). Got {table!r}: "
            f"{column!r} in {source} instead."
        )
    if table not in schema:
        hint = " (a single DataFrame is the table 'table')" if len(schema) == 1 else ""
        raise error(
            f"The target {column!r} given in {source} is for table {table!r}, which is not in the "
            f"data; its tables are {sorted(schema)}{hint}."
        )
    spec = schema[table]
    if column not in spec.kinds:
        hint = " To declare a column called 'target', write Table({'target': kind})." * (
            source == "the schema"
        )
        raise error(
            f"Table {table!r}: the target column {column!r} given in {source} is not in the data; "
            f"its columns are {list(spec.kinds)}.{hint}"
        )
    kind = spec.kinds[column]  # kind id for a key, unless a composite key's column declared as data
    if kind not in TASK_OF_KIND:
        raise error(
            f"Table {table!r}, column {column!r} (given in {source}) cannot be the target: it is "
            f"{_NOT_A_TARGET[kind]}. Choose a categorical, boolean or numeric column, or declare "
            "this column's kind in the schema."
        )
    return column


def task_of(kind: ColumnKind) -> Task:
    """Classification for categorical and boolean targets, regression for numbers."""
    return TASK_OF_KIND[kind]
