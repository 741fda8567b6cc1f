"""What the row caps buy: the whole report (no utility) on 200,000 adult-like rows per side at
several ``n_max`` caps, its time, and how its headline numbers move, over several seeds.

The 200,000-row report spends most of its time in the neighbour sections, whose searches grow as
the square of the rows each side keeps (``n_max_train``, ``n_max_test``, ``n_max_synth``, default
50,000). A lower cap is faster; this script measures what it costs in the numbers, so that the cap
is chosen by evidence: for each cap, the mean and the seed-to-seed standard deviation of every
headline, and the report's wall and CPU seconds (a fresh process per run, to HTML: the writing
stage does not depend on the cap).

Two synthetic versions are measured: ``ctgan`` (rows drawn like ``bench_large.py``'s) and
``leaky``, the same rows with ``--leak`` of them (default 10%) replaced by exact copies of training
rows. Each side is sampled to its cap independently, so a copied row counts only when its source
row is in the training sample too: the leak seen falls with the cap, which is what a lower cap risks.

Measured (2026-11-26, 2 shared cores, caps 50,000 / 30,000 / 20,000, seeds 0-2): the fidelity
headlines move by less than their seed-to-seed spread, but the leak evidence weakens with the cap:
on ``leaky`` the membership attack AUC is 0.928 / 0.865 / 0.791, training rows found at 1% false
positives 23.8% / 12.5% / 8.3%, exact copies 2.5% / 1.5% / 1.0%, inference risk 0.26 / 0.19 / 0.14;
CPU 232 / 136 / 133 s. So the default stays 50,000: a lower cap buys time with privacy evidence.

Run: python benchmarks/bench_caps.py [--caps 50000 30000] [--seeds 0 1 2] [--rows 200000]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
from bench_large import write_inputs  # benchmarks/bench_large.py
from bench_peer_adult import timed_child
from paired import mean_sd


def leaky_copy(synth: Path, train: Path, share: float, seed: int) -> Path:
    """``synth`` with a ``share`` of its rows replaced by seeded copies of training rows."""
    rng = np.random.default_rng(seed)
    frame, source = pd.read_parquet(synth), pd.read_parquet(train)
    n = round(share * len(frame))
    at = rng.choice(len(frame), size=n, replace=False)
    copies = source.iloc[rng.choice(len(source), size=n, replace=False)].reset_index(drop=True)
    frame.iloc[at] = copies.to_numpy()
    path = synth.with_name("leaky.parquet")
    frame.to_parquet(path)
    return path


def child(paths: list[Path], cap: int, seed: int) -> None:
    """One report in this process; prints its headline values as one JSON line."""
    from reportgen import report
    from reportgen.headlines import headlines

    frames = [pd.read_parquet(p) for p in paths]
    caps = {f"n_max_{role}": cap for role in ("train", "test", "synth")}
    with tempfile.TemporaryDirectory() as out:
        results = report(*frames, Path(out) / "caps.html", seed=seed, **caps)
    print(json.dumps({h.label: h.value for h in headlines(results).values()}))


def run(paths: list[Path], cap: int, seed: int) -> dict[str, float]:
    """Headlines of one report in a fresh process, with its wall and CPU seconds (all threads)."""
    command = [sys.executable, __file__, "--child", str(cap), str(seed), *map(str, paths)]
    wall, cpu, out = timed_child(command, dict(os.environ))
    return json.loads(out.strip().splitlines()[-1]) | {"wall s": wall, "CPU s": cpu}


def summary(runs: list[dict[str, float]]) -> dict[str, tuple[float, float]]:
    """Mean and standard deviation over seeds of each headline and of the times."""
    return {name: mean_sd([r[name] for r in runs if name in r]) for name in runs[0]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--caps", nargs="*", type=int, default=[50_000, 30_000])
    parser.add_argument("--seeds", nargs="*", type=int, default=[0, 1, 2])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--leak", type=float, default=0.1)
    parser.add_argument("--generators", nargs="*", default=["ctgan", "leaky"])
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        cap, seed, *paths = args.child
        child([Path(p) for p in paths], int(cap), int(seed))
        return
    with tempfile.TemporaryDirectory() as folder:
        train, test, synth = write_inputs(Path(folder), args.rows, "ctgan", 0)
        versions = {"ctgan": synth, "leaky": leaky_copy(synth, train, args.leak, 1)}
        for generator in args.generators:
            by_cap = {}
            for cap in args.caps:
                runs = []
                for seed in args.seeds:
                    runs.append(run([train, test, versions[generator]], cap, seed))
                    print(f"{generator} cap {cap:,} seed {seed}: wall {runs[-1]['wall s']:.1f} s", flush=True)
                by_cap[cap] = summary(runs)
            show(generator, by_cap)


def show(generator: str, by_cap: dict[int, dict[str, tuple[float, float]]]) -> None:
    caps = list(by_cap)
    names = list(by_cap[caps[0]])
    width = max(len(n) for n in names)
    print(f"\n{generator}: mean (sd over seeds)")
    print(f"{'':<{width}} " + " ".join(f"{'cap ' + format(c, ','):>20}" for c in caps))
    for name in names:
        cells = []
        for cap in caps:
            mean, sd = by_cap[cap].get(name, (float("nan"), float("nan")))
            cells.append(f"{mean:12.4g} ({sd:6.2g})")
        print(f"{name:<{width}} " + " ".join(f"{c:>20}" for c in cells))


if __name__ == "__main__":
    main()
