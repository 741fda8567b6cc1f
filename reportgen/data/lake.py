"""Exact aggregates on every row, and seeded samples, computed in the engine where the data lives.

Every function here sends one SQL statement (plain, standard SQL: ``GROUP BY``, ``GROUPING SETS``,
``CASE``, window sums) to a ``Source``'s engine and gets back a small result: counts per bin, per
key, per count. Nothing reads a whole table into Python, so memory is bounded by the sample and the
number of bins, not by the data. The statements are built by the ``*_sql`` functions, so the exact
SQL can be printed (``reportgen.data.lake.histogram_sql``) and run on another engine.

How values meet bins, so that counts equal ``reportgen.binning``'s in-memory codes exactly:

- numbers and datetimes: ``CASE WHEN x < e1 THEN 0 WHEN x < e2 THEN 1 ... ELSE k END`` over the
  inner edges (doubles written as ``CAST('<repr>' AS DOUBLE PRECISION)``, so no decimal rounding),
  which is ``searchsorted(edges, x, side="right")``; datetimes as UTC seconds ``ns / 1e9`` in
  double precision, as ``binning.as_numbers`` computes them; NULL, NaN and +-infinity are missing
  (the report treats infinite numbers as missing everywhere);
- categories: the engine groups by the raw value, reportgen labels each distinct value with the
  same function as in memory (``to_canonical``), and pairs use a ``CASE`` that maps the raw values
  back to their codes; so a category's label never depends on how an engine prints values.

Samples are drawn by ordering rows on ``md5(<row as text> || seed)`` and keeping the first ``n``:
the same rows for the same data and seed, whatever the file layout, row order or thread count
(DuckDB's ``USING SAMPLE ... REPEATABLE`` is repeatable only single-threaded). Relational samples,
by the rules of ``RelationalData.sample``, are drawn by ``reportgen.data.lake_sample``.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from decimal import Decimal
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from reportgen.binning import BinCounts, ColumnBins
from reportgen.data.engines import DOUBLE, OTHER, TIMESTAMP, Source, quote
from reportgen.data.kinds import to_canonical
from reportgen.data.links import CountDistribution, KeyCounts
from reportgen.data.schema import ColumnKind, Relation
from reportgen.errors import DataError

NS_PER_SECOND = 1_000_000_000
_FIRST_DATE = "1677-09-22"  # reportgen.data.reconcile: dates outside pandas' range are missing
_LAST_DATE = "2262-04-10"
_DOUBLE = "DOUBLE PRECISION"
# Grouping sets per statement, and their possible cells: bounds the engine's hash tables. Lahman's
# widest tables (hundreds of pairs) ran past DuckDB's 512 MB in one statement; in batches of 64 the
# similarity of all nine tables peaks at 445 MB of process memory, as fast as in batches of 256.
SETS_PER_STATEMENT = 64
CELLS_PER_STATEMENT = 1_000_000


# -- small helpers ---------------------------------------------------------------------------------
def literal(value: Any, where: str) -> str:
    """``value`` (as a driver returns it) as a SQL literal the engine compares exactly."""
    if value is None or value is pd.NA:
        return "NULL"
    if isinstance(value, (bool, np.bool_)):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        number = float(value)
        text = "NaN" if np.isnan(number) else ("Infinity" if number > 0 else "-Infinity")
        return f"CAST('{repr(number) if np.isfinite(number) else text}' AS {_DOUBLE})"
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, (dt.datetime, pd.Timestamp)):
        zone = " WITH TIME ZONE" if value.tzinfo is not None else ""
        return f"CAST('{value.isoformat(sep=' ')}' AS TIMESTAMP{zone})"
    if isinstance(value, dt.date):
        return f"CAST('{value.isoformat()}' AS DATE)"
    if isinstance(value, Decimal) and value.is_finite():
        return format(value, "f")  # an exact decimal literal (NUMERIC without a scale rounds on Spark)
    raise DataError(
        f"{where}: values of type {type(value).__name__} cannot be compared in the database. "
        "Cast the column to a number, a date or text there, or declare another kind in the schema."
    )


def is_nan_sql(x: str) -> str:
    """SQL that a double is NaN (NULL for NULL): an engine hook (``reportgen.data.dialects``).

    DuckDB's form is ``NOT isfinite(x) AND NOT isinf(x)``, not ``isnan(x)`` nor ``x = 'NaN'``:
    DuckDB folds those to constants from a Parquet file's min/max statistics, which leave NaN out
    (pyarrow, Spark), so on a file without NULL or infinity its NaN would count as present, in a
    projection or a filter alike. ``isfinite`` has no statistics to fold from; ``x <> x`` is no
    way either, as DuckDB holds NaN equal to NaN. Each other engine gets its ``isnan``.
    """
    return f"(NOT isfinite({x}) AND NOT isinf({x}))"


def _is_missing_number(x: str) -> str:
    """SQL that a double is NULL, NaN or infinite."""
    infinities = ", ".join(f"CAST('{v}' AS {_DOUBLE})" for v in ("Infinity", "-Infinity"))
    return f"({x} IS NULL OR {is_nan_sql(x)} OR {x} IN ({infinities}))"


def epoch_ns(expression: str) -> str:
    """SQL for a datetime as integer nanoseconds since 1970-01-01 UTC (naive = UTC): an engine hook.

    DuckDB's ``epoch_ns``; ``reportgen.data.dialects`` gives each other engine's form.
    """
    return f"epoch_ns(CAST({expression} AS TIMESTAMP))"


def number_expression(column: str, kind: ColumnKind) -> tuple[str, str]:
    """SQL for a numeric or datetime column as a double (datetimes in UTC seconds) and for "missing"."""
    name = quote(column)
    if kind is ColumnKind.DATETIME:
        stamp = f"CAST({name} AS TIMESTAMP)"
        missing = (
            f"({name} IS NULL OR {stamp} < CAST('{_FIRST_DATE}' AS TIMESTAMP) "
            f"OR {stamp} > CAST('{_LAST_DATE}' AS TIMESTAMP))"
        )
        return f"CAST({epoch_ns(name)} AS {_DOUBLE}) / CAST({NS_PER_SECOND} AS {_DOUBLE})", missing
    x = f"CAST({name} AS {_DOUBLE})"
    return x, _is_missing_number(x)


def _edge(value: float) -> str:
    return f"CAST('{value!r}' AS {_DOUBLE})"


def numeric_code_sql(bins: ColumnBins) -> str:
    """``CASE`` giving each row its bin of ``bins`` (numbers, datetimes), as ``ColumnBins.codes``."""
    x, missing = number_expression(bins.column, bins.kind)
    whens = " ".join(f"WHEN {x} < {_edge(e)} THEN {i}" for i, e in enumerate(bins.edges))
    return f"CASE WHEN {missing} THEN {bins.n_codes - 1} {whens} ELSE {len(bins.edges)} END"


def category_code_sql(bins: ColumnBins, raw: Sequence[Any], codes: np.ndarray, where: str) -> str:
    """``CASE`` mapping a category column's raw values (each distinct one, with its code) to codes.

    The most common code is the ``ELSE`` branch, so the statement lists as few values as possible.
    """
    name = quote(bins.column)
    by_code: dict[int, list[str]] = {}
    for value, code in zip(raw, codes, strict=True):
        if value is not None and value is not pd.NA:
            by_code.setdefault(int(code), []).append(literal(value, where))
    default = max(by_code, key=lambda c: len(by_code[c])) if by_code else bins.n_codes - 1
    whens = " ".join(
        f"WHEN {name} IN ({', '.join(values)}) THEN {code}"
        for code, values in sorted(by_code.items())
        if code != default
    )
    return f"CASE WHEN {name} IS NULL THEN {bins.n_codes - 1} {whens} ELSE {default} END"


# -- counts ----------------------------------------------------------------------------------------
def row_count(source: Source, table: str) -> int:
    """The exact number of rows of a table."""
    return int(source.engine.rows(f"SELECT COUNT(*) FROM {source.relations[table]}")[0][0])


def missing_counts(
    source: Source, table: str, numeric: Sequence[str], columns: Sequence[str]
) -> dict[str, int]:
    """Missing values of each column on all rows (NaN and infinity count as missing in ``numeric``)."""
    if not columns:
        return {}
    terms = []
    for column in columns:
        x = f"CAST({quote(column)} AS {_DOUBLE})"
        missing = _is_missing_number(x) if column in numeric else f"{quote(column)} IS NULL"
        terms.append(f"SUM(CASE WHEN {missing} THEN 1 ELSE 0 END)")
    (row,) = source.engine.rows(f"SELECT {', '.join(terms)} FROM {source.relations[table]}")
    return {c: int(v or 0) for c, v in zip(columns, row, strict=True)}


def distinct_counts(
    source: Source, table: str, columns: Sequence[str]
) -> dict[str, tuple[list[Any], np.ndarray]]:
    """Each column's distinct raw values (NULL included), each with its number of rows.

    One scan of the table for up to ``SETS_PER_STATEMENT`` columns: a ``GROUPING SETS`` of one
    set per column, each result row's column told by ``GROUPING`` (a NULL key is a value of the
    column when its ``GROUPING`` is 0, the other sets' placeholder when it is 1).
    """
    out: dict[str, tuple[list[Any], np.ndarray]] = {}
    for start in range(0, len(columns), SETS_PER_STATEMENT):
        batch = [quote(c) for c in columns[start : start + SETS_PER_STATEMENT]]
        found: dict[int, list[tuple[Any, int]]] = {i: [] for i in range(len(batch))}
        flags = ", ".join(f"GROUPING({c})" for c in batch)
        sets = ", ".join(f"({c})" for c in batch)
        query = (
            f"SELECT {', '.join(batch)}, {flags}, COUNT(*) FROM {source.relations[table]} "
            f"GROUP BY GROUPING SETS ({sets})"
        )
        for row in source.engine.rows(query):
            i = list(row[len(batch) : 2 * len(batch)]).index(0)
            found[i].append((row[i], int(row[-1])))
        for i, column in enumerate(columns[start : start + SETS_PER_STATEMENT]):
            values = found[i]
            out[column] = [v for v, _ in values], np.array([n for _, n in values], dtype=np.int64)
    return out


def category_codes(raw: Sequence[Any], bins: ColumnBins, where: str) -> np.ndarray:
    """The codes of raw engine values under ``bins``, through the same canonical labels as in memory."""
    values = pd.Series(list(raw), dtype=object)
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    if inferred in ("integer", "floating", "mixed-integer-float", "boolean"):
        values = pd.Series(list(raw), dtype="float64" if inferred != "boolean" else "boolean")
    return bins.codes(to_canonical(values, bins.kind, where, show_examples=False))


def bin_counts(
    source: Source,
    table: str,
    columns: Sequence[str],
    bins: dict[str, ColumnBins],
    pair_bins: dict[str, ColumnBins],
) -> BinCounts:
    """Rows per bin of every column and per cell of every pair of ``columns``, on all rows.

    Two statements, each a single scan of the table: the distinct raw values of every category
    column (``distinct_counts``), then one ``GROUPING SETS`` statement for every numeric column and
    every pair (wide tables: a few of each, ``SETS_PER_STATEMENT`` sets apiece).
    """
    where = f"Table {table!r}"
    raw = distinct_counts(source, table, [c for c in columns if not bins[c].is_numeric])
    univariate: dict[str, np.ndarray] = {}
    for column, (values, counts) in raw.items():
        codes = category_codes(values, bins[column], f"{where}, column {column!r}")
        univariate[column] = np.bincount(codes, weights=counts, minlength=bins[column].n_codes).astype(
            np.int64
        )
    pair_codes = {c: category_codes(raw[c][0], pair_bins[c], f"{where}, column {c!r}") for c in raw}
    expressions = {
        c: numeric_code_sql(pair_bins[c])
        if pair_bins[c].is_numeric
        else category_code_sql(pair_bins[c], raw[c][0], pair_codes[c], f"{where}, column {c!r}")
        for c in columns
    }
    numeric = [c for c in columns if bins[c].is_numeric]
    for column in numeric:  # a column's own bins, when they differ from its pair bins
        if bins[column] != pair_bins[column]:
            expressions[f"{column} (univariate)"] = numeric_code_sql(bins[column])
    singles = [(c if bins[c] == pair_bins[c] else f"{c} (univariate)",) for c in numeric]
    sets = singles + list(combinations(columns, 2))
    sizes = {c: pair_bins[c].n_codes for c in columns} | {
        f"{c} (univariate)": bins[c].n_codes for c in numeric if bins[c] != pair_bins[c]
    }
    grouped = _grouping_sets(source, table, expressions, sets, sizes) if sets else {}
    for column, single in zip(numeric, singles, strict=True):
        univariate[column] = _cells(grouped, single, (bins[column].n_codes,))
    pairs = {
        (i, j): _cells(grouped, (a, b), (pair_bins[a].n_codes, pair_bins[b].n_codes))
        for (i, a), (j, b) in combinations(enumerate(columns), 2)
    }
    return BinCounts(tuple(columns), tuple(univariate[c] for c in columns), pairs)


def histogram_sql(
    source: Source, table: str, expressions: dict[str, str], sets: Sequence[tuple[str, ...]]
) -> str:
    """The ``GROUPING SETS`` statement: each row's bin codes, counted per set of columns."""
    aliases = {c: f"k{i}" for i, c in enumerate(expressions)}
    inner = ", ".join(f"{e} AS {aliases[c]}" for c, e in expressions.items())
    keys = ", ".join(aliases.values())
    grouping = ", ".join("(" + ", ".join(aliases[c] for c in s) + ")" for s in sets)
    return (
        f"SELECT {keys}, COUNT(*) AS n FROM (SELECT {inner} FROM {source.relations[table]}) AS codes "
        f"GROUP BY GROUPING SETS ({grouping})"
    )


