"""reportgen's phik of a contingency table is phik's own, to the last bit, on tables of any shape."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from phik.phik import phik_from_hist2d

from reportgen.metrics.phik_table import phik_of_table


@st.composite
def tables(draw: st.DrawFn) -> np.ndarray:
    """A contingency table of two associated codes: some cells follow a shared pattern, some are noise.

    Rows and columns with no count are dropped (as a table of observed codes has none); at least
    two rows and two columns remain.
    """
    n_rows = draw(st.integers(2, 40))
    n_columns = draw(st.integers(2, 12))
    n = draw(st.integers(10, 4000))
    tie = draw(st.floats(0.0, 1.0))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    a = rng.integers(0, n_rows, n)
    b = np.where(rng.random(n) < tie, a % n_columns, rng.integers(0, n_columns, n))
    table = np.zeros((n_rows, n_columns), dtype=np.int64)
    np.add.at(table, (a, b), 1)
    table = table[table.any(axis=1)][:, table.any(axis=0)]
    if min(table.shape) < 2:
        table = np.array([[n, 1], [1, n]])
    return table


@settings(max_examples=150, deadline=None)
@given(tables())
def test_phik_of_a_table_is_phiks_to_the_last_bit(table):
    assert phik_of_table(table) == phik_from_hist2d(table)


def test_a_column_of_many_categories_is_phiks_too():
    """Lahman's birthCity against a 10-bin column: the shape that made phik slow."""
    rng = np.random.default_rng(3)
    a = rng.integers(0, 1451, 4000)
    b = (a % 10 + rng.integers(0, 2, 4000)) % 10
    table = np.zeros((1451, 10), dtype=np.int64)
    np.add.at(table, (a, b), 1)
    table = table[table.any(axis=1)]
    assert phik_of_table(table) == phik_from_hist2d(table)


def test_independent_and_identical_columns_reach_phiks_bounds():
    identical = np.diag([50, 40, 30])
    independent = np.full((3, 4), 25)
    assert phik_of_table(identical) == phik_from_hist2d(identical) == 1.0
    assert phik_of_table(independent) == phik_from_hist2d(independent) == 0.0
