"""The shared figure conventions: compact numbers, labels cut at word boundaries, notes, fonts."""

import io
import re
from xml.etree import ElementTree

import pytest

from reportgen.render.figures import (
    compact_labels,
    date_labels,
    figure_note,
    new_figure,
    note_undrawable,
    tick_label,
    undrawable,
    without_bare_groups,
)

CUT_NUMBER = re.compile(r"\d[,.]?…|…[,.]?\d")  # an ellipsis touching a digit: a number cut in two


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([0, 8000, 16000, 24000], ["0", "8k", "16k", "24k"]),
        ([5_050_000, 5_342_566], ["5.0M", "5.3M"]),
        ([342_566], ["343k"]),
        ([1915, 1950, 1997], ["1915", "1950", "1997"]),  # years stay whole
        ([2597, 4101, 13_550, 15_024], ["2.6k", "4.1k", "13.6k", "15.0k"]),
        ([0.974, 0.975, 0.98], ["0.974", "0.975", "0.980"]),  # distinct values stay distinct
        ([1e12], ["1T"]),
        ([-3.5, 0, 3.5], ["\N{MINUS SIGN}3.5", "0", "3.5"]),
    ],
)
def test_compact_labels_share_one_scale_and_keep_distinct_values_distinct(values, expected):
    assert compact_labels(values) == expected


def test_dates_read_as_coarse_as_keeps_them_apart():
    year = 365.25 * 86400
    assert date_labels([0, 10 * year, 20 * year]) == ["1970", "1980", "1990"]
    assert date_labels([0, 40 * 86400]) == ["1970-01", "1970-02"]
    assert date_labels([0, 86400]) == ["1970-01-01", "1970-01-02"]


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("Self-emp-not-inc", 12, "Self-emp…"),
        ("San Pedro de Macoris", 14, "San Pedro de…"),
        ("5,050,000 to 5,342,566", 14, "5,050,000 to…"),
        ("order 12,345,678 placed", 12, "order…"),
        ("short", 14, "short"),
    ],
)
def test_long_labels_are_cut_at_a_word_boundary_never_inside_a_number(text, limit, expected):
    label = tick_label(text, limit)
    assert label == expected
    assert len(label) <= limit
    assert not CUT_NUMBER.search(label)


def test_a_second_note_goes_on_a_line_of_its_own():
    fig = new_figure(2, 2)
    figure_note(fig, "first")
    figure_note(fig, "second")
    assert fig.get_supxlabel() == "first\nsecond"


def test_characters_no_installed_font_draws_are_named_and_the_figure_says_so(monkeypatch):
    assert undrawable("café Zürich Ωmega") == ""  # DejaVu draws Latin and Greek
    cjk = undrawable("東京 sales")
    installed = "東" not in cjk  # true where a CJK font such as Noto Sans CJK is installed
    fig = new_figure(2, 2)
    ax = fig.add_subplot()
    ax.set_title("東京 sales")
    ax.set_xlabel("plain")
    assert note_undrawable(fig) == (0 if installed else 1)
    if not installed:
        assert cjk == "東京"
        assert "fonts-noto-cjk" in fig.get_supxlabel()


def test_an_svg_without_bare_groups_keeps_every_drawn_element_in_order():
    fig = new_figure(2, 2)
    ax = fig.add_subplot()
    ax.plot([0, 1, 2], [1, 0, 2], marker="o", label="a & <b>")
    ax.set_title("t")
    ax.legend()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="svg")
    before, after = (
        ElementTree.fromstring(svg) for svg in (buffer.getvalue(), without_bare_groups(buffer.getvalue()))
    )

    def bare(element):
        return element.tag.endswith("}g") and set(element.keys()) <= {"id"}

    def drawn(root):
        return [(e.tag, e.attrib, e.text) for e in root.iter() if not bare(e)]

    assert drawn(after) == drawn(before)
    assert any(map(bare, before.iter())) and not any(map(bare, after.iter()))
    assert without_bare_groups(b"<svg>\x07</svg>") == b"<svg>\x07</svg>"  # not XML: left as it is


def test_one_draw_gives_the_svg_that_savefig_gives_with_its_extra_layout_draw():
    """``to_data_uri`` draws once; ``savefig`` first draws without output to settle a layout engine.

    The constrained layout of every figure here settles in the one draw (measured on the 179
    figures of five real reports); this figure holds what moves it: subplots with long tick labels,
    a legend below the axes, a colour bar, a title and a note under the figure.
    """
    import base64

    import numpy as np

    from reportgen.render.figures import legend_below, to_data_uri

    def drawn() -> object:
        figure = new_figure(6.5, 3.2)
        left, right = figure.subplots(1, 2)
        for label in ("training", "synthetic"):
            left.plot(np.arange(12), np.arange(12) ** 1.5, label=label)
        left.set_xticks(range(0, 12, 3), ["a rather long category name"] * 4, rotation=45)
        legend_below(left)
        image = right.imshow(np.arange(36).reshape(6, 6), cmap="viridis")
        figure.colorbar(image, ax=right, label="share of rows")
        right.set_title("association retained")
        figure_note(figure, "3 of 41 columns are shown: the least similar")
        return figure

    once = to_data_uri(drawn())
    figure = drawn()
    note_undrawable(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="svg", metadata={"Date": None})
    assert (
        once
        == "data:image/svg+xml;base64," + base64.b64encode(without_bare_groups(buffer.getvalue())).decode()
    )
