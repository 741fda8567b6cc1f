"""Hypothesis strategies for generated tables: the one module tests draw random data shapes from.

A strategy draws a *recipe* (each column's kind, missing share and tie to the others, the rows, a
seed, a target, an optional child table) and ``Recipe.generated()`` makes the rows from it with
numpy: hundreds of rows drawn value by value would exceed the data Hypothesis draws per example,
and would not share one population. Every column follows one hidden factor per row (a person's
"z") to a drawn degree, so columns are associated, the target is learnable and children resemble
their parent. The rows of twice the training size are split by entity (a parent row with its
children) into training rows and a holdout of as many: two samples of one population, the setting
in which a report's references are drawn.

``examples(strategy, n)`` gives ``n`` drawn values, the same on every run (derandomized), for tests
that compute something expensive once per drawn value in a module fixture.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeVar

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import reportgen as rg

T = TypeVar("T")
Kind = Literal["numeric", "integer", "categorical", "boolean", "datetime"]
KINDS: tuple[Kind, ...] = ("numeric", "integer", "categorical", "boolean", "datetime")
PARENT, CHILD, TARGET = "people", "visits", "label"
START = pd.Timestamp("2020-01-01")


@dataclass(frozen=True)
class ColumnRecipe:
    """One column: its kind, the share of its values missing, and how closely it follows ``z``.

    ``levels`` is a categorical column's number of levels; ``skew`` a numeric column's log-normal
    spread (0: normal).
    """

    name: str
    kind: Kind
    missing: float
    tie: float
    levels: int = 4
    skew: float = 0.0


@dataclass(frozen=True)
class ChildRecipe:
    """A child table: its columns, and the mean number of children of a parent row."""

    columns: tuple[ColumnRecipe, ...]
    per_parent: float


@dataclass(frozen=True)
class Generated:
    """Training rows and a holdout of as many, drawn from one population, with their schema."""

    train: dict[str, pd.DataFrame]
    test: dict[str, pd.DataFrame]
    schema: rg.Schema
    targets: dict[str, str]


@dataclass(frozen=True)
class Recipe:
    """A drawn data shape: ``rows`` training rows of the parent table (and as many holdout rows)."""

    rows: int
    columns: tuple[ColumnRecipe, ...]
    target: Literal["categorical", "numeric"]
    seed: int
    child: ChildRecipe | None = None

    def generated(self) -> Generated:
        """The rows this recipe describes (the same for the same recipe)."""
        rng = np.random.default_rng(self.seed)
        n = 2 * self.rows
        z = rng.normal(size=n)
        parent = pd.DataFrame({"id": np.arange(n)})
        for column in self.columns:
            parent[column.name] = _column(column, z, rng)
        noise = rng.normal(scale=0.5, size=n)
        parent[TARGET] = (
            np.where(z + noise > 0, "yes", "no") if self.target == "categorical" else 3 * z + noise
        )
        tables = {PARENT: parent}
        if self.child is not None:
            tables[CHILD] = _children(self.child, z, rng)
        held = rng.permutation(n) < self.rows  # a random half of the parents, their children with them
        train = _entities(tables, ~held)
        test = _entities(tables, held)
        return Generated(train, test, self.schema(), {PARENT: TARGET})

    def schema(self, *, target: bool = True) -> rg.Schema:
        """Every column's kind declared, so the tests do not depend on inference from few rows.

        ``target=False``: the target is a column like the others (no utility section).
        """
        kinds = {c.name: c.kind for c in self.columns}
        tables = {
            PARENT: rg.Table(
                id=rg.PrimaryKey(), **kinds, label=self.target, target=TARGET if target else None
            )
        }
        if self.child is not None:
            child_kinds = {c.name: c.kind for c in self.child.columns}
            tables[CHILD] = rg.Table(visit=rg.PrimaryKey(), id=rg.ForeignKey(parent=PARENT), **child_kinds)
        return rg.Schema(tables)


def _column(recipe: ColumnRecipe, z: np.ndarray, rng: np.random.Generator) -> pd.Series:
    """One column's values: ``tie * z`` plus noise, in the recipe's kind, with its share missing."""
    latent = recipe.tie * z + np.sqrt(1 - recipe.tie**2) * rng.normal(size=len(z))
    if recipe.kind == "numeric":
        values = pd.Series(np.exp(recipe.skew * latent) if recipe.skew else 40 + 10 * latent).round(3)
    elif recipe.kind == "integer":
        values = pd.Series(np.round(20 + 6 * latent)).astype("Int64")
    elif recipe.kind == "categorical":
        cuts = np.quantile(latent, np.linspace(0, 1, recipe.levels + 1)[1:-1])
        values = pd.Series(
            np.array([f"level {i}" for i in range(recipe.levels)], dtype=object)[np.digitize(latent, cuts)]
        )
    elif recipe.kind == "boolean":
        values = pd.Series(latent > 0).astype("boolean")
    else:
        values = pd.Series(START + pd.to_timedelta(np.round(400 + 150 * latent), unit="D"))
    return values.mask(rng.random(len(z)) < recipe.missing)


def _children(recipe: ChildRecipe, z: np.ndarray, rng: np.random.Generator) -> pd.DataFrame:
    """Child rows: parents with a higher ``z`` have more children, who follow their parent's ``z``."""
    counts = rng.poisson(recipe.per_parent * np.exp(0.3 * z - 0.045))
    parent = np.repeat(np.arange(len(z)), counts)
    frame = pd.DataFrame({"visit": np.arange(len(parent)), "id": parent})
    for column in recipe.columns:
        frame[column.name] = _column(column, z[parent], rng).to_numpy()
    return frame


