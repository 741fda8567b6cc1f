"""Phik of one contingency table: ``phik.phik.phik_from_hist2d``'s numbers, at a fraction of its cost.

Phik turns a table's chi-square into the correlation of a bivariate normal whose binned version,
on a uniform grid over [-5, 5] of the table's shape, has that chi-square; it solves for the
correlation with Brent's method, and every step integrates the normal over every cell of the grid.
phik (0.12) integrates each cell on its own (four of scipy's bivariate normal CDFs per cell, behind
several layers of Python per call). A table with a column of many categories is then slow: a pair
with lahman's ``birthCity`` (1,451 categories) took about 2 s, and lahman's people table 37 s per
role.

Here the same CDF (scipy's ``_bvnu``, the one phik reaches through ``scipy.stats._qmvnt``) is
evaluated once per grid point and each cell is its four corners' difference, with the same
arithmetic in the same order; the cell probabilities are laid out as phik lays them out (half the
grid, then the same values again: the grid is symmetric), so every sum runs in the same order. The
chi-square, the noise pedestal and the root-finding are phik's, step for step. The numbers are
therefore phik's to the last bit (``tests/metrics/test_phik_table.py`` checks them against
``phik.phik_matrix``), and a 1,451-category pair takes milliseconds.
"""

from __future__ import annotations

import numpy as np
from phik.statistics import estimate_simple_ndof, get_chi2_using_dependent_frequency_estimates
from scipy import optimize
from scipy.stats._qmvnt import _bvnu  # the cell integral phik reaches here (scipy >= 1.16; a ufunc from 1.18)

GRID_HALF_WIDTH = 5.0  # phik's bivariate normal lives on [-5, 5] on both axes
RHO_TOLERANCE = 1e-5  # phik's xtol for Brent's method


def phik_of_table(observed: np.ndarray) -> float:
    """Phik of a contingency table with at least two rows and two columns, with noise correction.

    ``phik.phik.phik_from_hist2d(observed)``: the Pearson chi-square of the table against its
    independent margins, less phik's noise pedestal (its effective degrees of freedom), converted to
    the correlation of a binned bivariate normal.
    """
    chi2 = get_chi2_using_dependent_frequency_estimates(observed, lambda_="pearson")
    pedestal = max(estimate_simple_ndof(observed), 0)
    n_x, n_y = observed.shape
    return _phik_from_chi2(chi2, observed.sum(), n_x, n_y, pedestal)


def _phik_from_chi2(chi2: float, n: int, nx: int, ny: int, pedestal: float) -> float:
    """``phik.bivariate.phik_from_chi2`` on phik's uniform grid, step for step."""
    sx = np.linspace(-GRID_HALF_WIDTH, GRID_HALF_WIDTH, nx + 1)
    sy = np.linspace(-GRID_HALF_WIDTH, GRID_HALF_WIDTH, ny + 1)
    corr0 = _cell_probabilities(0, sx, sy)
    chi2_one = n * np.sum(_ratio(_cell_probabilities(1, sx, sy), corr0))
    chi2_max = n * min(nx - 1, ny - 1)
    scale = (chi2_max - pedestal) / chi2_one
    if chi2 > chi2_max and np.isclose(chi2, chi2_max, atol=1e-14):
        chi2 = chi2_max
    if chi2 <= pedestal:
        return 0.0
    if chi2 >= chi2_max:
        return 1.0

    def chi2_at(rho: float) -> float:
        chi2_rho = n * np.sum(_ratio(_cell_probabilities(rho, sx, sy), corr0))
        return pedestal + chi2_rho * scale - chi2

    return optimize.brentq(chi2_at, 0, 1, xtol=RHO_TOLERANCE)


def _ratio(corr: np.ndarray, corr0: np.ndarray) -> np.ndarray:
    """Each cell's ``(corr - corr0)^2 / corr0`` (0 where ``corr0`` is 0), as phik computes it."""
    delta = (corr - corr0) ** 2
    return np.divide(delta, corr0, out=np.zeros_like(delta), where=corr0 != 0)


def _cell_probabilities(rho: float, sx: np.ndarray, sy: np.ndarray) -> np.ndarray:
    """``phik.bivariate._mvn_array(rho, sx, sy)``: the normal's mass in each cell, in phik's order.

    Phik integrates the cells of the first half of the x bins (all y bins), then, for an odd number
    of x bins, the first half of the middle column's cells and its centre cell; the second half of
    the grid mirrors the first, so its values are the same list again (without the centre cell).
    """
    n_x, n_y = len(sx) - 1, len(sy) - 1
    half_x, half_y = n_x // 2, n_y // 2
    rows_needed = half_x + (2 if n_x % 2 else 1)  # x edges 0..half_x (+1 for the middle column)
    r = float(rho)
    cdf = np.array([[_bvnu(x, y, r) for y in sy] for x in sx[:rows_needed]])
    # _bvnu is the upper orthant P(X > x, Y > y); a cell is its corners' difference, as scipy's
    # _bvn computes it: P(xl, yl) - P(xu, yl) - P(xl, yu) + P(xu, yu), clipped to [0, 1].
    cells = cdf[:-1, :-1] - cdf[1:, :-1] - cdf[:-1, 1:] + cdf[1:, 1:]
    cells = np.maximum(0.0, np.minimum(cells, 1.0))
    first = [cells[:half_x].ravel()]
    centre = False
    if n_x % 2:
        first.append(cells[half_x, :half_y])
        if n_y % 2:
            first.append(cells[half_x, half_y : half_y + 1])
            centre = True
    corr = np.concatenate(first)
    return np.concatenate([corr, corr[:-1] if centre else corr])
