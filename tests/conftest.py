"""Shared fixtures: the real datasets in ../shared/datasets and small generated tables."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reportgen import RelationalData, Schema

from .system import require

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT.parent / "shared" / "datasets"


def fresh_env(*paths: Path) -> dict[str, str]:
    """The environment of a new interpreter that imports reportgen from this checkout (then ``paths``)."""
    given = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    return os.environ | {"PYTHONPATH": os.pathsep.join([str(ROOT), *map(str, paths), *given])}


def fresh_python(code: str, cwd: Path, *paths: Path) -> subprocess.CompletedProcess[str]:
    """``code`` run by a new interpreter in ``cwd``: nothing of this process's imports carries over."""
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env=fresh_env(*paths),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Tests marked ``needs(name)`` or ``postgres`` skip (fail under CI) without it, before any fixture."""
    for mark in item.iter_markers("needs"):
        require(*mark.args)
    if item.get_closest_marker("postgres"):
        require("PostgreSQL")


def read_csv(path: Path) -> pd.DataFrame:
    """The shared datasets' CSV convention: only empty fields are missing."""
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


def load_metadata_dataset(name: str, tables: list[str] | None = None) -> RelationalData:
    folder = DATASETS / name
    if not folder.exists():
        pytest.skip(f"shared dataset {name!r} not found at {folder}")
    meta = json.loads((folder / "metadata.json").read_text())
    if tables is not None:
        meta["tables"] = {t: meta["tables"][t] for t in tables}
        meta["relationships"] = [
            r for r in meta["relationships"] if r["child_table"] in tables and r["parent_table"] in tables
        ]
    frames = {t: read_csv(folder / spec["file"]) for t, spec in meta["tables"].items()}
    return RelationalData(frames, Schema.from_dict(meta))


@pytest.fixture(scope="session")
def chinook() -> RelationalData:
    return load_metadata_dataset("chinook")


@pytest.fixture(scope="session")
def restaurant() -> RelationalData:
    return load_metadata_dataset("restaurant_consumer", ["userprofile", "geoplaces2", "rating_final"])


@pytest.fixture
def people() -> pd.DataFrame:
    """A small mixed-type single table made by the test: numeric, categorical, datetime, text."""
    rng = np.random.default_rng(7)
    n = 300
    return pd.DataFrame(
        {
            "age": rng.normal(40, 12, n).round(1),
            "income": rng.lognormal(10, 1, n),
            "city": rng.choice(["Rome", "Oslo", "Lima", "Pune"], n),
            "member": rng.choice([True, False], n),
            "joined": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 1500, n), unit="D"),
            "note": [f"free text number {i}" for i in range(n)],
        }
    )