def _grouping_sets(
    source: Source,
    table: str,
    expressions: dict[str, str],
    sets: Sequence[tuple[str, ...]],
    sizes: Mapping[str, int],
) -> dict[tuple[str, ...], list[tuple[tuple[int, ...], int]]]:
    """Counts per set of columns; a result row's set is its non-NULL keys (codes are never NULL).

    One statement per batch of sets (``grouping_batches``): a wide table's hundreds of pairs in one
    statement hold every pair's hash table at once, past the engine's memory limit.
    """
    out: dict[tuple[str, ...], list[tuple[tuple[int, ...], int]]] = {s: [] for s in sets}
    for batch in grouping_batches(sets, sizes):
        used = {c: expressions[c] for c in expressions if any(c in s for s in batch)}
        names = list(used)
        for row in source.engine.rows(histogram_sql(source, table, used, batch)):
            present = tuple(i for i, v in enumerate(row[:-1]) if v is not None)
            key = tuple(names[i] for i in present)
            out.setdefault(key, []).append((tuple(int(row[i]) for i in present), int(row[-1])))
    return out


def grouping_batches(
    sets: Sequence[tuple[str, ...]], sizes: Mapping[str, int], cells: int = CELLS_PER_STATEMENT
) -> list[list[tuple[str, ...]]]:
    """``sets`` in order, in batches that one statement can count within the engine's memory.

    At most ``SETS_PER_STATEMENT`` sets per batch, whose possible cells (products of bin counts)
    stay within ``cells``; a larger set makes a batch alone.
    """
    batches: list[list[tuple[str, ...]]] = []
    total = cells + 1
    for group in sets:
        size = int(np.prod([sizes[c] for c in group]))
        if total + size > cells or len(batches[-1]) == SETS_PER_STATEMENT:
            batches.append([])
            total = 0
        batches[-1].append(group)
        total += size
    return batches


