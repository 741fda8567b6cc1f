"""Utility: models trained on synthetic data, scored on real data (TSTR), and their ranking (SRA)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

from reportgen.metrics.registry import Alarm, HeadlineSpec, Reading, Section
from reportgen.metrics.utility import (
    TableUtility,
    UtilityResult,
    at_chance,
    chance_level,
    compute_utility,
    synthetic_self_score,
    utility_relative,
)
from reportgen.params import Interval
from reportgen.render.utility_figures import utility_figure
from reportgen.results import Finding, ReportResults, SectionResult
from reportgen.rules import BelowReference
from reportgen.settings import N_MAX_UTILITY, Setting


def _figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, UtilityResult)
    figures = {f"utility:{i}": utility_figure(t) for i, t in enumerate(result.tables)}
    return {key: fig for key, fig in figures.items() if fig is not None}


def _first(r: UtilityResult) -> TableUtility | None:
    """The first table with a target, whose numbers are the headlines."""
    return next((t for t in r.tables if t.tstr is not None), None)


def _tstr(r: UtilityResult) -> Reading | None:
    table = _first(r)
    if table is None or table.tstr is None:
        return None
    baseline = table.real_baseline
    return Reading(
        value=100 * table.tstr,
        reference=None if baseline is None else 100 * baseline,
        tables=(table.table,),
        rows=min(table.rows.values()),
        label=f"TSTR ({table.metric}, 0-100)",
        meaning=(
            f"How well models trained on the synthetic data predict {table.target} on real data; "
            "the reference is the same models trained on real data."
        ),
    )


def _relative(r: UtilityResult) -> Reading | None:
    table = _first(r)
    if table is None or table.tstr is None:
        return None
    relative = utility_relative(table.tstr, table.real_baseline, table.metric)
    if relative is None:
        return None
    unlearnable = at_chance(synthetic_self_score(table), table.metric)
    return Reading(
        value=relative,
        rows=min(table.rows.values()),
        caveat=(
            f"models trained on synthetic rows predict {table.target} no better than chance on "
            "other synthetic rows, so the synthetic data keeps no relationship with it: what "
            "TSTR gains over chance comes from the columns' frequencies alone"
            if unlearnable
            else None
        ),
    )


def _sra(r: UtilityResult) -> Reading | None:
    table = _first(r)
    if table is None or table.sra is None:
        return None
    return Reading(value=100 * table.sra, rows=min(table.rows.values()))


def _raise_alarms(utility: UtilityResult, results: ReportResults, raised: Sequence[Finding]) -> list[Finding]:
    """TSTR at chance; without a holdout, TSTR flattered where the privacy section found copies."""
    flattered = _flattered_utility(list(raised), utility) if results.run.reference_split is not None else []
    return _utility_alarms(utility) + flattered


def _flattered_utility(copy_alarms: list[Finding], utility: Any) -> list[Finding]:
    """Utility alarms where a copying generator's TSTR is scored on rows it copied (no holdout).

    Without a holdout the models are scored on training rows set aside for the references, rows the
    generator saw: where it copies training rows (an ``exact_copies_above_reference`` alarm in a
    target's table), TSTR is flattered.
    """
    if utility is None:
        return []
    targets = {t.table for t in utility.tables}
    return [
        Finding(
            severity="warning",
            code="utility_flattered_by_copies",
            table=alarm.table,
            message=(
                "Without a holdout the models are scored on training rows the generator saw, and it "
                "copies training rows (see the privacy findings), so TSTR is flattered. Give a holdout "
                "to measure utility."
            ),
        )
        for alarm in copy_alarms
        if alarm.code == "exact_copies_above_reference" and alarm.table in targets
    ]


def _utility_alarms(utility: Any) -> list[Finding]:
    """TSTR at chance, or a synthetic target its own columns cannot predict (the real one they can)."""
    if utility is None:
        return []
    alarms = []
    for t in utility.tables:
        chance = f"chance {chance_level(t.metric):g}"
        if at_chance(t.tstr, t.metric):
            alarms.append(
                _utility_finding(
                    t,
                    "tstr_at_chance",
                    f"Models trained on the synthetic data predict {t.target} no better than chance on real "
                    f"data (TSTR {t.tstr:.3f} {t.metric}, {chance}): the synthetic data is not useful for "
                    "this task.",
                )
            )
        elif (
            t.tstr is not None
            and t.real_baseline is not None
            and not at_chance(t.real_baseline, t.metric)  # the real target is predictable
            and at_chance(own := synthetic_self_score(t), t.metric)
        ):
            alarms.append(
                _utility_finding(
                    t,
                    "synthetic_target_unlearnable",
                    f"Models trained on half of the synthetic data predict {t.target} no better than chance "
                    f"on its other half (mean {own:.3f} {t.metric}, {chance}): in the synthetic data the "
                    f"target does not depend on the other columns. TSTR's {t.tstr:.3f} comes from the "
                    "columns' frequencies, not from a relationship kept.",
                )
            )
    return alarms


def _utility_finding(table: Any, code: str, message: str) -> Finding:
    return Finding(severity="warning", code=code, table=table.table, column=table.target, message=message)


SECTION = Section(
    name="utility",
    title="Utility: models trained on synthetic data",
    order=60,
    result_type=UtilityResult,
    compute=compute_utility,
    template="sections/utility.html.j2",
    methodology="sections/utility_methodology.html.j2",
    figures=_figures,
    split_reference=True,
    settings=(
        Setting(
            "n_max_utility",
            N_MAX_UTILITY,
            "cap on the rows each utility model learns from and is scored on (synthetic: twice it)",
            (Interval(int, 1, None),),
        ),
    ),
    headlines=(
        HeadlineSpec(
            name="tstr",
            label="TSTR (0-100)",
            unit="score",
            higher_is_better=True,
            concern="utility",
            meaning="How well models trained on the synthetic data predict the target on real data.",
            read=_tstr,
            rule=BelowReference(),
            bar=False,
            assumes_unseen_holdout=True,
        ),
        HeadlineSpec(
            name="utility",
            label="Utility (TSTR relative to real data)",
            unit="score",
            higher_is_better=True,
            concern="utility",
            meaning=(
                "How much of the real data's predictive power above chance the synthetic data keeps "
                "(100: all of it; 0: no better than chance)."
            ),
            read=_relative,
            rule=BelowReference(),
            reference_kind="none",
            assumes_unseen_holdout=True,
        ),
        HeadlineSpec(
            name="sra",
            label="SRA (0-100)",
            unit="score",
            higher_is_better=True,
            concern="utility",
            meaning="Whether synthetic data ranks model families as real data does (100: same order).",
            read=_sra,
            rule=BelowReference(),
            reference_kind="none",
            bar=False,
            assumes_unseen_holdout=True,
        ),
    ),
    raise_alarms=_raise_alarms,
    alarms=(
        Alarm("tstr_at_chance", "utility"),
        Alarm("synthetic_target_unlearnable", "utility"),
        Alarm("utility_flattered_by_copies", "utility"),
        Alarm("utility_not_measured", "utility"),
    ),
)
