"""The holdout check: a generator that saw the holdout is flagged; chance coincidences are not."""

import json

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen.catalogue import report_settings
from reportgen.gates import bars_in_force, evaluate_gates
from reportgen.headlines import HOLDOUT_SEEN_CAVEAT, headlines
from reportgen.metrics.privacy import PrivacyResult, compute_privacy
from reportgen.preparation import prepare_context
from reportgen.privacy.holdout_check import saw_holdout
from reportgen.verdict import verdicts

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)


def population(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Real people: numbers with three decimals, so two people rarely coincide on every column."""
    x = rng.normal(size=n)
    return pd.DataFrame(
        {
            "x": x.round(3),
            "y": (2 * x + rng.normal(0, 0.5, n)).round(3),
            "group": rng.choice(["a", "b", "c"], n),
            "label": np.where(x + rng.normal(0, 0.5, n) > 0, "yes", "no"),
        }
    )


def few_combinations(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Three categorical columns with 2 x 4 x 5 = 40 combinations, unevenly likely."""
    return pd.DataFrame(
        {
            "sex": rng.choice(["f", "m"], n, p=[0.6, 0.4]),
            "region": rng.choice(["n", "s", "e", "w"], n, p=[0.4, 0.3, 0.2, 0.1]),
            "band": rng.choice(["1", "2", "3", "4", "5"], n, p=[0.35, 0.25, 0.2, 0.15, 0.05]),
        }
    )


def leaky(fresh: pd.DataFrame, seen: pd.DataFrame, share: float, rng: np.random.Generator) -> pd.DataFrame:
    """A generator that copies ``share`` of its rows verbatim from the real rows it saw."""
    n = round(share * len(fresh))
    copies = seen.iloc[rng.choice(len(seen), n, replace=False)]
    return pd.concat([copies, fresh.iloc[n:]], ignore_index=True).sample(frac=1, random_state=0)


def check(train: pd.DataFrame, test: pd.DataFrame, synth: pd.DataFrame, seed: int = 0):
    settings = report_settings(seed=seed, privacy_repeats=1, n_max_gower=200)
    return compute_privacy(prepare_context(train, test, synth, settings)).holdout_check


@pytest.fixture(scope="module")
def real():
    rng = np.random.default_rng(0)
    return population(1500, rng), population(700, rng), population(1500, rng)


def test_a_generator_that_copies_training_and_holdout_rows_is_flagged(real):
    train, test, fresh = real
    seen = pd.concat([train, test], ignore_index=True)
    result = check(train, test, leaky(fresh, seen, 0.3, np.random.default_rng(1)))
    assert result.seen
    # 450 copies drawn from 2,200 real rows: about 20% of each set's rows; a real sample repeats none
    assert 0.15 < result.holdout_in_synthetic < 0.25 and result.holdout_in_real_sample == 0
    assert 0.15 < result.training_in_synthetic < 0.25
    assert result.p_value < 1e-20


def test_the_same_generator_copying_only_training_rows_is_not_flagged(real):
    train, test, fresh = real
    result = check(train, test, leaky(fresh, train, 0.3, np.random.default_rng(1)))
    assert not result.seen
    assert result.holdout_in_synthetic == 0 and result.training_in_synthetic > 0.25
    # it memorised training rows, not holdout rows: training rows sit nearer the synthetic rows
    assert result.training_closer > result.holdout_closer + 0.1


def test_an_independent_sample_is_not_flagged(real):
    train, test, fresh = real
    result = check(train, test, fresh)
    assert not result.seen and result.holdout_in_synthetic == 0
    assert abs(result.holdout_closer - 0.5) < 0.06  # an independent sample is as near as the real one


@pytest.mark.parametrize("seed", range(5))
def test_low_cardinality_coincidences_are_not_flagged(seed):
    rng = np.random.default_rng(seed)
    train, test, synth = few_combinations(1000, rng), few_combinations(500, rng), few_combinations(1000, rng)
    result = check(train, test, synth, seed=seed)
    assert result.holdout_in_synthetic > 0.95  # every combination is everywhere
    assert not result.seen
    shuffled = synth.apply(lambda c: c.sample(frac=1, random_state=seed).to_numpy())  # independent columns
    assert not check(train, test, shuffled, seed=seed).seen


def test_a_significant_but_small_excess_is_not_enough():
    assert saw_holdout(0.30, 0.10, 1e-9)
    assert not saw_holdout(0.995, 0.98, 1e-9)  # 1.5 points, but not 1.5 times: coincidences everywhere
    assert not saw_holdout(0.008, 0.001, 1e-9)  # 8 times, but under 1 point
    assert not saw_holdout(0.30, 0.10, 0.01)  # not significant at the strict level


def test_the_check_is_the_same_for_the_same_seed(real):
    train, test, fresh = real
    synth = leaky(fresh, pd.concat([train, test], ignore_index=True), 0.1, np.random.default_rng(2))
    assert check(train, test, synth) == check(train, test, synth)


def test_without_a_holdout_there_is_no_check(real):
    train, _, fresh = real
    assert check(train, None, fresh) is None


def test_results_saved_before_the_check_still_load(real):
    train, test, fresh = real
    result = compute_privacy(prepare_context(train, test, fresh, report_settings(privacy_repeats=1)))
    saved = json.loads(result.model_dump_json())
    del saved["holdout_check"], saved["holdout_check_table"]
    for table in saved["tables"]:
        del table["holdout_check"]
    assert PrivacyResult.model_validate(saved).holdout_check is None


def test_a_report_whose_generator_saw_the_holdout_says_so_and_privacy_is_no_pass(real, tmp_path):
    train, test, fresh = real
    # only holdout rows are copied: no training copies, so nothing else in privacy would object
    synth = leaky(fresh, test, 0.1, np.random.default_rng(3))
    bars = {"mia_auc": 0.9, "utility": 10}
    results = rg.report(
        train, test, synth, tmp_path / "r.html", targets={"table": "label"}, fail_under=bars, seed=0
    )
    found = [f for f in results.findings if f.code == "generator_saw_holdout"]
    assert len(found) == 1 and found[0].severity == "error"
    assert "appears to have seen the holdout" in found[0].message
    assert "expected from an independent real sample of the same size" in found[0].message
    # bars the numbers would pass are not evaluated: a pipeline gating on the attacks stops the release
    gates = {g.name: g for g in results.gates.gates}
    assert gates["mia_auc"].status == gates["utility"].status == "not_evaluated"
    assert "seen the holdout" in gates["mia_auc"].reason and not results.gates.passed
    # with those bars, privacy and utility fail closed; with the default bars, both are concerns
    status = {v.concern: v for v in results.verdicts}
    assert status["privacy"].status == status["utility"].status == "fail"
    assert "seen the holdout" in status["privacy"].why
    results.gates = evaluate_gates(results, bars_in_force(None))
    status = {v.concern: v for v in verdicts(results)}
    assert status["privacy"].status == "concern" and "seen the holdout" in status["privacy"].why
    assert status["utility"].status == "concern" and "TSTR is scored on holdout rows" in status["utility"].why
    shown = headlines(results)
    assert HOLDOUT_SEEN_CAVEAT in (shown["mia_auc"].caveat or "")
    assert HOLDOUT_SEEN_CAVEAT in (shown["tstr"].caveat or "")
    assert shown["similarity"].caveat is None or HOLDOUT_SEEN_CAVEAT not in shown["similarity"].caveat
    html = (tmp_path / "r.html").read_text()
    assert "The generator appears to have seen the holdout" in html
    assert html.count('class="warn holdout-seen"') == 3  # the membership, attack and utility pages
    assert results.sections["privacy"].holdout_check.seen


def test_a_report_of_an_honest_generator_has_no_holdout_alarm(real, tmp_path):
    train, test, fresh = real
    results = rg.report(train, test, fresh, tmp_path / "r.html", fail_under={"mia_auc": 0.9}, seed=0)
    assert "generator_saw_holdout" not in {f.code for f in results.findings}
    assert results.gates.passed
    html = (tmp_path / "r.html").read_text()
    assert "Holdout rows repeated verbatim" in html and "holdout-seen" not in html


def overlap(train: pd.DataFrame, test: pd.DataFrame, synth: pd.DataFrame, seed: int = 0):
    settings = report_settings(seed=seed, privacy_repeats=1, n_max_gower=200)
    return compute_privacy(prepare_context(train, test, synth, settings)).tables[0].holdout_overlap


def medium_cardinality(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Four categorical columns with 4,000 combinations: a holdout repeats a third of 1,500 rows by chance."""
    return pd.DataFrame(
        {
            "a": rng.choice(list("abcdefghij"), n),
            "b": rng.choice(list("klmnopqrst"), n),
            "c": rng.choice(list("uvwxyzAB"), n),
            "d": rng.choice(list("01234"), n),
        }
    )


@pytest.mark.parametrize("seed", range(5))
def test_a_holdout_that_repeats_training_rows_by_chance_does_not_overlap(seed):
    """With 40 possible rows every holdout row equals a training row, as any independent sample's do."""
    rng = np.random.default_rng(seed)
    train, test, synth = few_combinations(1000, rng), few_combinations(500, rng), few_combinations(1000, rng)
    result = overlap(train, test, synth, seed=seed)
    assert result.holdout_in_training > 0.95 and result.set_aside_in_training > 0.95
    assert not result.leaked
    rng = np.random.default_rng(seed)
    train, test = medium_cardinality(2000, rng), medium_cardinality(800, rng)
    result = overlap(train, test, medium_cardinality(2000, rng), seed=seed)
    assert 0.2 < result.holdout_in_training < 0.45 and not result.leaked  # far above the old 10%


@pytest.mark.parametrize("leaked_share", [0.5, 1.0])
def test_a_holdout_taken_from_the_training_rows_overlaps(leaked_share):
    """Holdout rows that are training rows are flagged, on data where chance repeats rows too."""
    rng = np.random.default_rng(7)
    train, fresh = medium_cardinality(2000, rng), medium_cardinality(800, rng)
    n = round(leaked_share * len(fresh))
    test = pd.concat(
        [train.iloc[rng.choice(len(train), n, replace=False)], fresh.iloc[n:]], ignore_index=True
    )
    result = overlap(train, test, medium_cardinality(2000, rng))
    assert result.leaked and result.p_value < 1e-6
    assert result.holdout_in_training > result.set_aside_in_training + 0.1
    rng = np.random.default_rng(7)
    train, fresh = population(1500, rng), population(700, rng)
    test = pd.concat([train.iloc[:100], fresh.iloc[100:]], ignore_index=True)  # 14% of the holdout
    result = overlap(train, test, population(1500, rng))
    assert result.leaked and result.set_aside_in_training == 0


def test_a_report_on_few_possible_rows_raises_no_holdout_alarm(tmp_path):
    """The false alarm of issue 37: an honest split and generator on 40 possible rows."""
    rng = np.random.default_rng(0)
    train, test, synth = few_combinations(1000, rng), few_combinations(500, rng), few_combinations(1000, rng)
    results = rg.report(train, test, synth, tmp_path / "r.html", seed=0)
    codes = {f.code for f in results.findings}
    assert not codes & {"holdout_overlaps_training", "generator_saw_holdout", "exact_copies_above_reference"}


def test_a_report_with_a_leaked_holdout_says_so_with_the_reference(tmp_path):
    rng = np.random.default_rng(1)
    train = medium_cardinality(1500, rng)
    test = train.sample(500, random_state=0)
    results = rg.report(train, test, medium_cardinality(1500, rng), tmp_path / "r.html", seed=0)
    found = [f for f in results.findings if f.code == "holdout_overlaps_training"]
    assert len(found) == 1 and found[0].severity == "warning"
    assert "other training rows" in found[0].message and "what chance gives" in found[0].message
