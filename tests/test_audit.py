"""Auditing: the curated set is better where it should be, dropping mostly the planted bad rows."""

import json
import re

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen import ForeignKey, PrimaryKey, RelationalData, Schema, Table
from reportgen.auditing import FLAG_COLUMNS, audit
from reportgen.cli import main
from reportgen.data.io import load, write_folder
from reportgen.errors import InvalidParameterError

D = 8
COLUMNS = [f"x{i}" for i in range(D)]


def gaussian(n: int, rng: np.random.Generator, scale: float = 1.0) -> pd.DataFrame:
    return pd.DataFrame(rng.normal(0, scale, size=(n, D)), columns=COLUMNS)


@pytest.fixture(scope="module")
def planted():
    """Synthetic rows: 50% fresh rows, 25% copies of training rows, 25% off-support noise.

    Half the noise is shifted away from the real rows (3 sd in every column), half is spread
    around them (sd 3): the one-class embedding places about a third of the spread rows inside
    the 95% support, so the test asks less of them.
    """
    rng = np.random.default_rng(0)
    train = gaussian(2000, rng)
    good, copies = gaussian(1000, rng), train.sample(500, random_state=1)
    shifted, spread = gaussian(250, rng) + 3.0, gaussian(250, rng, scale=3.0)
    synth = pd.concat([good, copies, shifted, spread], ignore_index=True)
    return train, synth, audit(train, synth, seed=0)


GOOD, COPIES, SHIFTED, SPREAD = slice(0, 1000), slice(1000, 1500), slice(1500, 1750), slice(1750, 2000)


def test_audit_raises_authenticity_and_precision_and_drops_mostly_planted_rows(planted):
    _, synth, result = planted
    (summary,) = result.summary().to_dict(orient="records")
    assert summary["authenticity_after"] > summary["authenticity_before"] + 0.3
    assert summary["ip_alpha_after"] > summary["ip_alpha_before"] + 0.1
    dropped = ~result.flags["table"]["kept"].to_numpy()
    caught = dropped[1000:].mean()  # 0.92 at seed 0
    print(f"planted caught {caught:.3f}, good rows dropped {dropped[GOOD].mean():.3f}")
    assert caught > 0.85
    assert dropped[COPIES].all() and dropped[SHIFTED].all() and dropped[SPREAD].mean() > 0.5
    assert dropped[GOOD].mean() < 0.6  # fresh rows closer to a training row than its own neighbour go too
    assert (np.flatnonzero(dropped) >= 1000).mean() > 0.6  # most dropped rows were planted
    assert len(result.curated["table"]) == summary["rows_after"] == int((~dropped).sum())
    pd.testing.assert_frame_equal(result.curated["table"], synth[~dropped])


def test_audit_flags_and_the_same_seed(planted):
    train, synth, result = planted
    flags = result.flags["table"]
    assert list(flags.columns) == list(FLAG_COLUMNS) and flags.index.equals(synth.index)
    assert (flags["kept"] == (flags["inside_support"] & flags["authentic"])).all()
    assert not flags["parent_dropped"].any()
    again = audit(train, synth, seed=0)
    pd.testing.assert_frame_equal(again.flags["table"], flags)
    assert rg.audit is audit  # exported lazily from the package


def test_a_larger_alpha_keeps_more_rows(planted):
    train, synth, result = planted
    wide = audit(train, synth, alpha=1.0, seed=0)
    assert wide.flags["table"]["inside_support"].sum() >= result.flags["table"]["inside_support"].sum()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"alpha": 0.0},
            r"The 'alpha' parameter of audit must be a float in the range \(0, 1\]. Got 0.0 instead.",
        ),
        ({"alpha": 1.5}, r"The 'alpha' parameter of audit must be a float in the range \(0, 1\]"),
        ({"n_max": 0}, r"The 'n_max' parameter of audit must be an int in the range \[1, inf\)"),
        ({"device": 3}, r"The 'device' parameter of audit must be None or a str"),
    ],
)
def test_bad_parameters_get_one_message_form(kwargs, message):
    frame = gaussian(100, np.random.default_rng(0))
    with pytest.raises(InvalidParameterError, match=message):
        audit(frame, frame, **kwargs)


# -- relational data: dropping a parent drops its children ------------------------------------------
SCHEMA = Schema(
    customers=Table(customer_id=PrimaryKey()),
    orders=Table(order_id=PrimaryKey(), customer_id=ForeignKey(parent="customers")),
)


