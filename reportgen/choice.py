"""Choosing among candidate synthetic datasets: the comparison's results and the rule that ranks them.

``reportgen.compare_candidates`` judges each candidate as ``report()`` would (its own results, bars
and verdicts) and this module ranks them by one declared rule (``RULE``):

1. A candidate can be recommended only if it passes every release bar in force and its privacy
   verdict is "pass". A failed privacy bar makes the privacy verdict "fail", so a candidate that
   fails a privacy bar, leaks training rows, or whose privacy could not be evaluated (no holdout)
   is never recommended, however good its other numbers.
2. Among those, fewer fidelity and utility concerns come first; then fewer headlines that their
   section's rule marks clearly worse than the reference; then the better mean rank over the
   headlines every such candidate has (each headline ranks the candidates in its own direction,
   and those judged by closeness to the reference by their distance to it; ties share the best
   rank); then the order the candidates were given in.

No candidate is recommended when none can be; ``why`` says so and why each was left out.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, Field
from scipy.stats import rankdata

from reportgen.results import Headline, ReportResults

RULE = (
    "A candidate can be recommended only if it passes every release bar in force and its privacy "
    "verdict is pass (a failed privacy bar, copies of training rows or privacy not evaluated rule it "
    "out). Among those: fewest fidelity and utility concerns, then fewest headlines clearly worse than "
    "their reference, then the best mean rank over the headlines they share (each ranked in its own "
    "direction), then the order given."
)


class Candidate(BaseModel):
    """One candidate: its results as its own ``report()`` gives them, and where it stands."""

    name: str
    results: ReportResults = Field(description="Exactly what report() gives for this candidate alone.")
    rank: int | None = Field(default=None, description="1 = recommended; None: cannot be recommended.")
    excluded: str | None = Field(default=None, description="Why it cannot be recommended (None: it can).")
    mean_rank: float | None = Field(default=None, description="Mean rank over the shared headlines.")
    report: str | None = Field(default=None, description="Its own report's path, where one was written.")

    @property
    def concerns(self) -> int:
        """Fidelity and utility verdicts that are not a pass."""
        return sum(v.status != "pass" for v in self.results.verdicts if v.concern != "privacy")

    @property
    def worse(self) -> int:
        """Headlines that their section's rule marks clearly worse than their reference."""
        return sum(h.worse for h in self.results.headlines.values())


class CandidateComparison(BaseModel):
    """Every candidate's results and the recommendation, as ``compare_candidates`` writes them."""

    title: str
    created_at: str
    seed: int
    rule: str = RULE
    recommended: str | None = Field(description="The candidate the rule recommends; None: none can be.")
    why: str = Field(description="Why, in words.")
    candidates: list[Candidate] = Field(description="In the order given.")
    reused: int = Field(
        default=0, description="Real-side results computed once and reused for the later candidates."
    )

    def candidate(self, name: str) -> Candidate:
        return next(c for c in self.candidates if c.name == name)

    def headline_names(self) -> list[str]:
        """Every headline any candidate has, in page order (the first candidate's order first)."""
        names: list[str] = []
        for c in self.candidates:
            names += [n for n in c.results.headlines if n not in names]
        return names

    def to_json(self) -> str:
        """The comparison as JSON text (stable key order)."""
        return json.dumps(self.model_dump(mode="json"), indent=2, sort_keys=True, allow_nan=False)

    @classmethod
    def load(cls, path: str | Path) -> CandidateComparison:
        return cls.model_validate_json(Path(path).read_text(encoding="utf-8"))


def ranked(candidates: list[Candidate]) -> tuple[str | None, str]:
    """Rank ``candidates`` in place by ``RULE``; return the recommended one's name and why."""
    for c in candidates:
        c.excluded = exclusion(c.results)
    eligible = [c for c in candidates if c.excluded is None]
    means = mean_ranks([c.results for c in eligible])
    for c, mean in zip(eligible, means, strict=True):
        c.mean_rank = mean
    order = sorted(eligible, key=lambda c: (c.concerns, c.worse, c.mean_rank))  # stable: the order given
    for position, c in enumerate(order, start=1):
        c.rank = position
    if not order:
        reasons = "; ".join(f"{c.name}: {c.excluded}" for c in candidates)
        return None, f"No candidate can be recommended: {reasons}."
    best = order[0]
    return best.name, _why(best, order, len(candidates))


def exclusion(results: ReportResults) -> str | None:
    """Why a candidate cannot be recommended (a failed bar, privacy not a pass), or None."""
    failed = results.gates.failed
    if failed:
        return (
            "fails the release bar" + ("s " if len(failed) > 1 else " ") + ", ".join(g.label for g in failed)
        )
    privacy = next((v for v in results.verdicts if v.concern == "privacy"), None)
    if privacy is None:
        return "its privacy was not judged"
    if privacy.status != "pass":
        return f"its privacy verdict is {privacy.status.replace('_', ' ')}: {privacy.why}"
    return None


def mean_ranks(results: list[ReportResults]) -> list[float]:
    """Each candidate's mean rank (1 = best) over the headlines that all of them have."""
    if not results:
        return []
    shared = [n for n in results[0].headlines if all(n in r.headlines for r in results)]
    if not shared:
        return [1.0] * len(results)
    ranks = [rankdata([badness(r.headlines[n]) for r in results], method="min") for n in shared]
    return [float(sum(column[i] for column in ranks) / len(shared)) for i in range(len(results))]


def badness(headline: Headline) -> float:
    """Smaller is better: the value in the headline's direction, or its distance to its reference."""
    if headline.closer_to_reference:
        return abs(headline.value - headline.reference) if headline.reference is not None else 0.0
    return -headline.value if headline.higher_is_better else headline.value


def _why(best: Candidate, order: list[Candidate], n_given: int) -> str:
    """The recommendation in words: how many could be, and what put this one first."""
    pool = (
        "the only candidate that passes every release bar with a privacy pass"
        if len(order) == 1
        else f"one of the {len(order)} of {n_given} candidates that pass every release bar and privacy"
    )
    detail = (
        f"it has {_count(best.concerns, 'fidelity or utility concern')}, "
        f"{_count(best.worse, 'headline')} clearly worse than the reference, and a mean rank of "
        f"{best.mean_rank:.1f} over the shared headlines"
    )
    if len(order) > 1:
        detail += f" (next: {order[1].name}, {order[1].mean_rank:.1f})"
    return f"{best.name} is {pool}; {detail}."


def _count(n: int, noun: str) -> str:
    return f"{'no' if n == 0 else n} {noun}{'' if n == 1 else 's'}"
