"""Evaluate the CTGAN and the deliberately leaky synthetic versions of UCI Adult.

Run from the repository root: python examples/adult_report.py [output-folder]
Writes one PDF (and its JSON) per generator into the output folder (default: out/examples).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

import reportgen as rg

ADULT = Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "adult"


def read(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False, na_values=[""])  # only empty fields are missing


def main(out: Path) -> None:
    train = read(ADULT / "adult_train.csv")  # what every generator was fitted on
    holdout = read(ADULT / "adult_test.csv")  # real rows no generator saw
    for generator in ("ctgan", "leaky"):
        synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
        path = out / f"adult-{generator}.pdf"
        results = rg.report(train, holdout, synth, path, title=f"UCI Adult: {generator}", seed=0)
        table = results.sections["overview"].tables[0]
        print(f"{path}: {table.rows_synth:,} synthetic rows, {table.n_compared} columns compared")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("out/examples"))
