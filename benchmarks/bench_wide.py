"""A 60-column table: report time and the HTML and PDF sizes (is wide data still readable and small?).

Run: python benchmarks/bench_wide.py [--out DIR]   (writes wide.html and wide.pdf, prints sizes)
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

import reportgen


def wide_table(n_rows: int, n_columns: int, seed: int, *, damage: bool = False) -> pd.DataFrame:
    """Half numeric columns driven by two latent factors, half categorical ones cut from them."""
    rng = np.random.default_rng(seed)
    latent = rng.normal(size=(n_rows, 2))
    columns = {}
    for i in range(n_columns):
        signal = latent[:, i % 2] * (0.3 + 0.7 * (i % 5) / 4) + rng.normal(size=n_rows)
        if damage and i % 7 == 0:
            signal = rng.permutation(signal)
        if i % 2 == 0:
            columns[f"measurement_{i:02d}_value"] = signal * 10 + 100
        else:
            columns[f"category_{i:02d}"] = pd.cut(
                signal, [-np.inf, -1, 0, 1, np.inf], labels=list("ABCD")
            ).astype(str)
    return pd.DataFrame(columns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("wide-report"))
    parser.add_argument("--columns", type=int, default=60)
    parser.add_argument("--rows", type=int, default=5000)
    args = parser.parse_args()
    train = wide_table(args.rows, args.columns, 1)
    test = wide_table(args.rows, args.columns, 2)
    synth = wide_table(args.rows, args.columns, 3, damage=True)
    for suffix in ("html", "pdf"):
        path = args.out / f"wide.{suffix}"
        start = time.perf_counter()
        reportgen.report(train, test, synth, path, title=f"{args.columns} columns")
        print(f"{suffix}: {time.perf_counter() - start:5.1f} s, {path.stat().st_size / 1024:,.0f} KiB")


if __name__ == "__main__":
    main()
