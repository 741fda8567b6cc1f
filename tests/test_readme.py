"""README.md's examples run as written: the Python example and every command-line line.

The examples read files by the names the README gives them; a session fixture writes small versions
of those files (samples of UCI Adult and a generated shop) into a folder, and each example runs
there word for word. The Python example's lines from ``ReportResults.load`` on run again in a new
interpreter, as a user reading a report's JSON in another process runs them. The demo lines are run
by tests/test_demo.py, which reads them from here.
"""

import os
import re
import shlex
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen.cli import main
from reportgen.data.io import write_folder, write_sql

from .conftest import fresh_python

README = Path(__file__).resolve().parents[1] / "README.md"
ADULT = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "adult"


def code_blocks(language: str) -> list[str]:
    """The README's fenced code blocks in one language, in order."""
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def commands() -> list[str]:
    """Every ``reportgen`` command line the README shows, comments removed."""
    lines = [line.split("#")[0].strip() for block in code_blocks("bash") for line in block.splitlines()]
    found = [part.strip() for line in lines for part in line.split("&&")]
    return [line for line in found if line.startswith("reportgen ")]


@contextmanager
def inside(folder: Path):
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def shop(n_customers: int, rng: np.random.Generator, start: int) -> dict[str, pd.DataFrame]:
    customers = pd.DataFrame(
        {
            "customer_id": np.arange(start, start + n_customers),
            "country": rng.choice(["FR", "DE", "NL", "IT"], n_customers),
            "age": rng.integers(18, 80, n_customers),
        }
    )
    n_orders = rng.integers(1, 5, n_customers)
    orders = pd.DataFrame(
        {
            "order_id": np.arange(10 * start, 10 * start + n_orders.sum()),
            "customer_id": np.repeat(customers["customer_id"].to_numpy(), n_orders),
            "amount": rng.gamma(2.0, 20.0, n_orders.sum()).round(2),
        }
    )
    return {"customers": customers, "orders": orders}


SCHEMA = rg.Schema(
    customers=rg.Table(customer_id=rg.PrimaryKey(), country="categorical"),
    orders=rg.Table(order_id=rg.PrimaryKey(), customer_id=rg.ForeignKey(parent="customers")),
)


@pytest.fixture(scope="session")
def workdir(tmp_path_factory):
    """A folder holding every file the README's examples read, small.

    Session-scoped, not module-scoped: it is cheap to write, so each xdist worker writes its own and
    the examples (each a whole report) spread over both workers (tests/conftest.py groups the tests
    of a module fixture in one worker).
    """
    folder = tmp_path_factory.mktemp("readme")
    sample = {"adult_train.csv": 600, "adult_test.csv": 300}
    for name, n in sample.items():
        pd.read_csv(ADULT / name).sample(n, random_state=0).to_csv(folder / name, index=False)
    synthetic = pd.read_csv(ADULT / "synthetic" / "ctgan" / "adult_train.csv.gz").sample(600, random_state=0)
    for name in ("adult_synthetic.csv", "synth.csv"):
        synthetic.to_csv(folder / name, index=False)
    rng = np.random.default_rng(0)
    real, holdout, synth = shop(300, rng, 0), shop(150, rng, 1_000), shop(300, rng, 2_000)
    for name, frame in real.items():
        frame.to_csv(folder / f"{name}.csv", index=False)
    (folder / "synthetic").mkdir()
    for name, frame in synth.items():
        frame.to_csv(folder / "synthetic" / f"{name}.csv", index=False)
    for role, tables in (("real", real), ("holdout", holdout), ("synth", synth)):
        write_folder(rg.RelationalData(tables, SCHEMA), folder / "data" / role)
    for role, frame in (("train", pd.read_csv(folder / "adult_train.csv")), ("synth", synthetic)):
        (folder / "lake" / role / "adult").mkdir(parents=True)  # a table as a folder of part files
        for i, part in enumerate((frame.iloc[:300], frame.iloc[300:])):
            part.to_parquet(folder / "lake" / role / "adult" / f"part-{i}.parquet", index=False)
    for name, tables in (("real.db", real), ("synth.db", synth)):
        write_sql(rg.RelationalData(tables, SCHEMA), f"sqlite:///{folder / name}")
    return folder


def after_loading(example: str) -> str:
    """The example's imports and its lines from ``ReportResults.load`` on: what another process runs."""
    lines = example.splitlines()
    start = next(i for i, line in enumerate(lines) if "ReportResults.load(" in line)
    imports = [line for line in lines[:start] if line.startswith(("import ", "from "))]
    return "\n".join([*imports, *lines[start:]])


def python_examples() -> tuple[str, str]:
    """The README's two Python examples that write a report: the first, and the one read in place."""
    example, in_place = [block for block in code_blocks("python") if "rg.report(" in block]
    return example, in_place


def test_the_python_example_runs_as_written(workdir):
    example, _ = python_examples()
    with inside(workdir):
        namespace: dict = {}
        exec(compile(example, "README.md", "exec"), namespace)
    assert (workdir / "adult-report.pdf").stat().st_size > 0 and (workdir / "shop-report.json").exists()
    assert not namespace["audited"].summary().empty
    loaded = fresh_python(after_loading(example), workdir)  # typed sections without report() run first
    assert loaded.returncode == 0, loaded.stderr


def test_the_python_example_read_in_place_runs_as_written(workdir):
    _, in_place = python_examples()
    with inside(workdir):
        exec(compile(in_place, "README.md", "exec"), {})
    assert (workdir / "lake-report.json").exists()


@pytest.mark.parametrize("line", [c for c in commands() if not c.startswith("reportgen demo")])
def test_every_command_line_example_runs_as_written(line, workdir, capsys):
    with inside(workdir):
        code = main(shlex.split(line)[1:])
    captured = capsys.readouterr()
    assert code in (0, 3), captured.err  # 3: the report was written, a release bar failed
    assert "Traceback" not in captured.err


def test_the_demo_lines_are_the_ones_the_demo_tests_run():
    from .test_demo import QUICK_START, RELATIONAL

    assert {QUICK_START, RELATIONAL} <= set(commands())
