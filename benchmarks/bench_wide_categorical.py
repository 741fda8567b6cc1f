"""A 100,000-row table with a 3,000-level categorical: the whole report to PDF, time per section, peak RSS.

Before the distance space capped its levels (``max_encoded_levels``), such a column was one-hot
encoded into 3,000 dimensions and the privacy section alone took most of half an hour and gigabytes.

Measured on the 2-core machine (shared), default settings (50,000 rows per role sampled), 10% copied
rows: total 227 s and peak RSS 1.40 GiB; data checks 4.6 s, phik 11.4 s, privacy 109 s (almost all
of it the exact neighbour searches on 50,000 rows of 62 dimensions; the exact-copy check and Gower
under 1 s), alpha-beta 47 s, utility 38 s, writing the PDF 16 s. Privacy score 82.8, exact copies
5.1% (half the copies' training rows are left out by the sampling).

Run: python benchmarks/bench_wide_categorical.py [--rows 100000] [--levels 3000] [--out DIR]
"""

from __future__ import annotations

import argparse
import resource
import time
from pathlib import Path

import numpy as np
import pandas as pd

import reportgen


def table(n_rows: int, n_levels: int, rng: np.random.Generator) -> pd.DataFrame:
    """A Zipf-like city column (every level used), two numbers, two small categoricals, a target."""
    city = np.concatenate([np.arange(n_levels), np.minimum(rng.zipf(1.3, n_rows - n_levels), n_levels) - 1])
    city = rng.permutation(city)
    age = rng.integers(18, 90, n_rows)
    income = np.exp(10 + 0.01 * (age - 40) + 0.3 * (city < 20) + rng.normal(0, 0.5, n_rows))
    plan = rng.choice(["basic", "plus", "premium"], n_rows, p=[0.6, 0.3, 0.1])
    churn = rng.random(n_rows) < 1 / (1 + np.exp(0.02 * (age - 40) - (plan == "basic").astype(float)))
    return pd.DataFrame(
        {
            "city": [f"city {c:04d}" for c in city],
            "age": age,
            "income": income.round(2),
            "plan": plan,
            "region": rng.choice(list("NESW"), n_rows),
            "churn": np.where(churn, "yes", "no"),
        }
    )


class Stages:
    """The report's progress callback: the wall time of each stage (one per section)."""

    def __init__(self) -> None:
        self.times: dict[str, float] = {}
        self._stage, self._start = "Preparing the data", time.perf_counter()

    def __call__(self, stage: str, fraction: float) -> None:
        now = time.perf_counter()
        self.times[self._stage] = self.times.get(self._stage, 0.0) + now - self._start
        self._stage, self._start = stage, now


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--levels", type=int, default=3000)
    parser.add_argument("--out", type=Path, default=Path("wide-categorical-report"))
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    train, test, synth = (table(args.rows, args.levels, rng) for _ in range(3))
    synth.iloc[: args.rows // 10] = train.iloc[: args.rows // 10].to_numpy()  # 10% copied rows
    print(f"{args.rows:,} rows per role; city has {train['city'].nunique():,} levels")
    stages = Stages()
    start = time.perf_counter()
    results = reportgen.report(
        train, test, synth, args.out / "report.pdf", targets={"table": "churn"}, progress=stages
    )
    total = time.perf_counter() - start
    for stage, seconds in stages.times.items():
        print(f"  {stage:<45} {seconds:7.1f} s")
    privacy = results.sections["privacy"]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20  # KiB on Linux
    print(f"total {total:.1f} s; peak RSS {peak:.2f} GiB")
    print(f"privacy score {privacy.privacy_score:.1f}, exact copies {privacy.exact_copies:.1%}")
    print("findings:", ", ".join(f"{f.code} ({f.column})" if f.column else f.code for f in results.findings))


if __name__ == "__main__":
    main()
