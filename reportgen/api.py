"""The public entry point: ``report()`` validates, samples, computes every section, and writes."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from concurrent.futures import Future
from contextlib import contextmanager, nullcontext
from dataclasses import replace
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, TypeAlias

import pandas as pd

from reportgen.alarms import by_severity, not_measured_findings, section_alarms
from reportgen.comparison import compare, load_previous
from reportgen.context import NEAR_UNIQUE, EvaluationContext
from reportgen.data.in_place import InPlace, read_in_place
from reportgen.data.reconcile import read_training, reconcile_roles
from reportgen.data.relational import SINGLE_TABLE_NAME, RelationalData, as_relational
from reportgen.data.schema import Schema
from reportgen.data.sources import Source, open_source
from reportgen.data.validation import (
    SYNTH,
    TEST,
    TRAIN,
    check_not_empty,
    conform,
    key_findings,
    missing_synthetic_tables,
    missing_table_findings,
)
from reportgen.errors import IncompatibleDataError
from reportgen.gates import bars_in_force, evaluate_gates, mark_bars
from reportgen.headlines import headlines, size_findings
from reportgen.metrics.registry import MetricNotApplicable, MetricNotComputed, Section, sections
from reportgen.metrics.targets import resolve_targets
from reportgen.outputs import check_output_path
from reportgen.params import InstanceOf, Interval, NoneValue, validate_params
from reportgen.privacy.distance_space import CategoricalEncoding
from reportgen.privacy.neighbours import one_thread_each, usable_cores
from reportgen.provenance import fingerprints, source_fingerprints
from reportgen.reference_split import training_split
from reportgen.render.document import output_format, write_report
from reportgen.render.formatting import listed
from reportgen.results import Finding, ReportResults, RunInfo, SectionResult, SectionStatus
from reportgen.seeding import derived_seed
from reportgen.settings import (
    MIN_RISK_ATTACKS,
    N_MAX_DETECTION,
    N_MAX_PHIK,
    N_MAX_UTILITY,
    N_RISK_ATTACKS,
    LinkColumns,
    ReportColumns,
    ReportSettings,
    check_risk_columns,
)
from reportgen.verdict import verdicts

DataInput: TypeAlias = (
    RelationalData | Mapping[str, pd.DataFrame] | pd.DataFrame | Source | str | os.PathLike[str]
)
Progress = Callable[[str, float], None]
SECTIONS_BESIDE = True  # False: every section in its turn on the calling thread (to time each alone)

_VERSIONED = (
    "reportgen",
    "numpy",
    "pandas",
    "scipy",
    "scikit-learn",
    "torch",
    "phik",
    "weasyprint",
)


@validate_params(
    {
        "path": [InstanceOf((str, Path), "a str or pathlib.Path")],
        "n_max_train": [Interval(int, 1, None)],
        "n_max_test": [Interval(int, 1, None)],
        "n_max_synth": [Interval(int, 1, None)],
        "n_max_phik": [Interval(int, 1, None)],
        "n_max_utility": [Interval(int, 1, None)],
        "n_max_detection": [Interval(int, 1, None)],
        "privacy_q": [Interval(float, 0, 1, closed="neither")],
        "risk_confidence": [NoneValue(), Interval(float, 0, None)],
        "seed": [Interval(int, 0, 2**32 - 1)],
        "max_categories": [Interval(int, 2, None)],
        "columns": [NoneValue(), InstanceOf((ReportColumns,), "a ReportColumns")],
        "targets": [NoneValue(), InstanceOf((Mapping,), "a dict of table name to target column")],
        "title": [NoneValue(), InstanceOf((str,), "a str")],
        "fail_under": [NoneValue(), InstanceOf((Mapping,), "a dict of bar name to number")],
        "previous": [NoneValue(), InstanceOf((str, Path), "a str or pathlib.Path")],
        "allow_not_evaluated": [InstanceOf((bool,), "a bool")],
        "risk_attacks": [Interval(int, MIN_RISK_ATTACKS, None)],
        "risk_secrets": [NoneValue(), InstanceOf((list, tuple), "a list of column names")],
        "risk_link_columns": [NoneValue(), InstanceOf((list, tuple), "two lists of column names")],
    }
)
def report(
    data_train: DataInput,
    data_test: DataInput | None,
    data_synth: DataInput,
    path: str | Path,
    *,
    schema: Schema | None = None,
    n_max_train: int = 50_000,
    n_max_test: int = 50_000,
    n_max_synth: int = 50_000,
    n_max_phik: int = N_MAX_PHIK,
    n_max_utility: int = N_MAX_UTILITY,
    n_max_detection: int = N_MAX_DETECTION,
    privacy_q: float = 0.1,
    risk_confidence: float | None = None,
    columns: ReportColumns | None = None,
    targets: Mapping[str, str] | None = None,
    seed: int = 0,
    max_categories: int = 20,
    title: str | None = None,
    fail_under: Mapping[str, float] | None = None,
    previous: str | Path | None = None,
    allow_not_evaluated: bool = False,
    risk_attacks: int = N_RISK_ATTACKS,
    risk_secrets: Sequence[str] | None = None,
    risk_link_columns: LinkColumns = None,
    progress: Progress | None = None,
) -> ReportResults:
    """Evaluate synthetic data against real data and write the report to ``path``.

    ``path`` ending in ``.pdf`` writes a PDF, ``.html`` a self-contained HTML file; the results are
    also written as JSON beside it (same name, ``.json``) and returned. ``data_test`` is the real
    holdout the generator never saw (``None`` if there is none: reference levels are then not
    shown). Each input is a DataFrame (one table), a dict of DataFrames, or a ``RelationalData``;
    or data read where it is: a ``reportgen.sources`` source (``sources.parquet("lake/train/")``,
    ``sources.sql(url)``, ...) or a path or URL (opened with ``sources.open_source``). Inputs read
    in place are never loaded whole: row counts, missing shares, key integrity, children per
    parent and the similarity matrix count every row in the engine (DuckDB for files), and the
    other sections read a seeded sample of at most ``n_max_*`` rows per table drawn there
    (``results`` records which numbers are on all rows: the ``basis`` fields).
    The training data's schema (``schema``, or the one it carries) applies to all three.
    ``n_max_phik`` caps the rows of each input used for the phik correlation matrices (a
    uniform seeded sample). ``privacy_q`` and ``risk_confidence`` are the ``q`` and
    ``risk_confidence`` of ``compute_privacy_stats``, which gives the same privacy numbers.
    ``targets`` maps a table to the column the utility section predicts (``{"table": "income"}``
    for one DataFrame), over any target in the schema; ``n_max_utility`` caps its models' rows.
    ``n_max_detection`` caps the rows of each side of the detection test.
    ``fail_under`` sets release bars on the headline scores (``{"privacy": 80, "similarity": 85}``,
    on top of ``reportgen.gates.DEFAULT_BARS``); ``results.gates.passed`` says whether all were met.
    A bar whose number could not be computed fails too, with the reason, unless
    ``allow_not_evaluated=True``.
    ``previous`` is the JSON of a previous release's report: every headline is compared with it
    and regressions are flagged (``results.comparison``).
    ``risk_attacks``, ``risk_secrets`` and ``risk_link_columns`` are the ``n_attacks``, ``secrets``
    and ``link_columns`` of ``compute_privacy_risks`` (singling out, linkability, inference), which
    gives the same numbers.
    ``progress(stage, fraction)`` is called as the work advances.
    The output path is checked before any work (``reportgen.outputs.check_output_path``); missing
    folders on it are created. The report and its JSON are written as a pair: both or neither.
    """
    output_format(Path(path))
    check_output_path(Path(path))
    bars = bars_in_force(fail_under)
    before = None if previous is None else load_previous(previous)
    notify = progress or (lambda stage, fraction: None)
    settings = ReportSettings(
        seed=seed,
        n_max_train=n_max_train,
        n_max_test=n_max_test,
        n_max_synth=n_max_synth,
        n_max_phik=n_max_phik,
        n_max_utility=n_max_utility,
        n_max_detection=n_max_detection,
        privacy_q=privacy_q,
        risk_confidence=risk_confidence,
        max_categories=max_categories,
        columns=columns or ReportColumns(),
        targets=dict(targets) if targets else None,
        risk_attacks=risk_attacks,
        risk_secrets=None if risk_secrets is None else tuple(risk_secrets),
        risk_link_columns=_link_columns(risk_link_columns),
    )
    notify("Checking the data", 0.0)
    with prepared(data_train, data_test, data_synth, settings, schema=schema) as context:
        results = evaluate(context, title=title or _default_title(context), notify=notify)
    results.gates = evaluate_gates(results, bars, allow_not_evaluated=allow_not_evaluated)
    mark_bars(results.headlines, results.gates)
    results.verdicts = verdicts(results)
    if before is not None:
        results.comparison = compare(results, before, str(previous))
    notify("Writing the report", 0.9)
    write_report(results, path)
    notify("Done", 1.0)
    return results


def prepare_context(
    data_train: DataInput,
    data_test: DataInput | None,
    data_synth: DataInput,
    settings: ReportSettings,
    *,
    schema: Schema | None = None,
    missing_elsewhere: Mapping[str, Collection[str]] | None = None,
) -> EvaluationContext:
    """Validate the three inputs against the training data's schema and sample them.

    Inputs read in place (sources, paths, URLs) are sampled in their engine first; the context
    then holds the samples as its data and the sources for the all-row counts (``in_place``).
    ``missing_elsewhere`` is ``EvaluationContext.missing_elsewhere``.
    """
    in_place = None
    if any(_reads_in_place(d) for d in (data_train, data_test, data_synth)):
        (data_train, data_test, data_synth), in_place = _sampled_in_place(
            data_train, data_test, data_synth, settings, schema
        )
        schema = schema if schema is not None else in_place.sources[TRAIN].schema
    try:
        context = _prepared(data_train, data_test, data_synth, settings, schema, in_place, missing_elsewhere)
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
    from reportgen.data import sources

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
) -> EvaluationContext:
    """The context of in-memory inputs (or of the samples of inputs read in place)."""
    assert not _reads_in_place(data_train)
    train, findings = read_training(as_relational(data_train, schema, max_categories=settings.max_categories))
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
    train, test, synth = reconciled.train, reconciled.test, reconciled.synth
    findings += reconciled.findings
    # the tables the synthetic data lacks stay in the overview, and so do real orphans pointing at them
    whole_train = every_table.with_tables({**every_table, **train}) if missing else None
    for role, data in ((TRAIN, whole_train or train), (TEST, test), (SYNTH, synth)):
        findings += [] if data is None else key_findings(data, role)
    columns = {name: train.schema[name].columns for name in train}
    settings.columns.check(columns)
    check_risk_columns(settings.risk_secrets, settings.risk_link_columns, columns)
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
    context.findings += _preparation_findings(context)
    return context


def _link_columns(sets: LinkColumns) -> LinkColumns:
    """The two column sets as a tuple of tuples (checked later by ``check_risk_columns``)."""
    if sets is None or len(sets) != 2 or any(isinstance(part, str) for part in sets):
        return sets
    return tuple(sets[0]), tuple(sets[1])


def _step_reporter(notify: Progress, stage: str, fraction: float) -> Callable[[str], None]:
    """Progress inside one section: its steps shown under the section's stage."""

    def step(detail: str) -> None:
        notify(f"{stage}: {detail}", fraction)

    return step


