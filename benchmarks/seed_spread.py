"""The seed-to-seed spread of every headline: the yardstick a faster protocol must stay within.

Issue 36's rule: a faster protocol may move a number only within that number's own seed-to-seed
spread, shown over at least 5 seeds on adult and on lahman's modelled tables, leaky generators
included (a protocol that weakens leak detection is worse, not faster). This script measures that
spread. Each case's whole report (to HTML, the sections as by default) runs once per seed, in its
own process, and the script keeps every page-1 headline's value, reference and spread.

Cases:
- ``adult-ctgan``, ``adult-leaky``: UCI Adult's training rows against CTGAN's synthetic rows and
  against the leaky generator's (training rows copied, some perturbed), holdout ``adult_test.csv``,
  target ``income``;
- ``lahman-hma``, ``lahman-leaky_entities``: lahman's five modelled tables against SDV's HMA and
  against whole copied players (``bench_lahman.train_and_holdout``).

Run:
    python benchmarks/seed_spread.py run OUT.json [--seeds 5] [--cases adult-ctgan,lahman-hma]
    python benchmarks/seed_spread.py table OUT.json                 (mean and sd per headline)
    python benchmarks/seed_spread.py table BEFORE.json AFTER.json   (both, and the shift in sds)

``run`` adds to OUT.json (a case and seed already there is kept), so a study can be resumed. On 2
cores a seed takes about a minute for adult and two and a half for lahman.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

CASES = ("adult-ctgan", "adult-leaky", "lahman-hma", "lahman-leaky_entities")


def case_report(case: str, seed: int, path: Path) -> Any:
    """``case``'s whole report with ``seed``, written to ``path``; its results."""
    import reportgen as rg

    dataset, generator = case.split("-", 1)
    if dataset == "adult":
        from adult import ADULT, read

        train, test = read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")
        synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
        return rg.report(train, test, synth, path, seed=seed, targets={"table": "income"})
    from bench_lahman import LAHMAN, MODELLED, train_and_holdout

    from reportgen.data.io import load_folder

    train, holdout = train_and_holdout()
    synth = load_folder(LAHMAN / "synthetic" / generator, train.schema.subset(MODELLED))
    return rg.report(train.restricted(MODELLED), holdout.restricted(MODELLED), synth, path, seed=seed)


def one_report(case: str, seed: int, folder: Path) -> dict[str, Any]:
    """Every headline of ``case``'s report with ``seed``: value, reference and spread by name."""
    results = case_report(case, seed, folder / "report.html")
    return {
        name: {"value": h.value, "reference": h.reference, "spread": h.spread}
        for name, h in results.headlines.items()
    }


def run(out: Path, cases: list[str], seeds: int) -> None:
    study = json.loads(out.read_text()) if out.exists() else {}
    for case in cases:
        for seed in range(seeds):
            if str(seed) in study.get(case, {}):
                continue
            start = time.perf_counter()
            command = [sys.executable, __file__, "child", case, str(seed)]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise SystemExit(f"{case} seed {seed} failed:\n{done.stderr[-2000:]}")
            study.setdefault(case, {})[str(seed)] = json.loads(done.stdout.strip().splitlines()[-1])
            out.write_text(json.dumps(study, indent=1, sort_keys=True))
            print(f"{case} seed {seed}: {time.perf_counter() - start:.0f} s", flush=True)


def summary(study: dict[str, Any]) -> dict[tuple[str, str, str], tuple[float, float, int]]:
    """(case, headline, field) -> (mean, sd, seeds) over the seeds that have the field."""
    found: dict[tuple[str, str, str], list[float]] = {}
    for case, by_seed in study.items():
        for headlines in by_seed.values():
            for name, fields in headlines.items():
                for field, value in fields.items():
                    if value is not None:
                        found.setdefault((case, name, field), []).append(value)
    return {
        key: (statistics.fmean(values), statistics.stdev(values) if len(values) > 1 else 0.0, len(values))
        for key, values in sorted(found.items())
    }


def table(before: Path, after: Path | None) -> None:
    first = summary(json.loads(before.read_text()))
    second = summary(json.loads(after.read_text())) if after else {}
    header = f"{'case':<22} {'headline':<22} {'field':<9} {'mean':>9} {'sd':>8} {'n':>2}"
    print(header + (f" {'mean after':>10} {'sd after':>8} {'shift/sd':>8}" if after else ""))
    for key, (mean, sd, n) in first.items():
        line = f"{key[0]:<22} {key[1]:<22} {key[2]:<9} {mean:9.3f} {sd:8.3f} {n:2d}"
        if after and key in second:
            mean2, sd2, _ = second[key]
            shift = "" if sd == 0 else f"{(mean2 - mean) / sd:8.2f}"
            line += f" {mean2:10.3f} {sd2:8.3f} {shift:>8}"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    ran = commands.add_parser("run", help="run the reports and add their headlines to OUT")
    ran.add_argument("out", type=Path)
    ran.add_argument("--seeds", type=int, default=5)
    ran.add_argument("--cases", default=",".join(CASES))
    shown = commands.add_parser("table", help="mean and sd per headline (and the shift of AFTER)")
    shown.add_argument("before", type=Path)
    shown.add_argument("after", type=Path, nargs="?")
    child = commands.add_parser("child", help=argparse.SUPPRESS)
    child.add_argument("case", choices=CASES)
    child.add_argument("seed", type=int)
    args = parser.parse_args()
    if args.command == "run":
        cases = args.cases.split(",")
        if unknown := set(cases) - set(CASES):
            raise SystemExit(f"unknown case(s) {sorted(unknown)}: choose from {', '.join(CASES)}")
        run(args.out, cases, args.seeds)
    elif args.command == "table":
        table(args.before, args.after)
    else:
        with tempfile.TemporaryDirectory() as folder:
            print(json.dumps(one_report(args.case, args.seed, Path(folder))))


if __name__ == "__main__":
    main()
