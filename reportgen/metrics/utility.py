"""Utility: train on synthetic, test on real (TSTR) and Synthetic Ranking Agreement (METRICS.md 11).

After Jordon, Yoon and van der Schaar, "Measuring the quality of Synthetic data for use in
competitions" (KDD 2018). For each table with a target column, twelve model families
(``reportgen.metrics.utility_models``) are each fitted twice, on the same number of rows:

- ``R_i``: trained on the real training data ``T``, scored on the holdout ``H``;
- ``S_i``: trained on one half of the synthetic data ``S``, scored on the other half;
- ``TSTR_i``: the same model as ``S_i`` (trained on the first half of ``S``), scored on ``H``.

The score is AUROC for a categorical or boolean target (one-vs-rest macro average for more than two
classes) and R^2 for a numeric one. The table shows ``TSTR = mean_i TSTR_i`` beside the real
baseline ``mean_i R_i`` (over the same models), and
``SRA = 1/(k(k-1)) * sum over i != j of a_ij`` over the ``k`` models that have both ``R_i`` and
``S_i``, with ``a_ij`` 1 where ``(R_i - R_j) * (S_i - S_j) > 0``, else 0, and scores compared at the
three decimals the table shows: a pair the real data ties agrees in any order (1), a pair only the
synthetic data ties counts as a guess (1/2).

Choices, stated in the report:

- Without a holdout, ``H`` is a seeded 30% of the training rows and ``R_i`` is trained on the other
  70%; the generator has seen those rows, so TSTR can flatter a generator that copies them.
- Every model learns from ``n = min(|T|, |S| / 2)`` rows: the first synthetic half, and a seeded
  sample of as many real training rows, so that ``R_i``, ``S_i`` and ``TSTR_i`` differ in where the
  rows come from and not in how many there are (a model family's rank can change with the rows it
  learns from, which SRA would then count as disagreement). ``TSTR_i`` reuses ``S_i``'s model: 24
  fits instead of 36. On adult (32,561 rows a side) the models learn from 16,280 rows instead of
  20,000 (``R_i``, ``TSTR_i``) and 10,000 (``S_i``): the section's CPU time falls by about a third,
  and TSTR, the real baseline and SRA of five generators move by at most 1.4 seed-to-seed standard
  deviations (three seeds; the real baseline by 0.0006, TSTR by at most 0.003 except the
  independent-marginals generator's, which is at chance either way;
  ``benchmarks/bench_utility.py --against``). When either side has too few rows to train on, the
  other keeps all of its own (half of ``S``, or all of ``T``) and the short side's models are marked.
- Rows whose target is missing are left out; ``T`` and ``H`` are then capped at ``n_max_utility``
  rows and ``S`` at twice that (uniform, seeded), so that no model learns from or is scored on more
  than ``n_max_utility`` rows. The synthetic halves are a seeded random split (the second half takes
  the rows left, up to ``n_max_utility``).
- A comparison that cannot be scored (one class or a constant target on one side, no target values
  in the synthetic data) marks its models with the reason; a model that fails is marked with its
  error. Marked models are left out of the means and of SRA.
- The 24 fits run in parallel threads, one per available core, with BLAS and OpenMP held to one
  thread each; every model's ``random_state`` derives from the report's seed, so the numbers do not
  depend on the number of cores.
"""

from __future__ import annotations

import math
import threading
import warnings
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field
from scipy.stats import rankdata
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC, LinearSVR

from reportgen.context import EvaluationContext
from reportgen.data.engines import withheld
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.data.schema import ColumnKind
from reportgen.disclosure import Disclosure
from reportgen.metrics import utility_models
from reportgen.metrics.registry import MetricNotApplicable, MetricNotComputed
from reportgen.metrics.targets import Task, task_of
from reportgen.metrics.utility_models import Family, FeatureForm, Features, UndefinedScore
from reportgen.results import SectionResult
from reportgen.threads import map_in_threads

