"""Sequence views: whole sequences measured by the privacy sections (``reportgen.data.sequence_view``).

Generated visits per customer whose rows are each common (a step number and one of four states):
no single row identifies anyone, the sequence of states does. A generator that copies whole real
sequences under new customers copies no identifying row and no identifying customer, so the table
and entity views cannot tell it from an honest one; the sequence view must.
"""

import numpy as np
import pandas as pd
import pytest

from reportgen import ForeignKey, PrimaryKey, RelationalData, Schema, Table
from reportgen.auditing import audit
from reportgen.catalogue import report_settings
from reportgen.data.roles import TRAIN
from reportgen.data.schema import ColumnKind
from reportgen.data.sequence_view import sequence_view
from reportgen.metrics.membership import compute_membership_section
from reportgen.metrics.privacy import compute_privacy
from reportgen.preparation import prepare_context
from reportgen.settings import ReportSettings
from tests.metrics.test_sequences import SCHEMA as WALKS
from tests.metrics.test_sequences import draw as walks

STATES = np.array(["new", "active", "lapsed", "closed"])
SCHEMA = Schema(
    customers=Table(cid=PrimaryKey(), region="categorical"),
    visits=Table(
        vid=PrimaryKey(),
        cid=ForeignKey(parent="customers"),
        step="integer",
        status="categorical",
        order_by=["step"],
    ),
)
VIEW = "visits (sequences)"


def draw(n: int, seed: int, first_id: int) -> dict[str, pd.DataFrame]:
    """``n`` customers with 3-7 visits each, a random state per visit, rows in random order."""
    rng = np.random.default_rng(seed)
    cid = np.repeat(np.arange(first_id, first_id + n), rng.integers(3, 8, n))
    visits = pd.DataFrame(
        {
            "vid": np.arange(len(cid)) + 10 * first_id,
            "cid": cid,
            "step": pd.Series(np.ones(len(cid), int)).groupby(cid).cumsum().to_numpy(),
            "status": STATES[rng.integers(0, 4, len(cid))],
        }
    )
    customers = pd.DataFrame({"cid": np.arange(first_id, first_id + n), "region": rng.choice(["n", "s"], n)})
    return {"customers": customers, "visits": visits.sample(frac=1.0, random_state=seed)}


def copied_sequences(train: dict[str, pd.DataFrame], seed: int) -> dict[str, pd.DataFrame]:
    """Every real sequence, whole, under a new customer with a new region drawn at random."""
    rng = np.random.default_rng(seed)
    visits = train["visits"].assign(cid=train["visits"]["cid"] + 100_000, vid=train["visits"]["vid"] + 10**7)
    ids = train["customers"]["cid"].to_numpy() + 100_000
    return {
        "customers": pd.DataFrame({"cid": ids, "region": rng.choice(["n", "s"], len(ids))}),
        "visits": visits,
    }


@pytest.fixture(scope="module")
def contexts():
    train, test = draw(500, 1, 0), draw(500, 2, 5_000)
    settings = report_settings(ReportSettings(seed=0))

    def context(synth):
        data = [RelationalData(d, SCHEMA) for d in (train, test, synth)]
        return prepare_context(*data, settings)

    return {"honest": context(draw(500, 3, 9_000)), "copied": context(copied_sequences(train, 4))}


@pytest.fixture(scope="module")
def privacy(contexts):
    return {name: compute_privacy(ctx) for name, ctx in contexts.items()}


def _view(result, name):
    return next(t for t in result.tables if t.table == name)


