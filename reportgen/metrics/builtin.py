"""Registers the sections that ship with reportgen, through the same registry plugins use."""

from __future__ import annotations

from matplotlib.figure import Figure

from reportgen.metrics.alpha_beta import AlphaBetaResult, compute_alpha_beta
from reportgen.metrics.association import AssociationResult, compute_association
from reportgen.metrics.correlation import CorrelationResult, compute_correlation
from reportgen.metrics.detection import DetectionResult, compute_detection
from reportgen.metrics.distributions import DistributionsResult, compute_distributions
from reportgen.metrics.membership import MembershipResult, compute_membership_section
from reportgen.metrics.overview import OverviewResult, compute_overview
from reportgen.metrics.privacy import PrivacyResult, compute_privacy
from reportgen.metrics.privacy_risks import PrivacyRisksResult, compute_privacy_risks_section
from reportgen.metrics.registry import Section, register
from reportgen.metrics.relational import RelationalResult, compute_relational
from reportgen.metrics.similarity import SimilarityResult, compute_similarity
from reportgen.metrics.utility import UtilityResult, compute_utility
from reportgen.render.alpha_beta_figures import alpha_beta_figure
from reportgen.render.correlation_figures import correlation_figure
from reportgen.render.distribution_figures import column_figure, pair_figure
from reportgen.render.membership_figures import roc_figure
from reportgen.render.privacy_figures import privacy_figure
from reportgen.render.relational_figures import cardinality_figures
from reportgen.render.schema_diagram import schema_figure
from reportgen.render.similarity_figures import similarity_heatmap
from reportgen.render.utility_figures import utility_figure
from reportgen.render.wide import worst_shown
from reportgen.results import SectionResult


def _overview_figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, OverviewResult)
    return {"schema": schema_figure(result)} if len(result.tables) > 1 else {}


def _similarity_figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, SimilarityResult)
    return {f"matrix:{t.table}": similarity_heatmap(t) for t in result.tables if len(t.columns) > 1}


def _distribution_figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, DistributionsResult)
    figures: dict[str, Figure] = {}
    for ti, t in enumerate(result.tables):  # keys by position: names may hold any character
        figures |= {f"column:{ti}:{ci}": column_figure(t.columns[ci]) for ci in worst_shown(t.columns)}
        figures |= {f"pair:{ti}:{pi}": pair_figure(p) for pi, p in enumerate(t.pairs)}
    return figures


OVERVIEW = register(
    Section(
        name="overview",
        title="The data",
        order=10,
        result_type=OverviewResult,
        compute=compute_overview,
        template="sections/overview.html.j2",
        figures=_overview_figures,
    )
)

SIMILARITY = register(
    Section(
        name="similarity",
        title="Fidelity: column and pair similarity",
        order=20,
        result_type=SimilarityResult,
        compute=compute_similarity,
        template="sections/similarity.html.j2",
        figures=_similarity_figures,
        split_reference=True,
    )
)

DISTRIBUTIONS = register(
    Section(
        name="distributions",
        title="Fidelity: distributions",
        order=25,
        result_type=DistributionsResult,
        compute=compute_distributions,
        template="sections/distributions.html.j2",
        figures=_distribution_figures,
        split_reference=True,
    )
)


def _relational_figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, RelationalResult)
    return cardinality_figures(result)


RELATIONAL = register(
    Section(
        name="relational",
        title="Fidelity: relational structure",
        order=40,
        result_type=RelationalResult,
        compute=compute_relational,
        template="sections/relational.html.j2",
        figures=_relational_figures,
        split_reference=True,
    )
)


def _correlation_figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, CorrelationResult)
    return {f"phik:{ti}": correlation_figure(t) for ti, t in enumerate(result.tables)}  # keys by position


CORRELATION = register(
    Section(
        name="correlation",
        title="Fidelity: correlations (phik)",
        order=30,
        result_type=CorrelationResult,
        compute=compute_correlation,
        template="sections/correlation.html.j2",
        figures=_correlation_figures,
        split_reference=True,
    )
)

ASSOCIATION = register(
    Section(
        name="association",
        title="Fidelity: association retained",
        order=32,
        result_type=AssociationResult,
        compute=compute_association,
        template="sections/association.html.j2",
        split_reference=True,
    )
)

DETECTION = register(
    Section(
        name="detection",
        title="Fidelity: detection test",
        order=35,
        result_type=DetectionResult,
        compute=compute_detection,
        template="sections/detection.html.j2",
        split_reference=True,
    )
)


def _membership_figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, MembershipResult)
    return {f"roc:{i}": roc_figure(t) for i, t in enumerate(result.tables)}


MEMBERSHIP = register(
    Section(
        name="membership",
        title="Privacy: membership inference attacks",
        order=45,
        result_type=MembershipResult,
        compute=compute_membership_section,
        template="sections/membership.html.j2",
        figures=_membership_figures,
    )
)


PRIVACY_RISKS = register(
    Section(
        name="privacy_risks",
        title="Privacy: singling out, linkability and inference attacks",
        order=47,
        result_type=PrivacyRisksResult,
        compute=compute_privacy_risks_section,
        template="sections/privacy_risks.html.j2",
    )
)


def _privacy_figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, PrivacyResult)
    return {f"privacy:{i}": privacy_figure(t) for i, t in enumerate(result.tables)}


PRIVACY = register(
    Section(
        name="privacy",
        title="Privacy: distance-based checks (proxies)",
        order=50,
        result_type=PrivacyResult,
        compute=compute_privacy,
        template="sections/privacy.html.j2",
        figures=_privacy_figures,
    )
)


def _alpha_beta_figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, AlphaBetaResult)
    return {f"alpha_beta:{i}": alpha_beta_figure(t) for i, t in enumerate(result.tables)}


ALPHA_BETA = register(
    Section(
        name="alpha_beta",
        title="Sample-level fidelity and authenticity (α-precision, β-recall)",  # noqa: RUF001
        order=55,
        result_type=AlphaBetaResult,
        compute=compute_alpha_beta,
        template="sections/alpha_beta.html.j2",
        figures=_alpha_beta_figures,
        beside=True,  # the one-class networks train on one core
    )
)


def _utility_figures(result: SectionResult) -> dict[str, Figure]:
    assert isinstance(result, UtilityResult)
    figures = {f"utility:{i}": utility_figure(t) for i, t in enumerate(result.tables)}
    return {key: fig for key, fig in figures.items() if fig is not None}


UTILITY = register(
    Section(
        name="utility",
        title="Utility: models trained on synthetic data",
        order=60,
        result_type=UtilityResult,
        compute=compute_utility,
        template="sections/utility.html.j2",
        figures=_utility_figures,
        split_reference=True,
    )
)
