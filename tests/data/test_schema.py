import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from reportgen import ColumnKind, ForeignKey, PrimaryKey, Schema, SchemaError, Table
from reportgen.data.io import read_schema
from tests.strategies import CHILD, damaged_schema_specs


def test_keys_and_kinds_from_keyword_columns():
    table = Table(
        id=PrimaryKey(),
        parent_id=ForeignKey(parent="p"),
        age="numerical",
        city=ColumnKind.CATEGORICAL,
    )
    assert table.primary_key == ("id",)
    assert table.kinds == {
        "id": ColumnKind.ID,
        "parent_id": ColumnKind.ID,
        "age": ColumnKind.NUMERIC,
        "city": ColumnKind.CATEGORICAL,
    }


def test_two_foreign_keys_to_one_parent_self_reference_and_no_primary_key():
    schema = Schema(
        person=Table(id=PrimaryKey(), manager=ForeignKey(parent="person")),
        transfer=Table(sender=ForeignKey(parent="person"), receiver=ForeignKey(parent="person")),
    )
    assert [str(r) for r in schema.relations] == [
        "person.manager -> person.id",
        "transfer.sender -> person.id",
        "transfer.receiver -> person.id",
    ]
    assert schema.roots() == ["person"]
    assert schema["transfer"].primary_key == ()
    assert schema.self_references("person")[0].columns == ("manager",)
    assert [r.columns for r in schema.children("person")] == [("sender",), ("receiver",)]


def test_composite_primary_key_made_of_foreign_keys():
    schema = Schema(
        a=Table(id=PrimaryKey()),
        b=Table(id=PrimaryKey()),
        ab=Table(
            a_id=ForeignKey(parent="a", primary_key=True),
            b_id=ForeignKey(parent="b", primary_key=True),
        ),
    )
    assert schema["ab"].primary_key == ("a_id", "b_id")
    assert schema.topological_order() == ["a", "b", "ab"]


def test_foreign_key_to_unknown_table_names_table_and_column():
    with pytest.raises(SchemaError, match=r"Table 'orders', column 'customer_id'.*'customers'"):
        Schema(orders=Table(customer_id=ForeignKey(parent="customers")))


def test_foreign_key_to_composite_key_needs_parent_column():
    with pytest.raises(SchemaError, match="parent_column"):
        Schema(p=Table(a=PrimaryKey(), b=PrimaryKey()), c=Table(p_id=ForeignKey(parent="p")))


def test_cycle_between_tables_is_refused():
    with pytest.raises(SchemaError, match="cycle"):
        Schema(
            a=Table(id=PrimaryKey(), b_id=ForeignKey(parent="b")),
            b=Table(id=PrimaryKey(), a_id=ForeignKey(parent="a")),
        )


def test_unknown_kind_lists_the_allowed_ones():
    with pytest.raises(SchemaError, match="unknown column kind 'colour'.*numeric"):
        Table(x="colour")


def test_dict_round_trip(chinook):
    assert Schema.from_dict(chinook.schema.to_dict()) == chinook.schema
    chinook_rel = {str(r) for r in chinook.schema.relations}
    assert "Employee.ReportsTo -> Employee.EmployeeId" in chinook_rel
    assert len(chinook_rel) == 11


def test_composite_key_order_survives_a_schema_file_layout():
    spec = {
        "tables": {
            "p": {"primary_key": ["id"]},
            "c": {
                "primary_key": ["line", "p_id"],
                "foreign_keys": [{"column": "p_id", "parent": "p"}],
                "columns": {"x": "numeric"},
            },
        }
    }
    schema = Schema.from_dict(spec)
    assert schema["c"].primary_key == ("line", "p_id")
    assert Schema.from_dict(schema.to_dict()) == schema


def test_a_composite_keys_declared_kind_is_kept_and_a_one_column_keys_is_not():
    neutral = {
        "tables": {
            "teams": {
                "primary_key": ["year", "team"],
                "columns": {"year": "datetime", "team": "id", "wins": "numerical"},
            },
            "players": {"primary_key": ["player"], "columns": {"player": "numerical"}},
            "games": {
                "primary_key": ["player", "year", "stint"],
                "columns": {"player": "id", "year": "datetime", "stint": "ordinal", "team": "categorical"},
            },
        },
        "relationships": [
            {"parent_table": "teams", "parent_key": ["year", "team"], "child_table": "games", "child_key": ["year", "team"]},
            {"parent_table": "players", "parent_key": ["player"], "child_table": "games", "child_key": ["player"]},
        ],
    }  # fmt: skip
    schema = Schema.from_dict(neutral)
    assert schema["teams"].kinds == {
        "year": ColumnKind.DATETIME,
        "team": ColumnKind.ID,
        "wins": ColumnKind.NUMERIC,
    }
    assert schema["players"].kinds == {"player": ColumnKind.ID}  # a one-column key identifies rows
    assert schema["games"].kinds == {
        "player": ColumnKind.ID,
        "year": ColumnKind.DATETIME,
        "stint": ColumnKind.CATEGORICAL,
        "team": ColumnKind.CATEGORICAL,  # declared, and in the composite key (year, team)
    }
    assert schema["games"].key_columns == {"player", "year", "stint", "team"}
    assert Schema.from_dict(schema.to_dict()) == schema  # the schema file keeps them too
    assert Table(day=PrimaryKey(kind="datetime"), shop=PrimaryKey()).kinds["day"] is ColumnKind.DATETIME
    assert Table(day=PrimaryKey(kind="datetime")).kinds["day"] is ColumnKind.ID


