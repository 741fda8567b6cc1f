"""The phik heatmaps: drawn from the result alone, one figure when narrow, three when wide."""

import numpy as np
import pytest

from reportgen.metrics.correlation import TableCorrelation
from reportgen.render.correlation_figures import PAGE_WIDTH_IN, correlation_figures


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


@pytest.mark.parametrize(("n", "figures"), [(2, 1), (12, 1), (16, 1), (17, 3), (60, 3)])
def test_one_figure_when_narrow_three_when_wide_all_within_the_page(n, figures):
    drawn = correlation_figures(table(n))
    assert len(drawn) == figures
    for fig in drawn:
        assert fig.get_size_inches()[0] <= PAGE_WIDTH_IN
        fig.canvas.draw()  # lays out without error
        labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
        assert labels[0].startswith("$x_0$")
