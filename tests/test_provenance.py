"""Fingerprints: the same data gives the same SHA-256 whatever file it came from; any change shows."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from reportgen import RelationalData
from reportgen.data.io import load_folder, write_folder
from reportgen.provenance import _framed, _framed_strings, fingerprint, fingerprints


@pytest.fixture
def data(people):
    frame = people.drop(columns=["note"]).copy()
    frame.loc[3, "age"] = np.nan
    frame.loc[5, "city"] = None
    return RelationalData({"people": frame})


@given(
    st.lists(st.none() | st.text(max_size=6) | st.sampled_from(["a", "", "é", "nan", "None"]), max_size=40)
)
def test_strings_are_framed_as_one_by_one_whatever_repeats_and_gaps_they_hold(values):
    """The fingerprint's format, value by value: each string's length and UTF-8 bytes, missing as one byte."""
    one_by_one = b"".join(b"\xff" if v is None else _framed(v.encode()) for v in values)
    assert _framed_strings(np.array(values, dtype=object)) == one_by_one


def test_csv_and_parquet_of_the_same_data_have_the_same_fingerprint(data, tmp_path):
    write_folder(data, tmp_path / "csv", format="csv")
    write_folder(data, tmp_path / "parquet", format="parquet")
    from_csv = fingerprints(load_folder(tmp_path / "csv"))
    from_parquet = fingerprints(load_folder(tmp_path / "parquet"))
    assert from_csv == from_parquet == fingerprints(data)
    assert from_csv["people"].rows == 300 and len(from_csv["people"].sha256) == 64


def test_column_order_and_number_dtypes_do_not_matter(data):
    frame, kinds = data["people"], data.schema["people"].kinds
    assert fingerprint(frame[frame.columns[::-1]], kinds) == fingerprint(frame, kinds)
    whole = frame.assign(age=frame["age"].round())
    as_ints = whole.assign(age=whole["age"].astype("Int64"))
    assert fingerprint(as_ints, kinds) == fingerprint(whole, kinds)


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.assign(age=f["age"].where(f.index != 0, f["age"][0] + 1e-9)),
        lambda f: f.assign(city=f["city"].where(f.index != 1, "Oslo!")),
        lambda f: f.assign(joined=f["joined"].where(f.index != 2, pd.Timestamp("1999-01-01"))),
        lambda f: f.iloc[::-1],
        lambda f: f.iloc[:-1],
        lambda f: f.rename(columns={"city": "town"}),
    ],
)
def test_any_change_of_a_value_order_or_name_changes_the_fingerprint(data, change):
    frame, kinds = data["people"], dict(data.schema["people"].kinds)
    kinds["town"] = kinds["city"]
    assert fingerprint(change(frame), kinds) != fingerprint(frame, kinds)


def test_the_report_records_and_prints_every_input_fingerprint(people, tmp_path):
    from pypdf import PdfReader

    from reportgen import ReportResults, report

    train, test, synth = people.iloc[:100], people.iloc[100:200], people.iloc[200:]
    report(train, test, synth, tmp_path / "r.pdf")
    results = ReportResults.load(tmp_path / "r.json")
    assert set(results.run.inputs) == {"training", "holdout", "synthetic"}
    expected = fingerprints(RelationalData({"table": train}))["table"]
    assert results.run.inputs["training"]["table"].sha256 == expected.sha256
    text = "".join(page.extract_text() for page in PdfReader(tmp_path / "r.pdf").pages).replace("\n", "")
    for tables in results.run.inputs.values():
        assert tables["table"].sha256 in text


# -- database tables read in place: a digest of every row computed in the engine -------------------
def _duckdb_file(path, frame: pd.DataFrame, table: str = "people") -> str:
    import duckdb

    with duckdb.connect(str(path)) as conn:
        conn.register("frame", frame)
        conn.execute(f'CREATE TABLE "{table}" AS SELECT * FROM frame')
    return str(path)


def _mixed(people: pd.DataFrame) -> pd.DataFrame:
    """Doubles with NaN, -0.0, infinities, large and tiny values; integers, text, booleans, times."""
    frame = people.copy()
    frame.loc[3, "age"] = np.nan
    frame.loc[4, "age"] = -0.0
    frame.loc[5, "income"] = np.inf
    frame.loc[6, "income"] = 1.5e-7
    frame.loc[7, "income"] = 2.5e20
    frame.loc[8, "city"] = None
    frame["visits"] = np.arange(len(frame)) * 3
    return frame


def _engine_fingerprint(location: str, kinds) -> str:
    import reportgen as rg
    from reportgen.provenance import engine_fingerprint

    source = rg.sources.sql(location) if "://" in location else rg.sources.duckdb_file(location)
    with source:
        return engine_fingerprint(source, "people", kinds)


def _kinds(frame: pd.DataFrame):
    return dict(RelationalData({"people": frame}).schema["people"].kinds)


def test_a_database_fingerprint_ignores_row_order_and_changes_with_any_value(people, tmp_path):
    frame = _mixed(people)
    kinds = _kinds(frame)
    first = _engine_fingerprint(_duckdb_file(tmp_path / "a.duckdb", frame), kinds)
    shuffled = frame.sample(frac=1.0, random_state=3).reset_index(drop=True)
    assert _engine_fingerprint(_duckdb_file(tmp_path / "b.duckdb", shuffled), kinds) == first
    changes = {
        "a double": frame.assign(income=frame["income"].where(frame.index != 0, frame["income"][0] + 1e-9)),
        "a missing value": frame.assign(city=frame["city"].where(frame.index != 1, None)),
        "a datetime": frame.assign(
            joined=frame["joined"].where(frame.index != 2, pd.Timestamp("1999-01-01"))
        ),
        "a boolean": frame.assign(member=frame["member"].where(frame.index != 9, ~frame["member"][9])),
        "a row less": frame.iloc[:-1],
        "a row twice": pd.concat([frame, frame.iloc[:1]], ignore_index=True),
        "a value moved to another column": frame.assign(note=frame["city"], city=frame["note"]),
    }
    for i, (what, changed) in enumerate(changes.items()):
        got = _engine_fingerprint(_duckdb_file(tmp_path / f"c{i}.duckdb", changed), kinds)
        assert got != first, what
    assert len(first) == 64


def test_a_report_on_a_duckdb_file_records_the_database_fingerprint(people, tmp_path):
    from reportgen import ReportResults, report

    train = _duckdb_file(tmp_path / "train.duckdb", people.iloc[:150].reset_index(drop=True))
    synth = _duckdb_file(tmp_path / "synth.duckdb", people.iloc[150:].reset_index(drop=True))
    report(train, None, synth, tmp_path / "r.html", risk_attacks=50)
    inputs = ReportResults.load(tmp_path / "r.json").run.inputs
    recorded = inputs["training"]["people"]
    assert recorded.of == "rows in the engine" and recorded.rows == 150
    assert recorded.sha256 == _engine_fingerprint(train, _kinds(people.iloc[:150]))
    assert inputs["synthetic"]["people"].sha256 not in (recorded.sha256, "")
    page = " ".join((tmp_path / "r.html").read_text().split())
    assert recorded.sha256 in page and "a digest of every row computed in the engine" in page