def _targets_within(targets: Mapping[str, str] | None, data: RelationalData) -> dict[str, str] | None:
    """The utility targets of the tables that are evaluated."""
    kept = {t: c for t, c in (targets or {}).items() if t in data}
    return kept or None


def evaluate(context: EvaluationContext, *, title: str, notify: Progress | None = None) -> ReportResults:
    """Compute every registered section on a prepared context."""
    notify = notify or (lambda stage, fraction: None)
    reference = training_split(context)
    computed = _compute_sections(context, sections(), notify, split=reference.context if reference else None)
    results = ReportResults(
        run=RunInfo(
            title=title,
            reportgen_version=_version("reportgen"),
            created_at=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
            seed=context.settings.seed,
            settings=context.settings.to_dict(),
            versions={name: _version(name) for name in _VERSIONED},
            has_holdout=context.test is not None,
            reference_split=reference.split if reference else None,
            inputs={
                role: fingerprints(data)
                if context.in_place is None
                else source_fingerprints(context.in_place, role, data)
                for role, data in (
                    (TRAIN, context.full_train),
                    (TEST, context.full_test),
                    (SYNTH, context.full_synth),
                )
                if data is not None
            },
            read_in_place=context.in_place.describe() if context.in_place else {},
        ),
        findings=[
            *context.findings,
            *(reference.findings if reference else []),
            *not_measured_findings(computed),
        ],
        sections=computed,
    )
    results.findings = by_severity(results.findings + section_alarms(results) + size_findings(results))
    results.headlines = headlines(results)
    return results


