"""Figures of the sample-level section: alpha-precision and beta-recall curves, the network's losses."""

from __future__ import annotations

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, NullFormatter

from reportgen.metrics.alpha_beta import TableAlphaBeta
from reportgen.render.figures import legend_below, new_figure, no_mathtext
from reportgen.render.privacy_figures import HOLDOUT, REAL, SYNTHETIC


def alpha_beta_figure(table: TableAlphaBeta) -> Figure:
    """Three panels: alpha-precision and beta-recall against the diagonal, then the loss curves."""
    fig = new_figure(7.0, 2.3)
    axes = fig.subplots(1, 3)
    for ax, curve, symbol, title in (
        (axes[0], "precision", "α", "α-precision"),  # noqa: RUF001
        (axes[1], "recall", "β", "β-recall"),
    ):
        _curve_panel(ax, table, curve, symbol, title)
    _loss_panel(axes[2], table)
    for ax in axes:
        no_mathtext(ax)
    return fig


def _curve_panel(ax: Axes, table: TableAlphaBeta, curve: str, symbol: str, title: str) -> None:
    levels = table.synthetic.curves.levels
    ax.plot([0, 1], [0, 1], color="#1d2530", linewidth=0.7, linestyle=":", label="ideal (diagonal)")
    if table.holdout is not None:
        ax.plot(
            levels,
            getattr(table.holdout.curves, curve),
            color=HOLDOUT,
            linewidth=1.1,
            linestyle="--",
            label="holdout (reference)",
        )
    ax.plot(levels, getattr(table.synthetic.curves, curve), color=SYNTHETIC, linewidth=1.3, label="synthetic")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.set_aspect("equal")
    ax.set_xlabel(symbol, fontsize=6.5)
    ax.set_ylabel(title, fontsize=6.5)
    ax.set_title(title, fontsize=7, loc="left")
    _style(ax)
    legend_below(ax)


def _loss_panel(ax: Axes, table: TableAlphaBeta) -> None:
    training = table.training
    epochs = np.arange(1, training.epochs + 1)
    ax.plot(epochs, training.training_loss, color=REAL, linewidth=1.1, label="training split")
    ax.plot(
        epochs,
        training.validation_loss,
        color=HOLDOUT,
        linewidth=1.1,
        linestyle="--",
        label="validation split",
    )
    ax.axvline(
        training.best_epoch,
        color=SYNTHETIC,
        linewidth=0.8,
        linestyle=":",
        label=f"kept: epoch {training.best_epoch}",
    )
    if min(training.training_loss + training.validation_loss) > 0:
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))  # no mathtext
        ax.yaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("epoch", fontsize=6.5)
    ax.set_ylabel("soft-boundary objective", fontsize=6.5)
    ax.set_title("One-class network training", fontsize=7, loc="left")
    _style(ax)
    legend_below(ax)


def _style(ax: Axes) -> None:
    ax.tick_params(labelsize=5.5)
    ax.spines[["top", "right"]].set_visible(False)
