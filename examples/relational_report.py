"""A multi-table report: Restaurant & Consumer (3 tables) against SDV's HMA synthetic version.

Run from the repository root: python examples/relational_report.py [output.pdf]
Shows a schema read from the dataset's metadata.json, a split by entity (a user travels with
their ratings), and the findings HMA's output earns (duplicate composite keys).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import reportgen as rg
from reportgen.data.io import load_folder

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "restaurant_consumer"
CORE = ["userprofile", "geoplaces2", "rating_final"]


def core_schema() -> rg.Schema:
    meta = json.loads((DATA / "metadata.json").read_text())
    meta["tables"] = {t: meta["tables"][t] for t in CORE}
    meta["relationships"] = [
        r for r in meta["relationships"] if r["child_table"] in CORE and r["parent_table"] in CORE
    ]
    return rg.Schema.from_dict(meta)


def main(path: Path) -> None:
    schema = core_schema()
    real = load_folder(DATA, schema)
    synth = load_folder(DATA / "synthetic" / "hma", schema)
    # HMA was fitted on every real row, so this holdout is only a demonstration of the split.
    train, holdout = real.split(0.75, seed=0)
    results = rg.report(train, holdout, synth, path, title="Restaurant & Consumer: SDV HMA")
    for finding in results.findings:
        print(f"[{finding.severity}] {finding.table or ''} {finding.column or ''}: {finding.message}")
    print(f"written: {path}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("out/examples/restaurant.pdf"))
