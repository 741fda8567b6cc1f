"""Utility section on UCI Adult (target ``income``): per generator, TSTR beside the real baseline,
SRA, and the time of the section.

Run: python benchmarks/bench_utility.py [--n-max N] [--models]
     python benchmarks/bench_utility.py --against ../main [--seeds 0 1 2]
(needs ../shared/datasets)

``--against CHECKOUT`` runs the section for every generator and seed with this checkout's
reportgen and with CHECKOUT's, alternating (``benchmarks/paired.py``), and prints TSTR, the real
baseline and SRA of both with their seed-to-seed spread, and the section's CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import paired  # benchmarks/paired.py
import pandas as pd
from adult import ADULT, GENERATORS, read  # benchmarks/adult.py

from reportgen.catalogue import report_settings
from reportgen.metrics import utility
from reportgen.preparation import prepare_context
from reportgen.settings import N_MAX_UTILITY
from reportgen.threads import usable_cores


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-max", type=int, default=N_MAX_UTILITY)
    parser.add_argument("--models", action="store_true", help="print every model's scores")
    parser.add_argument("--generators", nargs="*", default=GENERATORS)
    parser.add_argument("--against", type=Path, help="another checkout to compare with, seed by seed")
    parser.add_argument("--seeds", nargs="*", type=int, default=[0, 1, 2])
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    train, test = read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")
    if args.child:
        print(json.dumps(child(train, test, args.generators, args.seed, args.n_max)))
        return
    if args.against:
        options = ["--generators", *args.generators, "--n-max", str(args.n_max)]
        runs = paired.alternate(Path(__file__), args.against, args.seeds, options)
        paired.compare(runs, args.generators, ("tstr", "real", "sra"))
        for generator in args.generators:
            print(paired.cpu_line(runs, generator))
        return
    print(
        f"{usable_cores()} cores (os: {os.cpu_count()}), n_max_utility {args.n_max}, "
        f"{len(train):,} training / {len(test):,} holdout rows"
    )
    print(f"{'generator':<16} {'TSTR':>6} {'real':>6} {'gap':>6} {'SRA':>5} {'CPU s':>6} {'section':>8}")
    for generator in args.generators:
        synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
        settings = report_settings(targets={"table": "income"}, n_max_utility=args.n_max)
        context = prepare_context(train, test, synth, settings)
        start, cpu = time.perf_counter(), time.process_time()
        result = utility.compute_utility(context)
        seconds, cpu_seconds = time.perf_counter() - start, time.process_time() - cpu
        table = result.tables[0]
        assert table.tstr is not None and table.real_baseline is not None and table.sra is not None
        print(
            f"{generator:<16} {table.tstr:6.3f} {table.real_baseline:6.3f} "
            f"{table.real_baseline - table.tstr:6.3f} {table.sra:5.2f} {cpu_seconds:6.1f} {seconds:7.1f}s"
        )
        if args.models:
            for m in table.models:
                scores = "  ".join(
                    f"{name} {float('nan') if value is None else value:.3f}"
                    for name, value in (("R", m.real), ("S", m.synthetic), ("TSTR", m.tstr))
                )
                ranks = f"ranks {m.rank_real}/{m.rank_synthetic}"
                print(f"    {m.model:<30} {scores}  {ranks}  {'; '.join(m.notes)}")


def child(train: pd.DataFrame, test: pd.DataFrame, generators: list[str], seed: int, n_max: int) -> dict:
    """Per generator: TSTR, the real baseline, SRA and the section's CPU seconds, for one seed."""
    out = {}
    for generator in generators:
        synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
        settings = report_settings(seed=seed, targets={"table": "income"}, n_max_utility=n_max)
        context = prepare_context(train, test, synth, settings)
        cpu = time.process_time()
        table = utility.compute_utility(context).tables[0]
        cpu = time.process_time() - cpu
        out[generator] = {"tstr": table.tstr, "real": table.real_baseline, "sra": table.sra, "cpu": cpu}
    return out


if __name__ == "__main__":
    main()
