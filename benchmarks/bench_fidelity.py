"""Similarity and phik correlation sections on UCI Adult: time per generator and the ranking.

The last table times the correlation section on one generator for several ``n_max_phik`` caps.

Run: python benchmarks/bench_fidelity.py   (needs ../shared/datasets)
"""

from __future__ import annotations

import time

import pandas as pd
from adult import ADULT, GENERATORS, read  # benchmarks/adult.py

from reportgen.catalogue import report_settings
from reportgen.metrics.correlation import compute_correlation
from reportgen.metrics.distributions import compute_distributions
from reportgen.metrics.similarity import compute_similarity
from reportgen.preparation import prepare_context
from reportgen.settings import ReportSettings


def main() -> None:
    train, test = read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")
    print(
        f"{'generator':<16} {'score':>6} {'ref':>6} {'prepare':>8} {'similarity':>10} {'distrib':>8} "
        f"{'fidelity':>8} {'phik sim':>8} {'ref':>6} {'phik':>6}  worst pair"
    )
    for generator in GENERATORS:
        synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
        start = time.perf_counter()
        context = prepare_context(train, test, synth, ReportSettings())
        prepared = time.perf_counter()
        result = compute_similarity(context)
        similar = time.perf_counter()
        compute_distributions(context)
        done = time.perf_counter()
        correlation = compute_correlation(context)
        correlated = time.perf_counter()
        worst = result.tables[0].worst_pairs[0]
        print(
            f"{generator:<16} {result.score:6.1f} {result.reference_score:6.1f} "
            f"{prepared - start:7.2f}s {similar - prepared:9.2f}s {done - similar:7.2f}s "
            f"{done - start:7.2f}s "
            f"{correlation.similarity:8.3f} {correlation.reference_similarity:6.3f} "
            f"{correlated - done:5.2f}s  {worst.a} x {worst.b} {worst.similarity:.3f}"
        )
    phik_sampling(train, test)


def phik_sampling(train: pd.DataFrame, test: pd.DataFrame, generator: str = "ctgan") -> None:
    """Correlation section time and similarity on one generator for several n_max_phik caps."""
    synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
    print(f"\n{generator}: {'n_max_phik':>10} {'phik sim':>8} {'ref':>6} {'time':>6}")
    for cap in (5_000, 10_000, 20_000, 50_000):
        context = prepare_context(train, test, synth, report_settings(n_max_phik=cap))
        start = time.perf_counter()
        result = compute_correlation(context)
        elapsed = time.perf_counter() - start
        print(
            f"{'':<{len(generator) + 1}} {cap:>10,} {result.similarity:8.3f} "
            f"{result.reference_similarity:6.3f} {elapsed:5.2f}s"
        )


if __name__ == "__main__":
    main()
