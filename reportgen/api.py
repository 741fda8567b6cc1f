"""The public entry point: ``report()`` checks its arguments, then prepares, evaluates and writes.

The stages live below it: ``reportgen.preparation`` (inputs checked and sampled into a context),
``reportgen.evaluation`` (every section computed), ``reportgen.gates``, ``reportgen.verdict`` and
``reportgen.comparison`` (judged), ``reportgen.render.document`` (written).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from reportgen.approval_model import Decision, decision_from
from reportgen.catalogue import report_settings, sections
from reportgen.comparison import compare, load_previous
from reportgen.context import EvaluationContext
from reportgen.data.relational import SINGLE_TABLE_NAME
from reportgen.data.schema import Schema
from reportgen.evaluation import Progress, evaluate
from reportgen.gates import bars_in_force, evaluate_gates, mark_bars, setting_bars
from reportgen.junit import write_junit
from reportgen.outputs import check_output_path
from reportgen.params import InstanceOf, Interval, NoneValue, validate_params
from reportgen.preparation import DataInput, prepared
from reportgen.real_side import RealSide
from reportgen.render.ahead import FiguresAhead
from reportgen.render.document import output_format, write_report
from reportgen.results import ReportResults, SectionResult
from reportgen.settings import DEVICE_NAME, ReportColumns, ReportSettings
from reportgen.standards import standards
from reportgen.verdict import verdicts

REPORT_PARAMETERS: dict[str, list[Any]] = {
    "path": [InstanceOf((str, Path), "a str or pathlib.Path")],
    "n_max_train": [Interval(int, 1, None)],
    "n_max_test": [Interval(int, 1, None)],
    "n_max_synth": [Interval(int, 1, None)],
    "seed": [Interval(int, 0, 2**32 - 1)],
    "max_categories": [Interval(int, 2, None)],
    "device": [DEVICE_NAME],
    "columns": [NoneValue(), InstanceOf((ReportColumns,), "a ReportColumns")],
    "targets": [NoneValue(), InstanceOf((Mapping,), "a dict of table name to target column")],
    "title": [NoneValue(), InstanceOf((str,), "a str")],
    "fail_under": [NoneValue(), InstanceOf((Mapping,), "a dict of bar name to number")],
    "previous": [NoneValue(), InstanceOf((str, Path), "a str or pathlib.Path")],
    "allow_not_evaluated": [InstanceOf((bool,), "a bool")],
    "junit": [NoneValue(), InstanceOf((str, Path), "a str or pathlib.Path")],
    "decision": [NoneValue(), InstanceOf((Mapping, Decision), "a dict or a Decision")],
}
"""How ``report()`` checks its parameters (``compare_candidates`` checks the ones it shares the same way)."""


@validate_params(REPORT_PARAMETERS)
def report(
    data_train: DataInput,
    data_test: DataInput | None,
    data_synth: DataInput,
    path: str | Path,
    *,
    schema: Schema | str | Path | Mapping[str, Any] | None = None,
    n_max_train: int = 50_000,
    n_max_test: int = 50_000,
    n_max_synth: int = 50_000,
    columns: ReportColumns | None = None,
    targets: Mapping[str, str] | None = None,
    seed: int = 0,
    max_categories: int = 20,
    device: str = "cpu",
    title: str | None = None,
    fail_under: Mapping[str, float] | None = None,
    previous: str | Path | None = None,
    allow_not_evaluated: bool = False,
    junit: str | Path | None = None,
    decision: Decision | Mapping[str, Any] | None = None,
    progress: Progress | None = None,
    **section_settings: Any,
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
    The training data's schema (``schema``, or the one it carries) applies to all three; it is a
    ``Schema``, a schema file, or its plain data (SDV's ``Metadata.to_dict()`` included).
    ``targets`` maps a table to the column the utility section predicts (``{"table": "income"}``
    for one DataFrame), over any target in the schema.
    ``section_settings`` are the settings each section declares, by name, with their defaults and
    limits (``reportgen.catalogue.section_settings()``; the README lists the built-in ones):
    ``n_max_phik`` caps the rows of the phik matrices, ``n_max_utility`` those of the utility
    models, ``n_max_detection`` those of each side of the detection test; ``privacy_q``,
    ``risk_confidence``, ``privacy_repeats`` and ``n_max_gower`` are the privacy section's (the
    first two as in ``compute_privacy_stats``, which gives the same numbers), ``mia_max_targets``
    the membership attacks', and ``risk_attacks``, ``risk_secrets`` and ``risk_link_columns`` are
    the ``n_attacks``, ``secrets`` and ``link_columns`` of ``compute_privacy_risks``. A plugin
    section's settings are given the same way. A name no section declares is refused.
    ``fail_under`` sets release bars on the headline scores (``{"privacy": 80, "similarity": 85}``,
    on top of ``reportgen.gates.DEFAULT_BARS``); ``results.gates.passed`` says whether all were met.
    A bar whose number could not be computed fails too, with the reason, unless
    ``allow_not_evaluated=True``.
    ``junit`` also writes the bars as a JUnit XML file there, one test case per bar (failed,
    passed, an error when not evaluated), which CI systems show as test results.
    ``previous`` is the JSON of a previous release's report: every headline is compared with it
    and regressions are flagged (``results.comparison``).
    ``decision`` records the approver's decision in the report's decision block and the JSON
    (``results.decision``): ``{"name": ..., "role": ..., "date": "2026-11-27", "decision": "approve"
    | "approve with conditions" | "reject", "conditions": [...]}`` (a release configuration's
    ``decision:`` key, ``reportgen.config``); without it the block is a blank form to complete.
    A claimed differential-privacy guarantee (``claimed_epsilon=``, ``claimed_delta=``, membership
    settings) is audited against the attacks' lower bound: a bound above the claim fails its bar.
    ``device`` is where torch runs the exact neighbour searches: ``"cpu"``, ``"cuda"`` (or
    ``"cuda:N"``), or ``"auto"`` (a GPU where torch sees one). They give the CPU's numbers exactly,
    and everything else runs on the CPU, so the report is the CPU's, bit for bit
    (``results.run.device`` records where the searches ran). A GPU torch cannot see is refused.
    ``progress(stage, fraction)`` is called as the work advances.
    The output path is checked before any work (``reportgen.outputs.check_output_path``); missing
    folders on it are created. The report and its JSON are written as a pair: both or neither.
    """
    output_format(Path(path))
    check_output_path(Path(path))
    if junit is not None:
        check_output_path(Path(junit))
    settings = run_settings(
        seed=seed,
        n_max_train=n_max_train,
        n_max_test=n_max_test,
        n_max_synth=n_max_synth,
        max_categories=max_categories,
        device=device,
        columns=columns,
        targets=targets,
        section_settings=section_settings,
    )
    bars = setting_bars(settings) | bars_in_force(fail_under)
    recorded = None if decision is None else decision_from(decision, "report()")
    before = None if previous is None else load_previous(previous)
    notify = progress or (lambda stage, fraction: None)
    notify("Checking the data", 0.0)
    with FiguresAhead(sections()) as ahead:
        results = judged(
            (data_train, data_test, data_synth),
            settings,
            bars,
            schema=schema,
            title=title,
            allow_not_evaluated=allow_not_evaluated,
            notify=notify,
            on_result=ahead.section_done,
        )
        results.decision = recorded
        if before is not None:
            results.comparison = compare(results, before, str(previous))
        notify("Writing the report", 0.9)
        write_report(results, path, sections(), figures=ahead.figures)
    if junit is not None:
        write_junit(results, Path(junit), report=Path(path))
    notify("Done", 1.0)
    return results


