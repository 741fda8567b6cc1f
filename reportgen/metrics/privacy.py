"""The privacy section: 1-NN distances, proximity ratios and the privacy score, maximum similarity.

METRICS.md sections 6, 7 and 10, per table (keys dropped) and, for a parent table with children, per
entity-level view (each parent row with aggregates of its children), so that copying a whole
customer with their orders shows even when no single table does. With a holdout, each table and
view also gets the holdout check (``reportgen.privacy.holdout_check``): whether the synthetic data
repeats holdout rows beyond chance, that is, whether the generator appears to have seen the holdout.

``compute_privacy_stats`` is the public function behind the section: ``report()`` calls the same
per-table code with the same seeded streams, so the two agree on the same inputs and seed.

The dataset's headline is the weakest table: the lowest privacy score, the highest risk and the
highest share of exact copies over every table and entity view.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field

from reportgen.context import NO_COMPARED_COLUMNS, DistanceView, EvaluationContext, ViewKind
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.metrics.registry import measured_and_skipped
from reportgen.privacy.gower import GowerSpace, MaxSimilarityStats, max_similarity_stats
from reportgen.privacy.holdout_check import HoldoutCheck, HoldoutOverlap, holdout_check, holdout_overlap
from reportgen.privacy.neighbour_lists import SubsetNeighbours
from reportgen.privacy.proximity import (
    NearestNeighbourDistances,
    PrivacyStats,
    ProximitySearches,
    nearest_neighbour_distances,
    proximity_stats,
)
from reportgen.results import SectionResult

MIN_HALF = 50  # rows in each half of the training data; fewer make the ratios mere noise


class TablePrivacy(BaseModel):
    """The privacy statistics of one table or one entity-level view."""

    table: str = Field(description="Table name; entity views end with ' (entity)'.")
    view: ViewKind
    columns: list[str] = Field(description="Columns of the distance space.")
    rows: dict[str, int] = Field(description="Rows per role used (after the n_max caps).")
    distances: NearestNeighbourDistances
    proximity: PrivacyStats | None = Field(
        default=None, description="The proximity ratios; None when the table is too small for them."
    )
    proximity_reason: str | None = Field(default=None, description="Why the proximity ratios are absent.")
    max_similarity: MaxSimilarityStats | None = None
    holdout_check: HoldoutCheck | None = Field(
        default=None, description="Holdout rows the synthetic data repeats, against chance (needs a holdout)."
    )
    holdout_overlap: HoldoutOverlap | None = Field(
        default=None, description="Holdout rows equal to a training row, against chance (needs a holdout)."
    )


class PrivacyResult(SectionResult):
    """Privacy statistics of every table and entity view, and the weakest of them."""

    tables: list[TablePrivacy]
    privacy_score: float | None = Field(
        default=None,
        ge=0,
        le=100,
        description="Lowest privacy score of any table or view (None: none had one).",
    )
    privacy_score_reference: float | None = Field(
        default=None, ge=0, le=100, description="The weakest table's score with holdout rows as 'synthetic'."
    )
    privacy_score_std: float | None = Field(
        default=None, ge=0, description="Its standard deviation over repeats."
    )
    risk: float | None = Field(
        default=None, ge=0, le=1, description="Highest share of training rows at risk."
    )
    exact_copies: float = Field(ge=0, le=1, description="Highest share of synthetic rows copied exactly.")
    exact_copies_reference: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="The holdout's share of rows equal to a training row, same table.",
    )
    weakest_table: str | None = None
    exact_copies_table: str | None = Field(
        default=None, description="The table (or view) the exact-copies headline comes from."
    )
    copied_lookup_tables: list[str] = Field(
        default_factory=list,
        description="Lookup tables the synthetic data copies whole: shown, not in the exact-copies headline.",
    )
    skipped: dict[str, str] = Field(default_factory=dict, description="Tables not measured, and why.")
    holdout_check: HoldoutCheck | None = Field(
        default=None,
        description="The holdout check of the table or view that repeats holdout rows most beyond chance.",
    )
    holdout_check_table: str | None = Field(default=None, description="The table (or view) it comes from.")


def compute_privacy(ctx: EvaluationContext) -> PrivacyResult:
    """The privacy section of the report.

    Tables too small for the proximity ratios still get the 1-NN distances and exact copies (a
    copy of a 60-row table shows); they are listed under ``skipped`` for the ratios.
    """
    measured, skipped = measured_and_skipped(privacy_outcomes(ctx))
    skipped |= {t.table: t.proximity_reason for t in measured if t.proximity_reason is not None}
    scored = {t.table: t.proximity for t in measured if t.proximity is not None}
    weakest = min(scored, key=lambda name: (scored[name].privacy_score, name), default=None)
    lookups = _copied_lookup_tables(ctx, measured)
    counted = [t for t in measured if t.table not in lookups] or measured
    most_copied = max(counted, key=lambda t: (t.distances.exact_copies, t.table))
    checked = [t for t in measured if t.holdout_check is not None]
    most_seen = max(checked, key=_seen_order, default=None)
    return PrivacyResult(
        section="privacy",
        tables=measured,
        privacy_score=None if weakest is None else scored[weakest].privacy_score,
        privacy_score_std=None if weakest is None else scored[weakest].privacy_score_std,
        privacy_score_reference=None if weakest is None else scored[weakest].reference_score,
        risk=max((p.risk for p in scored.values()), default=None),
        exact_copies=most_copied.distances.exact_copies,
        exact_copies_reference=most_copied.distances.exact_copies_holdout,
        exact_copies_table=most_copied.table,
        weakest_table=weakest,
        copied_lookup_tables=lookups,
        skipped=skipped,
        holdout_check=None if most_seen is None else most_seen.holdout_check,
        holdout_check_table=None if most_seen is None else most_seen.table,
    )


def _seen_order(t: TablePrivacy) -> tuple[bool, float, str]:
    """Flagged checks first, then the largest excess over the real sample's rate."""
    assert t.holdout_check is not None
    return t.holdout_check.seen, t.holdout_check.excess, t.table


