"""The report of bench_lake.py's Parquet folders on Spark (local session) and on DuckDB, side by side.

Writes the data as bench_lake.py does (if absent), then runs the whole report twice, each in a
process of its own: once with DuckDB reading the folders, once with a local Spark session
(``local[N]``) reading the same files. Prints per engine the wall time, the Python process's peak
RSS (``ru_maxrss``; Spark's JVM is a separate process, not counted), the similarity score, and how
many times statements read each table (``_count_statements``: a statement reading a table twice
reads it twice; row counts from metadata and column lookups apart), and the seconds its statements
took by the step that sent them (a streamed statement counts until its first batch only).

    python benchmarks/bench_lake_spark.py --rows 20000000 --folder /tmp/lake --cores 2
    python benchmarks/bench_lake_spark.py --rows 20000000 --folder /tmp/lake --engines spark

Figures measured on 2 shared cores: docs/scaling.md ("Measured here").
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import reportgen as rg

sys.path.insert(0, str(Path(__file__).parent))
from bench_lake import ROWS_PER_FILE, _generate  # bench_lake writes the data


def _count_statements(relations: dict[str, str], scans: dict[str, Counter], steps: Counter) -> None:
    """Count, per role, each statement that reads ``relations[role]``, on every engine of its class.

    Patched on the engine classes, so that statements of engines reportgen opens itself (DuckDB's
    KS runs on a connection of its own) count too. Each mention of the relation in a statement
    is one read ("scans"); a bare ``SELECT COUNT(*)`` (answered from Parquet metadata) and a
    statement that asks for the columns only (``DESCRIBE``, ``LIMIT 0``) count under
    "metadata" instead. ``steps`` adds up the seconds of every statement by the function of
    ``reportgen.data`` that sent it (``ks_statistics``, ``content_digest``, ...).
    """
    from reportgen.data.engines import DuckDBEngine
    from reportgen.data.spark import SparkEngine

    def counted(method):
        def run(self, query, *args):
            for role, relation in relations.items():
                mentions = query.count(relation)
                if not mentions:
                    continue
                bare = query.strip() == f"SELECT COUNT(*) FROM {relation}"
                columns_only = query.startswith("DESCRIBE") or query.rstrip().endswith("LIMIT 0")
                scans[role]["metadata" if bare or columns_only else "scans"] += mentions
            start = time.perf_counter()
            try:
                return method(self, query, *args)
            finally:
                steps[_sender()] += time.perf_counter() - start

        return run

    for engine in (DuckDBEngine, SparkEngine):
        for name in ("rows", "frame", "batches"):
            setattr(engine, name, counted(getattr(engine, name)))


def _sender() -> str:
    """The innermost function of ``reportgen.data`` (outside the engines) on the calling stack."""
    frame = sys._getframe(2)
    while frame is not None:
        path = frame.f_code.co_filename.replace("\\", "/")
        if "/reportgen/data/" in path and not path.endswith(("/engines.py", "/spark.py")):
            return frame.f_code.co_name
        frame = frame.f_back
    return "other"


def run_one(engine: str, folder: Path, cores: int, seed: int) -> dict:
    """One whole report on ``engine``; its figures as a dict."""
    scans: dict[str, Counter] = {"train": Counter(), "synth": Counter()}
    steps: Counter = Counter()
    session = None
    if engine == "spark":
        from pyspark.sql import SparkSession

        session = (
            SparkSession.builder.master(f"local[{cores}]")
            .config("spark.ui.enabled", "false")
            .config("spark.driver.memory", "4g")
            .config("spark.sql.shuffle.partitions", str(4 * cores))
            .getOrCreate()
        )
        session.sparkContext.setLogLevel("ERROR")
        opened = {
            role: rg.sources.spark(session, {"events": session.read.parquet(str(folder / role / "events"))})
            for role in scans
        }
    else:
        opened = {role: rg.sources.parquet(folder / role) for role in scans}
    _count_statements({role: source.relations["events"] for role, source in opened.items()}, scans, steps)
    start = time.perf_counter()
    results = rg.report(opened["train"], None, opened["synth"], folder / f"r-{engine}.html", seed=seed)
    elapsed = time.perf_counter() - start
    for source in opened.values():
        source.close()
    similarity = results.sections["similarity"]
    basis = similarity.tables[0].basis  # type: ignore[attr-defined]
    return {
        "engine": engine,
        "seconds": round(elapsed, 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "similarity": round(similarity.score, 3),  # type: ignore[attr-defined]
        "basis": basis.label,
        "scans": {role: dict(counts) for role, counts in scans.items()},
        "seconds by step": {step: round(seconds, 1) for step, seconds in steps.most_common()},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=20_000_000, help="rows per side (default 20M)")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/reportgen-lake"))
    parser.add_argument("--cores", type=int, default=2, help="Spark's local[N] (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--engines", nargs="+", choices=["duckdb", "spark"], default=["duckdb", "spark"])
    parser.add_argument("--engine", choices=["duckdb", "spark"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.engine:  # the child process: one report, its figures as JSON
        print(json.dumps(run_one(args.engine, args.folder, args.cores, args.seed)))
        return
    for side, seed, shift in (("train", 1, 0.0), ("synth", 2, 0.05)):
        if not (args.folder / side / "events").exists():
            _generate(args.folder / side, args.rows, seed, shift)
    print(f"data: {args.rows:,} rows a side ({ROWS_PER_FILE:,} per file) in {args.folder}")
    for engine in args.engines:  # one at a time, each in a process of its own
        command = [sys.executable, __file__, "--engine", engine, "--folder", str(args.folder)]
        command += ["--cores", str(args.cores), "--seed", str(args.seed)]
        done = subprocess.run(command, capture_output=True, text=True, check=True)
        print(done.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
