"""Membership attacks on UCI Adult: per generator, the worst attack with its intervals, the epsilon
bound, the self-test table and the time of each part.

Parts, timed on the 'table' view (the distance-space embedding is shared with the other privacy
sections and timed apart): the targets and the two exact searches; the evaluation of the three
attacks (ROC, AUC, rates, epsilon); the chance level (200 relabellings); the self-test (6 plants).
Then the whole section as the report runs it, from the embedded rows: wall time, and CPU time
(both cores together; on a machine shared with other work, CPU / 2 is what an idle machine takes).

Run: PYTHONPATH=. python benchmarks/bench_membership.py   (needs ../shared/datasets; PYTHONPATH
makes a worktree's reportgen win over an editable install elsewhere)

Figures on the 2-core development machine while other work kept its load average near 5 (so the
wall times are about 1.5x what an idle machine takes; the CPU column is the work itself). 5,000
targets per side, 11,281 reference rows, k_S = 14:

    generator       attack           AUC (95% CI)    TPR@1%FPR (95% CI)  eps chance AUC/TPR  wall   cpu
    gaussian_copula dcr       0.498 (0.487-0.509)    1.02% (0.76-1.34%) 0.00    0.512/1.48% 6.0 s 4.0 s
    ctgan           dcr       0.495 (0.483-0.506)    1.20% (0.92-1.54%) 0.00    0.511/1.46% 5.2 s 3.4 s
    tvae            dcr_ratio 0.508 (0.496-0.519)    1.48% (1.16-1.85%) 0.00    0.512/1.50% 6.2 s 3.9 s
    leaky           dcr       0.754 (0.744-0.764) 51.06% (49.66-52.45%) 5.25    0.511/1.40% 5.3 s 3.5 s
    marginals       dcr       0.503 (0.492-0.515)    1.32% (1.02-1.68%) 0.00    0.512/1.44% 5.5 s 3.6 s

Of the parts, the two searches take 4-7 s of wall time at that load, the self-test 1-2 s (one search
of the targets into the planted rows), the attack evaluation and the chance level 0.1-0.3 s each.
Every plant of the self-test (25, 50 and 250 planted targets for 0.5%, 1% and 5%) is detected on
every generator: a 0.5% plant lifts TPR at 1% FPR to 1.5-2.0% against a chance level of 1.4-1.5%.
"""

from __future__ import annotations

import os
import time

import numpy as np
from adult import ADULT, GENERATORS, read  # benchmarks/adult.py

from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.metrics.membership import compute_membership_section
from reportgen.preparation import prepare_context
from reportgen.privacy import membership as mia
from reportgen.settings import ReportSettings


def parts(rows, name, ctx) -> dict[str, float]:
    """The section's steps for one view, one by one, with their times (same streams as the report)."""

    def stream(part: str) -> np.random.Generator:
        return ctx.rng(f"membership-{part}:{name}")

    times = {}
    start = time.perf_counter()
    targets = mia.draw_targets(rows, stream("targets"), ctx.settings.mia_max_targets)
    neighbours = mia.search_neighbours(targets, rows.synth)
    times["searches"] = time.perf_counter() - start
    start = time.perf_counter()
    scores = mia.attack_scores(neighbours)
    halves = mia.stratified_halves(targets, stream("epsilon"))
    for attack in mia.ATTACKS:
        mia.evaluate_attack(attack, scores[attack], targets.is_member, halves)
    times["attacks"] = time.perf_counter() - start
    start = time.perf_counter()
    chance = mia.chance_levels(scores, targets.is_member, stream("chance"))
    times["chance"] = time.perf_counter() - start
    start = time.perf_counter()
    mia.self_test_plants(targets, neighbours, rows, chance, stream("plants"))
    times["self-test"] = time.perf_counter() - start
    return times


def main() -> None:
    train, test = read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")
    print(f"cores usable: {len(os.sched_getaffinity(0))}, load average: {os.getloadavg()[0]:.1f}")
    print(
        f"{'generator':<16} {'attack':<13} {'AUC (95% CI)':>21} {'TPR@1%FPR (95% CI)':>25} {'eps':>5} "
        f"{'chance AUC/TPR':>15} | {'embed':>5} {'search':>6} {'attacks':>7} {'chance':>6} {'self':>5} "
        f"{'section':>7} {'cpu':>5}"
    )
    plants = {}
    for generator in GENERATORS:
        synth = read(ADULT / "synthetic" / generator / "adult_train.csv.gz")
        ctx = prepare_context(train, test, synth, ReportSettings())
        start = time.perf_counter()
        name, view = next(iter(ctx.distance_views().items()))
        prep = ctx.table(name)
        for role in (TRAIN, TEST, SYNTH):
            prep.embedded(role)
        embed = time.perf_counter() - start
        times = parts(view.rows, name, ctx)
        start, cpu = time.perf_counter(), time.process_time()
        result = compute_membership_section(ctx)
        section, cpu = time.perf_counter() - start, time.process_time() - cpu
        stats = result.tables[0].stats
        worst, chance = stats.worst, stats.self_test.chance
        rate = max((a.at(0.01) for a in stats.attacks), key=lambda r: r.tpr)
        print(
            f"{generator:<16} {worst.attack:<13} "
            f"{f'{worst.auc:.3f} ({worst.auc_interval[0]:.3f}-{worst.auc_interval[1]:.3f})':>21} "
            f"{f'{rate.tpr:.2%} ({rate.tpr_interval[0]:.2%}-{rate.tpr_interval[1]:.2%})':>25} "
            f"{result.epsilon_lower.value:5.2f} {f'{chance.auc:.3f}/{chance.tpr_at_1pct_fpr:.2%}':>15} | "
            f"{embed:5.2f} {times['searches']:6.2f} {times['attacks']:7.2f} {times['chance']:6.2f} "
            f"{times['self-test']:5.2f} {section:7.2f} {cpu:5.1f}"
        )
        plants[generator] = stats.self_test.plants
    print("\nself-test: TPR at 1% FPR after planting (planted targets; * = above the chance level)")
    first = next(iter(plants.values()))
    header = "  ".join(f"{p.kind[:3]} {p.share:.1%}".rjust(17) for p in first)
    print(f"{'generator':<16} {header}")
    for generator, rows in plants.items():
        cells = "  ".join(
            f"{p.tpr_at_1pct_fpr:6.2%} ({p.planted:>3}){'*' if p.detected else ' '}".rjust(17) for p in rows
        )
        print(f"{generator:<16} {cells}")


if __name__ == "__main__":
    main()
