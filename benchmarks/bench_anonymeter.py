"""Singling out, linkability and inference on UCI Adult: reportgen beside anonymeter 1.1, with timings.

anonymeter 1.1 pins numpy<1.27 and pyarrow<22, so it is not a reportgen dependency: this script makes
a virtual environment of its own (``--venv``, by default ``~/.cache/reportgen-bench/anonymeter-1.1``),
installs ``anonymeter==1.1.*`` there with pip from the package index, and runs anonymeter's three
evaluators in that environment, in a subprocess, on the same inputs: training rows
``adult_train.csv``, control ``adult_test.csv``, synthetic ``synthetic/<generator>/adult_train.csv.gz``.

Matching settings: reportgen runs first with its defaults; anonymeter then gets the same number of
attacks, the same two linkability column sets (and ``n_neighbors``), the same secrets, and one
inference evaluator per secret with every other column as auxiliary. Both sides' risks are shown
with 95% intervals (reportgen's recomputed at 95% from its counts: in the report the intervals of
a table's several singling-out modes and secrets are widened so that the worst keeps 95% coverage).

Run: python benchmarks/bench_anonymeter.py [--generators ctgan leaky] [--n-attacks 1000]

Figures (2 shared cores, 1,000 attacks, seed 0; risks with 95% intervals):

| adult | reportgen | anonymeter | anonymeter, equal sizes |
|---|---|---|---|
| ctgan singling out, univariate | 0.008 [0, 0.023] | 0.039 [0.022, 0.055] | 0.000 [0, 0.008] |
| ctgan singling out, multivariate | 0.005 [0, 0.039] | 0.087 [0.060, 0.114] | 0.000 [0, 0.027] |
| ctgan linkability, k = 10 | 0.007 [0, 0.025] | 0.004 [0, 0.020] | |
| ctgan inference, 10 secrets | every interval overlaps anonymeter's | | |
| leaky singling out, univariate | 0.082 [0.053, 0.110] | 0.190 [0.162, 0.218] | 0.090 [0.062, 0.117] |
| leaky singling out, multivariate | 0.082 [0.042, 0.121] | 0.237 [0.203, 0.272] | 0.064 [0.023, 0.104] |
| leaky linkability, k = 10 | 0.243 [0.204, 0.281] | 0.252 [0.214, 0.290] | |
| leaky inference (age, occupation) | 0.506, 0.491 | 0.468, 0.484 | every secret overlaps |

Linkability and inference agree within their intervals on every attack. Singling out agrees with
anonymeter run on populations of equal size, not with anonymeter's default: anonymeter judges its
predicates among all 32,561 training rows and scales the control's success from 16,281 holdout
rows to that size with a fitted model. On ctgan that correction halves the control rate (0.118 to
0.060) while the training rate rises from 0.114 to 0.142 between the same two sizes, so a generator
that copies nothing gets a multivariate risk of 0.087; reportgen compares equal populations and
needs no correction. The price, on leaky: a copied row counts only when its training row is among
the 16,281 drawn, so singling out of copies reads about half of what all 32,561 rows would give.

Time: reportgen's three attacks 10.9 s on ctgan (singling out 3.4 s, linkability 0.8 s, inference
6.7 s; 1.4 s more to prepare the data, shared with the other sections) and 6.4 s on leaky;
anonymeter's 314 s and 264 s (its multivariate singling out alone 118 s and 66 s).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

from adult import ADULT, read  # benchmarks/adult.py

from reportgen.catalogue import report_settings
from reportgen.metrics.privacy_risks import PrivacyRisksResult, compute_privacy_risks_section
from reportgen.preparation import prepare_context
from reportgen.privacy.risks import N_ATTACKS, N_NEIGHBOURS, AttackResult, attack_result

CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "reportgen-bench"
VERSION = "1.1.*"

# Runs inside anonymeter's environment: reads a JSON job, writes a JSON of counts, risks and times.
RUNNER = r"""
import json, sys, time, warnings
import pandas as pd
from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator

warnings.simplefilter("ignore")
job = json.load(open(sys.argv[1]))
read = lambda path: pd.read_csv(path, keep_default_na=False, na_values=[""])
ori, control, syn = read(job["train"]), read(job["test"]), read(job["synth"])
n = job["n_attacks"]
found = []

def record(attack, detail, evaluator, seconds):
    r = evaluator.results(confidence_level=0.95)
    risk = r.risk()
    found.append({
        "attack": attack, "detail": detail, "seconds": seconds,
        "members": float(r.attack_rate.value), "controls": float(r.control_rate.value),
        "baseline": float(r.baseline_rate.value), "risk": float(risk.value),
        "ci": [float(x) for x in risk.ci],
    })
    json.dump(found, open(sys.argv[2], "w"))
    print(f"  anonymeter {attack} {detail}: {seconds:.1f}s", file=sys.stderr, flush=True)

# Singling out as anonymeter does it (all training rows, control size-corrected), then on as many
# training rows as the control holds (no correction: the populations reportgen compares).
same_size = ori.sample(len(control), random_state=0)
for mode, target, label in [
    ("univariate", ori, "univariate"), ("multivariate", ori, "multivariate"),
    ("univariate", same_size, "univariate, |T| = |H|"),
    ("multivariate", same_size, "multivariate, |T| = |H|"),
]:
    start = time.perf_counter()
    ev = SinglingOutEvaluator(ori=target, syn=syn, control=control, n_attacks=n, seed=job["seed"])
    ev.evaluate(mode=mode)
    record("singling_out", label, ev, time.perf_counter() - start)
