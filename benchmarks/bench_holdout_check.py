"""The holdout check: which synthetic sets look as if their generator saw the holdout.

Run: PYTHONPATH=. python benchmarks/bench_holdout_check.py [--seed 0] [--simulate]
(needs ../shared/datasets)

On UCI Adult: for each synthetic set of ../shared/datasets/adult/synthetic, for two sets built from
CTGAN's (14% of its rows replaced by verbatim holdout rows and 14% by verbatim training rows, as a
generator fitted on both would do; and 28% replaced by training rows only), and for an independent
real sample (the training file's second half as "synthetic", its first half as training), prints
the holdout check of the privacy section (``reportgen.privacy.holdout_check``): the share of holdout
rows repeated verbatim by the synthetic rows, by an independent real sample of the same size and
the training rows' own share, the p-value, the closeness shares, the decision, and the seconds the
check adds to the privacy section (and the section's own seconds). Seed 0, 2 shared cores:

    case                                H in S H in T2 T1 in S        p near H near T1  seen  check
    gaussian_copula                      0.00%   0.14%   0.00%  1.0e+00  0.013   0.012 False  0.16s
    ctgan                                0.00%   0.14%   0.00%  1.0e+00  0.217   0.219 False  0.17s
    tvae                                 0.00%   0.14%   0.00%  1.0e+00  0.240   0.241 False  0.35s
    leaky                                0.05%   0.14%  50.13%  1.0e+00  0.254   0.627 False  0.54s
    marginals                            0.00%   0.14%   0.00%  1.0e+00  0.045   0.042 False  0.43s
    ctgan +14% holdout +14% training    28.03%   0.14%  13.99%  0.0e+00  0.511   0.413  True  0.59s
    ctgan +28% training                  0.03%   0.14%  28.24%  1.0e+00  0.291   0.489 False  0.39s
    independent real sample              0.09%   0.06%   0.06%  2.6e-01  0.500   0.500 False  0.32s

(the privacy section itself took 39 to 97 s). ``--simulate`` instead draws categorical tables with
40 to 3,200,000 possible rows (1,000 training, 500 holdout, 1,000 synthetic rows, 40 draws each) and
counts how often the exact test flags generators that never saw the holdout (an independent real
sample, independent columns, half real and half uniform, uniform, mode-collapsed) and two leaky
ones (30% of rows copied from training and holdout rows, or from training rows only); then the
most a generator that never saw the holdout could repeat it, knowing the true distribution. Seed 0:
none of the 1,000 draws of generators that never saw the holdout, and none of the 200 copying
training rows only, was flagged; copying from training and holdout rows was flagged in 40 of 40
draws with 3.2 million possible rows (a real sample repeats 8% of holdout rows), 29 of 40 with
100,000 (24%), and never with 8,000 or fewer (62% or more: the minimum effect cannot be met). The
best possible spread repeats 1.00, 1.06, 1.10, 1.37 and 1.94 times the real sample's share.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd
from adult import ADULT, GENERATORS, read  # benchmarks/adult.py
from scipy.optimize import brentq

import reportgen.metrics.privacy as privacy
from reportgen.preparation import prepare_context
from reportgen.privacy.holdout_check import exact_test
from reportgen.settings import ReportSettings


def replaced(synth: pd.DataFrame, sources: list[tuple[pd.DataFrame, float]], seed: int) -> pd.DataFrame:
    """``synth`` with a share of its rows replaced by verbatim rows of each source, shuffled."""
    rng = np.random.default_rng(seed)
    parts, kept = [], len(synth)
    for frame, share in sources:
        n = round(share * len(synth))
        parts.append(frame.iloc[rng.choice(len(frame), n, replace=False)])
        kept -= n
    parts.append(synth.iloc[rng.choice(len(synth), kept, replace=False)])
    return pd.concat(parts, ignore_index=True).sample(frac=1, random_state=seed).reset_index(drop=True)


def cases(seed: int) -> dict[str, tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]]:
    """(training, holdout, synthetic) of every case."""
    train, test = read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")
    found = {g: (train, test, read(ADULT / "synthetic" / g / "adult_train.csv.gz")) for g in GENERATORS}
    ctgan = found["ctgan"][2]
    both = replaced(ctgan, [(test, 0.14), (train, 0.14)], seed)
    found["ctgan +14% holdout +14% training"] = (train, test, both)
    found["ctgan +28% training"] = (train, test, replaced(ctgan, [(train, 0.28)], seed))
    order = np.random.default_rng(seed).permutation(len(train))
    half = len(train) // 2
    found["independent real sample"] = (train.iloc[order[:half]], test, train.iloc[order[half:]])
    return found


def adult(seed: int) -> None:
    spent: list[float] = []
    check = privacy.holdout_check

    def timed(*a, **k):
        start = time.perf_counter()
        result = check(*a, **k)
        spent.append(time.perf_counter() - start)
        return result

    privacy.holdout_check = timed
    print(
        f"{'case':<34} {'H in S':>7} {'H in T2':>7} {'T1 in S':>7} {'p':>8} {'near H':>6} {'near T1':>7} "
        f"{'seen':>5} {'check':>6} {'section':>7}"
    )
    for name, (train, test, synth) in cases(seed).items():
        context = prepare_context(train, test, synth, ReportSettings(seed=seed))
        context.table(context.table_names[0])  # prepared outside the timing, as in a report
        spent.clear()
        start = time.perf_counter()
        result = privacy.compute_privacy(context)
        section = time.perf_counter() - start
        c = result.holdout_check
        print(
            f"{name:<34} {c.holdout_in_synthetic:7.2%} {c.holdout_in_real_sample:7.2%} "
            f"{c.training_in_synthetic:7.2%} {c.p_value:8.1e} "
            f"{c.holdout_closer:6.3f} {c.training_closer:7.3f} "
            f"{c.seen!s:>5} {sum(spent):5.2f}s {section:6.1f}s",
            flush=True,
        )


REGIMES = {
    "40": [2, 4, 5],
    "1,296": [6, 6, 6, 6],
    "8,000": [20, 20, 20],
    "100,000": [10] * 5,
    "3,200,000": [20] * 5,
}
GENERATORS_NEVER_SAW = ("real sample", "independent columns", "half uniform", "uniform", "mode-collapsed")
LEAKY = ("30% from T and H", "30% from T only")


def distribution(levels: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Every combination of the levels and its probability: skewed marginals, with dependence."""
    grid = np.meshgrid(*[np.arange(n) for n in levels], indexing="ij")
    combos = np.stack([g.ravel() for g in grid], axis=1)
    weight = np.prod(1.0 / (1 + combos) ** 1.2, axis=1) * np.exp(0.8 * np.cos(combos.sum(axis=1)))
    return combos, weight / weight.sum()


