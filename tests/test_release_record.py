"""What an approver files: the standards page, the claimed-epsilon audit and the decision block.

One report is made once for the module, as a release pipeline would: the command line on a
synthetic set that copies its training rows, with a small claimed epsilon and a release
configuration holding the approver's decision. The other tests read small results built directly.
"""

import json
import re

import numpy as np
import pytest
from pypdf import PdfReader

import reportgen as rg
from reportgen.approval_model import Decision
from reportgen.catalogue import report_settings, sections
from reportgen.cli import main
from reportgen.config import read_config
from reportgen.errors import InvalidParameterError, LoadError
from reportgen.gates import evaluate_gates, setting_bars
from reportgen.headlines import headlines
from reportgen.metrics.membership import compute_membership_section
from reportgen.preparation import prepare_context
from reportgen.render.document import render_back_matter, render_html
from reportgen.results import ReportResults, RunInfo
from reportgen.standards import CRITERIA, DOCUMENTS, standards
from tests.metrics.test_privacy import people

DECISION_YAML = """\
fail_under:
  privacy: 0
decision:
  name: Ada <Lovelace> & Co
  role: Data protection officer
  date: 2026-11-27
  decision: approve with conditions
  conditions:
    - Shared with the partner's analysts only
    - Deleted after twelve months
"""


@pytest.fixture(scope="module")
def population():
    """Training, holdout and an independent sample of one population: 400 rows each."""
    rng = np.random.default_rng(11)
    return people(400, rng), people(400, rng), people(400, rng)


@pytest.fixture(scope="module")
def leaky_release(population, tmp_path_factory):
    """The command line on synthetic data that copies the training rows, a claim of epsilon 0.5 and a decision."""
    folder = tmp_path_factory.mktemp("release")
    train, test, _ = population
    for role, frame in (("train", train), ("test", test), ("synth", train)):
        frame.to_csv(folder / f"{role}.csv", index=False)
    (folder / "release.yaml").write_text(DECISION_YAML, encoding="utf-8")
    argv = ["report", "--config", str(folder / "release.yaml"), "--claimed-epsilon", "0.5", "--quiet"]
    argv += [f"--{role}={folder / role}.csv" for role in ("train", "test", "synth")]
    code = main([*argv, "--out", str(folder / "r.pdf")])
    text = " ".join(page.extract_text() for page in PdfReader(folder / "r.pdf").pages)
    raw = json.loads((folder / "r.json").read_text(encoding="utf-8"))
    return code, ReportResults.load(folder / "r.json"), raw, re.sub(r"\s+", " ", text)


def run_of(settings) -> RunInfo:
    return RunInfo(
        title="t",
        reportgen_version="0",
        created_at="2026-01-01T00:00:00+00:00",
        seed=settings.seed,
        settings=settings.to_dict(),
        versions={},
        has_holdout=True,
    )


def membership_only(train, test, synth, **claim) -> ReportResults:
    """Results holding the membership section alone, judged as report() judges them."""
    settings = report_settings(seed=2, **claim)
    result = compute_membership_section(prepare_context(train, test, synth, settings))
    results = ReportResults(run=run_of(settings), sections={"membership": result})
    results.headlines = headlines(results)
    results.gates = evaluate_gates(results, setting_bars(settings))
    results.standards = standards(results)
    return results


def walk(data, path: str):
    for part in path.split("."):
        data = data[part]
    return data


# -- the claimed-epsilon audit -------------------------------------------------------------------


def test_a_copy_of_the_training_data_contradicts_a_small_claim(leaky_release):
    code, results, raw, text = leaky_release
    assert code == 3  # a release bar failed
    claim = results.sections["membership"].claim
    assert claim.epsilon == 0.5 and claim.delta == 0 and claim.lower_bound > 0.5 and claim.contradicted
    gate = next(g for g in results.gates.gates if g.name == "epsilon_claim")
    assert (gate.status, gate.bar, gate.value) == ("fail", 0.5, claim.lower_bound)
    assert [f.severity for f in results.findings if f.code == "epsilon_claim_contradicted"] == ["error"]
    assert raw["run"]["settings"]["claimed_epsilon"] == 0.5  # the JSON records the claim
    assert raw["sections"]["membership"]["claim"]["contradicted"] is True
    page_one = text[: text.index("Contents")]
    assert "Claimed differential privacy (ε = 0.5, δ = 0)" in page_one
    assert "the attacks contradict the claim" in page_one and "never confirm one" in page_one
    privacy = next(v for v in results.verdicts if v.concern == "privacy")
    assert privacy.status == "fail" and "Claimed differential privacy" in privacy.why


