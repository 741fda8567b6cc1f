import numpy as np
import pandas as pd
import pytest

from reportgen import ForeignKey, PrimaryKey, RelationalData, Schema, SchemaError, Table
from reportgen.data.entities import child_keys, entity_tables, entity_view
from reportgen.data.links import link
from reportgen.data.schema import ColumnKind

K = ColumnKind
SHOP_SCHEMA = Schema(
    customers=Table(id=PrimaryKey(), seg="categorical", age="numeric"),
    orders=Table(
        id=PrimaryKey(),
        cust=ForeignKey(parent="customers"),
        amount="numeric",
        qty="integer",
        channel="categorical",
        day="datetime",
        paid="boolean",
    ),
)


def compared_of(data: RelationalData) -> dict[str, list[str]]:
    """Every non-key column of a comparable kind (the test's stand-in for PreparedTable)."""
    return {
        name: [c for c, k in t.kinds.items() if k.is_compared and c not in t.primary_key]
        for name, t in data.schema.items()
    }


def kinds_of(data: RelationalData) -> dict[str, dict[str, ColumnKind]]:
    return {name: dict(t.kinds) for name, t in data.schema.items()}


def view(data: RelationalData, parent: str) -> tuple[pd.DataFrame, dict[str, ColumnKind]]:
    return entity_view(data, parent, compared_of(data), kinds_of(data))


def shop(customers: pd.DataFrame, orders: pd.DataFrame) -> RelationalData:
    return RelationalData({"customers": customers, "orders": orders}, SHOP_SCHEMA)


def customers_frame() -> pd.DataFrame:
    """Customers 3, 1, 2 (not in key order) under a non-default index."""
    return pd.DataFrame(
        {"id": [3, 1, 2], "seg": ["x", "y", "x"], "age": [30.0, 40.0, 50.0]}, index=[100, 101, 102]
    )


def orders_frame() -> pd.DataFrame:
    """Customer 1: no orders; 2: one; 3: three, with a tie between 'web' and 'shop' for the mode."""
    return pd.DataFrame(
        {
            "id": [10, 11, 12, 13],
            "cust": [3, 2, 3, 3],
            "amount": [1.0, 5.0, 2.0, 6.0],
            "qty": [1, 4, 2, 2],
            "channel": ["web", "web", "shop", None],
            "day": pd.to_datetime(["2020-01-01", "2020-02-01", "2020-01-03", "2020-01-05"]),
            "paid": [True, False, False, True],
        }
    )


def test_hand_computed_view_of_parents_with_zero_one_and_three_children():
    frame, kinds = view(shop(customers_frame(), orders_frame()), "customers")
    assert list(frame.index) == [100, 101, 102]
    assert list(frame.columns) == [
        "seg",
        "age",
        "orders.count",
        "orders.amount.mean",
        "orders.qty.mean",
        "orders.channel.mode",
        "orders.day.mean",
        "orders.paid.mode",
    ]
    assert frame["seg"].tolist() == ["x", "y", "x"]
    assert frame["orders.count"].tolist() == [3.0, 0.0, 1.0]
    np.testing.assert_allclose(frame["orders.amount.mean"], [3.0, np.nan, 5.0])
    np.testing.assert_allclose(frame["orders.qty.mean"], [5 / 3, np.nan, 4.0])
    # customer 3: 'web' and 'shop' once each (the missing channel is left out): the smaller string wins
    assert frame["orders.channel.mode"].tolist() == ["shop", pd.NA, "web"]
    assert frame["orders.paid.mode"].tolist() == ["true", pd.NA, "false"]
    days = frame["orders.day.mean"]
    assert days.iloc[0] == pd.Timestamp("2020-01-03", tz="UTC")
    assert pd.isna(days.iloc[1])
    assert days.iloc[2] == pd.Timestamp("2020-02-01", tz="UTC")
    assert kinds == {
        "seg": K.CATEGORICAL,
        "age": K.NUMERIC,
        "orders.count": K.INTEGER,
        "orders.amount.mean": K.NUMERIC,
        "orders.qty.mean": K.NUMERIC,
        "orders.channel.mode": K.CATEGORICAL,
        "orders.day.mean": K.DATETIME,
        "orders.paid.mode": K.CATEGORICAL,
    }
    assert str(frame["orders.day.mean"].dtype) == "datetime64[ns, UTC]"
    assert str(frame["orders.channel.mode"].dtype) == "string"


def test_only_compared_columns_and_never_keys():
    data = shop(customers_frame(), orders_frame())
    compared = {"customers": ["id", "age"], "orders": ["cust", "amount"]}
    frame, kinds = entity_view(data, "customers", compared, kinds_of(data))
    assert list(frame.columns) == ["age", "orders.count", "orders.amount.mean"]
    assert list(kinds) == list(frame.columns)
    # a table left out of `compared` still gets its count
    frame, _ = entity_view(data, "customers", {}, kinds_of(data))
    assert list(frame.columns) == ["orders.count"]


