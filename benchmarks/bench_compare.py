"""Four adult candidates: one ``reportgen compare`` against four ``reportgen report`` runs, same seed.

What a user does either way, on the command line: four processes ``reportgen report --train
adult_train.csv --test adult_test.csv --synth synthetic/<generator>/adult_train.csv.gz --target
income --out <generator>.pdf``, or one ``reportgen compare`` with the four as ``--synth
NAME=PATH`` and ``--reports`` (so that it writes the same four full reports, plus the comparison).
Each side's time is that of its processes from start to exit (imports and reading the CSV files
included): wall seconds and CPU seconds (user + system of the process and the children it waited
for, from ``os.wait4``). Then every candidate's JSON from ``compare`` is checked against its own
report's, field by field, all but the run's timestamp: the same numbers.

Run once (the machine is shared): nice -n 5 python benchmarks/bench_compare.py [--generators ...]
``--no-utility`` leaves the target out (no utility section) for a shorter run; ``--keep DIR`` keeps
the comparison's PDF and JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from adult import ADULT

REPO = Path(__file__).resolve().parents[1]
DEFAULT = ("ctgan", "tvae", "gaussian_copula", "leaky")


def timed(command: list[str]) -> tuple[float, float, int]:
    """Wall and CPU seconds of a child process run to its end, and its exit code."""
    env = os.environ | {"PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def without_time(path: Path) -> dict:
    data = json.loads(path.read_text())
    data["run"].pop("created_at")
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--generators", nargs="+", default=list(DEFAULT))
    parser.add_argument("--no-utility", action="store_true")
    parser.add_argument("--keep", type=Path, help="a folder to keep the comparison's PDF and JSON in")
    args = parser.parse_args()
    cli = [sys.executable, "-m", "reportgen.cli"]
    real = ["--train", str(ADULT / "adult_train.csv"), "--test", str(ADULT / "adult_test.csv"), "-q"]
    real += [] if args.no_utility else ["--target", "income"]
    synth = {g: str(ADULT / "synthetic" / g / "adult_train.csv.gz") for g in args.generators}
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder)
        separate_wall = separate_cpu = 0.0
        for name, path in synth.items():
            wall, cpu, code = timed(
                [*cli, "report", *real, "--synth", path, "--out", str(out / f"{name}.pdf")]
            )
            print(f"report {name:<16} {wall:7.1f} s wall {cpu:7.1f} CPU s (exit {code})", flush=True)
            separate_wall, separate_cpu = separate_wall + wall, separate_cpu + cpu
        specs = [a for name, path in synth.items() for a in ("--synth", f"{name}={path}")]
        command = [
            *cli,
            "compare",
            *real,
            *specs,
            "--out",
            str(out / "compare.pdf"),
            "--reports",
            str(out / "each"),
        ]
        wall, cpu, code = timed(command)
        print(
            f"compare ({len(synth)} candidates) {wall:7.1f} s wall {cpu:7.1f} CPU s (exit {code})", flush=True
        )
        print(f"{len(synth)} reports          {separate_wall:7.1f} s wall {separate_cpu:7.1f} CPU s")
        print(f"speedup: wall x{separate_wall / wall:.2f}, CPU x{separate_cpu / cpu:.2f}")
        comparison = json.loads((out / "compare.json").read_text())
        for candidate in comparison["candidates"]:
            alone = without_time(out / f"{candidate['name']}.json")
            inside = candidate["results"]
            inside["run"].pop("created_at")
            print(f"{candidate['name']}: {'the same numbers' if inside == alone else 'DIFFERENT numbers'}")
        print("recommended:", comparison["recommended"], "-", comparison["why"])
        if args.keep:
            args.keep.mkdir(parents=True, exist_ok=True)
            for name in ("compare.pdf", "compare.json"):
                (args.keep / name).write_bytes((out / name).read_bytes())


if __name__ == "__main__":
    main()
