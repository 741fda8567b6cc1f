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

``reportgen audit`` is the command-line front end: it writes the curated tables in the input's
format and prints the scores before and after (with the report's similarity and privacy scores).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from reportgen.context import ENTITY_SUFFIX, DistanceView
from reportgen.data.relational import RelationalData
from reportgen.data.subsets import keep_rows
from reportgen.metrics.alpha_beta import Measured, measure, support_radius
from reportgen.params import InstanceOf, Interval, NoneValue, validate_params
from reportgen.privacy.alpha_beta import SampleScores, sample_scores, subsample
from reportgen.privacy.one_class import OneClassConfig

if TYPE_CHECKING:
    from reportgen.api import DataInput
    from reportgen.data.schema import Schema

FLAG_COLUMNS = ("inside_support", "authentic", "parent_dropped", "kept")


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
        records = []
        for name, before in self.before.items():
            after = self.after[name]
            records.append(
                {
                    "table": name,
                    "rows_before": before.rows,
                    "rows_after": after.rows,
                    "ip_alpha_before": before.ip_alpha,
                    "ip_alpha_after": after.ip_alpha,
                    "ir_beta_before": before.ir_beta,
                    "ir_beta_after": after.ir_beta,
                    "authenticity_before": before.authenticity,
                    "authenticity_after": after.authenticity,
                }
            )
        return pd.DataFrame.from_records(records)


@validate_params(
    {
        "alpha": [Interval(float, 0, 1, closed="right")],
        "n_max": [Interval(int, 1, None)],
        "seed": [Interval(int, 0, 2**32 - 1)],
        "entities": [InstanceOf((bool,), "a bool")],
        "device": [NoneValue(), InstanceOf((str,), "a str such as 'cpu', 'cuda' or 'auto'")],
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

    Same inputs as ``report()`` (DataFrame, dict of DataFrames or RelationalData). ``n_max`` caps
    the training rows per table (whole entities, seeded, as ``report(n_max_train=...)``); every
    synthetic row is flagged. ``entities=False`` judges parent rows by their own table only.
    ``device`` trains the networks on the CPU (None), on ``"cuda"``, or on a GPU when torch sees one
    (``"auto"``). The same inputs and seed give the same result.
    """
    from reportgen.api import prepare_context
    from reportgen.settings import ReportSettings

    synth_rows = _largest_table(data_synth)
    settings = ReportSettings(seed=seed, n_max_train=n_max, n_max_synth=max(synth_rows, 1))
    ctx = prepare_context(data_train, None, data_synth, settings, schema=schema)
    views = ctx.distance_views()
    if not entities:
        views = {name: v for name, v in views.items() if v.view == "table"}
    config = OneClassConfig(device=device)
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
    if isinstance(data, pd.DataFrame):
        return len(data)
    if isinstance(data, Mapping):
        return max((len(frame) for frame in data.values() if isinstance(frame, pd.DataFrame)), default=1)
    return 1


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
    from reportgen.api import prepare_context
    from reportgen.metrics.privacy import compute_privacy_stats
    from reportgen.metrics.registry import MetricNotComputed
    from reportgen.metrics.similarity import compute_similarity
    from reportgen.settings import ReportSettings

    scores: dict[str, float] = {}
    settings = ReportSettings(seed=seed, n_max_train=n_max, n_max_synth=n_max)
    ctx = prepare_context(data_train, None, data_synth, settings, schema=schema)
    with contextlib.suppress(MetricNotComputed):
        scores["similarity score"] = compute_similarity(ctx).score
    privacy = compute_privacy_stats(data_train, data_synth, n_max=n_max, seed=seed, schema=schema)
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
    if path.is_dir():
        parquet = any(f.name.lower().endswith(".parquet") for f in path.iterdir())
        write_folder(curated, out, format="parquet" if parquet else "csv")
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
) -> str:
    """What ``reportgen audit`` does: audit, write the curated data (and flags), return the summary text."""
    import json
    from pathlib import Path

    from reportgen.data.io import load, read_schema
    from reportgen.errors import ReportgenError
    from reportgen.files import write_atomic

    schema = read_schema(schema_file) if schema_file else None
    data_train, data_synth = load(train, schema), load(synth, schema)
    result = audit(data_train, data_synth, alpha=alpha, n_max=n_max, seed=seed, schema=schema)
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
    scores: dict[str, dict[str, float | None]] = {}
    if with_report_scores:
        for when, data in (("before", data_synth), ("after", result.curated)):
            try:
                measured = report_scores(data_train, data, seed=seed, n_max=n_max, schema=schema)
            except ReportgenError:  # e.g. nothing left after curation
                measured = {}
            for name, value in measured.items():
                scores.setdefault(name, {"before": None, "after": None})[when] = value
    summary = result.summary()
    rows = {name: (len(data_synth[name]), int(f["kept"].sum())) for name, f in result.flags.items()}
    if as_json:
        return json.dumps(
            {
                "alpha": alpha,
                "rows": {name: {"before": b, "after": a} for name, (b, a) in rows.items()},
                "tables": summary.to_dict(orient="records"),
                "report_scores": scores,
                "skipped": result.skipped,
                "written_to": out,
            },
            indent=2,
        )
    return _summary_text(alpha, rows, summary, scores, result.skipped, out)


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
