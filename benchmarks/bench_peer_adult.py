"""The whole adult report with utility, to PDF, beside mostlyai-qa's ``report()``: CPU and wall time.

Both run as whole processes on the same files (training ``adult_train.csv``, holdout
``adult_test.csv``, synthetic ``synthetic/<generator>/adult_train.csv.gz``), alternating
reportgen, peer, reportgen, peer, ... for ``--pairs`` pairs, so that load from other work on a
shared machine falls on both sides alike. Each side's time is the child process's own: wall
seconds from start to exit (imports and reading the CSVs included) and CPU seconds (user + system,
all threads) from ``os.wait4``. The ratio reportgen / peer is computed per pair; the median and the
range over pairs are printed, for CPU and wall time.

reportgen runs ``report(train, test, synth, "adult.pdf", targets={"table": "income"})`` with its
defaults; the peer runs ``mostlyai.qa.report(syn_tgt_data=..., trn_tgt_data=..., hol_tgt_data=...)``
with its defaults (HTML; the peer writes no PDF and computes no utility or sample-level metrics).
Each reportgen child also prints where its CPU seconds went, per section, from the report's own
``progress`` callback (the step where each section starts, see ``reportgen.evaluation.evaluate``); the
writing stage is split into HTML and PDF by timing ``render_body_html`` within ``report_pdf``. In
those children the sample-level section runs beside the others, as the report's default has it, so
its CPU seconds fall in the stages it ran beside; ``--sections`` runs every section in its turn
(``reportgen.evaluation.SECTIONS_BESIDE`` off) for a true split.

mostlyai-qa is not a reportgen dependency: the script makes a virtual environment of its own
(``--venv``, by default ``~/.cache/reportgen-bench/mostlyai-qa-venv``) and installs ``PEER_PACKAGE`` there
(mostlyai-qa pinned to the version the issue's ratios were last measured against, so that a ratio
moves only when one of the two tools does) with pip, constrained by the repository's
``constraints.txt`` (a CPU build of torch: a bare ``torch`` requirement would pull gigabytes of CUDA
libraries). Its embedding model (model2vec's ``potion-base-8M``) ships inside the mostlyai-qa wheel,
so the peer runs offline; the children run with ``HF_HUB_OFFLINE=1`` so that nothing is fetched from
the network either way.

``--against CHECKOUT`` times reportgen alone in this checkout ("new") and in another ("old", its
reportgen on ``PYTHONPATH``), alternating which runs first from pair to pair, and prints the paired
new / old ratios: what a change of reportgen's own buys.

Run: python benchmarks/bench_peer_adult.py [--pairs 3] [--generator ctgan] [--reportgen-only]
     python benchmarks/bench_peer_adult.py --against ../old-checkout [--pairs 3]
     python benchmarks/bench_peer_adult.py --sections   (one reportgen run in this process: CPU per section)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adult import ADULT, read  # benchmarks/adult.py

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "reportgen-bench"
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}

# Runs inside the peer's environment: argv = training, holdout, synthetic CSV, report path.
PEER_RUNNER = r"""
import sys
import pandas as pd
from mostlyai import qa
read = lambda path: pd.read_csv(path, keep_default_na=False, na_values=[""])
train, holdout, synth = (read(p) for p in sys.argv[1:4])
qa.report(syn_tgt_data=synth, trn_tgt_data=train, hol_tgt_data=holdout, report_path=sys.argv[4])
"""


PEER_PACKAGE = "mostlyai-qa==1.10.11"


def peer_python(venv: Path) -> Path:
    """The Python of a virtual environment with mostlyai-qa, made on first use."""
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"creating {venv} and installing mostlyai-qa (once)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        install = ["-m", "pip", "install", "-q", "-c", str(REPO / "constraints.txt"), PEER_PACKAGE]
        subprocess.run([str(python), *install], check=True)
    return python


def inputs(generator: str) -> list[Path]:
    """Training, holdout and synthetic files, in that order."""
    synthetic = ADULT / "synthetic" / generator / "adult_train.csv.gz"
    return [ADULT / "adult_train.csv", ADULT / "adult_test.csv", synthetic]


def timed_child(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system) of a child process run to its end, and its stdout."""
    start = time.perf_counter()
    child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
    out = child.stdout.read() if child.stdout else ""
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise subprocess.CalledProcessError(child.returncode, command, out)
    return wall, usage.ru_utime + usage.ru_stime, out


