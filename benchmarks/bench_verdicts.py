"""Page 1 on adult's five synthetic versions: every headline, the verdict per concern, the bars.

Runs the whole report (with utility, target income, holdout adult_test.csv, default bars) to PDF
for each generator, prints the headline numbers with their references and the three verdicts, and
keeps page 1 of each report as a PNG (60 dpi, needs pdftoppm) in the output folder.

Run: python benchmarks/bench_verdicts.py [out_folder [generator ...]]   (about 2 minutes a generator on
2 cores; every generator unless some are named)
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

from adult import ADULT, GENERATORS, read

from reportgen import report
from reportgen.headlines import headlines


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "bench-verdicts")
    out.mkdir(parents=True, exist_ok=True)
    train, test = read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")
    for generator in sys.argv[2:] or GENERATORS:
        synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
        start = time.perf_counter()
        pdf = out / f"{generator}.pdf"
        results = report(train, test, synth, pdf, targets={"table": "income"}, seed=0)
        seconds = time.perf_counter() - start
        print(f"\n== {generator} ({seconds:.0f} s), release {'passes' if results.gates.passed else 'fails'}")
        for h in headlines(results).values():
            reference = "" if h.reference is None else f" (reference {h.reference:.3g})"
            value = f"{100 * h.value:.2f}%" if h.unit == "share" else f"{h.value:.1f}"
            print(f"   {h.label:<40} {value:>8}{reference}")
        for v in results.verdicts:
            print(f"   {v.concern:<9} {v.status:<14} {v.why}")
        if shutil.which("pdftoppm"):
            subprocess.run(
                [
                    "pdftoppm",
                    "-png",
                    "-r",
                    "60",
                    "-f",
                    "1",
                    "-l",
                    "1",
                    str(pdf),
                    str(out / f"{generator}-page1"),
                ],
                check=True,
            )


if __name__ == "__main__":
    main()