def _entities(tables: dict[str, pd.DataFrame], parents: np.ndarray) -> dict[str, pd.DataFrame]:
    """The parent rows marked in ``parents`` and the children of those rows, renumbered from 0."""
    kept = {PARENT: tables[PARENT][parents]}
    if CHILD in tables:
        kept[CHILD] = tables[CHILD][tables[CHILD]["id"].isin(kept[PARENT]["id"])]
    return {name: frame.reset_index(drop=True) for name, frame in kept.items()}


def column_recipes(
    name: str, kinds: tuple[Kind, ...] = KINDS, *, missing: tuple[float, float] = (0.0, 0.3), tie: float = 0.0
) -> st.SearchStrategy[ColumnRecipe]:
    """A column of one of ``kinds``, with a share of ``missing`` values, tied to ``z`` from ``tie`` to 0.9."""
    return st.builds(
        ColumnRecipe,
        name=st.just(name),
        kind=st.sampled_from(kinds),
        missing=st.floats(*missing),
        tie=st.floats(tie, 0.9, allow_subnormal=False),
        levels=st.integers(2, 8),
        skew=st.one_of(st.just(0.0), st.floats(0.3, 1.5)),
    )


@st.composite
def mixed_columns(draw: st.DrawFn, prefix: str, extra: int) -> tuple[ColumnRecipe, ...]:
    """One column of every kind, then up to ``extra`` of any kind, named ``prefix`` 0, 1, ....

    The first is numeric, complete and tied to ``z`` by 0.5 or more, so the target is learnable;
    the others of every kind miss 2% to 30% of their values.
    """
    first = draw(column_recipes(f"{prefix}0", ("numeric",), missing=(0.0, 0.0), tie=0.5))
    kinds = [*KINDS[1:], *(draw(st.sampled_from(KINDS)) for _ in range(draw(st.integers(0, extra))))]
    rest = [
        draw(column_recipes(f"{prefix}{i}", (kind,), missing=(0.02, 0.3))) for i, kind in enumerate(kinds, 1)
    ]
    return (first, *rest)


def column_lists(prefix: str, min_size: int, max_size: int) -> st.SearchStrategy[tuple[ColumnRecipe, ...]]:
    """``min_size`` to ``max_size`` columns of any kinds named ``prefix`` 0, 1, ...."""
    return st.integers(min_size, max_size).flatmap(
        lambda size: st.tuples(*(column_recipes(f"{prefix}{i}") for i in range(size)))
    )


