"""The whole report on 200,000 adult-like rows per side: wall time, CPU per section, peak memory.

The three inputs are drawn from UCI Adult with replacement, seeded: training rows from
``adult_train.csv``, holdout rows from ``adult_test.csv``, synthetic rows from
``synthetic/<generator>/adult_train.csv.gz``, ``--rows`` of each. Numeric columns get noise (normal,
5% of the column's standard deviation, rounded back to integers, clipped at 0 for the non-negative
ones), so that the resampled rows are mostly distinct, as real rows are.

The report runs in a fresh subprocess, with utility (target ``income``), to PDF, with its default
caps (``n_max_train`` etc.: the neighbour sections see a uniform sample of 50,000 rows per side,
utility 20,000, detection 10,000) unless ``--n-max`` raises them; every neighbour search is exact.
The child prints its CPU seconds per section (the report's ``progress`` callback, as
``bench_peer_adult.py`` reads it; the sample-level section runs beside the others, as by default, so
its seconds fall in the stages it ran beside unless ``--one-at-a-time`` runs every section in its
turn); the parent prints the child's wall time and peak resident memory
(``ru_maxrss`` from ``os.wait4``: the whole process, imports and data included).

Run: python benchmarks/bench_large.py [--rows 200000] [--n-max 50000] [--generator ctgan] [--one-at-a-time]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from adult import ADULT, read  # benchmarks/adult.py
from bench_peer_adult import run_reportgen_on, show_sections


def adult_like(source: pd.DataFrame, rows: int, rng: np.random.Generator) -> pd.DataFrame:
    """``rows`` rows drawn with replacement from ``source``, integer columns jittered."""
    frame = source.iloc[rng.integers(0, len(source), size=rows)].reset_index(drop=True)
    for column in frame.select_dtypes("number").columns:
        values = frame[column].to_numpy(dtype=float)
        noisy = values + rng.normal(0.0, 0.05 * np.nanstd(values), size=rows)
        if np.nanmin(values) >= 0:
            noisy = np.clip(noisy, 0, None)
        frame[column] = pd.array(np.round(noisy), dtype="Int64")
    return frame


def write_inputs(folder: Path, rows: int, generator: str, seed: int) -> list[Path]:
    """The three inputs as Parquet files (fast to read back in the child)."""
    rng = np.random.default_rng(seed)
    sources = [
        ADULT / "adult_train.csv",
        ADULT / "adult_test.csv",
        ADULT / "synthetic" / generator / "adult_train.csv.gz",
    ]
    paths = []
    for role, source in zip(("train", "test", "synth"), sources, strict=True):
        path = folder / f"{role}.parquet"
        adult_like(read(source), rows, rng).to_parquet(path)
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--n-max", type=int, default=None, help="n_max_train/test/synth (default: 50,000)")
    parser.add_argument("--generator", default="ctgan")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--one-at-a-time", action="store_true", help="no section beside the others")
    parser.add_argument("--child", nargs=3, type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    caps = {} if args.n_max is None else {f"n_max_{r}": args.n_max for r in ("train", "test", "synth")}
    if args.child:
        frames = [pd.read_parquet(p) for p in args.child]
        with tempfile.TemporaryDirectory() as out:
            path = Path(out) / "large.pdf"
            show_sections(run_reportgen_on(*frames, path, one_at_a_time=args.one_at_a_time, **caps))
        return
    with tempfile.TemporaryDirectory() as folder:
        paths = write_inputs(Path(folder), args.rows, args.generator, args.seed)
        command = [sys.executable, str(Path(__file__).resolve()), "--child", *map(str, paths)]
        command += [] if args.n_max is None else ["--n-max", str(args.n_max)]
        command += ["--one-at-a-time"] if args.one_at_a_time else []
        start = time.perf_counter()
        pid = os.spawnv(os.P_NOWAIT, sys.executable, command)
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"the report failed (exit {os.waitstatus_to_exitcode(status)})")
    print(
        f"{args.rows:,} rows per side, caps {caps or 'default'}: wall {wall:.1f} s, "
        f"CPU {usage.ru_utime + usage.ru_stime:.1f} s, peak RSS {usage.ru_maxrss / 1024:.0f} MiB"
    )


if __name__ == "__main__":
    main()
