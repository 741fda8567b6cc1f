"""Whole reports with their neighbour searches on the GPU, beside the same reports on the CPU.

The report's ``device`` setting moves the exact neighbour searches to torch's device
(``reportgen.privacy.neighbours.knn``: the privacy distances, the membership attacks' searches, the
inference attack's nearest rows, the sample-level section's recall and authenticity searches). The
rest stays on the CPU, the one-class network included (``reportgen.privacy.one_class`` says why).

Cases (each report in a fresh child process, with utility, target ``income``; wall and CPU
seconds of the child from ``os.wait4``, peak resident memory, and the CPU and wall seconds per stage
from the report's ``progress`` callback, as ``bench_peer_adult.py`` reads them):

- ``adult``: UCI Adult, CTGAN's synthetic rows, the holdout (``bench_peer_adult.inputs``);
- ``large``: ``--rows`` rows a side drawn from adult (``bench_large.write_inputs``), default caps.

For each case the report runs on ``cpu`` and on ``cuda`` (``--devices``), then the two JSONs are
compared field by field (``same_numbers.differences``): the neighbour searches must give the CPU's
numbers exactly, so only the recorded device may differ. ``--again`` runs each case's report on
the first of ``--devices`` a second time and compares it with the first: one seed must give one
set of numbers on the GPU too. The report is written as HTML unless ``--pdf`` (WeasyPrint on the
CPU, the same work for both devices).

Run: python benchmarks/bench_gpu_reports.py [--cases adult,large] [--rows 200000] [--again] [--out DIR]

Measured on an H200 machine (16 cores, torch 2.11 + CUDA 13, HTML), when the one-class network
still trained on the GPU too: adult 74.8 and 70.5 s wall on the GPU against 85.5 s on the CPU
(privacy distances 8.5 s against 32.4 s), 200,000 rows a side 160.3 s against 190.1 s. Every field
outside the sample-level section was equal on both devices, and two GPU runs were equal; the
network on the GPU held the sample-level section up (85.6 s against 55.7 s on 200,000 rows), so it
trains on the CPU now and a GPU report is the CPU's bit for bit. The 16-core machine's CPU run was
slower than the 2-core development machine's (adult 65 s quiet): its privacy distances used 111
CPU-s against about 37 here.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pandas as pd
from adult import read  # benchmarks/adult.py
from bench_large import write_inputs
from bench_peer_adult import SectionClock, inputs, run_reportgen_on, show_sections
from same_numbers import differences

HERE = Path(__file__).resolve()


def child(case_inputs: list[Path], device: str, out: Path) -> None:
    """One report in this process; its stages printed, its JSON written beside ``out``."""
    clock = SectionClock([])
    clock("Reading the inputs", 0.0)
    frames = [pd.read_parquet(p) if p.suffix == ".parquet" else read(p) for p in case_inputs]
    show_sections(run_reportgen_on(*frames, out, clock=clock, device=device))


def run_child(case_inputs: list[Path], device: str, out: Path) -> dict[str, float]:
    """The report as a child process: wall and CPU seconds, peak RSS; its output printed."""
    command = [sys.executable, str(HERE), "--child", device, str(out), *map(str, case_inputs)]
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = process.stdout.read() if process.stdout else ""
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    print(output, end="", flush=True)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"the {device} report failed (exit {os.waitstatus_to_exitcode(status)})")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mib": usage.ru_maxrss / 1024}


def compared(first: Path, second: Path, label: str) -> list[str]:
    """The fields that differ between two report JSONs, printed under ``label``."""
    found = list(differences(json.loads(first.read_text()), json.loads(second.read_text())))
    print(f"{label}: {len(found)} fields differ", flush=True)
    for line in found[:40]:
        print(f"  {line}")
    if len(found) > 40:
        print(f"  ... and {len(found) - 40} more")
    return found


def case_inputs(case: str, folder: Path, rows: int) -> list[Path]:
    if case == "adult":
        return inputs("ctgan")
    if case == "large":
        return write_inputs(folder, rows, "ctgan", 0)
    raise SystemExit(f"unknown case {case!r}: adult or large")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default="adult,large")
    parser.add_argument("--devices", default="cuda,cpu")
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--again", action="store_true", help="each case's first device twice, compared")
    parser.add_argument("--pdf", action="store_true", help="write PDF (default HTML)")
    parser.add_argument("--out", type=Path, default=None, help="keep the JSONs here")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        device, out, *paths = args.child
        child([Path(p) for p in paths], device, Path(out))
        return
    import torch

    gpu = torch.cuda.get_device_name() if torch.cuda.is_available() else "no CUDA device"
    print(f"torch {torch.__version__}, {gpu}, {os.cpu_count()} CPUs", flush=True)
    summary: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as scratch:
        keep = args.out or Path(scratch)
        keep.mkdir(parents=True, exist_ok=True)
        for case in args.cases.split(","):
            paths = case_inputs(case, Path(scratch), args.rows)
            devices = args.devices.split(",")
            runs = [(d, "") for d in devices] + ([(devices[0], "-again")] if args.again else [])
            for device, tag in runs:
                out = keep / f"{case}-{device}{tag}.{'pdf' if args.pdf else 'html'}"
                print(f"== {case} on {device}{tag}", flush=True)
                figures = run_child(paths, device, out)
                wall, cpu, rss = figures["wall"], figures["cpu"], figures["rss_mib"]
                print(f"   wall {wall:.1f} s, CPU {cpu:.1f} s, peak RSS {rss:.0f} MiB")
                summary.append({"case": case, "device": device + tag} | figures)
            json_of = {d + t: keep / f"{case}-{d}{t}.json" for d, t in runs}
            for other in devices[1:]:
                compared(json_of[other], json_of[devices[0]], f"{case}: {other} against {devices[0]}")
            if args.again:
                compared(json_of[devices[0]], json_of[devices[0] + "-again"], f"{case}: {devices[0]} twice")
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
