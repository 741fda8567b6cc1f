"""Fingerprints: the same data gives the same SHA-256 whatever file it came from; any change shows."""

import numpy as np
import pandas as pd
import pytest

from reportgen import RelationalData
from reportgen.data.io import load_folder, write_folder
from reportgen.provenance import fingerprint, fingerprints


@pytest.fixture
def data(people):
    frame = people.drop(columns=["note"]).copy()
    frame.loc[3, "age"] = np.nan
    frame.loc[5, "city"] = None
    return RelationalData({"people": frame})


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
