"""Type reconciliation between roles: equivalent encodings aligned, unreadable values stated."""

import datetime as dt

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen.data.io import load_folder
from reportgen.data.schema import ColumnKind
from reportgen.errors import IncompatibleDataError, LoadError, SchemaError
from reportgen.preparation import prepare_context
from reportgen.settings import ReportSettings

N = 200


def people(seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.normal(40, 10, N).round(1),
            "city": rng.choice(["Rome", "Oslo", "Lima"], N),
            "member": rng.choice([True, False], N),
        }
    )


def prepare(train, test, synth, schema=None):
    return prepare_context(train, test, synth, ReportSettings(), schema=schema)


def found(ctx, code):
    return [(f.table, f.column) for f in ctx.findings if f.code == code]


@pytest.mark.parametrize(
    "encode",
    [
        lambda v: v.astype(int),
        lambda v: v.map({True: "yes", False: "no"}),
        lambda v: v.map({True: "True", False: "False"}),
        lambda v: v.map({True: "Y", False: "N"}),
        lambda v: v.astype(float).where(v.index % 7 > 0),  # 1.0/0.0 with gaps
    ],
    ids=["0/1", "yes/no", "True/False strings", "Y/N", "floats with gaps"],
)
def test_a_boolean_column_in_another_encoding_is_aligned_with_a_finding(encode):
    train, synth = people(0), people(1)
    given = synth.assign(member=encode(synth["member"]))
    kept = given.copy()
    ctx = prepare(train, None, given)
    real, fake = ctx.table("table").frame("training"), ctx.table("table").frame("synthetic")
    assert set(fake["member"].dropna()) <= set(real["member"].dropna()) == {"true", "false"}
    assert found(ctx, "boolean_encoding_aligned") == [("table", "member")]
    pd.testing.assert_frame_equal(given, kept)  # the input is not touched


def test_the_training_encoding_wins_when_it_is_yes_no():
    train = people(0).assign(member=lambda f: f["member"].map({True: "Yes", False: "No"}))
    ctx = prepare(train, None, people(1))
    fake = ctx.table("table").frame("synthetic")["member"]
    assert set(fake) == {"Yes", "No"}
    assert found(ctx, "boolean_encoding_aligned") == [("table", "member")]


def test_a_boolean_column_with_other_values_is_refused_naming_table_and_column():
    synth = people(1).assign(member=lambda f: f["member"].map({True: "maybe", False: "no"}))
    with pytest.raises(IncompatibleDataError, match=r"Table 'table', column 'member'.*boolean"):
        prepare(people(0), None, synth)


def relational(parent_ids, child_ids):
    rng = np.random.default_rng(0)
    parent = pd.DataFrame({"id": parent_ids, "x": rng.normal(size=len(parent_ids))})
    child = pd.DataFrame({"pid": child_ids, "y": rng.normal(size=len(child_ids))})
    return {"p": parent, "c": child}


SCHEMA = rg.Schema(
    p=rg.Table({"id": rg.PrimaryKey()}),
    c=rg.Table(foreign_keys=[rg.ForeignKey("p", columns=("pid",))]),
)


def test_integer_keys_given_as_strings_in_a_child_are_not_orphans():
    ids = np.arange(50)
    child = np.random.default_rng(1).integers(0, 50, 200)
    train = relational(ids, child.astype(str))
    synth = relational(ids.astype(str), child)  # the other way round in the synthetic data
    ctx = prepare(train, None, synth, SCHEMA)
    assert not [f for f in ctx.findings if f.code.endswith("orphans")]
    assert set(found(ctx, "key_types_aligned")) == {("c", "pid"), ("p", "id")}


def test_keys_that_cannot_be_numbers_are_refused_naming_table_and_column():
    ids = np.arange(50)
    train = relational(ids, np.random.default_rng(1).integers(0, 50, 200))
    synth = relational(ids, [f"k{i}" for i in range(200)])
    with pytest.raises(IncompatibleDataError, match=r"Table 'c', column 'pid' of the synthetic data"):
        prepare(train, None, synth, SCHEMA)


