"""Auditing synthetic data row by row: keep the rows inside the real support that are authentic.

``audit(data_train, data_synth, alpha=0.95)`` trains the one-class network of the sample-level
section on the training data (per table, and per entity view of each parent table), flags every
synthetic row (all of them, not a sample) and keeps those that are inside the alpha-support and
authentic (METRICS.md section 8, after Alaa et al., "How Faithful is your Synthetic Data?"). A row
of a parent table must pass in its table and in its entity view (the row with counts and averages
of its child rows), so that a copied customer with their orders is caught even where neither
table alone shows it. Dropping a row drops the rows that refer to it, recursively
(``reportgen.data.subsets.keep_rows``), so the curated data stays referentially closed.

The scores after curation are measured with the same networks and the same real rows as before,
so the two are comparable: alpha-precision and authenticity are means of per-row flags over the
kept rows, beta-recall asks again how many real rows the kept rows cover (an entity view is scored
on the kept parent rows as measured before, child aggregates not recomputed). Tables that cannot be
measured (no compared column, too few rows) keep their rows unless a parent row was dropped.

Inputs read in place (sources, Parquet/CSV paths, ``.duckdb`` files, database URLs) are read as
``report()`` reads them: the training sample is drawn in the engine. ``audit`` returns every
synthetic row, so it reads the synthetic data whole; ``curate`` streams one synthetic table from
the engine in batches through the trained network and writes the kept rows to Parquet batch by
batch, so that table may exceed memory. Relational synthetic data is not streamed: an entity view
needs each parent row with all its children, and a dropped parent drops its children.

``reportgen audit`` is the command-line front end: it writes the curated tables in the input's
format (``curate``'s Parquet for one table read in place) and prints the scores before and after
(with the report's similarity and privacy scores).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from reportgen.context import ENTITY_SUFFIX, DistanceView, EvaluationContext
from reportgen.data import lake
from reportgen.data.engines import Source, quote, withheld
from reportgen.data.in_place import tidy
from reportgen.data.io import write_folder_schema
from reportgen.data.reconcile import reconcile_roles
from reportgen.data.relational import RelationalData
from reportgen.data.roles import SYNTH
from reportgen.data.sources import folder_format, open_source
from reportgen.data.subsets import keep_rows
from reportgen.data.validation import conform
from reportgen.errors import DataError, InvalidParameterError
from reportgen.files import safe_file_name, write_atomic
from reportgen.metrics.alpha_beta import Measured, measure, support_radius
from reportgen.params import InstanceOf, Interval, NoneValue, validate_params
from reportgen.privacy.alpha_beta import (
    N_LEVELS,
    RowTally,
    SampleScores,
    beta_recall,
    row_scores,
    sample_scores,
    subsample,
    tally_scores,
)
from reportgen.privacy.one_class import OneClassConfig
from reportgen.settings import DEVICE_NAME

if TYPE_CHECKING:
    from reportgen.data.schema import Schema
    from reportgen.preparation import DataInput

FLAG_COLUMNS = ("inside_support", "authentic", "parent_dropped", "kept")
EVERY_ROW = 2**62  # a cap no table reaches: the synthetic sample is then every row
BATCH_ROWS = 100_000  # synthetic rows ``curate`` holds at a time


@dataclass(frozen=True)
class AuditResult:
    """The curated synthetic data, the flags of every synthetic row, and the scores before and after.

    - ``curated``: the kept rows of every table (the training data's columns, rows in input order);
    - ``flags``: per table, a DataFrame on the synthetic table's index with the boolean columns
      ``inside_support`` (inside the alpha-support), ``authentic``, ``parent_dropped`` (dropped
      only because a row it refers to was) and ``kept``;
    - ``before`` / ``after``: per table and entity view, the sample-level scores of all synthetic
      rows and of the kept ones;
    - ``skipped``: tables and views not measured, with the reason (their rows pass).
    """

    curated: RelationalData
    flags: dict[str, pd.DataFrame]
    before: dict[str, SampleScores]
    after: dict[str, SampleScores]
    alpha: float
    skipped: dict[str, str]

    def summary(self) -> pd.DataFrame:
        """One row per table and entity view: rows and the three numbers, before and after."""
        return _summary(self.before, self.after)


@dataclass(frozen=True)
class Curation:
    """What ``curate`` wrote and measured: per table, synthetic rows before and kept, and the scores.

    ``before`` / ``after`` are as in ``AuditResult``: precision and authenticity over every
    synthetic row (all kept rows), beta-recall on the synthetic sample of ``n_max`` rows (its kept rows).
    """

    rows: dict[str, tuple[int, int]]
    before: dict[str, SampleScores]
    after: dict[str, SampleScores]
    alpha: float
    skipped: dict[str, str]
    written_to: Path

    def summary(self) -> pd.DataFrame:
        """One row per table: rows and the three numbers, before and after."""
        return _summary(self.before, self.after)


def _summary(before: Mapping[str, SampleScores], after: Mapping[str, SampleScores]) -> pd.DataFrame:
    records = []
    for name, first in before.items():
        then = after[name]
        records.append(
            {
                "table": name,
                "rows_before": first.rows,
                "rows_after": then.rows,
                "ip_alpha_before": first.ip_alpha,
                "ip_alpha_after": then.ip_alpha,
                "ir_beta_before": first.ir_beta,
                "ir_beta_after": then.ir_beta,
                "authenticity_before": first.authenticity,
                "authenticity_after": then.authenticity,
            }
        )
    return pd.DataFrame.from_records(records)


@validate_params(
    {
        "alpha": [Interval(float, 0, 1, closed="right")],
        "n_max": [Interval(int, 1, None)],
        "seed": [Interval(int, 0, 2**32 - 1)],
        "entities": [InstanceOf((bool,), "a bool")],
        "device": [NoneValue(), DEVICE_NAME],
    }
)
def audit(
    data_train: DataInput,
    data_synth: DataInput,
    *,
    alpha: float = 0.95,
    n_max: int = 50_000,
    seed: int = 0,
    schema: Schema | None = None,
    entities: bool = True,
    device: str | None = None,
) -> AuditResult:
    """Curate ``data_synth``: keep its rows inside the alpha-support of the real data that are authentic.

    Same inputs as ``report()`` less the holdout, which auditing has no use for (training, then
    synthetic): DataFrame, dict of DataFrames or RelationalData, or data read in place (a
    ``reportgen.sources`` source, a Parquet/CSV path, a ``.duckdb`` file, a database URL).
    ``n_max`` caps the training rows per table (whole entities, seeded, as
    ``report(n_max_train=...)``; drawn in the engine for data read in place); every synthetic row is
    flagged, so the synthetic data is read whole into memory, as the result holds it (``curate``
    streams one synthetic table larger than memory instead). ``entities=False`` judges parent rows
    by their own table only.
    ``device`` trains the networks on the CPU (None), on ``"cuda"``, or on a GPU when torch sees one
    (``"auto"``). The same inputs and seed give the same result.
    """
    from reportgen.preparation import prepared
    from reportgen.settings import ReportSettings

    settings = ReportSettings(seed=seed, n_max_train=n_max, n_max_synth=_largest_table(data_synth))
    # the synthetic rows stay in the order given: the curated rows and their flags are returned in it
    with prepared(data_train, None, data_synth, settings, schema=schema, keep_order=(SYNTH,)) as ctx:
        return _audited(ctx, alpha, entities, OneClassConfig(device=device))


def _audited(ctx: EvaluationContext, alpha: float, entities: bool, config: OneClassConfig) -> AuditResult:
    """``audit`` on a prepared context whose synthetic data is every synthetic row."""
    # a sequence view's row is a whole sequence, not a row the curation could drop: left out
    kept_views = ("table", "entity") if entities else ("table",)
    views = {name: v for name, v in ctx.distance_views().items() if v.view in kept_views}
    measured: dict[str, Measured] = {}
    skipped: dict[str, str] = {}
    for name, view in views.items():
        outcome = measure(ctx, name, view, config=config, alpha=alpha)
        if isinstance(outcome, str):
            skipped[name] = outcome
        else:
            measured[name] = outcome
    passes = {name: _passes(m, alpha) for name, m in measured.items()}
    inside, authentic, keep = {}, {}, {}
    for table in ctx.table_names:
        n = len(ctx.synth[table])
        inside[table], authentic[table] = np.ones(n, bool), np.ones(n, bool)
        for name in (table, table + ENTITY_SUFFIX):
            if name in passes:
                inside[table] &= passes[name][0]
                authentic[table] &= passes[name][1]
        keep[table] = inside[table] & authentic[table]
    curated, orphaned = keep_rows(ctx.synth, keep)
    kept = {table: keep[table] & ~orphaned[table] for table in ctx.table_names}
    flags = {
        table: pd.DataFrame(
            dict(
                zip(
                    FLAG_COLUMNS, (inside[table], authentic[table], orphaned[table], kept[table]), strict=True
                )
            ),
            index=ctx.synth[table].index,
        )
        for table in ctx.table_names
    }
    before = {name: m.result.synthetic for name, m in measured.items()}
    after = {
        name: _after(name, views[name], m, kept, ctx.rng(f"audit:recall:{name}"))
        for name, m in measured.items()
    }
    return AuditResult(curated, flags, before, after, alpha, skipped)


@validate_params(
    {
        "alpha": [Interval(float, 0, 1, closed="right")],
        "n_max": [Interval(int, 1, None)],
        "seed": [Interval(int, 0, 2**32 - 1)],
        "batch_rows": [Interval(int, 1, None)],
        "device": [NoneValue(), DEVICE_NAME],
    }
)
def curate(
    data_train: DataInput,
    data_synth: Source | str | PathLike[str],
    out: str | PathLike[str],
    *,
    alpha: float = 0.95,
    n_max: int = 50_000,
    seed: int = 0,
    schema: Schema | None = None,
    batch_rows: int = BATCH_ROWS,
    flags_file: str | PathLike[str] | None = None,
    device: str | None = None,
) -> Curation:
    """``audit`` of one synthetic table read in place, streamed: memory is bounded by the batch.

    The network is trained as ``audit`` trains it (on at most ``n_max`` training rows drawn in the
    engine); then every synthetic row is read from the engine in batches of ``batch_rows`` (file
    order for Parquet, CSV and DuckDB tables, a database's scan order for SQL), flagged, and the
    kept rows are written batch by batch to Parquet: ``out`` is a ``.parquet`` file, or a folder
    that gets ``<table>.parquet`` and ``schema.yaml``; ``flags_file`` (CSV) gets every row's flags.
    Both are written under temporary names and renamed when complete. Beta-recall, before and
    after, is measured on the synthetic sample of ``n_max`` rows. When the synthetic table has at
    most ``n_max`` rows, the kept rows and flags are those of ``audit`` on the same data and seed.
    Relational data cannot be streamed (an entity view needs each parent with all its children,
    and dropping a parent drops its children): ``audit`` reads it whole.
    """
    from reportgen.preparation import prepared
    from reportgen.settings import ReportSettings

    synth, opened = _in_place(data_synth, schema)
    try:
        table = _only_table(synth)
        _check_outputs(
            Path(out), _parquet_target(Path(out), table) != Path(out), flags_file
        )  # before any work
        rows = lake.row_count(synth, table)
        missing = {table: _columns_with_missing(synth, table)} if rows > n_max else {}
        settings = ReportSettings(seed=seed, n_max_train=n_max, n_max_synth=n_max)
        with prepared(  # the synthetic order as audit() keeps it, so both flag the same rows alike
            data_train, None, synth, settings, schema=schema, missing_elsewhere=missing, keep_order=(SYNTH,)
        ) as ctx:
            stream = _Stream.start(ctx, alpha, OneClassConfig(device=device))
            batches = synth.engine.batches(f"SELECT * FROM {synth.relations[table]}", batch_rows)
            written = _write_streamed(ctx, stream, batches, Path(out), flags_file)
    finally:
        if opened:
            synth.close()
    before, after = stream.scores(ctx)
    return Curation(
        {stream.name: (stream.total.rows, stream.kept.rows)}, before, after, alpha, stream.skipped, written
    )


def _in_place(data: Source | str | PathLike[str], schema: Schema | None) -> tuple[Source, bool]:
    """The source of ``data``, and whether it was opened here (then it is closed here)."""
    if isinstance(data, Source):
        return data, False
    if isinstance(data, (str, PathLike)):
        return open_source(data, schema), True
    raise InvalidParameterError(
        f"curate streams synthetic data read in place: a reportgen.sources source, a path or a "
        f"database URL. Got {type(data).__name__}; audit() curates data in memory."
    )


def _only_table(source: Source) -> str:
    """The synthetic source's one table; relational data cannot be streamed, so it is refused."""
    if len(source.relations) != 1:
        raise InvalidParameterError(
            f"The synthetic data ({source.description}) has {len(source.relations)} tables "
            f"{sorted(source.relations)}; only one table can be curated batch by batch, as entity "
            "views need each parent with all its children. Use audit(), which reads the synthetic "
            "data whole (memory grows with it), or curate each table on its own."
        )
    return next(iter(source.relations))


def _columns_with_missing(source: Source, table: str) -> list[str]:
    """Columns with a missing value (NULL, NaN or infinite, as text in any engine) on all rows."""
    columns = source.columns(table)
    text = {c: f"CAST({quote(c)} AS VARCHAR)" for c in columns}
    terms = [
        f"SUM(CASE WHEN {quote(c)} IS NULL OR LOWER({t}) IN ('nan', 'inf', '-inf', 'infinity', "
        f"'-infinity') THEN 1 ELSE 0 END)"
        for c, t in text.items()
    ]
    (counts,) = source.engine.rows(f"SELECT {', '.join(terms)} FROM {source.relations[table]}")
    return [c for c, n in zip(columns, counts, strict=True) if n]


@dataclass
class _Stream:
    """One table's network and reference, and the tallies of the rows flagged so far."""

    name: str
    alpha: float
    measured: Measured | None
    skipped: dict[str, str]
    total: RowTally
    kept: RowTally

    @classmethod
    def start(cls, ctx: EvaluationContext, alpha: float, config: OneClassConfig) -> _Stream:
        """Train the network of the table's view on the training sample (``measure``, as ``audit``)."""
        ((name, view),) = ctx.distance_views().items()
        outcome = measure(ctx, name, view, config=config, alpha=alpha)
        empty = RowTally(np.zeros(N_LEVELS + 2, np.int64), 0, 0)
        if isinstance(outcome, str):
            return cls(name, alpha, None, {name: outcome}, empty, empty)
        return cls(name, alpha, outcome, {}, empty, empty)

    def flags(self, ctx: EvaluationContext, rows: pd.DataFrame) -> pd.DataFrame:
        """The flags of a batch of reconciled synthetic rows; the tallies take them in."""
        n = len(rows)
        inside, authentic = np.ones(n, bool), np.ones(n, bool)
        if (m := self.measured) is not None:
            prep = ctx.table(ctx.table_names[0])
            space = prep.distance_space.transform(prep.canonical(rows, SYNTH))
            scores = row_scores(m.real, m.embedding.transform(space))
            inside, authentic = scores.inside(support_radius(m.real, self.alpha)), scores.authentic
            self.total += RowTally.of(scores)
            self.kept += RowTally.of(scores, inside & authentic)
        values = (inside, authentic, np.zeros(n, bool), inside & authentic)
        return pd.DataFrame(dict(zip(FLAG_COLUMNS, values, strict=True)))

    def scores(self, ctx: EvaluationContext) -> tuple[dict[str, SampleScores], dict[str, SampleScores]]:
        """Before and after: the tallies of every row, beta-recall on the sample's (kept) rows."""
        if self.measured is None:
            return {}, {}
        m, synthetic = self.measured, self.measured.synthetic
        before = tally_scores(self.total, np.array(m.result.synthetic.curves.recall))
        kept = synthetic.inside(support_radius(m.real, self.alpha)) & synthetic.authentic
        sample = ctx.distance_views()[self.name].rows.synth
        recall_rows = subsample(
            m.embedding.transform(sample[kept]), m.result.recall_rows, ctx.rng(f"audit:recall:{self.name}")
        )
        recall = beta_recall(m.real.recall_rows, m.real.nnd_k, recall_rows)
        return {self.name: before}, {self.name: tally_scores(self.kept, recall)}


def _write_streamed(
    ctx: EvaluationContext,
    stream: _Stream,
    batches: Iterator[pd.DataFrame],
    out: Path,
    flags_file: str | PathLike[str] | None,
) -> Path:
    """Flag every batch, writing its kept rows to Parquet (and flags to CSV); return the Parquet file.

    Both files are written under temporary names and renamed once every batch is in, so a failure
    leaves no partial output. A folder ``out`` gets ``schema.yaml`` too, as ``write_folder`` writes.
    """
    table = ctx.table_names[0]
    target = _parquet_target(out, table)
    if target is not out:
        out.mkdir(parents=True, exist_ok=True)

    def write(parquet: Path, flags: Path | None) -> None:
        schema = pa.Schema.from_pandas(ctx.synth[table], preserve_index=False)
        with pq.ParquetWriter(parquet, schema) as writer:
            start = 0
            for batch in batches:
                rows = _reconciled(ctx, table, batch)
                flagged = stream.flags(ctx, rows)
                kept = rows[flagged["kept"].to_numpy()]
                writer.write_table(_as_arrow(kept, schema, table))
                if flags is not None:
                    listed = flagged.assign(table=table, row=np.arange(start, start + len(rows)))
                    listed[["table", "row", *FLAG_COLUMNS]].to_csv(
                        flags, mode="a", header=start == 0, index=False, lineterminator="\n"
                    )
                start += len(rows)

    if flags_file is None:
        write_atomic(target, lambda tmp: write(tmp, None))
    else:
        write_atomic(target, lambda tmp: write_atomic(Path(flags_file), lambda flags: write(tmp, flags)))
    if target is not out:
        write_folder_schema(ctx.synth.schema.subset([table]), out, {table: target.name})
    return target


def _parquet_target(out: Path, table: str) -> Path:
    """The Parquet file a streamed audit writes: ``out`` itself, or ``<table>.parquet`` in folder ``out``."""
    from reportgen.data.io import TABLE_SUFFIXES

    name = str(out).lower()
    if name.endswith(".parquet"):
        return out
    if "://" in name or name.endswith(TABLE_SUFFIXES):
        raise InvalidParameterError(
            f"A synthetic table read in place is curated batch by batch into Parquet, so --out (out) "
            f"must be a .parquet file or a folder. Got {str(out)!r} instead."
        )
    return out / safe_file_name(table, ".parquet")  # inside ``out``, whatever the table is called


def _reconciled(ctx: EvaluationContext, table: str, batch: pd.DataFrame) -> pd.DataFrame:
    """A batch of synthetic rows read as the synthetic sample was: training columns, reconciled values."""
    conformed, _ = conform(ctx.full_train, tidy({table: batch}), SYNTH)
    return reconcile_roles(ctx.full_train, None, conformed).synth[table]


def _as_arrow(rows: pd.DataFrame, schema: pa.Schema, table: str) -> pa.Table:
    """Kept rows in the Parquet file's schema (the synthetic sample's), naming a column that differs."""
    try:
        return pa.Table.from_pandas(rows, schema=schema, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError) as error:
        raise DataError(
            f"Table {table!r} of the synthetic data: a batch of rows does not fit the column types of "
            f"its sample ({withheld(str(error))}). Give the column one type in the data (a cast in a "
            "view), or raise n_max so that the sample shows its values."
        ) from None


def _passes(measured: Measured, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Per synthetic row of a view: inside the alpha-support, and authentic."""
    rows = measured.synthetic
    return rows.inside(support_radius(measured.real, alpha)), rows.authentic


def _after(
    name: str,
    view: DistanceView,
    measured: Measured,
    kept: Mapping[str, np.ndarray],
    rng: np.random.Generator,
) -> SampleScores:
    """The scores of the kept rows, with the network and the real rows of the ``before`` scores.

    An entity view is scored on its kept parent rows as they were measured before: their child
    aggregates are not recomputed without the dropped children.
    """
    mask = kept[name.removesuffix(ENTITY_SUFFIX)]
    embedded = measured.embedding.transform(view.rows.synth[mask])
    m = measured.result.recall_rows
    return sample_scores(measured.real, measured.synthetic, subsample(embedded, m, rng), keep=mask)


def _largest_table(data: Any) -> int:
    """A cap on synthetic rows that keeps every row: the largest table's, or no cap for data in place."""
    if isinstance(data, pd.DataFrame):
        return max(len(data), 1)
    if isinstance(data, Mapping):
        return max((len(frame) for frame in data.values() if isinstance(frame, pd.DataFrame)), default=1)
    return EVERY_ROW


def report_scores(
    data_train: DataInput,
    data_synth: DataInput,
    *,
    seed: int = 0,
    n_max: int = 50_000,
    schema: Schema | None = None,
) -> dict[str, float]:
    """The report's similarity score and privacy score (weakest table) of ``data_synth``.

    For the before/after summary of ``reportgen audit``; computed as ``report()`` computes them
    with the same seed and caps (no holdout).
    """
    from reportgen.metrics.registry import MetricNotComputed
    from reportgen.metrics.similarity import compute_similarity
    from reportgen.preparation import prepared
    from reportgen.settings import ReportSettings
    from reportgen.standalone import compute_privacy_stats

    scores: dict[str, float] = {}
    settings = ReportSettings(seed=seed, n_max_train=n_max, n_max_synth=n_max)
    with (
        prepared(data_train, None, data_synth, settings, schema=schema) as ctx,
        contextlib.suppress(MetricNotComputed),
    ):
        scores["similarity score"] = compute_similarity(ctx).score
    privacy = compute_privacy_stats(data_train, None, data_synth, n_max=n_max, seed=seed, schema=schema)
    if privacy:
        scores["privacy score"] = min(s.privacy_score for s in privacy.values())
    return scores


def write_curated(curated: RelationalData, source: str, out: str, *, replace: bool = False) -> None:
    """Write ``curated`` in the format of ``source``, the synthetic input it was read from.

    A database URL gives a database (``out`` a URL too; ``replace`` drops existing tables), a folder
    a folder (Parquet when the input folder holds Parquet files, else CSV, plus ``schema.yaml``),
    and one table file a file of the same kind (``out`` ends in .csv, .csv.gz or .parquet).
    """
    from pathlib import Path

    from reportgen.data.io import TABLE_SUFFIXES, write_folder, write_sql
    from reportgen.errors import InvalidParameterError
    from reportgen.files import write_atomic

    if "://" in source:
        if "://" not in out:
            raise InvalidParameterError(
                f"The synthetic data is a database ({source.split('://')[0]}), so --out must be a "
                f"database URL too (such as sqlite:///curated.db). Got {out!r} instead."
            )
        write_sql(curated, out, if_exists="replace" if replace else "fail")
        return
    path = Path(source)
    if path.suffix.lower() in (".duckdb", ".ddb"):  # tables of a DuckDB database: a Parquet folder
        write_folder(curated, out, format="parquet")
        return
    if path.is_dir():
        write_folder(curated, out, format=folder_format(path))  # Parquet part files may nest
        return
    suffix = next((s for s in TABLE_SUFFIXES if out.lower().endswith(s)), None)
    if suffix is None or len(curated) != 1:
        raise InvalidParameterError(
            f"The synthetic data is one table file, so --out must be one file ending in "
            f"{', '.join(TABLE_SUFFIXES)}. Got {out!r} instead."
        )
    frame = next(iter(curated.values()))
    if suffix == ".parquet":
        write_atomic(Path(out), lambda tmp: frame.to_parquet(tmp, index=False))
    else:
        compression = "gzip" if suffix == ".csv.gz" else None
        write_atomic(
            Path(out),
            lambda tmp: frame.to_csv(tmp, index=False, lineterminator="\n", compression=compression),
        )


def audit_command(
    train: str,
    synth: str,
    out: str,
    *,
    schema_file: str | None = None,
    alpha: float = 0.95,
    n_max: int = 50_000,
    seed: int = 0,
    flags_file: str | None = None,
    replace: bool = False,
    with_report_scores: bool = True,
    as_json: bool = False,
    in_place: bool = False,
    batch_rows: int = BATCH_ROWS,
) -> str:
    """What ``reportgen audit`` does: audit, write the curated data (and flags), return the summary text.

    Inputs read in place (Parquet and DuckDB always, any with ``in_place``) have their training
    sample drawn in the engine; one synthetic table is then curated batch by batch (``curate``,
    Parquet out), relational synthetic data is read whole (``audit``).
    """
    import json

    from reportgen.data.io import read_schema
    from reportgen.data.sources import is_lake_input

    schema = read_schema(schema_file) if schema_file else None
    options: dict[str, Any] = {"alpha": alpha, "n_max": n_max, "seed": seed, "schema": schema}
    if (in_place or is_lake_input(train) or is_lake_input(synth)) and _tables(synth, schema) == 1:
        curation = curate(train, synth, out, batch_rows=batch_rows, flags_file=flags_file, **options)
        rows, summary, skipped = curation.rows, curation.summary(), curation.skipped
        inputs: tuple[Any, Any, Any] = (train, synth, str(curation.written_to))
    else:
        if "://" not in out + synth:  # databases are checked when written
            _check_outputs(Path(out), _writes_folder(synth), flags_file)
        rows, summary, skipped, inputs = _audit_in_memory(train, synth, out, flags_file, replace, options)
    scores: dict[str, dict[str, float | None]] = {}
    if with_report_scores:
        scores = _report_scores_before_after(*inputs, seed=seed, n_max=n_max, schema=schema)
    if as_json:
        return json.dumps(
            {
                "alpha": alpha,
                "rows": {name: {"before": b, "after": a} for name, (b, a) in rows.items()},
                "tables": summary.to_dict(orient="records"),
                "report_scores": scores,
                "skipped": skipped,
                "written_to": out,
            },
            indent=2,
        )
    return _summary_text(alpha, rows, summary, scores, skipped, out)


def _check_outputs(out: Path, folder: bool, flags_file: str | PathLike[str] | None) -> None:
    """Refuse, before any work, an ``out`` (a folder or a file) or flags file of the wrong kind."""
    from reportgen.outputs import check_output_kind

    check_output_kind(out, folder=folder, what="--out (out)")
    if flags_file is not None:
        check_output_kind(Path(flags_file), folder=False, what="--flags (flags_file)")


def _writes_folder(synth: str) -> bool:
    """Whether ``write_curated`` writes the curated data of ``synth`` (a path) as a folder."""
    source = Path(synth)
    return source.suffix.lower() in (".duckdb", ".ddb") or source.is_dir()


def _tables(data: str, schema: Schema | None) -> int:
    """How many tables an input read in place has."""
    with open_source(data, schema) as source:
        return len(source.relations)


def _audit_in_memory(
    train: str, synth: str, out: str, flags_file: str | None, replace: bool, options: dict[str, Any]
) -> tuple[dict[str, tuple[int, int]], pd.DataFrame, dict[str, str], tuple[Any, Any, Any]]:
    """``audit`` with the synthetic data in memory; write the curated data (and flags).

    Inputs read in place stay paths (``audit`` samples the training data in the engine and reads
    every synthetic row); others are loaded. Returns the rows, summary, skipped views and the
    training, synthetic and curated data for the report scores.
    """
    from reportgen.data.io import load
    from reportgen.data.sources import is_lake_input

    schema = options["schema"]
    data_train: Any = train
    data_synth: Any = synth
    if not (is_lake_input(train) or is_lake_input(synth)):
        data_train, data_synth = load(train, schema), load(synth, schema)
    result = audit(data_train, data_synth, **options)
    write_curated(result.curated, synth, out, replace=replace)
    if flags_file:
        table = pd.concat(
            [
                f.reset_index(drop=True).rename_axis("row").reset_index().assign(table=name)
                for name, f in result.flags.items()
            ],
            ignore_index=True,
        )[["table", "row", *FLAG_COLUMNS]]
        write_atomic(Path(flags_file), lambda tmp: table.to_csv(tmp, index=False, lineterminator="\n"))
    rows = {name: (len(f), int(f["kept"].sum())) for name, f in result.flags.items()}
    return rows, result.summary(), result.skipped, (data_train, data_synth, result.curated)


def _report_scores_before_after(
    data_train: Any, data_synth: Any, curated: Any, **options: Any
) -> dict[str, dict[str, float | None]]:
    """The report's similarity and privacy scores of the synthetic data before and after curation."""
    from reportgen.errors import ReportgenError

    scores: dict[str, dict[str, float | None]] = {}
    for when, data in (("before", data_synth), ("after", curated)):
        try:
            measured = report_scores(data_train, data, **options)
        except ReportgenError:  # e.g. nothing left after curation
            measured = {}
        for name, value in measured.items():
            scores.setdefault(name, {"before": None, "after": None})[when] = value
    return scores


def _summary_text(
    alpha: float,
    rows: Mapping[str, tuple[int, int]],
    summary: pd.DataFrame,
    scores: Mapping[str, Mapping[str, float | None]],
    skipped: Mapping[str, str],
    out: str,
) -> str:
    lines = [f"Audit at alpha = {alpha:g}: synthetic rows inside the alpha-support and authentic are kept."]
    names = [*rows, *(summary["table"] if len(summary) else [])]
    width = max(5, *(len(n) for n in names))
    lines.append(f"{'table':<{width}}  {'rows before':>11}  {'rows after':>10}  {'kept':>6}")
    for name, (before, after) in rows.items():
        share = after / before if before else 0.0
        lines.append(f"{name:<{width}}  {before:>11,}  {after:>10,}  {share:>6.1%}")
    if len(summary):
        lines += ["", f"{'':<{width}}  {'IP_alpha':>15}  {'IR_beta':>15}  {'authenticity':>15}"]
        lines.append(f"{'table':<{width}}  " + "  ".join(f"{'before':>7} {'after':>7}" for _ in range(3)))
        for rec in summary.to_dict(orient="records"):
            values = "  ".join(
                f"{rec[f'{m}_before']:>7.3f} {rec[f'{m}_after']:>7.3f}"
                for m in ("ip_alpha", "ir_beta", "authenticity")
            )
            lines.append(f"{rec['table']:<{width}}  {values}")
    if scores:
        lines += ["", f"{'report score':<16}  {'before':>7}  {'after':>7}"]
        for name, pair in scores.items():
            shown = [("—" if v is None else f"{v:.1f}") for v in (pair["before"], pair["after"])]
            lines.append(f"{name:<16}  {shown[0]:>7}  {shown[1]:>7}")
    for name, reason in skipped.items():
        lines.append(f"Not measured (rows kept unless a parent was dropped): {name}: {reason}")
    lines += ["", f"Curated data written to {out}"]
    return "\n".join(lines)
