"""SDV's metadata read as a schema: sdtypes as kinds, relationships as foreign keys, and a table's
``sequence_key`` / ``sequence_index`` as the parent its rows are ordered within and its ``order_by``."""

import json
from pathlib import Path

import pandas as pd
import pytest

from reportgen.data.io import load, read_schema
from reportgen.data.schema import ColumnKind, Schema
from reportgen.errors import SchemaError

from ..conftest import DATASETS
from ..metrics.test_sequences import SCHEMA, draw, sequences

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
CAPS = {
    "n_max_phik": 200,
    "n_max_detection": 200,
    "n_max_gower": 200,
    "n_max_utility": 200,
    "mia_max_targets": 50,
}

SDV = {
    "METADATA_SPEC_VERSION": "V1",
    "tables": {
        "customers": {
            "primary_key": "cid",
            "columns": {
                "cid": {"sdtype": "id"},
                "region": {"sdtype": "categorical"},
                "mail": {"sdtype": "email"},
            },
        },
        "visits": {
            "primary_key": "vid",
            "sequence_key": "cid",
            "sequence_index": "date",
            "columns": {
                "vid": {"sdtype": "id"},
                "cid": {"sdtype": "id"},
                "date": {"sdtype": "datetime", "datetime_format": "%Y-%m-%d"},
                "amount": {"sdtype": "numerical", "computer_representation": "Float"},
                "status": {"sdtype": "categorical"},
                "n_items": {"sdtype": "numerical", "computer_representation": "Int64"},
                "grade": {"sdtype": "ordinal"},
            },
        },
    },
    "relationships": [
        {
            "parent_table_name": "customers",
            "parent_primary_key": "cid",
            "child_table_name": "visits",
            "child_foreign_key": "cid",
        }
    ],
}


def test_sequence_key_and_index_become_the_parent_and_the_order(tmp_path):
    (tmp_path / "metadata.json").write_text(json.dumps(SDV))
    schema = read_schema(tmp_path / "metadata.json")
    visits = schema["visits"]
    assert visits.order_by == ("date",) and visits.primary_key == ("vid",)
    assert [(r.columns, r.parent) for r in schema.sequences("visits")] == [(("cid",), "customers")]
    assert visits.kinds["n_items"] is ColumnKind.INTEGER and visits.kinds["amount"] is ColumnKind.NUMERIC
    assert visits.kinds["grade"] is ColumnKind.CATEGORICAL
    assert schema["customers"].kinds["mail"] is ColumnKind.TEXT  # PII sdtypes are never compared


def test_an_sdv_schema_measures_the_sequences_as_reportgen_s_own():
    spec = json.loads(json.dumps(SDV))
    del spec["tables"]["customers"]["columns"]["mail"]
    for column in ("n_items", "grade"):
        del spec["tables"]["visits"]["columns"][column]
    train, holdout, synth = draw(150, 1), draw(150, 2, first_id=1000), draw(150, 3, "shuffled", first_id=5000)
    assert sequences(train, holdout, synth, Schema.from_dict(spec)) == sequences(
        train, holdout, synth, SCHEMA
    )


def test_without_a_sequence_index_nothing_is_ordered():
    spec = json.loads(json.dumps(SDV))
    del spec["tables"]["visits"]["sequence_index"]
    assert Schema.from_dict(spec)["visits"].order_by == ()


def test_a_sequence_key_that_is_no_foreign_key_is_a_note_not_an_error():
    spec = json.loads(json.dumps(SDV))
    spec["tables"]["visits"]["sequence_key"] = "status"
    schema = Schema.from_dict(spec)
    assert schema["visits"].order_by == ()
    assert [(t, c) for t, c, _ in schema.notes] == [("visits", None)]
    assert "sequence_key ['status'] is no foreign key" in schema.notes[0][2]


SINGLE = {
    "METADATA_SPEC_VERSION": "SINGLE_TABLE_V1",
    "primary_key": "rid",
    "columns": {
        "rid": {"sdtype": "id"},
        "age": {"sdtype": "numerical", "computer_representation": "Int64"},
        "day": {"sdtype": "datetime", "datetime_format": "%d/%m/%Y"},
        "colour": {"sdtype": "categorical"},
        "odd": {"sdtype": "gps_coordinates"},
    },
    "column_relationships": [{"type": "address", "column_names": ["colour"]}],
}


