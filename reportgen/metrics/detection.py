"""Detection: can a classifier tell synthetic rows from real ones? (METRICS.md 12).

A classifier two-sample test, per table and per entity view (a parent row with aggregates of its
children, ``reportgen.data.entities``): a gradient-boosted classifier learns to tell training rows
``T`` from synthetic rows ``S``, and its out-of-fold AUROC says how well it can. Rows from one
distribution cannot be told apart (AUROC about 0.5), whatever each column's marginal looks like, so
a generator that samples columns independently is caught by the joint distribution. The same test
with holdout rows ``H`` in place of ``S`` is the reference. Detection score
``= 100 * (1 - 2 * max(0, AUROC - 0.5))``: 100 when the sets cannot be told apart, 0 when every
synthetic row is recognised.

Copies must not pass for chance. When a synthetic row equals a training row and the two land in
different folds, the model that learned the training row (label "real") scores its synthetic twin
as real, and the other way round: a verbatim copy used to get AUROC 0.07 and score 100. So:

- Rows equal on every feature (after the encoding below) share a fold, unless that feature row is
  held by ``MIN_LEAF`` or more rows of the comparison: such a row is no one record's twin, and a
  cell that large the classifier can learn as a leaf of its own, which grouping would hide from it
  (on generated data with three 4-level categories, grouping every equal row dropped the AUROC of a
  generator that loses the links between columns from 0.82 to 0.61). Without equal rows the folds
  are exactly those of plain stratified cross-validation, so the numbers do not move. The groups
  are dealt out by ``StratifiedKFold`` over groups (``_grouped_folds``), not by scikit-learn's
  ``StratifiedGroupKFold``: that one's greedy Python loop took 9.8 s per comparison on adult
  (10,000 rows a side, two busy cores) against 0.06 s, and would move every number.
- An AUROC whose whole interval lies below 0.5 is not chance: the classifier learned something
  that ties synthetic rows to training rows (near copies, or copies of common rows that stay
  split). It is scored symmetrically, ``100 * (1 - 2 * |AUROC - 0.5|)``, and noted; it is an
  alarm (a privacy concern) when even the ``ALARM_CONFIDENCE`` interval lies below 0.5. Honest
  data falls wholly below 0.5 now and then (measured: 2 of 30 generated categorical tables, 1,000
  rows a side), and an alarm on every report in twenty would be noise; copies fall far below
  (a verbatim copy of a categorical table: 0.40 [0.36, 0.44]; near copies of numbers: 0.06).
- Grouped, a verbatim copy looks like chance to the classifier, so the test also counts the
  copies: the share of the comparison's synthetic rows equal to a training row (any of the table's,
  on every column the classifier sees; ``copy_share``, as the privacy section counts exact
  copies), against the same share of the reference comparison's holdout rows (without a holdout:
  the share of the sampled training rows equal to another training row, what real rows repeat by
  chance).
  Copies are suspected when the synthetic share is clearly above it (the verdict's rule for shares)
  and a one-sided Fisher exact test puts the difference below ``1 - ALARM_CONFIDENCE`` (so that 3
  of 50 against 1 of 50 does not count).

Choices, stated in the report:

- Equal sizes: ``n = min(|T|, |S|, n_max_detection)`` rows of each side (uniform, seeded), and
  likewise for ``H``, so the classifier's prior is one half and 0.5 means chance.
- The classifier is scikit-learn's ``HistGradientBoostingClassifier`` with its defaults (100
  boosting rounds, learning rate 0.1, early stopping on a 10% validation share above 10,000 fitted
  rows), seeded; numbers and datetimes (UTC seconds) as values, missing values handled natively;
  categories as native categories, the ``MAX_LEVELS`` most frequent training levels each with
  their own code, the rest pooled, and missing as a level of its own. Key, identifier and free-text
  columns are never features.
- ``N_FOLDS``-fold stratified cross-validation, equal rows kept together as above; every row is
  scored once by the model that did not see it. The AUROC is the mean of the folds' AUROCs
  (pooling the scores of five models mixes their scales); its 95% interval comes from each
  fold's DeLong variance, widened by the Nadeau-Bengio factor for the folds' shared training rows
  (``fold_auc``). No resampling: cheap and deterministic. Measured at chance (generated data,
  500 rows a side, 60 draws): the plain interval held 0.5 in 83-90% of draws, the widened one in
  97-100%.
- The columns the classifier leans on most: for each column, the fall of the out-of-fold AUROC
  when that column alone is shuffled among the held-out rows of each fold (permutation
  importance, one seeded shuffle, on at most ``N_IMPORTANCE_ROWS`` held-out rows; names only,
  never values). Computed only when the interval lies above 0.5: otherwise there is nothing to
  explain.
- Each fit runs on one OpenMP thread: on adult (10,000 rows a side, two cores shared with other
  work) the five fits of a comparison took 0.5 to 2 s on one thread and 3 to 19 s on two, which
  spin against the other work. The five folds are fitted side by side in Python threads, one per
  usable core (``_fold_model``), which do not spin: lahman's detection section (seven tables and
  views) took 30 s instead of 37 s on two cores, the numbers unchanged.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field
from scipy.stats import fisher_exact, norm, rankdata
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import StratifiedKFold
from threadpoolctl import threadpool_limits

from reportgen.binning import as_numbers, fit_bins
from reportgen.context import ENTITY_SUFFIX, EvaluationContext
from reportgen.data.entities import entity_tables
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.data.schema import ColumnKind
from reportgen.metrics.registry import measured_and_skipped
from reportgen.privacy.proximity import copy_share
from reportgen.results import SectionResult
from reportgen.rules import share_clearly_above
from reportgen.threads import map_in_threads

N_FOLDS = 5
MIN_ROWS = 50  # rows a side; fewer leave 10 per fold, too few to learn or to score
MAX_LEVELS = 253  # native categories take codes 0..254: the levels, "other" and missing
N_LEADING = 5
N_IMPORTANCE_ROWS = 2_000  # held-out rows for the importances: on adult 0.6 s instead of 2.7 s with all
CONFIDENCE = 0.95
MIN_LEAF = 20  # HistGradientBoostingClassifier's min_samples_leaf: rarer feature rows share a fold
ALARM_CONFIDENCE = 0.999  # below chance, or repeats above the reference, by this much: an alarm


class AucEstimate(BaseModel):
    """One two-sample test: the out-of-fold AUROC with its interval, and its detection score."""

    auc: float = Field(ge=0, le=1, description="Out-of-fold AUROC of telling training rows from the others.")
    low: float = Field(ge=0, le=1, description="Lower end of the 95% DeLong interval.")
    high: float = Field(ge=0, le=1, description="Upper end of the 95% DeLong interval.")
    score: float = Field(
        ge=0,
        le=100,
        description="100 * (1 - 2 * max(0, AUROC - 0.5)); 100 * (1 - 2 * |AUROC - 0.5|) when below chance.",
    )
    rows: int = Field(ge=1, description="Rows of each side.")
    repeats: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Share of the compared rows (synthetic or holdout) equal to a training row.",
    )

    @property
    def below_chance(self) -> bool:
        """Whether the whole interval lies below 0.5: the classifier learned the rows' twins."""
        return self.high < 0.5

    @property
    def far_below_chance(self) -> bool:
        """Whether even the ``ALARM_CONFIDENCE`` interval lies below 0.5.

        It is stretched from the 95% interval's upper side, which a clip at 0 never touches below
        chance.
        """
        stretch = norm.ppf(0.5 + ALARM_CONFIDENCE / 2) / norm.ppf(0.5 + CONFIDENCE / 2)
        return self.below_chance and self.auc + (self.high - self.auc) * stretch < 0.5


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
    training_repeats: float | None = Field(
        default=None,
        ge=0,
        le=1,
        description="Share of the sampled training rows equal to another training row (reference without H).",
    )
    copies_suspected: bool = Field(
        default=False,
        description="Synthetic rows repeat training rows clearly more often than the reference rows do.",
    )

    @property
    def repeats_reference(self) -> float | None:
        """What real rows repeat training rows: the holdout's share, else the training rows' own."""
        if self.holdout is not None and self.holdout.repeats is not None:
            return self.holdout.repeats
        return self.training_repeats


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
    repeats: float  # share of the other side's rows equal to a training row
    training_repeats: float  # share of the sampled training rows equal to another training row


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


