"""How often an honest generator makes privacy a concern through the attacks: the false-alarm rate.

For each of ``--splits`` random splits of a public single table into three disjoint parts of equal
size (training, holdout, a third real sample), two synthetic sets are judged, as ``report()``
judges them: the membership attacks and singling out, linkability and inference run on
``(training, holdout, synthetic)`` through the report's own section code with the report's
defaults (seed = the split's number), and page 1's rule (``reportgen.verdict.attack_alarms``)
says whether the attacks make privacy a concern (an alarm; the privacy score's bar and the
findings, which rest on distances, are not counted). The synthetic sets:

- ``copula``: a Gaussian copula fitted on the training part (written below: categories at their
  shares, numbers by a smoothed bootstrap, so that it copies no rare value), as many rows as the
  training part;
- ``real``: the third real part, a perfect honest generator (rows from the same population that
  the training rows did not produce): any alarm it raises is a false alarm.

The datasets: ``adult`` (adult_train.csv and adult_test.csv pooled, 48,842 rows) and
``bank_marketing`` (bank_full.csv, 45,211 rows), from ../shared/datasets. The table gives, per
dataset and generator, the share of splits with an alarm and its exact (Clopper-Pearson) 95%
interval, now and, with ``--old``, under the rule before the report-wide correction (each risk
interval corrected within its table only, each epsilon bound at two one-sided 95% bounds), and
which headline raised the alarms. ``--out`` keeps every split's record (JSON lines).

Run (the full study: 20 splits of each dataset, all rows, about 16,000 a part; one split of both
datasets, both generators and --old, took about a minute of one core here):
    python benchmarks/bench_false_alarms.py --splits 20 --jobs 16 --old --out false_alarms.jsonl
A small check: python benchmarks/bench_false_alarms.py --splits 3 --rows 3000 --old
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import time
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from adult import ADULT, DATASETS, read  # benchmarks/adult.py
from scipy.stats import norm

from reportgen.context import EvaluationContext
from reportgen.headlines import headlines
from reportgen.metrics.membership import MembershipResult, compute_membership_section
from reportgen.metrics.privacy_risks import PrivacyRisksResult, compute_privacy_risks_section
from reportgen.preparation import prepared
from reportgen.privacy.distance_space import EmbeddedRows
from reportgen.privacy.intervals import clopper_pearson
from reportgen.privacy.membership import (
    ATTACKS,
    attack_scores,
    draw_targets,
    search_neighbours,
    split_epsilon,
    stratified_halves,
)
from reportgen.privacy.risks import risk_interval
from reportgen.results import ReportResults, RunInfo
from reportgen.settings import ReportSettings
from reportgen.verdict import attack_alarms

DATASET_NAMES = ("adult", "bank_marketing")
GENERATORS = ("copula", "real")
MAX_CATEGORIES = 20  # as the report's default: integer columns with more distinct values are numbers
ATOM = 0.01  # a number held by at least this share of the rows is drawn as it is (not smoothed)
OLD_EPSILON_CONFIDENCE = 0.95  # each one-sided Clopper-Pearson bound before the correction


def load(name: str) -> pd.DataFrame:
    """One of the two public tables, as the shared datasets' CSV convention reads it."""
    if name == "adult":
        parts = [read(ADULT / "adult_train.csv"), read(ADULT / "adult_test.csv")]
        return pd.concat(parts, ignore_index=True)
    if name == "bank_marketing":
        return read(DATASETS / "bank_marketing" / "bank_full.csv")
    raise SystemExit(f"unknown dataset {name!r}: choose from {', '.join(DATASET_NAMES)}")


def three_parts(frame: pd.DataFrame, seed: int, rows: int | None) -> list[pd.DataFrame]:
    """Training, holdout and a third real sample: disjoint, random, equal sizes (at most ``rows``)."""
    order = np.random.default_rng(seed).permutation(len(frame))
    size = len(frame) // 3 if rows is None else min(rows, len(frame) // 3)
    return [frame.iloc[order[i * size : (i + 1) * size]].reset_index(drop=True) for i in range(3)]


# --- an honest generator ------------------------------------------------------------------------


