"""The scikit-learn side of the utility section: the model families, the preprocessing, the scores.

Twelve families (METRICS.md section 11), each with a classifier and a regression counterpart:

================================  ==============================  ================================
family                            classification                  regression
================================  ==============================  ================================
Logistic regression               LogisticRegression              Ridge (L2-penalised least squares)
Random forest                     RandomForestClassifier          RandomForestRegressor
Gaussian naive Bayes              GaussianNB                      BayesianRidge (Gaussian model)
Bernoulli naive Bayes             BernoulliNB                     KNeighborsRegressor (k = 10)
Linear SVM                        LinearSVC                       LinearSVR
Decision tree                     DecisionTreeClassifier          DecisionTreeRegressor
Linear discriminant analysis      LinearDiscriminantAnalysis      LinearRegression (least squares)
AdaBoost                          AdaBoostClassifier              AdaBoostRegressor
Bagging                           BaggingClassifier               BaggingRegressor
Gradient boosting                 GradientBoostingClassifier      GradientBoostingRegressor
Multi-layer perceptron            MLPClassifier                   MLPRegressor
Histogram gradient boosting       HistGradientBoostingClassifier  HistGradientBoostingRegressor
================================  ==============================  ================================

Naive Bayes has no regression form: its Gaussian variant maps to Bayesian ridge (a Gaussian
likelihood and prior), the Bernoulli one to k-nearest neighbours (another simple, assumption-light
baseline). LDA maps to ordinary least squares, which for two classes finds the same direction.
For a numeric target the report names each model by its regressor ("Ridge regression", "Bayesian
ridge", "10-nearest neighbours", "Linear SVR", "Linear regression"; the others share the family's name).
Histogram gradient boosting stands in for XGBoost. Every model has scikit-learn's defaults except:
``random_state`` from the report's seed; the MLP stops early (10% validation split) within 200
iterations; LogisticRegression and LinearSVC get 1,000 iterations; random forest and bagging build
their trees on one thread (the section runs the models in parallel instead). Regressors learn the
standardised target (``TransformedTargetRegressor``), so the SVR's epsilon and the MLP's step size
do not depend on the target's units.

One ``ColumnTransformer`` prepares the features, fitted on the training side of each comparison:
numbers (and datetimes, as seconds) are imputed by the median with a missing indicator and
standardised; categories are imputed with a "(missing)" level and one-hot encoded with at most
``max_categories`` levels (rarer ones pooled), unseen levels encoded as all zeros.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

import numpy as np
import pandas as pd
from scipy import sparse
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.ensemble import (
    AdaBoostClassifier,
    AdaBoostRegressor,
    BaggingClassifier,
    BaggingRegressor,
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.impute import SimpleImputer
from sklearn.linear_model import BayesianRidge, LinearRegression, LogisticRegression, Ridge
from sklearn.metrics import r2_score, roc_auc_score
from sklearn.naive_bayes import BernoulliNB, GaussianNB
from sklearn.neighbors import KNeighborsRegressor
from sklearn.neural_network import MLPClassifier, MLPRegressor
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler
from sklearn.svm import LinearSVC, LinearSVR
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from reportgen.data.schema import ColumnKind
from reportgen.metrics.targets import Task

MISSING_LEVEL = "(missing)"

FeatureForm = Literal["float64", "float32", "float32_columns", "sparse"]
Features: TypeAlias = np.ndarray | sparse.csc_matrix | sparse.csr_matrix
FEATURE_FORMS: dict[FeatureForm, str] = {
    "float64": "the preprocessing's dense float64 matrix, for every model that is not made of trees",
    "float32": (
        "dense float32: scikit-learn's trees convert their features to float32 before they use them, so "
        "they get float32 to begin with and no tree converts them again (the same numbers, 10-20% less time)"
    ),
    "float32_columns": (
        "dense float32 stored column by column (Fortran order) for fitting: gradient boosting looks at "
        "every feature at every split and gathers each one's values from the rows; stored by columns, "
        "those values lie together. The same trees, bit for bit, in a quarter less time (5.0 -> 3.8 s on "
        "20,000 adult rows, one thread); random forest and bagging, which look at a few features a split, "
        "were slower so (2.4 -> 2.6 s) and stay in row order"
    ),
    "sparse": (
        "float32 in compressed sparse columns: the tree splitter then sorts only the nonzero values of "
        "a column, and most columns are one-hot. AdaBoost's stumps spend their time sorting whole "
        "columns, so it builds the same stumps in less time (1.7 -> 1.2 s on 20,000 adult rows; a test "
        "checks equal predictions). Gradient boosting would gain more (4.0 -> 1.9 s) but its leaf "
        "values differ on sparse input, and deep trees (random forest, bagging, one tree) are slower "
        "on sparse columns: they stay dense"
    ),
}


@dataclass(frozen=True)
class Family:
    """One model family: how to make its classifier and its regressor with a given seed.

    ``cost`` is a rough relative fitting time, used only to start the slowest fits first.
    ``features``: the form of the feature matrix both estimators are fitted on and scored with
    (``FEATURE_FORMS`` says why each form).
    """

    name: str
    classifier: Callable[[int], Any]
    regressor: Callable[[int], Any]
    cost: float = 1.0
    features: FeatureForm = "float64"
    regression_name: str | None = None
    """What the regressor is called where it is not the family's own name (None: the family's name)."""

    def label(self, task: Task) -> str:
        """The model's name for a task: the family's, or its regression counterpart's."""
        if task == "regression" and self.regression_name is not None:
            return self.regression_name
        return self.name

    def make(self, task: Task, seed: int) -> Any:
        if task == "classification":
            return self.classifier(seed)
        return TransformedTargetRegressor(regressor=self.regressor(seed), transformer=StandardScaler())

    def estimator_name(self, task: Task) -> str:
        model = self.make(task, 0)
        inner = model.regressor if isinstance(model, TransformedTargetRegressor) else model
        return type(inner).__name__