def _cells(
    grouped: dict[tuple[str, ...], list[tuple[tuple[int, ...], int]]],
    key: tuple[str, ...],
    shape: tuple[int, ...],
) -> np.ndarray:
    counts = np.zeros(int(np.prod(shape)), dtype=np.int64)
    for codes, n in grouped.get(key, []):
        counts[int(np.ravel_multi_index(codes, shape))] += n
    return counts


# -- Kolmogorov-Smirnov ----------------------------------------------------------------------------
def ks_sql(source: Source, column: str, kind: ColumnKind) -> str:
    """The KS gaps of one column between the first relation of ``source`` and each other one.

    ``source`` holds one relation per role, the reference (training) first (``InPlace.ks_statistics``).
    Each role's present values (missing, NaN and infinite ones left out, as ``number_expression``
    says) are tagged with the role and grouped by value, so tied values are one row; their counts
    are summed cumulatively in value order, which at each distinct value gives ``c``, each role's
    values at or below it, and ``t``, its present values. ``n m |F_0 - F_r| = |c_0 t_r - c_r t_0|``
    is an integer, so the statement returns the largest of each other role exactly (``gap1``, ...),
    then every role's ``t``; ``ks_statistics`` divides.
    """
    x, missing = number_expression(column, kind)
    n_roles = len(source.relations)
    present = " UNION ALL ".join(
        f"SELECT {r} AS r, {x} AS v FROM {relation} AS t WHERE NOT {missing}"
        for r, relation in enumerate(source.relations.values())
    )
    counts = ", ".join(f"COUNT(CASE WHEN r = {r} THEN 1 END) AS n{r}" for r in range(n_roles))
    running = "OVER (ORDER BY v ROWS UNBOUNDED PRECEDING)"
    sums = ", ".join(f"SUM(n{r}) {running} AS c{r}, SUM(n{r}) OVER () AS t{r}" for r in range(n_roles))
    gaps = [f"MAX(ABS(c0 * t{r} - c{r} * t0)) AS gap{r}" for r in range(1, n_roles)]
    totals = [f"MAX(t{r}) AS t{r}" for r in range(n_roles)]
    return (
        f"WITH present AS ({present}), "
        f"tallies AS (SELECT v, {counts} FROM present GROUP BY v), "
        f"ecdfs AS (SELECT {sums} FROM tallies) "
        f"SELECT {', '.join(gaps + totals)} FROM ecdfs"
    )


