"""One order for the data (issue 30): every public function that takes data takes it as ``report()``
does, training, holdout, synthetic, and a call in another order fails; it never runs with two roles
swapped. ``compute_privacy_risks`` took (train, holdout, synth) while ``compute_privacy_stats`` and
``compute_membership`` took (train, synth, *, data_test), so one pattern applied to the other
swapped the synthetic data and the holdout without a word.

Tiny generated data (200 rows) whose synthetic set is a verbatim copy of the training set: called
the right way the attacks read the leak, so a swap would show.
"""

import inspect
import itertools

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen import auditing
from reportgen.params import ROLES

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)

ORDER = list(ROLES)  # report()'s: data_train, data_test, data_synth
NO_HOLDOUT = {"audit", "curate"}  # auditing needs no holdout: (data_train, data_synth)
OPTIONAL_DATA = {"verify_statement"}  # checks a report's statement; the inputs only if given
CANDIDATES = {"compare_candidates"}  # the synthetic role is ``candidates``, a dataset per name, third
TARGETS = 50  # the fewest the attacks take


def functions_taking_data() -> dict:
    """Every public function with a data role: reportgen's names, and rg.auditing.curate (in README)."""
    public = {name: getattr(rg, name) for name in rg.__all__}
    found = {name: f for name, f in public.items() if inspect.isfunction(f)} | {"curate": auditing.curate}
    return {name: f for name, f in found.items() if set(inspect.signature(f).parameters) & set(ROLES)}


FUNCTIONS = functions_taking_data()
# The functions whose numbers swapped roles would change, each as cheap as it goes.
MEASURES = {
    "compute_privacy_stats": lambda *a, **k: rg.compute_privacy_stats(*a, n_repeats=1, **k),
    "compute_membership": lambda *a, **k: rg.compute_membership(*a, max_targets=TARGETS, **k),
    "compute_privacy_risks": lambda *a, **k: rg.compute_privacy_risks(*a, n_attacks=TARGETS, **k),
}


@pytest.fixture(scope="module")
def leak():
    """Training rows, an independent holdout, and synthetic rows that copy the training rows."""
    rng = np.random.default_rng(0)

    def rows(n: int) -> pd.DataFrame:
        return pd.DataFrame({"x": rng.normal(size=n).round(3), "c": rng.choice(list("abcd"), n)})

    train, holdout = rows(200), rows(200)
    return train, holdout, train.copy()


def test_every_public_function_taking_data_is_checked():
    expected = {"report", "compute_privacy_stats", "compute_membership", "compute_privacy_risks", "audit"}
    assert expected | NO_HOLDOUT <= set(FUNCTIONS)
    assert set(MEASURES) == set(FUNCTIONS) - NO_HOLDOUT - OPTIONAL_DATA - CANDIDATES - {"report"}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_the_data_come_first_required_and_in_the_order_of_report(name):
    parameters = list(inspect.signature(FUNCTIONS[name]).parameters.values())
    roles = [p.name for p in parameters if p.name in ROLES]
    if name in OPTIONAL_DATA:  # the data are optional there: keywords only, so no position is mistaken
        assert all(p.kind is p.KEYWORD_ONLY for p in parameters if p.name in ROLES)
        assert roles == ORDER
        return
    if name in CANDIDATES:  # report()'s order, with the named synthetic datasets in the synthetic place
        assert [p.name for p in parameters[:3]] == ["data_train", "data_test", "candidates"]
        assert all(p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in parameters[:3])
        return
    assert [p.name for p in parameters[: len(roles)]] == roles == [r for r in ORDER if r in roles]
    assert all(p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty for p in parameters[: len(roles)])
    assert {"data_train", "data_synth"} <= set(roles)
    assert ("data_test" not in roles) == (name in NO_HOLDOUT)


OLD_CALLS = {  # the forms README and the old signatures showed, and roles in another function's order
    "compute_privacy_stats(train, synth, q=0.1)": lambda t, h, s: rg.compute_privacy_stats(t, s, q=0.1),
    "compute_privacy_stats(train, synth, data_test=holdout)": (
        lambda t, h, s: rg.compute_privacy_stats(t, s, data_test=h)
    ),
    "compute_membership(train, synth, data_test=holdout)": (
        lambda t, h, s: rg.compute_membership(t, s, data_test=h)
    ),
    "compute_membership(train, synth)": lambda t, h, s: rg.compute_membership(t, s),
    "compute_privacy_risks(train, synth, data_test=holdout)": (
        lambda t, h, s: rg.compute_privacy_risks(t, s, data_test=h)
    ),
    "audit(train, holdout, synth)": lambda t, h, s: rg.audit(t, h, s),
    "report(train, synth, path)": lambda t, h, s: rg.report(t, s, "r.html"),
}


@pytest.mark.parametrize("call", OLD_CALLS)
def test_a_call_in_the_old_order_fails_and_shows_the_right_one(call, leak):
    name = call.split("(")[0]
    roles = ", ".join(p for p in ORDER if p in inspect.signature(FUNCTIONS[name]).parameters)
    with pytest.raises(TypeError, match=rf"Call it as {name}\({roles}[,)]"):
        OLD_CALLS[call](*leak)


@pytest.mark.parametrize("name", sorted(MEASURES))
def test_data_in_any_order_give_the_numbers_of_the_roles_in_the_order_of_report(name, leak):
    """Every permutation of the three sets, positional, gives the numbers of the roles named in
    report()'s order (the keyword call's); and swapping two roles changes them, so a swap matters."""
    measure = MEASURES[name]
    for given in itertools.permutations(range(3)):
        data = [leak[i] for i in given]
        assert measure(*data) == measure(**dict(zip(ORDER, data, strict=True))), given
    train, holdout, synth = leak
    assert measure(train, holdout, synth) != measure(train, synth, holdout)


def test_the_right_order_reads_a_verbatim_copy_as_a_leak(leak):
    train, holdout, synth = leak
    attacks = rg.compute_membership(train, holdout, synth, max_targets=TARGETS)["table"]
    assert attacks.worst.auc > 0.9
    risks = rg.compute_privacy_risks(train, holdout, synth, n_attacks=TARGETS)["table"]
    assert risks.worst("singling_out").risk > 0.5
    stats = rg.compute_privacy_stats(train, None, synth, n_repeats=1)["table"]
    assert stats.privacy_score < 50  # an independent sample scores near 100
    with pytest.raises(rg.InvalidParameterError, match="holdout"):
        rg.compute_membership(train, None, synth)
