"""The preparation stage: three inputs checked against the training data's schema and sampled.

``prepare_context`` (and ``prepared``, its ``with`` form) turns what a caller gives (DataFrames,
dicts of them, ``RelationalData``, sources, paths, URLs) into the ``EvaluationContext`` every
section reads, with the findings that preparing it raised (what was sampled, read in place, left
out or pooled). Every public function that evaluates prepares its context here.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, TypeAlias

import pandas as pd

from reportgen.catalogue import report_settings, section_settings
from reportgen.context import NEAR_UNIQUE, EvaluationContext
from reportgen.data import sources
from reportgen.data.engines import Source
from reportgen.data.in_place import InPlace, read_in_place
from reportgen.data.io import SchemaSource, resolve_schema
from reportgen.data.reconcile import read_training, reconcile_roles
from reportgen.data.relational import RelationalData, as_relational
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.data.schema import Schema
from reportgen.data.sources import open_source
from reportgen.data.validation import (
    check_not_empty,
    conform,
    key_findings,
    missing_synthetic_tables,
    missing_table_findings,
)
from reportgen.errors import IncompatibleDataError
from reportgen.metrics.targets import resolve_targets
from reportgen.privacy.distance_space import CategoricalEncoding
from reportgen.provenance import fingerprints
from reportgen.real_side import RealSide
from reportgen.render.formatting import listed
from reportgen.results import Finding
from reportgen.seeding import derived_seed
from reportgen.settings import ReportSettings

DataInput: TypeAlias = (
    RelationalData | Mapping[str, pd.DataFrame] | pd.DataFrame | Source | str | os.PathLike[str]
)


def prepare_context(
    data_train: DataInput,
    data_test: DataInput | None,
    data_synth: DataInput,
    settings: ReportSettings,
    *,
    schema: SchemaSource | Mapping[str, Any] = None,
    missing_elsewhere: Mapping[str, Collection[str]] | None = None,
    keep_order: Collection[str] = (),
    real_side: RealSide | None = None,
) -> EvaluationContext:
    """Validate the three inputs against the training data's schema and sample them.

    Each role's rows are first put in their canonical order (``RelationalData.in_canonical_order``),
    so the same data in another row order gives the same report; ``keep_order`` names the roles
    whose rows stay in the order given (the audit returns its synthetic rows in that order).
    Inputs read in place (sources, paths, URLs) are sampled in their engine first; the context
    then holds the samples as its data and the sources for the all-row counts (``in_place``).
    ``missing_elsewhere`` is ``EvaluationContext.missing_elsewhere``. Section settings missing
    from ``settings`` take their declared defaults. ``schema`` is a ``Schema``, a schema file,
    or its plain data (reportgen's layout, the neutral ``metadata.json`` or SDV's ``to_dict()``).
    ``real_side`` is the context's ``EvaluationContext.real_side`` (default: a new one).
    """
    settings = report_settings(settings)
    if isinstance(schema, Mapping) and not isinstance(schema, Schema):  # plain data (a Schema is a Mapping)
        schema = Schema.from_dict(schema)
    schema = resolve_schema(schema)[0]
    in_place = None
    if any(_reads_in_place(d) for d in (data_train, data_test, data_synth)):
        (data_train, data_test, data_synth), in_place = _sampled_in_place(
            data_train, data_test, data_synth, settings, schema
        )
        schema = schema if schema is not None else in_place.sources[TRAIN].schema
    try:
        context = _prepared(
            data_train, data_test, data_synth, settings, schema, in_place, missing_elsewhere, keep_order
        )
        if real_side is not None:
            context.real_side = real_side
    except BaseException:
        if in_place is not None:
            in_place.close_opened()
        raise
    return context


@contextmanager
def prepared(
    data_train: DataInput,
    data_test: DataInput | None,
    data_synth: DataInput,
    settings: ReportSettings,
    **options: Any,
) -> Iterator[EvaluationContext]:
    """``prepare_context`` (``options``: its keywords) for a ``with`` block, then its sources closed.

    Every public function that evaluates (``report``, ``compute_privacy_stats``, ``audit``...)
    prepares its context this way, so paths and URLs are read in place as ``report()`` reads them
    and their connections do not outlive the call (a source the caller passed stays open).
    """
    context = prepare_context(data_train, data_test, data_synth, settings, **options)
    try:
        yield context
    finally:
        if context.in_place is not None:
            context.in_place.close_opened()


def _reads_in_place(data: object) -> bool:
    return isinstance(data, (Source, str, os.PathLike))


def _sampled_in_place(
    data_train: DataInput,
    data_test: DataInput | None,
    data_synth: DataInput,
    settings: ReportSettings,
    schema: Schema | None,
) -> tuple[tuple[dict[str, pd.DataFrame], dict[str, pd.DataFrame] | None, dict[str, pd.DataFrame]], InPlace]:
    """Every input as a source (in-memory ones through DuckDB), and each role's engine-drawn sample."""
    given = {TRAIN: data_train, TEST: data_test, SYNTH: data_synth}
    sources, opened = {}, []
    try:
        for role, data in given.items():
            if data is None:
                continue
            source = data if isinstance(data, Source) else _opened_source(data, schema)
            if source is not data:
                opened.append(source)
            sources[role] = source
        caps = {TRAIN: settings.n_max_train, TEST: settings.n_max_test, SYNTH: settings.n_max_synth}
        seeds = {role: derived_seed(settings.seed, f"sample:{role}") for role in sources}
        frames, in_place = read_in_place(sources, schema, caps, seeds)
    except BaseException:
        for source in opened:
            source.close()
        raise
    in_place.opened = opened
    return (frames[TRAIN], frames.get(TEST), frames[SYNTH]), in_place


