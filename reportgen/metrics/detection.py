"""Detection: can a classifier tell synthetic rows from real ones? (METRICS.md 12).

A classifier two-sample test, per table and per entity view (a parent row with aggregates of its
children, ``reportgen.data.entities``): a gradient-boosted classifier learns to tell training rows
``T`` from synthetic rows ``S``, and its out-of-fold AUROC says how well it can. Rows from one
distribution cannot be told apart (AUROC about 0.5), whatever each column's marginal looks like, so
a generator that samples columns independently is caught by the joint distribution. The same test
with holdout rows ``H`` in place of ``S`` is the reference. Detection score
``= 100 * (1 - 2 * max(0, AUROC - 0.5))``: 100 when the sets cannot be told apart, 0 when every
synthetic row is recognised.

Choices, stated in the report:

- Equal sizes: ``n = min(|T|, |S|, n_max_detection)`` rows of each side (uniform, seeded), and
  likewise for ``H``, so the classifier's prior is one half and 0.5 means chance.
- The classifier is scikit-learn's ``HistGradientBoostingClassifier`` with its defaults (100
  boosting rounds, learning rate 0.1, early stopping on a 10% validation share above 10,000 fitted
  rows), seeded; numbers and datetimes (UTC seconds) as values, missing values handled natively;
  categories as native categories, the ``MAX_LEVELS`` most frequent training levels each with
  their own code, the rest pooled, and missing as a level of its own. Key, identifier and free-text
  columns are never features.
- ``N_FOLDS``-fold stratified cross-validation; every row is scored once by the model that did not
  see it. The AUROC is the mean of the folds' AUROCs (pooling the scores of five models mixes their
  scales); its 95% interval comes from each fold's DeLong variance, widened by the Nadeau-Bengio
  factor for the folds' shared training rows (``fold_auc``). No resampling: cheap and
  deterministic. Measured at chance (generated data, 500 rows a side, 60 draws): the plain
  interval held 0.5 in 83-90% of draws, the widened one in 97-100%.
- The columns the classifier leans on most: for each column, the fall of the out-of-fold AUROC
  when that column alone is shuffled among the held-out rows of each fold (permutation
  importance, one seeded shuffle, on at most ``N_IMPORTANCE_ROWS`` held-out rows; names only,
  never values). Computed only when the interval lies above 0.5: otherwise there is nothing to
  explain.
- Fits run one after another on one OpenMP thread: on adult
  (10,000 rows a side, two cores shared with other work) the five fits of a comparison took 0.5
  to 2 s on one thread and 3 to 19 s on two, which spin against the other work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field
from scipy.stats import norm, rankdata
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits

from reportgen.binning import as_numbers, fit_bins
from reportgen.context import ENTITY_SUFFIX, EvaluationContext
from reportgen.data.entities import entity_tables
from reportgen.data.schema import ColumnKind
from reportgen.data.validation import SYNTH, TEST, TRAIN
from reportgen.metrics.registry import measured_and_skipped
from reportgen.results import SectionResult

N_FOLDS = 5
MIN_ROWS = 50  # rows a side; fewer leave 10 per fold, too few to learn or to score
MAX_LEVELS = 253  # native categories take codes 0..254: the levels, "other" and missing
N_LEADING = 5
N_IMPORTANCE_ROWS = 2_000  # held-out rows for the importances: on adult 0.6 s instead of 2.7 s with all
CONFIDENCE = 0.95


class AucEstimate(BaseModel):
    """One two-sample test: the out-of-fold AUROC with its interval, and its detection score."""

    auc: float = Field(ge=0, le=1, description="Out-of-fold AUROC of telling training rows from the others.")
    low: float = Field(ge=0, le=1, description="Lower end of the 95% DeLong interval.")
    high: float = Field(ge=0, le=1, description="Upper end of the 95% DeLong interval.")
    score: float = Field(ge=0, le=100, description="100 * (1 - 2 * max(0, AUROC - 0.5)).")
    rows: int = Field(ge=1, description="Rows of each side.")


class LeadingColumn(BaseModel):
    """A column the classifier leans on, by name, and how much the AUROC falls without it."""

    column: str
    auc_drop: float = Field(description="Out-of-fold AUROC minus the AUROC with this column shuffled.")


class TableDetection(BaseModel):
    """The detection test of one table or entity view, and its holdout reference."""

    table: str = Field(description="Table name; entity views end with ' (entity)'.")
    view: Literal["table", "entity"]
    columns: list[str] = Field(description="The classifier's features.")
    synthetic: AucEstimate
    holdout: AucEstimate | None = None
    leading: list[LeadingColumn] = Field(default_factory=list, description="Columns leaned on most.")


class DetectionResult(SectionResult):
    """Detection per table and entity view; the headline is the most detectable of them."""

    tables: list[TableDetection]
    score: float = Field(ge=0, le=100, description="Lowest detection score of any table or view.")
    reference_score: float | None = Field(
        default=None, ge=0, le=100, description="That view's holdout score."
    )
    weakest_table: str
    skipped: dict[str, str] = Field(default_factory=dict, description="Tables not measured, and why.")
    n_max: int = Field(description="Cap on the rows of each side (n_max_detection).")
    folds: int


@dataclass(frozen=True)
class _View:
    kind: Literal["table", "entity"]
    frames: dict[str, pd.DataFrame]
    kinds: dict[str, ColumnKind]


@dataclass(frozen=True)
class _Fit:
    """One comparison's features, labels, folds, fitted models and out-of-fold scores."""

    x: np.ndarray
    y: np.ndarray
    folds: list[np.ndarray]
    models: list[HistGradientBoostingClassifier]
    scores: np.ndarray


