"""Known-answer tests of the relational section: children per parent, integrity, aggregate pairs."""

import numpy as np
import pandas as pd
import pytest

import reportgen as rg
from reportgen import ForeignKey, PrimaryKey, RelationalData, Schema, Table
from reportgen.data.io import load_folder
from reportgen.data.links import CountDistribution
from reportgen.metrics.relational import (
    MAX_BINS,
    RelationalResult,
    bin_labels,
    cardinality_bin_starts,
    compute_relational,
)
from reportgen.preparation import prepare_context
from reportgen.render.relational_figures import cardinality_figures
from reportgen.results import ReportResults
from reportgen.settings import ReportSettings

from ..conftest import DATASETS, load_metadata_dataset

SCHEMA = Schema(
    parent=Table(id=PrimaryKey(), kind="categorical"),
    child=Table(cid=PrimaryKey(), pid=ForeignKey(parent="parent"), amount="numeric"),
)


def family(children_per_parent, kinds=None, amount=None) -> dict[str, pd.DataFrame]:
    """Parents 1..n with the given numbers of children; children's amounts 1, 2, 3, ..."""
    n = len(children_per_parent)
    pid = np.repeat(np.arange(1, n + 1), children_per_parent)
    kinds = kinds if kinds is not None else ["a", "b"] * (n // 2) + ["a"] * (n % 2)
    return {
        "parent": pd.DataFrame({"id": np.arange(1, n + 1), "kind": kinds}),
        "child": pd.DataFrame(
            {
                "cid": np.arange(len(pid)),
                "pid": pid,
                "amount": np.arange(1.0, len(pid) + 1) if amount is None else amount(pid),
            }
        ),
    }


def relational(train, test, synth, schema=SCHEMA) -> RelationalResult:
    train = RelationalData(train, schema) if not isinstance(train, RelationalData) else train
    return compute_relational(prepare_context(train, test, synth, ReportSettings()))


def test_hand_computed_one_minus_tvd_with_the_tail_bin():
    real = family([0, 1, 2, 3])
    synth = family([1, 1, 1, 2, 6])
    rel = relational(real, real, synth).relations[0]
    # real 99th percentile = 3 -> bins 0, 1, 2, 3 and the tail >= 4
    assert rel.bins == ["0", "1", "2", "3", "≥ 4"]
    assert rel.train.shares == [0.25, 0.25, 0.25, 0.25, 0.0]
    assert rel.synth.shares == [0.0, 0.6, 0.2, 0.0, 0.2]
    # TVD = 0.5 * (0.25 + 0.35 + 0.05 + 0.25 + 0.2) = 0.55
    assert rel.similarity == pytest.approx(0.45)
    assert rel.reference == pytest.approx(1.0)
    assert (rel.train.mean, rel.train.median, rel.train.max) == (1.5, 1.5, 3)
    assert (rel.synth.parents, rel.synth.children, rel.synth.mean, rel.synth.median) == (5, 11, 2.2, 1.0)
    assert (rel.child_columns, rel.parent_columns, rel.label) == (["pid"], ["id"], "child.pid → parent.id")


def test_bins_are_integers_with_a_pooled_tail_and_at_most_thirty():
    assert list(cardinality_bin_starts(CountDistribution.of(np.zeros(10, dtype=int)))) == [0, 1]
    counts = np.r_[np.full(99, 2), 500]  # 99% of parents have at most 2 children: 500 is in the tail
    assert bin_labels(cardinality_bin_starts(CountDistribution.of(counts))) == ["0", "1", "2", "≥ 3"]
    wide = cardinality_bin_starts(CountDistribution.of(np.arange(1000)))
    labels = bin_labels(wide)
    assert len(labels) <= MAX_BINS and labels[:2] == ["0", "1\N{EN DASH}36"] and labels[-1] == "≥ 1009"


def test_a_copy_scores_one_and_one_child_each_scores_clearly_lower():
    rng = np.random.default_rng(0)
    real = family(rng.poisson(3, 200))
    copy = relational(real, None, real).relations[0]
    assert copy.similarity == 1.0 and copy.reference is None
    assert copy.aggregates is not None and copy.aggregates.mean == 1.0
    assert copy.integrity.with_parent == 1.0 and copy.integrity.duplicate_parent_keys == 0
    one_each = relational(real, None, family(np.ones(200, dtype=int))).relations[0]
    assert one_each.similarity == pytest.approx(copy.train.shares[1])  # all synthetic mass in bin 1
    assert one_each.similarity < 0.3


def test_children_moved_to_the_wrong_parents_show_in_the_aggregate_pairs():
    counts = np.tile([1, 6], 100)  # parents of kind "a" have 1 child, kind "b" have 6
    real = family(counts)
    swapped = family(counts, kinds=["b", "a"] * 100)  # same counts, attached to the other kind
    rel = relational(real, None, swapped).relations[0]
    assert rel.similarity == 1.0
    worst = rel.aggregates.worst_pairs[0]
    assert (worst.parent_column, worst.aggregate) == ("kind", "child rows")
    assert worst.similarity == pytest.approx(0.0)


def test_dataset_without_foreign_keys_gets_no_relational_page_only_a_line(tmp_path):
    table = pd.DataFrame({"x": np.arange(40.0), "c": ["u", "v"] * 20})
    results = rg.report(table, None, table, tmp_path / "r.html")
    assert results.sections["relational"].status == "not_applicable"
    html = (tmp_path / "r.html").read_text()
    assert 'id="sec-relational"' not in html
    assert "Not part of this report: Fidelity: relational structure (the data has no foreign keys)" in html
    assert rg.ReportResults.load(tmp_path / "r.json").sections["relational"].status == "not_applicable"


@pytest.fixture(scope="module")
def chinook_catalogue():
    real = load_metadata_dataset("chinook", ["Album", "Genre", "MediaType", "Track"])
    return real, load_folder(DATASETS / "chinook" / "synthetic" / "hma", real.schema)


@pytest.fixture(scope="module")
def restaurant_hma(restaurant):
    return restaurant, load_folder(DATASETS / "restaurant_consumer" / "synthetic" / "hma", restaurant.schema)


def check_bounds(result: RelationalResult) -> None:
    for rel in result.relations:
        values = [rel.similarity, rel.integrity.with_parent, rel.integrity.duplicate_parent_share]
        if rel.aggregates is not None:
            values += [rel.aggregates.mean] + [p.similarity for p in rel.aggregates.worst_pairs]
        assert all(0 <= v <= 1 for v in values), rel.label
        for counts in (rel.train, rel.synth):
            assert sum(counts.shares) == pytest.approx(1.0, abs=1e-4)  # shares are rounded
            assert len(counts.shares) == len(rel.bins) <= MAX_BINS


def test_chinook_hma_catalogue(chinook_catalogue):
    real, synth = chinook_catalogue
    result = relational(real, None, synth, real.schema)
    check_bounds(result)
    by_label = {r.label: r for r in result.relations}
    assert set(by_label) == {
        "Track.AlbumId → Album.AlbumId",
        "Track.GenreId → Genre.GenreId",
        "Track.MediaTypeId → MediaType.MediaTypeId",
    }
    albums = by_label["Track.AlbumId → Album.AlbumId"]
    # the dataset's README: tracks per album average 10.1 in both; the maximum is 34 (real: 57)
    assert albums.train.mean == pytest.approx(10.1, abs=0.05) and albums.synth.mean == pytest.approx(
        10.1, abs=0.05
    )
    assert (albums.train.max, albums.synth.max) == (57, 34)
    assert all(r.integrity.orphans == 0 and r.integrity.with_parent == 1.0 for r in result.relations)
    figures = cardinality_figures(result)
    assert list(figures) == ["cardinality:00"]
    assert len([ax for ax in figures["cardinality:00"].axes if ax.axison]) == 3


def test_restaurant_hma(restaurant_hma):
    real, synth = restaurant_hma
    result = relational(real, None, synth, real.schema)
    check_bounds(result)
    users = next(r for r in result.relations if r.parent == "userprofile")
    # the dataset's README: ratings per user run from 3 to 15 (real: 3 to 18), no orphans
    assert (users.train.max, users.synth.max) == (18, 15)
    assert users.synth.shares[:3] == [0.0, 0.0, 0.0]
    assert len(result.relations) == 2 and all(r.integrity.orphans == 0 for r in result.relations)


@pytest.fixture(scope="module")
def broken_chinook():
    """Chinook's sales chain with 20 invoice lines pointing at no invoice and 5 repeated invoice ids."""
    real = load_metadata_dataset("chinook", ["Employee", "Customer", "Invoice", "InvoiceLine"])
    invoices, lines = real["Invoice"], real["InvoiceLine"].copy()
    lines.loc[lines.index[:20], "InvoiceId"] = np.arange(100_000, 100_020)
    synth = {
        **real,
        "Invoice": pd.concat([invoices, invoices.iloc[[3, 50, 100, 200, 300]]], ignore_index=True),
        "InvoiceLine": lines,
    }
    return real, synth


def test_planted_orphans_and_duplicate_keys_are_counted_reported_and_rendered(broken_chinook, tmp_path):
    real, synth = broken_chinook
    few_columns = rg.ReportColumns(univ=1, biv=1)  # keeps the other sections' figures out of the time
    results = rg.report(real, None, synth, tmp_path / "broken.html", columns=few_columns)
    result = results.sections["relational"]
    by_label = {r.label: r for r in result.relations}
    lines = by_label["InvoiceLine.InvoiceId → Invoice.InvoiceId"]
    assert (lines.integrity.orphans, lines.integrity.child_rows) == (20, 2240)
    assert lines.integrity.with_parent == pytest.approx(2220 / 2240)
    assert (lines.integrity.duplicate_parent_keys, lines.integrity.parent_rows) == (5, 417)
    assert lines.integrity.duplicate_parent_share == pytest.approx(5 / 417)
    # children are counted per distinct invoice id, orphans left out
    assert (lines.synth.parents, lines.synth.children) == (412, 2220)
    invoices = by_label["Invoice.CustomerId → Customer.CustomerId"]
    assert invoices.integrity.orphans == 0 and invoices.synth.children == 417
    found = {(f.code, f.table, f.column): f.message for f in results.findings}
    assert found[("synthetic_orphans", "InvoiceLine", "InvoiceId")].startswith("20 of 2,240 synthetic rows")
    assert found[("synthetic_duplicate_primary_keys", "Invoice", "InvoiceId")].startswith(
        "5 of 417 synthetic rows"
    )
    html = (tmp_path / "broken.html").read_text()
    assert '<span class="bad">99.11%</span>' in html and "20 orphans in 2,240 rows" in html
    assert '<span class="bad">1.20%</span>' in html and "5 of 417 rows repeat a key" in html
    again = ReportResults.load(tmp_path / "broken.json").sections["relational"]
    assert isinstance(again, RelationalResult) and again == result


def test_self_reference_counts_reports_per_employee(chinook):
    employees = chinook["Employee"]
    flat = employees.assign(ReportsTo=np.where(employees["ReportsTo"].isna(), np.nan, 1.0))
    schema = Schema.from_dict({"tables": {"Employee": chinook.schema["Employee"].to_dict()}})
    real = RelationalData({"Employee": employees}, schema)
    rel = relational(real, None, {"Employee": flat}, schema).relations[0]
    assert rel.label == "Employee.ReportsTo → Employee.EmployeeId" and rel.is_self_reference
    # real: 5 employees manage nobody, 2 manage 2, 1 manages 3; synthetic: one boss of 7
    assert rel.train.shares == [0.625, 0.0, 0.25, 0.125, 0.0]
    assert rel.synth.shares == [0.875, 0.0, 0.0, 0.0, 0.125]
    assert rel.similarity == pytest.approx(0.625)
    # the general manager's missing ReportsTo means "no parent", not an orphan
    assert (rel.integrity.missing_keys, rel.integrity.orphans, rel.integrity.with_parent) == (1, 0, 1.0)


def test_composite_foreign_key_is_one_relation_matched_on_the_tuple():
    schema = Schema(
        shelf=Table(room=PrimaryKey(), row=PrimaryKey(), size="numeric"),
        book=Table(
            isbn=PrimaryKey(),
            room=ForeignKey(parent="shelf", parent_column="room"),
            row=ForeignKey(parent="shelf", parent_column="row"),
        ),
    )
    shelves = pd.DataFrame({"room": [1, 1, 2], "row": ["x", "y", "x"], "size": [1.0, 2.0, 3.0]})
    books = pd.DataFrame({"isbn": range(3), "room": [1, 1, 1], "row": ["x", "x", "y"]})
    # synthetic: (2, "y") is no shelf although room 2 and row "y" both exist; one room is missing
    synth_books = pd.DataFrame(
        {"isbn": range(6), "room": [1, 1, 1, 2, np.nan, 2], "row": ["x", "y", "y", "x", "y", "y"]}
    )
    result = relational(
        {"shelf": shelves, "book": books}, None, {"shelf": shelves, "book": synth_books}, schema
    )
    (rel,) = result.relations
    assert (rel.child_columns, rel.parent_columns) == (["room", "row"], ["room", "row"])
    assert rel.label == "book.(room, row) → shelf.(room, row)"
    assert rel.bins == ["0", "1", "2", "≥ 3"]
    assert rel.train.shares == pytest.approx([1 / 3, 1 / 3, 1 / 3, 0.0])  # shelves hold 2, 1, 0 books
    assert rel.synth.shares == pytest.approx([0.0, 2 / 3, 1 / 3, 0.0])  # 1, 2, 1
    assert rel.similarity == pytest.approx(2 / 3)
    assert (rel.integrity.missing_keys, rel.integrity.orphans) == (1, 1)
    assert rel.integrity.with_parent == pytest.approx(4 / 5)


def test_figures_are_small_multiples_a_page_wide(chinook):
    result = relational(chinook, None, chinook, chinook.schema)
    assert len(result.relations) == 11 and result.similarity == 1.0
    figures = cardinality_figures(result)
    assert list(figures) == ["cardinality:00", "cardinality:01"]
    panels = [[ax for ax in fig.axes if ax.axison] for fig in figures.values()]
    assert [len(p) for p in panels] == [6, 5]
    assert all(fig.get_figwidth() <= 180 / 25.4 + 1e-9 for fig in figures.values())
    titles = [ax.get_title(loc="left").splitlines()[0] for p in panels for ax in p]
    assert titles == [r.label for r in result.relations]
    assert not any(ax.title.get_parse_math() for p in panels for ax in p)


def test_many_foreign_keys_plot_only_the_least_similar():
    rng = np.random.default_rng(1)
    links = {f"p{i}": ForeignKey(parent="parent") for i in range(30)}
    schema = Schema(parent=Table(id=PrimaryKey()), child=Table(cid=PrimaryKey(), **links))
    parent = pd.DataFrame({"id": np.arange(20)})
    child = pd.DataFrame({"cid": np.arange(200), **{c: rng.integers(0, 20, 200) for c in links}})
    synth = child.assign(p0=0, p7=1)  # two foreign keys collapse onto one parent each
    result = relational({"parent": parent, "child": child}, None, {"parent": parent, "child": synth}, schema)
    shown = result.plotted()
    assert len(result.relations) == 30 and len(shown) == 24
    assert {"child.p0 → parent.id", "child.p7 → parent.id"} <= {r.label for r in shown}
    assert list(cardinality_figures(result)) == [f"cardinality:{i:02d}" for i in range(4)]
