"""The distribution figures: readable ticks, robust ranges, and bars that differ when the number does."""

import re

import numpy as np
import pandas as pd
import pytest

from reportgen.api import prepare_context
from reportgen.metrics.distributions import compute_distributions
from reportgen.render.distribution_figures import PAIR_LABEL, column_figure, pair_figure
from reportgen.settings import ReportSettings

CUT_NUMBER = re.compile(r"\d[,.]?…|…[,.]?\d")


def distributions(train: pd.DataFrame, synth: pd.DataFrame, **settings):
    context = prepare_context(train, None, synth, ReportSettings(**settings))
    return compute_distributions(context).tables[0]


def salaries(n: int, rng: np.random.Generator) -> pd.DataFrame:
    """Heavy-tailed salaries (a few in the billions) beside a team code."""
    salary = rng.lognormal(13, 1.2, n)
    salary[:3] = 1e12  # data-entry errors: a histogram on min..max would put everything in one bar
    return pd.DataFrame({"salary": salary, "team": rng.choice(["NYA", "BOS", "LAN"], n)})


@pytest.fixture(scope="module")
def heavy():
    rng = np.random.default_rng(0)
    return distributions(salaries(3000, rng), salaries(3000, rng))


def drawn(fig):
    fig.draw_without_rendering()  # lays out and formats the ticks (a bare Figure's canvas draws nothing)
    return fig


def test_heavy_tailed_numbers_read_compactly_with_no_offset_text(heavy):
    salary = next(c for c in heavy.columns if c.column == "salary")
    ax = drawn(column_figure(salary)).axes[0]
    low, high = ax.get_xlim()
    labels = [t.get_text() for t in ax.get_xticklabels() if low <= t.get_position()[0] <= high]
    assert ax.xaxis.get_offset_text().get_text() == ""  # no "1e7" beside the axis
    assert all(re.fullmatch(r"[≤≥]? ?\d+(\.\d+)?[kM]?", label) for label in labels), labels


def test_heatmap_bin_labels_are_never_cut_inside_a_number(heavy):
    fig = drawn(pair_figure(heavy.pairs[0]))
    labels = [t.get_text() for ax in fig.axes[:2] for t in [*ax.get_xticklabels(), *ax.get_yticklabels()]]
    numeric = [label for label in labels if any(ch.isdigit() for ch in label)]
    assert numeric, labels
    assert all(len(label) <= PAIR_LABEL and not CUT_NUMBER.search(label) for label in labels), labels


def tick_texts(ax) -> list[str]:
    low, high = ax.get_xlim()
    return [
        t.get_text() for t, x in zip(ax.get_xticklabels(), ax.get_xticks(), strict=True) if low <= x <= high
    ]


def assert_no_overlapping_labels(fig):
    """No two upright tick labels of one axis overlap (rotated ones have slanted boxes: not checked)."""
    for ax in fig.axes:
        for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
            boxes = [t.get_window_extent() for t in labels if t.get_text() and t.get_rotation() == 0]
            for i, a in enumerate(boxes):
                assert not any(a.overlaps(b) for b in boxes[i + 1 :]), [t.get_text() for t in labels]


def test_a_range_of_robust_quantiles_and_ends_that_say_they_hold_the_outliers(heavy):
    salary = next(c for c in heavy.columns if c.column == "salary")
    assert salary.edges[-1] < 1e9  # the 1e12 errors do not stretch the bins
    assert salary.outside_range["training"][1] >= 3 / 3000  # they are counted in the last bin
    fig = drawn(column_figure(salary))
    labels = tick_texts(fig.axes[0])
    assert labels[-1].startswith("≥ ") and labels[0].startswith("≤ ")
    assert_no_overlapping_labels(fig)


def zero_inflated(n: int, rng: np.random.Generator, zeros: float, near_zero: float) -> pd.DataFrame:
    """Mostly exact zeros; ``near_zero`` of the rows small positive amounts, the rest up to 30k."""
    u = rng.random(n)
    gain = np.where(u < zeros, 0.0, rng.uniform(1000, 30000, n))
    gain = np.where((u >= zeros) & (u < zeros + near_zero), rng.uniform(1, 60, n), gain)
    return pd.DataFrame({"gain": gain})


def test_a_generator_that_moves_the_zeros_off_zero_shows_it_in_the_plot():
    rng = np.random.default_rng(1)
    real, synth = zero_inflated(4000, rng, 0.9, 0.0), zero_inflated(4000, rng, 0.4, 0.5)
    gain = distributions(real, synth).columns[0]
    assert gain.exact_values == [0.0]
    assert gain.exact_shares["training"][0] == pytest.approx(0.9, abs=0.02)
    assert gain.exact_shares["synthetic"][0] == pytest.approx(0.4, abs=0.02)
    drawn_tvd = 0.5 * sum(
        abs(r - s)
        for r, s in zip(
            gain.shares["training"] + gain.exact_shares["training"],
            gain.shares["synthetic"] + gain.exact_shares["synthetic"],
            strict=True,
        )
    )
    assert drawn_tvd >= 0.9 * (1 - gain.similarity)  # the bars differ as much as the number says
    fig = drawn(column_figure(gain))
    side = fig.axes[1]
    heights = sorted(round(bar.get_height(), 2) for bar in side.patches)
    assert heights == pytest.approx([0.4, 0.9], abs=0.02)
    assert tick_texts(side) == ["= 0"]
    assert_no_overlapping_labels(fig)
