"""alpha-precision, beta-recall and authenticity on UCI Adult: per generator, with timings.

Run: python benchmarks/bench_alpha_beta.py [--threads]   (needs ../shared/datasets)

For each generator (and the holdout rows as the reference level) prints IP_alpha, IR_beta and
authenticity as the report's section computes them (seed 0, default caps: every one of adult's
32,561 training, 16,281 holdout and 32,561 synthetic rows), the rows flagged at alpha = 0.95, the
epochs the one-class network trained, and the time of the section: training the network on the
training rows plus the three metrics on the synthetic and the holdout rows. The network's
training alone is timed too (the same seeded run the section makes). ``--threads`` first times the
training alone at 1 and at 2 torch threads (best of 2).
"""

from __future__ import annotations

import argparse
import time

import pandas as pd
from adult import ADULT, GENERATORS, read  # benchmarks/adult.py

from reportgen.api import prepare_context
from reportgen.data.validation import SYNTH, TEST, TRAIN
from reportgen.metrics.alpha_beta import compute_alpha_beta
from reportgen.privacy.one_class import OneClassConfig, fit_one_class
from reportgen.settings import ReportSettings


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", action="store_true", help="time training at 1 and 2 threads first")
    args = parser.parse_args()
    train, test = read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")
    if args.threads:
        time_threads(train, test)
    print(
        f"{'generator':<16} {'IP_alpha':>8} {'IR_beta':>8} {'authen.':>8} {'flagged':>8} "
        f"{'epochs':>6} {'train':>6} {'section':>8}"
    )
    reference = None
    for generator in GENERATORS:
        synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
        context = prepare_context(train, test, synth, ReportSettings())
        name = context.table_names[0]
        prep = context.table(name)
        for role in (TRAIN, TEST, SYNTH):
            prep.embedded(role)
        start = time.perf_counter()
        fit_one_class(prep.embedded(TRAIN), context.rng(f"alpha_beta:network:{name}"))
        trained = time.perf_counter()
        result = compute_alpha_beta(context)
        done = time.perf_counter()
        table = result.tables[0]
        s = table.synthetic
        print(
            f"{generator:<16} {s.ip_alpha:8.3f} {s.ir_beta:8.3f} {s.authenticity:8.3f} "
            f"{table.flagged / s.rows:8.1%} {table.training.epochs:6d} {trained - start:5.1f}s "
            f"{done - trained:7.1f}s"
        )
        reference = table
    assert reference is not None and reference.holdout is not None
    h = reference.holdout
    print(
        f"{'holdout (ref.)':<16} {h.ip_alpha:8.3f} {h.ir_beta:8.3f} {h.authenticity:8.3f} "
        f"{reference.holdout_flagged:8.1%}"
    )
    print(
        f"rows: {reference.rows}; beta-recall on m = {reference.recall_rows:,} rows of each set; "
        f"network: batch {reference.training.batch_size}, max {reference.training.max_epochs} epochs, "
        f"patience {reference.training.patience}, 1 torch thread"
    )


def time_threads(train: pd.DataFrame, test: pd.DataFrame) -> None:
    context = prepare_context(train, test, train.iloc[:100], ReportSettings())
    name = context.table_names[0]
    rows = context.table(name).embedded(TRAIN)
    for threads in (1, 2):
        best = float("inf")
        for _ in range(2):
            start = time.perf_counter()
            embedding = fit_one_class(
                rows, context.rng(f"alpha_beta:network:{name}"), OneClassConfig(n_threads=threads)
            )
            best = min(best, time.perf_counter() - start)
        print(f"training at {threads} thread(s): {best:.1f}s ({embedding.training.epochs} epochs)")


if __name__ == "__main__":
    main()
