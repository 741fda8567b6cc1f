"""Build the packaged single-table demo (``reportgen/demo_data/adult``) from ``../shared/datasets``.

Seeded samples of UCI Adult: 4,000 training rows from ``adult_train.csv`` (the rows SDV's CTGAN was
fitted on, among others), 2,000 holdout rows from ``adult_test.csv`` (rows no generator saw) and
4,000 rows of CTGAN's synthetic data (``synthetic/ctgan``). Every training row the demo names was
seen by the generator and every holdout row was not, so the membership attacks are sound.

Run: python scripts/make_demo_adult.py   (rewrites the three files; the NOTICE is kept by hand)
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
ADULT = ROOT.parent / "shared" / "datasets" / "adult"
OUT = ROOT / "reportgen" / "demo_data" / "adult"
SIZES = {"train": 4_000, "holdout": 2_000, "synthetic": 4_000}
SOURCES = {
    "train": ADULT / "adult_train.csv",
    "holdout": ADULT / "adult_test.csv",
    "synthetic": ADULT / "synthetic" / "ctgan" / "adult_train.csv.gz",
}


def main() -> None:
    """Write the three seeded samples into the package's demo folder."""
    OUT.mkdir(parents=True, exist_ok=True)
    for role, source in SOURCES.items():
        frame = pd.read_csv(source).sample(n=SIZES[role], random_state=0).reset_index(drop=True)
        frame.to_csv(OUT / f"{role}.csv.gz", index=False, compression={"method": "gzip", "mtime": 0})
        print(f"{role}: {len(frame):,} rows from {source.relative_to(ROOT.parent)}")


if __name__ == "__main__":
    main()
