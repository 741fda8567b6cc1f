"""The sequences section on real ordered children: lahman's seasons per player, chinook's invoices.

- ``lahman``: the five tables HMA modelled (``bench_lahman.train_and_holdout``: the 4,000 people HMA
  was fitted on with their rows, every other person as the holdout), with ``order_by: [yearID]``
  declared on batting and pitching (a player's seasons; their key into teams holds the year, so
  the sequences run within people only), against ``synthetic/hma``;
- ``chinook``: Customer and Invoice with ``order_by: [InvoiceDate]`` on Invoice, split by customer
  in three: training, holdout and a third part. No generator synthesised Invoice (see the datasets'
  README), so the synthetic side is a known defect built from the third part's real customers,
  unseen by both others: each customer's invoice totals in a random order, their dates kept (a
  generator that forgets the order). Its other measures compare different real customers, as the
  reference does. ``chinook-honest``: the same third part, unshuffled (an honest sample).

Per case: the whole report (PDF) with its wall time, then the section alone on the prepared context
(compute, then its figures), its numbers, and the page of the PDF that holds the section, rendered
to PNG at 60 dpi beside the PDF (``pdftoppm``); then what the sequence views cost the privacy
sections (``sequence_views_alone``: building each view, its distance checks and its membership
attacks), with each view's exact-copy share and highest attack AUC.

Run: python benchmarks/bench_sequences.py OUT_FOLDER [lahman] [chinook] [chinook-honest]
(lahman: about 10 minutes on 2 shared cores, chinook: about 1 each)
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from bench_lahman import LAHMAN, MODELLED, train_and_holdout

from reportgen import RelationalData, Schema, Table, report
from reportgen.context import EntityView
from reportgen.data.io import load_folder
from reportgen.metrics.membership import _view_membership  # per view, as the section runs it
from reportgen.metrics.privacy import _view_privacy
from reportgen.metrics.sequences import SequencesResult, compute_sequences
from reportgen.preparation import prepare_context
from reportgen.render.sequence_figures import furthest_measures
from reportgen.settings import ReportSettings

CHINOOK = LAHMAN.parent / "chinook"


def ordered(data: RelationalData, orders: dict[str, list[str]]) -> RelationalData:
    """``data`` with ``order_by`` declared on the tables of ``orders``."""
    tables = {
        name: Table.from_dict({**data.schema[name].to_dict(), "order_by": orders.get(name, [])}, name)
        for name in data.schema
    }
    return RelationalData(dict(data), Schema(tables))


def lahman() -> tuple[RelationalData, RelationalData, RelationalData]:
    train, holdout = train_and_holdout()
    orders = {"batting": ["yearID"], "pitching": ["yearID"]}
    train, holdout = (ordered(d.restricted(MODELLED), orders) for d in (train, holdout))
    synth = load_folder(LAHMAN / "synthetic" / "hma", train.schema)
    return train, holdout, synth


def chinook(shuffled: bool = True) -> tuple[RelationalData, RelationalData, RelationalData]:
    real = ordered(load_folder(CHINOOK).restricted(["Customer", "Invoice"]), {"Invoice": ["InvoiceDate"]})
    seen, holdout = real.split(2 / 3, seed=0, root="Customer")
    train, others = seen.split(0.5, seed=0, root="Customer")
    if not shuffled:
        return train, holdout, others
    invoices = others["Invoice"].sort_values(["CustomerId", "InvoiceDate"]).copy()
    rng = np.random.default_rng(0)
    within = np.lexsort((rng.random(len(invoices)), invoices["CustomerId"].to_numpy()))
    invoices["Total"] = invoices["Total"].to_numpy()[within]
    synth = others.with_tables({**others, "Invoice": invoices})
    return train, holdout, synth


def section_alone(train, holdout, synth) -> tuple[SequencesResult, float, float]:
    context = prepare_context(train, holdout, synth, ReportSettings())
    start = time.perf_counter()
    result = compute_sequences(context)
    computed = time.perf_counter() - start
    for table in result.tables:
        furthest_measures(table)
    return result, computed, time.perf_counter() - start - computed


def sequence_views_alone(train, holdout, synth) -> None:
    """Print what the sequence views add to the privacy sections: seconds per view and what they find.

    Per sequence view: building it (``EntityView.of_sequences``: the summaries and their distance
    space), its distance checks (``_view_privacy``) and its membership attacks
    (``_view_membership``), the per-view steps the sections run on every view.
    """
    context = prepare_context(train, holdout, synth, ReportSettings())
    views = context.distance_views()  # the tables' preparation, shared with every other view
    for child in context.table_names:
        for fk in context.train.schema.sequences(child):
            start = time.perf_counter()
            EntityView.of_sequences(context, fk)
            built = time.perf_counter() - start
            name = next(
                n for n, v in views.items() if v.view == "sequence" and context.view_table(n) == child
            )
            start = time.perf_counter()
            privacy = _view_privacy(context, name, views[name])
            measured = time.perf_counter() - start
            start = time.perf_counter()
            attacked = _view_membership(context, name, views[name], bounds=3)
            attack = time.perf_counter() - start
            print(
                f"   {name}: built {built:.1f} s, distances {measured:.1f} s, attacks {attack:.1f} s; "
                f"{_found(privacy)}, {_found(attacked)}"
            )


def _found(outcome) -> str:
    if isinstance(outcome, str):
        return f"not measured ({outcome})"
    if hasattr(outcome, "distances"):
        return f"exact copies {outcome.distances.exact_copies:.3f}"
    return f"highest AUC {max(a.auc for a in outcome.stats.attacks):.3f}"


def sequences_page(pdf: Path) -> int:
    """The page number of the sequences section's heading (its second mention: the first is the contents)."""
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    pages = text.split("\f")
    found = [i + 1 for i, page in enumerate(pages) if "Fidelity: sequences" in page]
    return found[1]