HOLDOUT_SHARE = 0.3
# The fits run in threads (reportgen.threads.map_in_threads) rather than processes: on adult (2 cores,
# 20,000 rows a role) the section took 25-27 s in threads and 29-31 s in joblib's loky processes,
# which pay for starting, importing and copying the data; the numbers are identical. Threads also let
# one filter silence ConvergenceWarning for every fit.
MAX_CLASSES = 50
NEAR_CHANCE = 0.05  # S_i this close to a guess for every model: their ranking is noise
NO_TARGET = "no target column was given for this table"  # a choice of the user's, not an alarm
MIN_ROWS = 10  # rows on each side of a comparison; fewer cannot fit twelve models meaningfully
SCORE_DECIMALS = 3  # the utility table's precision (its template's num(3)): scores equal at it are tied
Comparison = Literal["real", "synthetic", "tstr"]
_SCORE_NAMES = {"real": "R_i", "synthetic": "S_i", "tstr": "TSTR_i"}


class ModelScore(BaseModel):
    """One model family's three scores, its ranks by ``R_i`` and by ``S_i``, and what went wrong."""

    model: str = Field(description="Model family; for a numeric target, its regressor's name.")
    estimator: str = Field(description="The scikit-learn class fitted.")
    real: float | None = Field(description="R_i: trained on real training rows, scored on the holdout.")
    synthetic: float | None = Field(
        description="S_i: trained on one half of the synthetic rows, scored on the other half."
    )
    tstr: float | None = Field(description="TSTR_i: trained on the synthetic rows, scored on the holdout.")
    rank_real: int | None = Field(default=None, ge=1, description="Rank by R_i among SRA's models (1 best).")
    rank_synthetic: int | None = Field(default=None, ge=1, description="Rank by S_i among SRA's models.")
    notes: list[str] = Field(default_factory=list, description="Why a score is missing, or a caveat.")


class TableUtility(BaseModel):
    """TSTR, the real baseline and SRA of one table's target."""

    table: str
    target: str
    task: Literal["classification", "regression"]
    metric: Literal["AUROC", "R2"]
    n_classes: int | None = Field(default=None, description="Classes in the real training target.")
    features: list[str] = Field(description="Columns the models learn from.")
    rows: dict[str, int] = Field(
        description="Rows used: real rows R learns from, holdout rows, synthetic rows of both halves."
    )
    fit_rows: int | None = Field(
        default=None, ge=0, description="Rows every model learns from: a synthetic half, as many real rows."
    )
    holdout: Literal["given", "split"] = Field(
        description="'split': no holdout was given, so it is a seeded share of the training rows."
    )
    models: list[ModelScore] = Field(description="Ordered by R_i, best first.")
    tstr: float | None = Field(description="Mean TSTR_i over the models with TSTR_i and R_i.")
    real_baseline: float | None = Field(
        description="Mean R_i over the same models (over all models with R_i when none has TSTR_i)."
    )
    sra: float | None = Field(ge=0, le=1, description="Synthetic Ranking Agreement of R_i and S_i.")
    n_ranked: int = Field(ge=0, description="Models with both R_i and S_i: the k of SRA.")
    messages: list[str] = Field(default_factory=list, description="Problems with the target or the data.")


class UtilityResult(SectionResult):
    """The utility section: one entry per table with a target, and the tables skipped with why."""

    tables: list[TableUtility]
    skipped: dict[str, str] = Field(default_factory=dict, description="Tables not measured, and why.")
    n_max: int = Field(description="Cap on the rows of each role (n_max_utility).")
    holdout_share: float = Field(description="Share of training rows held out when no holdout is given.")


def sra(real: Sequence[float], synthetic: Sequence[float]) -> float | None:
    """Synthetic Ranking Agreement: the share of ordered model pairs that both scores order alike.

    ``1/(k(k-1)) * sum over i != j of a_ij``: ``a_ij = 1`` where ``(R_i - R_j) * (S_i - S_j) > 0``
    and where ``R_i = R_j`` (the real data gives the pair no order to reproduce: it agrees in any
    order); ``1/2`` where only ``S_i = S_j`` (the synthetic data gives no order: a guess's expected
    agreement, so synthetic scores that are all equal give 0.5, chance); else 0. Scores are compared
    at the ``SCORE_DECIMALS`` the report shows (``shown``). None for fewer than two models.
    """
    r, s = np.asarray(real, dtype=float), np.asarray(synthetic, dtype=float)
    if r.shape != s.shape or r.ndim != 1:
        raise ValueError(f"sra needs two score vectors of one length; got shapes {r.shape} and {s.shape}.")
    r, s = shown(r), shown(s)
    k = len(r)
    if k < 2:
        return None
    dr, ds = r[:, None] - r[None, :], s[:, None] - s[None, :]
    agree = np.where(dr == 0, 1.0, np.where(ds == 0, 0.5, (dr * ds > 0).astype(float)))
    np.fill_diagonal(agree, 0.0)
    return float(agree.sum() / (k * (k - 1)))