def _mlp_options(seed: int) -> dict[str, Any]:
    return {"early_stopping": True, "max_iter": 200, "random_state": seed}


FAMILIES: tuple[Family, ...] = (
    Family(
        "Logistic regression",
        lambda s: LogisticRegression(max_iter=1000, random_state=s),
        lambda s: Ridge(random_state=s),
        cost=1,
        regression_name="Ridge regression",
    ),
    Family(
        "Random forest",
        lambda s: RandomForestClassifier(random_state=s, n_jobs=1),
        lambda s: RandomForestRegressor(random_state=s, n_jobs=1),
        cost=8,
        features="float32",
    ),
    Family(
        "Gaussian naive Bayes",
        lambda s: GaussianNB(),
        lambda s: BayesianRidge(),
        cost=0.2,
        regression_name="Bayesian ridge",
    ),
    Family(
        "Bernoulli naive Bayes",
        lambda s: BernoulliNB(),
        lambda s: KNeighborsRegressor(n_neighbors=10, n_jobs=1),
        cost=0.2,
        regression_name="10-nearest neighbours",
    ),
    Family(
        "Linear SVM",
        lambda s: LinearSVC(max_iter=1000, random_state=s),
        lambda s: LinearSVR(max_iter=1000, random_state=s),
        cost=2,
        regression_name="Linear SVR",
    ),
    Family(
        "Decision tree",
        lambda s: DecisionTreeClassifier(random_state=s),
        lambda s: DecisionTreeRegressor(random_state=s),
        cost=0.5,
        features="float32",
    ),
    Family(
        "Linear discriminant analysis",
        lambda s: LinearDiscriminantAnalysis(),
        lambda s: LinearRegression(),
        cost=0.5,
        regression_name="Linear regression",
    ),
    Family(
        "AdaBoost",
        lambda s: AdaBoostClassifier(random_state=s),
        lambda s: AdaBoostRegressor(random_state=s),
        cost=2,
        features="sparse",
    ),
    Family(
        "Bagging",
        lambda s: BaggingClassifier(random_state=s, n_jobs=1),
        lambda s: BaggingRegressor(random_state=s, n_jobs=1),
        cost=3,
        features="float32",
    ),
    Family(
        "Gradient boosting",
        lambda s: GradientBoostingClassifier(random_state=s),
        lambda s: GradientBoostingRegressor(random_state=s),
        cost=8,
        features="float32_columns",
    ),
    Family(
        "Multi-layer perceptron",
        lambda s: MLPClassifier(**_mlp_options(s)),
        lambda s: MLPRegressor(**_mlp_options(s)),
        cost=5,
    ),
    Family(
        "Histogram gradient boosting",
        lambda s: HistGradientBoostingClassifier(random_state=s),
        lambda s: HistGradientBoostingRegressor(random_state=s),
        cost=3,
    ),
)


