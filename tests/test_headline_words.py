"""The words beside a headline follow from its numbers."""

from types import SimpleNamespace

import numpy as np

from reportgen.sections.alpha_beta import _curve_gap

LEVELS = list(np.linspace(0, 1, 11))


def scores(lift: float) -> SimpleNamespace:
    """Curves ``lift`` above the diagonal (clipped to 1)."""
    curve = [min(1.0, a + lift) for a in LEVELS]
    return SimpleNamespace(curves=SimpleNamespace(levels=LEVELS, precision=curve, recall=curve))


def test_recall_above_the_diagonal_but_below_the_holdout_is_under_coverage():
    """A generator that covers less than fresh real rows do is never called over-coverage or copying."""
    table = SimpleNamespace(synthetic=scores(0.05), holdout=scores(0.15))
    gap = _curve_gap("beta_recall", table)
    assert gap is not None and "less" in gap and "copying" not in gap


def test_recall_level_with_the_holdout_has_no_gap():
    table = SimpleNamespace(synthetic=scores(0.1), holdout=scores(0.1))
    assert _curve_gap("beta_recall", table) is None


def test_without_a_holdout_the_diagonal_is_the_level():
    assert "more" in (_curve_gap("beta_recall", SimpleNamespace(synthetic=scores(0.1), holdout=None)) or "")
