import numpy as np
import pandas as pd
import pytest

from reportgen import (
    DataError,
    ForeignKey,
    IncompatibleDataError,
    InvalidParameterError,
    PrimaryKey,
    RelationalData,
    Schema,
    SchemaError,
    SplitWarning,
    Table,
)
from reportgen.data.kinds import canonical_array
from reportgen.data.roles import SYNTH, TRAIN
from reportgen.data.schema import ColumnKind
from reportgen.data.validation import check_not_empty, conform, key_findings


def assert_closed(data: RelationalData) -> None:
    """No child row refers to a parent row that is absent."""
    for name, found in data.integrity().items():
        assert found.orphans == dict.fromkeys(found.orphans, 0), name


def keys(data: RelationalData, table: str) -> set:
    pk = list(data.schema[table].primary_key)
    return set(map(tuple, data[table][pk].to_numpy().tolist()))


def test_split_keeps_entities_whole_and_both_sides_closed(chinook):
    train, test = chinook.split(0.7, seed=3, root="Artist")
    assert_closed(train)
    assert_closed(test)
    hierarchy = [chinook.default_root(), *chinook.schema.descendants(chinook.default_root())]
    assert hierarchy == ["Artist", "Album", "Track", "PlaylistTrack", "InvoiceLine"]
    for table in hierarchy:
        assert not keys(train, table) & keys(test, table), table
        assert len(train[table]) + len(test[table]) == len(chinook[table]), table
    share = len(train["Artist"]) / len(chinook["Artist"])
    assert 0.65 < share < 0.75
    # tables outside the entity hierarchy are shared lookups, present on both sides
    assert len(train["Genre"]) == len(test["Genre"]) == len(chinook["Genre"])


def test_split_is_deterministic_and_seed_dependent(chinook):
    a, _ = chinook.split(0.5, seed=1)
    b, _ = chinook.split(0.5, seed=1)
    c, _ = chinook.split(0.5, seed=2)
    assert keys(a, "Track") == keys(b, "Track")
    assert keys(a, "Track") != keys(c, "Track")


def test_split_keeps_a_self_referencing_hierarchy_together():
    staff = pd.DataFrame({"id": range(10), "boss": [np.nan, 0, 0, 1, 1, np.nan, 5, 5, 6, np.nan]})
    data = RelationalData(
        {"staff": staff}, Schema(staff=Table(id=PrimaryKey(), boss=ForeignKey(parent="staff")))
    )
    with pytest.warns(SplitWarning, match="one 'staff' entity holds 50% of table 'staff'"):
        train, test = data.split(0.5, seed=0)
    assert_closed(train)
    assert_closed(test)
    assert {len(train["staff"]), len(test["staff"])} <= {5, 4, 1, 9, 6, 3}


def test_sample_caps_rows_and_stays_closed(chinook):
    sample = chinook.sample(400, seed=0)
    assert_closed(sample)
    for name, frame in sample.items():
        assert len(frame) <= max(400, 0), name
    assert len(sample["PlaylistTrack"]) > 200  # the cap is used, not wasted
    assert chinook.sample(10**6, seed=0) is chinook


def test_whole_entities_stay_closed_when_a_lookup_tables_referred_rows_pass_the_cap():
    # Each customer has 3 orders and 3 reviews, each of a product of its own: whole customers fill
    # the cap of 60 orders and 60 reviews, which refer to 120 products, more than the lookup
    # table's cap allows. The rows of the products left out go too: the sample stays closed.
    customers = pd.DataFrame({"cid": range(300)})
    orders = pd.DataFrame({"oid": range(900), "cid": np.repeat(range(300), 3), "pid": range(900)})
    reviews = pd.DataFrame({"rid": range(900), "cid": np.repeat(range(300), 3), "pid": range(900, 1800)})
    products = pd.DataFrame({"pid": range(1800), "price": np.arange(1800.0)})
    schema = Schema(
        customers=Table(cid=PrimaryKey()),
        orders=Table(oid=PrimaryKey(), cid=ForeignKey(parent="customers"), pid=ForeignKey(parent="products")),
        reviews=Table(
            rid=PrimaryKey(), cid=ForeignKey(parent="customers"), pid=ForeignKey(parent="products")
        ),
        products=Table(pid=PrimaryKey()),
    )
    tables = {"customers": customers, "orders": orders, "reviews": reviews, "products": products}
    sample = RelationalData(tables, schema).sample(60, seed=0, root="customers")
    assert_closed(sample)
    assert len(sample["products"]) == 60
    assert 0 < len(sample["orders"]) + len(sample["reviews"]) <= 60  # 120 referred to 60 products
    assert sample.sampling["orders"].method.endswith("less the rows whose parent row was not kept")