CASES = {"lahman": lahman, "chinook": chinook, "chinook-honest": lambda: chinook(shuffled=False)}


def main(out: Path, cases: list[str]) -> None:
    for name in cases:
        make = CASES[name]
        train, holdout, synth = make()
        start = time.perf_counter()
        results = report(train, holdout, synth, out / f"{name}.pdf", seed=0)
        whole = time.perf_counter() - start
        result, computed, drawn = section_alone(train, holdout, synth)
        page = sequences_page(out / f"{name}.pdf")
        subprocess.run(
            ["pdftoppm", "-png", "-r", "60", "-f", str(page), "-l", str(page + 2), str(out / f"{name}.pdf"),
             str(out / f"{name}-sequences")],
            check=True,
        )  # fmt: skip
        headline = results.headlines["sequence_similarity"]
        print(
            f"\n== {name}: report {whole:.1f} s; sequences section {computed:.2f} s + figures {drawn:.2f} s"
        )
        print(
            f"   page 1: {headline.value:.1f} (reference {headline.reference:.1f}, tolerance "
            f"{headline.tolerance:.1f}), worse: {headline.worse}"
        )
        for table in result.tables:
            score = f"{100 * table.worst.similarity:.1f} (reference {100 * table.worst.reference:.1f})"
            mean = f"{100 * table.similarity:.1f} (reference {100 * table.reference:.1f})"
            print(
                f"   {table.label} by {table.order_by}: {score}, {table.worst.label}; mean {mean}; "
                f"{table.sequences}, steps {table.steps}"
            )
            for m in table.measures:
                print(
                    f"      {m.label}: {100 * m.similarity:.1f} ({100 * m.reference:.1f}, "
                    f"tolerance {100 * m.tolerance:.1f})"
                )
            if table.skipped:
                print(f"      not measured: {table.skipped}")
        print(f"   sequences page: {page} (PNG at 60 dpi: {name}-sequences-*.png)")
        sequence_views_alone(train, holdout, synth)


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2:] or list(CASES))