def _copied_lookup_tables(ctx: EvaluationContext, measured: list[TablePrivacy]) -> list[str]:
    """Lookup tables that the synthetic data copies whole.

    Tables that only other tables refer to (no parent of their own) and whose synthetic rows are all
    copies of training rows: lists (genres, currencies) that generators pass through. Single-table
    data has none: a copied table there is a leak.
    """
    schema = ctx.train.schema
    return [
        t.table
        for t in measured
        if t.view == "table"
        and t.distances.exact_copies == 1.0
        and schema.children(t.table)
        and not schema.parents(t.table)
    ]


def privacy_outcomes(ctx: EvaluationContext, *, section: bool = True) -> dict[str, TablePrivacy | str]:
    """Every table's and entity view's privacy statistics, or why it cannot be measured.

    A measured view whose proximity ratios could not be computed (too few rows) says why in
    ``proximity_reason``; ``section`` is ``_view_privacy``'s.
    """
    return {
        name: _view_privacy(ctx, name, view, section=section) for name, view in ctx.distance_views().items()
    }


def _view_privacy(
    ctx: EvaluationContext, name: str, view: DistanceView, *, section: bool = True
) -> TablePrivacy | str:
    """The privacy statistics of one table or entity view, or why it cannot be measured.

    ``section=False`` leaves out what only the report's section shows (maximum similarity, the
    holdout check): ``compute_privacy_stats`` returns the proximity ratios alone.
    """
    if view.space.n_features == 0:
        return NO_COMPARED_COLUMNS
    rows = {TRAIN: view.rows.train, SYNTH: view.rows.synth, TEST: view.rows.test}
    sizes = {role: len(r) for role, r in rows.items() if r is not None}
    if min(sizes.values()) < 2:  # nearest neighbours within each side need two rows
        counts = ", ".join(f"{n:,} {role}" for role, n in sizes.items())
        return f"too few rows ({counts}) for any distance; each side needs at least 2"
    return _privacy(ctx, name, view, section)


