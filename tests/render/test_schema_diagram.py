"""The schema diagram: every table, every foreign key, and labels that never print over each other."""

from itertools import combinations

from matplotlib.patches import FancyBboxPatch

from reportgen.metrics.overview import OverviewResult, RelationSummary, TableSummary
from reportgen.render.schema_diagram import schema_figure

RELATIONS = [  # (child, columns, parent): Chinook's keys, and a table with two keys to one parent
    ("Album", ["ArtistId"], "Artist"),
    ("Employee", ["ReportsTo"], "Employee"),
    ("Customer", ["SupportRepId"], "Employee"),
    ("Invoice", ["CustomerId"], "Customer"),
    ("Track", ["AlbumId"], "Album"),
    ("Track", ["GenreId"], "Genre"),
    ("Track", ["MediaTypeId"], "MediaType"),
    ("InvoiceLine", ["InvoiceId"], "Invoice"),
    ("InvoiceLine", ["TrackId"], "Track"),
    ("PlaylistTrack", ["PlaylistId"], "Playlist"),
    ("PlaylistTrack", ["TrackId"], "Track"),
    ("Game", ["home_team"], "Team"),
    ("Game", ["away_team"], "Team"),
    ("Game", ["year.key", "team.key"], "Team"),
]


def overview() -> OverviewResult:
    names = list(dict.fromkeys(name for child, _, parent in RELATIONS for name in (parent, child)))
    tables = [
        TableSummary(
            name=name,
            rows_train=100,
            rows_test=None,
            rows_synth=100,
            used_train=100,
            used_test=None,
            used_synth=100,
            primary_key=[],
            columns=[],
        )
        for name in names
    ]
    relations = [
        RelationSummary(child=child, columns=columns, parent=parent, parent_columns=["id"])
        for child, columns, parent in RELATIONS
    ]
    return OverviewResult(section="overview", tables=tables, relations=relations)


def test_foreign_key_labels_overlap_neither_each_other_nor_a_table():
    fig = schema_figure(overview())
    fig.draw_without_rendering()
    ax = fig.axes[0]
    labels = [t for t in ax.texts if t.get_gid() == "relation-label"]
    assert sorted(t.get_text() for t in labels) == sorted(", ".join(c) for _, c, _ in RELATIONS)
    label_boxes = [t.get_window_extent() for t in labels]
    table_boxes = [p.get_window_extent() for p in ax.patches if isinstance(p, FancyBboxPatch)]
    for (a, ta), (b, tb) in combinations(zip(label_boxes, labels, strict=True), 2):
        assert not a.overlaps(b), (ta.get_text(), tb.get_text())
    for box, text in zip(label_boxes, labels, strict=True):
        assert not any(box.overlaps(table) for table in table_boxes), text.get_text()