def test_sample_of_one_table_is_a_seeded_uniform_subset(people):
    data = RelationalData(people)
    one, two = data.sample(50, seed=4), data.sample(50, seed=4)
    assert len(one["table"]) == 50
    pd.testing.assert_frame_equal(one["table"], two["table"])


def test_inputs_are_not_mutated(people):
    before = people.copy(deep=True)
    data = RelationalData(people)
    data.split(0.5, seed=0)
    data.sample(10, seed=0)
    pd.testing.assert_frame_equal(people, before)


def test_inferred_kinds_are_visible(people):
    data = RelationalData(people, Schema(table=Table(age="numeric")))
    assert "age" not in data.inferred_columns["table"]
    assert data.inferred_columns["table"]["note"].value == "text"
    assert data.inferred_columns["table"]["joined"].value == "datetime"


# ---- validation errors, each with its message -------------------------------------------------


def parent_child(parents=(1, 2, 3), children=(1, 1, 2)):
    return (
        {
            "p": pd.DataFrame({"id": list(parents)}),
            "c": pd.DataFrame({"p_id": list(children), "x": range(len(children))}),
        },
        Schema(p=Table(id=PrimaryKey()), c=Table(p_id=ForeignKey(parent="p"))),
    )


def test_schema_table_missing_from_data():
    frames, schema = parent_child()
    with pytest.raises(SchemaError, match=r"declares table\(s\) \['c'\] that the data does not have"):
        RelationalData({"p": frames["p"]}, schema)


def test_data_table_missing_from_schema():
    frames, schema = parent_child()
    with pytest.raises(SchemaError, match=r"table\(s\) \['extra'\] that the schema does not declare"):
        RelationalData({**frames, "extra": pd.DataFrame({"a": [1]})}, schema)


def test_schema_column_missing_from_data():
    with pytest.raises(SchemaError, match=r"Table 't': the schema declares column\(s\) \['age'\]"):
        RelationalData({"t": pd.DataFrame({"x": [1]})}, Schema(t=Table(age="numeric")))


def test_duplicate_primary_keys_and_orphans_in_real_data_are_findings_naming_table_and_key():
    frames, schema = parent_child(parents=(1, 1, 2), children=(1, 9, 9))
    findings = key_findings(RelationalData(frames, schema), TRAIN)
    assert {(f.code, f.table, f.column) for f in findings} == {
        ("real_duplicate_primary_keys", "p", "id"),
        ("real_orphans", "c", "p_id"),
    }
    orphans = next(f.message for f in findings if f.code == "real_orphans")
    assert "2 of 3 training rows refer to a 'p' row" in orphans and "c.p_id -> p.id" in orphans
    assert "the evaluation goes on" in orphans


def test_orphans_and_duplicates_in_synthetic_data_are_findings_not_errors():
    frames, schema = parent_child(parents=(1, 1, 2), children=(1, 9, 9))
    findings = key_findings(RelationalData(frames, schema), SYNTH)
    assert {(f.code, f.table, f.column) for f in findings} == {
        ("synthetic_duplicate_primary_keys", "p", "id"),
        ("synthetic_orphans", "c", "p_id"),
    }
    assert "2 of 3 synthetic rows" in next(f.message for f in findings if f.code == "synthetic_orphans")


def test_empty_table():
    frames, schema = parent_child(children=())
    with pytest.raises(DataError, match="Table 'c' of the training data has no rows"):
        check_not_empty(RelationalData(frames, schema), TRAIN)


def test_synthetic_missing_column_and_extra_column():
    frames, schema = parent_child()
    real = RelationalData(frames, schema)
    with pytest.raises(
        IncompatibleDataError, match=r"Table 'c' of the synthetic data lacks column\(s\) \['x'\]"
    ):
        conform(real, {"p": frames["p"], "c": frames["c"][["p_id"]]}, SYNTH)
    synth, findings = conform(real, {"p": frames["p"], "c": frames["c"].assign(y=1)}, SYNTH)
    assert list(synth["c"].columns) == ["p_id", "x"]
    assert [(f.code, f.table, f.column) for f in findings] == [("extra_column", "c", "y")]


