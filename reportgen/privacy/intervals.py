"""Intervals for attack results: Clopper-Pearson for rates, DeLong for AUC, the empirical epsilon bound.

- ``clopper_pearson(k, n)``: the exact binomial interval of a rate ``k / n`` (Clopper and Pearson,
  1934), two-sided or one-sided, from the quantiles of the beta distribution. It never leaves
  [0, 1] and keeps its coverage at rates near 0, where the attacks' rates at low false-positive
  rates live (a normal approximation fails there).
- ``delong_auc(members, non_members)``: the AUC with ties counted one half, and its standard error
  by DeLong, DeLong and Clarke-Pearson (1988), through midranks (Sun and Xu, 2014).
- ``epsilon_lower_bounds(tp, fp, n_members, n_non_members)``: a differentially private release
  (pure epsilon, delta = 0) bounds every test by ``TPR <= e^eps FPR`` and ``1 - FPR <= e^eps (1 - TPR)``,
  so a test that reaches ``TPR`` and ``FPR`` shows ``eps >= ln(TPR / FPR)`` and ``eps >=
  ln((1 - FPR) / (1 - TPR))``. Each is made a lower bound by the one-sided Clopper-Pearson bounds
  ``TPR_lo`` and ``FPR_hi`` (and ``1 - FPR_hi``, ``1 - TPR_lo``: the interval of ``(n - k) / n`` is
  one minus that of ``k / n``), after Jagielski, Ullman and Oprea (2020). Values below 0 say
  nothing and are reported as 0. For (epsilon, delta)-differential privacy each inequality gains a
  ``+ delta`` (``TPR <= e^eps FPR + delta``, ``1 - FPR <= e^eps (1 - TPR) + delta``), so the bounds
  become ``ln((TPR_lo - delta) / FPR_hi)`` and ``ln((1 - FPR_hi - delta) / (1 - TPR_lo))``, and a
  rate that does not exceed ``delta`` proves nothing (``delta=0``, the default, gives the pure bounds
  exactly).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy.stats import beta, norm, rankdata

CONFIDENCE = 0.95

Side = Literal["two-sided", "lower", "upper"]


def clopper_pearson(
    successes: ArrayLike, trials: ArrayLike, *, confidence: float = CONFIDENCE, side: Side = "two-sided"
) -> tuple[np.ndarray, np.ndarray]:
    """The exact interval ``(low, high)`` of the rate ``successes / trials`` (arrays broadcast).

    ``side="lower"`` gives the one-sided bound ``low`` at ``confidence`` (``high`` is 1),
    ``"upper"`` the bound ``high`` (``low`` is 0); ``"two-sided"`` puts ``(1 - confidence) / 2`` on
    each side. ``low`` is 0 when there is no success, ``high`` is 1 when every trial succeeds.
    """
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    tail = (1 - confidence) / 2 if side == "two-sided" else 1 - confidence
    low = np.where(k > 0, beta.ppf(tail, np.maximum(k, 1), n - k + 1), 0.0)
    high = np.where(k < n, beta.ppf(1 - tail, k + 1, np.maximum(n - k, 1)), 1.0)
    if side == "lower":
        high = np.ones_like(high)
    elif side == "upper":
        low = np.zeros_like(low)
    return low, high


def epsilon_lower_bounds(
    tp: ArrayLike,
    fp: ArrayLike,
    n_members: int,
    n_non_members: int,
    *,
    confidence: float = CONFIDENCE,
    delta: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """``(ln((TPR_lo - delta) / FPR_hi), ln((1 - FPR_hi - delta) / (1 - TPR_lo)))`` per threshold, each >= 0.

    ``tp`` and ``fp`` count the members and non-members a threshold calls members; each bound is a
    one-sided Clopper-Pearson bound at ``confidence``. ``delta``: the delta of (epsilon, delta)-DP
    the bounds are of (0: pure epsilon-DP).
    """
    tpr_low = clopper_pearson(tp, n_members, confidence=confidence, side="lower")[0]
    fpr_high = clopper_pearson(fp, n_non_members, confidence=confidence, side="upper")[1]
    with np.errstate(divide="ignore", invalid="ignore"):
        direct = np.log(np.maximum(tpr_low - delta, 0.0)) - np.log(fpr_high)
        complementary = np.log1p(np.maximum(-fpr_high - delta, -1.0)) - np.log1p(-tpr_low)
    return np.fmax(direct, 0.0), np.fmax(complementary, 0.0)  # fmax: a 0/0 edge proves nothing


def delong_auc(members: ArrayLike, non_members: ArrayLike) -> tuple[float, float]:
    """``(AUC, standard error)`` of scores where higher means "member"; ties count one half.

    The AUC is the Mann-Whitney statistic ``P(member score > non-member score) + P(tie) / 2``; the
    standard error is DeLong's, from the midranks of each set and of both together.
    """
    x = np.asarray(members, dtype=np.float64)
    y = np.asarray(non_members, dtype=np.float64)
    m, n = len(x), len(y)
    pooled = rankdata(np.concatenate([x, y]))
    auc = (pooled[:m].sum() - m * (m + 1) / 2) / (m * n)
    v10 = (pooled[:m] - rankdata(x)) / n
    v01 = 1 - (pooled[m:] - rankdata(y)) / m
    variance = v10.var(ddof=1) / m + v01.var(ddof=1) / n if min(m, n) > 1 else 0.0
    return float(auc), float(np.sqrt(variance))


def normal_interval(
    estimate: float, standard_error: float, *, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """``estimate ± z * standard_error``, clipped to [0, 1] (the AUC's interval)."""
    z = float(norm.ppf(0.5 + confidence / 2))
    return max(0.0, estimate - z * standard_error), min(1.0, estimate + z * standard_error)
