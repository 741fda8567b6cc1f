"""The ROC figure: drawn from the result alone, log axes, the legend outside the data, no pyplot."""

import numpy as np

from reportgen.metrics.membership import ViewMembership
from reportgen.privacy.distance_space import EmbeddedRows
from reportgen.privacy.membership import membership_stats
from reportgen.render.membership_figures import roc_figure


def test_the_roc_figure_has_log_axes_every_attack_and_the_legend_below_the_axes():
    rng = np.random.default_rng(0)
    train, test = rng.normal(size=(500, 3)), rng.normal(size=(600, 3))
    synth = np.concatenate([train[:100], rng.normal(size=(400, 3))])
    stats = membership_stats(EmbeddedRows(train, synth, test), lambda part: np.random.default_rng(len(part)))
    view = ViewMembership(table="$x$ table", view="table", columns=["a", "b", "c"], stats=stats)
    fig = roc_figure(view)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    fig.canvas.draw()
    legend = ax.get_legend()
    labels = [t.get_text() for t in legend.get_texts()]
    assert [label.split(":")[0] for label in labels[1:4]] == ["DCR", "DCR ratio", "Density ratio"]
    assert legend.get_window_extent().y1 <= ax.get_window_extent().y0  # under the axes, outside the data
    assert ax.get_title(loc="left").startswith("$x$ table")  # names stay text, never mathtext
    assert all("mathdefault" not in t.get_text() for t in ax.get_xticklabels())
