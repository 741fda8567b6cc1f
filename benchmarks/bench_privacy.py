"""Privacy section on UCI Adult: per generator, the privacy score, risk, exact copies and maximum
similarity, with the time of each part.

Run: python benchmarks/bench_privacy.py   (needs ../shared/datasets)
"""

from __future__ import annotations

import time

from adult import ADULT, GENERATORS, read  # benchmarks/adult.py

from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.metrics.privacy import compute_privacy
from reportgen.preparation import prepare_context
from reportgen.settings import ReportSettings


def main() -> None:
    train, test = read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")
    print(
        f"{'generator':<16} {'privacy':>8} {'std':>5} {'risk':>6} {'copies':>7} {'DCR med':>8} "
        f"{'holdout':>8} {'max-sim':>8} {'embed':>6} {'section':>8}"
    )
    for generator in GENERATORS:
        synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
        context = prepare_context(train, test, synth, ReportSettings())
        start = time.perf_counter()
        prep = context.table(context.table_names[0])
        for role in (TRAIN, TEST, SYNTH):
            prep.embedded(role)
        embedded = time.perf_counter()
        result = compute_privacy(context)
        done = time.perf_counter()
        table = result.tables[0]
        medians = table.distances.medians
        print(
            f"{generator:<16} {table.proximity.privacy_score:8.1f} {table.proximity.privacy_score_std:5.1f} "
            f"{table.proximity.risk:6.1%} {table.distances.exact_copies:7.1%} "
            f"{medians['synthetic_to_real']:8.3f} {medians['holdout_to_real']:8.3f} "
            f"{table.max_similarity.score:8.3f} {embedded - start:5.2f}s {done - embedded:7.2f}s"
        )


if __name__ == "__main__":
    main()