def _opened_source(data: DataInput, schema: Schema | None) -> Source:
    """A path or URL opened in place; in-memory data queried in place by DuckDB."""
    if isinstance(data, (str, os.PathLike)):
        return open_source(data, schema)
    if isinstance(data, RelationalData):
        return sources.frames(dict(data), data.schema)
    assert isinstance(data, (pd.DataFrame, Mapping))
    return sources.frames(data, schema)


def _prepared(
    data_train: DataInput,
    data_test: DataInput | None,
    data_synth: DataInput,
    settings: ReportSettings,
    schema: Schema | None,
    in_place: InPlace | None,
    missing_elsewhere: Mapping[str, Collection[str]] | None = None,
    keep_order: Collection[str] = (),
) -> EvaluationContext:
    """The context of in-memory inputs (or of the samples of inputs read in place).

    Every role's rows are put in their canonical order before anything is drawn from them, except
    the roles in ``keep_order``; in-memory inputs are fingerprinted in the order given, once their
    values have passed the conversion check (whose error names the table and the role).
    """
    assert not _reads_in_place(data_train)
    train, findings = read_training(as_relational(data_train, schema, max_categories=settings.max_categories))
    findings = schema_note_findings(train.schema) + findings
    settings = replace(settings, targets=resolve_targets(train.schema, settings.targets) or None)
    check_not_empty(train, TRAIN)
    missing = missing_synthetic_tables(train, data_synth)
    if len(missing) == len(train):
        raise IncompatibleDataError(
            f"The synthetic data has none of the training data's tables {list(train)}; there is "
            "nothing to compare. Check that the inputs belong together."
        )
    every_table = train
    if missing:
        findings += missing_table_findings(missing)
        train = train.restricted([t for t in train if t not in missing])
        settings = replace(settings, targets=_targets_within(settings.targets, train))
    test = None
    if data_test is not None:
        test, test_findings = conform(train, data_test, TEST, optional=settings.targets, ignored=missing)
        check_not_empty(test, TEST)
        findings += test_findings
    synth, synth_findings = conform(train, data_synth, SYNTH, optional=settings.targets)
    check_not_empty(synth, SYNTH)
    findings += synth_findings
    reconciled = reconcile_roles(train, test, synth)
    given = {TRAIN: reconciled.train, TEST: reconciled.test, SYNTH: reconciled.synth}
    train, synth = (
        _ordered(reconciled.train, TRAIN, keep_order),
        _ordered(reconciled.synth, SYNTH, keep_order),
    )
    test = None if reconciled.test is None else _ordered(reconciled.test, TEST, keep_order)
    findings += reconciled.findings
    # the tables the synthetic data lacks stay in the overview, and so do real orphans pointing at them
    whole_train = every_table.with_tables({**every_table, **train}) if missing else None
    for role, data in ((TRAIN, whole_train or train), (TEST, test), (SYNTH, synth)):
        findings += [] if data is None else key_findings(data, role)
    columns = {name: train.schema[name].columns for name in train}
    settings.columns.check(columns)
    for setting in section_settings().values():
        if setting.check_columns is not None:
            setting.check_columns(getattr(settings, setting.name), columns)
    context = EvaluationContext(
        train=train.sample(settings.n_max_train, derived_seed(settings.seed, f"sample:{TRAIN}")),
        test=None
        if test is None
        else test.sample(settings.n_max_test, derived_seed(settings.seed, f"sample:{TEST}")),
        synth=synth.sample(settings.n_max_synth, derived_seed(settings.seed, f"sample:{SYNTH}")),
        full_train=train,
        full_test=test,
        full_synth=synth,
        settings=settings,
        findings=findings,
        in_place=in_place,
        missing_elsewhere=missing_elsewhere or {},
        whole_train=whole_train,
    )
    if in_place is not None:
        for role in context.roles:
            data = context.full_data(role)
            data.sampling = {t: in_place.sampling[role][t] for t in data}
    for name in context.table_names:
        context.table(name).frame(TRAIN)  # converts every role now: bad values fail before the work
    if in_place is None:  # inputs read in place are fingerprinted where they are, when evaluated
        context.input_fingerprints = {r: fingerprints(d) for r, d in given.items() if d is not None}
    context.findings += _preparation_findings(context)
    return context


