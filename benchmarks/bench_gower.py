"""Timings and results of the maximum-similarity test with Gower similarity (METRICS.md section 10).

Run: python benchmarks/bench_gower.py [--sizes 5000 10000] [--repeat 2] [--generators ctgan tvae]
(needs ../shared/datasets)

On adult (32,561 training rows; 5 integer and 10 categorical columns) prints, for each synthetic
set and for the real holdout (adult_test.csv, the reference an independent real sample gets):
- the time to transform the set into the Gower space fitted on the training data;
- for each sample size n, the time of ``max_similarity_stats`` (best of ``--repeat``: three exact
  searches of n x n rows), the three mean maximum similarities, the score and the copy share.
NumPy's element-wise work runs on one core; BLAS is not used, so no thread setting matters.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from adult import DATASETS, GENERATORS, read  # benchmarks/adult.py

import reportgen as rg
from reportgen.privacy.gower import GowerRows, GowerSpace, MaxSimilarityStats, max_similarity_stats


def timed_stats(train: GowerRows, other: GowerRows, n: int, repeat: int) -> tuple[float, MaxSimilarityStats]:
    best, stats = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        stats = max_similarity_stats(train, other, n=n, rng=np.random.default_rng(0))
        best = min(best, time.perf_counter() - start)
    assert stats is not None
    return best, stats


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[5_000, 10_000])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--generators", nargs="+", default=list(GENERATORS))
    args = parser.parse_args()

    train_frame = read(DATASETS / "adult" / "adult_train.csv")
    data = rg.RelationalData(train_frame)
    kinds = dict(data.schema[next(iter(data.schema))].kinds)  # a single DataFrame is table "table"
    start = time.perf_counter()
    space = GowerSpace.fit(train_frame, kinds)
    train = space.transform(train_frame)
    print(
        f"adult: {len(train):,} training rows, {len(space.numeric)} numeric and {len(space.categorical)} "
        f"categorical columns; fit + transform {time.perf_counter() - start:.2f} s"
    )
    sets = {name: DATASETS / "adult" / "synthetic" / name / "adult_train.csv.gz" for name in args.generators}
    sets["holdout (reference)"] = DATASETS / "adult" / "adult_test.csv"
    print(
        f"{'set':<20} {'rows':>7} {'transform':>9} {'n':>6} {'time':>7} "
        f"{'within T':>9} {'within S':>9} {'cross':>7} {'score':>7} {'copies':>7}"
    )
    for name, path in sets.items():
        frame = read(path)
        start = time.perf_counter()
        other = space.transform(frame)
        transform = time.perf_counter() - start
        for n in args.sizes:
            seconds, s = timed_stats(train, other, n, args.repeat)
            score = "-" if s.score is None else f"{s.score:.4f}"
            print(
                f"{name:<20} {len(other):>7,} {transform:>8.2f}s {s.n:>6,} {seconds:>6.2f}s "
                f"{s.mean_within_real:>9.4f} {s.mean_within_synthetic:>9.4f} {s.mean_cross:>7.4f} "
                f"{score:>7} {s.copy_share:>7.2%}",
                flush=True,
            )


if __name__ == "__main__":
    main()
