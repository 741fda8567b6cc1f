"""Common bad-input tests: every hostile input gets a clear refusal or a report that says what it did.

In the spirit of scikit-learn's common estimator checks, one table of hostile data (types,
encodings, non-finite values, dates, names, keys, shapes) runs through ``report()``. Each case
expects either

- a refusal: a ``ReportgenError`` subclass whose message names the table and column, or
- a written report whose JSON carries a finding naming the table and column (or a table-level
  finding where the problem is the table's),

and never a modified input. A sample goes through the command line too: exit 2 and a one-line
message without a traceback, or a report with the finding in its JSON.

Speed: tiny generated tables, HTML, small caps and the fewest risk attacks. Figures are built
(so a figure that cannot be made still fails) but drawn to SVG only in the cases marked ``draw``,
those whose values or names reach the drawing (non-finite numbers, far dates, odd names).
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen.cli import main
from reportgen.errors import DataError, IncompatibleDataError, ReportgenError, SchemaError
from reportgen.settings import MIN_RISK_ATTACKS

from .drawing import skip_drawing

N = 150
FAST = {"n_max_phik": 100, "n_max_utility": 100, "n_max_detection": 100, "risk_attacks": MIN_RISK_ATTACKS}
T = "table"  # the name of single-table data


def people(seed: int, n: int = N) -> pd.DataFrame:
    """A small mixed table: numbers, a category, a boolean, a date."""
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "age": rng.normal(40, 10, n).round(1),
            "income": rng.lognormal(10, 1, n).round(2),
            "city": rng.choice(["Rome", "Oslo", "Lima", "Pune"], n),
            "member": rng.choice([True, False], n),
            "joined": pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 1500, n), unit="D"),
        }
    )


def shops(seed: int, parent_ids: Any = None, child_ids: Any = None) -> dict[str, pd.DataFrame]:
    """Two related tables: customers and their orders."""
    rng = np.random.default_rng(seed)
    ids = np.arange(40) if parent_ids is None else parent_ids
    refs = ids[rng.integers(0, 40, N)] if child_ids is None else child_ids
    return {
        "customers": pd.DataFrame({"id": ids, "age": rng.normal(40, 10, 40).round(1)}),
        "orders": pd.DataFrame({"customer": refs, "amount": rng.lognormal(3, 1, N).round(2)}),
    }


SHOP = rg.Schema(
    customers=rg.Table(id=rg.PrimaryKey()),
    orders=rg.Table(customer=rg.ForeignKey(parent="customers")),
)


def with_column(frame: pd.DataFrame, column: str, values: Any) -> pd.DataFrame:
    return frame.assign(**{column: values})


def renamed(frame: pd.DataFrame, names: list[Any]) -> pd.DataFrame:
    out = frame.copy()
    out.columns = names
    return out


def with_values(frame: pd.DataFrame, column: str, rows: list[int], values: list[Any]) -> pd.DataFrame:
    out = frame.copy()
    if out[column].dtype != object and any(isinstance(v, str) for v in values):
        out[column] = out[column].astype(object)
    out.loc[rows, column] = values
    return out


def bools(frame: pd.DataFrame, mapping: dict[bool, Any]) -> pd.DataFrame:
    return with_column(frame, "member", frame["member"].map(mapping))


def dates(strings: Callable[[int], str], n: int = N) -> pd.Series:
    return pd.Series([strings(i) for i in range(n)], dtype=object)


@dataclass(frozen=True)
class Case:
    """One hostile input and what it must give.

    ``error``: the ReportgenError subclass expected (None: a written report); ``names``: what the
    message or finding must name (table, column); ``code``: the finding's code when written (None:
    nothing to report, and the results must name ``names``, the columns that survived).
    """

    id: str
    inputs: Callable[[], tuple[Any, Any, Any]]
    error: type[ReportgenError] | None = None
    code: str | None = None
    names: tuple[str | None, ...] = ()
    kwargs: dict[str, Any] = field(default_factory=dict)
    draw: bool = False


def single(train: pd.DataFrame | None = None, test: Any = "same", synth: Any = None) -> Callable:
    """Inputs around the clean people tables, with some replaced."""

    def make() -> tuple[Any, Any, Any]:
        return (
            people(0) if train is None else train,
            people(1) if isinstance(test, str) else test,
            people(2) if synth is None else synth,
        )

    return make


P0, P1, P2 = people(0), people(1), people(2)
THOUSAND_LEVELS = with_column(people(3, 3000), "city", [f"city {i % 1000}" for i in range(3000)])

CASES = [
    # -- booleans in other encodings -----------------------------------------------------------
    Case("bool as 0/1 in synthetic", single(synth=bools(P2, {True: 1, False: 0})), code="boolean_encoding_aligned", names=(T, "member")),
    Case("bool as yes/no in holdout", single(test=bools(P1, {True: "yes", False: "no"})), code="boolean_encoding_aligned", names=(T, "member")),
    Case("bool as 'True'/'False' strings", single(synth=bools(P2, {True: "True", False: "False"})), code="boolean_encoding_aligned", names=(T, "member")),
    Case("training yes/no, synthetic bool", single(train=bools(P0, {True: "Yes", False: "No"}), test=None), code="boolean_encoding_aligned", names=(T, "member")),
    Case("bool with a foreign value", single(synth=bools(P2, {True: "maybe", False: "no"})), error=IncompatibleDataError, names=(T, "member")),
    # -- numbers as text, mixed types ----------------------------------------------------------
    Case("numbers as strings in training", single(train=with_column(P0, "age", P0["age"].astype(str))), code="numeric_strings_read", names=(T, "age")),
    Case("numbers as strings in synthetic", single(synth=with_column(P2, "income", P2["income"].astype(str))), code="numeric_strings_read", names=(T, "income")),
    Case("text in a numeric synthetic column", single(synth=with_values(P2, "age", [3], ["n/a"])), error=IncompatibleDataError, names=(T, "age")),
    Case("numbers and text mixed in a column", single(train=with_column(P0, "city", [i % 5 if i % 2 else "x" for i in range(N)]), test=None), code="mixed_types", names=(T, "city")),
    Case("lists in cells", single(synth=with_column(P2, "city", [["Rome"]] * N)), error=DataError, names=(T, "city")),
    # -- non-finite numbers --------------------------------------------------------------------
    Case("+inf in training", single(train=with_values(P0, "income", [0, 5], [np.inf, np.inf])), code="non_finite_values", names=(T, "income"), draw=True),
    Case("-inf in synthetic", single(synth=with_values(P2, "age", [1], [-np.inf])), code="non_finite_values", names=(T, "age")),
    Case("inf in holdout", single(test=with_values(P1, "age", [2, 3], [np.inf, -np.inf])), code="non_finite_values", names=(T, "age")),
    Case("a synthetic column all inf", single(synth=with_column(P2, "income", np.inf)), code="non_finite_values", names=(T, "income")),
    Case("'inf' strings in training", single(train=with_values(P0.assign(age=P0["age"].astype(str)), "age", [0], ["inf"])), code="non_finite_values", names=(T, "age")),
    # -- dates ---------------------------------------------------------------------------------
    Case("year 2500 in training", single(train=with_column(P0, "joined", dates(lambda i: f"{2500 if i % 9 == 0 else 2020}-01-{i % 28 + 1:02d}")), test=None), code="dates_out_of_range", names=(T, "joined")),
    Case("year 1500 in synthetic", single(synth=with_column(P2, "joined", dates(lambda i: f"{1500 if i < 3 else 2021}-02-{i % 28 + 1:02d}"))), code="dates_out_of_range", names=(T, "joined")),
    Case("9999-12-31 in holdout", single(test=with_column(P1, "joined", dates(lambda i: "9999-12-31" if i % 4 == 0 else f"2021-03-{i % 28 + 1:02d}"))), code="dates_out_of_range", names=(T, "joined")),
    Case("aware and naive timestamps mixed", single(train=with_column(P0, "joined", pd.Series([pd.Timestamp("2021-01-01", tz="Asia/Tokyo") if i % 2 else pd.Timestamp("2020-06-01") for i in range(N)], dtype=object)), test=None), code="mixed_time_zones", names=(T, "joined")),
    Case("aware training, naive synthetic", single(train=with_column(P0, "joined", P0["joined"].dt.tz_localize("Europe/Rome")), test=None), code="time_zone_assumed", names=(T, "joined")),
    Case("not a date in synthetic", single(synth=with_column(P2, "joined", dates(lambda i: "soon" if i == 7 else "2021-01-01"))), error=IncompatibleDataError, names=(T, "joined")),
    # -- names ---------------------------------------------------------------------------------
    Case("repeated name in training", single(train=renamed(P0, ["age", "age", "city", "member", "joined"])), error=SchemaError, names=(T, "age")),
    Case("repeated name in synthetic", single(synth=renamed(P2, ["age", "income", "city", "city", "joined"])), error=SchemaError, names=(T, "city")),
    Case("names clash once made strings", single(train=renamed(P0, [1, "1", "city", "member", "joined"])), error=SchemaError, names=(T, "1")),
    Case("unicode and emoji names", single(*[renamed(f, ["âge 🎂", "収入", "city", "member", "joined"]) for f in (P0, P1, P2)]), names=("âge 🎂", "収入")),
    Case("names that look like markup and maths", single(*[renamed(f, ["<b>age</b>", "$income^2$", "city & co", "member", "joined"]) for f in (P0, P1, P2)]), names=("<b>age</b>", "$income^2$"), draw=True),
    Case("extra synthetic column", single(synth=P2.assign(extra=1)), code="extra_column", names=(T, "extra")),
    Case("missing synthetic column", single(synth=P2.drop(columns="city")), error=IncompatibleDataError, names=(T, "city")),
    # -- keys ----------------------------------------------------------------------------------
    Case("int keys, string foreign keys", lambda: (shops(0, child_ids=shops(0)["orders"]["customer"].astype(str)), None, shops(1)), code="key_types_aligned", names=("orders", "customer"), kwargs={"schema": SHOP}),
    Case("int keys in training, strings in synthetic", lambda: (shops(0), None, shops(1, parent_ids=np.arange(40).astype(str))), code="key_types_aligned", names=("customers", "id"), kwargs={"schema": SHOP}),
    Case("foreign keys that are not numbers", lambda: (shops(0), None, shops(1, child_ids=[f"c{i}" for i in range(N)])), error=IncompatibleDataError, names=("orders", "customer"), kwargs={"schema": SHOP}),
    Case("real orphans", lambda: (shops(0, child_ids=np.arange(N) % 60), None, shops(1)), code="real_orphans", names=("orders", "customer"), kwargs={"schema": SHOP}),
    Case("duplicate synthetic primary keys", lambda: (shops(0), None, shops(1, parent_ids=np.arange(40) % 30)), code="synthetic_duplicate_primary_keys", names=("customers", "id"), kwargs={"schema": SHOP}),
    # -- shapes and degenerate columns ----------------------------------------------------------
    Case("one synthetic row", single(synth=P2.iloc[:1]), code="phik_constant_column", names=(T, "age")),
    Case("one training row", single(train=P0.iloc[:1], test=None), code="phik_constant_column", names=(T, "age")),
    Case("no synthetic rows", single(synth=P2.iloc[:0]), error=IncompatibleDataError, names=(T,)),
    Case("a synthetic child table without rows", lambda: (shops(0), None, {**shops(1), "orders": shops(1)["orders"].iloc[:0]}), code="synthetic_table_missing", names=("orders",), kwargs={"schema": SHOP}),
    Case("no training rows", single(train=P0.iloc[:0]), error=DataError, names=(T,)),
    Case("a constant column", single(train=P0.assign(city="Rome"), test=None, synth=P2.assign(city="Rome")), code="phik_constant_column", names=(T, "city")),
    Case("an all-missing training column", single(train=P0.assign(income=np.nan), test=None), code="all_missing_column", names=(T, "income")),
    Case("an all-missing synthetic column", single(synth=P2.assign(income=np.nan)), code="phik_constant_column", names=(T, "income")),
    Case("a category of 1000 levels", single(train=THOUSAND_LEVELS, test=None, synth=people(4, 3000).assign(city=THOUSAND_LEVELS["city"].sample(frac=1, random_state=0).to_numpy())), code="pooled_levels", names=(T, "city"), kwargs={"n_max_train": 400, "n_max_synth": 400}),
    Case("a near-unique category", single(train=P0.assign(city=pd.Categorical([f"p{i}" for i in range(N)])), test=None), code="near_unique_column", names=(T, "city")),
    Case("nullable dtypes with gaps", single(train=P0.astype({"age": "Float64", "member": "boolean"}).assign(income=pd.array([None] * 9 + list(P0["income"][9:]), dtype="Float64"))), names=("age", "member")),
    Case("holdout half copied from training", single(test=pd.concat([P0.iloc[:75], P1.iloc[75:]])), code="holdout_overlaps_training", names=(T,)),
    Case("synthetic is not a table", single(synth=[1, 2, 3]), error=IncompatibleDataError, names=("synthetic",)),
]  # fmt: skip


def snapshot(value: Any) -> Any:
    """A deep copy to compare the input with after the run."""
    return copy.deepcopy(value)


def assert_unchanged(before: Any, after: Any) -> None:
    if isinstance(before, pd.DataFrame):
        pd.testing.assert_frame_equal(after, before, check_exact=True)
    elif isinstance(before, dict):
        assert list(after) == list(before)
        for name in before:
            assert_unchanged(before[name], after[name])


@pytest.fixture
def figures_built_not_drawn(monkeypatch, request):
    """Skip the drawing unless the case reaches it."""
    if not request.node.callspec.params["case"].draw:
        skip_drawing(monkeypatch)


@pytest.mark.filterwarnings("ignore:Glyph .* missing from font")  # an emoji drawn as a box
@pytest.mark.usefixtures("figures_built_not_drawn")
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_bad_input_is_refused_clearly_or_reported(case: Case, tmp_path: Path) -> None:
    inputs = case.inputs()
    before = snapshot(inputs)
    out = tmp_path / "r.html"
    if case.error is not None:
        with pytest.raises(ReportgenError) as caught:
            rg.report(*inputs, out, **FAST, **case.kwargs)
        assert isinstance(caught.value, case.error), repr(caught.value)
        message = str(caught.value)
        assert all(repr(name) in message or name in message for name in case.names if name), message
        assert not out.exists()
    else:
        results = rg.report(*inputs, out, **FAST, **case.kwargs)
        written = json.loads(out.with_suffix(".json").read_text())
        assert out.exists()
        if case.code is None:
            shown = out.with_suffix(".json").read_text(encoding="utf-8")
            assert all(json.dumps(name)[1:-1] in shown for name in case.names)
            return assert_all_unchanged(inputs, before)
        table, column = [*case.names, None, None][:2]
        hits = [
            f
            for f in written["findings"]
            if f["code"] == case.code
            and f["table"] in (table, f"{table}.entity")
            and column in (None, f["column"])
        ]
        assert hits, [(f["code"], f["table"], f["column"]) for f in written["findings"]]
        assert len(results.findings) == len(written["findings"])
    assert_all_unchanged(inputs, before)


def assert_all_unchanged(inputs: tuple[Any, ...], before: tuple[Any, ...]) -> None:
    for given, kept in zip(inputs, before, strict=True):
        assert_unchanged(kept, given)


def write_people(folder: Path, frame: pd.DataFrame) -> Path:
    folder.mkdir()
    frame.to_csv(folder / "people.csv", index=False)
    return folder


def cli_report(tmp_path: Path, train: Path, synth: Path) -> int:
    out = tmp_path / "r.html"
    return main(
        [
            *("report", "--train", str(train), "--synth", str(synth), "--out", str(out), "--quiet"),
            *("--risk-attacks", str(MIN_RISK_ATTACKS), "--n-max-utility", "100"),
        ]
    )


@pytest.mark.parametrize(
    ("synth", "code", "column"),
    [
        (bools(P2, {True: "yes", False: "no"}), "boolean_encoding_aligned", "member"),
        (with_values(P2, "income", [4], [np.inf]), "non_finite_values", "income"),
        (with_column(P2, "joined", dates(lambda i: "2999-01-01" if i < 5 else "2021-05-05")), "dates_out_of_range", "joined"),
    ],
    ids=["yes/no booleans", "inf", "year 2999"],
)  # fmt: skip
def test_the_command_line_reports_what_it_reconciled(tmp_path, monkeypatch, capsys, synth, code, column):
    skip_drawing(monkeypatch)
    train = write_people(tmp_path / "train", P0)
    assert cli_report(tmp_path, train, write_people(tmp_path / "synth", synth)) == 0
    findings = json.loads((tmp_path / "r.json").read_text())["findings"]
    assert (code, "people", column) in {(f["code"], f["table"], f["column"]) for f in findings}
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(
    ("header", "names"),
    [
        ("age,income,income,city,member,joined", ["'people'", "income"]),
        ("age,income,city,member", ["'people'", "joined"]),
    ],
    ids=["repeated header name", "missing column"],
)
def test_the_command_line_refuses_with_exit_2_and_no_traceback(tmp_path, capsys, header, names):
    train = write_people(tmp_path / "train", P0)
    synth = tmp_path / "synth"
    synth.mkdir()
    rows = P2.astype(str).to_numpy()[:, : len(header.split(","))]
    (synth / "people.csv").write_text(header + "\n" + "\n".join(",".join(r) for r in rows) + "\n")
    assert cli_report(tmp_path, train, synth) == 2
    err = capsys.readouterr().err
    assert err.startswith("reportgen: error:") and "Traceback" not in err
    assert all(name in err for name in names), err
    assert not (tmp_path / "r.html").exists()


def test_the_installed_command_exits_2_without_a_traceback(tmp_path):
    train = write_people(tmp_path / "train", P0)
    synth = tmp_path / "synth"
    synth.mkdir()
    (synth / "people.csv").write_text("age,age,city\n1,2,a\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "reportgen.cli",
            "report",
            "--quiet",
            "--out",
            str(tmp_path / "r.html"),
            *("--train", str(train), "--synth", str(synth)),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "'age'" in done.stderr


def test_arrow_backed_columns_with_missing_values_give_the_numbers_of_their_numpy_twins(
    tmp_path, monkeypatch
):
    """pandas' pyarrow dtypes (timestamps with <NA> above all) are reconciled and measured as numpy's."""
    skip_drawing(monkeypatch)
    arrow = {
        "joined": "timestamp[ns][pyarrow]",
        "age": "double[pyarrow]",
        "income": "double[pyarrow]",
        "city": "string[pyarrow]",
        "member": "bool[pyarrow]",
    }
    frames = []
    for seed in (0, 1, 2):
        frame = people(seed)
        frame.loc[::7, "joined"], frame.loc[::5, "age"], frame.loc[::6, "city"] = pd.NaT, np.nan, None
        frames.append(frame)
    given = [f.astype(arrow) for f in frames]
    assert given[0]["joined"].isna().sum() == 22 and str(given[0]["joined"].dtype) == "timestamp[ns][pyarrow]"
    before = snapshot(tuple(given))
    written = {}
    for label, inputs in (("numpy", frames), ("arrow", given)):
        rg.report(*inputs, tmp_path / f"{label}.html", **FAST)
        written[label] = json.loads((tmp_path / f"{label}.json").read_text())
        written[label].pop("run")  # when and from what: the rest must be equal
    assert written["arrow"] == written["numpy"]
    assert_all_unchanged(tuple(given), before)


@pytest.mark.parametrize("command", ["report", "privacy"])
def test_a_secret_no_table_has_is_refused_before_any_work_naming_it_and_the_columns(
    tmp_path, capsys, command
):
    train = write_people(tmp_path / "train", P0)
    synth = write_people(tmp_path / "synth", P2)
    out = ("--out", str(tmp_path / "r.html"), "--quiet") if command == "report" else ()
    code = main([command, "--train", str(train), "--synth", str(synth), *out, "--secret", "bonus"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("reportgen: error:") and "Traceback" not in err
    assert "--secret" in err and "'bonus'" in err, err
    assert "table 'people': age, income, city, member, joined" in err, err
    assert not (tmp_path / "r.html").exists()
    with pytest.raises(rg.InvalidParameterError, match=r"risk_secrets .*'bonus'.*table 'table': age, income"):
        rg.report(P0, None, P2, tmp_path / "r.html", risk_secrets=["bonus"])
