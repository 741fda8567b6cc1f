"""``compare_candidates``: several synthetic datasets of the same real data judged in one run.

Each candidate is judged exactly as ``report()`` judges it (``reportgen.api.judged``: the same
preparation, sections, bars and verdicts, with the same seed), one after another, all sharing one
``reportgen.real_side.RealSide``: what a section computes from the real data alone (neighbour lists
among real rows, the one-class network, the detection test of training against holdout rows, the
utility models trained on real rows) is computed for the first candidate and reused for the others
wherever its inputs are identical, so every candidate's numbers are those of its own report. The
candidates are then ranked by ``reportgen.choice.RULE`` and the comparison is written: page 1 ranks
them on every headline, then each candidate's own page 1 (``reportgen.render.candidates``), with a
JSON beside it that holds every candidate's full results.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from reportgen.api import REPORT_PARAMETERS, judged, run_settings
from reportgen.catalogue import sections
from reportgen.choice import Candidate, CandidateComparison, ranked
from reportgen.data.schema import Schema
from reportgen.errors import InvalidParameterError
from reportgen.evaluation import Progress
from reportgen.gates import bars_in_force, setting_bars
from reportgen.outputs import check_output_path
from reportgen.params import InstanceOf, NoneValue, validate_params
from reportgen.preparation import DataInput
from reportgen.real_side import RealSide
from reportgen.render.ahead import FiguresAhead
from reportgen.render.candidates import write_comparison
from reportgen.render.document import output_format, write_report
from reportgen.results import ReportResults
from reportgen.settings import ReportColumns

_SHARED = {k: v for k, v in REPORT_PARAMETERS.items() if k not in ("previous", "junit", "decision")}


@validate_params(
    _SHARED
    | {
        "candidates": [InstanceOf((Mapping,), "a dict of candidate name to synthetic data")],
        "reports": [NoneValue(), InstanceOf((str, Path), "a str or pathlib.Path")],
    }
)
def compare_candidates(
    data_train: DataInput,
    data_test: DataInput | None,
    candidates: Mapping[str, DataInput],
    path: str | Path,
    *,
    reports: str | Path | None = None,
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
    allow_not_evaluated: bool = False,
    progress: Progress | None = None,
    **section_settings: Any,
) -> CandidateComparison:
    """Judge several synthetic datasets of the same real data in one run and recommend one.

    ``candidates`` maps each candidate's name to its synthetic data (any input ``report()`` takes).
    Every candidate gets exactly the numbers, bars and verdicts its own ``report()`` gives with the
    same inputs and keywords (which mean what they mean there); the work computed from the real
    data alone is done once and shared. The comparison is written to ``path`` (``.pdf`` or
    ``.html``, with its JSON beside it): page 1 ranks the candidates on every headline with its
    reference and bar and names the one ``reportgen.choice.RULE`` recommends (never one that fails
    a bar or whose privacy verdict is not a pass), then each candidate's own page 1.
    ``reports``: a folder to also write each candidate's full report in (``<name>.pdf`` or
    ``.html``, as ``path``), each with its JSON. Returns the comparison, with every candidate's
    results (``comparison.candidate(name).results``).
    """
    path = Path(path)
    suffix = path.suffix.lower()
    output_format(path)
    check_output_path(path)
    names = _names(candidates, files=reports is not None)
    own = {name: None if reports is None else Path(reports) / f"{name}{suffix}" for name in names}
    for target in own.values():
        if target is not None:
            check_output_path(target)
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
    notify = progress or (lambda stage, fraction: None)
    real_side = RealSide()
    judged_candidates = []
    for i, name in enumerate(names):
        target = own[name]
        with FiguresAhead(sections() if target is not None else ()) as ahead:  # none without a report
            results = judged(
                (data_train, data_test, candidates[name]),
                settings,
                bars,
                schema=schema,
                title=None,  # each candidate's own report's title
                allow_not_evaluated=allow_not_evaluated,
                notify=_for_candidate(notify, name, i, len(names)),
                real_side=real_side,
                on_result=ahead.section_done,
            )
            if target is not None:  # the candidate's own report
                write_report(results, target, sections(), figures=ahead.figures)
        judged_candidates.append(Candidate(name=name, results=results, report=_shown(target)))
    notify("Writing the comparison", 0.95)
    recommended, why = ranked(judged_candidates)
    comparison = CandidateComparison(
        title=title or _default_title(judged_candidates[0].results, len(names)),
        created_at=datetime.now(timezone.utc).replace(microsecond=0).isoformat(),
        seed=seed,
        recommended=recommended,
        why=why,
        candidates=judged_candidates,
        reused=real_side.reused,
    )
    write_comparison(comparison, path)
    notify("Done", 1.0)
    return comparison


def _names(candidates: Mapping[str, DataInput], *, files: bool) -> list[str]:
    """The candidates' names, checked: at least one, each a non-empty name.

    ``files``: each names its own report's file too, so it must be usable as a file name.
    """
    if not candidates:
        raise InvalidParameterError(
            "compare_candidates needs at least one candidate: pass candidates={name: synthetic data, ...}."
        )
    for name in candidates:
        if not isinstance(name, str) or not name.strip() or name != name.strip():
            raise InvalidParameterError(
                f"Candidate name {name!r}: a candidate is named by a non-empty str without "
                "surrounding spaces."
            )
        if files and (any(c in name for c in '/\\:*?"<>|') or name.startswith(".")):
            raise InvalidParameterError(
                f"Candidate name {name!r}: names its own report's file, so it cannot hold "
                "/ \\ : * ? \" < > | or start with a dot. Rename it (letters, digits, '-', '_')."
            )
    return list(candidates)


def _for_candidate(notify: Progress, name: str, index: int, count: int) -> Progress:
    """Progress of one candidate's evaluation, as a share of the whole comparison."""

    def step(stage: str, fraction: float) -> None:
        notify(f"{name} ({index + 1}/{count}): {stage}", 0.95 * (index + fraction) / count)

    return step


def _shown(path: Path | None) -> str | None:
    return None if path is None else str(path)


def _default_title(first: ReportResults, count: int) -> str:
    """What is compared: the first candidate's report title names the data."""
    what = first.run.title.split(": ", 1)[-1]
    return f"{count} candidate synthetic datasets compared: {what}"
