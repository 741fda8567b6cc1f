"""A report on Parquet folders far larger than the sample: time, peak memory, all-row similarity.

The script writes its own data with DuckDB (no download): ``--rows`` training rows and as many
synthetic rows, mixed types (three floats, one with 10% missing values; an integer; a
zero-inflated float; two categoricals, one of 200 levels; a boolean; a timestamp), as Parquet part
files under ``<folder>/train/events/`` and ``<folder>/synth/events/``, the synthetic side shifted a
little. It then runs the whole report from Parquet, as ``reportgen report --train <folder>/train/
--synth <folder>/synth/ --out r.pdf`` does, and prints the wall time, the peak RSS of the process
(``ru_maxrss``) and the similarity score. With ``--check``, it also loads both sides into pandas and
checks that the similarity bin counts of every column and pair equal the engine's exactly (use a
size that fits in memory, such as ``--rows 1000000``).

    python benchmarks/bench_lake.py --rows 20000000 --folder /tmp/lake
    python benchmarks/bench_lake.py --rows 1000000 --folder /tmp/lake1m --check
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd

import reportgen as rg
from reportgen.binning import bin_counts_in_memory
from reportgen.data.kinds import to_canonical
from reportgen.data.roles import SYNTH, TRAIN
from reportgen.preparation import prepare_context
from reportgen.settings import ReportSettings

ROWS_PER_FILE = 2_000_000


def _generate(folder: Path, rows: int, seed: int, shift: float) -> None:
    """One side's Parquet part files, written by DuckDB from ``range`` (memory stays small)."""
    parts = folder / "events"
    parts.mkdir(parents=True, exist_ok=True)
    for start in range(0, rows, ROWS_PER_FILE):
        end = min(start + ROWS_PER_FILE, rows)
        u = [f"(hash(i, {seed * 100 + k}) % 1000000)::DOUBLE / 1000000.0" for k in range(10)]
        query = f"""
        COPY (SELECT
            sqrt(-2 * ln({u[0]} + 1e-9)) * cos(6.283185307 * {u[1]}) + {shift} AS income_z,
            CASE WHEN {u[2]} < 0.1 THEN NULL ELSE 40 + 12 * {u[3]} + {shift} END AS age,
            (hash(i, {seed}) % 1000)::BIGINT AS score,
            CASE WHEN {u[4]} < 0.3 THEN 0.0 ELSE -ln({u[5]} + 1e-9) * 100 END AS spend,
            ['north', 'south', 'east', 'west', 'centre'][1 + (hash(i, {seed + 1}) % 5)::BIGINT] AS region,
            'city_' || (floor(200 * pow({u[6]}, 2 + {shift})))::BIGINT AS city,
            {u[7]} < 0.4 + {shift / 10} AS member,
            TIMESTAMP '2015-01-01' + to_seconds((hash(i, {seed + 2}) % 300000000)::BIGINT) AS joined
        FROM range({start}, {end}) AS t(i)) TO '{parts / f"part-{start // ROWS_PER_FILE:04d}.parquet"}'
        (FORMAT parquet)
        """
        duckdb.sql(query)


def _check(folder: Path, seed: int) -> None:
    """The engine's similarity counts equal a pandas computation on all rows, exactly."""
    settings = ReportSettings(seed=seed)
    with rg.sources.parquet(folder / "train") as train, rg.sources.parquet(folder / "synth") as synth:
        context = prepare_context(train, None, synth, settings)
        for name in context.table_names:
            prep = context.table(name)
            columns = prep.compared_columns
            for role, side in ((TRAIN, "train"), (SYNTH, "synth")):
                full = pd.read_parquet(folder / side / name)
                kinds = prep.schema.kinds
                frame = pd.DataFrame(
                    {c: to_canonical(full[c], kinds[c], c, show_examples=False) for c in columns}
                )
                expected = bin_counts_in_memory(frame, columns, prep.bins, prep.pair_bins)
                got = prep.bin_counts(role, columns)
                pairs = zip(got.univariate, expected.univariate, strict=True)
                same = all(np.array_equal(a, b) for a, b in pairs)
                same &= all(np.array_equal(got.pairs[k], expected.pairs[k]) for k in expected.pairs)
                print(f"{name} {role}: engine counts equal pandas on all {len(full):,} rows: {same}")
                assert same


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000_000, help="rows per side (default 20M)")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/reportgen-lake"))
    parser.add_argument("--out", default="r.pdf", help="report file inside the folder (.pdf or .html)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", action="store_true", help="check the counts against pandas")
    args = parser.parse_args()
    start = time.perf_counter()
    for side, seed, shift in (("train", 1, 0.0), ("synth", 2, 0.05)):
        if not (args.folder / side / "events").exists():
            _generate(args.folder / side, args.rows, seed, shift)
    print(f"data: {args.rows:,} rows a side, written in {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    results = rg.report(
        args.folder / "train", None, args.folder / "synth", args.folder / args.out, seed=args.seed
    )
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    similarity = results.sections["similarity"]
    basis = similarity.tables[0].basis  # type: ignore[attr-defined]
    print(f"report: {elapsed:.1f} s, peak RSS {peak:,.0f} MiB")
    print(f"similarity score {similarity.score:.3f} on {basis.label}")  # type: ignore[attr-defined]
    if args.check:
        _check(args.folder, args.seed)


if __name__ == "__main__":
    main()
