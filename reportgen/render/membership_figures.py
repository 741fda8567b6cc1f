"""Figure of the membership section: each attack's ROC curve on logarithmic axes, per table or view."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from reportgen.metrics.membership import ViewMembership
from reportgen.privacy.membership import SELF_TEST_FPR
from reportgen.render.figures import legend_below, new_figure, no_mathtext
from reportgen.render.formatting import short
from reportgen.render.privacy_figures import CROSS, REAL, SYNTHETIC

ATTACK_STYLES = {  # the short names of the section's tables
    "dcr": ("DCR", CROSS, "-"),
    "dcr_ratio": ("DCR ratio", REAL, "--"),
    "density_ratio": ("Density ratio", SYNTHETIC, "-."),
}
CHANCE = "#7d8894"


def roc_figure(view: ViewMembership) -> Figure:
    """ROC curves of every attack, FPR and TPR on log scales, with chance and the 1% FPR level.

    Low false-positive rates are where a leak of a few records shows, hence the log scales; the
    chance diagonal stays straight on them. Half the page wide, two to a row; the legend sits under
    the axes, outside the data.
    """
    stats = view.stats
    fig = new_figure(3.4, 3.0)
    ax = fig.subplots()
    low = 1 / stats.targets
    ax.plot([low, 1], [low, 1], color=CHANCE, linewidth=0.8, linestyle=":", label="chance (a coin toss)")
    for attack in stats.attacks:
        label, color, style = ATTACK_STYLES[attack.attack]
        tpr = np.asarray(attack.roc.tpr)
        ax.step(
            attack.roc.fpr,
            np.where(tpr > 0, tpr, np.nan),
            where="post",
            color=color,
            linestyle=style,
            linewidth=1.2,
            label=f"{label}: AUC {attack.auc:.3f}",
        )
    ax.axvline(SELF_TEST_FPR, color="#1d2530", linewidth=0.6, linestyle=(0, (1, 3)), label="FPR = 1%")
    ax.set_xscale("log")
    ax.set_yscale("log")
    for axis in (ax.xaxis, ax.yaxis):  # after the scales, which reset the formatters
        axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))  # no mathtext
        axis.set_minor_formatter(NullFormatter())
    ax.set_xlim(low, 1)
    ax.set_ylim(low, 1.05)
    ax.set_xlabel("false-positive rate (holdout rows called members)", fontsize=6.5)
    ax.set_ylabel("true-positive rate (training rows found)", fontsize=6.5)
    ax.set_title(
        f"{short(view.table, 30)}: {stats.targets:,} targets per side",
        fontsize=7,
        loc="left",
        parse_math=False,
    )
    ax.tick_params(labelsize=5.5)
    ax.spines[["top", "right"]].set_visible(False)
    legend_below(ax)
    no_mathtext(ax)
    return fig
