"""SDV's metadata (``Metadata.to_dict()``, ``metadata.json``) read as reportgen's own schema layout.

A schema may arrive in the form SDV writes for multi-table data::

    {"METADATA_SPEC_VERSION": "V1",
     "tables": {"visits": {"primary_key": "vid", "sequence_key": "cid", "sequence_index": "date",
                           "columns": {"vid": {"sdtype": "id"}, "date": {"sdtype": "datetime"}, ...}}},
     "relationships": [{"parent_table_name": "customers", "parent_primary_key": "cid",
                        "child_table_name": "visits", "child_foreign_key": "cid"}]}

It is translated, not interpreted: each column's ``sdtype`` becomes its kind (``numerical``:
numeric, or integer where its ``computer_representation`` is an integer type; ``categorical``,
``boolean``, ``datetime``, ``id`` as named; the older ``ordinal``: categorical; any other sdtype,
SDV's PII types such as ``email`` or ``address`` and ``unknown``, is text, never compared as
data); ``relationships`` become foreign
keys; a table's ``sequence_index`` becomes its ``order_by`` and its ``sequence_key`` must be one of
its foreign keys, the parent its rows are ordered within (reportgen orders a table's rows within
each foreign key that holds no order column, the sequence key among them). A ``sequence_key``
without a ``sequence_index`` declares no order reportgen can read (SDV then keeps the rows' order
in the file), and changes nothing; it is noted.

SDV's single-table form (top-level ``columns``, ``"METADATA_SPEC_VERSION": "SINGLE_TABLE_V1"`` or
none) names no table: it becomes one table called ``table``, the name reportgen gives one
DataFrame, and like any one-table schema it describes a lone table file, or a folder's only
table file, whatever that file is called. A multi-table form with one table keeps its name.

Primary keys, relationships and sequence keys of several columns (composite keys) are carried
over as lists. What reportgen's schema cannot hold is not an error but a note, which the report
lists among its findings (``Schema.notes``): a ``datetime_format`` other than ISO 8601 (reportgen
reads ISO 8601 dates and infers the kind of others), SDV's ``column_relationships`` and
``alternate_keys``, a ``sequence_key`` without a ``sequence_index`` or one that is no foreign key,
and sdtypes it does not know (read as text, never compared).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reportgen.data.roles import SINGLE_TABLE_NAME
from reportgen.errors import SchemaError

SchemaNote = tuple[str, str | None, str]
"""What SDV metadata said that reportgen's schema cannot hold: its table, column and message."""

