"""The generated tables hold what their recipe says: every kind, missing values, keys, two halves."""

import pandas as pd
from hypothesis import given, settings

from tests.strategies import CHILD, KINDS, PARENT, TARGET, Recipe, examples, recipes


@settings(max_examples=15, deadline=None, derandomize=True)
@given(recipes(min_rows=20, max_rows=60))
def test_generated_tables_hold_what_their_recipe_says(recipe: Recipe):
    data = recipe.generated()
    parents = (data.train[PARENT], data.test[PARENT])
    assert [len(p) for p in parents] == [recipe.rows, recipe.rows]
    assert {c.kind for c in recipe.columns} == set(KINDS)
    for column in recipe.columns:
        if column.missing >= 0.2:
            assert data.train[PARENT][column.name].isna().any() or data.test[PARENT][column.name].isna().any()
    assert set(parents[0]["id"]).isdisjoint(parents[1]["id"])  # the halves are different entities
    assert data.train[PARENT][TARGET].notna().all()
    assert data.targets == {PARENT: TARGET} and data.schema[PARENT].target == TARGET
    assert recipe.schema(target=False)[PARENT].target is None
    if recipe.child is None:
        assert set(data.train) == {PARENT}
        return
    for half, parent in zip((data.train, data.test), parents, strict=True):
        assert half[CHILD]["id"].isin(parent["id"]).all()  # children travel with their parent


def test_the_same_recipe_gives_the_same_rows_and_examples_are_the_same_on_every_call():
    first, again = examples(recipes(child=True), 2), examples(recipes(child=True), 2)
    assert first == again
    one, two = first[-1].generated(), again[-1].generated()
    for name in one.train:
        pd.testing.assert_frame_equal(one.train[name], two.train[name])
        pd.testing.assert_frame_equal(one.test[name], two.test[name])
