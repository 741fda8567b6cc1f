"""Distribution plots: what they show adds up, rare real values never reach the page, pairs are chosen by rule."""

import re

import numpy as np
import pandas as pd
import pytest
from pypdf import PdfReader

from reportgen import report
from reportgen.catalogue import report_settings, sections
from reportgen.metrics.distributions import MAX_PAIR_PLOTS, compute_distributions
from reportgen.preparation import prepare_context
from reportgen.render.document import write_report

RARE = "Zebediah-Quxworth"  # held by one real row: must never be printed


def mixed(n: int, rng: np.random.Generator) -> pd.DataFrame:
    x = rng.normal(50, 10, n)
    frame = pd.DataFrame(
        {
            "x": x,
            "y": x + rng.normal(0, 3, n),
            "colour": rng.choice(["red", "green", "blue"], n, p=[0.5, 0.3, 0.2]),
            "when": pd.Timestamp("2021-01-01", tz="UTC") + pd.to_timedelta(rng.integers(0, 700, n), unit="D"),
            "score": rng.integers(0, 5, n),
        }
    )
    frame.loc[rng.random(n) < 0.1, "x"] = np.nan
    return frame


def planted(n: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Training, holdout and synthetic rows of ``n`` each; the training colours hold rare levels."""
    rng = np.random.default_rng(3)
    train, test, synth = mixed(n, rng), mixed(n, rng), mixed(n, rng)
    train.loc[0, "colour"] = RARE
    train.loc[1:9, "colour"] = "nine-rows"  # 9 rows: below min_category_count
    train.loc[10:19, "colour"] = "ten-rows"  # 10 rows: printable
    return train, test, synth


@pytest.fixture(scope="module")
def frames():
    return planted(2000)


def distributions(train, test, synth, **settings):
    return compute_distributions(prepare_context(train, test, synth, report_settings(**settings))).tables[0]


def by_column(table):
    return {c.column: c for c in table.columns}


def test_shares_and_missing_add_up_to_every_row(frames):
    table = distributions(*frames)
    for column in table.columns:
        for role, shares in column.shares.items():
            assert sum(shares) + (
                0 if column.axis == "categorical" else column.missing[role]
            ) == pytest.approx(1)
    x = by_column(table)["x"]
    assert x.missing["training"] == pytest.approx(frames[0]["x"].isna().mean())
    assert x.axis == "numeric" and len(x.edges) == 31


def test_numeric_shares_equal_a_direct_histogram_with_outliers_in_the_outer_bins(frames):
    train, _, synth = frames
    x = by_column(distributions(*frames))["x"]
    values = synth["x"].dropna().clip(x.edges[0], x.edges[-1])
    counts, _ = np.histogram(values, bins=x.edges)
    assert np.allclose(x.shares["synthetic"], counts / len(synth))
    low, high = np.nanquantile(train["x"], [0.005, 0.995])
    assert (x.edges[0], x.edges[-1]) == pytest.approx((low, high))


def test_datetimes_are_on_a_time_axis(frames):
    when = by_column(distributions(*frames))["when"]
    assert when.axis == "datetime"
    start, end = pd.Timestamp(when.edges[0], unit="s"), pd.Timestamp(when.edges[-1], unit="s")
    assert pd.Timestamp("2021-01-01") <= start < end <= pd.Timestamp("2022-12-01")


def test_rare_real_categories_are_pooled_into_other(frames):
    colour = by_column(distributions(*frames))["colour"]
    assert colour.labels == ["red", "green", "blue", "ten-rows", "(other)", "(missing)"]
    assert colour.pooled_levels == 2
    assert colour.shares["training"][4] == pytest.approx(10 / 2000)


def test_a_rare_real_value_appears_nowhere_in_the_report(tmp_path):
    """On 300 rows a side: the pooling of rare levels does not depend on the size (whole report to PDF)."""
    train, test, synth = planted(300)
    synth.loc[:4, "colour"] = RARE  # even when the generator reproduces it
    results = report(train, test, synth, tmp_path / "r.pdf")
    write_report(results, tmp_path / "r.html", sections())  # the same results as HTML, not computed again
    pdf_text = " ".join(page.extract_text() for page in PdfReader(tmp_path / "r.pdf").pages)
    assert "ten-rows" in pdf_text  # the figures' text is searchable, so the check below can fail
    for path_text in (pdf_text, (tmp_path / "r.html").read_text(), (tmp_path / "r.json").read_text()):
        assert RARE not in path_text and "nine-rows" not in path_text


def test_pairs_cells_with_few_real_rows_are_hidden(frames):
    table = distributions(*frames)
    pair = next(p for p in table.pairs if {p.a, p.b} == {"x", "y"})
    real = np.array(pair.real, dtype=object)
    hidden = real == None  # noqa: E711  (elementwise)
    assert hidden.any() and not hidden.all()
    shown = np.array([v for v in real.ravel() if v is not None], dtype=float)
    assert (shown >= 10 / 2000 - 1e-12).all()
    assert np.asarray(pair.synthetic).sum() == pytest.approx(1)


def test_all_pairs_when_few_otherwise_the_least_similar(frames):
    train, test, synth = frames
    few = distributions(train[["x", "y", "colour"]], test[["x", "y", "colour"]], synth[["x", "y", "colour"]])
    assert len(few.pairs) == few.n_pairs == 3 and few.pair_rule == "all column pairs"

    broken = synth.copy()
    broken["y"] = broken["y"].sample(frac=1.0, random_state=1).to_numpy()
    many = distributions(train, test, broken)
    assert many.n_pairs == 10 and len(many.pairs) == MAX_PAIR_PLOTS
    assert re.fullmatch(rf"the {MAX_PAIR_PLOTS} least similar of 10 column pairs", many.pair_rule)
    assert {many.pairs[0].a, many.pairs[0].b} == {"x", "y"}
    sims = [p.similarity for p in many.pairs]
    assert sims == sorted(sims)


def test_univ_selection_limits_the_plotted_columns(frames):
    from reportgen.settings import ReportColumns

    table = distributions(*frames, columns=ReportColumns(univ=["colour", "x"]))
    assert [c.column for c in table.columns] == ["colour", "x"]  # in the order asked for
