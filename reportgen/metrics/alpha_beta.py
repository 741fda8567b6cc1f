"""The sample-level section: alpha-precision, beta-recall and authenticity (METRICS.md section 8).

Per table (keys dropped) and, for a parent table with children, per entity-level view, as in the
privacy section: a one-class network is trained on the training rows of the distance space
(``reportgen.privacy.one_class``), and the synthetic rows, then the holdout rows in their place
(the reference level a perfect generator reaches with samples of these sizes), are measured in
its output space (``reportgen.privacy.alpha_beta``).

The result keeps, per table, the per-row flags of the synthetic rows it measured (packed, see
``RowFlags``), the two curves of both sets and the network's loss curves; never a real record.
``reportgen.auditing.audit`` runs the same per-table code on every synthetic row to curate them.

The dataset's headline is the weakest table for each of the three numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, Field

from reportgen.context import NO_COMPARED_COLUMNS, DistanceView, EvaluationContext, ViewKind
from reportgen.metrics.registry import MetricNotComputed
from reportgen.privacy.alpha_beta import (
    K_RECALL,
    RealReference,
    RowFlags,
    RowScores,
    SampleScores,
    row_scores,
    sample_scores,
    subsample,
)
from reportgen.privacy.one_class import OneClassConfig, OneClassEmbedding, OneClassTraining, fit_one_class
from reportgen.privacy.one_class_process import fit_one_class_apart, worth_training_apart
from reportgen.results import SectionResult

MIN_TRAINING_ROWS = 50  # the 80/20 split leaves 10 validation rows
MIN_GENERATED_ROWS = 2 * K_RECALL  # beta-recall needs k-th nearest neighbours in m rows
REPORT_ALPHA = 0.95  # the support the report counts rows outside of (the audit's default alpha)


class TableAlphaBeta(BaseModel):
    """alpha-precision, beta-recall and authenticity of one table or entity view."""

    table: str = Field(description="Table name; entity views end with ' (entity)'.")
    view: ViewKind
    columns: list[str] = Field(description="Columns of the distance space.")
    rows: dict[str, int] = Field(description="Rows per role used (after the n_max caps).")
    recall_rows: int = Field(description="Rows m of each set behind beta-recall (the smallest set).")
    k: int = Field(description="k of the k-th nearest real neighbour in beta-recall.")
    synthetic: SampleScores
    holdout: SampleScores | None = Field(
        default=None, description="The same for the holdout rows (reference)."
    )
    alpha: float = Field(description="The alpha of the support the counts below refer to.")
    outside_support: int = Field(ge=0, description="Synthetic rows outside the alpha-support.")
    not_authentic: int = Field(ge=0, description="Synthetic rows that are not authentic.")
    flagged: int = Field(ge=0, description="Synthetic rows outside the alpha-support or not authentic.")
    holdout_flagged: float | None = Field(
        default=None, ge=0, le=1, description="Share of holdout rows flagged the same way (reference)."
    )
    training: OneClassTraining
    flags: RowFlags


class AlphaBetaResult(SectionResult):
    """The sample-level metrics of every table and entity view, and the weakest of each."""

    tables: list[TableAlphaBeta]
    ip_alpha: float = Field(le=1, description="Lowest IP_alpha of any table or view.")
    ir_beta: float = Field(le=1, description="Lowest IR_beta of any table or view.")
    authenticity: float = Field(ge=0, le=1, description="Lowest authenticity of any table or view.")
    weakest: dict[str, str] = Field(description="Table or view of each headline number.")
    skipped: dict[str, str] = Field(default_factory=dict, description="Tables not measured, and why.")


def compute_alpha_beta(ctx: EvaluationContext) -> AlphaBetaResult:
    """The sample-level section of the report."""
    measured: list[TableAlphaBeta] = []
    skipped: dict[str, str] = {}
    for name, rows in ctx.distance_views().items():
        ctx.progress(f"{name}: one-class network and curves")
        outcome = measure(ctx, name, rows)
        if isinstance(outcome, str):
            skipped[name] = outcome
        else:
            measured.append(outcome.result)
    if not measured:
        raise MetricNotComputed("; ".join(f"{name}: {reason}" for name, reason in skipped.items()))
    lowest = {}
    for metric in ("ip_alpha", "ir_beta", "authenticity"):
        values = [(getattr(t.synthetic, metric), t.table) for t in measured]
        lowest[metric] = min(values)
    return AlphaBetaResult(
        section="alpha_beta",
        tables=measured,
        ip_alpha=lowest["ip_alpha"][0],
        ir_beta=lowest["ir_beta"][0],
        authenticity=lowest["authenticity"][0],
        weakest={metric: table for metric, (_, table) in lowest.items()},
        skipped=skipped,
    )


@dataclass(frozen=True)
class Measured:
    """A measured view: its result, and what auditing needs to go on (the network, row scores)."""

    result: TableAlphaBeta
    embedding: OneClassEmbedding
    real: RealReference
    synthetic: RowScores


def measure(
    ctx: EvaluationContext,
    name: str,
    view: DistanceView,
    *,
    config: OneClassConfig | None = None,
    alpha: float = REPORT_ALPHA,
) -> Measured | str:
    """Train the network on one view's training rows and measure its synthetic (and holdout) rows.

    Returns the reason instead when the view cannot be measured.
    """
    rows = view.rows
    if (reason := skip_reason(view)) is not None:
        return reason
    apart = ctx.beside_others and worth_training_apart(len(rows.train))
    fit = fit_one_class_apart if apart else fit_one_class  # the same network either way
    stream = f"alpha_beta:network:{name}"
    embedding = ctx.real_side.result(  # trained on real rows alone: reused where they are the same
        "alpha_beta:one-class network",
        [rows.train, repr(config), ctx.seed_for(stream)],
        lambda: fit(rows.train, ctx.rng(stream), config),
    )
    sets = {"synthetic": embedding.transform(rows.synth)}
    if rows.test is not None and len(rows.test) >= MIN_GENERATED_ROWS:
        sets["holdout"] = embedding.transform(rows.test)
    m = min(len(rows.train), *(len(x) for x in sets.values()))
    rng = ctx.rng(f"alpha_beta:recall:{name}")
    real = RealReference.of(embedding.transform(rows.train), embedding.centre, m, rng)
    per_row = {key: row_scores(real, x) for key, x in sets.items()}
    scores = {key: sample_scores(real, per_row[key], subsample(x, m, rng)) for key, x in sets.items()}
    radius = support_radius(real, alpha)
    synthetic = per_row["synthetic"]
    outside = ~synthetic.inside(radius)
    holdout_flagged = None
    if "holdout" in per_row:
        h = per_row["holdout"]
        holdout_flagged = float((~h.inside(radius) | ~h.authentic).mean())
    result = TableAlphaBeta(
        table=name,
        view=view.view,
        columns=view.columns,
        rows={"training": len(rows.train), "synthetic": len(rows.synth)}
        | ({"holdout": len(sets["holdout"])} if "holdout" in sets else {}),
        recall_rows=m,
        k=K_RECALL,
        synthetic=scores["synthetic"],
        holdout=scores.get("holdout"),
        alpha=alpha,
        outside_support=int(outside.sum()),
        not_authentic=int((~synthetic.authentic).sum()),
        flagged=int((outside | ~synthetic.authentic).sum()),
        holdout_flagged=holdout_flagged,
        training=embedding.training,
        flags=RowFlags.encode(synthetic.support_level, synthetic.authentic),
    )
    return Measured(result, embedding, real, synthetic)


def support_radius(real: RealReference, alpha: float) -> float:
    """``r_alpha``: the alpha-quantile of the training rows' distances to the centre."""
    return float(np.quantile(real.radii, alpha))


def skip_reason(view: DistanceView) -> str | None:
    """Why a view cannot be measured, or None when it can."""
    if view.space.n_features == 0:
        return NO_COMPARED_COLUMNS
    n_train, n_synth = len(view.rows.train), len(view.rows.synth)
    if n_train < MIN_TRAINING_ROWS or n_synth < MIN_GENERATED_ROWS:
        return (
            f"too few rows ({n_train:,} training, {n_synth:,} synthetic; the one-class network needs "
            f"at least {MIN_TRAINING_ROWS} training rows and beta-recall {MIN_GENERATED_ROWS} synthetic rows)"
        )
    return None