def _compute_sections(
    context: EvaluationContext,
    registered: Sequence[Section],
    notify: Progress,
    *,
    split: EvaluationContext | None = None,
) -> dict[str, SectionResult]:
    """Every section's result, in registry order.

    ``split``: without a holdout, the context on a split of the training data
    (``reportgen.reference_split``) that the sections marked ``split_reference`` run on.

    Sections marked ``beside`` start first, one after another in a background thread (on a copy of
    the context that shares its preparations), while the others run here; where ``_beside_others``
    says no, every section runs here in its turn. Meanwhile torch and BLAS run one thread per
    Python thread, as every section sets them for its own work anyway. ``notify`` is called from
    this thread only, in order: a section beside the others is announced when its turn comes, and
    its own steps are not shown. A result does not depend on where its section ran: each section
    draws from its own seeded streams.
    """
    stages = {
        s.name: (f"Computing: {s.title}", 0.1 + 0.8 * i / len(registered)) for i, s in enumerate(registered)
    }

    def steps_of(section: Section) -> Callable[[str], None]:
        return _step_reporter(notify, *stages[section.name])

    def context_of(section: Section) -> EvaluationContext:
        return split if split is not None and section.split_reference else context

    beside = [s for s in registered if s.beside] if _beside_others(context) else []
    with one_thread_each() if beside else nullcontext():
        started = _start_beside(context_of, beside)
        computed: dict[str, SectionResult] = {}
        try:
            for section in registered:
                notify(*stages[section.name])
                if section.name in started:
                    computed[section.name] = started[section.name].result()
                else:
                    computed[section.name] = _compute_section(context_of(section), section, steps_of(section))
        except BaseException:  # the sections not begun yet will not be
            for future in started.values():
                future.cancel()
            raise
    return computed


