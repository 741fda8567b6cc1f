"""Checks every registered section must pass, driven by the registry (as scikit-learn's common tests).

On tables drawn by ``tests.strategies`` (one of each column kind with missing values, a target, and
a parent/child pair with keys), each section is computed as ``report()`` computes it, without
writing a document, on:

- a **copy** of the training data as the synthetic data: fidelity at its best, privacy a leak;
- the **holdout** as the synthetic data (real rows the generator never saw): every number sits on
  its reference (the same measure between training and holdout rows), and no attack raises an alarm;
- the holdout inputs **again** with the same seed, and with the rows of all three inputs
  **shuffled**: the same results, field for field;
- inputs that **lack** what a section needs (no holdout, no target, one table, a handful of rows):
  the section stops with a reason that names what is missing, and the report goes on.

Each input is computed once per drawn case (module fixtures) and every check reads it. A section
added to the registry, built-in or plugin, is checked without a line here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from reportgen.catalogue import sections
from reportgen.data.schema import Schema
from reportgen.evaluation import evaluate
from reportgen.gates import bars_in_force, evaluate_gates
from reportgen.headlines import Headline, headlines, specs
from reportgen.preparation import prepare_context
from reportgen.results import ReportResults
from reportgen.rules import SCORE_MARGIN, SHARE_MARGIN
from reportgen.settings import ReportSettings
from reportgen.verdict import attack_alarms, verdicts
from tests.strategies import Generated, Recipe, examples, recipes

# Every run of this module is computed once, in one worker (pyproject.toml: --dist loadgroup).
pytestmark = pytest.mark.xdist_group("common_sections")

SECTIONS = [s.name for s in sections()]
# The simplest single table drawn (the first draw is Hypothesis's simplest), and a random draw of a
# parent table with a child table: two cases keep the module near a minute on two cores.
CASES = [*examples(recipes(child=False), 1), examples(recipes(child=True, min_rows=150, max_rows=200), 2)[-1]]
TINY = examples(recipes(min_rows=10, max_rows=14, child=False), 1)[0]
# A copy makes the two compared samples identical: a measure of their difference is zero and its
# score exactly 100 (detection too: twins share a fold, so the classifier ties them). Only the
# quantile steps of alpha-precision's curve on n rows move it, by at most 200 / n points: under 1.5
# on the 150 rows or more drawn here.
COPY_TOLERANCE = {"score": 1.5, "share": 1e-9}
# A copy is not the best value of every number whose best is its reference: each real row is
# recalled by its own twin, so a copy's beta-recall curve lies above the diagonal (more coverage
# than a fresh sample), which the integrated score penalises as it penalises too little.
NOT_BEST_FOR_A_COPY = {"beta_recall"}


@dataclass(frozen=True)
class Runs:
    """One drawn case's results: a copy, the holdout, the holdout again, and shuffled."""

    recipe: Recipe
    copy: ReportResults
    holdout: ReportResults
    again: ReportResults
    shuffled: ReportResults


def judged(
    generated: Generated, synth: dict[str, pd.DataFrame], *, test: bool = True, schema: Schema | None = None
) -> ReportResults:
    """The results ``report()`` gives (gates and verdicts included), computed without a document.

    ``test=False``: without the holdout; ``schema``: in place of the generated data's.
    """
    context = prepare_context(
        generated.train,
        generated.test if test else None,
        synth,
        ReportSettings(),
        schema=schema or generated.schema,
    )
    results = evaluate(context, title="common checks")
    results.gates = evaluate_gates(results, bars_in_force(None))
    results.verdicts = verdicts(results)
    return results


def shuffled(tables: dict[str, pd.DataFrame], seed: int) -> dict[str, pd.DataFrame]:
    """Every table's rows in a random order, as another reading of the same data would give them."""
    rng = np.random.default_rng(seed)
    return {
        name: frame.iloc[rng.permutation(len(frame))].reset_index(drop=True) for name, frame in tables.items()
    }