KS_PRODUCT = "DECIMAL(38, 0)"  # the scale-out KS's products of counts: exact up to 10**38
KS_BLOCK_BITS = 16  # blocks per power of two of the scale-out KS: 2**16 slices of each binade


def block_sql(v: str) -> str:
    """SQL for a block number that never decreases with ``v``: its sign, binade and top bits.

    ``|v| = m * 2**e``; the block of a positive value is ``(e + 1200) * 2**16`` plus the 16 bits of
    ``m`` after its leading one, of a negative value minus that, and of zero 0. So the blocks
    cut the number line into narrow, ordered ranges: 65,536 per factor of two.
    """
    m, e = binary_sql(f"ABS({v})")
    fraction = f"FLOOR(({m}) / POWER(2, {52 - KS_BLOCK_BITS})) - POWER(2, {KS_BLOCK_BITS})"
    block = f"({e} + 1200) * POWER(2, {KS_BLOCK_BITS}) + {fraction}"
    return f"CAST(CASE WHEN {v} = 0 THEN 0 WHEN {v} > 0 THEN {block} ELSE -({block}) END AS BIGINT)"


def ks_scaled_sql(source: Source, column: str, kind: ColumnKind) -> str:
    """``ks_sql``'s exact gaps on an engine that spreads work over machines (Spark, warehouses).

    ``ks_sql``'s running sums need one window ordered over every distinct value: one task on Spark.
    Here each distinct value falls in a block (``block_sql``, ordered like the values); running sums
    inside each block are windows partitioned by block, run in parallel, and each block's offset is
    a running sum over the blocks (one small task: one row per block). Offset plus running sum is
    the same ``c`` as ``ks_sql``'s, so the gaps are the same integers. Their products are taken as
    ``DECIMAL(38, 0)`` (``KS_PRODUCT``): as 64-bit integers (Spark's counts) they would overflow
    once ``n m`` passes 2**63, about 3 billion rows a side.
    """
    x, missing = number_expression(column, kind)
    n_roles = len(source.relations)
    present = " UNION ALL ".join(
        f"SELECT {r} AS r, {x} AS v FROM {relation} AS t WHERE NOT {missing}"
        for r, relation in enumerate(source.relations.values())
    )
    roles = range(n_roles)
    counts = ", ".join(f"COUNT(CASE WHEN r = {r} THEN 1 END) AS n{r}" for r in roles)
    within = "OVER (PARTITION BY b ORDER BY v ROWS UNBOUNDED PRECEDING)"
    inner = ", ".join(f"SUM(n{r}) {within} AS i{r}" for r in roles)
    totals = ", ".join(f"SUM(n{r}) AS s{r}" for r in roles)
    before = "OVER (ORDER BY b ROWS UNBOUNDED PRECEDING)"
    offsets = ", ".join(f"SUM(s{r}) {before} - s{r} AS o{r}, SUM(s{r}) OVER () AS t{r}" for r in roles)
    cumulative = ", ".join(f"i.i{r} + o.o{r} AS c{r}, o.t{r} AS t{r}" for r in roles)
    wide = f"AS {KS_PRODUCT})"
    gaps = [f"MAX(ABS(CAST(c0 {wide} * t{r} - CAST(c{r} {wide} * t0)) AS gap{r}" for r in range(1, n_roles)]
    return (
        f"WITH present AS ({present}), "
        f"tallies AS (SELECT v, {counts} FROM present GROUP BY v), "
        f"blocked AS (SELECT {block_sql('v')} AS b, tallies.* FROM tallies), "
        f"inner_sums AS (SELECT b, {inner} FROM blocked), "
        f"blocks AS (SELECT b, {totals} FROM blocked GROUP BY b), "
        f"offsets AS (SELECT b, {offsets} FROM blocks), "
        f"ecdfs AS (SELECT {cumulative} FROM inner_sums AS i JOIN offsets AS o ON i.b = o.b) "
        f"SELECT {', '.join(gaps + [f'MAX(t{r}) AS t{r}' for r in roles])} FROM ecdfs"
    )