def _privacy(ctx: EvaluationContext, name: str, view: DistanceView, section: bool) -> TablePrivacy:
    settings = ctx.settings
    rows = view.rows
    proximity, reason, searches = None, None, None
    if min(len(rows.train) // 2, len(rows.synth)) < MIN_HALF:
        reason = (
            f"too few rows for the proximity ratios ({len(rows.train):,} training, {len(rows.synth):,} "
            f"synthetic; they need at least {2 * MIN_HALF} and {MIN_HALF}); exact copies and distances "
            "are shown"
        )
    else:
        ctx.progress(f"{name}: proximity ratios, {settings.privacy_repeats} repeats")
        searches = ProximitySearches.plan(  # shared with the 1-NN curves
            rows, settings.privacy_repeats, real_lists=partial(_real_lists, ctx)
        )
        proximity = proximity_stats(
            rows,
            ctx.rng(f"privacy:{name}"),
            holdout_rng=ctx.rng(f"privacy-holdout:{name}"),
            q=settings.privacy_q,
            risk_confidence=settings.risk_confidence,
            n_repeats=settings.privacy_repeats,
            searches=searches,
        )
    searches = searches or ProximitySearches.direct(rows)
    frames = {role: f[view.columns] for role, f in view.frames.items()}
    max_similarity = None
    if section and min(len(rows.train), len(rows.synth)) >= 2:  # the test's minimum
        ctx.progress(f"{name}: maximum similarity")
        gower = GowerSpace.fit(view.frames[TRAIN], view.kinds, max_levels=settings.max_encoded_levels)
        max_similarity = max_similarity_stats(
            gower.transform(view.frames[TRAIN]),
            gower.transform(view.frames[SYNTH]),
            n=settings.n_max_gower,
            rng=ctx.rng(f"gower:{name}"),
        )
    return TablePrivacy(
        table=name,
        view=view.view,
        columns=view.columns,
        rows={role: len(x) for role, x in (("training", rows.train), ("synthetic", rows.synth))}
        | ({} if rows.test is None else {"holdout": len(rows.test)}),
        distances=_distances(ctx, name, view, frames, searches),
        proximity=proximity,
        proximity_reason=reason,
        max_similarity=max_similarity,
        holdout_check=_holdout_check(ctx, name, view, frames, searches) if section else None,
        holdout_overlap=_holdout_overlap(ctx, name, frames) if section else None,
    )


def _real_lists(
    ctx: EvaluationContext, query: np.ndarray, reference: np.ndarray | None, *, share: bool
) -> SubsetNeighbours:
    """The neighbour lists of real rows into real rows, reused where the same rows were searched."""
    return ctx.real_side.result(
        "privacy:real neighbour lists",
        [query, reference, share],
        lambda: SubsetNeighbours.prepare(query, reference, share=share),
    )


def _distances(
    ctx: EvaluationContext,
    name: str,
    view: DistanceView,
    frames: dict[str, pd.DataFrame],
    searches: ProximitySearches,
) -> NearestNeighbourDistances:
    ctx.progress(f"{name}: nearest-neighbour distances and exact copies")
    return nearest_neighbour_distances(view.rows, ctx.rng(f"nn:{name}"), frames=frames, searches=searches)


def _holdout_check(
    ctx: EvaluationContext,
    name: str,
    view: DistanceView,
    frames: dict[str, pd.DataFrame],
    searches: ProximitySearches,
) -> HoldoutCheck | None:
    """Whether the synthetic data repeats holdout rows beyond chance (None without a holdout)."""
    if view.rows.test is None:
        return None
    ctx.progress(f"{name}: holdout rows in the synthetic data")
    return holdout_check(view.rows, frames, ctx.rng(f"holdout-check:{name}"), searches)


def _holdout_overlap(
    ctx: EvaluationContext, name: str, frames: dict[str, pd.DataFrame]
) -> HoldoutOverlap | None:
    """Whether the holdout repeats training rows beyond chance (None without a holdout)."""
    if TEST not in frames:
        return None
    return holdout_overlap(frames[TEST], frames[TRAIN], ctx.rng(f"holdout-overlap:{name}"))