@dataclass
class Marginal:
    """One column's distribution: the share of missing values, then its values.

    Categories: the levels and their shares, most frequent first. Numbers: a smoothed bootstrap of
    the observed values, as a kernel density estimate draws: the value at the copula's quantile,
    kept as it is when it is an atom (a value held by at least ``ATOM`` of the rows, such as a 0
    or a -1 that means "never"), otherwise moved by Gaussian noise of Silverman's bandwidth (of
    the other values), kept within the observed range and rounded for integers. Without the noise
    a copula reproduces every rare training value exactly, and the singling-out attack rightly
    finds the training rows that hold them: a leak, not a false alarm.
    """

    missing: float
    numeric: bool
    values: np.ndarray
    shares: np.ndarray = field(default_factory=lambda: np.zeros(0))
    atoms: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    bandwidth: float = 0.0
    integer: bool = False

    @classmethod
    def fit(cls, column: pd.Series) -> Marginal:
        present = column.dropna()
        missing = 1 - len(present) / len(column)
        if pd.api.types.is_numeric_dtype(column) and present.nunique() > MAX_CATEGORIES:
            return cls._numbers(missing, np.sort(present.to_numpy(np.float64)))
        counts = present.astype(str).value_counts(sort=False)
        counts = counts.sort_index(kind="stable").sort_values(ascending=False, kind="stable")
        by_label = {str(v): v for v in present.unique()}
        levels = np.array([by_label[label] for label in counts.index], dtype=object)
        return cls(missing, False, levels, counts.to_numpy(np.float64) / len(present))

    @classmethod
    def _numbers(cls, missing: float, values: np.ndarray) -> Marginal:
        distinct, counts = np.unique(values, return_counts=True)
        atoms = np.isin(values, distinct[counts >= ATOM * len(values)])
        spread = values[~atoms]
        bandwidth = 0.0
        if len(spread) > 1:
            q1, q3 = np.percentile(spread, [25, 75])
            scale = min(spread.std(), (q3 - q1) / 1.34) if q3 > q1 else spread.std()
            bandwidth = 0.9 * scale * len(spread) ** -0.2
        integer = bool(np.all(values == np.round(values)))
        return cls(missing, True, values, atoms=atoms, bandwidth=bandwidth, integer=integer)

    def to_uniform(self, column: pd.Series, rng: np.random.Generator) -> np.ndarray:
        """Each value's place in (0, 1): missing below ``missing``, then the values in order."""
        u = rng.uniform(0, self.missing, len(column))
        present = column.notna().to_numpy()
        if self.numeric:
            ranks = column[present].rank(method="average").to_numpy()
            inside = (ranks - 0.5) / present.sum()
        else:
            edges = np.r_[0, np.cumsum(self.shares)]
            index = {str(v): i for i, v in enumerate(self.values)}
            level = column[present].astype(str).map(index).to_numpy(np.int64)
            inside = edges[level] + rng.uniform(size=len(level)) * self.shares[level]
        u[present] = self.missing + (1 - self.missing) * inside
        return u

    def from_uniform(self, u: np.ndarray, rng: np.random.Generator) -> pd.Series:
        """Values at places ``u`` in (0, 1) (the inverse of ``to_uniform``), numbers smoothed."""
        missing = u < self.missing
        v = np.clip((u - self.missing) / max(1 - self.missing, 1e-12), 0, 1)
        if not self.numeric:
            level = np.minimum(np.searchsorted(np.cumsum(self.shares), v, side="right"), len(self.values) - 1)
            return pd.Series(np.where(missing, None, self.values[level]), dtype=object)
        at = np.round(v * (len(self.values) - 1)).astype(np.int64)
        noise = np.where(self.atoms[at], 0.0, self.bandwidth * rng.standard_normal(len(at)))
        x = np.clip(self.values[at] + noise, self.values[0], self.values[-1])
        x = np.round(x) if self.integer else x
        out = pd.Series(np.where(missing, np.nan, x))
        return out if missing.any() or not self.integer else out.astype(np.int64)


@dataclass
class GaussianCopula:
    """Each column's marginal, tied together by the correlation of the normal scores."""

    columns: list[str]
    marginals: list[Marginal]
    correlation: np.ndarray

    @classmethod
    def fit(cls, frame: pd.DataFrame, rng: np.random.Generator) -> GaussianCopula:
        marginals = [Marginal.fit(frame[c]) for c in frame.columns]
        uniforms = [m.to_uniform(frame[c], rng) for m, c in zip(marginals, frame.columns, strict=True)]
        scores = norm.ppf(np.clip(np.column_stack(uniforms), 1e-9, 1 - 1e-9))
        return cls(list(frame.columns), marginals, _nearest_correlation(np.corrcoef(scores.T)))

    def sample(self, n: int, rng: np.random.Generator) -> pd.DataFrame:
        scores = rng.multivariate_normal(np.zeros(len(self.columns)), self.correlation, n, method="cholesky")
        u = norm.cdf(scores)
        pairs = enumerate(zip(self.columns, self.marginals, strict=True))
        return pd.DataFrame({c: m.from_uniform(u[:, j], rng) for j, (c, m) in pairs})