@pytest.fixture(scope="module")
def runs() -> list[Runs]:
    found = []
    for recipe in CASES:
        g = recipe.generated()
        found.append(
            Runs(
                recipe,
                copy=judged(g, g.train),
                holdout=judged(g, g.test),
                again=judged(g, g.test),
                shuffled=judged(
                    Generated(shuffled(g.train, 1), shuffled(g.test, 2), g.schema, g.targets),
                    shuffled(g.test, 3),
                ),
            )
        )
    return found


@dataclass(frozen=True)
class Lacking:
    """A run on inputs that lack something, the complete run it is compared with, and the words a
    reason may name it by."""

    what: str
    results: ReportResults
    complete: ReportResults
    named_by: tuple[str, ...]


@pytest.fixture(scope="module")
def lacking(runs: list[Runs]) -> list[Lacking]:
    """Inputs without a holdout, without a target, of one table, and of a handful of rows.

    Without a holdout the reference split sets part of the training rows aside, and on a handful of
    rows a weak association falls within phik's noise level: a reason that says so names the cause.
    """
    single, parent_child = runs[0], runs[-1]
    g = single.recipe.generated()
    tiny = TINY.generated()
    return [
        Lacking("no holdout", judged(g, g.test, test=False), single.holdout, ("holdout", "noise level")),
        Lacking(
            "no target",
            judged(g, g.test, schema=single.recipe.schema(target=False)),
            single.holdout,
            ("target",),
        ),
        Lacking("one table", single.holdout, parent_child.holdout, ("foreign key",)),
        Lacking("a handful of rows", judged(tiny, tiny.test), single.holdout, ("rows", "noise level")),
    ]


def section_headlines(results: ReportResults, section: str) -> dict[str, Headline]:
    """The page-1 headlines that ``section`` declares, as page 1 shows them."""
    declared = next(s for s in sections() if s.name == section).headlines
    return {spec.name: h for spec in declared if (h := results.headlines.get(spec.name)) is not None}


def bounds(h: Headline) -> tuple[float, float]:
    """The range a headline's value and reference may take, as its section declares it."""
    spec = specs()[h.name]
    return spec.low, spec.upper


def best(h: Headline) -> float:
    low, high = bounds(h)
    return high if h.higher_is_better else low


def worse(a: float, b: float, h: Headline) -> bool:
    """Whether ``a`` is worse than ``b`` in ``h``'s direction."""
    return a < b if h.higher_is_better else a > b


def judgeable(h: Headline) -> bool:
    """Whether page 1's rule can call ``h`` clearly worse: it has a reference, an interval or a level."""
    return h.reference is not None or h.interval is not None or h.unit == "number"


def noise(h: Headline) -> float:
    """How far a number may sit from its reference when both are drawn from the same rows.

    A fresh real sample must never look clearly better or worse than itself: for a score, less than
    the verdict's ``SCORE_MARGIN``; for a share, ``SHARE_MARGIN``; for an attack's number, its own
    tolerance. A number with a spread over repeats (two of which are independent draws) may differ
    by 1.96 sqrt(2) of that spread.
    """
    unit = {"score": SCORE_MARGIN, "share": SHARE_MARGIN}.get(h.unit, h.tolerance or 0.0)
    return max(unit, 1.96 * math.sqrt(2) * (h.spread or 0.0))


def each(
    runs: list[Runs], pick: Callable[[Runs], ReportResults], section: str
) -> Iterator[tuple[Runs, Headline]]:
    for run in runs:
        for h in section_headlines(pick(run), section).values():
            yield run, h


@pytest.mark.parametrize("section", SECTIONS)
def test_a_copy_of_the_training_data_puts_fidelity_at_its_best(runs, section):
    for run, h in each(runs, lambda r: r.copy, section):
        if h.concern != "fidelity" or h.name in NOT_BEST_FOR_A_COPY:
            continue
        assert abs(h.value - best(h)) <= COPY_TOLERANCE[h.unit], (run.recipe, h)