def ks_statistics(source: Source, kinds: Mapping[str, ColumnKind]) -> dict[str, dict[str, float | None]]:
    """Per numeric or datetime column, the KS statistic of each role against the first, on all rows.

    The exact integer gap over ``n m`` in Python's correctly rounded division, as the in-memory KS
    (``reportgen.metrics.similarity.ks_statistic``) does, so both give the same number for the
    same values; None where a side has no present value. One statement per column (``ks_sql``),
    a group and a sort of that column's values: every column in one statement (partitioned by
    column) ran out of DuckDB's 512 MB on 20 million rows a side, one at a time did not.
    """
    others = list(source.relations)[1:]
    out = {}
    for column, kind in kinds.items():
        statement = ks_scaled_sql if source.engine.scales_out else ks_sql
        (row,) = source.engine.rows(statement(source, column, kind))
        gaps, (n, *sizes) = row[: len(others)], [int(t or 0) for t in row[len(others) :]]
        out[column] = {
            role: int(gap) / (n * m) if n and m else None
            for role, gap, m in zip(others, gaps, sizes, strict=True)
        }
    return out


# -- content digest --------------------------------------------------------------------------------
DIGEST_PIECES = 4  # the md5 of a row, as four 32-bit numbers
DIGEST_SUM = "DECIMAL(29, 0)"  # the type each piece is summed in: no overflow at any row count


