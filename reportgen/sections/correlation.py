"""Correlations: how well the associations between columns (phik) are kept."""

from __future__ import annotations

from matplotlib.figure import Figure

from reportgen.metrics.correlation import CorrelationResult, compute_correlation
from reportgen.metrics.registry import HeadlineSpec, Reading, Section
from reportgen.params import Interval
from reportgen.render.correlation_figures import correlation_figure
from reportgen.results import SectionResult
from reportgen.rules import BelowReference
from reportgen.settings import N_MAX_PHIK, Setting


def _figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, CorrelationResult)
    return {f"phik:{ti}": correlation_figure(t) for ti, t in enumerate(result.tables)}  # keys by position


def _correlation(r: CorrelationResult) -> Reading:
    return Reading.percent(r.similarity, r.reference_similarity, tuple(t.table for t in r.tables))


SECTION = Section(
    name="correlation",
    title="Fidelity: correlations (phik)",
    order=30,
    result_type=CorrelationResult,
    compute=compute_correlation,
    template="sections/correlation.html.j2",
    methodology="sections/correlation_methodology.html.j2",
    figures=_figures,
    split_reference=True,
    settings=(
        Setting(
            "n_max_phik",
            N_MAX_PHIK,
            "cap on the rows of each input used for the phik matrices (a seeded uniform sample)",
            (Interval(int, 1, None),),
        ),
    ),
    headlines=(
        HeadlineSpec(
            name="correlation",
            label="Correlation similarity",
            unit="score",
            higher_is_better=True,
            concern="fidelity",
            meaning="How well the associations between columns (phik) are kept (100: exactly).",
            read=_correlation,
            rule=BelowReference(),
        ),
    ),
)