def recipes(
    *, min_rows: int = 200, max_rows: int = 300, child: bool | None = None
) -> st.SearchStrategy[Recipe]:
    """A parent table of mixed columns and a target; ``child``: with a child table (None: either)."""
    children = st.builds(ChildRecipe, columns=column_lists("v", 1, 3), per_parent=st.floats(1.0, 2.5))
    return st.builds(
        Recipe,
        rows=st.integers(min_rows, max_rows),
        columns=mixed_columns("c", extra=2),
        target=st.sampled_from(["categorical", "numeric"]),
        seed=st.integers(0, 2**32 - 1),
        child={True: children, False: st.none(), None: st.none() | children}[child],
    )


def examples(strategy: st.SearchStrategy[T], n: int) -> list[T]:
    """``n`` values of ``strategy``, the same on every run: Hypothesis derandomized, no database.

    For tests that compute something expensive once per value and check many properties of it;
    a property-based test that runs its check on each example uses ``@given`` directly.
    """
    found: list[T] = []

    @settings(
        max_examples=n,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value: T) -> None:
        if value not in found:
            found.append(value)

    collect()
    return found


# -- schema files with entries of the wrong shape ---------------------------------------------
def valid_schema_spec(neutral: bool) -> dict[str, object]:
    """A well-formed schema file's data: ``people`` and ``visits`` with a key between them.

    ``neutral``: the shared datasets' ``metadata.json`` layout (a top-level ``relationships`` list),
    else reportgen's own (``foreign_keys`` on the child table).
    """
    people = {"primary_key": ["pid"], "columns": {"pid": "id", "age": "numeric"}}
    visits: dict[str, object] = {"primary_key": ["vid"], "columns": {"vid": "id", "cost": "numeric"}}
    if neutral:
        relation = {"parent_table": PARENT, "child_table": CHILD, "parent_key": ["pid"], "child_key": ["pid"]}
        return {"tables": {PARENT: people, CHILD: visits}, "relationships": [relation]}
    visits["foreign_keys"] = [{"column": "pid", "parent": PARENT}]
    return {"tables": {PARENT: people, CHILD: visits}}


_JUNK = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.text("abpid", max_size=4),
    st.lists(st.one_of(st.text("abpid", max_size=3), st.integers(0, 3), st.none()), max_size=3),
    st.dictionaries(
        st.text("abpid", max_size=3), st.one_of(st.text("abpid", max_size=3), st.none()), max_size=2
    ),
)


@st.composite
def damaged_schema_specs(draw: st.DrawFn) -> tuple[dict[str, object], str | None]:
    """A schema file's data with one entry replaced by a value of a drawn, often wrong, shape.

    Gives the data and the table whose entry was damaged (None: a relationship or a top-level entry),
    so a test can check that the error names it. The damage may happen to be well formed.
    """
    spec = valid_schema_spec(draw(st.booleans()))
    tables: dict[str, dict[str, object]] = spec["tables"]  # type: ignore[assignment]
    where = draw(st.sampled_from(["table", "entry", "column", "foreign key", "relationship"]))
    table = draw(st.sampled_from([PARENT, CHILD]))
    junk = draw(_JUNK)
    if where == "table":
        tables[table] = junk  # type: ignore[assignment]
    elif where == "entry":
        entry = draw(st.sampled_from(["primary_key", "columns", "foreign_keys", "target", "file"]))
        tables[table][entry] = junk
    elif where == "column":
        tables[table]["columns"][draw(st.sampled_from(["age", "pid", "vid", "cost"]))] = junk  # type: ignore[index]
    elif "relationships" in spec:
        relation = spec["relationships"][0]  # type: ignore[index]
        key = draw(st.sampled_from(["parent_table", "child_table", "parent_key", "child_key", None]))
        if key is None:
            spec["relationships"] = draw(st.sampled_from([junk, [junk]]))
        elif draw(st.booleans()):
            del relation[key]
        else:
            relation[key] = junk
        return spec, None
    else:
        key = draw(st.sampled_from(["column", "parent", "columns", "parent_columns", None]))
        fk = tables[CHILD]["foreign_keys"][0]  # type: ignore[index]
        if key is None:
            tables[CHILD]["foreign_keys"] = [junk]
        else:
            fk[key] = junk
        table = CHILD
    return spec, table
