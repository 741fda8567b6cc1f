"""Preparing the data: what ``report()`` does before its first section, on adult and on 200,000 rows.

Preparation checks the three inputs, puts their rows in canonical order, fingerprints them for the
run record and draws the sections' samples, all on one core before any section starts, so its
seconds add to the report's wall time one for one. This times it alone: ``report()`` runs until
it would evaluate the sections, then stops. The inputs:

- ``adult``: UCI Adult's training rows, holdout and CTGAN's synthetic rows, target ``income``;
- ``large``: ``--rows`` rows a side drawn from them as ``bench_large.py`` draws its inputs.

Run: python benchmarks/bench_prepare.py [--rows 200000]
     python benchmarks/bench_prepare.py --against CHECKOUT [--pairs 2]

``--against`` runs each measurement as a child process here ("new") and with CHECKOUT's reportgen
("old"), alternating which goes first (``benchmarks/paired.py``), and prints the median CPU seconds
of both and whether the input fingerprints, which hash every value, are the same.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
import paired  # benchmarks/paired.py
from adult import ADULT, read  # benchmarks/adult.py
from bench_large import adult_like


class _Prepared(Exception):
    """Raised where ``report()`` would start computing its sections: preparation is over."""


def inputs(case: str, rows: int) -> tuple[Any, Any, Any]:
    train, test = read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")
    synth = read(ADULT / "synthetic" / "ctgan" / "adult_train.csv.gz")
    if case == "adult":
        return train, test, synth
    rng = np.random.default_rng(0)
    return adult_like(train, rows, rng), adult_like(test, rows, rng), adult_like(synth, rows, rng)


def prepare(case: str, rows: int) -> dict[str, Any]:
    """CPU and wall seconds of ``report()``'s preparation, and the input fingerprints it recorded."""
    import reportgen.api

    train, test, synth = inputs(case, rows)
    seen: dict[str, Any] = {}

    def stop(context: Any, **_: Any) -> Any:  # in place of evaluate: preparation is over
        seen["context"] = context
        raise _Prepared

    reportgen.api.evaluate = stop
    cpu, wall = time.process_time(), time.perf_counter()
    with contextlib.suppress(_Prepared):
        reportgen.api.report(train, test, synth, "unused.pdf", targets={"table": "income"})
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    prints = {
        role: {table: print_.sha256 for table, print_ in tables.items()}
        for role, tables in seen["context"].input_fingerprints.items()
    }
    return {"cpu": cpu, "wall": wall, "fingerprints": prints}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", type=int, default=200_000, help="rows a side of the large case")
    parser.add_argument("--against", type=Path, help="another checkout to compare with, alternating")
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)  # paired.py's pair index
    args = parser.parse_args()
    cases = ("adult", "large")
    if args.child:
        print(json.dumps({case: prepare(case, args.rows) for case in cases}))
        return
    if args.against is None:
        for case in cases:
            run = prepare(case, args.rows)
            print(f"{case:<6} preparation: {run['cpu']:.2f} CPU s, {run['wall']:.2f} s wall")
        return
    runs = paired.alternate(Path(__file__), args.against, range(args.pairs), ["--rows", str(args.rows)])
    for case in cases:
        old, new = (statistics.median(run[case]["cpu"] for run in runs[label]) for label in ("old", "new"))
        same = all(run[case]["fingerprints"] == runs["old"][0][case]["fingerprints"] for run in runs["new"])
        print(
            f"{case:<6} preparation CPU s (median of {args.pairs}): old {old:.2f}, new {new:.2f} "
            f"({new / old - 1:+.0%}); fingerprints {'the same' if same else 'DIFFER'}"
        )


if __name__ == "__main__":
    main()