def shop(n_customers: int, rng: np.random.Generator, start: int = 0) -> dict[str, pd.DataFrame]:
    ids = np.arange(start, start + n_customers)
    customers = pd.DataFrame({"customer_id": ids, **gaussian(n_customers, rng).iloc[:, :4].to_dict("series")})
    per = rng.integers(1, 4, n_customers)
    orders = pd.DataFrame(
        {
            "order_id": np.arange(start * 10, start * 10 + per.sum()),
            "customer_id": np.repeat(ids, per),
            "amount": rng.lognormal(3, 0.5, per.sum()),
        }
    )
    return {"customers": customers, "orders": orders}


def test_dropping_a_customer_drops_their_orders():
    rng = np.random.default_rng(1)
    train = RelationalData(shop(600, rng), SCHEMA)
    synth_tables = shop(300, rng, start=10_000)
    copied = train["customers"].iloc[:100].assign(customer_id=np.arange(10_000, 10_100))  # copies
    synth_tables["customers"] = pd.concat([copied, synth_tables["customers"].iloc[100:]], ignore_index=True)
    synth = RelationalData(synth_tables, SCHEMA)
    result = audit(train, synth, seed=0)
    customers, orders = result.flags["customers"], result.flags["orders"]
    assert not customers["kept"].iloc[:100].any()  # every copied customer goes
    dropped_ids = set(synth["customers"]["customer_id"][~customers["kept"].to_numpy()])
    of_dropped = synth["orders"]["customer_id"].isin(dropped_ids).to_numpy()
    assert of_dropped.any() and not orders["kept"].to_numpy()[of_dropped].any()
    assert (
        orders["parent_dropped"].to_numpy()[of_dropped & orders["inside_support"] & orders["authentic"]].all()
    )
    kept_ids = set(result.curated["customers"]["customer_id"])
    assert set(result.curated["orders"]["customer_id"]) <= kept_ids  # referentially closed
    assert "customers (entity)" in result.before and "customers (entity)" in result.after
    assert result.curated.integrity()["orders"].is_clean


# -- the command ------------------------------------------------------------------------------------
@pytest.fixture
def folders(tmp_path):
    rng = np.random.default_rng(2)
    train = gaussian(800, rng)
    synth = pd.concat([gaussian(300, rng), train.sample(100, random_state=0)], ignore_index=True)
    write_folder(RelationalData({"points": train}), tmp_path / "train")
    write_folder(RelationalData({"points": synth}), tmp_path / "synth")
    return tmp_path


def test_audit_command_writes_curated_csv_tables_and_a_before_after_summary(folders, capsys):
    out, flags = folders / "curated", folders / "flags.csv"
    argv = ["audit", "--train", str(folders / "train"), "--synth", str(folders / "synth")]
    code = main([*argv, "--out", str(out), "--flags", str(flags), "--seed", "1"])
    assert code == 0
    text = capsys.readouterr().out
    for expected in (
        "rows before",
        "IP_alpha",
        "authenticity",
        "privacy score",
        "similarity score",
        str(out),
    ):
        assert expected in text
    assert (out / "points.csv").is_file() and (out / "schema.yaml").is_file()
    expected = audit(load(folders / "train"), load(folders / "synth"), seed=1)
    curated = load(out)
    assert len(curated["points"]) == len(expected.curated["points"]) < 400
    np.testing.assert_allclose(curated["points"].to_numpy(), expected.curated["points"].to_numpy())
    written = pd.read_csv(flags)
    assert list(written.columns) == ["table", "row", *FLAG_COLUMNS] and len(written) == 400
    assert not written["kept"].iloc[300:].any()  # the copies


