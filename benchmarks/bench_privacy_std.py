"""What the privacy score's std describes: one repeat's spread, or the reported mean's, over fresh data.

METRICS.md 7 defines ``privacy_score_std`` as the standard deviation of the repeats' scores and asks
that it be honest against the spread of the score over independent re-draws of the data. The score
shown is the mean of ``n_repeats`` (5) repeats, each on a fresh split of the training rows and a
fresh draw of ``S'``, so two spreads over re-draws can be compared with the std reported:

- the spread of **one repeat's** score (what "the spread of one evaluation" names);
- the spread of **the reported score**, the mean of the repeats.

For each case the script draws ``--seeds`` independent data sets (``people`` rows as
``tests/metrics/test_privacy.py`` makes them, a share of the synthetic rows copied from the
training rows), computes ``compute_privacy_stats`` on each, and prints the mean reported std, both
spreads (sample sd over seeds) and the ratios. On 2026-11-28 (40 and 30 seeds):

    rows 1200 copied 0.3: reported 3.17, sd of one repeat 3.55 (ratio 0.89), sd of the mean 1.47 (2.16)
    rows 4000 copied 0.3: reported 1.52, sd of one repeat 1.70 (ratio 0.90), sd of the mean 0.86 (1.78)
    rows 1200 copied 0.0: reported 6.23, sd of one repeat 5.06 (ratio 1.23), sd of the mean 3.25 (1.91)

Run: python benchmarks/bench_privacy_std.py [--seeds 30] [--cases 1200:0.3,4000:0.3,1200:0]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from tests.metrics.test_privacy import people, stats, with_copies  # the tests' data


def spreads(n_rows: int, copied: float, seeds: int) -> tuple[float, float, float]:
    """Mean reported std, sd over seeds of one repeat's score, sd over seeds of the reported mean."""
    reported, one, mean = [], [], []
    for seed in range(seeds):
        rng = np.random.default_rng(100 + seed)
        train = people(n_rows, rng)
        result = stats(train, with_copies(train, people(n_rows, rng), copied, rng), seed=seed)
        reported.append(result.privacy_score_std)
        one.append(result.scores[0])
        mean.append(result.privacy_score)
    return statistics.fmean(reported), statistics.stdev(one), statistics.stdev(mean)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--cases", default="1200:0.3,4000:0.3,1200:0", help="rows:copied share, ...")
    args = parser.parse_args()
    for case in args.cases.split(","):
        rows, share = case.split(":")
        reported, one, mean = spreads(int(rows), float(share), args.seeds)
        print(
            f"rows {rows} copied {share}: reported {reported:.2f}, sd of one repeat {one:.2f} "
            f"(ratio {reported / one:.2f}), sd of the mean {mean:.2f} ({reported / mean:.2f})",
            flush=True,
        )


if __name__ == "__main__":
    main()
