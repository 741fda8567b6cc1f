"""The distribution figures: readable ticks, robust ranges, and bars that differ when the number does."""

import re

import numpy as np
import pandas as pd
import pytest

from reportgen.catalogue import report_settings
from reportgen.metrics.distributions import compute_distributions
from reportgen.preparation import prepare_context
from reportgen.render.distribution_figures import PAIR_LABEL, column_figure, pair_figure
from reportgen.render.figures import MINUS

CUT_NUMBER = re.compile(r"\d[,.]?…|…[,.]?\d")


def distributions(train: pd.DataFrame, synth: pd.DataFrame, **settings):
    context = prepare_context(train, None, synth, report_settings(**settings))
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


def levels(counts: dict[str, int]) -> pd.DataFrame:
    return pd.DataFrame({"city": [level for level, n in counts.items() for _ in range(n)]})


def drawn_difference(column) -> float:
    return 0.5 * sum(
        abs(r - s) for r, s in zip(column.shares["training"], column.shares["synthetic"], strict=True)
    )


def test_when_more_levels_are_printable_than_fit_the_bars_show_those_that_differ():
    common = {f"common-{i:02d}": 100 for i in range(20)}  # identical on both sides, most frequent
    real = levels(common | {f"minor-{i:02d}": 20 for i in range(20)})
    synth = levels(common | {f"minor-{i:02d}": 35 if i < 10 else 5 for i in range(20)})
    city = distributions(real, synth).columns[0]  # 40 printable levels, 20 fit (max_categories)
    assert 1 - city.similarity == pytest.approx(150 / 2400)
    assert drawn_difference(city) == pytest.approx(1 - city.similarity)  # was 0: every shown bar alike
    assert city.hidden_difference == pytest.approx(0, abs=1e-9)
    assert all(label.startswith("minor") for label in city.labels[:-2])


def test_a_difference_among_levels_too_rare_to_show_is_stated_under_the_bars():
    common = {f"common-{i}": 400 for i in range(5)}
    real = levels(common | {f"rare-{i:03d}": 2 for i in range(300)})  # 2 rows each: never printed
    synth = levels(common | {f"rare-{i:03d}": 4 for i in range(150)})
    city = distributions(real, synth).columns[0]
    assert city.hidden_difference == pytest.approx(1 - city.similarity) and city.hidden_difference > 0.1
    fig = drawn(column_figure(city))
    note = fig.get_supxlabel()
    assert f"{city.hidden_difference:.2f} of the {1 - city.similarity:.2f} difference" in note
    assert "rare-" not in " ".join(t.get_text() for t in fig.axes[0].get_yticklabels())
    # the note sits under the axes, clear of its tick labels
    assert fig._supxlabel.get_window_extent().y1 <= fig.axes[0].get_tightbbox().y0 + 1


def test_values_across_the_whole_double_range_draw_with_their_own_tick_labels():
    """A column spread from -1.7e308 to 1.7e308: the range's width overflows a double."""
    rng = np.random.default_rng(2)
    real, synth = (pd.DataFrame({"x": rng.uniform(-1.7, 1.7, 500) * 1e308}) for _ in range(2))
    x = distributions(real, synth).columns[0]
    assert not np.isfinite(x.edges[-1] - x.edges[0])
    fig = drawn(column_figure(x))
    labels = tick_texts(fig.axes[0])
    assert labels[0].lstrip("≤ ").startswith(MINUS + "1.") and labels[0].endswith("e+308"), labels
    assert labels[-1].lstrip("≥ ").startswith("1.") and labels[-1].endswith("e+308"), labels
    assert_no_overlapping_labels(fig)