def _nearest_correlation(matrix: np.ndarray) -> np.ndarray:
    """The matrix with eigenvalues of at least 1e-6, rescaled to a unit diagonal (positive definite)."""
    values, vectors = np.linalg.eigh(np.nan_to_num(matrix))
    fixed = vectors @ np.diag(np.maximum(values, 1e-6)) @ vectors.T
    scale = np.sqrt(np.diag(fixed))
    return fixed / np.outer(scale, scale)


# --- the report's attacks and its rule -----------------------------------------------------------


def attack_results(ctx: EvaluationContext, settings: ReportSettings) -> ReportResults:
    """Results holding the two attack sections, computed by the report's own section code."""
    run = RunInfo(
        title="false alarms",
        reportgen_version="bench",
        created_at="2025-01-01T00:00:00+00:00",
        seed=settings.seed,
        settings=ctx.settings.to_dict(),
        versions={},
        has_holdout=True,
    )
    sections = {
        "membership": compute_membership_section(ctx),
        "privacy_risks": compute_privacy_risks_section(ctx),
    }
    return ReportResults(run=run, sections=sections)


def old_rule(results: ReportResults, ctx: EvaluationContext) -> ReportResults:
    """The same results judged as before the report-wide correction.

    Each headline risk's interval at its own table-level confidence; the epsilon bounds again with
    one-sided 95% Clopper-Pearson bounds, on the same targets, halves and scores as the report's.
    """
    risks: PrivacyRisksResult = results.sections["privacy_risks"]
    membership: MembershipResult = results.sections["membership"]
    update = {}
    for attack in ("singling_out", "linkability", "inference"):
        headline = getattr(risks, attack)
        if headline is not None:
            result = next(
                r
                for view in risks.tables
                if view.table == headline.table
                for r in view.results()
                if r.attack == attack and r.detail == headline.detail
            )
            interval = risk_interval(result.members, result.controls, result.confidence)
            update[attack] = headline.model_copy(update={"risk_interval": interval})
    views = ctx.distance_views()
    epsilon = max(_old_epsilon(ctx, view.table, views[view.table].rows) for view in membership.tables)
    old_membership = membership.model_copy(
        update={"epsilon_lower": membership.epsilon_lower.model_copy(update={"value": epsilon})}
    )
    sections = {"membership": old_membership, "privacy_risks": risks.model_copy(update=update)}
    return results.model_copy(update={"sections": sections})


def _old_epsilon(ctx: EvaluationContext, name: str, rows: EmbeddedRows) -> float:
    """The largest epsilon bound of one view's three attacks at the old level (the report's streams)."""
    targets = draw_targets(rows, ctx.rng(f"membership-targets:{name}"), ctx.settings.mia_max_targets)
    scores = attack_scores(search_neighbours(targets, rows.synth))
    halves = stratified_halves(targets, ctx.rng(f"membership-epsilon:{name}"))
    return max(
        split_epsilon(scores[a], targets.is_member, halves, OLD_EPSILON_CONFIDENCE)[0] for a in ATTACKS
    )


def judged(train: pd.DataFrame, test: pd.DataFrame, synth: pd.DataFrame, seed: int, old: bool) -> dict:
    """The attack headlines that raise a privacy concern, now and (``old``) under the old rule."""
    settings = ReportSettings(seed=seed)
    with prepared(train, test, synth, settings) as ctx:
        results = attack_results(ctx, settings)
        before = old_rule(results, ctx) if old else None
    found = headlines(results)
    record = {
        "alarms": [h.name for h in attack_alarms(found)],
        "values": {name: h.value for name, h in found.items()},
        "lower": {name: h.interval[0] for name, h in found.items() if h.interval is not None},
        "intervals": results.sections["privacy_risks"].intervals,
    }
    if before is not None:
        old_found = headlines(before)
        record["old_alarms"] = [h.name for h in attack_alarms(old_found)]
        record["old_lower"] = {name: h.interval[0] for name, h in old_found.items() if h.interval is not None}
        record["old_epsilon"] = old_found["epsilon_lower"].value
    return record


