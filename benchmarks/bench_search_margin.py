"""CPU seconds of the exact neighbour engine by its pass-1 margin, on data of different shapes.

``neighbours.MARGIN`` is how many candidates beyond ``k`` pass 1 keeps per row: more candidates
mean a looser threshold (more scores pass the segment filter and are merged), fewer mean more rows
whose certificate fails and that pass 2 scans again. The answers do not depend on it (the engine
is exact); this script shows what it costs, on one worker thread (CPU time, so a core busy with
other work moves the figures less), with the margins interleaved and the median of ``--repeats``.

Shapes: adult's distance space (training rows against CTGAN's synthetic rows, 125 features, k = 16
as the privacy section's neighbour lists and k = 1 as its 1-NN curves); adult's categorical columns
alone (few distinct rows, distances in halves: many exact ties); and 25 dense Gaussian features (the
one-class network's output space of the sample-level section, k = 5 and k = 1).

Run: python benchmarks/bench_search_margin.py [--rows 16000] [--repeats 3] [--margins 2 4 8]
(needs ../shared/datasets)
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
import pandas as pd
from adult import ADULT, read  # benchmarks/adult.py

import reportgen.privacy.neighbours as neighbours
from reportgen.data.schema import ColumnKind
from reportgen.privacy.distance_space import DistanceSpace


def embedded(columns: list[str] | None, rows: int) -> tuple[np.ndarray, np.ndarray]:
    train = read(ADULT / "adult_train.csv")
    synth = read(ADULT / "synthetic" / "ctgan" / "adult_train.csv.gz")
    columns = columns or list(train.columns)
    kinds = {
        c: ColumnKind.NUMERIC if pd.api.types.is_numeric_dtype(train[c]) else ColumnKind.CATEGORICAL
        for c in columns
    }
    space = DistanceSpace.fit(train[columns], kinds, others=[synth[columns]])
    return space.transform(train[columns])[:rows], space.transform(synth[columns])[:rows]


def cases(rows: int) -> dict[str, tuple[np.ndarray, np.ndarray, int]]:
    train, synth = embedded(None, rows)
    categorical = [c for c in read(ADULT / "adult_train.csv").select_dtypes(exclude="number").columns]
    cat_train, cat_synth = embedded(categorical, rows)
    rng = np.random.default_rng(0)
    dense_train = rng.normal(size=(rows, 25)).astype(np.float32)
    dense_synth = rng.normal(0.2, 1, size=(rows, 25)).astype(np.float32)
    return {
        "adult, k=16": (train, synth, 16),
        "adult, k=1": (train, synth, 1),
        "adult categoricals, k=16": (cat_train, cat_synth, 16),
        "adult categoricals, k=1": (cat_train, cat_synth, 1),
        "25 dense features, k=5": (dense_train, dense_synth, 5),
        "25 dense features, k=1": (dense_train, dense_synth, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=16_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--margins", type=int, nargs="+", default=[2, 4, 8])
    args = parser.parse_args()
    default = neighbours.MARGIN
    print(f"rows {args.rows} x {args.rows}, one thread, median of {args.repeats}; CPU s by margin")
    print(f"{'case':28}" + "".join(f"{m:>9}" for m in args.margins))
    for name, (query, reference, k) in cases(args.rows).items():
        seconds: dict[int, list[float]] = {m: [] for m in args.margins}
        answers = {}
        for _ in range(args.repeats):
            for margin in args.margins:
                neighbours.MARGIN = margin
                start = time.process_time()
                answers[margin] = neighbours.knn(query, reference, k=k, n_threads=1)
                seconds[margin].append(time.process_time() - start)
        neighbours.MARGIN = default
        first = answers[args.margins[0]]
        assert all(
            np.array_equal(a[0], first[0]) and np.array_equal(a[1], first[1]) for a in answers.values()
        )
        print(f"{name:28}" + "".join(f"{statistics.median(seconds[m]):9.2f}" for m in args.margins))


if __name__ == "__main__":
    main()