def test_an_honest_sample_does_not_contradict_the_claim_and_no_claim_moves_nothing(population):
    train, test, fresh = population
    honest = membership_only(train, test, fresh, claimed_epsilon=0.5)
    claim = honest.sections["membership"].claim
    assert not claim.contradicted and claim.lower_bound <= 0.5
    assert [(g.name, g.status) for g in honest.gates.gates] == [("epsilon_claim", "pass")]
    assert "do not contradict the claim" in honest.headlines["epsilon_claim"].meaning
    plain = membership_only(train, test, fresh)
    assert plain.sections["membership"].claim is None and "epsilon_claim" not in plain.headlines
    assert plain.gates.gates == [] and setting_bars(report_settings()) == {}
    without = honest.sections["membership"].model_copy(update={"claim": None})
    assert without == plain.sections["membership"]  # a claim adds its audit, and moves no other number
    assert honest.headlines["epsilon_lower"] == plain.headlines["epsilon_lower"]


def test_the_privacy_command_audits_a_claim_too(population, tmp_path, capsys):
    """``reportgen privacy --claimed-epsilon`` says whether the attacks refute the claim, and fails when they do."""
    train, test, fresh = population
    for role, frame in (("train", train), ("test", test), ("copy", train), ("fresh", fresh)):
        frame.to_csv(tmp_path / f"{role}.csv", index=False)
    base = ["privacy", f"--train={tmp_path / 'train.csv'}", "--claimed-epsilon", "0.5", "--json"]
    codes, claims = {}, {}
    for synth in ("copy", "fresh"):
        codes[synth] = main([*base, f"--test={tmp_path / 'test.csv'}", f"--synth={tmp_path / synth}.csv"])
        claims[synth] = json.loads(capsys.readouterr().out)["epsilon_claim"]
    assert codes["copy"] == 3 and claims["copy"]["contradicted"] and claims["copy"]["lower_bound"] > 0.5
    assert codes["fresh"] == 0 and not claims["fresh"]["contradicted"]
    # without a holdout no attack runs: the claim cannot be audited, which fails as a missing number does
    assert main([*base, f"--synth={tmp_path / 'fresh.csv'}"]) == 3
    assert "audit of the claim: the attacks need a holdout" in capsys.readouterr().err


def test_a_claimed_delta_loosens_the_bound_and_leaves_every_other_number(population):
    train, test, _ = population
    pure = membership_only(train, test, train, claimed_epsilon=0.5).sections["membership"]
    loose = membership_only(train, test, train, claimed_epsilon=0.5, claimed_delta=0.2).sections["membership"]
    assert loose.claim.delta == 0.2 and loose.claim.lower_bound < pure.claim.lower_bound
    assert pure.claim.lower_bound == pure.epsilon_lower.value  # at delta 0 the claim reads the pure bound
    for before, after in zip(pure.tables[0].stats.attacks, loose.tables[0].stats.attacks, strict=True):
        assert after.epsilon_lower_at_delta <= before.epsilon_lower
        assert after.model_copy(update={"epsilon_lower_at_delta": None}) == before
    assert loose.epsilon_lower == pure.epsilon_lower


def test_a_claimed_delta_alone_or_out_of_range_is_refused_before_any_work(tmp_path, population):
    train, test, synth = population
    with pytest.raises(InvalidParameterError, match="claimed_delta=1e-05 without claimed_epsilon"):
        rg.report(train, test, synth, tmp_path / "r.html", claimed_delta=1e-5)
    with pytest.raises(
        InvalidParameterError, match=r"'claimed_delta' parameter of report must be None or a float"
    ):
        rg.report(train, test, synth, tmp_path / "r.html", claimed_epsilon=1.0, claimed_delta=1.0)
    assert list(tmp_path.iterdir()) == []


# -- the standards page ---------------------------------------------------------------------------


def test_each_criterion_points_at_numbers_that_exist_in_the_json(leaky_release):
    _, results, raw, text = leaky_release
    rows = raw["standards"]
    assert [row["key"] for row in rows] == [c.key for c in CRITERIA]
    assert {row["source"] for row in rows} == set(DOCUMENTS)
    for row in rows:
        assert row["evidence"] and row["not_covered"], row["key"]
        for evidence in row["evidence"]:
            found = walk(raw, evidence["path"])
            if evidence["status"] == "measured":
                assert found == evidence["value"], evidence["path"]
                if evidence["interval"] is not None:
                    assert list(walk(raw, evidence["interval_path"])) == evidence["interval"]
            else:
                assert evidence["status"] == "recorded" and found is not None, evidence
    copies = next(e for e in rows[0]["evidence"] if e["path"] == "headlines.exact_copies.value")
    assert copies["value"] == 1.0  # a verbatim copy: every synthetic row is a training row
    claimed = [e for row in rows for e in row["evidence"] if e["path"] == "headlines.epsilon_claim.value"]
    assert claimed and claimed[0]["value"] == results.sections["membership"].claim.lower_bound
    assert "Standards and guidance: what the numbers speak to" in text
    assert "No attack here models an adversary with auxiliary data beyond the holdout" in text
    assert "complies" not in text.lower() and "compliant" not in text.lower()


