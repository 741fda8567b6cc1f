"""The shared per-table preparation: which columns are compared, and the findings it raises."""

import numpy as np
import pandas as pd

import reportgen as rg
from reportgen.context import NEAR_UNIQUE
from reportgen.data.schema import ColumnKind
from reportgen.preparation import prepare_context
from reportgen.settings import ReportSettings


def customers(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """A name column that nearly identifies rows (a pandas categorical, so inferred categorical)."""
    names = [f"person {i}" for i in rng.integers(0, 100 * n, n)]
    return pd.DataFrame(
        {
            "name": pd.Categorical(names),
            "city": rng.choice(["Rome", "Oslo", "Lima"], n),
            "age": rng.normal(40, 10, n),
        }
    )


def test_a_near_unique_categorical_is_an_identifier_with_a_finding():
    rng = np.random.default_rng(0)
    data = {"people": customers(400, rng)}
    ctx = prepare_context(data, None, {"people": customers(400, rng)}, ReportSettings())
    prep = ctx.table("people")
    assert prep.schema.kinds["name"] is ColumnKind.CATEGORICAL
    assert prep.excluded == {"name": NEAR_UNIQUE}
    assert prep.distance_space.columns == ["city", "age"]
    assert list(ctx.distance_views()["people"].kinds) == ["city", "age"]  # what Gower compares
    found = [f for f in ctx.findings if f.code == "near_unique_column"]
    assert [(f.table, f.column, f.severity) for f in found] == [("people", "name", "warning")]
    assert "'name' of table 'people'" in found[0].message


def test_a_declared_categorical_with_few_repeats_is_kept():
    rng = np.random.default_rng(1)
    train = customers(400, rng).assign(name=lambda f: f["name"].astype(str).str[:9])  # under 100 values
    schema = rg.Schema(people=rg.Table(name="categorical", city="categorical", age="numeric"))
    ctx = prepare_context({"people": train}, None, {"people": train}, ReportSettings(), schema=schema)
    assert ctx.table("people").excluded == {}
    assert not [f for f in ctx.findings if f.code == "near_unique_column"]


# -- a composite key's data ---------------------------------------------------------------------
DAYS = rg.Schema(
    store_days=rg.Table(day=rg.PrimaryKey(kind="datetime"), store=rg.PrimaryKey(), visitors="numeric"),
    sales=rg.Table(
        sale=rg.PrimaryKey(),
        day="datetime",
        amount="numeric",
        foreign_keys=[rg.ForeignKey(parent="store_days", columns=["day", "store"])],
    ),
)


def store_sales(rng: np.random.Generator, *, years_later: int = 0) -> dict[str, pd.DataFrame]:
    """60 days x 5 stores, and 1,500 sales on them; ``years_later`` moves every date, keys intact."""
    days = pd.date_range("2021-01-01", periods=60, freq="D") + pd.DateOffset(years=years_later)
    parents = pd.DataFrame([(d, s) for d in days for s in range(5)], columns=["day", "store"])
    parents["visitors"] = rng.poisson(200, len(parents)).astype(float)
    picked = parents.iloc[rng.integers(0, len(parents), 1500)]
    sales = pd.DataFrame(
        {
            "sale": np.arange(1500),
            "day": picked["day"].to_numpy(),
            "store": picked["store"].to_numpy(),
            "amount": rng.gamma(2, 20, 1500),
        }
    )
    return {"store_days": parents, "sales": sales}


def test_a_declared_datetime_in_a_composite_key_is_compared_and_still_a_key():
    from reportgen.metrics.relational import compute_relational
    from reportgen.metrics.similarity import compute_similarity

    rng = np.random.default_rng(3)
    train = rg.RelationalData(store_sales(rng), DAYS)
    similarity, relations = {}, {}
    for name, synth in (("same", store_sales(rng)), ("moved", store_sales(rng, years_later=3))):
        ctx = prepare_context(train, None, rg.RelationalData(synth, DAYS), ReportSettings())
        for table in ("store_days", "sales"):
            prep = ctx.table(table)
            assert "day" in prep.compared_columns and prep.schema.kinds["day"] is ColumnKind.DATETIME
            assert prep.excluded["store"].startswith("key column")
        similarity[name] = {
            t.table: next(c.similarity for c in t.column_details if c.column == "day")
            for t in compute_similarity(ctx).tables
        }
        relations[name] = compute_relational(ctx).relations[0]
    assert min(similarity["same"].values()) > 0.9
    assert max(similarity["moved"].values()) < 0.1  # three years later: no date in the real range
    for name in ("same", "moved"):  # the keys still link every sale to its store's day
        assert relations[name].integrity.orphans == 0, name
        assert relations[name].similarity > 0.8, name
