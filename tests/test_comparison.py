"""Release comparison: a planted regression is flagged, a re-run is not, bad files get a clear error."""

import json

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen.cli import main
from reportgen.data.io import write_folder

from .drawing import drawing_skipped

pytestmark = pytest.mark.usefixtures("figures_not_drawn")  # reads results and text (tests/drawing.py)


def table(n: int, rng: np.random.Generator) -> pd.DataFrame:
    x = rng.normal(size=n)
    return pd.DataFrame({"x": x, "y": x + rng.normal(size=n), "c": rng.choice(list("abc"), n)})


@pytest.fixture(scope="module")
def releases(tmp_path_factory):
    rng = np.random.default_rng(1)
    train, fresh = table(600, rng), table(600, rng)
    leaky = pd.concat([train.iloc[:400], table(200, rng)], ignore_index=True)
    folder = tmp_path_factory.mktemp("releases")
    with drawing_skipped():
        first = rg.report(train, None, fresh, folder / "v1.html", fail_under={"privacy": 0})
    return train, fresh, leaky, folder, first


def test_a_planted_privacy_regression_is_flagged(releases):
    train, _, leaky, folder, _ = releases
    second = rg.report(
        train, None, leaky, folder / "v2.html", previous=folder / "v1.json", fail_under={"privacy": 0}
    )
    flagged = {c.name for c in second.comparison.regressions}
    assert {"privacy", "risk", "exact_copies"} <= flagged
    html = (folder / "v2.html").read_text()
    assert "Compared with the previous release" in html and "regression" in html
    assert rg.ReportResults.load(folder / "v2.json").comparison == second.comparison


def test_a_rerun_with_the_same_inputs_has_no_regression_and_the_same_json(releases):
    train, fresh, _, folder, _ = releases
    again = rg.report(
        train, None, fresh, folder / "v1b.html", previous=folder / "v1.json", fail_under={"privacy": 0}
    )
    assert again.comparison.regressions == [] and again.comparison.changed_settings == []
    assert all(c.previous == c.current for c in again.comparison.changes)

    def stable(path):
        data = json.loads(path.read_text())
        data["run"].pop("created_at")
        data.pop("comparison")
        return data

    assert stable(folder / "v1b.json") == stable(folder / "v1.json")


def test_a_missing_or_foreign_previous_file_is_a_clear_error_before_any_work(releases, tmp_path):
    train, fresh, _, _, _ = releases
    with pytest.raises(rg.LoadError, match="do not exist"):
        rg.report(train, None, fresh, tmp_path / "r.html", previous=tmp_path / "nope.json")
    (tmp_path / "other.json").write_text('{"hello": 1}')
    with pytest.raises(rg.LoadError, match="not the JSON that reportgen writes"):
        rg.report(train, None, fresh, tmp_path / "r.html", previous=tmp_path / "other.json")
    assert not (tmp_path / "r.html").exists()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda path: path.mkdir(), "is a folder: give the JSON file written beside the previous report"),
        (lambda path: path.write_text("[" * 100_000 + "]" * 100_000), "nested too deeply"),
        (lambda path: path.write_text('{"run": {"run": ' * 400 + "1" + "}" * 800), "not the JSON that"),
        (lambda path: path.write_bytes(b"\xff\xfe{"), "cannot be read"),
    ],
)
def test_a_previous_that_is_a_folder_or_deeply_nested_is_a_clear_error(tmp_path, capsys, make, message):
    previous = tmp_path / "previous.json"
    make(previous)
    folder = tmp_path / "in"
    write_folder(rg.RelationalData({"t": table(50, np.random.default_rng(0))}), folder)
    argv = ["report", "--train", str(folder), "--synth", str(folder), "--out", str(tmp_path / "r.html")]
    assert main([*argv, "--previous", str(previous)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and str(previous) in err
    assert not (tmp_path / "r.html").exists()


def test_the_command_names_the_regressions(releases, tmp_path, capsys):
    train, _, leaky, folder, _ = releases
    for name, frame in {"train": train, "leaky": leaky}.items():
        write_folder(rg.RelationalData({"table": frame}), tmp_path / name)
    args = ["report", "--train", str(tmp_path / "train"), "--synth", str(tmp_path / "leaky"), "--quiet"]
    main([*args, "--out", str(tmp_path / "r.html"), "--previous", str(folder / "v1.json")])
    err = capsys.readouterr().err
    assert "regression since the previous release: privacy score" in err