def detection_score(auc: float, *, below_chance: bool = False) -> float:
    """``100 * (1 - 2 * max(0, auc - 0.5))``: 100 at chance, 0 when every row is told apart.

    ``below_chance`` (the whole interval below 0.5) scores the distance from 0.5 either way,
    ``100 * (1 - 2 * |auc - 0.5|)``: an AUROC of 0.1 is no coin toss, it is the classifier
    recognising rows by their training twins.
    """
    gap = abs(auc - 0.5) if below_chance else max(0.0, auc - 0.5)
    return 100.0 * (1.0 - 2.0 * gap)


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
            holdout = _holdout_estimate(ctx, name, view)
    table = TableDetection(
        table=name,
        view=view.kind,
        columns=list(view.kinds),
        synthetic=synthetic,
        holdout=holdout,
        leading=leading,
        training_repeats=fit.training_repeats,
    )
    return table.model_copy(update={"copies_suspected": _copies_suspected(table)})


def _holdout_estimate(ctx: EvaluationContext, name: str, view: _View) -> AucEstimate:
    """The reference: training rows against holdout rows (real alone: reused where they are the same)."""
    stream, n_max = f"detection-reference:{name}", ctx.settings.n_max_detection
    return ctx.real_side.result(
        "detection:training against holdout",
        [
            view.frames[TRAIN],
            view.frames[TEST],
            {c: k.value for c, k in view.kinds.items()},
            n_max,
            ctx.seed_for(stream),
        ],
        lambda: _estimate(_fit(view, TEST, ctx.rng(stream), n_max)),
    )