_SDTYPES = {
    "numerical": "numeric",
    "categorical": "categorical",
    "boolean": "boolean",
    "datetime": "datetime",
    "ordinal": "categorical",  # older SDV metadata
}
# SDV's documented PII sdtypes (and 'unknown'): text, never compared, and nothing to note
_PII = frozenset(
    [
        "unknown",
        "address",
        "street_address",
        "secondary_address",
        "city",
        "state",
        "state_abbr",
        "postcode",
        "country_code",
        "country",
        "administrative_unit",
        "email",
        "free_email",
        "company_email",
        "name",
        "first_name",
        "last_name",
        "phone_number",
        "msisdn",
        "ssn",
        "ipv4_address",
        "ipv6_address",
        "ip_address",
        "mac_address",
        "user_agent_string",
        "url",
        "domain_name",
        "license_plate",
        "vin",
        "iban",
        "swift11",
        "swift8",
        "credit_card_number",
        "latitude",
        "longitude",
        "job",
        "company",
        "date_of_birth",
        "text",
    ]
)
_ISO_FORMATS = frozenset(("%Y-%m-%d", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S.%f"))
_RELATIONSHIP_KEYS = ("parent_table_name", "parent_primary_key", "child_table_name", "child_foreign_key")


def is_sdv_metadata(spec: Any) -> bool:
    """Whether ``spec`` is in SDV's form: its version key, SDV's relationship keys or ``sdtype`` columns."""
    if not isinstance(spec, Mapping):
        return False
    if "METADATA_SPEC_VERSION" in spec:
        return True
    columns = spec.get("columns")
    if "tables" not in spec and isinstance(columns, Mapping):
        return any(isinstance(c, Mapping) and "sdtype" in c for c in columns.values())
    relations = spec.get("relationships")
    if isinstance(relations, list) and any(
        isinstance(r, Mapping) and "child_table_name" in r for r in relations
    ):
        return True
    tables = spec.get("tables")
    return isinstance(tables, Mapping) and any(
        isinstance(t, Mapping)
        and isinstance(t.get("columns"), Mapping)
        and any(isinstance(c, Mapping) and "sdtype" in c for c in t["columns"].values())
        for t in tables.values()
    )


def from_sdv_metadata(spec: Mapping[str, Any]) -> tuple[dict[str, Any], list[SchemaNote]]:
    """SDV's metadata as reportgen's own schema layout (``Schema.from_dict``), and what it could not hold."""
    tables = spec.get("tables")
    if tables is None and isinstance(spec.get("columns"), Mapping):
        tables = {SINGLE_TABLE_NAME: spec}
    if not isinstance(tables, Mapping):
        raise SchemaError(
            "SDV metadata needs a 'tables' mapping (multi-table, Metadata.to_dict()) or a 'columns' "
            "mapping (single-table); it has neither."
        )
    notes: list[SchemaNote] = []
    out = {str(n): _table(t, str(n), notes) for n, t in tables.items()}
    relations = spec.get("relationships") or []
    if not isinstance(relations, list):
        raise SchemaError("SDV metadata: 'relationships' must be a list.")
    for number, rel in enumerate(relations, start=1):
        _add_relationship(out, rel, number)
    for name, table in tables.items():
        _add_sequence(out[str(name)], table, str(name), notes)
    return {"tables": out}, notes


def _table(table: Any, name: str, notes: list[SchemaNote]) -> dict[str, Any]:
    """One SDV table: its primary key and its columns' kinds (its sequence comes after its keys)."""
    where = f"SDV table {name!r}"
    if not isinstance(table, Mapping) or not isinstance(table.get("columns"), Mapping):
        raise SchemaError(f"{where}: a table needs a 'columns' mapping of column names to {{sdtype: ...}}.")
    columns = {str(c): _kind(spec, name, str(c), notes) for c, spec in table["columns"].items()}
    for entry in ("column_relationships", "alternate_keys"):
        if table.get(entry):
            notes.append((name, None, f"SDV's {entry!r} has no counterpart in reportgen's schema; not used."))
    key = table.get("primary_key")
    return {
        "primary_key": [] if key is None else _names(key, f"{where}, 'primary_key'"),
        "foreign_keys": [],
        "columns": columns,
    }


def _kind(spec: Any, table: str, column: str, notes: list[SchemaNote]) -> str:
    """A column's kind from its SDV sdtype (PII, unknown and unrecognised sdtypes are text)."""
    if not isinstance(spec, Mapping) or not isinstance(spec.get("sdtype"), str):
        raise SchemaError(
            f"SDV table {table!r}, column {column!r}: SDV columns are {{sdtype: ...}}; got {spec!r}."
        )
    sdtype = spec["sdtype"].strip().lower()
    if sdtype == "id":
        return "id"
    if sdtype not in _SDTYPES and sdtype not in _PII:
        notes.append(
            (table, column, f"SDV sdtype {sdtype!r} is not one reportgen knows; read as text, not compared.")
        )
    form = spec.get("datetime_format")
    if sdtype == "datetime" and form is not None and str(form) not in _ISO_FORMATS:
        notes.append(
            (
                table,
                column,
                f"SDV datetime_format {str(form)!r} is not carried over: reportgen reads ISO 8601 "
                "dates and infers the kind of values in other formats.",
            )
        )
    kind = _SDTYPES.get(sdtype, "text")
    representation = str(spec.get("computer_representation", "")).lower()
    return "integer" if kind == "numeric" and representation.startswith(("int", "uint")) else kind


def _add_relationship(tables: dict[str, Any], rel: Any, number: int) -> None:
    """One SDV relationship as a foreign key of its child table."""
    where = f"SDV relationship #{number}"
    if not isinstance(rel, Mapping) or any(k not in rel for k in _RELATIONSHIP_KEYS):
        raise SchemaError(f"{where}: a relationship takes {', '.join(_RELATIONSHIP_KEYS)}; got {rel!r}.")
    child, parent = str(rel["child_table_name"]), str(rel["parent_table_name"])
    if child not in tables or parent not in tables:
        raise SchemaError(f"{where} ({child!r} -> {parent!r}): both tables must be listed under 'tables'.")
    tables[child]["foreign_keys"].append(
        {
            "columns": _names(rel["child_foreign_key"], f"{where}, 'child_foreign_key'"),
            "parent": parent,
            "parent_columns": _names(rel["parent_primary_key"], f"{where}, 'parent_primary_key'"),
        }
    )


def _add_sequence(out: dict[str, Any], table: Mapping[str, Any], name: str, notes: list[SchemaNote]) -> None:
    """``sequence_index`` as the table's order where ``sequence_key`` is a foreign key; else a note."""
    where = f"SDV table {name!r}"
    key, index = table.get("sequence_key"), table.get("sequence_index")
    if key is None:
        return
    key_columns = _names(key, f"{where}, 'sequence_key'")
    if index is None:
        notes.append((name, None, f"SDV sequence_key {key_columns} has no sequence_index: no order is read."))
        return
    if not any(fk["columns"] == key_columns for fk in out["foreign_keys"]):
        notes.append(
            (
                name,
                None,
                f"SDV sequence_key {key_columns} is no foreign key of the table; reportgen orders "
                "rows within a parent row, so the sequence is not measured (add a relationship from this key "
                "to the parent table).",
            )
        )
        return
    out["order_by"] = _names(index, f"{where}, 'sequence_index'")


def _names(value: Any, where: str) -> list[str]:
    """One column name or a list of them."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise SchemaError(f"{where}: give a column name or a list of them; got {value!r}.")
    return list(names)
