"""Release bars: defaults, user bars, the verdict in the results and the page, and the exit code."""

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen.cli import EXIT_BAR_FAILED, EXIT_OK, main
from reportgen.data.io import write_folder
from reportgen.gates import bar_specs, bars_in_force, default_bars, evaluate_gates, parse_bar

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)


def table(n: int, rng: np.random.Generator) -> pd.DataFrame:
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": x + rng.normal(size=n), "c": rng.choice(list("abc"), n)})


@pytest.fixture(scope="module")
def frames():
    rng = np.random.default_rng(0)
    train = table(600, rng)
    leaky = pd.concat([train.iloc[:400], table(200, rng)], ignore_index=True)  # two thirds copies
    return train, table(600, rng), leaky


def test_default_bars_and_user_bars_on_top():
    assert bars_in_force(None) == default_bars()
    assert bars_in_force({"similarity": 85}) == {**default_bars(), "similarity": 85.0}
    with pytest.raises(rg.InvalidParameterError, match="Unknown release bar.*'privcy'.*privacy"):
        bars_in_force({"privcy": 80})
    with pytest.raises(rg.InvalidParameterError, match="from 0 to 100"):
        bars_in_force({"privacy": 180})
    assert parse_bar("privacy=80") == ("privacy", 80.0)
    with pytest.raises(rg.InvalidParameterError, match="NAME=VALUE"):
        parse_bar("privacy80")


def test_a_leaky_release_fails_the_privacy_bar_and_says_so(frames, tmp_path):
    train, fresh, leaky = frames
    good = rg.report(train, None, fresh, tmp_path / "good.html", fail_under={"similarity": 50})
    assert good.gates.passed and {g.name: g.status for g in good.gates.gates} == {
        "privacy": "pass",
        "similarity": "pass",
    }
    bad = rg.report(train, None, leaky, tmp_path / "bad.html")
    assert not bad.gates.passed and [g.name for g in bad.gates.failed] == ["privacy"]
    html = (tmp_path / "bad.html").read_text()
    assert "The synthetic data does not pass: Privacy score is" in html and "below the bar of 80" in html
    assert rg.ReportResults.load(tmp_path / "bad.json").gates == bad.gates


def test_the_command_exits_3_naming_the_failed_bar(frames, tmp_path, capsys):
    train, fresh, leaky = frames
    for name, frame in {"train": train, "fresh": fresh, "leaky": leaky}.items():
        write_folder(rg.RelationalData({"t": frame}), tmp_path / name)
    args = ["report", "--train", str(tmp_path / "train"), "--quiet"]
    assert main([*args, "--synth", str(tmp_path / "fresh"), "--out", str(tmp_path / "a.html")]) == EXIT_OK
    code = main(
        [
            *args,
            "--synth",
            str(tmp_path / "leaky"),
            "--out",
            str(tmp_path / "b.html"),
            "--fail-under",
            "similarity=10",
        ]
    )
    assert code == EXIT_BAR_FAILED
    err = capsys.readouterr().err
    assert (
        "release bar failed: privacy is" in err and "below the bar of 80" in err and "similarity" not in err
    )
    assert (tmp_path / "b.html").exists()  # the report is written either way


def test_bars_from_a_config_file_and_the_command_line_wins(frames, tmp_path, capsys):
    from reportgen.config import read_config

    train, fresh, _ = frames
    for name, frame in {"train": train, "fresh": fresh}.items():
        write_folder(rg.RelationalData({"t": frame}), tmp_path / name)
    config = tmp_path / "release.yaml"
    config.write_text("fail_under:\n  similarity: 99.5\n  privacy: 50\n")
    assert read_config(config).fail_under == {"similarity": 99.5, "privacy": 50.0}
    args = ["report", "--train", str(tmp_path / "train"), "--synth", str(tmp_path / "fresh"), "--quiet"]
    args += ["--out", str(tmp_path / "r.html"), "--config", str(config)]
    assert main(args) == EXIT_BAR_FAILED
    assert "release bar failed: similarity" in capsys.readouterr().err
    assert main([*args, "--fail-under", "similarity=10"]) == EXIT_OK

    config.write_text("fail_under:\n  privcy: 80\n")
    assert main(args) == 2
    assert "Unknown release bar(s) ['privcy']" in capsys.readouterr().err
    config.write_text("bars:\n  privacy: 80\n")
    with pytest.raises(rg.LoadError, match=r"unknown key\(s\) \['bars'\]"):
        read_config(config)


