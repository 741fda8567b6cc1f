import pytest

from reportgen import ColumnKind, ForeignKey, PrimaryKey, Schema, SchemaError, Table


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
