"""The detection test: whether a classifier can tell synthetic rows from real ones."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from reportgen.metrics.detection import DetectionResult, compute_detection
from reportgen.metrics.registry import Alarm, HeadlineSpec, Reading, Section
from reportgen.params import Interval
from reportgen.results import Finding, ReportResults
from reportgen.rules import BelowReference
from reportgen.settings import N_MAX_DETECTION, Setting


def _detection(r: DetectionResult) -> Reading:
    return Reading(value=r.score, reference=r.reference_score, tables=(r.weakest_table,))


def _raise_alarms(
    detection: DetectionResult, results: ReportResults, raised: Sequence[Finding]
) -> list[Finding]:
    return _detection_alarms(detection)


def _detection_alarms(detection: Any) -> list[Finding]:
    """Detection's copying alarms: an AUROC wholly below chance, or repeats above the reference.

    Both mean synthetic rows repeat training rows, never a pass. Below chance is a warning when far
    below (``far_below_chance``), a note when only the 95% interval lies below 0.5, as honest
    data's does now and then.
    """
    if detection is None:
        return []
    alarms = []
    for t in detection.tables:
        s = t.synthetic
        if s.below_chance:
            alarms.append(_below_chance_finding(t.table, s))
        if t.copies_suspected:
            alarms.append(
                Finding(
                    severity="warning",
                    code="detection_repeats_training",
                    table=t.table,
                    message=(
                        f"{s.repeats:.1%} of the synthetic rows in the detection sample equal a training "
                        f"row on every column, against {t.repeats_reference:.1%} of "
                        f"{_repeats_reference_rows(t)}: the generator repeats training rows."
                    ),
                )
            )
    return alarms


def _below_chance_finding(table: str, s: Any) -> Finding:
    interval = f"{s.auc:.3f} [{s.low:.3f}, {s.high:.3f}]"
    auc = f"the detection classifier's out-of-fold AUROC is {interval}, below chance"
    if s.far_below_chance:
        return Finding(
            severity="warning",
            code="detection_below_chance",
            table=table,
            message=(
                f"Synthetic rows repeat (or nearly repeat) training rows: {auc}, because a model that "
                "learned a training row takes its synthetic twin for real."
            ),
        )
    return Finding(
        severity="info",
        code="detection_below_chance",
        table=table,
        message=(
            f"Synthetic rows may repeat training rows: {auc}, as when a model that learned a training "
            "row takes its synthetic twin for real, though honest data falls this low now and then."
        ),
    )


def _repeats_reference_rows(table: Any) -> str:
    """Which real rows the synthetic repeats are compared with."""
    if table.holdout is not None:
        return "holdout rows"
    return "training rows (each against the others; no holdout was given)"


SECTION = Section(
    name="detection",
    title="Fidelity: detection test",
    order=35,
    result_type=DetectionResult,
    compute=compute_detection,
    template="sections/detection.html.j2",
    methodology="sections/detection_methodology.html.j2",
    split_reference=True,
    settings=(
        Setting(
            "n_max_detection",
            N_MAX_DETECTION,
            "cap on the rows of each side of the detection test",
            (Interval(int, 1, None),),
        ),
    ),
    headlines=(
        HeadlineSpec(
            name="detection",
            label="Detection score",
            unit="score",
            higher_is_better=True,
            concern="fidelity",
            meaning=(
                "Whether a classifier can tell synthetic rows from real ones, in the table or view "
                "where it does best (100: no better than a coin toss; 0: every synthetic row recognised; "
                "an AUROC below chance scores as low as one as far above it)."
            ),
            read=_detection,
            rule=BelowReference(),
        ),
    ),
    raise_alarms=_raise_alarms,
    alarms=(Alarm("detection_below_chance", "privacy"), Alarm("detection_repeats_training", "privacy")),
)
