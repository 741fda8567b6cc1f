import numpy as np
import pandas as pd
import pytest

from reportgen import ColumnKind, IncompatibleDataError
from reportgen.data.kinds import infer_kind, to_canonical


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        (pd.Series(np.arange(100) * 1.5), ColumnKind.NUMERIC),
        (pd.Series(np.arange(100)), ColumnKind.INTEGER),
        (pd.Series(np.arange(100) % 5), ColumnKind.CATEGORICAL),  # few distinct integers
        (pd.Series([True, False] * 10), ColumnKind.BOOLEAN),
        (pd.Series(["a", "b", None] * 30), ColumnKind.CATEGORICAL),
        (pd.Series([f"id-{i}" for i in range(100)]), ColumnKind.TEXT),
        (pd.Series([f"id-{i}" for i in range(40)]), ColumnKind.CATEGORICAL),  # unique but few
        (pd.Series(["2021-01-01 10:00:00", "2022-05-03", None] * 10), ColumnKind.DATETIME),
        (pd.Series(pd.date_range("2020", periods=30, tz="Europe/Rome")), ColumnKind.DATETIME),
        (pd.Series(["a", "b"] * 5, dtype="category"), ColumnKind.CATEGORICAL),
    ],
)
def test_inference_follows_the_spec(values, kind):
    assert infer_kind(values) is kind


def test_max_categories_moves_the_boundary():
    values = pd.Series(np.arange(100) % 30)
    assert infer_kind(values, max_categories=20) is ColumnKind.INTEGER
    assert infer_kind(values, max_categories=30) is ColumnKind.CATEGORICAL


def test_categories_agree_across_int_and_float_columns():
    ints = to_canonical(pd.Series([1, 2, 3]), ColumnKind.CATEGORICAL, "t", show_examples=False)
    floats = to_canonical(pd.Series([1.0, 2.0, np.nan]), ColumnKind.CATEGORICAL, "t", show_examples=False)
    assert list(ints[:2]) == list(floats[:2]) == ["1", "2"]
    assert floats.isna().tolist() == [False, False, True]


def test_datetimes_become_utc():
    local = pd.Series(pd.date_range("2020-01-01 12:00", periods=2, tz="Europe/Rome"))
    out = to_canonical(local, ColumnKind.DATETIME, "t", show_examples=False)
    assert str(out.dt.tz) == "UTC"
    assert out.iloc[0] == pd.Timestamp("2020-01-01 11:00", tz="UTC")


def test_unreadable_numbers_name_column_and_hide_real_values():
    values = pd.Series(["1", "2", "secret-name"])
    with pytest.raises(IncompatibleDataError, match="column 'x'.*1 of 3") as info:
        to_canonical(values, ColumnKind.NUMERIC, "Table 't', column 'x'", show_examples=False)
    assert "secret-name" not in str(info.value)
    with pytest.raises(IncompatibleDataError, match="such as 'secret-name'"):
        to_canonical(values, ColumnKind.NUMERIC, "Table 't', column 'x'", show_examples=True)


def test_category_labels_tell_apart_values_that_compare_equal():
    """Labels are made once per distinct value, but True == 1 == 1.0 must not share a label."""
    from decimal import Decimal

    values = pd.Series([True, 1, 1.0, Decimal("1.0"), "a", None, np.nan, False, 0], dtype=object)
    out = to_canonical(values, ColumnKind.CATEGORICAL, "t.c", show_examples=False)
    expected = ["true", "1", "1", "1.0", "a", pd.NA, pd.NA, "false", "0"]
    assert out.tolist() == expected
    assert str(out.dtype) == "string"


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        (pd.Series(["b", "a", None, "b"], dtype="string[pyarrow]", name="x"), ["b", "a", pd.NA, "b"]),
        (pd.Series([2.0, np.nan, 2.5, -0.0], name="x"), ["2", pd.NA, "2.5", "0"]),
        (pd.Series([True, None, False], dtype="boolean", name="x"), ["true", pd.NA, "false"]),
    ],
)
def test_category_labels_keep_the_rows_index_and_name(values, expected):
    values.index = [10, 3, 7, 1][: len(values)]
    out = to_canonical(values, ColumnKind.CATEGORICAL, "t.c", show_examples=False)
    assert out.index.tolist() == values.index.tolist() and out.name == "x"
    assert out.tolist() == expected