start = time.perf_counter()
ev = LinkabilityEvaluator(ori=ori, syn=syn, control=control, n_attacks=n,
                          aux_cols=tuple(job["link_sets"]), n_neighbors=job["k"])
ev.evaluate(n_jobs=-2)
record("linkability", f"k = {job['k']}", ev, time.perf_counter() - start)
for secret in job["secrets"]:
    start = time.perf_counter()
    aux = [c for c in ori.columns if c != secret]
    ev = InferenceEvaluator(ori=ori, syn=syn, control=control, aux_cols=aux, secret=secret, n_attacks=n)
    ev.evaluate(n_jobs=-2)
    record("inference", secret, ev, time.perf_counter() - start)
"""


def anonymeter_python(venv: Path) -> Path:
    """The Python of a virtual environment with anonymeter 1.1, made on first use."""
    python = venv / "bin" / "python"
    if not python.exists():
        print(f"creating {venv} and installing anonymeter=={VERSION} (once)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", f"anonymeter=={VERSION}"], check=True)
    return python


def run_reportgen(generator: str, n_attacks: int) -> tuple[PrivacyRisksResult, dict[str, float]]:
    """reportgen's attacks on one synthetic version, and the seconds of each part."""
    train, test = read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")
    synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
    start = time.perf_counter()
    context = prepare_context(train, test, synth, report_settings(risk_attacks=n_attacks))
    context.distance_views()  # the distance space and the embedded rows, shared with other sections
    seconds = {"prepare": time.perf_counter() - start}
    stamps = [("targets", time.perf_counter())]
    context.progress = lambda step: stamps.append((step.split(": ")[-1], time.perf_counter()))
    result = compute_privacy_risks_section(context)
    stamps.append(("end", time.perf_counter()))
    seconds |= {name: later - at for (name, at), (_, later) in pairwise(stamps)}
    return result, seconds


def run_anonymeter(python: Path, generator: str, view, n_attacks: int) -> list[dict]:
    """anonymeter's evaluators with reportgen's column sets and secrets."""
    job = {
        "train": str(ADULT / "adult_train.csv"),
        "test": str(ADULT / "adult_test.csv"),
        "synth": str(ADULT / "synthetic" / generator / "adult_train.csv.gz"),
        "n_attacks": n_attacks,
        "seed": 0,
        "k": N_NEIGHBOURS,
        "link_sets": view.linkability.known,
        "secrets": [r.detail for r in view.inference],
    }
    with tempfile.TemporaryDirectory() as folder:
        paths = [Path(folder) / name for name in ("runner.py", "job.json", "out.json")]
        paths[0].write_text(RUNNER)
        paths[1].write_text(json.dumps(job))
        subprocess.run([str(python), *map(str, paths)], check=True)
        return json.loads(paths[2].read_text())


def at_95(result: AttackResult) -> AttackResult:
    """The same counts with 95% intervals (as anonymeter reports them)."""
    counts = tuple((r.successes, r.attacks) for r in (result.members, result.controls, result.baseline))
    return attack_result(result.attack, result.detail, result.known, counts, 0.95)  # type: ignore[arg-type]


def show(generator: str, view, seconds: dict[str, float], theirs: list[dict]) -> None:
    ours = [at_95(r) for r in (*view.singling_out, view.linkability, *view.inference)]
    print(f"\n{generator}: n_attacks {view.targets}, linkability sets {view.linkability.known}")
    print(
        f"{'attack':<13} {'on':<23} {'reportgen risk [95%]':>24} {'r_T':>6} {'r_H':>6} {'n':>5}   "
        f"{'anonymeter risk [95%]':>24} {'r_T':>6} {'r_H':>6} {'agree':>5} {'secs':>6}"
    )
    for a in theirs:
        detail = a["detail"].split(",")[0]
        r = next((o for o in ours if o.attack == a["attack"] and o.detail == detail), None)
        mine = (
            "not run" if r is None else f"{r.risk:.3f} [{r.risk_interval[0]:.3f}, {r.risk_interval[1]:.3f}]"
        )
        agree = r is not None and r.risk_interval[0] <= a["ci"][1] and a["ci"][0] <= r.risk_interval[1]
        rates = "" if r is None else f"{r.members.rate:6.3f} {r.controls.rate:6.3f} {r.members.attacks:5d}"
        print(
            f"{a['attack']:<13} {a['detail']:<23} {mine:>24} {rates}   "
            f"{a['risk']:.3f} [{a['ci'][0]:.3f}, {a['ci'][1]:.3f}] {a['members']:6.3f} {a['controls']:6.3f} "
            f"{'yes' if agree else 'NO':>5} {a['seconds']:6.1f}"
        )
    total_theirs = sum(a["seconds"] for a in theirs)
    parts = ", ".join(f"{name} {s:.1f}s" for name, s in seconds.items())
    print(f"reportgen: {parts}; anonymeter: {total_theirs:.1f}s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--generators", nargs="+", default=["ctgan", "leaky"])
    parser.add_argument("--n-attacks", type=int, default=N_ATTACKS)
    parser.add_argument("--venv", type=Path, default=CACHE / "anonymeter-1.1")
    parser.add_argument("--reportgen-only", action="store_true", help="skip anonymeter")
    args = parser.parse_args()
    python = None if args.reportgen_only else anonymeter_python(args.venv)
    for generator in args.generators:
        result, seconds = run_reportgen(generator, args.n_attacks)
        view = result.tables[0]
        theirs = [] if python is None else run_anonymeter(python, generator, view, args.n_attacks)
        if not theirs:
            print(generator, seconds, [(r.detail, round(r.risk, 3)) for r in view.singling_out])
            continue
        show(generator, view, seconds, theirs)


if __name__ == "__main__":
    main()
