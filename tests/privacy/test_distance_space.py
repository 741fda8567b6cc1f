"""The distance space (METRICS.md section 5): hand-computed encodings of tiny frames."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.data.schema import ColumnKind
from reportgen.errors import DataError, SchemaError
from reportgen.preparation import prepare_context
from reportgen.privacy.distance_space import CategoricalEncoding, DistanceSpace, NumericEncoding
from reportgen.settings import ReportColumns, ReportSettings

NUM, CAT = ColumnKind.NUMERIC, ColumnKind.CATEGORICAL


def sq(a, b):
    return float(((np.asarray(a, float) - np.asarray(b, float)) ** 2).sum())


def test_numeric_scaling_uses_training_percentiles_and_clips():
    train = pd.DataFrame({"x": np.arange(101.0)})  # q01 = 1, q99 = 99
    space = DistanceSpace.fit(train, {"x": NUM})
    assert space.encodings == (NumericEncoding("x", NUM, 1.0, 98.0, False),)
    out = space.transform(pd.DataFrame({"x": [1.0, 99.0, 50.0, 1000.0, -1000.0, 148.0]}))
    expected = [0.0, 1.0, 49 / 98, 1.5, -0.5, 1.5]
    np.testing.assert_allclose(out[:, 0], np.float32(expected))
    assert out.dtype == np.float32 and out.flags.c_contiguous


def test_holdout_values_do_not_move_the_scaling():
    train = pd.DataFrame({"x": np.arange(101.0), "c": ["a", "b"] * 50 + ["a"]})
    holdout = pd.DataFrame({"x": [1e9, -1e9], "c": ["zzz", "yyy"]})
    alone = DistanceSpace.fit(train, {"x": NUM, "c": CAT})
    with_others = DistanceSpace.fit(train, {"x": NUM, "c": CAT}, others=[holdout])
    assert alone == with_others
    np.testing.assert_array_equal(alone.transform(holdout), with_others.transform(holdout))


def test_two_categories_are_at_squared_distance_one_and_unseen_at_one_half():
    train = pd.DataFrame({"c": ["red", "blue", "red", "green"]})
    space = DistanceSpace.fit(train, {"c": CAT})
    assert space.encodings == (CategoricalEncoding("c", ("blue", "green", "red"), False),)
    assert space.feature_names == ["c=blue", "c=green", "c=red"]
    red, blue, unseen = space.transform(pd.DataFrame({"c": ["red", "blue", "purple"]}))
    np.testing.assert_allclose(red, [0, 0, 1 / np.sqrt(2)], rtol=1e-7)
    assert sq(red, blue) == pytest.approx(1.0, rel=1e-6)
    np.testing.assert_array_equal(unseen, [0, 0, 0])
    assert sq(red, unseen) == pytest.approx(0.5, rel=1e-6)


def test_a_wide_column_keeps_its_most_frequent_levels_and_pools_the_rest():
    # a: 4 rows, b: 3, c and d: 2 each (tie broken alphabetically: c kept), e: 1, then one missing
    train = pd.DataFrame({"c": [*"aaaabbbccdde", None]})
    space = DistanceSpace.fit(train, {"c": CAT}, max_levels=3)
    assert space.encodings == (CategoricalEncoding("c", ("a", "b", "c"), True, pooled=True),)
    assert space.feature_names == ["c=a", "c=b", "c=c", "c=(other)", "c=(missing)"]
    a, d, e, unseen, missing = space.transform(pd.DataFrame({"c": ["a", "d", "e", "zzz", None]}))
    assert sq(d, e) == 0.0 and sq(d, unseen) == 0.0  # every pooled value is the one level "(other)"
    assert sq(a, d) == pytest.approx(1.0, rel=1e-6)  # and a kept level is a category away
    assert sq(d, missing) == pytest.approx(1.0, rel=1e-6)


def test_a_column_within_the_cap_is_encoded_whole():
    train = pd.DataFrame({"c": [*"aaaabbbccdde"]})
    capped, whole = DistanceSpace.fit(train, {"c": CAT}, max_levels=5), DistanceSpace.fit(train, {"c": CAT})
    assert capped == whole
    assert capped.encodings == (CategoricalEncoding("c", tuple("abcde"), False),)


def test_missing_category_is_a_level_when_training_has_it():
    train = pd.DataFrame({"c": ["a", None, "b"]})
    space = DistanceSpace.fit(train, {"c": CAT})
    assert space.feature_names == ["c=a", "c=b", "c=(missing)"]
    a, missing = space.transform(pd.DataFrame({"c": ["a", None]}))
    assert sq(a, missing) == pytest.approx(1.0, rel=1e-6)
    without = DistanceSpace.fit(pd.DataFrame({"c": ["a", "b"]}), {"c": CAT})
    np.testing.assert_array_equal(without.transform(pd.DataFrame({"c": [None]})), [[0, 0]])


def test_numeric_missing_is_zero_plus_an_indicator():
    train = pd.DataFrame({"x": [*np.arange(101.0), np.nan]})
    space = DistanceSpace.fit(train, {"x": NUM})
    assert space.feature_names == ["x", "x (missing)"]
    out = space.transform(pd.DataFrame({"x": [np.nan, 1.0, 99.0]}))
    np.testing.assert_allclose(out, [[0, 1], [0, 0], [1, 0]])
    assert sq(out[0], out[1]) == 1.0  # missing vs the 1st percentile: the indicator's weight


def test_indicator_when_another_role_has_missing_values():
    train = pd.DataFrame({"x": np.arange(101.0)})
    synth = pd.DataFrame({"x": [np.nan, 5.0]})
    space = DistanceSpace.fit(train, {"x": NUM}, others=[synth])
    assert space.feature_names == ["x", "x (missing)"]
    np.testing.assert_allclose(space.transform(train)[:, 1], 0.0)
    np.testing.assert_allclose(space.transform(synth), [[0, 1], [4 / 98, 0]], rtol=1e-6)
    with pytest.raises(DataError, match=r"Column 'x' has 1 missing values.*others"):
        DistanceSpace.fit(train, {"x": NUM}).transform(synth)


def test_constant_column_gets_scale_one():
    train = pd.DataFrame({"x": [5.0] * 10})
    space = DistanceSpace.fit(train, {"x": NUM})
    assert space.encodings[0].scale == 1.0
    np.testing.assert_allclose(
        space.transform(pd.DataFrame({"x": [5.0, 5.25, 9.0, 0.0]}))[:, 0], [0, 0.25, 1.5, -0.5]
    )


def test_column_without_training_values_keeps_only_its_indicator():
    train = pd.DataFrame({"x": [np.nan, np.nan]})
    out = DistanceSpace.fit(train, {"x": NUM}).transform(pd.DataFrame({"x": [np.nan, 3.0]}))
    np.testing.assert_array_equal(out, [[0, 1], [0, 0]])


def test_datetimes_are_scaled_as_utc_seconds():
    days = pd.date_range("2020-01-01", periods=101, freq="D")
    space = DistanceSpace.fit(pd.DataFrame({"t": days}), {"t": ColumnKind.DATETIME})
    assert space.encodings[0].scale == pytest.approx(98 * 86400)
    query = pd.DataFrame({"t": pd.to_datetime(["2020-01-02", "2020-02-20"]).tz_localize("UTC")})
    np.testing.assert_allclose(space.transform(query)[:, 0], [0.0, 49 / 98], rtol=1e-6)
    as_text = pd.DataFrame({"t": ["2020-01-02", "2020-02-20T00:00:00Z"]})
    np.testing.assert_array_equal(space.transform(as_text), space.transform(query))


def test_mixed_frame_layout_and_dropped_columns():
    train = pd.DataFrame(
        {
            "id": [1, 2, 3],
            "n": [0.0, 1.0, 2.0],
            "b": [True, False, True],
            "note": ["x", "y", "z"],
            "i": [1, 2, 3],
        }
    )
    kinds = {
        "id": ColumnKind.ID,
        "n": NUM,
        "b": ColumnKind.BOOLEAN,
        "note": ColumnKind.TEXT,
        "i": ColumnKind.INTEGER,
    }
    space = DistanceSpace.fit(train, kinds)
    assert space.columns == ["n", "b", "i"]
    assert space.feature_names == ["n", "b=false", "b=true", "i"]
    out = space.transform(train)
    assert out.shape == (3, 4)
    np.testing.assert_allclose(out[:, 0], (np.array([0, 1, 2]) - 0.02) / 1.96, rtol=1e-6)
    assert sq(out[0, 1:3], out[1, 1:3]) == pytest.approx(1.0, rel=1e-6)


def test_missing_column_is_reported():
    space = DistanceSpace.fit(pd.DataFrame({"x": [1.0, 2.0]}), {"x": NUM})
    with pytest.raises(SchemaError, match=r"lacks column\(s\) \['x'\]"):
        space.transform(pd.DataFrame({"y": [1.0]}))


def test_prepared_table_embeds_every_role_once_with_the_knn_columns():
    rng = np.random.default_rng(0)

    def frame(n):
        return pd.DataFrame(
            {"a": rng.normal(size=n), "b": rng.choice(["u", "v", "w"], n), "c": rng.normal(size=n)}
        )

    train, test, synth = frame(200), frame(100), frame(150)
    synth.loc[3, "a"] = np.nan
    settings = ReportSettings(columns=ReportColumns(knn=["a", "b"]))
    ctx = prepare_context(train, test, synth, settings)
    table = ctx.table(ctx.table_names[0])
    space = table.distance_space
    assert space.feature_names == ["a", "a (missing)", "b=u", "b=v", "b=w"]
    assert space.encodings[0].low == pytest.approx(np.quantile(train["a"], 0.01))
    for role, n in ((TRAIN, 200), (TEST, 100), (SYNTH, 150)):
        assert table.embedded(role).shape == (n, 5)
        assert table.embedded(role) is table.embedded(role)
    # the missing indicator marks the one synthetic row without "a" (preparation put the rows in
    # their canonical order, so it is found by its value, not at position 3)
    missing = ctx.synth[ctx.table_names[0]]["a"].isna().to_numpy()
    assert missing.sum() == 1 and np.array_equal(table.embedded(SYNTH)[:, 1], missing)


# -- values near the largest double ------------------------------------------------------------------
LARGEST = np.finfo(np.float64).max  # 1.7976931348623157e308


def test_values_near_the_largest_double_scale_as_the_same_values_far_below_it():
    # Scaling by a power of two is exact, so the encodings of v and of v * 2**1000 are the same
    # numbers; near 1e308 the range q99 - q01 and x - q01 of the raw values would overflow.
    v = np.linspace(-1.0, 1.0, 101)
    huge = v * LARGEST  # from -1.8e308 to 1.8e308
    shown = np.array([-1.0, -0.5, 0.0, 0.3, 1.0])
    small_space = DistanceSpace.fit(pd.DataFrame({"x": v}), {"x": NUM})
    space = DistanceSpace.fit(pd.DataFrame({"x": huge}), {"x": NUM})
    (encoding,) = space.encodings
    assert encoding.unit == 0.25 and np.isfinite([encoding.low, encoding.scale]).all()
    out = space.transform(pd.DataFrame({"x": shown * LARGEST}))[:, 0]
    np.testing.assert_allclose(out, np.float32(np.array([-0.02, 0.48, 0.98, 1.28, 1.98]) / 1.96), rtol=1e-6)
    exact = DistanceSpace.fit(pd.DataFrame({"x": v * 2.0**1000}), {"x": NUM})
    np.testing.assert_array_equal(
        exact.transform(pd.DataFrame({"x": shown * 2.0**1000})),
        small_space.transform(pd.DataFrame({"x": shown})),
    )
    assert small_space.encodings[0].unit == 1.0  # ordinary magnitudes: unchanged


def test_another_roles_values_past_the_training_range_clip_without_overflow():
    space = DistanceSpace.fit(pd.DataFrame({"x": np.arange(101.0) * 1e-300}), {"x": NUM})  # scale 9.8e-299
    out = space.transform(pd.DataFrame({"x": [LARGEST, -LARGEST, 1e300, -5e-324, np.inf, -np.inf]}))
    np.testing.assert_array_equal(out[:, 0], np.float32([1.5, -0.5, 1.5, -1 / 98, 1.5, -0.5]))


EXTREMES = [LARGEST, -LARGEST, 1e308, -1e308, 2.0**1020, 5e-324, -5e-324, 1e-300, 0.0]
DOUBLES = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(EXTREMES))


@settings(max_examples=100, deadline=None, derandomize=True)
@given(
    train=st.lists(DOUBLES, min_size=1, max_size=40),
    other=st.lists(DOUBLES, min_size=1, max_size=40),
)
def test_any_doubles_encode_finite_within_the_clip_and_in_order(train, other):
    frame, others = pd.DataFrame({"x": train}, dtype=float), pd.DataFrame({"x": other}, dtype=float)
    space = DistanceSpace.fit(frame, {"x": NUM}, others=[others])  # no warning: warnings fail tests
    (encoding,) = space.encodings
    assert encoding.low is None or (np.isfinite([encoding.low, encoding.scale]).all() and encoding.scale > 0)
    values = np.array(train + other)
    out = space.transform(pd.DataFrame({"x": values}))
    assert np.isfinite(out).all()
    present = ~np.isnan(values)
    scaled = out[present, 0]
    assert ((scaled >= -0.5) & (scaled <= 1.5)).all()
    order = np.argsort(values[present], kind="stable")
    assert (np.diff(scaled[order]) >= 0).all()  # a larger value never encodes below a smaller one
