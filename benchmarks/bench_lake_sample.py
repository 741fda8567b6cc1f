"""The seeded sample read in place: time to draw ``--n`` of ``--rows`` Parquet rows on DuckDB.

Writes one Parquet file (if absent) of ``--rows`` rows with three double columns (a normal, a
heavy-tailed one with 17-significant-digit values, and one holding integral values, -0.0, NaN,
infinities and subnormals), then draws the seeded sample that every sampled section reads
(``lake.sample_rows``: ``ORDER BY md5(<canonical row text>) LIMIT n``) ``--repeat`` times and prints
each wall and CPU time (CPU: the figure to compare on a loaded machine) and a digest of the drawn
rows (equal digests: the same rows, in the same order).

    nice -n 10 python benchmarks/bench_lake_sample.py --rows 1000000 --n 50000 --repeat 3

Measured on 2 shared cores, 3 runs each (run with PYTHONPATH at each commit): the engine's own
number text before the canonical text (f256f8c) 0.80-1.29 s wall (0.79-1.05 s CPU); the canonical
text's arithmetic inside CASE (812dc8d) 1.70-1.99 s (1.68-1.98 s CPU); now 0.88-1.02 s
(0.87-1.00 s CPU), the same rows as 812dc8d (docs/scaling.md).
"""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path

import duckdb

import reportgen as rg
from reportgen.data import lake


def _generate(path: Path, rows: int) -> None:
    """Three double columns, written by DuckDB from ``range`` (no download)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    u = [f"((hash(i, {k}) % 1000000)::DOUBLE + 0.5) / 1000000.0" for k in range(4)]
    duckdb.sql(f"""
    COPY (SELECT
        sqrt(-2 * ln({u[0]})) * cos(6.283185307 * {u[1]}) AS normal,
        exp(40 * {u[2]} - 20) / 3 AS heavy,
        CASE hash(i, 9) % 8 WHEN 0 THEN 'NaN'::DOUBLE WHEN 1 THEN 'inf'::DOUBLE
            WHEN 2 THEN -0.0 WHEN 3 THEN 5e-324 * (hash(i, 10) % 1000)
            ELSE (hash(i, 11) % 100000)::DOUBLE END AS edgy
    FROM range({rows}) AS t(i)) TO '{path}' (FORMAT parquet)
    """)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--n", type=int, default=50_000, help="sample size (default 50,000)")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/reportgen-lake-sample"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    path = args.folder / f"events-{args.rows}.parquet"
    if not path.exists():
        _generate(path, args.rows)
    with rg.sources.parquet(path) as source:
        table = next(iter(source.relations))
        for _ in range(args.repeat):
            start, cpu = time.perf_counter(), time.process_time()
            sample = lake.sample_rows(source, table, args.n, args.seed)
            elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
            digest = hashlib.sha256(sample.to_csv(index=False).encode()).hexdigest()[:16]
            times = f"{elapsed:.2f} s wall, {cpu:.2f} s CPU"
            print(f"sample {len(sample):,} of {args.rows:,}: {times}, rows digest {digest}")


if __name__ == "__main__":
    main()
