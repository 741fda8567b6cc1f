"""A report's inputs read where they are: samples drawn in the engine, sources kept for aggregates.

``report()`` hands each role's ``Source`` to ``read_in_place``, which draws the seeded sample that
the in-memory sections read (distances, attacks, the one-class network, utility, phik) and
keeps the sources, so that the sections that count (row counts, missing shares, the similarity
matrix, children per parent, key integrity) count every row in the engine
(``reportgen.data.lake``). Memory is then bounded by the sample, not by the data. The KS
statistics, which compare roles value by value, are on every row too when one query reads every
role (``InPlace.ks_statistics``), else on the sample.

Sampling follows ``RelationalData.sample`` (``reportgen.data.lake_sample`` gives the rules as the
engine applies them): a table within ``n_max`` rows is read whole; a dataset with foreign keys is
sampled by whole entities of its root, the tables outside its hierarchy keep the rows that sampled
rows refer to, and when one entity holds most rows, rows are drawn where they are instead; either
way the sample is referentially closed. Without foreign keys, each table gets a uniform seeded sample.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property

import pandas as pd

from reportgen.data import lake, lake_sample
from reportgen.data.engines import DuckDBEngine, Source, reaches
from reportgen.data.relational import TableSample
from reportgen.data.roles import SYNTH, TRAIN
from reportgen.data.schema import ColumnKind, Schema, Table
from reportgen.errors import IncompatibleDataError


@dataclass
class InPlace:
    """The sources of a report's roles, their exact row counts, and how their samples were drawn.

    ``sources`` is keyed by role, the training data first (the schema's and the KS reference).
    """

    sources: dict[str, Source]
    rows: dict[str, dict[str, int]]
    sampling: dict[str, dict[str, TableSample]] = field(default_factory=dict)
    opened: list[Source] = field(default_factory=list)
    """The sources reportgen opened itself (from paths): it closes them when the report is done."""

    def close_opened(self) -> None:
        """Close the sources reportgen opened (a source the caller passed stays open)."""
        for source in self.opened:
            source.close()

    @property
    def engines(self) -> dict[str, str]:
        """Per role, the engine that computed its all-row numbers (``duckdb``, ``postgresql``...)."""
        return {role: source.engine.dialect for role, source in self.sources.items()}

    def describe(self) -> dict[str, str]:
        """Per role, where its data was read (for the run page: an auditor sees the inputs)."""
        return {role: source.description for role, source in self.sources.items()}

    @cached_property
    def host(self) -> Source | None:
        """The first role's source whose engine reads every role's tables in one query, if any.

        Numbers that compare roles row by row on all rows (KS) need every role in one query: files
        read by DuckDB meet in any DuckDB connection, tables of one database in that database.
        """
        sources = list(self.sources.values())
        return next((h for h in sources if all(reaches(h, s) for s in sources)), None)

    def apart(self) -> str | None:
        """Why no one query reads every role (None when one does), for the reader of the report."""
        if self.host is not None:
            return None
        places = "; ".join(f"{role}: {source.description}" for role, source in self.sources.items())
        return f"no one query reads every role ({places})"

    def ks_statistics(
        self, table: str, kinds: Mapping[str, ColumnKind]
    ) -> dict[str, dict[str, float | None]] | None:
        """The KS statistics of ``table`` on every row (``lake.ks_statistics``), or None.

        None when no one query reads every role (``apart`` says why). Files are read by a DuckDB
        connection of its own, closed after: DuckDB keeps the memory of its sorts (as much as its
        cap) until its connection closes, and the sections that follow need it. Other roles are
        read on the host's connection, which stays open.
        """
        if self.host is None:
            return None
        relations = {role: source.relations[table] for role, source in self.sources.items()}
        engine = self.host.engine
        if all(source.files for source in self.sources.values()) and isinstance(engine, DuckDBEngine):
            engine = DuckDBEngine(memory_limit=engine.memory_limit)
        joint = Source(engine, relations, None, f"table {table!r} of every role")
        try:
            return lake.ks_statistics(joint, kinds)
        finally:
            if engine is not self.host.engine:
                engine.close()


def read_in_place(
    sources: Mapping[str, Source], schema: Schema | None, caps: Mapping[str, int], seeds: Mapping[str, int]
) -> tuple[dict[str, dict[str, pd.DataFrame]], InPlace]:
    """Each role's sample as DataFrames, and the ``InPlace`` record of the sources and samples.

    ``schema`` (or the training source's own) gives the keys for every role, as the training
    data's schema applies to all three; ``caps`` and ``seeds`` are per role.
    """
    first = next(iter(sources))
    keys = schema if schema is not None else sources[first].schema
    named = {role: _named_like(sources[first], source) for role, source in sources.items()}
    _check_tables(named)
    frames: dict[str, dict[str, pd.DataFrame]] = {}
    record = InPlace(named, {})
    for role, source in named.items():
        rows = {t: lake.row_count(source, t) for t in source.relations}
        record.rows[role] = rows
        frames[role], record.sampling[role] = sample_role(source, keys, rows, caps[role], seeds[role])
    return frames, record


def _named_like(reference: Source, source: Source) -> Source:
    """One table named as the training data's one table (files name tables after themselves)."""
    if len(reference.relations) == 1 and len(source.relations) == 1 and reference is not source:
        (name,), (relation,) = reference.relations, source.relations.values()
        files = {name: next(iter(source.files.values()))} if source.files else {}
        source = replace(source, relations={name: relation}, files=files, schema=None)
    return source


def _check_tables(sources: Mapping[str, Source]) -> None:
    """Every training table in the holdout, unless the synthetic data lacks it too.

    The synthetic data may lack tables, as in memory: the report leaves them out and says so on
    page 1 (``reportgen.preparation``), and the holdout need not have those.
    """
    tables = list(sources[TRAIN].relations)
    if SYNTH in sources and not any(t in sources[SYNTH].relations for t in tables):
        return  # the in-memory check says there is nothing to compare
    unmade = {t for t in tables if SYNTH in sources and t not in sources[SYNTH].relations}
    for role, source in sources.items():
        if role == SYNTH:
            continue
        missing = [t for t in tables if t not in source.relations and t not in unmade]
        if missing:
            raise IncompatibleDataError(
                f"The {role} data ({source.description}) lacks table(s) {missing} that the training "
                f"data has (its tables: {sorted(source.relations)}). Provide them."
            )


def sample_role(
    source: Source, schema: Schema | None, rows: dict[str, int], n_max: int, seed: int
) -> tuple[dict[str, pd.DataFrame], dict[str, TableSample]]:
    """One role's sample: by ``lake_sample`` when there are foreign keys, else uniform rows."""
    keys = schema if schema is not None else Schema({t: Table() for t in source.relations})
    keys = keys.subset([t for t in keys if t in source.relations])
    if all(n <= n_max for n in rows.values()):
        frames = {t: lake.sample_rows(source, t, n_max, seed) for t in keys}
        return tidy(frames), _record(frames, rows, {t: "all rows" for t in frames})
    if keys.relations:
        frames, methods = lake_sample.sample(source, keys, rows, n_max, seed)
        return tidy(frames), _record(frames, rows, methods)
    frames = {t: lake.sample_rows(source, t, n_max, seed) for t in keys}
    uniform = f"uniform random rows (md5 order with the seed), drawn in {source.engine.dialect}"
    methods = {t: "all rows" if rows[t] <= n_max else uniform for t in keys}
    return tidy(frames), _record(frames, rows, methods)


def _record(
    frames: Mapping[str, pd.DataFrame], rows: Mapping[str, int], methods: Mapping[str, str]
) -> dict[str, TableSample]:
    return {t: TableSample(rows[t], len(f), methods[t]) for t, f in frames.items()}


def tidy(frames: Mapping[str, pd.DataFrame]) -> dict[str, pd.DataFrame]:
    """Engine frames with the dtypes ``pandas.read_parquet`` gives (strings as objects)."""
    return {
        t: f.astype({c: object for c in f.columns if isinstance(f[c].dtype, pd.StringDtype)})
        for t, f in frames.items()
    }
