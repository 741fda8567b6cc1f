"""Every figure with a legend keeps it outside the plotted data (the axes' area), whatever the data."""

import numpy as np
import pandas as pd
from matplotlib.legend import Legend

from reportgen import RelationalData, Schema
from reportgen.data.schema import ForeignKey, PrimaryKey, Table
from reportgen.metrics.relational import compute_relational
from reportgen.metrics.utility import ModelScore, TableUtility
from reportgen.preparation import prepare_context
from reportgen.render.relational_figures import cardinality_figures
from reportgen.render.utility_figures import utility_figure
from reportgen.settings import ReportSettings


def assert_legends_outside_the_data(fig) -> int:
    """No legend of the figure (on an axes or on the figure) overlaps any visible axes' data area."""
    fig.draw_without_rendering()
    legends = [child for child in [*fig.get_children(), *fig.axes] if isinstance(child, Legend)]
    legends += [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    areas = [ax.get_window_extent() for ax in fig.axes if ax.get_visible() and ax.axison]
    for legend in legends:
        box = legend.get_window_extent()
        assert not any(box.overlaps(area) for area in areas), legend
    return len(legends)


def test_the_utility_legend_sits_outside_the_scores():
    scores = [(0.91, 0.85), (0.88, 0.9), (0.5, 0.52), (0.97, 0.2), (0.2, 0.99)]  # points everywhere
    models = [
        ModelScore(
            model=f"model {i}",
            estimator="E",
            real=r,
            synthetic=s,
            tstr=s,
            rank_real=i + 1,
            rank_synthetic=5 - i,
        )
        for i, (r, s) in enumerate(scores)
    ]
    table = TableUtility(
        table="t",
        target="y",
        task="classification",
        metric="AUROC",
        features=["a"],
        rows={"training": 100},
        holdout="given",
        models=models,
        tstr=0.7,
        real_baseline=0.7,
        sra=0.5,
        n_ranked=5,
    )
    fig = utility_figure(table)
    assert fig is not None
    assert assert_legends_outside_the_data(fig) == 1


def test_the_relational_legend_sits_outside_every_panel():
    schema = Schema(
        parent=Table(id=PrimaryKey(), kind="categorical"),
        child=Table(cid=PrimaryKey(), pid=ForeignKey(parent="parent")),
    )
    rng = np.random.default_rng(0)

    def family(counts):
        pid = np.repeat(np.arange(1, len(counts) + 1), counts)
        return {
            "parent": pd.DataFrame(
                {"id": np.arange(1, len(counts) + 1), "kind": ["a", "b"] * (len(counts) // 2)}
            ),
            "child": pd.DataFrame({"cid": np.arange(len(pid)), "pid": pid}),
        }

    real = RelationalData(family(rng.poisson(1, 200)), schema)
    synth = RelationalData(family(rng.poisson(5, 200)), schema)
    result = compute_relational(prepare_context(real, None, synth, ReportSettings()))
    (fig,) = cardinality_figures(result).values()
    assert assert_legends_outside_the_data(fig) == 1
