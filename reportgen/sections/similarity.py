"""Column and pair similarity: how closely each column and each pair of columns is reproduced."""

from __future__ import annotations

from matplotlib.figure import Figure

from reportgen.metrics.registry import HeadlineSpec, Reading, Section
from reportgen.metrics.similarity import SimilarityResult, compute_similarity
from reportgen.render.similarity_figures import similarity_heatmap
from reportgen.results import SectionResult
from reportgen.rules import BelowReference


def _figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, SimilarityResult)
    return {f"matrix:{t.table}": similarity_heatmap(t) for t in result.tables if len(t.columns) > 1}


def _similarity(r: SimilarityResult) -> Reading:
    return Reading(value=r.score, reference=r.reference_score, tables=tuple(t.table for t in r.tables))


SECTION = Section(
    name="similarity",
    title="Fidelity: column and pair similarity",
    order=20,
    result_type=SimilarityResult,
    compute=compute_similarity,
    template="sections/similarity.html.j2",
    methodology="sections/similarity_methodology.html.j2",
    figures=_figures,
    split_reference=True,
    headlines=(
        HeadlineSpec(
            name="similarity",
            label="Similarity",
            unit="score",
            higher_is_better=True,
            concern="fidelity",
            meaning="How closely each column and each pair of columns is reproduced (100: identically).",
            read=_similarity,
            rule=BelowReference(),
        ),
    ),
)