def _fit(view: _View, role: str, rng: np.random.Generator, n_max: int) -> _Fit:
    """Training rows against ``role``'s rows, equal sizes, fitted and scored out of fold."""
    training, compared = view.frames[TRAIN], view.frames[role]
    n = min(len(training), len(compared), n_max)
    sampled = [_sample(len(frame), n, rng) for frame in (training, compared)]
    real, other = training.iloc[sampled[0]], compared.iloc[sampled[1]]
    x, categorical = _features(real, other, view.kinds)
    y = np.concatenate([np.zeros(n), np.ones(n)])
    seed = int(rng.integers(2**31 - 1))
    folds, scores = _grouped_folds(y, equal_rows(x), seed), np.empty(len(y))
    fitted = map_in_threads(lambda held_out: _fold_model(x, y, held_out, categorical, seed), folds)
    models = [model for model, _ in fitted]
    for held_out, (_, held_out_scores) in zip(folds, fitted, strict=True):
        scores[held_out] = held_out_scores
    columns = list(view.kinds)
    repeated = training[columns].duplicated(keep=False).to_numpy()[sampled[0]]
    return _Fit(
        x,
        y,
        folds,
        models,
        scores,
        repeats=copy_share(other[columns], training[columns]),
        training_repeats=float(repeated.mean()),
    )


def _fold_model(
    x: np.ndarray, y: np.ndarray, held_out: np.ndarray, categorical: np.ndarray, seed: int
) -> tuple[HistGradientBoostingClassifier, np.ndarray]:
    """The classifier fitted on every row but ``held_out``, and its scores of the held-out rows.

    The folds are fitted side by side (``reportgen.threads.map_in_threads``: the boosting's Cython
    releases the interpreter). Each fit is seeded and alone on its rows, so the numbers do not
    depend on the threads.
    """
    fitted = np.setdiff1d(np.arange(len(y)), held_out, assume_unique=True)
    model = HistGradientBoostingClassifier(categorical_features=categorical, random_state=seed)
    model.fit(x[fitted], y[fitted])
    return model, model.predict_proba(x[held_out])[:, 1]