def test_a_number_not_computed_stays_on_the_page_with_its_reason(population):
    train, test, fresh = population
    results = membership_only(train, test, fresh)  # no privacy-risk or proxy section in this run
    singling = next(c for c in results.standards if c.key == "wp29-singling-out")
    missing = {e.path: e for e in singling.evidence}
    assert missing["headlines.singling_out.value"].status == "not_computed"
    assert "not part of this run" in missing["headlines.singling_out.value"].reason
    identity = next(c for c in results.standards if c.key == "nist800188-identity")
    assert [e.status for e in identity.evidence][:2] == ["measured", "measured"]  # the attacks did run
    assert not any(e.path.endswith("epsilon_claim.value") for c in results.standards for e in c.evidence)
    html = render_back_matter("standards.html.j2", results, sections())
    page = " ".join(re.sub(r"<[^>]+>", "", html).split())
    assert "(1) the privacy risks section is not part of this run;" in page
    assert "Singling-out risk not computed (1)" in page


# -- the decision block ---------------------------------------------------------------------------


def test_the_decision_round_trips_from_the_configuration_into_the_json_and_the_pdf(leaky_release):
    _, _, raw, text = leaky_release
    assert raw["decision"] == {
        "name": "Ada <Lovelace> & Co",
        "role": "Data protection officer",
        "date": "2026-11-27",
        "decision": "approve with conditions",
        "conditions": ["Shared with the partner's analysts only", "Deleted after twelve months"],
    }
    block = text[text.index("Decision on this release The decision below") :]
    for shown in (
        "Ada <Lovelace> & Co",
        "Data protection officer",
        "2026-11-27",
        "Deleted after twelve months",
    ):
        assert shown in block, shown
    assert "☒ Approve with conditions" in block and "☐ Reject" in block
    assert text.index("Decision on this release The decision") < text.index(
        "How this report was produced This document"
    )


def test_without_a_decision_the_block_is_a_blank_form_and_every_string_is_escaped(population):
    train, test, fresh = population
    results = membership_only(train, test, fresh)
    blank = render_html(results, sections())
    form = blank[blank.index('id="decision"') :]
    assert "To be completed by the approver" in form and form.count("☐") == 3 and "☒" not in form
    assert results.decision is None and json.loads(results.to_json())["decision"] is None
    results.decision = Decision(name="<script>x</script>", decision="reject")
    filled = render_html(results, sections())
    assert "<script>" not in filled and "<td>&lt;script&gt;x&lt;/" in filled


@pytest.mark.parametrize(
    ("decision", "message"),
    [
        (
            "decision: aprove\n  name: A",
            r"key 'decision\.decision', must be one of 'approve', .*Got 'aprove'",
        ),
        ("decision: reject", r"key 'decision', gives a decision \('reject'\) but no name"),
        ("name: A\n  date: 27/11/2026", r"key 'decision\.date', must be an ISO 8601 date .*Got '27/11/2026'"),
        (
            "name: A\n  decision: approve with conditions",
            "key .decision., approves with conditions but lists none",
        ),
        ("name: A\n  signature: x", r"key 'decision', has unknown key\(s\) \['signature'\]"),
    ],
)
def test_a_bad_decision_is_refused_naming_the_file_and_the_key(tmp_path, decision, message):
    path = tmp_path / "release.yaml"
    path.write_text(f"decision:\n  {decision}\n", encoding="utf-8")
    with pytest.raises(LoadError, match=r"The configuration file '.*release\.yaml', " + message):
        read_config(path)


def test_a_decision_given_to_report_is_checked_like_the_configurations(tmp_path, population):
    train, test, synth = population
    with pytest.raises(InvalidParameterError, match=r"report\(\), key 'decision\.date', must be an ISO 8601"):
        rg.report(train, test, synth, tmp_path / "r.html", decision={"name": "A", "date": "tomorrow"})
    config = read_config_text(tmp_path, "decision:\n  name: A\n  role: DPO\n")
    assert config.decision.name == "A" and config.decision.decision is None  # a form with the approver named


def read_config_text(folder, text: str):
    path = folder / "release.yaml"
    path.write_text(text, encoding="utf-8")
    return read_config(path)