def shown(scores: Sequence[float] | np.ndarray) -> np.ndarray:
    """Scores as the utility table shows them (``SCORE_DECIMALS``): what SRA and the ranks compare.

    Models whose scores agree to the decimals shown are tied: differences below them are no ranking
    the reader can see, and chance decides their order on the other side (ridge, Bayesian ridge and
    least squares fitted on 16,000 rows of a linear target differ by about 1e-7 in R^2).
    """
    return np.array([float(f"{v:.{SCORE_DECIMALS}f}") for v in np.asarray(scores, dtype=float)])


CHANCE_MARGIN = 0.02  # a mean model score within this of chance counts as "at chance"


def chance_level(metric: str) -> float:
    """The score of a model that knows nothing: AUROC 0.5, R² 0."""
    return 0.5 if metric == "AUROC" else 0.0


def at_chance(score: float | None, metric: str) -> bool:
    """Whether a mean score is within ``CHANCE_MARGIN`` of chance (or below it)."""
    return score is not None and score <= chance_level(metric) + CHANCE_MARGIN


def synthetic_self_score(table: TableUtility) -> float | None:
    """The mean ``S_i`` of a utility table: how well the synthetic data predicts its own target.

    At chance, the synthetic target does not depend on the other synthetic columns, so whatever
    TSTR gains over chance comes from the columns' frequencies, not from a relationship kept.
    """
    scores = [m.synthetic for m in table.models if m.synthetic is not None]
    return float(np.mean(scores)) if scores else None


def utility_relative(tstr: float, baseline: float | None, metric: str) -> float | None:
    """How much of the real baseline's margin over chance TSTR keeps, on 0-100.

    ``100 * (TSTR - chance) / (baseline - chance)``, clipped to [0, 100]; None without a baseline
    that beats chance.
    """
    chance = chance_level(metric)
    if baseline is None or baseline <= chance:
        return None
    return float(min(100.0, max(0.0, 100 * (tstr - chance) / (baseline - chance))))


def compute_utility(ctx: EvaluationContext) -> UtilityResult:
    """The utility section of the report."""
    targets = dict(ctx.settings.targets or {})
    if not targets:
        raise MetricNotApplicable(
            "no target column was given. Name one per table with report(..., targets={table: column}), "
            "--target TABLE=COLUMN on the command line, or target: in the schema"
        )
    tables: list[TableUtility] = []
    skipped: dict[str, str] = {}
    for name in ctx.table_names:
        if name not in targets:
            skipped[name] = NO_TARGET
            continue
        ctx.progress(f"{name}: models on real and synthetic data")
        measured = _table_utility(ctx, name, targets[name])
        if isinstance(measured, str):
            skipped[name] = measured
        else:
            tables.append(measured)
    if not tables:
        raise MetricNotComputed("; ".join(f"table {name!r}: {reason}" for name, reason in skipped.items()))
    return UtilityResult(
        section="utility",
        tables=tables,
        skipped=skipped,
        n_max=ctx.settings.n_max_utility,
        holdout_share=_held_out_share(ctx, tables[0].table),
    )


def _held_out_share(ctx: EvaluationContext, table: str) -> float:
    """The share of training rows held out when no holdout was given.

    They were set aside for the report's references (``reference_split``), or ``HOLDOUT_SHARE`` of
    them here when that split was impossible.
    """
    if ctx.full_test is not None and ctx.holdout_from_training:
        held, kept = len(ctx.full_test[table]), len(ctx.full_train[table])
        return held / max(held + kept, 1)
    return HOLDOUT_SHARE


CLASS = ("class", "classes")


# -- the data of one table ---------------------------------------------------------------------
@dataclass
class _Side:
    """The features and the target of one side of a comparison."""

    label: str
    x: pd.DataFrame
    y: np.ndarray


