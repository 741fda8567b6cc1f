"""The evaluation stage: every registered section computed on a prepared context, into results.

``evaluate`` runs the sections (some beside the others in a background thread, see
``_compute_sections``) and gathers their results with the run's provenance and findings; it neither
prepares the data (``reportgen.preparation``) nor writes the report (``reportgen.api``).
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from contextlib import nullcontext
from dataclasses import replace
from datetime import datetime, timezone
from importlib.metadata import PackageNotFoundError, version

from reportgen.alarms import by_severity, not_measured_findings, section_alarms
from reportgen.catalogue import sections
from reportgen.context import EvaluationContext
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.fingerprint_model import TableFingerprint
from reportgen.headlines import headlines, size_findings
from reportgen.metrics.registry import MetricNotApplicable, MetricNotComputed, Section
from reportgen.privacy.neighbours import describe_device, resolve_device, searching_on
from reportgen.provenance import source_fingerprints
from reportgen.reference_split import training_split
from reportgen.results import ReportResults, RunInfo, SectionResult, SectionStatus
from reportgen.threads import one_thread_each, usable_cores

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


def evaluate(
    context: EvaluationContext,
    *,
    title: str,
    notify: Progress | None = None,
    on_result: Callable[[str, SectionResult], None] | None = None,
) -> ReportResults:
    """Compute every registered section on a prepared context.

    ``on_result(name, result)`` is told of each section's result as soon as it is final (from this
    thread, in registry order), for work that needs only that result: ``reportgen.render.ahead``
    draws the section's figures meanwhile.
    """
    notify = notify or (lambda stage, fraction: None)
    device = resolve_device(context.settings.device, "report()")
    with searching_on(device):
        reference = training_split(context)
        computed = _compute_sections(
            context, sections(), notify, split=reference.context if reference else None, done=on_result
        )
    results = ReportResults(
        run=RunInfo(
            title=title,
            reportgen_version=_version("reportgen"),
            created_at=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
            seed=context.settings.seed,
            settings=context.settings.to_dict(),
            versions={name: _version(name) for name in _VERSIONED},
            device=describe_device(device),
            has_holdout=context.test is not None,
            reference_split=reference.split if reference else None,
            inputs=input_fingerprints(context),
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


def input_fingerprints(context: EvaluationContext) -> dict[str, dict[str, TableFingerprint]]:
    """Each given role's tables' fingerprints, as the run record holds them (``RunInfo.inputs``).

    In-memory inputs were fingerprinted when prepared; inputs read in place are fingerprinted
    where they are, now (their files' bytes, or their rows digested in the engine).
    """
    return {
        role: context.input_fingerprints[role]
        if context.in_place is None
        else source_fingerprints(context.in_place, role, data)
        for role, data in (
            (TRAIN, context.full_train),
            (TEST, context.full_test),
            (SYNTH, context.full_synth),
        )
        if data is not None
    }


def _step_reporter(notify: Progress, stage: str, fraction: float) -> Callable[[str], None]:
    """Progress inside one section: its steps shown under the section's stage."""

    def step(detail: str) -> None:
        notify(f"{stage}: {detail}", fraction)

    return step


def _compute_sections(
    context: EvaluationContext,
    registered: Sequence[Section],
    notify: Progress,
    *,
    split: EvaluationContext | None = None,
    done: Callable[[str, SectionResult], None] | None = None,
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
    draws from its own seeded streams. ``done`` is told of each result when it is final, from this
    thread, in registry order.
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
                if done is not None:
                    done(section.name, computed[section.name])
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
        run_here = contextvars.copy_context().run  # the thread sees the run's device (``searching_on``)
        threading.Thread(target=run_here, args=(compute_all,), name="reportgen-beside", daemon=True).start()
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


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"