# -- schema files whose entries have the wrong shape -------------------------------------------
def _read_json_schema(spec: object) -> Schema:
    """Read ``spec`` as a schema file ``schema.json`` in a fresh folder (Hypothesis runs many)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "schema.json"
        path.write_text(json.dumps(spec))
        return read_schema(path)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            {"tables": {"people": {"columns": ["pid", "age"]}}},
            r"table 'people'.*'columns' must be a mapping of column names to kinds.*got a list",
        ),
        ({"tables": {"people": 3}}, r"table 'people' must be a mapping.*got an int"),
        (
            {"tables": {"people": {"columns": {"age": "numeric"}, "target": ["age"]}}},
            r"table 'people'.*'target' must be a column name.*got a list",
        ),
        (
            {
                "tables": {
                    "p": {"primary_key": ["id", "x"]},
                    "c": {"foreign_keys": [{"columns": ["a", "b"], "parent": "p", "parent_columns": "id"}]},
                }
            },
            r"table 'c'.*'parent_columns' must be a list of column names.*got a str 'id'",
        ),
        (
            {"tables": {"p": {"primary_key": "id"}}, "relationships": []},
            None,  # one name: the key of one column, as in reportgen's own layout
        ),
        (
            {
                "tables": {"p": {"primary_key": ["id"]}, "c": {"columns": {"pid": "id"}}},
                "relationships": [{"parent_table": "p", "child_table": "c", "parent_key": ["id"]}],
            },
            r"relationship 'c' -> 'p'.*missing 'child_key'",
        ),
        (
            {
                "tables": {"p": {"primary_key": ["id"]}, "c": {"columns": {"pid": "id"}}},
                "relationships": [
                    {"parent_table": "p", "child_table": "c", "parent_key": "id", "child_key": "pid"}
                ],
            },
            r"relationship 'c' -> 'p'.*'child_key' must be a list of column names.*got a str 'pid'",
        ),
        (
            {"tables": {"p": {"primary_key": ["id"]}}, "relationships": [3]},
            r"relationship #1 must be a mapping.*got an int",
        ),
        (
            {"tables": {"p": {"primary_key": ["id"]}}, "relationships": {"a": 1}},
            r"'relationships' must be a list of relationships.*got a dict",
        ),
        ({"tables": {"p": 5}, "relationships": []}, r"table 'p' must be a mapping.*got an int"),
        (
            {"tables": {"p": {"columns": ["a"]}}, "relationships": []},
            r"table 'p'.*'columns' must be a mapping of column names to kinds.*got a list",
        ),
        (
            {
                "tables": {"p": {"primary_key": ["id"]}},
                "relationships": [
                    {"parent_table": ["p"], "child_table": "p", "parent_key": ["id"], "child_key": ["id"]}
                ],
            },
            r"'parent_table' must be a table name.*got a list",
        ),
        (
            {"tables": {"p": {"primary_key": {"id": 1}}}},
            r"table 'p'.*'primary_key' must be a list of column names.*got a dict",
        ),
        (
            {"tables": {"p": {"file": ["p.csv"]}}},
            r"table 'p'.*'file' must be a file name.*got a list",
        ),
        (
            {"tables": {"p": {"columns": {"age": "colour"}}}},
            r"table 'p', column 'age': unknown column kind 'colour'. Use one of: numeric",
        ),
    ],
)
def test_a_schema_entry_of_the_wrong_shape_is_refused_naming_file_table_and_entry(spec, message):
    if message is None:
        assert _read_json_schema(spec)["p"].primary_key == ("id",)
        return
    with pytest.raises(SchemaError, match=rf"(?i)Schema file '.*schema\.json': .*{message}"):
        _read_json_schema(spec)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_schema_specs())
def test_a_damaged_schema_file_loads_or_raises_a_schema_error_naming_the_table(damaged):
    spec, table = damaged
    try:
        _read_json_schema(spec)
    except SchemaError as error:
        text = str(error)
        assert text.startswith("Schema file ") and "schema.json" in text
        if table is not None:
            assert repr(table) in text, text
        else:
            assert "relationship" in text.lower() or repr(CHILD) in text, text
