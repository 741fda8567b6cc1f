"""The shared per-table preparation: which columns are compared, and the findings it raises."""

import numpy as np
import pandas as pd

import reportgen as rg
from reportgen.api import prepare_context
from reportgen.context import NEAR_UNIQUE
from reportgen.data.schema import ColumnKind
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
