"""SDV's metadata read as a schema: sdtypes as kinds, relationships as foreign keys, and a table's
``sequence_key`` / ``sequence_index`` as the parent its rows are ordered within and its ``order_by``."""

import json

import pytest

from reportgen.data.io import read_schema
from reportgen.data.schema import ColumnKind, Schema
from reportgen.errors import SchemaError

from ..conftest import DATASETS
from ..metrics.test_sequences import SCHEMA, draw, sequences

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


def test_a_sequence_key_that_is_no_foreign_key_is_named():
    spec = json.loads(json.dumps(SDV))
    spec["tables"]["visits"]["sequence_key"] = "status"
    with pytest.raises(SchemaError, match=r"SDV table 'visits': sequence_key \['status'\] is no foreign key"):
        Schema.from_dict(spec)


def test_single_table_metadata_and_bad_columns_get_clear_errors():
    single = {
        "METADATA_SPEC_VERSION": "SINGLE_TABLE_V1",
        "columns": {"a": {"sdtype": "id"}},
        "sequence_key": "a",
    }
    with pytest.raises(SchemaError, match="single-table metadata names no table"):
        Schema.from_dict(single)
    spec = json.loads(json.dumps(SDV))
    spec["tables"]["visits"]["columns"]["amount"] = "numerical"
    with pytest.raises(SchemaError, match=r"SDV table 'visits', column 'amount': SDV columns are \{sdtype"):
        Schema.from_dict(spec)


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
