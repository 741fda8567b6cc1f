"""The false-alarm budget: attack intervals corrected for the whole report still catch copies.

A generator that leaks nothing must rarely make privacy a concern through the attacks; the
correction that ensures it (every risk interval at 1 - 5%/M, the epsilon bounds together at 97.5%)
must not blind the report to a generator that copies half its training rows.
"""

import numpy as np
import pandas as pd
import pytest

from reportgen.catalogue import report_settings
from reportgen.headlines import headlines
from reportgen.metrics.membership import compute_membership_section
from reportgen.metrics.privacy_risks import compute_privacy_risks_section
from reportgen.preparation import prepare_context
from reportgen.results import ReportResults
from reportgen.rules import SHARE_MARGIN
from reportgen.sections.membership import EPSILON_MEANING
from reportgen.verdict import attack_alarms, verdicts
from tests.metrics.test_membership import with_run
from tests.metrics.test_privacy_risks import population

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)

N_ROWS = 1500
N_ATTACKS = 500


def attacked(train: pd.DataFrame, test: pd.DataFrame, synth: pd.DataFrame) -> ReportResults:
    """Results holding the two attack sections, computed as ``report()`` computes them."""
    ctx = prepare_context(train, test, synth, report_settings(risk_attacks=N_ATTACKS))
    membership = compute_membership_section(ctx)
    sections = {"membership": membership, "privacy_risks": compute_privacy_risks_section(ctx)}
    return with_run(membership).model_copy(update={"sections": sections})


@pytest.fixture(scope="module")
def real():
    rng = np.random.default_rng(11)
    return population(N_ROWS, rng), population(N_ROWS, rng), population(N_ROWS, rng)


def privacy_verdict(results: ReportResults):
    return next(v for v in verdicts(results) if v.concern == "privacy")


def test_half_verbatim_copies_still_make_privacy_a_concern_through_the_corrected_attacks(real):
    train, test, fresh = real
    half = N_ROWS // 2
    leaky = pd.concat([train.iloc[:half], fresh.iloc[half:]], ignore_index=True)
    results = attacked(train, test, leaky)
    risks = results.sections["privacy_risks"]
    assert risks.intervals == 8  # 2 singling-out modes, linkability, 5 secrets
    found = headlines(results)
    alarms = {h.name for h in attack_alarms(found)}
    assert {"singling_out", "inference", "mia_auc", "mia_tpr_at_1pct_fpr"} <= alarms, alarms
    for name in ("singling_out", "inference"):
        h = found[name]
        assert h.interval == getattr(risks, name).risk_interval and h.interval[0] > SHARE_MARGIN
    verdict = privacy_verdict(results)
    assert verdict.status == "concern"
    assert "95% interval, corrected for the report's 8 risk intervals," in verdict.why


def test_a_fresh_sample_raises_no_attack_alarm(real):
    train, test, fresh = real
    results = attacked(train, test, fresh)
    found = headlines(results)
    assert attack_alarms(found) == []
    assert privacy_verdict(results).status == "pass"
    assert found["epsilon_lower"].meaning == EPSILON_MEANING


def test_the_epsilon_headline_says_what_the_bound_is():
    for words in (
        "lower bound on the ε of pure ε-differential privacy (δ = 0)",
        "drawn at random from this training/holdout split",
        "not the worst case a guarantee covers",
        "holds with 97.5% confidence for every attack and view together",
    ):
        assert words in EPSILON_MEANING, words