def _ordered(data: RelationalData, role: str, keep_order: Collection[str]) -> RelationalData:
    """``data`` in its canonical row order, unless ``role`` keeps the order it came in."""
    return data if role in keep_order else data.in_canonical_order()


def _targets_within(targets: Mapping[str, str] | None, data: RelationalData) -> dict[str, str] | None:
    """The utility targets of the tables that are evaluated."""
    kept = {t: c for t, c in (targets or {}).items() if t in data}
    return kept or None


def _preparation_findings(context: EvaluationContext) -> list[Finding]:
    findings = []
    if context.test is None:
        findings.append(
            Finding(
                severity="info",
                code="no_holdout",
                message=(
                    "No holdout data was given. The fidelity and utility references come from training "
                    "rows set aside for them (the generator saw those rows); the privacy attacks, which "
                    "need real rows the generator never saw, are not run."
                ),
            )
        )
    findings += _in_place_findings(context)
    for role, full, used in (
        (TRAIN, context.full_train, context.train),
        (TEST, context.full_test, context.test),
        (SYNTH, context.full_synth, context.synth),
    ):
        if full is None or used is None or full is used:
            continue
        cap = getattr(
            context.settings, {TRAIN: "n_max_train", TEST: "n_max_test", SYNTH: "n_max_synth"}[role]
        )
        sampling = used.sampling or {}
        findings += [
            Finding(
                severity="info",
                code="sampled",
                table=name,
                message=(
                    f"The {role} data was sampled to the cap of {cap:,} rows per table: "
                    f"{drawn.used:,} of {drawn.available:,} rows used, drawn as {drawn.method}."
                ),
            )
            for name, drawn in sampling.items()
            if drawn.is_sampled
        ]
    findings += _shared_table_findings(context)
    for name in context.table_names:
        for column, reason in context.table(name).excluded.items():
            if reason.startswith("all values missing"):
                findings.append(
                    Finding(
                        severity="warning",
                        code="all_missing_column",
                        table=name,
                        column=column,
                        message=(
                            "Every value of this column is missing in the training data; it is not compared."
                        ),
                    )
                )
            elif reason == NEAR_UNIQUE:
                findings.append(_near_unique_finding(context, name, column))
        findings += _pooled_findings(context, name)
    return findings