def _cpu_seconds() -> float:
    """This process's CPU seconds and those of its child processes that ended."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


class SectionClock:
    """CPU and wall seconds per stage of a report, from its ``progress`` callback.

    A stage runs from its first progress call to the first call of the next stage; a section's
    steps (``"Computing: <section title>: <step>"``) count toward the section, told apart by the
    registered sections' titles (which may hold ": " themselves). CPU seconds include those of
    child processes that ended (the one-class network's training process on large tables), in the
    stage where they ended.
    """

    def __init__(self, titles: list[str], *, steps: bool = False) -> None:
        self.titles = titles  # the sections' titles, longest first ("A: B" before "A")
        self.steps = steps
        self.stages: dict[str, list[float]] = {}
        self._current: str | None = None
        self._since = (_cpu_seconds(), time.perf_counter())

    def __call__(self, stage: str, fraction: float) -> None:
        name = stage.removeprefix("Computing: ")
        if not self.steps:
            name = next((t for t in self.titles if name == t or name.startswith(t + ": ")), name)
        if name != self._current:
            self.switch(name)

    def switch(self, name: str | None) -> None:
        now = (_cpu_seconds(), time.perf_counter())
        if self._current is not None:
            spent = self.stages.setdefault(self._current, [0.0, 0.0])
            spent[0] += now[0] - self._since[0]
            spent[1] += now[1] - self._since[1]
        self._current, self._since = name, now

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        """``function`` timed as a stage of its own, then back to the stage it was called in."""

        def timed(*args: Any, **kwargs: Any) -> Any:
            outer = self._current
            self.switch(name)
            try:
                return function(*args, **kwargs)
            finally:
                self.switch(outer)

        return timed


def run_reportgen(
    generator: str, folder: Path, *, steps: bool = False, one_at_a_time: bool = False
) -> dict[str, list[float]]:
    """The full adult report with utility, to PDF, in this process; seconds per stage.

    ``one_at_a_time``: every section in its turn, none beside the others, so that each stage's
    seconds are its own.
    """
    clock = SectionClock([], steps=steps)
    clock("Reading the CSV files", 0.0)
    train, test, synth = (read(p) for p in inputs(generator))
    path = folder / "adult.pdf"
    return run_reportgen_on(train, test, synth, path, clock=clock, one_at_a_time=one_at_a_time)


def run_reportgen_on(
    train: Any,
    test: Any,
    synth: Any,
    path: Path,
    *,
    clock: SectionClock | None = None,
    one_at_a_time: bool = False,
    **options: Any,
) -> dict[str, list[float]]:
    """``report()`` with utility (target ``income``) in this process; CPU and wall seconds per stage.

    ``one_at_a_time``: no section beside the others (``reportgen.evaluation.SECTIONS_BESIDE`` off).
    """
    import reportgen as rg
    import reportgen.evaluation

    reportgen.evaluation.SECTIONS_BESIDE = not one_at_a_time
    from reportgen.catalogue import sections
    from reportgen.render import document

    clock = clock or SectionClock([])
    clock.titles = sorted((s.title for s in sections()), key=len, reverse=True)  # "A: B" before "A"
    document.render_body_html = clock.wrap("Writing: HTML", document.render_body_html)
    document.report_pdf = clock.wrap("Writing: PDF (WeasyPrint)", document.report_pdf)
    rg.report(train, test, synth, path, targets={"table": "income"}, progress=clock, **options)
    clock.switch(None)
    return clock.stages


def show_sections(stages: dict[str, list[float]]) -> None:
    total_cpu, total_wall = (sum(s[i] for s in stages.values()) for i in (0, 1))
    width = max(len(name) for name in stages)
    print(f"{'stage':<{width}} {'CPU s':>7} {'wall s':>7}")
    for name, (cpu, wall) in stages.items():
        print(f"{name:<{width}} {cpu:7.1f} {wall:7.1f}")
    print(f"{'total (after imports)':<{width}} {total_cpu:7.1f} {total_wall:7.1f}")


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} (range {min(values):.2f}-{max(values):.2f}, n={len(values)})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--generator", default="ctgan")
    parser.add_argument("--venv", type=Path, default=CACHE / "mostlyai-qa-venv")
    parser.add_argument("--reportgen-only", action="store_true", help="skip the peer")
    parser.add_argument("--against", type=Path, help="another checkout: reportgen old against new")
    parser.add_argument("--sections", action="store_true", help="one reportgen run here, per section")
    parser.add_argument("--steps", action="store_true", help="with --sections: per step of each section")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.sections or args.child:
        with tempfile.TemporaryDirectory() as folder:
            folder_path, alone = Path(folder), args.sections
            stages = run_reportgen(args.generator, folder_path, steps=args.steps, one_at_a_time=alone)
        print(json.dumps(stages) if args.child else "", flush=True)
        if args.sections:
            show_sections(stages)
        return
    ours_cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--generator", args.generator]
    if args.against:
        against(ours_cmd, args.against.resolve(), args.pairs)
        return
    path = os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])
    env = os.environ | OFFLINE | {"PYTHONPATH": path}
    python = None if args.reportgen_only else peer_python(args.venv)
    rows: list[tuple[float, float, float, float]] = []
    with tempfile.TemporaryDirectory() as folder:
        runner = Path(folder) / "peer.py"
        runner.write_text(PEER_RUNNER)
        files = [*map(str, inputs(args.generator)), str(Path(folder) / "qa.html")]
        peer_cmd = [str(python), str(runner), *files]
        for pair in range(args.pairs):
            wall, cpu, out = timed_child(ours_cmd, env)
            stages = json.loads(out.strip().splitlines()[-1])
            peer_wall, peer_cpu = (float("nan"),) * 2
            if python is not None:
                peer_wall, peer_cpu, _ = timed_child(peer_cmd, env)
            rows.append((cpu, wall, peer_cpu, peer_wall))
            print(
                f"pair {pair + 1}: reportgen {cpu:6.1f} CPU s {wall:6.1f} wall s | "
                f"mostlyai-qa {peer_cpu:6.1f} CPU s {peer_wall:6.1f} wall s",
                flush=True,
            )
            show_sections(stages)
    for label, i in (("reportgen", 0), ("mostlyai-qa", 2)):
        print(f"{label:<12} CPU s {spread([r[i] for r in rows])}; wall s {spread([r[i + 1] for r in rows])}")
    if python is not None:
        print(f"ratio CPU    {spread([r[0] / r[2] for r in rows])}")
        print(f"ratio wall   {spread([r[1] / r[3] for r in rows])}")


def against(command: list[str], other: Path, pairs: int) -> None:
    """``command`` (a reportgen child) on this checkout and on ``other``, alternating; paired ratios."""
    times: dict[str, list[tuple[float, float]]] = {"new": [], "old": []}
    for pair in range(pairs):
        for label in ("new", "old") if pair % 2 == 0 else ("old", "new"):
            checkout = REPO if label == "new" else other
            env = os.environ | OFFLINE | {"PYTHONPATH": str(checkout)}
            wall, cpu, out = timed_child(command, env)
            times[label].append((cpu, wall))
            print(f"pair {pair + 1} {label}: {cpu:6.1f} CPU s {wall:6.1f} wall s", flush=True)
            show_sections(json.loads(out.strip().splitlines()[-1]))
    for label, rows in times.items():
        print(f"{label:<4} CPU s {spread([r[0] for r in rows])}; wall s {spread([r[1] for r in rows])}")
    new, old = times["new"], times["old"]
    print(f"new / old CPU  {spread([n[0] / o[0] for n, o in zip(new, old, strict=True)])}")
    print(f"new / old wall {spread([n[1] / o[1] for n, o in zip(new, old, strict=True)])}")


if __name__ == "__main__":
    main()
