"""Write the shared datasets' schemas in SDV's documented multi-table metadata form (V1).

Run once (``python -m benchmarks.sdv_metadata.write``); the files sit beside this script, one per
dataset, and ``benchmarks/bench_sdv_metadata.py`` checks that a report read with one gives the
same numbers as with the dataset's neutral ``metadata.json``. Each neutral kind becomes the sdtype
an SDV user would write: numbers ``numerical`` (whole numbers with ``"computer_representation":
"Int64"``), dates ``datetime`` with their ISO format, free text ``unknown`` or the PII sdtype its
name says (email, phone_number, address, first_name, last_name). Restaurant's tables under
``extra/`` are left out (SDV metadata names no files; they are not its core tables).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATASETS = Path(__file__).resolve().parents[3] / "shared" / "datasets"
HERE = Path(__file__).resolve().parent
PII = {
    "email": "email",
    "phone": "phone_number",
    "fax": "phone_number",
    "address": "address",
    "firstname": "first_name",
    "lastname": "last_name",
}


def sdtype(column: str, kind: str) -> dict[str, Any]:
    """The SDV column entry of a neutral kind."""
    if kind == "integer":
        return {"sdtype": "numerical", "computer_representation": "Int64"}
    if kind in ("numeric", "numerical"):
        return {"sdtype": "numerical", "computer_representation": "Float"}
    if kind == "datetime":
        return {"sdtype": "datetime", "datetime_format": "%Y-%m-%d %H:%M:%S"}
    if kind == "text":
        return {"sdtype": PII.get(column.lower(), "unknown"), "pii": True}
    return {"sdtype": {"ordinal": "categorical"}.get(kind, kind)}


def sdv_form(neutral: dict[str, Any], tables: list[str]) -> dict[str, Any]:
    """The neutral ``metadata.json`` layout rewritten as SDV's ``Metadata.to_dict()``."""
    out: dict[str, Any] = {"METADATA_SPEC_VERSION": "V1", "tables": {}, "relationships": []}
    for name in tables:
        table = neutral["tables"][name]
        key = table.get("primary_key") or []
        entry: dict[str, Any] = {"columns": {c: sdtype(c, k) for c, k in table["columns"].items()}}
        if key:
            entry["primary_key"] = key[0] if len(key) == 1 else key
        out["tables"][name] = entry
    for rel in neutral["relationships"]:
        if rel["child_table"] in tables and rel["parent_table"] in tables:
            child, parent = rel["child_key"], rel["parent_key"]
            out["relationships"].append(
                {
                    "parent_table_name": rel["parent_table"],
                    "child_table_name": rel["child_table"],
                    "parent_primary_key": parent[0] if len(parent) == 1 else parent,
                    "child_foreign_key": child[0] if len(child) == 1 else child,
                }
            )
    return out


def main() -> None:
    for dataset, out in (("chinook", "chinook"), ("lahman", "lahman"), ("restaurant_consumer", "restaurant")):
        neutral = json.loads((DATASETS / dataset / "metadata.json").read_text())
        tables = neutral.get("core_tables") or list(neutral["tables"])
        (HERE / f"{out}.json").write_text(json.dumps(sdv_form(neutral, tables), indent=2) + "\n")


if __name__ == "__main__":
    main()