def judged(
    data: tuple[DataInput, DataInput | None, DataInput],
    settings: ReportSettings,
    bars: Mapping[str, float],
    *,
    schema: Schema | str | Path | Mapping[str, Any] | None,
    title: str | None,
    allow_not_evaluated: bool,
    notify: Progress,
    real_side: RealSide | None = None,
    on_result: Callable[[str, SectionResult], None] | None = None,
) -> ReportResults:
    """One synthetic dataset prepared, evaluated and judged: ``report()`` before its decision and writing.

    Judged: its bars, verdicts and standards rows.

    ``data`` is the training, holdout and synthetic input; ``real_side`` the
    ``EvaluationContext.real_side`` to use (``compare_candidates`` shares one between candidates);
    ``on_result`` is told of each section's result as soon as it is final (``evaluate``).
    """
    with prepared(*data, settings, schema=schema, real_side=real_side) as context:
        title = title or _default_title(context)
        results = evaluate(context, title=title, notify=notify, on_result=on_result)
    results.gates = evaluate_gates(results, bars, allow_not_evaluated=allow_not_evaluated)
    mark_bars(results.headlines, results.gates)
    results.verdicts = verdicts(results)
    results.standards = standards(results)
    return results


def run_settings(
    *,
    seed: int,
    n_max_train: int,
    n_max_test: int,
    n_max_synth: int,
    max_categories: int,
    device: str,
    columns: ReportColumns | None,
    targets: Mapping[str, str] | None,
    section_settings: Mapping[str, Any],
) -> ReportSettings:
    """A run's settings from ``report()``'s keywords, the sections' own checked against their declarations."""
    shared = ReportSettings(
        seed=seed,
        n_max_train=n_max_train,
        n_max_test=n_max_test,
        n_max_synth=n_max_synth,
        max_categories=max_categories,
        columns=columns or ReportColumns(),
        targets=dict(targets) if targets else None,
    )
    return report_settings(shared, device=device, **section_settings)


def _default_title(context: EvaluationContext) -> str:
    """The table's name when it has one (a file's), else what the data is."""
    names = list(context.train)
    if len(names) > 1:
        return f"Synthetic data report: {len(names)} tables"
    if names[0] == SINGLE_TABLE_NAME:  # a DataFrame: no name to show
        return f"Synthetic data report: one table of {len(context.train[names[0]].columns)} columns"
    return f"Synthetic data report: {names[0]}"
