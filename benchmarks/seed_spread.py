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

``run --sections privacy,alpha_beta`` computes only those sections for each case and seed, as the
whole report computes them (the same inputs, settings and seeded streams: each section draws from
streams of its own), and keeps only their headlines; nothing is written. A protocol change confined
to some sections needs only their study, in minutes instead of an hour, beside a check that the
other sections' numbers do not move (``same_numbers.py``). Compare it with a whole study as usual:
``table`` shows the headlines both files hold. Before relying on it for a section, check that its
seed 0 equals the whole report's (``table`` of the baseline and the section-only run: shift 0).
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


def case_inputs(case: str) -> tuple[Any, Any, Any, dict[str, str] | None]:
    """``case``'s training, holdout and synthetic data, and its utility targets."""
    dataset, generator = case.split("-", 1)
    if dataset == "adult":
        from adult import ADULT, read

        train, test = read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")
        synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
        return train, test, synth, {"table": "income"}
    from bench_lahman import LAHMAN, MODELLED, train_and_holdout

    from reportgen.data.io import load_folder

    train, holdout = train_and_holdout()
    synth = load_folder(LAHMAN / "synthetic" / generator, train.schema.subset(MODELLED))
    return train.restricted(MODELLED), holdout.restricted(MODELLED), synth, None


def case_report(case: str, seed: int, path: Path) -> Any:
    """``case``'s whole report with ``seed``, written to ``path``; its results."""
    import reportgen as rg

    train, test, synth, targets = case_inputs(case)
    return rg.report(train, test, synth, path, seed=seed, targets=targets)


def case_sections(case: str, seed: int, names: list[str]) -> Any:
    """Only the named sections of ``case``'s report with ``seed``, computed as ``report()`` does; results."""
    import reportgen.evaluation as evaluation
    from reportgen.catalogue import report_settings
    from reportgen.preparation import prepared
    from reportgen.settings import ReportSettings

    every = evaluation.sections()
    if unknown := set(names) - {s.name for s in every}:
        raise SystemExit(f"unknown section(s) {sorted(unknown)}: choose from {[s.name for s in every]}")
    evaluation.sections = lambda: [s for s in every if s.name in names]
    train, test, synth, targets = case_inputs(case)
    settings = report_settings(ReportSettings(seed=seed, targets=targets), device="cpu")  # report()'s
    with prepared(train, test, synth, settings, schema=None) as context:
        return evaluation.evaluate(context, title="seed spread")


def one_report(case: str, seed: int, folder: Path, sections: list[str] | None = None) -> dict[str, Any]:
    """Every headline of ``case``'s report with ``seed`` (of ``sections`` alone when given)."""
    results = (
        case_sections(case, seed, sections) if sections else case_report(case, seed, folder / "report.html")
    )
    return {
        name: {"value": h.value, "reference": h.reference, "spread": h.spread}
        for name, h in results.headlines.items()
    }


def run(out: Path, cases: list[str], seeds: int, sections: list[str] | None = None) -> None:
    study = json.loads(out.read_text()) if out.exists() else {}
    for case in cases:
        for seed in range(seeds):
            if str(seed) in study.get(case, {}):
                continue
            start = time.perf_counter()
            command = [sys.executable, __file__, "child", case, str(seed)]
            command += ["--sections", ",".join(sections)] if sections else []
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
    ran.add_argument("--sections", help="only these sections (comma-separated names), none written")
    shown = commands.add_parser("table", help="mean and sd per headline (and the shift of AFTER)")
    shown.add_argument("before", type=Path)
    shown.add_argument("after", type=Path, nargs="?")
    child = commands.add_parser("child", help=argparse.SUPPRESS)
    child.add_argument("case", choices=CASES)
    child.add_argument("seed", type=int)
    child.add_argument("--sections")
    args = parser.parse_args()
    if args.command == "run":
        cases = args.cases.split(",")
        if unknown := set(cases) - set(CASES):
            raise SystemExit(f"unknown case(s) {sorted(unknown)}: choose from {', '.join(CASES)}")
        run(args.out, cases, args.seeds, args.sections.split(",") if args.sections else None)
    elif args.command == "table":
        table(args.before, args.after)
    else:
        with tempfile.TemporaryDirectory() as folder:
            chosen = args.sections.split(",") if args.sections else None
            print(json.dumps(one_report(args.case, args.seed, Path(folder), chosen)))


if __name__ == "__main__":
    main()
