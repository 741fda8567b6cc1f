import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen import RelationalData, ReportResults
from reportgen.cli import main
from reportgen.data.io import write_folder


@pytest.fixture
def folders(people, tmp_path):
    for name, frame in {
        "train": people.iloc[:150],
        "test": people.iloc[150:],
        "synth": people.sample(200, random_state=0),
    }.items():
        write_folder(RelationalData({"people": frame}), tmp_path / name)
    return tmp_path


def test_report_command_from_folders(folders, capsys):
    out = folders / "r.pdf"
    code = main(
        [
            "report",
            "--train",
            str(folders / "train"),
            "--test",
            str(folders / "test"),
            "--synth",
            str(folders / "synth"),
            "--out",
            str(out),
            "--seed",
            "1",
            "--fail-under",
            "privacy=0",  # the synthetic rows here are drawn from the real ones, training rows included
        ]
    )
    assert code == 0
    assert out.read_bytes().startswith(b"%PDF")
    results = ReportResults.load(folders / "r.json")
    assert results.run.seed == 1
    assert results.sections["overview"].tables[0].rows_synth == 200


def test_bad_input_exits_2_with_a_message_and_writes_nothing(folders, capsys):
    broken = folders / "broken"
    frame = pd.read_csv(folders / "synth" / "people.csv").drop(columns=["income"])
    write_folder(RelationalData({"people": frame}), broken)
    out = folders / "r.html"
    code = main(["report", "--train", str(folders / "train"), "--synth", str(broken), "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("reportgen: error:")
    assert "Table 'people' of the synthetic data lacks column(s) ['income']" in err
    assert not out.exists() and not (folders / "r.json").exists()


def test_installed_command_runs():
    done = subprocess.run(
        [sys.executable, "-m", "reportgen.cli", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "report" in done.stdout and "Exit codes" in done.stdout


def test_privacy_command_prints_the_numbers_of_compute_privacy_stats(folders, capsys):
    import json

    from reportgen.data.io import load
    from reportgen.standalone import compute_privacy_stats

    args = ["privacy", "--train", str(folders / "train"), "--synth", str(folders / "synth"), "--seed", "3"]
    assert main([*args, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = compute_privacy_stats(load(folders / "train"), None, load(folders / "synth"), seed=3)
    assert printed == {name: s.model_dump(mode="json") for name, s in expected.items()}
    assert main(args) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:3] == ["table", "privacy", "score"]
    assert table[1].split()[:2] == ["people", f"{expected['people'].privacy_score:.1f}"]


def test_privacy_command_with_a_holdout_prints_the_worst_attack_per_table(folders, capsys):
    import json

    from reportgen.data.io import load
    from reportgen.standalone import compute_membership, compute_privacy_risks

    args = ["privacy", "--train", str(folders / "train"), "--synth", str(folders / "synth")]
    args += ["--test", str(folders / "test"), "--seed", "3", "--risk-attacks", "100"]
    assert main([*args, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    train, test, synth = (load(folders / role) for role in ("train", "test", "synth"))
    expected = compute_membership(train, test, synth, seed=3)
    risks = compute_privacy_risks(train, test, synth, n_attacks=100, seed=3)
    assert printed["people"]["membership"] == expected["people"].model_dump(mode="json")
    assert printed["people"]["risks"] == risks["people"].model_dump(mode="json")
    assert "privacy_score" in printed["people"]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    header = lines.index(next(line for line in lines if "worst attack" in line))
    worst = expected["people"].worst
    assert lines[header + 1].split()[:3] == ["people", worst.attack, f"{worst.auc:.3f}"]
    linkability = next(line for line in lines if line.split()[:2] == ["people", "linkability"])
    assert f"{risks['people'].linkability.risk:.2%}" in linkability


@pytest.mark.parametrize("rows", [1, 2, 5])
def test_privacy_on_tiny_tables_says_why_each_number_is_missing_and_fails_closed(
    people, tmp_path, capsys, rows
):
    import json

    for role, start in (("train", 0), ("test", 100), ("synth", 200)):
        write_folder(RelationalData({"people": people.iloc[start : start + rows]}), tmp_path / role)
    args = ["privacy", *(f"--{role}={tmp_path / role}" for role in ("train", "test", "synth"))]
    assert main([*args, "--json"]) == 3
    captured = capsys.readouterr()
    reasons = json.loads(captured.out)["people"]["not_measured"]
    assert set(reasons) == {"privacy score", "membership attacks", "singling out, linkability and inference"}
    assert all(f"({rows} training" in reason for reason in reasons.values())
    for label, reason in reasons.items():
        assert f"not measured for people: {label}: {reason}" in captured.err
    assert "pass --allow-not-evaluated to accept that" in captured.err
    assert main([*args, "--allow-not-evaluated"]) == 0
    assert "not measured for people: privacy score: too few rows" in capsys.readouterr().err


def test_privacy_on_60_rows_copied_verbatim_shows_the_copies_and_fails_closed(people, tmp_path, capsys):
    import json

    train = people.iloc[:60]
    write_folder(RelationalData({"people": train}), tmp_path / "train")
    write_folder(RelationalData({"people": train.sample(frac=1, random_state=1)}), tmp_path / "synth")
    args = ["privacy", f"--train={tmp_path / 'train'}", f"--synth={tmp_path / 'synth'}"]
    assert main(args) == 3
    captured = capsys.readouterr()
    assert "people: 100.0% of the synthetic rows are exact copies of training rows" in captured.out
    assert "not measured for people: privacy score: too few rows for the proximity ratios (60 training" in (
        captured.err
    )
    assert main([*args, "--json", "--allow-not-evaluated"]) == 0
    printed = json.loads(capsys.readouterr().out)["people"]
    assert printed["exact_copies"] == 1.0 and "privacy_score" not in printed


def _without_run(path, table: str) -> dict:
    """The JSON's sections and findings, every value naming the single table made neutral."""

    def neutral(value):
        if isinstance(value, dict):
            return {k: v if k == "view" else neutral(v) for k, v in value.items()}
        if isinstance(value, list):
            return [neutral(v) for v in value]
        return "T" if value == table else value

    data = ReportResults.load(path).model_dump(mode="json")
    return neutral({"sections": data["sections"], "findings": data["findings"]})


@pytest.mark.usefixtures("figures_not_drawn")  # compares numbers (tests/drawing.py)
def test_one_csv_gives_the_same_numbers_through_python_and_the_command_line(tmp_path):
    rng = np.random.default_rng(11)

    def draw(n: int) -> pd.DataFrame:
        x = rng.normal(size=n)
        return pd.DataFrame(
            {
                "x": x,
                "y": x + rng.normal(0, 0.3, n),
                "c": np.where(x > 0, "hi", "lo"),
                "k": rng.integers(0, 4, n),
            }
        )

    paths = {}
    for name in ("fit_rows", "held_out", "generated"):
        paths[name] = tmp_path / f"{name}.csv"
        draw(200).to_csv(paths[name], index=False)
    out_cli = tmp_path / "cli.html"
    code = main(
        ["report", "--train", str(paths["fit_rows"]), "--test", str(paths["held_out"]), "--synth",
         str(paths["generated"]), "--out", str(out_cli), "--target", "c", "--quiet"]
    )  # fmt: skip
    assert code == 0
    read = {name: pd.read_csv(path) for name, path in paths.items()}
    rg.report(
        read["fit_rows"], read["held_out"], read["generated"], tmp_path / "py.html", targets={"table": "c"}
    )
    assert _without_run(out_cli.with_suffix(".json"), "fit_rows") == _without_run(
        tmp_path / "py.json", "table"
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["report", "--trian", "a.csv", "--synth", "b.csv", "--out", "r.pdf"],
            "unknown option --trian of reportgen report: did you mean --train?",
        ),
        (["report", "--fail-undr=privacy=80", "--train", "a.csv"], "did you mean --fail-under?"),
        (["reprot", "--train", "a.csv"], "unknown command 'reprot': did you mean report?"),
        (["privacy", "--holdout", "h.csv"], "unknown option --holdout of reportgen privacy"),
    ],
)
def test_a_misspelled_command_or_option_gets_the_closest_spelling(argv, expected, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err


def test_an_abbreviated_option_is_still_accepted(folders, tmp_path):
    args = ["report", "--tra", str(folders / "train"), "--synth", str(folders / "synth")]
    assert main([*args, "--out", str(tmp_path / "r.html"), "--fail-under", "privacy=0", "-q"]) == 0


def test_commands_without_bars_do_not_promise_exit_code_3(capsys):
    for command in ("privacy", "audit", "demo"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "3 a release bar failed" not in capsys.readouterr().out


def test_privacy_command_on_parquet_folders_gives_the_numbers_of_the_same_dataframes(
    people, tmp_path, capsys, monkeypatch
):
    """Read in place, within the caps: the samples drawn in DuckDB are every row, so equal numbers."""
    import json

    import reportgen.data.io
    from reportgen.standalone import compute_membership, compute_privacy_risks, compute_privacy_stats

    frames = {
        "train": people.iloc[:150],
        "test": people.iloc[150:],
        "synth": people.sample(200, random_state=0),
    }
    for role, frame in frames.items():
        write_folder(
            RelationalData({"people": frame.reset_index(drop=True)}), tmp_path / role, format="parquet"
        )
    args = ["privacy", "--json", "--seed", "3", "--risk-attacks", "100"]
    args += [f"--{role}={tmp_path / role}" for role in frames]
    with monkeypatch.context() as patch:
        patch.setattr(reportgen.data.io, "load", lambda *a, **k: pytest.fail("loaded, not read in place"))
        assert main(args) == 0
    printed = json.loads(capsys.readouterr().out)
    train, test, synth = ({"people": frames[role].reset_index(drop=True)} for role in frames)
    stats = compute_privacy_stats(train, test, synth, seed=3)
    membership = compute_membership(train, test, synth, seed=3)
    risks = compute_privacy_risks(train, test, synth, n_attacks=100, seed=3)
    expected = stats["people"].model_dump(mode="json")
    expected |= {"membership": membership["people"].model_dump(mode="json")}
    expected |= {"risks": risks["people"].model_dump(mode="json")}
    assert printed["people"] == expected
    assert 0 < printed["people"]["privacy_score"] < 100