def in_forms(dense: np.ndarray, sparse_format: Literal["csc", "csr"]) -> dict[FeatureForm, Features]:
    """The preprocessed features in every form a family takes (``FEATURE_FORMS``).

    For fitting (``"csc"``) sparse matrices are column-compressed and ``float32_columns`` is stored
    by columns, as the tree splitter reads them; for scoring (``"csr"``) both are by rows, as
    prediction walks them.
    """
    single = dense.astype(np.float32)
    fitting = sparse_format == "csc"
    return {
        "float64": dense,
        "float32": single,
        "float32_columns": np.asfortranarray(single) if fitting else single,
        "sparse": sparse.csc_matrix(single) if fitting else sparse.csr_matrix(single),
    }


def feature_frame(frame: pd.DataFrame, kinds: dict[str, ColumnKind]) -> pd.DataFrame:
    """Canonical columns in the dtypes the preprocessing takes: floats, and objects with NaN."""
    out = {}
    for column, kind in kinds.items():
        values = frame[column]
        if kind is ColumnKind.DATETIME:
            seconds = values.astype("int64").astype(float) / 1e9
            out[column] = seconds.where(values.notna(), np.nan)
        elif kind.is_ordered:
            out[column] = values.astype(float)
        else:
            out[column] = pd.Series(values.to_numpy(dtype=object, na_value=np.nan), index=frame.index)
    return pd.DataFrame(out, index=frame.index)


def preprocessor(kinds: dict[str, ColumnKind], max_categories: int) -> ColumnTransformer:
    """The features' preparation (unfitted): numbers imputed and standardised, categories one-hot."""
    numbers = [c for c, k in kinds.items() if k.is_ordered]
    categories = [c for c, k in kinds.items() if not k.is_ordered]
    numeric = Pipeline(
        [
            ("impute", SimpleImputer(strategy="median", add_indicator=True, keep_empty_features=True)),
            ("scale", StandardScaler()),
        ]
    )
    categorical = Pipeline(
        [
            (
                "impute",
                SimpleImputer(strategy="constant", fill_value=MISSING_LEVEL, keep_empty_features=True),
            ),
            (
                "one_hot",
                OneHotEncoder(handle_unknown="ignore", max_categories=max_categories, sparse_output=False),
            ),
        ]
    )
    parts = [("numbers", numeric, numbers)] if numbers else []
    parts += [("categories", categorical, categories)] if categories else []
    return ColumnTransformer(parts, remainder="drop", sparse_threshold=0.0)


class UndefinedScore(Exception):
    """The score cannot be computed on this side (one class only, or a constant target)."""


def score(model: Any, x: Features, y: np.ndarray, task: Task) -> float:
    """AUROC (one-vs-rest macro average over the classes present) or R^2 of a fitted model."""
    if task == "regression":
        return float(r2_score(y, model.predict(x)))
    return auroc(y, class_scores(model, x), list(model.classes_))


def class_scores(model: Any, x: Features) -> np.ndarray:
    """One column of scores per class of the model: probabilities, or decision values (linear SVM)."""
    if hasattr(model, "predict_proba"):
        return np.asarray(model.predict_proba(x))
    decision = np.asarray(model.decision_function(x))
    return np.column_stack([-decision, decision]) if decision.ndim == 1 else decision


def auroc(y: np.ndarray, scores: np.ndarray, classes: Sequence[Any]) -> float:
    """AUROC of ``scores`` (columns in the order of ``classes``) for the labels ``y``.

    Two classes present: the AUROC of the later one (in sorted order). More: the mean over the
    classes present of each class against the rest. A class the model never saw in training scores
    0 for every row, so it contributes 0.5, the AUROC of a guess.
    """
    present = np.unique(y)
    if len(present) < 2:
        raise UndefinedScore(f"only one class ({present[0]!r}) to score against")
    column = {c: i for i, c in enumerate(classes)}

    def one_vs_rest(c: Any) -> float:
        values = scores[:, column[c]] if c in column else np.zeros(len(y))
        return float(roc_auc_score(y == c, values))

    if len(present) == 2:
        return one_vs_rest(present[1])
    return float(np.mean([one_vs_rest(c) for c in present]))


_ITERATIVE = (LogisticRegression, LinearSVC, LinearSVR, MLPClassifier, MLPRegressor)


def did_not_converge(model: Any) -> bool:
    """Whether a solver stopped at its iteration cap before converging (its score is still kept).

    Read from the fitted model rather than from scikit-learn's ``ConvergenceWarning``, which is
    silenced while the models run: warnings are process-wide and the models run in threads.
    """
    inner = getattr(model, "regressor_", model)
    if not isinstance(inner, _ITERATIVE):
        return False
    return bool(np.max(inner.n_iter_) >= inner.max_iter)
