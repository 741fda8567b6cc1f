"""One SQL definition, many engines: reportgen's statements translated per engine by SQLGlot.

Every statement of ``reportgen.data.lake`` and ``reportgen.data.lake_sample`` is written once, in
DuckDB's SQL (which runs as written on the embedded default, with no translation and no cost).
Another engine gets the statement parsed by SQLGlot and written in its dialect (quoting with
backticks on Spark, ``STRING`` for ``VARCHAR``, ``GREATEST_IGNORE_NULLS`` on Snowflake...), and
SQLGlot's output is cached per statement. A few things no translation can serve; the definitions
write them in DuckDB's form and each engine's hook replaces them in the parsed statement:

- NaN, which the definitions test as ``(NOT isfinite(<double>) AND NOT isinf(<double>))`` (DuckDB
  folds ``isnan`` from Parquet statistics, ``reportgen.data.lake.is_nan_sql``): the engine's
  ``isnan``, or ``= 'NaN'`` where it has none (PostgreSQL, Snowflake);
- ``epoch_ns(<timestamp>)``: a datetime as integer nanoseconds since 1970-01-01 UTC (naive = UTC);
- ``CAST('0x' || <8 hex digits> AS BIGINT)``: hexadecimal text as an integer in [0, 2**32);
- the canonical text of a double (``reportgen.data.lake.canonical_text_sql``) needs no hook: it is
  built from arithmetic every engine computes exactly (``LN``, ``FLOOR``, ``POWER`` of two).

``DIALECTS`` names the engines reportgen translates for; which of them are tested is said in
README ("Where the data lives"). ``translate(query, "snowflake")`` gives the exact text sent.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from reportgen.errors import InvalidParameterError

SOURCE = "duckdb"  # the dialect the statements are written in
# A SQLAlchemy dialect name or reportgen engine name -> SQLGlot's name for its SQL.
DIALECTS = {
    "duckdb": "duckdb",
    "postgresql": "postgres",
    "spark": "spark",
    "databricks": "databricks",
    "snowflake": "snowflake",
    "bigquery": "bigquery",
    "trino": "trino",
    "athena": "athena",
}
# Engines that spread a statement over many machines: their KS avoids a window over all values.
SCALES_OUT = frozenset({"spark", "databricks", "snowflake", "bigquery", "trino", "athena"})
# Each hook's text in the target dialect; ``{0}`` is the translated argument.
EPOCH_NS = {
    "postgres": "CAST(EXTRACT(EPOCH FROM {0}) * 1000000 AS BIGINT) * 1000",
    "spark": "UNIX_MICROS(CAST({0} AS TIMESTAMP)) * 1000",
    "databricks": "UNIX_MICROS(CAST({0} AS TIMESTAMP)) * 1000",
    "snowflake": "DATE_PART(EPOCH_NANOSECOND, {0})",
    "bigquery": "UNIX_MICROS(TIMESTAMP({0})) * 1000",
    "trino": "CAST(ROUND(TO_UNIXTIME({0}) * 1000000) AS BIGINT) * 1000",
    "athena": "CAST(ROUND(TO_UNIXTIME({0}) * 1000000) AS BIGINT) * 1000",
}
IS_NAN = {  # where SQLGlot's translation of DuckDB's isnan does not exist in the engine
    "postgres": "({0} = CAST('NaN' AS DOUBLE PRECISION))",
    "snowflake": "({0} = CAST('NaN' AS DOUBLE))",
}
HEX_TO_BIGINT = {
    "postgres": "CAST(CAST('x' || {0} AS BIT(32)) AS BIGINT)",
    "spark": "CAST(CONV({0}, 16, 10) AS BIGINT)",
    "databricks": "CAST(CONV({0}, 16, 10) AS BIGINT)",
    "snowflake": "TO_NUMBER({0}, 'XXXXXXXX')",
    "bigquery": "CAST(CONCAT('0x', {0}) AS INT64)",
    "trino": "FROM_BASE({0}, 16)",
    "athena": "FROM_BASE({0}, 16)",
}


def sqlglot_dialect(engine: str) -> str:
    """SQLGlot's name for an engine's SQL (``postgresql`` -> ``postgres``); a clear error if unknown."""
    try:
        return DIALECTS[engine]
    except KeyError:
        raise InvalidParameterError(
            f"reportgen does not know the SQL dialect {engine!r}; it translates for {sorted(DIALECTS)}."
        ) from None


def translate(query: str, engine: str) -> str:
    """``query`` (DuckDB's SQL) as ``engine`` runs it: unchanged for DuckDB, else translated."""
    dialect = sqlglot_dialect(engine)
    return query if dialect == SOURCE else _translated(query, dialect)


@lru_cache(maxsize=512)
def _translated(query: str, dialect: str) -> str:
    import sqlglot

    try:
        tree = sqlglot.parse_one(query, read=SOURCE)
    except sqlglot.errors.ParseError as error:  # a bug in a definition, never the user's data
        raise RuntimeError(f"reportgen's statement does not parse as DuckDB SQL: {error}") from None
    return tree.transform(lambda node: _hooked(node, dialect)).sql(dialect=dialect)


def _hooked(node: Any, dialect: str) -> Any:
    """``node`` itself, or its engine's form where it is one of the hooked expressions."""
    import sqlglot
    from sqlglot import exp

    template: str | None = None
    argument: Any = None
    nan = _nan_argument(node)
    if nan is not None:
        if dialect not in IS_NAN:
            return exp.IsNan(this=nan.transform(lambda inner: _hooked(inner, dialect)))
        template, argument = IS_NAN[dialect], nan
    elif isinstance(node, exp.Anonymous) and node.name.lower() == "epoch_ns":
        template, argument = EPOCH_NS[dialect], node.expressions[0]
    elif (
        isinstance(node, exp.Cast)
        and node.to.is_type("bigint")
        and isinstance(node.this, exp.DPipe)
        and isinstance(node.this.this, exp.Literal)
        and node.this.this.this == "0x"
    ):
        template, argument = HEX_TO_BIGINT[dialect], node.this.expression
    if template is None or argument is None:
        return node
    return sqlglot.parse_one(template.format(argument.sql(dialect=dialect)), read=dialect)


def _nan_argument(node: Any) -> Any:
    """The double that ``node`` tests for NaN, when it is ``lake.is_nan_sql``'s form; else None."""
    from sqlglot import exp

    test = node.this if isinstance(node, exp.Paren) else None
    if not (
        isinstance(test, exp.And) and isinstance(test.this, exp.Not) and isinstance(test.expression, exp.Not)
    ):
        return None
    finite, infinite = test.this.this, test.expression.this
    if (
        isinstance(finite, exp.Anonymous)
        and finite.name.lower() == "isfinite"
        and isinstance(infinite, exp.IsInf)
        and finite.expressions[0] == infinite.this
    ):
        return infinite.this
    return None
