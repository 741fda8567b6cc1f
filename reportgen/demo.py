"""The demo: a real report on data that ships inside the package (Chinook's catalogue tables)."""

from __future__ import annotations

from importlib.resources import as_file, files
from pathlib import Path

from reportgen.api import Progress, report
from reportgen.data.io import load_folder, read_schema
from reportgen.data.relational import RelationalData
from reportgen.results import ReportResults

DEMO_TITLE = "Chinook catalogue: SDV HMA synthetic data"


def demo_data() -> tuple[RelationalData, RelationalData]:
    """The demo's real (training) and synthetic data; there is no holdout (see NOTICE.md)."""
    root = files("reportgen").joinpath("demo_data/chinook")
    with as_file(root) as folder:
        schema = read_schema(Path(folder) / "schema.yaml")
        real = load_folder(Path(folder) / "real", schema)
        synth = load_folder(Path(folder) / "synthetic", schema)
    return real, synth


def run_demo(path: str | Path, *, seed: int = 0, progress: Progress | None = None) -> ReportResults:
    """Write the demo report to ``path`` (PDF or HTML by suffix) and return its results."""
    real, synth = demo_data()
    return report(real, None, synth, path, seed=seed, title=DEMO_TITLE, progress=progress)