def canonical_text_sql(expression: str, family: str) -> str:
    """SQL for a value as text that DuckDB, PostgreSQL and Spark write alike (NULL stays NULL).

    ``family`` is the column's storage type (``Engine.column_families``): doubles by
    ``double_text_sql``; datetimes, with or without a zone, as integer UTC nanoseconds (naive = UTC);
    anything else (integers, booleans, dates, text) as the engine's text, which the three write alike.
    """
    if family == TIMESTAMP:
        return f"CAST({epoch_ns(expression)} AS VARCHAR)"
    if family == DOUBLE:
        return double_text_sql(expression)
    return f"CAST({expression} AS VARCHAR)"


def double_text_sql(expression: str) -> str:
    """SQL for a double as exact text that no engine's number formatting changes.

    Engines write doubles differently (``1e-05``, ``1.0E-5``; and Java before 19 not always in the
    shortest digits), so reportgen writes them itself, from exact arithmetic: integral values below
    2**53 as integers ("3", and "0" for -0.0); every other finite value as ``[-]<m>p<e>`` with
    ``|x| = m * 2**e`` and ``m`` the 53-bit integer significand; "nan", "inf" and "-inf". The
    exponent comes from ``LN`` (off by at most one) and is corrected on the scaled value; scaling by
    powers of two is exact, done in two steps so that neither overflows for the tiniest subnormals.
    ``FLOOR`` is asked only below 2**53: Spark's returns a 64-bit integer, which overflows above.

    Written for speed on DuckDB, whose optimizer computes a repeated subexpression once except
    inside ``CASE`` (short-circuit): the exact form sits in a ``COALESCE`` after the special cases,
    not in a ``CASE`` branch, and is computed on a value that is safe for every row (1 for zero,
    NaN and infinities, whose text the special cases give). The drawn sample took twice as long
    with the arithmetic inside ``CASE`` (``benchmarks/bench_lake_sample.py``).
    """
    x = f"CAST({expression} AS {_DOUBLE})"
    infinities = {f"CAST('{v}' AS {_DOUBLE})": t for v, t in (("Infinity", "inf"), ("-Infinity", "-inf"))}
    special = f"{is_nan_sql(x)} OR {x} IN ({', '.join(infinities)}) OR {x} = 0"
    m, e = binary_sql(f"CASE WHEN {special} THEN 1 ELSE ABS({x}) END")
    signed = f"CAST(CAST({m} * CASE WHEN {x} < 0 THEN -1 ELSE 1 END AS BIGINT) AS VARCHAR)"
    exact = f"{signed} || ('p' || CAST(CAST({e} AS BIGINT) AS VARCHAR))"  # two joins, not three
    whens = f"WHEN {is_nan_sql(x)} THEN 'nan' " + " ".join(
        f"WHEN {x} IN ({v}) THEN '{t}'" for v, t in infinities.items()
    )
    integral = (
        f"WHEN CASE WHEN ABS({x}) < {_TWO_53} THEN {x} = FLOOR({x}) ELSE FALSE END "
        f"THEN CAST(CAST({x} AS BIGINT) AS VARCHAR)"
    )
    return f"COALESCE(CASE {whens} {integral} END, {exact})"


_TWO_53, _TWO_52 = "9007199254740992", "4503599627370496"


