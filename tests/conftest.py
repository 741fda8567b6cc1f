"""Shared fixtures: the real datasets in ../shared/datasets and small generated tables."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from reportgen import RelationalData, Schema

from .drawing import skip_drawing
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


def _module_fixtures(item: pytest.Item) -> set[str]:
    """The module-scoped fixtures ``item`` uses, directly or through other fixtures."""
    info = getattr(item, "_fixtureinfo", None)
    if info is None:
        return set()
    return {
        name
        for name in info.names_closure
        if (defs := info.name2fixturedefs.get(name)) and defs[-1].scope == "module"
    }


def _linked(uses: list[set[str]]) -> dict[str, str]:
    """Each fixture name's representative: names used by one test, or linked through others, share one."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    for used in uses:
        first, *rest = sorted(used)
        for name in rest:
            parent[root(name)] = root(first)
        root(first)
    return {name: root(name) for name in parent}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests of one module that share a module fixture share an xdist group (so one worker makes it).

    ``--dist loadgroup`` (pyproject.toml) sends every test without an ``xdist_group`` mark to
    whichever worker is free, so a module fixture was made once in each worker that ran one of its
    tests. Here the tests of a module are joined when they use a common module-scoped fixture (or
    are linked through others that do); the groups are named after the module and the fixtures, so
    a test module with two independent expensive fixtures still spreads over both workers. Tests
    already marked keep their group; tests that use no module fixture stay free.
    """
    by_module: dict[str, list[tuple[pytest.Item, set[str]]]] = {}
    for item in items:
        if item.get_closest_marker("xdist_group") is None and (used := _module_fixtures(item)):
            by_module.setdefault(item.nodeid.split("::")[0], []).append((item, used))
    for module, members in by_module.items():
        root = _linked([used for _, used in members])
        prefix = module.removeprefix("tests/").removesuffix(".py")
        for item, used in members:
            item.add_marker(pytest.mark.xdist_group(f"{prefix}:{root[min(used)]}"))


THREAD_POOLS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def pytest_configure(config: pytest.Config) -> None:
    """Under xdist, each worker's OpenMP, BLAS and torch threads sized to its share of the cores.

    Set in the main process before it starts the workers, which inherit them (a value already in
    the environment is kept). Otherwise each worker would start one thread per core: on two cores,
    gradient boosting and torch in two workers run four threads, each waiting at every barrier for
    the displaced others. The code under test still sees every core (``usable_cores``) and still
    runs its own worker threads; the tests that need several threads pass their count.
    """
    workers = getattr(config.option, "numprocesses", None)
    if isinstance(workers, int) and workers > 1 and not hasattr(config, "workerinput"):
        from reportgen.threads import usable_cores

        share = str(max(1, usable_cores() // workers))
        for name in THREAD_POOLS:
            os.environ.setdefault(name, share)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-durations",
        metavar="PATH",
        type=Path,
        help="write each test's seconds (setup, call and teardown) to PATH as JSON, for "
        "benchmarks/suite_time.py",
    )


_recorded: dict[str, float] = {}
_GROUP_SUFFIX = re.compile(r"@[^\[\]]*$")  # what --dist loadgroup appends to a grouped test's id


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    nodeid = _GROUP_SUFFIX.sub("", report.nodeid)
    _recorded[nodeid] = _recorded.get(nodeid, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """With ``--record-durations``, the main process writes the times of the tests that ran."""
    path = session.config.getoption("--record-durations")
    if path is not None and not hasattr(session.config, "workerinput"):
        times = {nodeid: round(seconds, 2) for nodeid, seconds in sorted(_recorded.items())}
        path.write_text(json.dumps(times, indent=0) + "\n")


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
def figures_not_drawn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Figures built but not drawn (``tests/drawing.py``): ``pytest.mark.usefixtures("figures_not_drawn")``."""
    skip_drawing(monkeypatch)


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
