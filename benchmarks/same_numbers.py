"""Does a change move any number? Reports of adult and lahman, and their JSON compared field by field.

A refactor must change no number. This script writes the two reference reports with the checked-out
code, and compares two report JSONs field by field, ignoring what legitimately differs between runs
(the time of the run and package versions):

- ``adult``: UCI Adult, CTGAN's synthetic version, the holdout, target ``income``, seed 0;
- ``lahman``: the five tables SDV's HMA modelled (people, batting, pitching, salaries, teams), HMA's
  synthetic version, the holdout of ``bench_lahman.train_and_holdout``, defaults.

Run:
    python benchmarks/same_numbers.py make adult before/adult.json     (HTML beside it; ~1 min)
    python benchmarks/same_numbers.py make lahman before/lahman.json   (~2.5 min on 2 cores)
    python benchmarks/same_numbers.py compare before/adult.json after/adult.json

``compare`` prints every differing field (its path, both values) and a count, and exits 1 when any
differ; ``--tolerance`` accepts numbers within a relative difference (default 0: identical).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

IGNORED = {"created_at", "reportgen_version", "versions"}


REFERENCE_CASES = {"adult": "adult-ctgan", "lahman": "lahman-hma"}  # seed_spread's cases, seed 0


def make(case: str, out: Path) -> None:
    """Write the ``case`` report as HTML with its JSON at ``out``."""
    from seed_spread import case_report

    if case not in REFERENCE_CASES:
        raise SystemExit(f"unknown case {case!r}: adult or lahman")
    case_report(REFERENCE_CASES[case], 0, out.with_suffix(".html"))


def differences(before: Any, after: Any, tolerance: float = 0.0, path: str = "") -> Iterator[str]:
    """Every field where two JSON values differ, as 'path: before -> after'."""
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after)):
            if key in IGNORED:
                continue
            where = f"{path}.{key}" if path else key
            if key not in before or key not in after:
                side = "after only" if key not in before else "before only"
                yield f"{where}: {side}"
                continue
            yield from differences(before[key], after[key], tolerance, where)
    elif isinstance(before, list) and isinstance(after, list):
        if len(before) != len(after):
            yield f"{path}: {len(before)} items -> {len(after)} items"
        for i, (b, a) in enumerate(zip(before, after, strict=False)):
            yield from differences(b, a, tolerance, f"{path}[{i}]")
    elif _numbers(before, after):
        if not math.isclose(before, after, rel_tol=tolerance, abs_tol=0.0):
            yield f"{path}: {before!r} -> {after!r}"
    elif before != after:
        yield f"{path}: {_short(before)} -> {_short(after)}"


def _numbers(*values: Any) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def compare(before: Path, after: Path, tolerance: float) -> int:
    found = list(differences(json.loads(before.read_text()), json.loads(after.read_text()), tolerance))
    for line in found:
        print(line)
    print(f"{len(found)} field(s) differ between {before} and {after}")
    return 1 if found else 0


def main() -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    commands = parser.add_subparsers(dest="command", required=True)
    made = commands.add_parser("make", help="write a reference report's JSON")
    made.add_argument("case", choices=["adult", "lahman"])
    made.add_argument("out", type=Path)
    compared = commands.add_parser("compare", help="compare two report JSONs field by field")
    compared.add_argument("before", type=Path)
    compared.add_argument("after", type=Path)
    compared.add_argument("--tolerance", type=float, default=0.0)
    args = parser.parse_args()
    if args.command == "make":
        args.out.parent.mkdir(parents=True, exist_ok=True)
        make(args.case, args.out)
    else:
        sys.exit(compare(args.before, args.after, args.tolerance))


if __name__ == "__main__":
    main()
