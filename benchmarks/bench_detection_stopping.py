"""Would early stopping make the detection test cheaper without making it weaker? At small sizes: no.

The detection test fits ``HistGradientBoostingClassifier`` with its defaults: 100 boosting rounds
below 10,000 fitted rows, early stopping on a 10% validation share above. Most of a small report's
detection time is those 100 rounds (about 0.2-0.3 CPU s a fit, bound by the grower's Python), so
early stopping at every size is the obvious protocol to make it cheaper. This measures what it
costs, on generated tables (two correlated numbers, a category tied to them, a free category, a
skewed number) compared with a fresh sample of the same table:

- ``fresh``: an independent sample (AUROC near 0.5 either way);
- ``marginals``: every column shuffled on its own (the links between columns lost);
- ``drift``: one number shifted by 0.3 of its spread;
- ``near copies``: half the rows are training rows with 1% noise on the numbers. The classifier
  learns the training twin of each and scores it as real: an AUROC far below 0.5, which the
  report raises as a privacy alarm (``detection_below_chance``).

For each size (rows a side) and case, the mean and sd of the out-of-fold AUROC over 5 seeds, and
the CPU seconds of one comparison (five folds), with the defaults ("default") and with early
stopping at every size ("stopping").

Measured on 2026-11-28 (2 cores, shared): stopping was 2-4x cheaper and at least as strong on
drift and lost links, but it hid near copies: AUROC 0.38-0.41 instead of 0.28-0.33 at 100-3,000
rows a side, a weaker alarm. At 8,000 rows a side both fits stop early and give 0.447: the
defaults' own early stopping above 10,000 fitted rows weakens the same signal on large tables.

Run: python benchmarks/bench_detection_stopping.py [--sizes 100 300 1000 3000 8000] [--seeds 5]
"""

from __future__ import annotations

import argparse
import functools
import time

import numpy as np
import pandas as pd
from sklearn.ensemble import HistGradientBoostingClassifier

import reportgen.metrics.detection as detection
from reportgen.data.roles import SYNTH, TRAIN
from reportgen.data.schema import ColumnKind

KINDS = {
    "a": ColumnKind.NUMERIC,
    "b": ColumnKind.NUMERIC,
    "c": ColumnKind.CATEGORICAL,
    "d": ColumnKind.CATEGORICAL,
    "e": ColumnKind.NUMERIC,
}
CASES = ("fresh", "marginals", "drift", "near copies")


def table(n: int, rng: np.random.Generator) -> pd.DataFrame:
    z = rng.normal(size=n)
    return pd.DataFrame(
        {
            "a": z + rng.normal(size=n) * 0.5,
            "b": z + rng.normal(size=n) * 0.5,
            "c": np.where(z + rng.normal(size=n) > 0, "hi", "lo"),
            "d": rng.choice(list("abcde"), n),
            "e": rng.gamma(2, 1, n),
        }
    )


def compared(case: str, train: pd.DataFrame, n: int, rng: np.random.Generator) -> pd.DataFrame:
    """The rows compared with ``train``: a fresh sample changed as ``case`` says."""
    other = table(n, rng)
    if case == "marginals":
        return pd.DataFrame({column: rng.permutation(other[column].to_numpy()) for column in other})
    if case == "drift":
        return other.assign(a=other["a"] + 0.3)
    if case == "near copies":
        near = train.iloc[: n // 2].copy()
        near[["a", "b", "e"]] += rng.normal(0, 0.01, (len(near), 3))
        return pd.concat([near, other.iloc[n // 2 :]], ignore_index=True)
    return other


def auroc_and_cpu(case: str, n: int, seed: int) -> tuple[float, float]:
    rng = np.random.default_rng(seed)
    train = table(n, rng)
    view = detection._View("table", {TRAIN: train, SYNTH: compared(case, train, n, rng)}, KINDS)
    cpu = time.process_time()
    estimate = detection._estimate(detection._fit(view, SYNTH, np.random.default_rng(seed), n))
    return estimate.auc, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", nargs="*", type=int, default=[100, 300, 1000, 3000, 8000])
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args()
    protocols = {
        "default": HistGradientBoostingClassifier,
        "stopping": functools.partial(HistGradientBoostingClassifier, early_stopping=True),
    }
    print(f"{'rows':>6} {'case':<12} " + "  ".join(f"{p + ' AUROC (sd), CPU s':>32}" for p in protocols))
    for n in args.sizes:
        for case in CASES:
            cells = []
            for classifier in protocols.values():
                detection.HistGradientBoostingClassifier = classifier
                runs = [auroc_and_cpu(case, n, seed) for seed in range(args.seeds)]
                aucs = [auc for auc, _ in runs]
                cpu = float(np.median([c for _, c in runs]))
                cells.append(f"{np.mean(aucs):.3f} ({np.std(aucs, ddof=1):.3f}), {cpu:5.2f}")
            print(f"{n:>6} {case:<12} " + "  ".join(f"{cell:>32}" for cell in cells), flush=True)


if __name__ == "__main__":
    main()