def test_single_table_metadata_is_one_table_with_what_it_cannot_hold_noted():
    schema = Schema.from_dict(SINGLE)
    assert list(schema) == ["table"] and schema["table"].primary_key == ("rid",)
    assert schema["table"].kinds["age"] is ColumnKind.INTEGER
    assert schema["table"].kinds["odd"] is ColumnKind.TEXT
    assert sorted((c or "", m.split(" ")[1]) for _, c, m in schema.notes) == [
        ("", "'column_relationships'"),
        ("day", "datetime_format"),
        ("odd", "sdtype"),
    ]
    assert Schema.from_dict(SDV).notes == ()  # ISO dates, known sdtypes: nothing to note


def test_single_table_metadata_describes_a_lone_file_and_a_folder_s_only_file(tmp_path):
    frame = pd.DataFrame({"rid": [1, 2, 3], "age": [30, 40, 50], "colour": ["a", "b", "a"]})
    spec = {"columns": {c: SINGLE["columns"][c] for c in frame}, "primary_key": "rid"}
    frame.to_csv(tmp_path / "people.csv", index=False)
    (tmp_path / "metadata.json").write_text(json.dumps(spec))  # an SDV metadata.json in the folder
    for data in (load(tmp_path), load(tmp_path / "people.csv", tmp_path / "metadata.json")):
        assert list(data) == ["table"] and data.schema["table"].primary_key == ("rid",)
        assert data.schema["table"].kinds["age"] is ColumnKind.INTEGER
    one = {"METADATA_SPEC_VERSION": "V1", "tables": {"persons": spec}, "relationships": []}
    (tmp_path / "metadata.json").write_text(json.dumps(one))  # the multi-table form with one table
    assert (
        list(load(tmp_path)) == list(load(tmp_path / "people.csv", tmp_path / "metadata.json")) == ["persons"]
    )


def test_a_report_lists_what_sdv_metadata_could_not_hold_as_warnings(tmp_path):
    import numpy as np

    import reportgen as rg

    rng = np.random.default_rng(0)

    def draw(n):
        return pd.DataFrame(
            {
                "rid": np.arange(n),
                "age": rng.integers(20, 70, n),
                "day": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 300, n), "D"),
                "colour": rng.choice(["a", "b", "c"], n),
                "odd": rng.choice(["x", "y"], n),
            }
        )

    results = rg.report(draw(300), None, draw(300), tmp_path / "r.html", schema=SINGLE, **CAPS)
    notes = [f for f in results.findings if f.code == "schema_not_carried_over"]
    assert {(f.table, f.column) for f in notes} == {("table", None), ("table", "day"), ("table", "odd")}
    assert all(f.severity == "warning" for f in notes)
    assert "is not carried over" in (tmp_path / "r.html").read_text()  # shown in the report


def test_bad_sdv_columns_get_clear_errors():
    spec = json.loads(json.dumps(SDV))
    spec["tables"]["visits"]["columns"]["amount"] = "numerical"
    with pytest.raises(SchemaError, match=r"SDV table 'visits', column 'amount': SDV columns are \{sdtype"):
        Schema.from_dict(spec)


@pytest.mark.parametrize(
    "name, dataset", [("chinook", "chinook"), ("lahman", "lahman"), ("restaurant", "restaurant_consumer")]
)
def test_the_shared_datasets_sdv_files_read_as_their_neutral_metadata(name, dataset):
    neutral_file = DATASETS / dataset / "metadata.json"
    if not neutral_file.exists():
        pytest.skip(f"shared dataset file {neutral_file} not found")
    sdv = read_schema(BENCHMARKS / "sdv_metadata" / f"{name}.json")
    neutral = json.loads(neutral_file.read_text())
    neutral["tables"] = {t: v for t, v in neutral["tables"].items() if t in sdv}
    neutral["relationships"] = [
        r for r in neutral["relationships"] if r["child_table"] in sdv and r["parent_table"] in sdv
    ]
    assert sdv == Schema.from_dict(neutral) and sdv.notes == ()


def test_lahman_s_sdv_metadata_with_seasons_ordered_by_year():
    path = DATASETS / "lahman" / "synthetic" / "hma" / "sdv_metadata.json"
    if not path.exists():
        pytest.skip(f"shared dataset file {path} not found")
    spec = json.loads(path.read_text())
    spec["tables"]["batting"] |= {"sequence_key": "playerID", "sequence_index": "yearID"}
    schema = Schema.from_dict(spec)
    assert schema["batting"].order_by == ("yearID",)
    assert [r.parent for r in schema.sequences("batting")] == ["people"]
    assert schema["batting"].kinds["stint"] is ColumnKind.CATEGORICAL  # SDV's older 'ordinal'
    assert schema["people"].kinds["debut"] is ColumnKind.DATETIME and schema["pitching"].order_by == ()