def test_two_foreign_keys_from_one_child_to_the_same_parent():
    accounts = pd.DataFrame({"id": [1, 2, 3], "bank": ["a", "b", "a"]})
    transfers = pd.DataFrame({"src": [1, 1, 2], "dst": [2, 3, 3], "amount": [10.0, 20.0, 30.0]})
    schema = Schema(
        accounts=Table(id=PrimaryKey(), bank="categorical"),
        transfers=Table(src=ForeignKey("accounts"), dst=ForeignKey("accounts"), amount="numeric"),
    )
    data = RelationalData({"accounts": accounts, "transfers": transfers}, schema)
    frame, _ = view(data, "accounts")
    assert list(frame.columns) == [
        "bank",
        "transfers[src].count",
        "transfers[src].amount.mean",
        "transfers[dst].count",
        "transfers[dst].amount.mean",
    ]
    assert frame["transfers[src].count"].tolist() == [2.0, 1.0, 0.0]
    assert frame["transfers[dst].count"].tolist() == [0.0, 1.0, 2.0]
    np.testing.assert_allclose(frame["transfers[src].amount.mean"], [15.0, 30.0, np.nan])
    np.testing.assert_allclose(frame["transfers[dst].amount.mean"], [np.nan, 10.0, 25.0])


def test_a_child_table_with_zero_rows_gives_the_same_columns():
    full, full_kinds = view(shop(customers_frame(), orders_frame()), "customers")
    empty, empty_kinds = view(shop(customers_frame(), orders_frame().iloc[:0]), "customers")
    assert list(empty.columns) == list(full.columns)
    assert empty_kinds == full_kinds
    pd.testing.assert_series_equal(empty.dtypes, full.dtypes)
    assert empty["orders.count"].tolist() == [0.0, 0.0, 0.0]
    aggregates = [c for c in empty.columns if c.endswith((".mean", ".mode"))]
    assert empty[aggregates].isna().all().all()


def test_a_parent_table_with_zero_rows():
    frame, _ = view(shop(customers_frame().iloc[:0], orders_frame()), "customers")
    assert len(frame) == 0
    assert "orders.count" in frame.columns


def test_orphans_and_missing_keys_are_ignored():
    orders = pd.DataFrame(
        {
            "id": [10, 11, 12, 13, 14],
            "cust": [1.0, 99.0, np.nan, 1.0, 3.0],  # float keys with NaN match integer parent keys
            "amount": [2.0, 100.0, 100.0, 4.0, 7.0],
            "qty": [1, 1, 1, 1, 1],
            "channel": ["web", "web", "web", "shop", "shop"],
            "day": pd.to_datetime(["2020-01-01"] * 5),
            "paid": [True] * 5,
        }
    )
    frame, _ = view(shop(customers_frame(), orders), "customers")
    assert frame["orders.count"].tolist() == [1.0, 2.0, 0.0]
    np.testing.assert_allclose(frame["orders.amount.mean"], [7.0, 3.0, np.nan])
    assert frame["orders.channel.mode"].tolist() == ["shop", "shop", pd.NA]


def test_repeated_parent_keys_all_get_the_aggregate_of_that_key():
    customers = pd.DataFrame({"id": [1.0, 1.0, 2.0, np.nan], "seg": ["x", "y", "x", "y"], "age": 1.0})
    orders = orders_frame().assign(cust=[1, 1, 2, 1])
    frame, _ = view(shop(customers, orders), "customers")
    assert frame["orders.count"].tolist() == [3.0, 3.0, 1.0, 0.0]
    np.testing.assert_allclose(frame["orders.amount.mean"], [4.0, 4.0, 2.0, np.nan])


def test_a_composite_foreign_key_is_matched_on_the_tuple():
    parent = pd.DataFrame({"a": [1, 1, 2], "b": ["x", "y", "x"], "v": [0.0, 1.0, 2.0]})
    child = pd.DataFrame({"a": [1, 1, 2, 2], "b": ["y", "y", "x", "y"], "w": [1.0, 3.0, 5.0, 7.0]})
    schema = Schema(
        p=Table(a=PrimaryKey(), b=PrimaryKey(), v="numeric"),
        c=Table(a=ForeignKey("p", parent_column="a"), b=ForeignKey("p", parent_column="b"), w="numeric"),
    )
    data = RelationalData({"p": parent, "c": child}, schema)
    frame, _ = view(data, "p")
    assert list(frame.columns) == ["v", "c.count", "c.w.mean"]
    assert frame["c.count"].tolist() == [0.0, 2.0, 1.0]  # (2, 'y') is an orphan
    np.testing.assert_allclose(frame["c.w.mean"], [np.nan, 2.0, 5.0])
    assert_matches_relational_metrics(data)


