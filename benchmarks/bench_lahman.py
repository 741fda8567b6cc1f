"""The whole report on lahman (Baseball Databank, 9 tables, composite keys) with default settings.

Training data: the 4,000 people SDV's HMA was fitted on (``people.sample(n=4000, random_state=42)``,
as ``shared/datasets/lahman/synthetic/hma/info.json`` records) with all of their batting, pitching,
salaries and hall-of-fame rows, plus the tables outside the players' hierarchy (teams, franchises,
parks, homegames). Holdout: every other person with their rows, the same lookup tables.

Cases, each in its own process (time and peak RSS of that process):
- ``cli-all``: ``reportgen report`` from CSV folders on all 9 tables against ``hma``, which lacks four
  of them: the report must be written and exit 3, naming them;
- ``modelled-<generator>``: ``report()`` from Python on the five tables HMA modelled (people,
  batting, pitching, salaries, teams), for ``hma`` and ``leaky_entities``.

Prints, per case: wall time, peak RSS, rows used per table and role, the headline numbers, and
whether the entity-level privacy view of people flags the copy.

Run: python benchmarks/bench_lahman.py   (needs ../shared/datasets; about 8 minutes on 2 cores)
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from reportgen import RelationalData, report
from reportgen.data.io import load_folder, write_folder
from reportgen.data.subsets import keep_rows
from reportgen.headlines import headlines

DATASETS = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
LAHMAN = DATASETS / "lahman"
MODELLED = ["people", "batting", "pitching", "salaries", "teams"]


def train_and_holdout() -> tuple[RelationalData, RelationalData]:
    """The people the generator saw (with their rows) and the others, lookup tables on both sides."""
    real = load_folder(LAHMAN)
    seen = real["people"].sample(n=4000, random_state=42).index
    in_train = real["people"].index.isin(seen)
    train, _ = keep_rows(real, {"people": in_train})
    holdout, _ = keep_rows(real, {"people": ~in_train})
    return train, holdout


def one_case(case: str, out: Path) -> dict:
    train, holdout = train_and_holdout()
    start = time.perf_counter()
    if case == "cli-all":
        write_folder(train, out / "train")
        write_folder(holdout, out / "holdout")
        command = [
            sys.executable, "-m", "reportgen.cli", "report", "--train", str(out / "train"), "--test",
            str(out / "holdout"), "--synth", str(LAHMAN / "synthetic" / "hma"), "--out",
            str(out / "report.pdf"), "--quiet",
        ]  # fmt: skip
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        results_path = out / "report.json"
        summary = {"exit": done.returncode, "stderr": done.stderr.strip()[-600:]}
    else:
        generator = case.removeprefix("modelled-")
        synth = load_folder(LAHMAN / "synthetic" / generator, train.schema.subset(MODELLED))
        results = report(
            train.restricted(MODELLED), holdout.restricted(MODELLED), synth, out / "report.pdf", seed=0
        )
        results_path = out / "report.json"
        summary = {"exit": 0 if results.gates.passed else 3}
    summary["seconds"] = time.perf_counter() - start
    summary.update(describe(json.loads(results_path.read_text())))
    return summary


def describe(results: dict) -> dict:
    from reportgen.results import ReportResults

    typed = ReportResults.model_validate(results)
    overview = typed.sections["overview"]
    privacy = typed.computed("privacy")
    views = {}
    if privacy is not None:
        views = {t.table: round(t.proximity.privacy_score, 1) for t in privacy.tables}  # type: ignore[attr-defined]
    return {
        "rows": {
            t.name: {"train": [t.rows_train, t.used_train], "synth": [t.rows_synth, t.used_synth]}
            for t in overview.tables  # type: ignore[attr-defined]
        },
        "headlines": {k: None if h.value is None else round(h.value, 2) for k, h in headlines(typed).items()},
        "privacy_by_view": views,
        "gates": [(g.name, g.status) for g in typed.gates.gates],
        "findings": sorted({f.code for f in typed.findings}),
    }


def run_in_child(case: str) -> dict:
    with tempfile.TemporaryDirectory() as folder:
        before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        done = subprocess.run(
            [sys.executable, __file__, "--one", case, folder], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise SystemExit(f"{case} failed:\n{done.stderr[-3000:]}")
        summary = json.loads(done.stdout.splitlines()[-1])
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        summary["peak_rss_mib"] = round(max(peak, before) / 1024)
        return summary


def main() -> None:
    for case in ("cli-all", "modelled-hma", "modelled-leaky_entities"):
        summary = run_in_child(case)
        print(
            f"\n== {case}: {summary['seconds']:.0f} s, peak RSS {summary['peak_rss_mib']} MiB "
            f"(largest process so far), exit {summary['exit']}"
        )
        if summary.get("stderr"):
            print("   stderr:", summary["stderr"])
        for table, rows in summary["rows"].items():
            (train_all, train_used), (synth_all, synth_used) = rows["train"], rows["synth"]
            print(
                f"   {table:<12} training {train_used:>7,} of {train_all:>7,}   "
                f"synthetic {synth_used:>7,} of {synth_all:>7,}"
            )
        print("   headlines:", summary["headlines"])
        print("   privacy score by table / entity view:", summary["privacy_by_view"])
        print("   gates:", summary["gates"])
        print("   findings:", ", ".join(summary["findings"]))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--one":
        print(json.dumps(one_case(sys.argv[2], Path(sys.argv[3]))))
    else:
        main()