@pytest.mark.parametrize("section", SECTIONS)
def test_a_copy_of_the_training_data_leaks_by_every_privacy_number(runs, section):
    """Worse than the same number for fresh real rows, and clearly worse by page 1's rule where it judges."""
    for run, h in each(runs, lambda r: r.copy, section):
        if h.concern != "privacy":
            continue
        fresh = headlines(run.holdout)[h.name]
        assert worse(h.value, fresh.value, h), (run.recipe, h, fresh)
        assert h.worse or not judgeable(h), (run.recipe, h)


def test_a_copy_of_the_training_data_is_a_leak_on_page_one(runs):
    for run in runs:
        assert headlines(run.copy)["exact_copies"].value == 1.0
        assert {v.concern: v.status for v in run.copy.verdicts}["privacy"] != "pass"
        assert "detection_repeats_training" in {f.code for f in run.copy.findings}, run.recipe


@pytest.mark.parametrize("section", SECTIONS)
def test_the_holdout_as_synthetic_data_sits_on_every_real_reference(runs, section):
    """Numbers that treat the holdout as unseen rows are exempt: they say they are unreliable here."""
    for run, h in each(runs, lambda r: r.holdout, section):
        if h.reference is None or h.reference_kind != "real" or specs()[h.name].assumes_unseen_holdout:
            continue
        assert abs(h.value - h.reference) <= noise(h), (run.recipe, h)


def test_the_holdout_as_synthetic_data_raises_no_attack_alarm(runs):
    for run in runs:
        assert attack_alarms(headlines(run.holdout)) == [], run.recipe
        assert "generator_saw_holdout" in {f.code for f in run.holdout.findings}  # it did see it


@pytest.mark.parametrize("section", SECTIONS)
def test_every_number_lies_within_its_bounds(runs, lacking, section):
    every = [r for run in runs for r in (run.copy, run.holdout, run.shuffled)] + [x.results for x in lacking]
    for results in every:
        for h in section_headlines(results, section).values():
            low, high = bounds(h)
            for number in (h.value, h.reference):
                assert number is None or low <= number <= high, h


@pytest.mark.parametrize("section", SECTIONS)
def test_a_shuffled_row_order_changes_nothing(runs, section):
    for run in runs:
        assert run.shuffled.sections[section].model_dump() == run.holdout.sections[section].model_dump(), (
            run.recipe
        )


@pytest.mark.parametrize("section", SECTIONS)
def test_one_seed_gives_one_value(runs, section):
    for run in runs:
        assert run.again.sections[section].model_dump() == run.holdout.sections[section].model_dump(), (
            run.recipe
        )


@pytest.mark.parametrize("section", SECTIONS)
def test_a_section_that_cannot_run_says_why(lacking, section):
    """It stops with a reason naming what the inputs lack, and the report goes on (no exception)."""
    for case in lacking:
        result, complete = case.results.sections[section], case.complete.sections[section]
        if result.status != "ok":
            assert result.reason and result.reason.strip(), (case.what, result)
        if complete.status == "ok" and result.status != "ok":
            assert any(word in result.reason.lower() for word in case.named_by), (case.what, result.reason)


def test_each_lacking_input_stops_a_section(lacking):
    """The inputs above do lack what some section needs, so the check before is not vacuous."""
    for case in lacking:
        stopped = [
            name
            for name, result in case.results.sections.items()
            if result.status != "ok" and case.complete.sections[name].status == "ok"
        ]
        assert stopped, case.what


def test_every_page_one_number_is_checked_with_exactly_one_section(runs):
    """The per-section checks above see every headline once, so none escapes them."""
    for run in runs:
        for results in (run.copy, run.holdout):
            per_section = [set(section_headlines(results, name)) for name in SECTIONS]
            assert sorted(n for names in per_section for n in names) == sorted(headlines(results))