def _table_utility(ctx: EvaluationContext, name: str, target: str) -> TableUtility | str:
    prep = ctx.table(name)
    if target not in prep.compared_columns:
        return f"the target column {target!r} cannot be used: {prep.excluded.get(target, 'not compared')}"
    kinds = {c: prep.schema.kinds[c] for c in prep.compared_columns if c != target}
    if not kinds:
        return f"no column besides the target {target!r} to learn from (keys and free text are not features)"
    task = task_of(prep.schema.kinds[target])
    messages: list[str] = []
    real, holdout, synth, holdout_kind = _rows(ctx, name, target, messages)
    real_fit, synth_a, synth_b = _training_sides(ctx, name, real, synth)

    def side(label: str, frame: pd.DataFrame) -> _Side:
        x = utility_models.feature_frame(frame, kinds)
        values = frame[target]
        y = values.to_numpy(dtype=float) if task == "regression" else values.to_numpy(dtype=object)
        return _Side(label, x, y)

    holdout_side = side("the holdout" if holdout_kind == "given" else "the held-out training rows", holdout)
    comparisons: dict[Comparison, tuple[_Side, _Side]] = {
        "real": (side("the real training data", real_fit), holdout_side),
        "synthetic": (side("the first synthetic half", synth_a), side("the second synthetic half", synth_b)),
    }
    comparisons["tstr"] = (comparisons["synthetic"][0], holdout_side)  # one fit, scored on both
    n_classes = None
    rule = Disclosure.of(real[target], ctx.settings.min_category_count)
    if task == "classification":
        n_classes = int(real[target].nunique())
        if n_classes > MAX_CLASSES:
            return (
                f"the target {target!r} has {n_classes} classes in the training data, more than the "
                f"{MAX_CLASSES} the utility models handle; choose a coarser target"
            )
        messages += _class_messages(
            real[target].to_numpy(dtype=object), synth[target].to_numpy(dtype=object), rule
        )
    problems = {key: _problem(fit, scored, task, rule) for key, (fit, scored) in comparisons.items()}
    if len(synth) == 0:
        problems["synthetic"] = problems["tstr"] = f"the synthetic data has no {target!r} value at all"
    for key, problem in problems.items():
        if problem is not None:
            messages.append(f"{_SCORE_NAMES[key]} not computed for any model: {problem}.")
    families = utility_models.FAMILIES
    models = _model_scores(families, task, _outcomes(ctx, name, task, families, comparisons, problems))
    if task == "classification":  # a library's error may quote a class: the no-leak rule applies
        seen = {v for fit, scored in comparisons.values() for v in (*fit.y, *scored.y)}
        for m in models:
            m.notes = [rule.scrub(note, seen) for note in m.notes]
    ranked = [m for m in models if m.real is not None and m.synthetic is not None]
    paired = [m for m in models if m.real is not None and m.tstr is not None]
    if len(ranked) > 1 and _all_near_chance([m.synthetic for m in ranked], task):  # type: ignore[misc]
        messages.append(
            "Every model trained on one synthetic half scores about as well as a guess on the other "
            "half, so their ranking by S is noise and SRA does not measure agreement here."
        )
    return TableUtility(
        table=name,
        target=target,
        task=task,
        metric="AUROC" if task == "classification" else "R2",
        n_classes=n_classes,
        features=list(kinds),
        rows={"training": len(real_fit), "holdout": len(holdout), "synthetic": len(synth_a) + len(synth_b)},
        fit_rows=len(synth_a),
        holdout=holdout_kind,
        models=models,
        tstr=_mean([m.tstr for m in paired]),
        real_baseline=_mean([m.real for m in paired or models]),
        sra=sra([m.real for m in ranked], [m.synthetic for m in ranked]),  # type: ignore[misc]
        n_ranked=len(ranked),
        messages=messages,
    )