def binary_sql(a: str) -> tuple[str, str]:
    """SQL for ``m`` and ``e`` with ``a = m * 2**e``, ``m`` an integer in [2**52, 2**53), for ``a > 0``.

    The exponent from ``LN`` is off by at most one; the value scaled by it lies in [2**51, 2**54)
    and is corrected by one step. Every step multiplies by a power of two, so all of it is exact.
    The corrections are booleans as 0 or 1, not ``CASE``, so DuckDB computes the scaled value once.
    """
    e0 = f"FLOOR(LN({a}) / LN(2))"
    half = f"FLOOR((52 - {e0}) / 2)"
    scaled = f"(({a} * POWER(2, {half})) * POWER(2, 52 - {e0} - {half}))"
    high = f"CAST({scaled} >= {_TWO_53} AS INTEGER)"
    low = f"CAST({scaled} < {_TWO_52} AS INTEGER)"
    m = f"{scaled} / (1 + {high}) * (1 + {low})"
    e = f"{e0} - 52 + {high} - {low}"
    return m, e


def digest_text_sql(column: str, kind: ColumnKind, family: str) -> str:
    """A column's text in the content digest: numbers as doubles with NaN missing, else canonical."""
    if kind in (ColumnKind.NUMERIC, ColumnKind.INTEGER):
        x = f"CAST({quote(column)} AS {_DOUBLE})"
        # NaN as missing: NULLIF, as DuckDB shares no subexpression of a CASE's later branches
        return f"NULLIF({double_text_sql(x)}, 'nan')"
    if kind is ColumnKind.DATETIME:
        return canonical_text_sql(quote(column), TIMESTAMP)
    return canonical_text_sql(quote(column), family)


def digest_sql(source: Source, table: str, kinds: Mapping[str, ColumnKind]) -> str:
    """Rows, and per 32-bit piece of each row's md5, its sum over every row: an order-free digest.

    A row's text is its values in column-name order, each as ``<length>:<text>`` (``-`` when
    missing, ``digest_text_sql``), joined by commas, so no two rows write alike. Sums of 32-bit
    numbers do not depend on row order. Each is summed as ``DECIMAL(29, 0)`` (``DIGEST_SUM``), which
    holds 2**32 times any row count (2**95 < 10**29): summed as 64-bit integers, as Spark, Trino and
    BigQuery sum ``BIGINT``, past 2**31 rows they would overflow. 29 digits is also the widest
    integer that every dialect's decimal holds (BigQuery's ``NUMERIC``); Spark sums it as
    ``DECIMAL(38, 0)``, as fast as 64-bit integers on 5 million rows (the md5 costs the time).
    """
    families = source.families(table)
    parts = []
    for column in sorted(kinds):
        text = digest_text_sql(column, kinds[column], families.get(column, OTHER))
        parts.append(f"COALESCE(CAST(LENGTH({text}) AS VARCHAR) || ':' || {text}, '-')")
    row = " || ',' || ".join(parts) if parts else "''"
    pieces = ", ".join(
        f"CAST('0x' || SUBSTR(h, {1 + 8 * i}, 8) AS BIGINT) AS p{i}" for i in range(DIGEST_PIECES)
    )
    sums = ", ".join(f"SUM(CAST(p{i} AS {DIGEST_SUM}))" for i in range(DIGEST_PIECES))
    return (
        f"SELECT COUNT(*), {sums} FROM (SELECT {pieces} FROM "
        f"(SELECT md5({row}) AS h FROM {source.relations[table]} AS t) AS hashed) AS pieces"
    )


def content_digest(source: Source, table: str, kinds: Mapping[str, ColumnKind]) -> tuple[int, list[int]]:
    """The rows of a table and the sums of ``digest_sql``, computed in the engine on every row."""
    (row,) = source.engine.rows(digest_sql(source, table, kinds))
    return int(row[0]), [int(v or 0) for v in row[1:]]


# -- keys ----------------------------------------------------------------------------------------
def _all_present(alias: str, columns: Sequence[str]) -> str:
    return " AND ".join(f"{alias}.{quote(c)} IS NOT NULL" for c in columns)


def _any_missing(alias: str, columns: Sequence[str]) -> str:
    return " OR ".join(f"{alias}.{quote(c)} IS NULL" for c in columns)


def matches(left: str, left_columns: Sequence[str], right: str, right_columns: Sequence[str]) -> str:
    """SQL that the columns of ``left`` equal those of ``right``, in pairs (a key's join condition)."""
    return " AND ".join(
        f"{left}.{quote(a)} = {right}.{quote(b)}" for a, b in zip(left_columns, right_columns, strict=True)
    )


