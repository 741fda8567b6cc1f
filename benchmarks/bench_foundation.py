"""Timings of the foundation: loading, kind inference, split/sample, and a full report.

Run: python benchmarks/bench_foundation.py   (needs ../shared/datasets; prints a table)
"""

from __future__ import annotations

import resource
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

import reportgen as rg
from reportgen.data.io import load_folder

DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def timed(label: str, fn, rows: list, repeat: int = 3):
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    rows.append((label, best))
    return value


def main() -> None:
    rows: list[tuple[str, float]] = []
    adult = DATASETS / "adult"
    read = lambda p: pd.read_csv(p, keep_default_na=False, na_values=[""])  # noqa: E731
    train = timed("adult: read train CSV (32,561 x 15)", lambda: read(adult / "adult_train.csv"), rows)
    test = read(adult / "adult_test.csv")
    synth = read(adult / "synthetic" / "ctgan" / "adult_train.csv.gz")
    data = timed("adult: RelationalData (kind inference)", lambda: rg.RelationalData(train), rows)
    timed("adult: split(0.5)", lambda: data.split(0.5, seed=0), rows)
    timed("adult: sample(10,000)", lambda: data.sample(10_000, seed=0), rows)
    with tempfile.TemporaryDirectory() as tmp:
        timed("adult: report, HTML", lambda: rg.report(train, test, synth, Path(tmp) / "a.html"), rows)
        timed("adult: report, PDF", lambda: rg.report(train, test, synth, Path(tmp) / "a.pdf"), rows)
        pdf_kb = (Path(tmp) / "a.pdf").stat().st_size / 1024
        html_kb = (Path(tmp) / "a.html").stat().st_size / 1024
    chinook = timed("chinook: load_folder (11 tables)", lambda: load_folder(DATASETS / "chinook"), rows)
    timed("chinook: split(0.7)", lambda: chinook.split(0.7, seed=0), rows)
    timed("chinook: sample(1,000)", lambda: chinook.sample(1_000, seed=0), rows)
    with tempfile.TemporaryDirectory() as tmp:
        train_c, test_c = chinook.split(0.7, seed=0)
        timed(
            "chinook: report, PDF",
            lambda: rg.report(train_c, test_c, chinook, Path(tmp) / "c.pdf"),
            rows,
        )
        chinook_kb = (Path(tmp) / "c.pdf").stat().st_size / 1024
    width = max(len(label) for label, _ in rows)
    for label, seconds in rows:
        print(f"{label:<{width}}  {seconds:7.3f} s")
    print(
        f"adult report sizes: PDF {pdf_kb:.0f} KiB, HTML {html_kb:.0f} KiB; chinook PDF {chinook_kb:.0f} KiB"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:.0f} MiB  (python {sys.version.split()[0]}, best of 3)")


if __name__ == "__main__":
    main()
