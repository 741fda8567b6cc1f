"""The demo: real reports on data that ships inside the package.

The default is one table, UCI Adult, with a real holdout the generator never saw and a target, so
every section has its reference levels and the utility models run. ``relational=True`` shows the
multi-table side: four linked tables of Chinook's catalogue (no holdout: the generator saw every
row). Both notices are in ``demo_data/*/NOTICE.md``.
"""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path

import pandas as pd

from reportgen.api import report
from reportgen.data.io import load_folder, read_schema
from reportgen.data.relational import RelationalData
from reportgen.evaluation import Progress
from reportgen.results import ReportResults

DEMO_TITLE = "UCI Adult: SDV CTGAN synthetic data"
RELATIONAL_DEMO_TITLE = "Chinook catalogue: SDV HMA synthetic data"
DEMO_TARGET = "income"
ROLES = ("train", "holdout", "synthetic")


def demo_data() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The single-table demo's training, holdout and synthetic rows (see its NOTICE.md)."""
    root = files("reportgen").joinpath("demo_data/adult")
    with as_file(root) as folder:
        train, holdout, synth = (pd.read_csv(Path(folder) / f"{role}.csv.gz") for role in ROLES)
    return train, holdout, synth


def relational_demo_data() -> tuple[RelationalData, RelationalData]:
    """The relational demo's real (training) and synthetic data; there is no holdout (see NOTICE.md)."""
    root = files("reportgen").joinpath("demo_data/chinook")
    with as_file(root) as folder:
        schema = read_schema(Path(folder) / "schema.yaml")
        real = load_folder(Path(folder) / "real", schema)
        synth = load_folder(Path(folder) / "synthetic", schema)
    return real, synth


def run_demo(
    path: str | Path, *, relational: bool = False, seed: int = 0, progress: Progress | None = None
) -> ReportResults:
    """Write a demo report to ``path`` (PDF or HTML by suffix) and return its results."""
    if relational:
        real, synth = relational_demo_data()
        return report(real, None, synth, path, seed=seed, title=RELATIONAL_DEMO_TITLE, progress=progress)
    train, holdout, synth = demo_data()
    return report(
        train,
        holdout,
        synth,
        path,
        seed=seed,
        title=DEMO_TITLE,
        targets={"table": DEMO_TARGET},
        progress=progress,
    )