def test_synthetic_declared_kind_that_differs():
    frames, schema = parent_child()
    real = RelationalData(frames, schema)
    other = RelationalData(
        frames,
        Schema(p=Table(id=PrimaryKey()), c=Table(p_id=ForeignKey(parent="p"), x="categorical")),
    )
    real_declared = RelationalData(
        frames, Schema(p=Table(id=PrimaryKey()), c=Table(p_id=ForeignKey(parent="p"), x="numeric"))
    )
    assert conform(
        real, other, SYNTH
    )  # inferred kinds on the reference side are not declarations to contradict
    with pytest.raises(
        IncompatibleDataError,
        match="column 'x': the synthetic data declares it categorical, the training data numeric",
    ):
        conform(real_declared, other, SYNTH)


def test_split_parameters_are_validated(chinook):
    with pytest.raises(
        InvalidParameterError,
        match=r"The 'ratio' parameter of split must be a float in the range \(0, 1\). Got 1.5 instead.",
    ):
        chinook.split(1.5)
    with pytest.raises(InvalidParameterError, match="'root' parameter of split"):
        chinook.split(0.5, root="Nope")


def canonical_rows(data: RelationalData) -> pd.DataFrame:
    """The table's rows as the canonical order hashes them (``canonical_array`` per column)."""
    frame, kinds = data["table"], data.schema["table"].kinds
    return pd.DataFrame(
        {c: canonical_array(frame[c], kinds[c], c, show_examples=False) for c in sorted(frame)}
    )


def test_the_canonical_order_is_that_of_the_values_whatever_their_order_dtype_or_time_zone():
    """Ties (duplicate rows), NaN and None, -0.0, categories in any dtype, integral floats, time zones."""
    rng = np.random.default_rng(5)
    n = 400
    given = pd.DataFrame(
        {
            "x": np.where(rng.random(n) < 0.1, np.nan, rng.integers(-1, 3, n).astype(float)),
            "c": pd.Categorical(rng.choice(["u", "v", "w"], n), categories=["w", "v", "u"]),
            "k": rng.integers(0, 3, n),
            "t": pd.Timestamp("2020-01-01", tz="UTC") + pd.to_timedelta(rng.integers(0, 3, n), unit="h"),
            "b": rng.choice([True, False], n),
        }
    )
    assert given.duplicated().sum() > 100  # many rows tie
    data = RelationalData({"table": given}, Schema(table=Table(k=ColumnKind.CATEGORICAL)))
    shuffled = given.iloc[rng.permutation(n)].reset_index(drop=True)
    other = pd.DataFrame(
        {
            "x": shuffled["x"].astype(object).where(shuffled["x"].notna(), None).replace(0.0, -0.0),
            "c": shuffled["c"].astype(str),
            "k": shuffled["k"].astype(float),
            "t": shuffled["t"].dt.tz_convert("Europe/Rome"),
            "b": shuffled["b"].astype(object),
        }
    )
    ordered = data.in_canonical_order()
    assert isinstance(ordered["table"].index, pd.RangeIndex)
    pd.testing.assert_frame_equal(
        canonical_rows(ordered), canonical_rows(data.with_tables({"table": other}).in_canonical_order())
    )
    assert not canonical_rows(ordered).equals(canonical_rows(data))  # the order did change


def test_a_column_that_does_not_convert_is_ordered_by_its_labels_and_left_to_the_conversion_check():
    given = pd.DataFrame({"x": [1.5, 2.0, 3.0, 4.0] * 10, "y": list(range(40))}).astype({"x": object})
    given.loc[3, "x"] = "oops"
    data = RelationalData({"table": given}, Schema(table=Table(x=ColumnKind.NUMERIC)))
    reversed_rows = data.with_tables({"table": given.iloc[::-1].reset_index(drop=True)})
    first, second = data.in_canonical_order()["table"], reversed_rows.in_canonical_order()["table"]
    pd.testing.assert_frame_equal(first, second)
