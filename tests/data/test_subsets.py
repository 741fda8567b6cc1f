"""keep_rows: a kept subset stays referentially closed, however the keys are laid out."""

import numpy as np
import pandas as pd
import pytest

from reportgen import ForeignKey, PrimaryKey, RelationalData, Schema, Table
from reportgen.data.subsets import keep_rows
from reportgen.errors import InvalidParameterError


def shop():
    schema = Schema(
        customers=Table(cid=PrimaryKey()),
        orders=Table(oid=PrimaryKey(), cid=ForeignKey(parent="customers")),
        lines=Table(lid=PrimaryKey(), oid=ForeignKey(parent="orders")),
    )
    return RelationalData(
        {
            "customers": pd.DataFrame({"cid": [1, 2, 3], "x": [1.0, 2.0, 3.0]}),
            "orders": pd.DataFrame({"oid": [10, 11, 12, 13], "cid": [1.0, 2.0, 2.0, None]}),
            "lines": pd.DataFrame({"lid": range(6), "oid": [10, 11, 12, 13, 99, 11]}),
        },
        schema,
    )


def test_dropping_a_parent_drops_children_and_grandchildren():
    data = shop()
    subset, orphaned = keep_rows(data, {"customers": np.array([True, False, True])})
    assert subset["customers"]["cid"].tolist() == [1, 3]
    assert subset["orders"]["oid"].tolist() == [10, 13]  # a missing key has no parent to lose
    assert subset["lines"]["lid"].tolist() == [0, 3, 4]  # an orphan (99) was not orphaned here
    assert orphaned["orders"].tolist() == [False, True, True, False]
    assert orphaned["lines"].tolist() == [False, True, True, False, False, True]
    assert not orphaned["customers"].any()
    assert subset.schema is data.schema


def test_rows_dropped_in_a_middle_table_take_only_their_children():
    subset, orphaned = keep_rows(shop(), {"orders": np.array([True, True, False, True])})
    assert len(subset["customers"]) == 3
    assert subset["lines"]["lid"].tolist() == [0, 1, 3, 4, 5]
    assert orphaned["lines"].tolist() == [False, False, True, False, False, False]


def test_self_references_composite_keys_and_repeated_parent_keys():
    schema = Schema(
        staff=Table(sid=PrimaryKey(), boss=ForeignKey(parent="staff")),
        shifts=Table(shop_id=PrimaryKey(), day=PrimaryKey(), sid=ForeignKey(parent="staff")),
        tasks=Table(
            tid=PrimaryKey(),
            shop_id=ForeignKey(parent="shifts", parent_column="shop_id"),
            day=ForeignKey(parent="shifts", parent_column="day"),
        ),
    )
    data = RelationalData(
        {
            "staff": pd.DataFrame({"sid": [1, 2, 3, 4, 4], "boss": [None, 1, 2, None, None]}),
            "shifts": pd.DataFrame({"shop_id": [1, 1, 2], "day": [1, 2, 1], "sid": [3, 4, 1]}),
            "tasks": pd.DataFrame({"tid": [0, 1, 2, 3], "shop_id": [1, 1, 2, 2], "day": [1, 2, 1, 2]}),
        },
        schema,
    )
    # drop staff 2: staff 3 reports to 2, shift (1, 1) is staff 3's, task 0 belongs to that shift;
    # staff 4 appears twice (broken data): dropping one of the two rows leaves its key alive
    subset, orphaned = keep_rows(data, {"staff": np.array([True, False, True, False, True])})
    assert subset["staff"]["sid"].tolist() == [1, 4]
    assert subset["shifts"][["shop_id", "day"]].values.tolist() == [[1, 2], [2, 1]]
    assert subset["tasks"]["tid"].tolist() == [1, 2, 3]
    assert orphaned["staff"].tolist() == [False, False, True, False, False]


def test_a_mask_of_the_wrong_length_is_refused():
    with pytest.raises(InvalidParameterError, match="table 'customers' has shape"):
        keep_rows(shop(), {"customers": np.array([True])})
