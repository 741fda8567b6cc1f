"""The exact SQL a report sends to an engine, for engines reportgen cannot test here.

``sent_statements(source, "snowflake")`` runs every kind of statement that a report read in place
sends (row counts, missing values, bin counts, KS, the content digest, key integrity, children per
parent, the seeded sample) on ``source`` with its own engine, and records each statement as it
would be sent to the other dialect (``reportgen.data.dialects.translate``, with that engine's KS
form), each table by its name. ``reportgen sql --dialect snowflake [INPUT]`` prints them; without
an input, for the relational demo data that ships with reportgen.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import pandas as pd

from reportgen.binning import fit_bins
from reportgen.data import lake
from reportgen.data.dialects import SCALES_OUT, sqlglot_dialect, translate
from reportgen.data.engines import Engine, Source, quote
from reportgen.data.in_place import sample_role
from reportgen.data.kinds import infer_kind, to_canonical
from reportgen.data.schema import ColumnKind, Schema, Table

N_BINS = 20


@dataclass
class Recorder(Engine):
    """An engine that runs each statement on ``inner`` and records it as ``dialect`` would get it."""

    inner: Engine
    target: str
    tables: dict[str, str] = field(default_factory=dict)
    """Each relation as ``inner`` reads it (``read_csv(...)``), and the table name it is shown as."""
    sent: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.dialect = self.target
        self.scales_out = self.target in SCALES_OUT

    def _record(self, query: str) -> None:
        for relation, name in self.tables.items():
            query = query.replace(relation, name)
        self.sent.append(translate(query, self.target))

    def rows(self, query: str) -> list[tuple[Any, ...]]:
        self._record(query)
        return self.inner.rows(query)

    def frame(self, query: str) -> pd.DataFrame:
        self._record(query)
        return self.inner.frame(query)

    def batches(self, query: str, size: int) -> Iterator[pd.DataFrame]:
        self._record(query)
        return self.inner.batches(query, size)

    def column_families(self, relation: str) -> dict[str, str]:
        return self.inner.column_families(relation)  # each engine asks its catalog, not by SQL text

    def close(self) -> None:
        self.inner.close()


def sent_statements(source: Source, dialect: str, *, n_max: int = 1_000, seed: int = 0) -> list[str]:
    """Every kind of statement a report sends for ``source``'s tables, as ``dialect`` gets it."""
    sqlglot_dialect(dialect)  # a clear error for an unknown dialect before anything runs
    recorder = Recorder(source.engine, dialect, {r: quote(t) for t, r in source.relations.items()})
    recorded = replace(source, engine=recorder)
    schema = source.schema or Schema({t: Table() for t in source.relations})
    rows = {t: lake.row_count(recorded, t) for t in recorded.relations}
    frames, _ = sample_role(recorded, schema, rows, n_max, seed)
    for table, frame in frames.items():
        kinds = {c: schema[table].kinds.get(c) or infer_kind(frame[c]) for c in frame.columns}
        _table_statements(recorded, table, frame, kinds)
        lake.primary_key_counts(recorded, table, schema[table].primary_key)
    for relation in schema.relations:
        lake.key_counts(recorded, relation)
        lake.children_per_parent(recorded, relation)
    return recorder.sent


def _table_statements(source: Source, table: str, frame: pd.DataFrame, kinds: dict[str, ColumnKind]) -> None:
    """The per-table statements: missing values, bin counts, KS (the table against itself), digest."""
    numeric = [c for c, k in kinds.items() if k in (ColumnKind.NUMERIC, ColumnKind.INTEGER)]
    lake.missing_counts(source, table, numeric, list(frame.columns))
    compared = [c for c, k in kinds.items() if k not in (ColumnKind.ID, ColumnKind.TEXT)]
    where = f"table {table!r}"
    canonical = {c: to_canonical(frame[c], kinds[c], where, show_examples=False) for c in compared}
    bins = {c: fit_bins(c, kinds[c], canonical[c], n_bins=N_BINS) for c in compared}
    if compared:
        lake.bin_counts(source, table, compared, bins, bins)
    ordered = {c: k for c, k in kinds.items() if k.is_ordered}
    twice = {"train": source.relations[table], "synth": source.relations[table]}
    lake.ks_statistics(replace(source, relations=twice, schema=None), dict(list(ordered.items())[:1]))
    lake.content_digest(source, table, kinds)