def delong(labels: np.ndarray, scores: np.ndarray) -> tuple[float, float]:
    """AUROC of ``scores`` for ``labels`` (1 = positive) and DeLong's estimate of its variance.

    DeLong, DeLong and Clarke-Pearson (Biometrics, 1988), with midranks for ties: the variance
    comes from the spread of each positive's share of negatives beaten and of each negative's
    share of positives above it. Needs at least two rows of each label.
    """
    positive, negative = scores[labels == 1], scores[labels == 0]
    m, n = len(positive), len(negative)
    ranks = rankdata(np.concatenate([positive, negative]))
    wins_positive = (ranks[:m] - rankdata(positive)) / n
    wins_negative = 1.0 - (ranks[m:] - rankdata(negative)) / m
    variance = wins_positive.var(ddof=1) / m + wins_negative.var(ddof=1) / n
    return float(wins_positive.mean()), float(variance)


def fold_auc(labels: np.ndarray, scores: np.ndarray, folds: list[np.ndarray]) -> tuple[float, float, float]:
    """Mean of the folds' AUROCs and its 95% interval (DeLong per fold, Nadeau-Bengio correction).

    Each fold's rows are scored by the one model that did not see them, and DeLong's variance
    holds for that fold. The folds' models share most of their training rows, so their AUROCs are
    positively correlated and the variance of the mean is more than the mean variance over ``K``:
    following Nadeau and Bengio (Machine Learning, 2003) it is taken as the mean fold variance
    times ``1/K + n_test/n_train`` (``= 1/K + 1/(K - 1)`` for ``K`` equal folds), which is on the
    safe side.
    """
    parts = [delong(labels[rows], scores[rows]) for rows in folds]
    k = len(parts)
    auc = float(np.mean([a for a, _ in parts]))
    variance = float(np.mean([v for _, v in parts])) * (1 / k + 1 / (k - 1))
    half = float(norm.ppf(0.5 + CONFIDENCE / 2)) * float(np.sqrt(variance))
    return auc, max(0.0, auc - half), min(1.0, auc + half)


def detection_score(auc: float) -> float:
    """``100 * (1 - 2 * max(0, auc - 0.5))``: 100 at chance or below, 0 when every row is told apart."""
    return 100.0 * (1.0 - 2.0 * max(0.0, auc - 0.5))


def compute_detection(ctx: EvaluationContext) -> DetectionResult:
    """The detection section of the report."""
    outcomes = {name: _view_detection(ctx, name, view) for name, view in _views(ctx).items()}
    tables, skipped = measured_and_skipped(outcomes)
    weakest = min(tables, key=lambda t: (t.synthetic.score, t.table))
    return DetectionResult(
        section="detection",
        tables=tables,
        score=weakest.synthetic.score,
        reference_score=None if weakest.holdout is None else weakest.holdout.score,
        weakest_table=weakest.table,
        skipped=skipped,
        n_max=ctx.settings.n_max_detection,
        folds=N_FOLDS,
    )


def _views(ctx: EvaluationContext) -> dict[str, _View]:
    """Every table (its compared columns), then every entity view."""
    views = {}
    for name in ctx.table_names:
        prep = ctx.table(name)
        frames = {role: f for role in (TRAIN, TEST, SYNTH) if (f := prep.frame(role)) is not None}
        views[name] = _View("table", frames, {c: prep.schema.kinds[c] for c in prep.compared_columns})
    for parent in entity_tables(ctx.train.schema):
        entity = ctx.entity(parent)
        views[parent + ENTITY_SUFFIX] = _View("entity", dict(entity.frames), dict(entity.kinds))
    return views


