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
in the file), and changes nothing. SDV's single-table form names no table and no parent, and is
refused with what to give instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reportgen.errors import SchemaError

_SDTYPES = {
    "numerical": "numeric",
    "categorical": "categorical",
    "boolean": "boolean",
    "datetime": "datetime",
    "ordinal": "categorical",  # older SDV metadata
}
_RELATIONSHIP_KEYS = ("parent_table_name", "parent_primary_key", "child_table_name", "child_foreign_key")


def is_sdv_metadata(spec: Any) -> bool:
    """Whether ``spec`` is in SDV's form: its version key, SDV's relationship keys or ``sdtype`` columns."""
    if not isinstance(spec, Mapping):
        return False
    if "METADATA_SPEC_VERSION" in spec:
        return True
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


def from_sdv_metadata(spec: Mapping[str, Any]) -> dict[str, Any]:
    """SDV's multi-table metadata as reportgen's own schema layout (``Schema.from_dict``)."""
    tables = spec.get("tables")
    if not isinstance(tables, Mapping):
        raise SchemaError(
            "SDV's single-table metadata names no table and no parent table; give SDV's multi-table "
            "form (Metadata.to_dict() with a 'tables' mapping), or reportgen's own schema."
        )
    out = {str(name): _table(table, f"SDV table {str(name)!r}") for name, table in tables.items()}
    relations = spec.get("relationships") or []
    if not isinstance(relations, list):
        raise SchemaError("SDV metadata: 'relationships' must be a list.")
    for number, rel in enumerate(relations, start=1):
        _add_relationship(out, rel, number)
    for name, table in tables.items():
        _add_sequence(out[str(name)], table, f"SDV table {str(name)!r}")
    return {"tables": out}


def _table(table: Any, where: str) -> dict[str, Any]:
    """One SDV table: its primary key and its columns' kinds (its sequence comes after its keys)."""
    if not isinstance(table, Mapping) or not isinstance(table.get("columns"), Mapping):
        raise SchemaError(f"{where}: a table needs a 'columns' mapping of column names to {{sdtype: ...}}.")
    columns = {str(c): _kind(spec, f"{where}, column {str(c)!r}") for c, spec in table["columns"].items()}
    key = table.get("primary_key")
    return {
        "primary_key": [] if key is None else _names(key, f"{where}, 'primary_key'"),
        "foreign_keys": [],
        "columns": columns,
    }


def _kind(spec: Any, where: str) -> str:
    """A column's kind from its SDV sdtype (PII and unknown sdtypes are text)."""
    if not isinstance(spec, Mapping) or not isinstance(spec.get("sdtype"), str):
        raise SchemaError(f"{where}: SDV columns are {{sdtype: ...}}; got {spec!r}.")
    sdtype = spec["sdtype"].strip().lower()
    if sdtype == "id":
        return "id"
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


def _add_sequence(out: dict[str, Any], table: Mapping[str, Any], where: str) -> None:
    """``sequence_index`` as the table's order; ``sequence_key`` checked to be one of its foreign keys."""
    key, index = table.get("sequence_key"), table.get("sequence_index")
    if key is None or index is None:
        return
    key_columns = _names(key, f"{where}, 'sequence_key'")
    if not any(fk["columns"] == key_columns for fk in out["foreign_keys"]):
        raise SchemaError(
            f"{where}: sequence_key {key_columns} is no foreign key of the table; reportgen orders rows "
            "within a parent row, so add a relationship from this key to the parent table."
        )
    out["order_by"] = _names(index, f"{where}, 'sequence_index'")


def _names(value: Any, where: str) -> list[str]:
    """One column name or a list of them."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise SchemaError(f"{where}: give a column name or a list of them; got {value!r}.")
    return list(names)