def draw(combos: np.ndarray, p: np.ndarray, n: int, rng: np.random.Generator) -> pd.DataFrame:
    rows = combos[rng.choice(len(combos), n, p=p)]
    return pd.DataFrame(rows.astype(str), columns=[f"c{j}" for j in range(combos.shape[1])])


def synthetic(kind: str, combos, p, train, test, rng) -> pd.DataFrame:
    """1,000 rows of one kind of generator."""
    if kind == "independent columns":
        fresh = draw(combos, p, 1000, rng)
        return fresh.apply(lambda c: c.to_numpy()[rng.permutation(len(c))])
    shapes = {
        "half uniform": 0.5 * p + 0.5 / len(p),
        "uniform": np.full(len(p), 1 / len(p)),
        "mode-collapsed": p**2,
    }
    if kind in shapes:
        q = shapes[kind]
        return draw(combos, q / q.sum(), 1000, rng)
    fresh = draw(combos, p, 1000, rng)
    if kind in LEAKY:
        seen = pd.concat([train, test], ignore_index=True) if "and H" in kind else train
        fresh.iloc[:300] = seen.iloc[rng.choice(len(seen), 300, replace=False)].to_numpy()
    return fresh


def best_coverage(p: np.ndarray, n: int) -> float:
    """The largest share of fresh real rows that n draws from any distribution q can repeat.

    Maximises sum p(x) (1 - (1 - q(x))^n) over q: q(x) = 1 - (lam / (n p(x)))^(1 / (n - 1)) where
    positive, lam set so that q sums to 1.
    """

    def q_of(lam: float) -> np.ndarray:
        ratio = lam / (n * p)
        return np.where(ratio < 1, 1 - ratio ** (1 / (n - 1)), 0.0)

    if q_of(1e-300).sum() < 1:  # n draws can cover every combination
        q = np.full(len(p), 1 / len(p))
    else:
        q = q_of(brentq(lambda lam: q_of(lam).sum() - 1, 1e-300, n * p.max()))
    return float(np.sum(p * (1 - (1 - q) ** n)))


def simulate(seed: int, draws: int = 40) -> None:
    rng = np.random.default_rng(seed)
    print(f"{'combinations':>12} {'generator':<22} {'flagged':>8} {'H in S':>7} {'H in T2':>7}")
    for name, levels in REGIMES.items():
        combos, p = distribution(levels)
        for kind in GENERATORS_NEVER_SAW + LEAKY:
            flagged, rates = 0, []
            for _ in range(draws):
                train, test = draw(combos, p, 1000, rng), draw(combos, p, 500, rng)
                synth = synthetic(kind, combos, p, train, test, rng)
                exact = exact_test(test, synth, train.iloc[rng.permutation(1000)])
                flagged += exact.seen
                rates.append((exact.rate, exact.expected))
            rate, expected = np.mean(rates, axis=0)
            print(f"{name:>12} {kind:<22} {flagged:>4}/{draws:<3} {rate:7.1%} {expected:7.1%}")
        real = float(np.sum(p * (1 - (1 - p) ** 1000)))
        best = best_coverage(p, 1000)
        ratio = f"({best / real:.2f}x)"
        print(f"{name:>12} {'best possible, unseen':<22} {'':>8} {best:7.1%} {real:7.1%}  {ratio}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--simulate", action="store_true", help="categorical simulations instead of adult")
    args = parser.parse_args()
    if args.simulate:
        simulate(args.seed)
    else:
        adult(args.seed)


if __name__ == "__main__":
    main()