def _view_detection(ctx: EvaluationContext, name: str, view: _View) -> TableDetection | str:
    ctx.progress(f"{name}: classifier two-sample test")
    if not view.kinds:
        return "no column to compare (only keys, identifiers or free text)"
    n_train, n_synth = len(view.frames[TRAIN]), len(view.frames[SYNTH])
    if min(n_train, n_synth) < MIN_ROWS:
        return f"too few rows ({n_train:,} training, {n_synth:,} synthetic; the test needs {MIN_ROWS} a side)"
    rng = ctx.rng(f"detection:{name}")
    with threadpool_limits(limits=1):
        fit = _fit(view, SYNTH, rng, ctx.settings.n_max_detection)
        synthetic = _estimate(fit)
        leading = _leading(fit, list(view.kinds), rng) if synthetic.low > 0.5 else []
        holdout = None
        if TEST in view.frames and len(view.frames[TEST]) >= MIN_ROWS:
            holdout = _estimate(
                _fit(view, TEST, ctx.rng(f"detection-reference:{name}"), ctx.settings.n_max_detection)
            )
    return TableDetection(
        table=name,
        view=view.kind,
        columns=list(view.kinds),
        synthetic=synthetic,
        holdout=holdout,
        leading=leading,
    )


def _fit(view: _View, role: str, rng: np.random.Generator, n_max: int) -> _Fit:
    """Training rows against ``role``'s rows, equal sizes, fitted and scored out of fold."""
    real, other = view.frames[TRAIN], view.frames[role]
    n = min(len(real), len(other), n_max)
    real, other = (_sample(frame, n, rng) for frame in (real, other))
    x, categorical = _features(real, other, view.kinds)
    y = np.concatenate([np.zeros(n), np.ones(n)])
    seed = int(rng.integers(2**31 - 1))
    splits = StratifiedKFold(N_FOLDS, shuffle=True, random_state=seed).split(x, y)
    folds, models, scores = [], [], np.empty(len(y))
    for fitted, held_out in splits:
        model = HistGradientBoostingClassifier(categorical_features=categorical, random_state=seed)
        model.fit(x[fitted], y[fitted])
        scores[held_out] = model.predict_proba(x[held_out])[:, 1]
        folds.append(held_out)
        models.append(model)
    return _Fit(x, y, folds, models, scores)


def _sample(frame: pd.DataFrame, n: int, rng: np.random.Generator) -> pd.DataFrame:
    if len(frame) <= n:
        return frame
    return frame.iloc[np.sort(rng.choice(len(frame), size=n, replace=False))]


def _features(
    real: pd.DataFrame, other: pd.DataFrame, kinds: dict[str, ColumnKind]
) -> tuple[np.ndarray, np.ndarray]:
    """Both sides as one float matrix (real rows first), and which columns are categories.

    Numbers as values (NaN for missing); categories as codes of the real side's levels.
    """
    columns, categorical = [], []
    for column, kind in kinds.items():
        if kind.is_ordered:
            columns.append(np.concatenate([as_numbers(real[column]), as_numbers(other[column])]))
        else:
            bins = fit_bins(column, kind, real[column], max_levels=MAX_LEVELS)
            columns.append(
                np.concatenate([bins.codes(real[column]), bins.codes(other[column])]).astype(float)
            )
        categorical.append(not kind.is_ordered)
    return np.column_stack(columns), np.array(categorical)


def _estimate(fit: _Fit) -> AucEstimate:
    auc, low, high = fold_auc(fit.y, fit.scores, fit.folds)
    return AucEstimate(auc=auc, low=low, high=high, score=detection_score(auc), rows=len(fit.y) // 2)


def _leading(fit: _Fit, columns: list[str], rng: np.random.Generator) -> list[LeadingColumn]:
    """The columns whose shuffling lowers the out-of-fold AUROC most (permutation importance).

    On a seeded sample of at most ``N_IMPORTANCE_ROWS`` held-out rows (the same rows with and
    without the shuffle, so the comparison is paired); predictions are most of the cost.
    """
    per_fold = max(1, N_IMPORTANCE_ROWS // len(fit.folds))
    folds = [np.sort(rng.choice(rows, min(len(rows), per_fold), replace=False)) for rows in fit.folds]
    auc = fold_auc(fit.y, fit.scores, folds)[0]
    drops = {}
    for j, column in enumerate(columns):
        scores = fit.scores.copy()
        for model, rows in zip(fit.models, folds, strict=True):
            x = fit.x[rows]
            x[:, j] = rng.permutation(x[:, j])
            scores[rows] = model.predict_proba(x)[:, 1]
        drops[column] = auc - fold_auc(fit.y, scores, folds)[0]
    ranked = sorted(drops, key=lambda c: (-drops[c], c))
    return [LeadingColumn(column=c, auc_drop=round(drops[c], 6)) for c in ranked[:N_LEADING] if drops[c] > 0]