def children_per_parent(source: Source, rel: Relation) -> CountDistribution:
    """Children of each distinct parent key value, and 0 for each parent row without a key.

    The rule of ``Links.children_per_parent``: child rows with a missing key or no parent are not
    counted; a repeated parent key value is one parent.
    """
    parent, child = source.relations[rel.parent], source.relations[rel.child]
    pk, fk = rel.parent_columns, rel.columns
    keys = ", ".join(f"p.{quote(c)}" for c in pk)
    grouped = ", ".join(f"c.{quote(c)}" for c in fk)
    child_keys = ", ".join(f"{quote(a)} AS {quote(b)}" for a, b in zip(fk, pk, strict=True))
    query = (
        f"WITH p AS (SELECT DISTINCT {keys} FROM {parent} AS p WHERE {_all_present('p', pk)}), "
        f"c AS (SELECT {child_keys}, COUNT(*) AS n FROM (SELECT * FROM {child}) AS c "
        f"WHERE {_all_present('c', fk)} GROUP BY {grouped}) "
        f"SELECT COALESCE(c.n, 0) AS children, COUNT(*) FROM p LEFT JOIN c ON {matches('p', pk, 'c', pk)} "
        "GROUP BY COALESCE(c.n, 0) "
        f"UNION ALL SELECT 0, COUNT(*) FROM {parent} AS p WHERE {_any_missing('p', pk)}"
    )
    totals: dict[int, int] = {}
    for value, count in source.engine.rows(query):
        if count:
            totals[int(value)] = totals.get(int(value), 0) + int(count)
    values = np.array(sorted(totals), dtype=np.int64)
    return CountDistribution(values, np.array([totals[v] for v in values], dtype=np.int64))


def key_counts(source: Source, rel: Relation) -> KeyCounts:
    """Child rows, missing keys, orphans, parent rows and repeated parent keys of one foreign key."""
    parent, child = source.relations[rel.parent], source.relations[rel.child]
    pk, fk = rel.parent_columns, rel.columns
    query = (
        f"SELECT (SELECT COUNT(*) FROM {child} AS c), "
        f"(SELECT COUNT(*) FROM {child} AS c WHERE {_any_missing('c', fk)}), "
        f"(SELECT COUNT(*) FROM {child} AS c WHERE {_all_present('c', fk)} AND NOT EXISTS "
        f"(SELECT 1 FROM {parent} AS p WHERE {matches('p', pk, 'c', fk)})), "
        f"(SELECT COUNT(*) FROM {parent} AS p), {_repeated_keys_sql(parent, pk)}"
    )
    (row,) = source.engine.rows(query)
    return KeyCounts(*(int(v) for v in row))


def primary_key_counts(source: Source, table: str, primary_key: Sequence[str]) -> tuple[int, int]:
    """Duplicate and missing primary keys of a table on all rows."""
    if not primary_key:
        return 0, 0
    rel = source.relations[table]
    query = (
        f"SELECT {_repeated_keys_sql(rel, primary_key)}, "
        f"(SELECT COUNT(*) FROM {rel} AS p WHERE {_any_missing('p', primary_key)})"
    )
    (row,) = source.engine.rows(query)
    return int(row[0]), int(row[1])


def _repeated_keys_sql(relation: str, key: Sequence[str]) -> str:
    """SQL for the rows of ``relation`` (alias ``p``) that repeat an earlier row's complete key."""
    present = _all_present("p", key)
    distinct = ", ".join(f"p.{quote(c)}" for c in key)
    return (
        f"(SELECT COUNT(*) FROM {relation} AS p WHERE {present}) - "
        f"(SELECT COUNT(*) FROM (SELECT DISTINCT {distinct} FROM {relation} AS p WHERE {present}) AS d)"
    )


# -- samples -------------------------------------------------------------------------------------
def row_hash_sql(alias: str, columns: Mapping[str, str], seed: int) -> str:
    """``md5`` of a row's values with the seed: a deterministic, engine-side random order.

    ``columns`` maps each column to its storage family; values are written in their canonical text
    (``canonical_text_sql``), so every engine orders the same rows alike and draws the same sample.
    """
    texts = [canonical_text_sql(f"{alias}.{quote(c)}", family) for c, family in columns.items()]
    # CONCAT of parts that are never NULL: the same text as ``||`` on every engine, and one string
    # built at once on DuckDB, not one per join (a fifth of the 1M-row sample's time)
    parts = ", '|', ".join(f"COALESCE({text}, '\\N')" for text in texts)
    return f"md5(CONCAT({parts}, '|{int(seed)}'))"


def sample_rows(source: Source, table: str, n: int, seed: int) -> pd.DataFrame:
    """Up to ``n`` rows of a table: all of them when it has at most ``n``, else a seeded sample."""
    rel = source.relations[table]
    if row_count(source, table) <= n:
        return source.engine.frame(f"SELECT * FROM {rel}")
    order = row_hash_sql("t", source.families(table), seed)
    return source.engine.frame(f"SELECT t.* FROM {rel} AS t ORDER BY {order} LIMIT {int(n)}")