def _in_place_findings(context: EvaluationContext) -> list[Finding]:
    """Per role read in place: where, which numbers count every row, and the sample of the rest."""
    if context.in_place is None:
        return []
    findings = []
    counted = ["row counts", "missing shares", "key integrity", "children per parent", "similarity matrix"]
    counted += ["KS statistics"] if context.in_place.host else []
    exact = listed(counted)
    for role, where in context.in_place.describe().items():
        engine = context.in_place.engines[role]
        sampled = [
            f"{name!r}: {drawn.used:,} of {drawn.available:,} rows, {drawn.method}"
            for name, drawn in context.in_place.sampling[role].items()
            if name in context.table_names and drawn.is_sampled
        ]
        rest = (
            "the other sections read a seeded sample drawn there (" + "; ".join(sampled) + ")"
            if sampled
            else "the other sections read every row too (no table is over the cap)"
        )
        findings.append(
            Finding(
                severity="info",
                code="read_in_place",
                message=(
                    f"The {role} data ({where}) was read where it is, by {engine}: its {exact} "
                    f"count every row; {rest}."
                ),
            )
        )
    return findings


def _pooled_findings(context: EvaluationContext, table: str) -> list[Finding]:
    """The wide categorical columns whose rarer levels the distance space pools into "(other)"."""
    prep = context.table(table)
    real = prep.frame(TRAIN)
    assert real is not None
    findings = []
    for encoding in prep.distance_space.encodings:
        if not (isinstance(encoding, CategoricalEncoding) and encoding.pooled):
            continue
        labels = real[encoding.column]
        pooled = labels.notna() & ~labels.isin(encoding.levels)
        findings.append(
            Finding(
                severity="info",
                code="pooled_levels",
                table=table,
                column=encoding.column,
                message=(
                    f"This column has {labels.nunique():,} levels in the training data. The distance "
                    f"space and Gower similarity keep its {len(encoding.levels):,} most frequent and "
                    f"pool the rest ({pooled.mean():.1%} of the training rows) into one '(other)' "
                    "level, so the privacy distances do not tell those levels apart."
                ),
            )
        )
    return findings


def _near_unique_finding(context: EvaluationContext, table: str, column: str) -> Finding:
    """A categorical column whose values nearly all differ: an identifier, left out everywhere."""
    values = context.train[table][column].dropna()
    return Finding(
        severity="warning",
        code="near_unique_column",
        table=table,
        column=column,
        message=(
            f"Column {column!r} of table {table!r} is categorical, but {values.nunique():,} of its "
            f"{len(values):,} training values are distinct: it identifies rows rather than groups "
            "them, so it is treated as an identifier and left out of every comparison (distances, "
            "Gower similarity, utility features, distributions). Declare its kind as 'id' in the "
            "schema to record this."
        ),
    )


def _shared_table_findings(context: EvaluationContext) -> list[Finding]:
    """Tables whose holdout is the training data itself (a lookup table copied by a split)."""
    return [
        Finding(
            severity="info",
            code="holdout_equals_training",
            table=name,
            message=(
                "The holdout rows of this table are the training rows (a lookup table shared by "
                "both sides of a split), so its reference levels are trivially perfect."
            ),
        )
        for name in context.table_names
        if context.holdout_is_training(name)
    ]


def schema_note_findings(schema: Schema) -> list[Finding]:
    """A warning per thing the schema's source (SDV metadata) said that reportgen's schema cannot hold."""
    return [
        Finding(
            severity="warning",
            code="schema_not_carried_over",
            table=table,
            column=column,
            message=f"{message} The rest of the metadata was read as given.",
        )
        for table, column, message in schema.notes
    ]