def test_a_numeric_column_given_as_strings_is_read_as_numbers():
    train = people(0).assign(age=lambda f: f["age"].astype(str))
    ctx = prepare(train, None, people(1))
    assert ctx.train.schema["table"].kinds["age"] is ColumnKind.NUMERIC
    assert "age" in ctx.table("table").compared_columns
    assert found(ctx, "numeric_strings_read") == [("table", "age")]


def test_codes_with_leading_zeros_stay_text():
    train = people(0).assign(city=lambda f: f["city"].map({"Rome": "001", "Oslo": "002", "Lima": "010"}))
    ctx = prepare(train, None, train)
    assert ctx.train.schema["table"].kinds["city"] is ColumnKind.CATEGORICAL
    assert not found(ctx, "numeric_strings_read")


def test_mixed_aware_and_naive_timestamps_are_read_as_utc():
    stamps = [
        pd.Timestamp("2021-01-01", tz="Europe/Rome")
        if i % 2
        else pd.Timestamp("2020-01-01") + pd.Timedelta(days=i)
        for i in range(N)
    ]
    train = people(0).assign(when=pd.Series(stamps, dtype=object))
    ctx = prepare(train, None, people(1).assign(when=pd.Timestamp("2020-01-01")))
    assert ctx.train.schema["table"].kinds["when"] is ColumnKind.DATETIME
    read = ctx.table("table").frame("training")["when"]
    expected = [s.tz_convert("UTC") if s.tzinfo else s.tz_localize("UTC") for s in stamps]
    assert read.sort_values().tolist() == sorted(expected)
    assert (read == pd.Timestamp("2020-12-31 23:00", tz="UTC")).sum() == N // 2  # Rome's new year, in UTC
    assert found(ctx, "mixed_time_zones") == [("table", "when")]


@pytest.mark.parametrize("role", ["training", "holdout", "synthetic"])
def test_infinite_values_are_missing_with_a_count_per_role(role):
    frames = {"training": people(0), "holdout": people(1), "synthetic": people(2)}
    frames[role].loc[[0, 1, 2], "age"] = [np.inf, -np.inf, np.inf]
    ctx = prepare(frames["training"], frames["holdout"], frames["synthetic"])
    assert np.isfinite(ctx.table("table").frame(role)["age"].dropna()).all()
    hits = [f for f in ctx.findings if f.code == "non_finite_values"]
    assert [(f.table, f.column) for f in hits] == [("table", "age")]
    assert f"3 of {N} {role} values" in hits[0].message
    ctx.table("table").bins  # noqa: B018 - fitting the bins used to fail on infinite values


@pytest.mark.parametrize(
    "when",
    [
        [f"{1500 + i}-01-01" for i in range(N)],
        [
            dt.datetime(2500, 1, 1) + dt.timedelta(days=i) if i % 2 else dt.datetime(2000, 1, 1)
            for i in range(N)
        ],
    ],
    ids=["strings of 1500+", "datetimes of 2500"],
)
def test_dates_beyond_the_nanosecond_range_are_missing_with_a_finding(when):
    train = people(0).assign(when=when)
    ctx = prepare(train, None, people(1).assign(when=pd.Timestamp("2000-01-01")))
    assert ctx.table("table").frame("training")["when"].dtype == "datetime64[ns, UTC]"
    assert found(ctx, "dates_out_of_range") == [("table", "when")]


def test_a_synthetic_frame_with_a_repeated_column_name_is_refused():
    synth = people(1)
    synth.columns = ["age", "age", "member"]
    with pytest.raises(SchemaError, match=r"Table 'table' of the synthetic data.*'age'"):
        prepare(people(0), None, synth)


def test_a_csv_header_with_a_repeated_name_is_refused(tmp_path):
    (tmp_path / "t.csv").write_text("income,income,city\n1,2,a\n3,4,b\n")
    with pytest.raises(LoadError, match=r"Table 't'.*'income'.*twice"):
        load_folder(tmp_path)