def test_the_sequence_view_summarises_each_sequence_in_its_order():
    data = RelationalData(
        {
            "customers": pd.DataFrame({"cid": [1, 2, 3], "region": ["n", "s", "n"]}),
            "visits": pd.DataFrame(
                {
                    "vid": [10, 11, 12, 13, 14, 15],
                    "cid": [1, 2, 1, 1, 2, 9],  # 9: an orphan, in no sequence
                    "step": [3, 1, 1, 2, 2, 1],
                    "status": ["b", "x", "a", "a", None, "a"],
                }
            ),
        },
        SCHEMA,
    )
    fk = SCHEMA.sequences("visits")[0]
    kinds = SCHEMA["visits"].kinds
    view, view_kinds = sequence_view(data, fk, ["step", "status"], kinds, TRAIN)
    # customer 1: steps 1, 2, 3 with a, a, b; customer 2: steps 1, 2 with x, missing; customer 3: none
    assert view["length"].tolist() == [3.0, 2.0]
    assert view["step.first"].tolist() == [1.0, 1.0] and view["step.last"].tolist() == [3.0, 2.0]
    assert view["step.mean"].tolist() == [2.0, 1.5]
    assert view["step.spread"].tolist() == pytest.approx([np.sqrt(2 / 3), 0.5])
    assert view["step.step_spread"].iloc[0] == 0.0 and np.isnan(view["step.step_spread"].iloc[1])
    assert view["status.first"].tolist() == ["a", "x"]
    assert view["status.last"].iloc[0] == "b" and pd.isna(view["status.last"].iloc[1])
    assert view["status.distinct"].tolist() == [2.0, 1.0]
    assert view["status.stay"].iloc[0] == 0.5 and np.isnan(view["status.stay"].iloc[1])
    assert view_kinds["length"] is ColumnKind.INTEGER and view_kinds["status.first"] is ColumnKind.CATEGORICAL
    # the rows' order in the data does not matter; the order the schema declares does
    shuffled = RelationalData({**data, "visits": data["visits"].iloc[::-1]}, SCHEMA)
    pd.testing.assert_frame_equal(sequence_view(shuffled, fk, ["step", "status"], kinds, TRAIN)[0], view)


def test_whole_copied_sequences_are_caught_only_by_the_sequence_view(privacy):
    honest, copied = privacy["honest"], privacy["copied"]
    for name in ("visits", "customers (entity)"):  # every row, and every customer, is common
        assert _view(copied, name).distances.exact_copies == _view(honest, name).distances.exact_copies
    assert _view(copied, VIEW).distances.exact_copies == 1.0
    assert _view(honest, VIEW).distances.exact_copies < 0.9
    assert copied.weakest_table == VIEW
    assert copied.privacy_score < copied.privacy_score_reference - 20
    assert honest.privacy_score >= honest.privacy_score_reference - 10


def test_membership_attacks_whole_sequences(contexts):
    found = {name: compute_membership_section(ctx) for name, ctx in contexts.items()}
    views = {name: next(v for v in m.tables if v.table == VIEW) for name, m in found.items()}
    assert views["honest"].view == "sequence"
    assert max(a.auc for a in views["copied"].stats.attacks) > 0.6
    assert max(a.auc for a in views["honest"].stats.attacks) < 0.56
    assert found["copied"].auc.table == VIEW and found["copied"].sequence_auc.table == VIEW


def test_the_self_test_plants_whole_sequences():
    """Where sequences carry information (dates, a drifting amount), planted real sequences are seen."""
    train, test, synth = (
        RelationalData(walks(400, seed, first_id=i), WALKS) for seed, i in ((1, 0), (2, 5_000), (3, 9_000))
    )
    context = prepare_context(train, test, synth, report_settings(ReportSettings(seed=0)))
    view = next(v for v in compute_membership_section(context).tables if v.table == VIEW)
    assert view.columns[:3] == ["length", "date.first", "date.last"]
    detected = view.stats.self_test.smallest_detected
    assert detected["random"] is not None and detected["random"] <= 0.1


def test_the_curation_leaves_sequence_views_out():
    train = draw(100, 1, 0)
    result = audit(RelationalData(train, SCHEMA), RelationalData(copied_sequences(train, 4), SCHEMA), seed=0)
    assert not any("(sequences)" in name for name in (*result.before, *result.skipped))
    assert "customers (entity)" in (*result.before, *result.skipped)