def test_the_attack_bars_are_maxima_on_their_own_scales():
    assert bars_in_force({"mia_auc": 0.6, "mia_tpr_at_1pct_fpr": 0.05, "epsilon_lower": 2}) == {
        **default_bars(),
        "mia_auc": 0.6,
        "mia_tpr_at_1pct_fpr": 0.05,
        "epsilon_lower": 2.0,
    }
    with pytest.raises(rg.InvalidParameterError, match="'mia_auc' must be a number from 0 to 1. Got 60"):
        bars_in_force({"mia_auc": 60})
    with pytest.raises(rg.InvalidParameterError, match="from 0 to infinity"):
        bars_in_force({"epsilon_lower": -1})
    assert bar_specs()["mia_auc"].passes(0.6, 0.6) and not bar_specs()["mia_auc"].passes(0.61, 0.6)
    assert bar_specs()["privacy"].passes(80, 80) and not bar_specs()["privacy"].passes(79.9, 80)


def test_an_attack_above_its_bar_fails_the_release_and_page_1_says_so():
    from reportgen.catalogue import report_settings, sections
    from reportgen.headlines import headlines
    from reportgen.metrics.membership import compute_membership_section
    from reportgen.preparation import prepare_context
    from reportgen.render.document import render_html
    from reportgen.results import ReportResults, RunInfo

    rng = np.random.default_rng(1)
    train, test = table(400, rng), table(400, rng)
    leaky = pd.concat([train.iloc[:200], table(200, rng)], ignore_index=True)
    settings = report_settings()
    result = compute_membership_section(prepare_context(train, test, leaky, settings))
    run = RunInfo(
        title="t",
        reportgen_version="0",
        created_at="2025-01-01T00:00:00+00:00",
        seed=0,
        settings=settings.to_dict(),
        versions={},
        has_holdout=True,
    )
    results = ReportResults(run=run, sections={"membership": result})
    found = results.headlines = headlines(results)
    for name in ("mia_auc", "mia_tpr_at_1pct_fpr", "epsilon_lower"):
        assert found[name].higher_is_better is bar_specs()[name].higher_is_better is False
    auc = found["mia_auc"].value
    assert auc > 0.7
    results.gates = evaluate_gates(results, {"mia_auc": 0.6, "epsilon_lower": 20.0, "privacy": 80.0})
    status = {g.name: g.status for g in results.gates.gates}
    assert status == {"mia_auc": "fail", "epsilon_lower": "pass", "privacy": "not_evaluated"}
    text = " ".join(render_html(results, sections()).split())
    assert f"Membership attack AUC is {auc:.2f}, above the bar of 0.6;" in text
    assert "Membership attack AUC ≤ 0.6" in text and "Privacy score ≥ 80 (not evaluated" in text


BOMB = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(
    f"{chr(c)}: &{chr(c)} [{','.join([f'*{chr(c - 1)}'] * 9)}]\n" for c in range(ord("b"), ord("j"))
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("fail_under:\n  privacy: 99\n  privacy: 1\n", r"key 'privacy' appears twice \(lines 2 and 3\)"),
        ('{"fail_under": {"privacy": 99, "privacy": 1}}', "key 'privacy' appears twice"),
        ("fail_under: {privacy: 80}\n1: 2\nzz: 3\n", r"unknown key\(s\) \['zz', 1\]"),
        (BOMB, r"the alias \*a .*aliases are not accepted"),
        ("fail_under: " + "[" * 5000 + "]" * 5000, "nested too deeply"),
    ],
)
def test_a_config_file_with_a_repeated_key_an_alias_or_mixed_keys_is_refused_naming_the_file(
    tmp_path, text, message
):
    """Last-one-wins would lower a bar unseen; a 400-byte alias bomb would expand to gigabytes."""
    from reportgen.config import read_config

    config = tmp_path / ("release.json" if text.startswith("{") else "release.yaml")
    config.write_text(text)
    with pytest.raises(rg.LoadError, match=rf"configuration file '.*{config.name}'.*{message}"):
        read_config(config)


def test_bars_of_mixed_name_types_are_refused_with_the_names():
    with pytest.raises(rg.InvalidParameterError, match=r"Unknown release bar\(s\) \['zz', 1\]"):
        bars_in_force({"privacy": 80, 1: 5, "zz": 3})
