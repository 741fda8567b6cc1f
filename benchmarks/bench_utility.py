"""Utility section on UCI Adult (target ``income``): per generator, TSTR beside the real baseline,
SRA, and the time of the section, with the models run in threads or in processes.

Run: python benchmarks/bench_utility.py [--backend threading|loky] [--n-max N] [--models]
(needs ../shared/datasets)
"""

from __future__ import annotations

import argparse
import os
import time

from adult import ADULT, GENERATORS, read  # benchmarks/adult.py
from joblib import cpu_count

from reportgen.api import prepare_context
from reportgen.metrics import utility
from reportgen.settings import N_MAX_UTILITY, ReportSettings


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--backend", default=utility._BACKEND, choices=("threading", "loky"))
    parser.add_argument("--n-max", type=int, default=N_MAX_UTILITY)
    parser.add_argument("--models", action="store_true", help="print every model's scores")
    parser.add_argument("--generators", nargs="*", default=GENERATORS)
    args = parser.parse_args()
    utility._BACKEND = args.backend
    train, test = read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")
    print(
        f"backend {args.backend}, {cpu_count()} cores (os: {os.cpu_count()}), n_max_utility {args.n_max}, "
        f"{len(train):,} training / {len(test):,} holdout rows"
    )
    print(f"{'generator':<16} {'TSTR':>6} {'real':>6} {'gap':>6} {'SRA':>5} {'CPU s':>6} {'section':>8}")
    for generator in args.generators:
        synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
        settings = ReportSettings(targets={"table": "income"}, n_max_utility=args.n_max)
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


if __name__ == "__main__":
    main()