def equal_rows(x: np.ndarray) -> np.ndarray:
    """One id per row of ``x``, the same for rows equal on every column, numbered by first appearance.

    Missing equals missing and -0.0 equals 0.0: each row's canonical bytes are compared whole,
    so equal means equal (no hash to collide).
    """
    canonical = np.ascontiguousarray(np.where(np.isnan(x), np.nan, x + 0.0), dtype=np.float64)
    rows = canonical.view(np.dtype((np.void, canonical.itemsize * canonical.shape[1]))).ravel()
    return _by_first_appearance(rows)


def _by_first_appearance(keys: np.ndarray) -> np.ndarray:
    """Ids 0, 1, ... for the distinct ``keys``, in the order each first appears."""
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.intp)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[inverse.ravel()]


def _grouped_folds(y: np.ndarray, groups: np.ndarray, seed: int) -> list[np.ndarray]:
    """``N_FOLDS`` held-out folds, stratified, rows of one rare feature row in one fold.

    A unit is a feature row held by fewer than ``MIN_LEAF`` rows, or else a single row; units in
    order of first appearance, each with the label most of its rows have (ties: its first row's),
    are dealt out by scikit-learn's ``StratifiedKFold``. Without equal rows each unit is a row and
    the folds are plain stratified cross-validation's, row for row. Should grouping leave a fold
    without two rows of each label (a few feature rows repeated many times), the rows are split one
    by one instead.
    """
    rare = np.bincount(groups)[groups] < MIN_LEAF
    units = _by_first_appearance(np.where(rare, groups, groups.max() + 1 + np.arange(len(y))))
    folds = _stratified_units(y, units, seed)
    if any(min(np.sum(y[f] == 0), np.sum(y[f] == 1)) < 2 for f in folds):
        folds = _stratified_units(y, np.arange(len(y)), seed)
    return folds


def _stratified_units(y: np.ndarray, units: np.ndarray, seed: int) -> list[np.ndarray]:
    """Each unit's rows in the held-out fold that ``StratifiedKFold`` deals the unit to."""
    n_units = units.max() + 1
    share = np.bincount(units, weights=y, minlength=n_units) / np.bincount(units, minlength=n_units)
    first_label = y[np.unique(units, return_index=True)[1]]
    strata = (share > 0.5) | ((share == 0.5) & (first_label == 1))
    fold_of = np.empty(n_units, dtype=np.intp)
    with warnings.catch_warnings():  # a stratum of fewer units than folds: still dealt out evenly
        warnings.simplefilter("ignore", UserWarning)
        splitter = StratifiedKFold(N_FOLDS, shuffle=True, random_state=seed)
        for k, (_, held_out) in enumerate(splitter.split(np.zeros(n_units), strata)):
            fold_of[held_out] = k
    return [np.flatnonzero(fold_of[units] == k) for k in range(N_FOLDS)]


def _sample(n_rows: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Positions of ``n`` of ``n_rows`` rows, uniform and in order (all of them when no more)."""
    if n_rows <= n:
        return np.arange(n_rows)
    return np.sort(rng.choice(n_rows, size=n, replace=False))


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
    estimate = AucEstimate(
        auc=auc, low=low, high=high, score=100.0, rows=len(fit.y) // 2, repeats=fit.repeats
    )
    return estimate.model_copy(update={"score": detection_score(auc, below_chance=estimate.below_chance)})


def _copies_suspected(table: TableDetection) -> bool:
    """Whether synthetic rows repeat training rows clearly more often than real rows do.

    Clearly: above the reference by the verdict's rule for shares, and a one-sided Fisher exact
    test on the counts below ``1 - ALARM_CONFIDENCE``.
    """
    share, reference = table.synthetic.repeats, table.repeats_reference
    if share is None or reference is None or not share_clearly_above(share, reference):
        return False
    other = table.holdout if table.holdout is not None else table.synthetic
    counts = [
        [round(share * table.synthetic.rows), table.synthetic.rows],
        [round(reference * other.rows), other.rows],
    ]
    table_2x2 = [[k, n - k] for k, n in counts]
    return bool(fisher_exact(table_2x2, alternative="greater").pvalue < 1 - ALARM_CONFIDENCE)


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