def _rows(
    ctx: EvaluationContext, name: str, target: str, messages: list[str]
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, Literal["given", "split"]]:
    """Training, holdout and synthetic rows with a target value, capped; the holdout split if none."""
    prep = ctx.table(name)
    rng = ctx.rng(f"utility:{name}")
    frames: dict[str, pd.DataFrame] = {}
    for role in (TRAIN, TEST, SYNTH):
        frame = prep.frame(role)
        if frame is None:
            continue
        present = frame[target].notna()
        if not present.all():
            messages.append(
                f"{int((~present).sum()):,} of {len(frame):,} {role} rows have no {target!r} value and "
                "were left out."
            )
        frames[role] = frame[present.to_numpy()]
    real = frames[TRAIN]
    given = TEST in frames and not ctx.holdout_from_training
    holdout_kind: Literal["given", "split"] = "given" if given else "split"
    if TEST in frames:  # a holdout, or the training rows set aside for one (reference_split)
        holdout = frames[TEST]
    else:
        order = rng.permutation(len(real))
        n_holdout = round(HOLDOUT_SHARE * len(real))
        holdout = real.iloc[np.sort(order[:n_holdout])]
        real = real.iloc[np.sort(order[n_holdout:])]
    n_max = ctx.settings.n_max_utility
    real, holdout = (_capped(f, n_max, rng) for f in (real, holdout))
    synth = _capped(frames[SYNTH], 2 * n_max, rng)  # a training half and a scored half
    return real, holdout, synth, holdout_kind


