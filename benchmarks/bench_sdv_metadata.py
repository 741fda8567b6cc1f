"""SDV metadata gives the same report numbers as the neutral ``metadata.json`` (issue 34).

For chinook, lahman and restaurant, runs ``reportgen report --train <dataset> --synth <its HMA
synthetic folder> --schema <schema>`` twice through the CLI, once with the dataset's neutral
``metadata.json`` (restricted to the tables the SDV file holds) and once with the SDV-form file of
``benchmarks/sdv_metadata/`` (written by ``python -m benchmarks.sdv_metadata.write``), both
restricted to the tables HMA generated, with small caps, and compares the two report JSONs
field by field (``same_numbers.differences``).
Run: ``python benchmarks/bench_sdv_metadata.py [dataset ...]`` (exits 1 when any number differs).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from same_numbers import differences

HERE = Path(__file__).resolve().parent
DATASETS = HERE.parents[2] / "shared" / "datasets"
CASES = {"restaurant": "restaurant_consumer", "chinook": "chinook", "lahman": "lahman"}
CAPS = [
    "--n-max-train",
    "2000",
    "--n-max-synth",
    "2000",
    "--n-max-phik",
    "1000",
    "--n-max-detection",
    "1000",
    "--n-max-gower",
    "1000",
    "--n-max-utility",
    "1000",
    "--mia-max-targets",
    "100",
]


def restricted(spec: dict, tables: set[str], out: Path, child: str, parent: str) -> Path:
    """``spec`` (either form) with only ``tables`` and the relationships among them, written to ``out``."""
    spec = {**spec, "tables": {n: t for n, t in spec["tables"].items() if n in tables}}
    spec["relationships"] = [r for r in spec["relationships"] if r[child] in tables and r[parent] in tables]
    spec.pop("core_tables", None)
    out.write_text(json.dumps(spec))
    return out


def synthetic_tables(dataset: Path) -> set[str]:
    """The tables HMA generated: the table files of the dataset's synthetic/hma folder."""
    return {f.name.split(".")[0] for f in (dataset / "synthetic" / "hma").iterdir() if ".csv" in f.name}


def run(dataset: Path, schema: Path, out: Path) -> dict:
    """One CLI report; its JSON."""
    command = [
        sys.executable,
        "-m",
        "reportgen.cli",
        "report",
        "--train",
        str(dataset),
        "--synth",
        str(dataset / "synthetic" / "hma"),
        "--schema",
        str(schema),
        "--out",
        str(out),
        "-q",
        *CAPS,
    ]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode not in (0, 3):
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(out.with_suffix(".json").read_text())


def main(names: list[str]) -> int:
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in names or list(CASES):
            dataset, sdv_spec = (
                DATASETS / CASES[name],
                json.loads((HERE / "sdv_metadata" / f"{name}.json").read_text()),
            )
            tables = synthetic_tables(dataset) & set(sdv_spec["tables"])
            neutral = restricted(
                json.loads((dataset / "metadata.json").read_text()),
                tables,
                Path(tmp) / f"{name}-neutral.json",
                "child_table",
                "parent_table",
            )
            sdv_file = restricted(
                sdv_spec,
                tables,
                Path(tmp) / f"{name}-sdv_metadata.json",
                "child_table_name",
                "parent_table_name",
            )
            before = run(dataset, neutral, Path(tmp) / f"{name}-neutral.html")
            after = run(dataset, sdv_file, Path(tmp) / f"{name}-sdv.html")
            found = list(differences(before, after))
            print(f"{name}: {len(found)} differing fields" + "".join(f"\n  {d}" for d in found[:20]))
            failed += bool(found)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
