"""Old against new: one measurement run in two checkouts, alternating, with each number's seed spread.

A benchmark that changes a protocol shows that its numbers move by less than their seed-to-seed
spread: it runs itself as a child process (``--child``, printing one JSON line) with
``PYTHONPATH`` set to this checkout and to another one (``--against``), for every seed, the two
checkouts alternating first and second from one seed to the next so that load from other work on
a shared machine falls on both alike. ``compare`` prints, per row and number, the mean and
standard deviation over the seeds of each checkout and the change of the means in units of the
larger standard deviation.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]

Runs = dict[str, list[dict[str, Any]]]  # checkout label -> one child's output per seed


def child_output(checkout: Path, script: Path, arguments: Sequence[str]) -> dict[str, Any]:
    """The JSON line a benchmark prints when run with ``--child`` on ``checkout``'s reportgen."""
    env = os.environ | {"PYTHONPATH": str(checkout)}
    command = [sys.executable, str(script), "--child", *arguments]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"{' '.join(command)} failed on {checkout}:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def alternate(script: Path, against: Path, seeds: Sequence[int], arguments: Sequence[str] = ()) -> Runs:
    """``script --child --seed S`` for every seed, here ("new") and in ``against`` ("old"), alternating."""
    checkouts = {"new": REPO, "old": against.resolve()}
    runs: Runs = {"old": [], "new": []}
    for i, seed in enumerate(seeds):
        order = ("new", "old") if i % 2 == 0 else ("old", "new")
        for label in order:
            runs[label].append(child_output(checkouts[label], script, [*arguments, "--seed", str(seed)]))
            print(f"  seed {seed} {label}: done", file=sys.stderr, flush=True)
    return runs


def mean_sd(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for one value)."""
    return statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0


def compare(runs: Runs, rows: Sequence[str], numbers: Sequence[str]) -> None:
    """Per row (``runs[label][i][row][number]``) and number: old and new mean +- sd, and the change."""
    print(f"{'':<16} {'number':<13} {'old mean +- sd':>16} {'new mean +- sd':>16} {'change':>8} {'/ sd':>6}")
    for row in rows:
        for number in numbers:
            (old, old_sd), (new, new_sd) = (
                mean_sd([run[row][number] for run in runs[label]]) for label in ("old", "new")
            )
            sd = max(old_sd, new_sd)
            ratio = f"{abs(new - old) / sd:6.1f}" if sd > 0 else ("   0.0" if new == old else "   inf")
            print(
                f"{row:<16} {number:<13} {old:9.4f} +- {old_sd:.4f} {new:9.4f} +- {new_sd:.4f} "
                f"{new - old:+8.4f} {ratio}"
            )


def cpu_line(runs: Runs, row: str, key: str = "cpu") -> str:
    """Median over the seeds of a row's CPU seconds (``run[row][key]``), old and new."""
    old, new = (statistics.median(run[row][key] for run in runs[label]) for label in ("old", "new"))
    return f"{row:<16} CPU s (median over seeds): old {old:.1f}, new {new:.1f} ({new / old - 1:+.0%})"
