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
