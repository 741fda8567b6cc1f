"""Relational section on chinook and restaurant_consumer with their SDV HMA synthetic versions.

Times the section's compute step (best of 5, on a prepared context) and the drawing of its figures,
and prints the headline numbers. The 11-table chinook, with a 70/30 split and the real data itself as
"synthetic", is the largest relational case at hand (11 foreign keys, self-reference, bridge table).

Run: python benchmarks/bench_relational.py   (needs ../shared/datasets)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from reportgen import RelationalData, Schema
from reportgen.data.io import load_folder
from reportgen.metrics.relational import compute_relational
from reportgen.preparation import prepare_context
from reportgen.render.relational_figures import cardinality_figures
from reportgen.settings import ReportSettings

DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
T = TypeVar("T")


def schema_of(name: str, tables: list[str] | None = None) -> Schema:
    meta = json.loads((DATASETS / name / "metadata.json").read_text())
    if tables is not None:
        meta["tables"] = {t: meta["tables"][t] for t in tables}
        meta["relationships"] = [
            r for r in meta["relationships"] if r["child_table"] in tables and r["parent_table"] in tables
        ]
    return Schema.from_dict(meta)


def best_of(fn: Callable[[], T], repeat: int = 5) -> tuple[float, T]:
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    assert value is not None
    return best, value


def cases() -> list[tuple[str, RelationalData, RelationalData | None, RelationalData]]:
    catalogue = schema_of("chinook", ["Album", "Genre", "MediaType", "Track"])
    restaurant = schema_of("restaurant_consumer", ["userprofile", "geoplaces2", "rating_final"])
    chinook_all = load_folder(DATASETS / "chinook", schema_of("chinook"))
    train, test = chinook_all.split(0.7, seed=0)
    return [
        (
            "chinook catalogue vs HMA",
            load_folder(DATASETS / "chinook", catalogue),
            None,
            load_folder(DATASETS / "chinook" / "synthetic" / "hma", catalogue),
        ),
        (
            "restaurant_consumer vs HMA",
            load_folder(DATASETS / "restaurant_consumer", restaurant),
            None,
            load_folder(DATASETS / "restaurant_consumer" / "synthetic" / "hma", restaurant),
        ),
        ("chinook 11 tables, split 70/30", train, test, chinook_all),
    ]


def main() -> None:
    print(
        f"{'case':<32} {'FKs':>3} {'prepare':>8} {'compute':>8} {'figures':>8}  mean similarity (reference)"
    )
    for label, train, test, synth in cases():
        start = time.perf_counter()
        context = prepare_context(train, test, synth, ReportSettings())
        prepared = time.perf_counter() - start
        compute, result = best_of(lambda context=context: compute_relational(context))
        draw, _ = best_of(lambda result=result: cardinality_figures(result), repeat=2)
        reference = "" if result.reference is None else f" ({result.reference:.3f})"
        print(
            f"{label:<32} {len(result.relations):>3} {prepared:7.3f}s {compute:7.3f}s {draw:7.3f}s  "
            f"{result.similarity:.3f}{reference}"
        )
        for rel in result.relations:
            integrity = rel.integrity
            print(
                f"    {rel.label:<48} {rel.similarity:.3f}  children/parent {rel.train.mean:7.2f} real "
                f"{rel.synth.mean:7.2f} synth  with parent {integrity.with_parent:.3f}  "
                f"dup parent keys {integrity.duplicate_parent_keys}"
            )


if __name__ == "__main__":
    main()
