"""Figures drawn while the sections compute change nothing: the same document, the same errors.

A figure drawn ahead must be used only for the very result it was drawn from.
"""

from __future__ import annotations

import threading

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

import reportgen as rg
from reportgen.catalogue import sections
from reportgen.render import document
from reportgen.render.ahead import FiguresAhead
from reportgen.results import ReportResults


def table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    return pd.DataFrame(
        {"x": x.round(3), "y": (x + rng.normal(0, 0.5, n)).round(3), "g": rng.choice(list("abc"), n)}
    )


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> ReportResults:
    path = tmp_path_factory.mktemp("ahead") / "r.html"
    return rg.report(table(300, 0), table(300, 1), table(300, 2), path, seed=0)


def test_figures_drawn_ahead_are_the_figures_drawn_when_written(results):
    with FiguresAhead(sections()) as ahead:
        for name, result in results.sections.items():
            ahead.section_done(name, result)
        written_ahead = document.render_html(results, sections(), figures=ahead.figures)
    assert written_ahead == document.render_html(results, sections())


def test_a_figure_drawn_for_another_result_is_not_used(results, monkeypatch):
    drawn_by: list[str] = []
    real = document.to_data_uri

    def named(figure: Figure) -> str:
        drawn_by.append(threading.current_thread().name)
        return real(figure)

    monkeypatch.setattr(document, "to_data_uri", named)
    section = next(s for s in sections() if s.name == "similarity")
    result = results.sections["similarity"]
    here = threading.current_thread().name
    with FiguresAhead(sections()) as ahead:
        ahead.section_done("similarity", result)
        assert ahead.figures(section, result) == document.draw_figures(section, result)
        drawn_by.clear()
        ahead.figures(section, result.model_copy(update={"score": result.score - 1}))
    assert drawn_by and set(drawn_by) == {here}  # the changed result: drawn when asked for, here


def test_an_error_drawing_ahead_is_raised_when_the_page_asks_for_the_figure(results, monkeypatch):
    def broken(figure: Figure) -> str:
        raise RuntimeError("figure broke")

    monkeypatch.setattr(document, "to_data_uri", broken)
    section = next(s for s in sections() if s.name == "similarity")
    with FiguresAhead(sections()) as ahead:
        ahead.section_done("similarity", results.sections["similarity"])
        with pytest.raises(RuntimeError, match="figure broke"):
            ahead.figures(section, results.sections["similarity"])