def test_entity_tables_leave_out_self_references():
    schema = Schema(
        staff=Table(id=PrimaryKey(), boss=ForeignKey("staff")),
        desk=Table(id=PrimaryKey(), user=ForeignKey("staff")),
    )
    assert entity_tables(schema) == ["staff"]
    assert [k.child for k in child_keys(schema, "staff")] == ["desk"]
    assert entity_tables(Schema(staff=Table(id=PrimaryKey(), boss=ForeignKey("staff")))) == []


def test_chinook_views(chinook):
    assert entity_tables(chinook.schema) == [
        "Artist",
        "Album",
        "Employee",
        "Customer",
        "Genre",
        "MediaType",
        "Track",
        "Playlist",
        "Invoice",
    ]
    customers, kinds = view(chinook, "Customer")
    assert len(customers) == len(chinook["Customer"])
    assert customers["Invoice.count"].sum() == len(chinook["Invoice"])
    assert kinds["Invoice.Total.mean"] is K.NUMERIC
    assert kinds["Invoice.InvoiceDate.mean"] is K.DATETIME
    assert kinds["Invoice.BillingCountry.mode"] is K.CATEGORICAL
    albums, _ = view(chinook, "Album")
    assert len(albums) == len(chinook["Album"])
    assert albums["Track.count"].sum() == chinook["Track"]["AlbumId"].notna().sum()
    assert_matches_relational_metrics(chinook)


def assert_matches_relational_metrics(data: RelationalData) -> None:
    """Counts and numeric means agree with the relational metrics' key matching, for every key."""
    for fk in data.schema.relations:
        if fk.child == fk.parent:
            continue
        frame, _ = view(data, fk.parent)
        label = next(
            k.label
            for k in child_keys(data.schema, fk.parent)
            if (k.child, k.child_columns) == (fk.child, fk.columns)
        )
        links = link(data, fk)
        np.testing.assert_array_equal(frame[f"{label}.count"], links.children_per_parent_row())
        for column, kind in data.schema[fk.child].kinds.items():
            if kind in (K.NUMERIC, K.INTEGER) and f"{label}.{column}.mean" in frame:
                values = data[fk.child][column].to_numpy(dtype=float)
                expected = links.mean_per_parent_row(values)
                np.testing.assert_allclose(frame[f"{label}.{column}.mean"], expected, err_msg=column)


def test_inputs_are_not_mutated():
    customers, orders = customers_frame(), orders_frame()
    data = shop(customers, orders)
    before = {name: data[name].copy(deep=True) for name in data}
    view(data, "customers")
    for name in data:
        pd.testing.assert_frame_equal(data[name], before[name])
    pd.testing.assert_frame_equal(customers, customers_frame())
    pd.testing.assert_frame_equal(orders, orders_frame())


def random_shop(seed: int, n_customers: int, n_orders: int) -> RelationalData:
    rng = np.random.default_rng(seed)
    customers = pd.DataFrame(
        {
            "id": np.arange(n_customers),
            "seg": rng.choice(["x", "y"], n_customers),
            "age": rng.normal(size=n_customers),
        }
    )
    orders = pd.DataFrame(
        {
            "id": np.arange(n_orders),
            "cust": rng.integers(0, n_customers + 2, n_orders),  # a few orphans
            "amount": rng.gamma(2.0, size=n_orders),
            "qty": rng.integers(1, 5, n_orders),
            "channel": rng.choice(["web", "shop", "phone"], n_orders),
            "day": pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.integers(0, 300, n_orders), unit="D"),
            "paid": rng.choice([True, False], n_orders),
        }
    )
    return shop(customers, orders)


def test_the_same_columns_for_different_data_of_one_schema():
    train, synth = random_shop(0, 40, 100), random_shop(1, 7, 3)
    compared, kinds = compared_of(train), kinds_of(train)
    a, a_kinds = entity_view(train, "customers", compared, kinds)
    b, b_kinds = entity_view(synth, "customers", compared, kinds)
    assert list(a.columns) == list(b.columns)
    assert a_kinds == b_kinds
    pd.testing.assert_series_equal(a.dtypes, b.dtypes)
    assert (len(a), len(b)) == (40, 7)


def test_views_ignore_row_order_of_the_children():
    data = random_shop(2, 30, 120)
    shuffled = data.with_tables(
        {"customers": data["customers"], "orders": data["orders"].sample(frac=1.0, random_state=0)}
    )
    pd.testing.assert_frame_equal(view(data, "customers")[0], view(shuffled, "customers")[0])


def test_a_clash_between_a_parent_column_and_an_aggregate_name_is_an_error():
    customers = customers_frame().rename(columns={"age": "orders.count"})
    schema = Schema(
        customers=Table({"id": PrimaryKey(), "seg": "categorical", "orders.count": "numeric"}),
        orders=SHOP_SCHEMA["orders"],
    )
    data = RelationalData({"customers": customers, "orders": orders_frame()}, schema)
    with pytest.raises(SchemaError, match="orders.count"):
        view(data, "customers")
