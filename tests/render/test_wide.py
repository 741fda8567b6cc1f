"""What the document shows of wide tables: the worst columns, in order, and what it left out."""

from types import SimpleNamespace

from reportgen.metrics.overview import ColumnSummary
from reportgen.render.wide import ROWS_SHOWN, left_out, most_at_risk, plain_columns, worst_shown


def scored(similarity: float, reference: float | None = None) -> SimpleNamespace:
    return SimpleNamespace(similarity=similarity, reference=reference)


def test_the_columns_furthest_below_their_reference_are_shown_in_table_order():
    items = [scored(0.9, 0.95), scored(0.5, 0.6), scored(0.7, 0.99), scored(0.99, 0.99), scored(0.8, None)]
    # shortfalls: 0.05, 0.10, 0.29, 0.00, 0.20 (1 - similarity without a reference)
    assert worst_shown(items, limit=3) == [1, 2, 4]
    assert worst_shown(items, limit=10) == [0, 1, 2, 3, 4]
    assert left_out(items, [1, 2, 4]) == {"count": 2, "lowest": 0.9, "highest": 0.99}
    assert left_out(items, [0, 1, 2, 3, 4]) is None


def test_ties_go_to_the_earlier_column_so_the_same_results_show_the_same_columns():
    items = [scored(0.8, 0.9)] * 5
    assert worst_shown(items, limit=2) == [0, 1]


def test_the_secrets_most_at_risk_come_first():
    results = [SimpleNamespace(risk=r, name=n) for r, n in [(0.1, "a"), (0.4, "b"), (0.0, "c"), (0.4, "d")]]
    assert [r.name for r in most_at_risk(results, limit=3)] == ["b", "d", "a"]


def column(name: str, **kw) -> ColumnSummary:
    fields = {"kind": "numeric", "kind_source": "declared", "missing_train": 0.0, "missing_synth": 0.0}
    return ColumnSummary(name=name, **(fields | kw))


def test_only_a_wide_table_lists_its_unremarkable_columns_by_kind():
    narrow = [column(f"c{i}") for i in range(ROWS_SHOWN)]
    assert plain_columns(narrow) == {}
    wide = [
        column("id", kind="id", key="primary"),
        column("gone", excluded_reason="text"),
        column("holes", missing_synth=0.1),
        column("colour", kind="categorical", kind_source="inferred"),
        *[column(f"x{i}") for i in range(ROWS_SHOWN)],
    ]
    plain = plain_columns(wide)
    assert plain == {"categorical (inferred)": ["colour"], "numeric": [f"x{i}" for i in range(ROWS_SHOWN)]}
