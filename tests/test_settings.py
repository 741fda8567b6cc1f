"""Every setting a section declares works everywhere it is promised, driven by the registry.

A setting is declared once, on its section (``reportgen.settings.Setting``); ``report()`` takes it
as a keyword, the command line as an option, the results JSON records it, and a bad value or a
misspelt name is refused with its name before any work.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import reportgen as rg
from reportgen.catalogue import SHARED_SETTINGS, report_settings, section_settings, sections
from reportgen.cli import _given_settings, _parser

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)


@pytest.fixture
def tiny_tables(people):
    """Training, holdout and synthetic thirds of one generated table (an honest generator)."""
    people = people.drop(columns="note")
    return people.iloc[:100], people.iloc[100:200], people.iloc[200:].reset_index(drop=True)


DECLARED = [(section.name, setting) for section in sections() for setting in section.settings]


# Settings that need another one given with them (a claimed delta is of a claimed epsilon), and that one.
NEEDS = {"claimed_delta": ("--claimed-epsilon", "1.0", "claimed_epsilon", 1.0)}


def _example(setting) -> str:
    """A command-line value for ``setting`` that its constraints accept."""
    return {int: "123", float: "0.25", str: "age"}[setting.parse]


@pytest.mark.parametrize(("section", "setting"), DECLARED, ids=[s.name for _, s in DECLARED])
def test_a_declared_setting_is_one_thing_everywhere(section, setting):
    assert setting.name not in SHARED_SETTINGS
    assert [s for _, s in DECLARED].count(setting) == 1
    setting.check(setting.default)  # the default meets the setting's own limits
    assert report_settings().to_dict()[setting.name] == setting.default  # recorded in the JSON
    if setting.parse is None:
        return  # set from Python only
    given = [setting.option, _example(setting)]
    option, text, other, value = NEEDS.get(setting.name, (None, None, None, None))
    also = [option, text] if option else []
    args = _parser().parse_args(["report", "--train=a", "--synth=b", "--out=r.html", *given * 2, *also])
    expected = [setting.parse(given[1])] * 2 if setting.repeatable else setting.parse(given[1])
    assert _given_settings(args) == {setting.name: expected} | ({other: value} if other else {})
    assert getattr(report_settings(**_given_settings(args)), setting.name) == expected


def test_section_settings_are_the_declared_ones_in_page_order():
    assert list(section_settings()) == [s.name for _, s in DECLARED]
    assert {"n_max_phik", "n_max_detection", "n_max_utility", "privacy_q", "risk_attacks"} <= set(
        section_settings()
    )


def test_a_misspelt_or_bad_setting_is_refused_before_any_work(tmp_path, tiny_tables):
    train, test, synth = tiny_tables
    with pytest.raises(rg.InvalidParameterError, match="'n_max_phk'.*Did you mean 'n_max_phik'"):
        rg.report(train, test, synth, tmp_path / "r.html", n_max_phk=100)
    with pytest.raises(rg.InvalidParameterError, match=r"'privacy_q' parameter of report must be a float"):
        rg.report(train, test, synth, tmp_path / "r.html", privacy_q=1.5)
    assert list(tmp_path.iterdir()) == []


def test_the_command_line_refuses_a_bad_setting_value_with_its_name(capsys):
    code = rg.cli.main(["report", "--train=a", "--synth=b", "--out=r.html", "--n-max-detection", "0"])
    assert code == 2
    assert (
        "'n_max_detection' parameter of report must be an int in the range [1, inf)"
        in capsys.readouterr().err
    )


def test_settings_given_to_report_reach_the_json(tmp_path, tiny_tables):
    train, test, synth = tiny_tables
    rg.report(train, test, synth, tmp_path / "r.html", n_max_detection=150, privacy_repeats=2)
    saved = json.loads((tmp_path / "r.json").read_text())["run"]["settings"]
    assert (saved["n_max_detection"], saved["privacy_repeats"]) == (150, 2)
    assert saved["n_max_phik"] == section_settings()["n_max_phik"].default


def test_the_readme_lists_every_built_in_setting_with_its_option():
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    for _, setting in DECLARED:
        option = f" (`{setting.option}`" if setting.parse is not None else " (Python only)"
        assert f"| `{setting.name}`{option}" in readme, f"README's settings table lacks {setting.name}"
