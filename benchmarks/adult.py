"""UCI Adult and its synthetic versions from ../shared/datasets, as every benchmark reads them."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
ADULT = DATASETS / "adult"
GENERATORS = ("gaussian_copula", "ctgan", "tvae", "leaky", "marginals")


def read(path: Path) -> pd.DataFrame:
    """The shared datasets' CSV convention: only empty fields are missing."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""])
