"""The detection test: whether a classifier can tell synthetic rows from real ones."""

from __future__ import annotations

from reportgen.metrics.detection import DetectionResult, compute_detection
from reportgen.metrics.registry import Alarm, HeadlineSpec, Reading, Section
from reportgen.params import Interval
from reportgen.rules import BelowReference
from reportgen.settings import N_MAX_DETECTION, Setting


def _detection(r: DetectionResult) -> Reading:
    return Reading(value=r.score, reference=r.reference_score, tables=(r.weakest_table,))


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
    alarms=(Alarm("detection_below_chance", "privacy"), Alarm("detection_repeats_training", "privacy")),
)