def test_audit_command_json_and_single_file(folders, capsys):
    single = folders / "points.csv"
    load(folders / "synth")["points"].to_csv(single, index=False)
    out = folders / "curated.csv"
    argv = ["audit", "--train", str(folders / "train"), "--synth", str(single), "--out", str(out)]
    assert main([*argv, "--json", "--no-report-scores"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["rows"]["points"]["before"] == 400
    assert summary["rows"]["points"]["after"] == len(pd.read_csv(out))
    assert summary["tables"][0]["authenticity_after"] >= summary["tables"][0]["authenticity_before"]
    assert main([*argv[:-1], str(folders / "curated.txt")]) == 2  # a file input needs a table file out
    assert "--out must be one file" in capsys.readouterr().err


# -- read in place: the training sample drawn in the engine, one synthetic table streamed ----------
@pytest.fixture
def lake(tmp_path):
    """Parquet folders: 800 training points; 3,000 fresh synthetic points and 300 copies."""
    rng = np.random.default_rng(2)
    train = gaussian(800, rng)
    synth = pd.concat([gaussian(3000, rng), train.sample(300, random_state=0)], ignore_index=True)
    for role, frame in (("train", train), ("synth", synth)):
        write_folder(RelationalData({"points": frame}), tmp_path / role, format="parquet")
    return tmp_path, train, synth


def test_audit_command_on_parquet_writes_the_rows_the_in_memory_audit_keeps(lake, capsys):
    folder, train, synth = lake
    out, flags = folder / "curated", folder / "flags.csv"
    argv = ["audit", "--train", str(folder / "train"), "--synth", str(folder / "synth"), "--seed", "1"]
    assert main([*argv, "--out", str(out), "--flags", str(flags), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    expected = audit({"points": train}, {"points": synth}, seed=1)
    written = pd.read_parquet(out / "points.parquet")
    pd.testing.assert_frame_equal(written, expected.curated["points"].reset_index(drop=True))
    assert load(out)["points"].shape == written.shape  # schema.yaml beside it names the file
    listed = pd.read_csv(flags)
    np.testing.assert_array_equal(listed["kept"], expected.flags["points"]["kept"])
    assert summary["rows"]["points"] == {"before": 3300, "after": len(written)}
    assert summary["tables"] == expected.summary().to_dict(orient="records")
    assert summary["report_scores"]["privacy score"]["after"] is not None


def test_a_synthetic_table_larger_than_a_batch_is_streamed_with_the_flags_of_the_whole(lake, monkeypatch):
    from reportgen.auditing import curate
    from reportgen.data.engines import DuckDBEngine

    folder, train, synth = lake
    seen: list[int] = []
    batches = DuckDBEngine.batches

    def counted(self, query, size):
        for batch in batches(self, query, size):
            seen.append(len(batch))
            yield batch

    monkeypatch.setattr(DuckDBEngine, "batches", counted)
    flags = folder / "flags.csv"
    done = curate(
        folder / "train", folder / "synth", folder / "kept.parquet", seed=1, batch_rows=500, flags_file=flags
    )
    assert seen == [500] * 6 + [300]  # never more than a batch of synthetic rows at a time
    expected = audit({"points": train}, {"points": synth}, seed=1)
    pd.testing.assert_frame_equal(
        pd.read_parquet(folder / "kept.parquet"), expected.curated["points"].reset_index(drop=True)
    )
    pd.testing.assert_frame_equal(
        pd.read_csv(flags)[list(FLAG_COLUMNS)], expected.flags["points"].reset_index(drop=True)
    )
    pd.testing.assert_frame_equal(done.summary(), expected.summary())
    again = curate(folder / "train", folder / "synth", folder / "again.parquet", seed=1, batch_rows=700)
    assert again.summary().equals(done.summary())
    assert not list(folder.glob(".*.tmp"))  # the temporary files were renamed


def test_streamed_rows_beyond_the_sample_may_have_missing_values_the_sample_lacks(lake):
    """Columns missing only outside the synthetic sample still get their indicator: every row embeds."""
    from reportgen.auditing import curate

    folder, _, synth = lake
    holes = synth.copy()
    holes.loc[holes.index % 500 == 7, "x0"] = np.nan  # 7 rows of 3,300
    write_folder(RelationalData({"points": holes}), folder / "holes", format="parquet")
    done = curate(folder / "train", folder / "holes", folder / "kept.parquet", n_max=400, batch_rows=1000)
    assert done.rows["points"][0] == 3300 and 0 < done.rows["points"][1] < 3300
    kept = pd.read_parquet(folder / "kept.parquet")
    assert set(kept.columns) == set(COLUMNS) and len(kept) == done.rows["points"][1]


def test_relational_synthetic_data_is_not_streamed_and_the_error_says_what_to_do(tmp_path):
    from reportgen.auditing import curate

    rng = np.random.default_rng(1)
    for role, start in (("train", 0), ("synth", 10_000)):
        write_folder(RelationalData(shop(200, rng, start=start), SCHEMA), tmp_path / role, format="parquet")
    with pytest.raises(
        InvalidParameterError, match=r"has 2 tables \['customers', 'orders'\]; only one table"
    ):
        curate(tmp_path / "train", tmp_path / "synth", tmp_path / "out")
    assert not (tmp_path / "out").exists()
    with rg.sources.parquet(tmp_path / "train") as train:  # a source and a path, read in place
        result = audit(train, str(tmp_path / "synth"), seed=0)
    expected = audit(load(tmp_path / "train"), load(tmp_path / "synth"), seed=0)
    for table in ("customers", "orders"):  # audit() reads the synthetic data whole: every row flagged
        pd.testing.assert_frame_equal(
            result.flags[table].reset_index(drop=True), expected.flags[table].reset_index(drop=True)
        )


def test_a_streamed_audit_refuses_an_output_that_is_not_parquet_before_any_work(lake, capsys):
    from reportgen.auditing import curate

    folder, train, synth = lake
    argv = ["audit", "--train", str(folder / "train"), "--synth", str(folder / "synth")]
    assert main([*argv, "--out", str(folder / "curated.csv")]) == 2
    assert "must be a .parquet file or a folder. Got" in capsys.readouterr().err
    assert not (folder / "curated.csv").exists()
    with pytest.raises(InvalidParameterError, match="curate streams synthetic data read in place"):
        curate({"points": train}, synth, folder / "out.parquet")


def test_a_table_named_like_a_path_is_written_inside_the_out_folder(tmp_path, capsys):
    """A database table called ``../escaped`` is curated into ``--out``, not beside it."""
    from reportgen.data.io import write_sql

    rng = np.random.default_rng(4)
    name = "../escaped"
    for role, frame in (("train", gaussian(400, rng)), ("synth", gaussian(300, rng))):
        write_sql(RelationalData({name: frame}), f"sqlite:///{tmp_path / role}.db")
    out = tmp_path / "deep" / "curated"
    argv = ["audit", "--train", f"sqlite:///{tmp_path}/train.db", "--synth", f"sqlite:///{tmp_path}/synth.db"]
    assert main([*argv, "--in-place", "--out", str(out), "--no-report-scores"]) == 0, capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "deep").iterdir()) == ["curated"]
    assert sorted(p.name for p in out.iterdir()) == ["%2E.%2Fescaped.parquet", "schema.yaml"]
    curated = load(out)  # schema.yaml names the file: the table keeps its name
    assert list(curated) == [name] and 0 < len(curated[name]) <= 300


def test_an_out_or_flags_of_the_wrong_kind_is_refused_before_any_work(lake, capsys, monkeypatch):
    """An existing file where a folder is written, or the reverse, is a clear error, not a traceback."""
    import reportgen.auditing
    import reportgen.preparation

    lake_folder, train, synth = lake
    for role, frame in (("train", train), ("synth", synth)):  # CSV: audited in memory
        write_folder(RelationalData({"points": frame}), lake_folder / "csv" / role)
    monkeypatch.setattr(reportgen.preparation, "prepared", lambda *a, **k: pytest.fail("work started"))
    monkeypatch.setattr(reportgen.auditing, "audit", lambda *a, **k: pytest.fail("work started"))
    (lake_folder / "a_file").write_text("x")
    (lake_folder / "a_folder.parquet").mkdir()
    (lake_folder / "a_folder.csv").mkdir()
    in_memory = [
        "audit",
        "--train",
        str(lake_folder / "csv/train"),
        "--synth",
        str(lake_folder / "csv/synth"),
    ]
    streamed = ["audit", "--train", str(lake_folder / "train"), "--synth", str(lake_folder / "synth")]
    cases = [
        (
            in_memory,
            ["--out", str(lake_folder / "a_file")],
            "is an existing file, but it is written as a folder",
        ),
        (
            streamed,
            ["--out", str(lake_folder / "a_file")],
            "is an existing file, but it is written as a folder",
        ),
        (
            streamed,
            ["--out", str(lake_folder / "a_folder.parquet")],
            "is an existing folder, but it is written",
        ),
        (streamed, ["--out", str(lake_folder / "a_file" / "x")], "a_file' is a file, not a folder"),
        (
            in_memory,
            ["--out", str(lake_folder / "o"), "--flags", str(lake_folder / "a_folder.csv")],
            r"--flags \(flags_file\) '.*a_folder.csv' is an existing folder",
        ),
    ]
    for command, out, message in cases:
        assert main([*command, *out, "--no-report-scores"]) == 2
        err = capsys.readouterr().err
        assert re.search(message, err) and "Traceback" not in err, err
    assert not (lake_folder / "o").exists() and (lake_folder / "a_file").read_text() == "x"