def _training_sides(
    ctx: EvaluationContext, name: str, real: pd.DataFrame, synth: pd.DataFrame
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The real rows R is trained on, the synthetic half S and TSTR are trained on, and the other half.

    Every model learns from the same number of rows, ``min(|T|, |S| / 2)``: the half of the synthetic
    rows, and as many real training rows (seeded samples), so that R, S and TSTR differ in where
    the rows come from and not in how many there are. The other half (at most ``n_max_utility``
    rows) scores S. When either side has too few rows to train on, the other keeps all of its own
    (half the synthetic rows, or every real row) and the short side's models are marked.
    """
    half = len(synth) // 2
    equal = min(len(real), half) >= MIN_ROWS
    n_fit = min(len(real), half) if equal else half
    order = ctx.rng(f"utility-halves:{name}").permutation(len(synth))
    rest = order[n_fit : n_fit + ctx.settings.n_max_utility]
    synth_a, synth_b = synth.iloc[np.sort(order[:n_fit])], synth.iloc[np.sort(rest)]
    real_fit = _capped(real, n_fit, ctx.rng(f"utility-fit:{name}")) if equal else real
    return real_fit, synth_a, synth_b


def _capped(frame: pd.DataFrame, n_max: int, rng: np.random.Generator) -> pd.DataFrame:
    if len(frame) <= n_max:
        return frame
    return frame.iloc[np.sort(rng.choice(len(frame), n_max, replace=False))]


def _class_messages(real: np.ndarray, synth: np.ndarray, rule: Disclosure) -> list[str]:
    """Classes on one side only, named only where the no-leak rule allows (``reportgen.disclosure``)."""
    missing = sorted(set(real) - set(synth), key=str)
    extra = sorted(set(synth) - set(real), key=str)
    messages = []
    if missing and len(synth):
        messages.append(
            f"{rule.name(missing, CLASS)} of the real training data never {_verb(missing, 'occur')} in the "
            f"synthetic data: models trained on it cannot predict {'them' if len(missing) > 1 else 'it'} (a "
            "guess, AUROC 0.5, for that class)."
        )
    if extra:
        messages.append(
            f"{rule.name(extra, CLASS)} {_verb(extra, 'occur')} in the synthetic data but not in the real "
            "training data."
        )
    return messages


def _verb(values: Sequence[Any], verb: str) -> str:
    return verb if len(values) > 1 else verb + "s"


def _problem(fit: _Side, scored: _Side, task: Task, rule: Disclosure) -> str | None:
    """Why a comparison cannot be scored at all, or None; a class is named only where ``rule`` allows."""
    for which, part in (("train on", fit), ("score on", scored)):
        if len(part.y) < MIN_ROWS:
            return f"too few rows to {which} ({len(part.y)} in {part.label}; {MIN_ROWS} needed)"
    for which, part in (("learn from", fit), ("score against", scored)):
        values = np.unique(part.y)
        if len(values) < 2:
            what = (
                f"only one class ({_class_name(values[0], rule)})"
                if task == "classification"
                else "a constant target"
            )
            return f"{part.label} has {what}: nothing to {which}"
    return None


def _class_name(value: object, rule: Disclosure) -> str:
    return repr(str(value)) if rule.allows(value) else f"a class {rule.rare_words()}"


def _all_near_chance(scores: Sequence[float], task: Task) -> bool:
    """Whether every S_i is within ``NEAR_CHANCE`` of a guess (AUROC 0.5, R^2 0)."""
    guess = 0.5 if task == "classification" else 0.0
    return all(abs(v - guess) < NEAR_CHANCE for v in scores)


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return float(np.mean(present)) if present else None


# -- fitting -----------------------------------------------------------------------------------
_Outcome = tuple[float | None, str | None]


def _outcomes(
    ctx: EvaluationContext,
    name: str,
    task: Task,
    families: Sequence[Family],
    comparisons: dict[Comparison, tuple[_Side, _Side]],
    problems: dict[Comparison, str | None],
) -> dict[tuple[int, str], _Outcome]:
    """Every (family, comparison) scored (``_fit_all``).

    R's models, trained and scored on real rows alone, are reused where another evaluation against
    the same real data trained them on the same rows (``EvaluationContext.real_side``).
    """
    fit, scored = comparisons["real"]
    kinds = {c: k.value for c, k in ctx.table(name).schema.kinds.items() if c in fit.x.columns}
    seeds = [(f.name, ctx.seed_for(f"utility:{name}:{f.name}")) for f in families]
    real = ctx.real_side.result(
        "utility:models trained on real rows",
        [fit.x, fit.y, scored.x, scored.y, task, problems["real"], kinds, seeds, ctx.settings.max_categories],
        lambda: _fit_all(ctx, name, task, families, {"real": comparisons["real"]}, problems),
    )
    rest: dict[Comparison, tuple[_Side, _Side]] = {k: v for k, v in comparisons.items() if k != "real"}
    return real | _fit_all(ctx, name, task, families, rest, problems)


def _fit_all(
    ctx: EvaluationContext,
    name: str,
    task: Task,
    families: Sequence[Family],
    comparisons: dict[Comparison, tuple[_Side, _Side]],
    problems: dict[Comparison, str | None],
) -> dict[tuple[int, str], _Outcome]:
    """Every (family, comparison) scored, in parallel; marked ones carry their reason.

    Comparisons that train on the same rows (S and TSTR both train on the first synthetic half)
    share one preprocessing and one fit per family, scored on each of their scored sides.
    """
    outcomes: dict[tuple[int, str], _Outcome] = {}
    groups: dict[int, list[Comparison]] = {}
    for key, (fit, _) in comparisons.items():
        if problems[key] is None:
            groups.setdefault(id(fit), []).append(key)
        else:
            marked = (None, "not computed (a problem with the data, see the table's messages)")
            outcomes |= {(i, key): marked for i in range(len(families))}
    kinds = ctx.table(name).schema.kinds
    prepared = [_prepared(comparisons, keys, kinds, ctx.settings.max_categories) for keys in groups.values()]
    jobs = [(i, group) for i in range(len(families)) for group in prepared]
    jobs.sort(key=lambda job: -families[job[0]].cost * len(job[1].y))
    if not jobs:
        return outcomes
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=ConvergenceWarning)  # read from the model instead
        results = map_in_threads(
            lambda job: _fit_and_score(
                families[job[0]], task, ctx.seed_for(f"utility:{name}:{families[job[0]].name}"), job[1]
            ),
            jobs,
        )
    for (i, group), scores in zip(jobs, results, strict=True):
        outcomes |= {(i, key): outcome for key, outcome in zip(group.keys, scores, strict=True)}
    return outcomes


@dataclass
class _Prepared:
    """One training side's features in every form, and the scored sides of its comparisons."""

    keys: list[Comparison]
    x: dict[FeatureForm, Features]
    y: np.ndarray
    scored: list[tuple[dict[FeatureForm, Features], np.ndarray]]


def _prepared(
    comparisons: dict[Comparison, tuple[_Side, _Side]],
    keys: list[Comparison],
    kinds: Mapping[str, ColumnKind],
    max_categories: int,
) -> _Prepared:
    """The preprocessing fitted on the training side shared by ``keys``, applied to every side."""
    fit = comparisons[keys[0]][0]
    prep = utility_models.preprocessor({c: kinds[c] for c in fit.x.columns}, max_categories)
    x = utility_models.in_forms(prep.fit_transform(fit.x), "csc")
    scored = [
        (utility_models.in_forms(prep.transform(comparisons[key][1].x), "csr"), comparisons[key][1].y)
        for key in keys
    ]
    return _Prepared(keys, x, fit.y, scored)


# liblinear (LinearSVC, LinearSVR) draws from one process-wide random generator that every fit
# re-seeds: two such fits in concurrent threads interleave their draws and change each other's
# result. They take turns, so that a rerun gives bit-identical numbers.
_PROCESS_RNG = threading.Lock()
_PROCESS_RNG_MODELS = (LinearSVC, LinearSVR)


def _one_at_a_time(model: Any) -> AbstractContextManager[Any]:
    """A lock for models whose library keeps process-wide random state; no lock for the others."""
    inner = getattr(model, "regressor", model)  # regressors are wrapped to scale their target
    return _PROCESS_RNG if isinstance(inner, _PROCESS_RNG_MODELS) else nullcontext()


def _fit_and_score(family: Family, task: Task, seed: int, group: _Prepared) -> list[_Outcome]:
    """Fit ``family`` once on the group's training side and score it on each scored side.

    Called in a worker thread of ``map_in_threads``, on one thread of every native pool.
    """
    model = family.make(task, seed)
    try:
        with _one_at_a_time(model):
            model.fit(group.x[family.features], group.y)
    except Exception as error:  # a model's own failure is reported in its row, not raised
        return [(None, f"failed: {type(error).__name__}: {_first_line(error)}")] * len(group.keys)
    note = "did not converge" if utility_models.did_not_converge(model) else None
    return [_scored(model, x[family.features], y, task, note) for x, y in group.scored]


def _scored(model: Any, x: Features, y: np.ndarray, task: Task, note: str | None) -> _Outcome:
    try:
        value = utility_models.score(model, x, y, task)
    except UndefinedScore as undefined:
        return None, str(undefined)
    except Exception as error:
        return None, f"failed: {type(error).__name__}: {_first_line(error)}"
    if not math.isfinite(value):
        return None, "the score is not a finite number"
    return value, note


def _first_line(error: Exception, limit: int = 160) -> str:
    text = withheld(str(error).strip().splitlines()[0]) if str(error).strip() else "no message"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _model_scores(
    families: Sequence[Family], task: Task, outcomes: dict[tuple[int, str], _Outcome]
) -> list[ModelScore]:
    models = []
    for i, family in enumerate(families):
        notes = []
        for key, what in (("real", "R"), ("synthetic", "S"), ("tstr", "TSTR")):
            note = outcomes[(i, key)][1]
            if note is not None:
                notes.append(f"{what}: {note}")
        models.append(
            ModelScore(
                model=family.label(task),
                estimator=family.estimator_name(task),
                real=outcomes[(i, "real")][0],
                synthetic=outcomes[(i, "synthetic")][0],
                tstr=outcomes[(i, "tstr")][0],
                notes=_merged(notes),
            )
        )
    ranked = [m for m in models if m.real is not None and m.synthetic is not None]
    if ranked:
        by_real = rankdata(-shown([m.real for m in ranked]), method="min")  # type: ignore[misc]
        by_synth = rankdata(-shown([m.synthetic for m in ranked]), method="min")  # type: ignore[misc]
        for m, r, s in zip(ranked, by_real, by_synth, strict=True):
            m.rank_real, m.rank_synthetic = int(r), int(s)
    order = {id(m): i for i, m in enumerate(models)}
    return sorted(models, key=lambda m: (m.real is None, -(m.real or 0.0), order[id(m)]))


def _merged(notes: list[str]) -> list[str]:
    """'R: x', 'S: x', 'TSTR: x' read as one note 'R, S, TSTR: x'."""
    by_text: dict[str, list[str]] = {}
    for note in notes:
        which, text = note.split(": ", 1)
        by_text.setdefault(text, []).append(which)
    return [f"{', '.join(which)}: {text}" for text, which in by_text.items()]