def _start_beside(
    context_of: Callable[[Section], EvaluationContext], beside: Sequence[Section]
) -> dict[str, Future[SectionResult]]:
    """Each section's future result, computed one after another in a background thread.

    A daemon thread: when the report stops on an error or Ctrl-C, the process need not wait for
    the section it is computing (a thread pool's worker would hold the interpreter's exit until
    then); a section not begun by then is cancelled.
    """
    futures: dict[str, Future[SectionResult]] = {s.name: Future() for s in beside}

    def compute_all() -> None:
        for section in beside:
            future = futures[section.name]
            if not future.set_running_or_notify_cancel():
                continue
            try:
                context = replace(context_of(section), beside_others=True)
                future.set_result(_compute_section(context, section, _no_steps))
            except BaseException as error:
                future.set_exception(error)

    if futures:
        threading.Thread(target=compute_all, name="reportgen-beside", daemon=True).start()
    return futures


def _beside_others(context: EvaluationContext) -> bool:
    """Whether sections marked ``beside`` start in a background thread.

    Not on a single core (no core is left idle), and not for inputs read in place: the counting
    sections then keep every core busy with DuckDB's own threads, and a section beside them only
    competes (the 20-million-row run of ``benchmarks/bench_lake.py`` took 159 s with the
    sample-level section beside the others, 146 s without, and its peak memory grew by 185 MiB).
    """
    return SECTIONS_BESIDE and usable_cores() > 1 and context.in_place is None


def _no_steps(detail: str) -> None:
    """The progress of a section computed beside the others: not shown (see ``_compute_sections``)."""


def _compute_section(
    context: EvaluationContext, section: Section, steps: Callable[[str], None]
) -> SectionResult:
    """One section's result, or why it could not be computed; ``steps`` shows its progress."""
    context.progress = steps
    try:
        return section.compute(context)
    except MetricNotComputed as reason:
        not_applicable = isinstance(reason, MetricNotApplicable)
        status: SectionStatus = "not_applicable" if not_applicable else "not_computed"
        return SectionResult(section=section.name, status=status, reason=str(reason))


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


def _default_title(context: EvaluationContext) -> str:
    """The table's name when it has one (a file's), else what the data is."""
    names = list(context.train)
    if len(names) > 1:
        return f"Synthetic data report: {len(names)} tables"
    if names[0] == SINGLE_TABLE_NAME:  # a DataFrame: no name to show
        return f"Synthetic data report: one table of {len(context.train[names[0]].columns)} columns"
    return f"Synthetic data report: {names[0]}"


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"