def one_split(dataset: str, split: int, rows: int | None, old: bool) -> list[dict]:
    """Every generator on one split of one dataset."""
    train, test, third = three_parts(_table(dataset), split, rows)
    rng = np.random.default_rng([split, 1])
    synthetic = {
        "copula": lambda: GaussianCopula.fit(train, rng).sample(len(train), rng),
        "real": lambda: third,
    }
    records = []
    for generator in GENERATORS:
        start = time.perf_counter()
        record = judged(train, test, synthetic[generator](), split, old)
        seconds = round(time.perf_counter() - start, 1)
        records.append(
            {"dataset": dataset, "split": split, "generator": generator, "rows": len(train)} | record
        )
        records[-1]["seconds"] = seconds
        print(
            f"  {dataset} split {split} {generator}: alarms {record['alarms'] or 'none'} ({seconds} s)",
            flush=True,
        )
    return records


_TABLES: dict[str, pd.DataFrame] = {}


def _table(name: str) -> pd.DataFrame:
    if name not in _TABLES:
        _TABLES[name] = load(name)
    return _TABLES[name]


# --- running and the table -----------------------------------------------------------------------


def _pin(counter) -> None:
    """A worker on one core of its own (round robin), so that jobs do not compete for threads."""
    import torch

    with counter.get_lock():
        slot = counter.value
        counter.value += 1
    cores = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cores[slot % len(cores)]})
    torch.set_num_threads(1)


def run_all(tasks: list[tuple[str, int]], rows: int | None, old: bool, jobs: int) -> list[dict]:
    if jobs <= 1:
        return [r for dataset, split in tasks for r in one_split(dataset, split, rows, old)]
    counter = multiprocessing.Value("i", 0)
    with ProcessPoolExecutor(jobs, initializer=_pin, initargs=(counter,)) as pool:
        futures = [pool.submit(one_split, dataset, split, rows, old) for dataset, split in tasks]
        return [r for f in futures for r in f.result()]


def rate(hits: int, n: int) -> str:
    low, high = clopper_pearson(hits, n)
    return f"{hits:>2}/{n:<3} {hits / n:6.1%} [{float(low):5.1%}, {float(high):5.1%}]"


def summary(records: Iterable[dict], old: bool) -> str:
    """Per dataset and generator: the false-alarm rate with its exact 95% interval, and what raised it."""
    groups: dict[tuple[str, str], list[dict]] = {}
    for r in records:
        groups.setdefault((r["dataset"], r["generator"]), []).append(r)
    head = f"{'dataset':<15} {'generator':<9} {'rows':>6} {'M':>3} {'alarm rate now (95% CI)':<28}"
    head += f" {'before the correction (95% CI)':<28} raised by (now; before)" if old else " raised by"
    lines = [head]
    for (dataset, generator), group in groups.items():
        n = len(group)
        now = Counter(name for r in group for name in r["alarms"])
        line = (
            f"{dataset:<15} {generator:<9} {group[0]['rows']:>6} {group[0]['intervals']:>3} "
            f"{rate(sum(bool(r['alarms']) for r in group), n):<28}"
        )
        raised = ", ".join(f"{k} {v}" for k, v in now.most_common()) or "-"
        if old:
            before = Counter(name for r in group for name in r["old_alarms"])
            line += f" {rate(sum(bool(r['old_alarms']) for r in group), n):<28}"
            raised += "; " + (", ".join(f"{k} {v}" for k, v in before.most_common()) or "-")
        lines.append(f"{line} {raised}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--splits", type=int, default=20, help="random splits per dataset (default 20)")
    parser.add_argument("--datasets", default=",".join(DATASET_NAMES), help="comma-separated (default: both)")
    parser.add_argument(
        "--rows", type=int, default=None, help="rows per part at most (default: a third each)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="splits run at once, one core each (default 1)")
    parser.add_argument("--old", action="store_true", help="also judge by the rule before the correction")
    parser.add_argument("--first", type=int, default=0, help="number of the first split (default 0)")
    parser.add_argument("--out", default=None, help="write every split's record here (JSON lines)")
    args = parser.parse_args()
    datasets = [d.strip() for d in args.datasets.split(",") if d.strip()]
    for name in datasets:
        if name not in DATASET_NAMES:
            parser.error(f"unknown dataset {name!r}: choose from {', '.join(DATASET_NAMES)}")
    tasks = [(d, s) for d in datasets for s in range(args.first, args.first + args.splits)]
    start = time.perf_counter()
    records = run_all(tasks, args.rows, args.old, args.jobs)
    if args.out:
        with open(args.out, "w") as out:
            out.writelines(json.dumps(r) + "\n" for r in records)
    seconds = time.perf_counter() - start
    print(f"\n{len(tasks)} splits in {seconds:.0f} s; an alarm: the attacks make privacy a concern")
    print(summary(records, args.old))


if __name__ == "__main__":
    main()
