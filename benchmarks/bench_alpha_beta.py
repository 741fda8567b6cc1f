"""alpha-precision, beta-recall and authenticity on UCI Adult: per generator, with timings.

Run: python benchmarks/bench_alpha_beta.py [--threads]   (needs ../shared/datasets)
     python benchmarks/bench_alpha_beta.py --against ../main [--seeds 0 1 2]
     python benchmarks/bench_alpha_beta.py --epochs 8 20 50 [--seeds 0 1 2]

For each generator (and the holdout rows as the reference level) prints IP_alpha, IR_beta and
authenticity as the report's section computes them (seed 0, default caps: every one of adult's
32,561 training, 16,281 holdout and 32,561 synthetic rows), the rows flagged at alpha = 0.95, the
epochs the one-class network trained, and the time of the section: training the network on the
training rows plus the three metrics on the synthetic and the holdout rows. The network's
training alone is timed too (the same seeded run the section makes). ``--threads`` first times the
training alone at 1 and at 2 torch threads (best of 2).

``--against CHECKOUT`` computes the section for every generator and seed with this checkout's
reportgen and with CHECKOUT's, alternating (``benchmarks/paired.py``), and prints the three numbers
of both with their seed-to-seed spread, the epochs trained and the training's CPU seconds (the
network is trained once per seed and shared by the generators, whose training rows are the same).
``--epochs E ...`` compares, in this checkout, the numbers after the default stopping rule ("old")
with those of training stopped at E epochs ("new"): how far stopping sooner moves them.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import paired  # benchmarks/paired.py
import pandas as pd
from adult import ADULT, GENERATORS, read  # benchmarks/adult.py

from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.metrics import alpha_beta
from reportgen.metrics.alpha_beta import compute_alpha_beta
from reportgen.preparation import prepare_context
from reportgen.privacy.one_class import OneClassConfig, fit_one_class
from reportgen.settings import ReportSettings

NUMBERS = ("ip_alpha", "ir_beta", "authenticity")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", action="store_true", help="time training at 1 and 2 threads first")
    parser.add_argument("--against", type=Path, help="another checkout to compare with, seed by seed")
    parser.add_argument("--epochs", nargs="*", type=int, help="compare training stopped at these epochs")
    parser.add_argument("--seeds", nargs="*", type=int, default=[0, 1, 2])
    parser.add_argument("--seed", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    train, test = read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")
    rows = [*GENERATORS, "holdout"]
    if args.child:
        print(json.dumps(child(train, test, args.seed)))
    elif args.against:
        runs = paired.alternate(Path(__file__), args.against, args.seeds)
        paired.compare(runs, rows, NUMBERS)
        print(paired.cpu_line(runs, "training"))
        show_epochs(runs)
    elif args.epochs:
        full = [child(train, test, seed) for seed in args.seeds]
        for epochs in args.epochs:
            print(f"default stopping rule (old) against training stopped at {epochs} epochs (new):")
            paired.compare(
                {"old": full, "new": [child(train, test, s, epochs) for s in args.seeds]}, rows, NUMBERS
            )
    else:
        if args.threads:
            time_threads(train, test)
        one_seed(train, test)


def child(
    train: pd.DataFrame, test: pd.DataFrame, seed: int, max_epochs: int | None = None
) -> dict[str, Any]:
    """The section's numbers per generator (and the holdout's) for one seed, one network for all."""
    original = alpha_beta.fit_one_class
    trained: dict[bytes, Any] = {}
    cpu = {"training": 0.0}

    def train_once(rows: np.ndarray, rng: np.random.Generator, config: Any = None) -> Any:
        """The section's own training, once per distinct set of training rows."""
        key = np.ascontiguousarray(rows, np.float32).tobytes()
        if key not in trained:
            start = time.process_time()
            config = config if max_epochs is None else OneClassConfig(max_epochs=max_epochs)
            trained[key] = original(rows, rng, config)
            cpu["training"] += time.process_time() - start
        return trained[key]

    alpha_beta.fit_one_class = train_once
    out: dict[str, Any] = {}
    try:
        for generator in GENERATORS:
            synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
            context = prepare_context(train, test, synth, ReportSettings(seed=seed))
            table = compute_alpha_beta(context).tables[0]
            out[generator] = table.synthetic.model_dump(include=set(NUMBERS))
    finally:
        alpha_beta.fit_one_class = original
    assert table.holdout is not None
    out["holdout"] = table.holdout.model_dump(include=set(NUMBERS))
    out["training"] = {
        "cpu": cpu["training"],
        "epochs": table.training.epochs,
        "best": table.training.best_epoch,
    }
    return out


def show_epochs(runs: paired.Runs) -> None:
    for label, seeds in runs.items():
        trained = ", ".join(f"{r['training']['epochs']} (kept {r['training']['best']})" for r in seeds)
        print(f"{label}: epochs per seed {trained}")


def one_seed(train: pd.DataFrame, test: pd.DataFrame) -> None:
    """Seed 0: the numbers, the rows flagged, the epochs and the times, per generator."""
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
