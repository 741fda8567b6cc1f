"""Every attack on lahman, per table and entity view: membership inference and the three risks.

Data as ``bench_lahman.py`` builds it (the 4,000 people SDV's HMA saw with all their rows as
training, every other person as holdout, the lookup table ``teams`` on both sides), on the five
tables HMA modelled, against ``hma`` and ``leaky_entities`` (whole players copied with their rows).

Prints, per generator: the time to prepare the shared distance spaces (tables and entity views),
then per view the worst membership attack with its intervals, the epsilon lower bound, the chance
level, the self-test (TPR at 1% FPR after planting; * = detected) and the worst singling-out,
linkability and inference risk with its interval; and the time of each section.

Run: python benchmarks/bench_attacks_lahman.py   (needs ../shared/datasets; about 5 minutes on 2 cores)
"""

from __future__ import annotations

import os
import time

from bench_lahman import LAHMAN, MODELLED, train_and_holdout

from reportgen.data.io import load_folder
from reportgen.metrics.membership import compute_membership_section
from reportgen.metrics.privacy_risks import compute_privacy_risks_section
from reportgen.preparation import prepare_context
from reportgen.settings import ReportSettings

GENERATORS = ("hma", "leaky_entities")


def main() -> None:
    print(f"cores usable: {len(os.sched_getaffinity(0))}, load average: {os.getloadavg()[0]:.1f}")
    train, holdout = train_and_holdout()
    train, holdout = train.restricted(MODELLED), holdout.restricted(MODELLED)
    for generator in GENERATORS:
        synth = load_folder(LAHMAN / "synthetic" / generator, train.schema.subset(MODELLED))
        ctx = prepare_context(train, holdout, synth, ReportSettings())
        start = time.perf_counter()
        views = ctx.distance_views()
        prepared = time.perf_counter() - start
        start = time.perf_counter()
        membership = compute_membership_section(ctx)
        mia_seconds = time.perf_counter() - start
        start = time.perf_counter()
        risks = compute_privacy_risks_section(ctx)
        risk_seconds = time.perf_counter() - start
        print(
            f"\n== {generator}: distance spaces of {len(views)} views {prepared:.1f} s, membership "
            f"{mia_seconds:.1f} s, singling out/linkability/inference {risk_seconds:.1f} s"
        )
        for view in membership.tables:
            stats = view.stats
            worst, chance = stats.worst, stats.self_test.chance
            rate = max((a.at(0.01) for a in stats.attacks), key=lambda r: r.tpr)
            plants = "  ".join(
                f"{p.kind[:3]} {p.share:.1%}: {p.tpr_at_1pct_fpr:.2%}{'*' if p.detected else ''}"
                for p in stats.self_test.plants
            )
            print(
                f"   {view.table:<20} {worst.attack:<13} AUC {worst.auc:.3f} "
                f"({worst.auc_interval[0]:.3f}-{worst.auc_interval[1]:.3f})  TPR@1%FPR {rate.tpr:.2%} "
                f"({rate.tpr_interval[0]:.2%}-{rate.tpr_interval[1]:.2%})  eps {worst.epsilon_lower:.2f}  "
                f"chance {chance.auc:.3f}/{chance.tpr_at_1pct_fpr:.2%}"
            )
            print(f"   {'':<20} self-test {plants}")
        for name, reason in membership.skipped.items():
            print(f"   {name:<20} membership not run: {reason}")
        for view in risks.tables:
            cells = []
            for attack in ("singling_out", "linkability", "inference"):
                worst_risk = view.worst(attack)
                if worst_risk is not None:
                    low, high = worst_risk.risk_interval
                    risk = f"{worst_risk.risk:.3f} ({low:.3f}-{high:.3f})"
                    cells.append(f"{attack} {risk} [{worst_risk.detail}]")
            print(f"   {view.table:<20} " + "; ".join(cells))


if __name__ == "__main__":
    main()
