"""The phik heatmaps: one figure from the result alone; a wide table shows the columns that differ most."""

import numpy as np
import pytest

from reportgen.metrics.correlation import TableCorrelation
from reportgen.render.correlation_figures import PAGE_WIDTH_IN, correlation_figure
from reportgen.render.wide import HEATMAP_COLUMNS, heatmap_columns


def table(n: int) -> TableCorrelation:
    rng = np.random.default_rng(n)
    real = rng.uniform(size=(n, n))
    real = (real + real.T) / 2
    np.fill_diagonal(real, 1.0)
    synth = np.clip(real + 0.2, 0, 1)
    np.fill_diagonal(synth, 1.0)
    return TableCorrelation(
        table="t",
        columns=[f"$x_{i}$ with a long name" for i in range(n)],  # mathtext-like names stay text
        real=real.tolist(),
        synthetic=synth.tolist(),
        difference=np.abs(real - synth).tolist(),
        similarity=0.8,
        n_pairs=n * (n - 1) // 2,
        rows={"training": 10, "synthetic": 10},
        sampled=False,
        largest_differences=[],
    )


@pytest.mark.parametrize("n", [2, 12, HEATMAP_COLUMNS, HEATMAP_COLUMNS + 1, 60])
def test_one_figure_of_at_most_the_shown_columns_within_the_page(n):
    fig = correlation_figure(table(n))
    assert fig.get_size_inches()[0] <= PAGE_WIDTH_IN
    fig.canvas.draw()  # lays out without error
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(labels) == min(n, HEATMAP_COLUMNS)
    assert all(label.startswith("$x_") for label in labels)


def test_a_wide_table_shows_the_columns_with_the_largest_gaps_in_table_order():
    wide = table(40)
    difference = np.zeros((40, 40))
    for i, j in [(3, 30), (7, 12)]:  # the only pairs whose association the generator changed
        difference[i, j] = difference[j, i] = 0.4
    wide = wide.model_copy(update={"difference": difference.tolist()})
    shown = heatmap_columns(wide, limit=4)
    assert shown == [3, 7, 12, 30]
    assert heatmap_columns(table(5)) == list(range(5))
