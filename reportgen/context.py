"""The evaluation context: the sampled inputs, settings and shared per-table preparation.

Sections read everything through the context, so expensive preparation (canonical dtypes today;
bins, the distance-space encoding and neighbour searches as sections need them) is done once per
table and shared. Randomness comes from ``rng(purpose)``: one stream per named purpose, all derived
from the report's seed, so the numbers do not depend on the order in which sections run.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, TypeVar

import numpy as np
import pandas as pd

from reportgen.binning import BinCounts, ColumnBins, bin_counts_in_memory, fit_bins
from reportgen.data import lake
from reportgen.data.entities import entity_tables, entity_view
from reportgen.data.in_place import InPlace
from reportgen.data.kinds import near_unique, to_canonical
from reportgen.data.relational import SINGLE_TABLE_NAME, RelationalData
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.data.schema import ColumnKind, Relation, Table
from reportgen.data.sequence_view import sequence_view
from reportgen.fingerprint_model import TableFingerprint
from reportgen.privacy.distance_space import DistanceSpace, EmbeddedRows
from reportgen.real_side import RealSide
from reportgen.results import Basis, Finding
from reportgen.seeding import derived_rng, derived_seed
from reportgen.settings import ReportSettings

T = TypeVar("T")
NO_COMPARED_COLUMNS = "no column to compare (only keys, identifiers or free text)"  # a fact, not an alarm
ENTITY_SUFFIX = " (entity)"
SEQUENCE_SUFFIX = " (sequences)"
ViewKind = Literal["table", "entity", "sequence"]
"""What a distance view's rows are: a table's rows, parent rows with child aggregates, or sequences."""
NEAR_UNIQUE = "near-unique values: treated as an identifier"


@dataclass
class EvaluationContext:
    """Inputs after validation and sampling, with their full-size originals for row counts.

    Each role's rows are in their canonical order (``RelationalData.in_canonical_order``), unless
    the caller kept the order given (``reportgen.preparation.prepare_context``'s ``keep_order``).
    """

    train: RelationalData
    test: RelationalData | None
    synth: RelationalData
    full_train: RelationalData
    full_test: RelationalData | None
    full_synth: RelationalData
    settings: ReportSettings
    findings: list[Finding] = field(default_factory=list)
    progress: Callable[[str], None] = field(default=lambda detail: None, repr=False)
    """Called by long sections at each step (a table, a view, a repeat) with what they are doing."""
    in_place: InPlace | None = None
    """The inputs' sources when they were read where they are: then ``full_*`` are the samples, and
    the counting sections count every row in the engine through these sources."""
    missing_elsewhere: Mapping[str, Collection[str]] = field(default_factory=dict)
    """Per table, columns with missing values in synthetic rows that are not in memory (counted in
    the engine): their distance space gets a missing indicator, so that every row can be embedded
    (``reportgen.auditing.curate`` streams every synthetic row through it)."""
    holdout_from_training: bool = False
    """Whether the holdout role holds training rows set aside because no holdout was given
    (``reportgen.reference_split``): references are then measured, but the generator saw those rows."""
    whole_train: RelationalData | None = None
    """Every row of every training table, the tables the synthetic data lacks included (None: it
    lacks none). Only the overview reads it, for those tables' rows and the training data's key
    integrity (orphans pointing at a missing table); nothing is compared for them."""
    input_fingerprints: dict[str, dict[str, TableFingerprint]] = field(default_factory=dict)
    """Per role of inputs given in memory, each table's fingerprint of its rows in the order given
    (``reportgen.provenance.fingerprints``); empty for inputs read in place, which are fingerprinted
    where they are."""
    beside_others: bool = False
    """Whether this context's section runs in a background thread beside the other sections (see
    ``reportgen.evaluation._compute_sections``): work that would hold the interpreter lock for long then
    goes to a process of its own."""
    real_side: RealSide = field(default_factory=RealSide, repr=False)
    """Results computed from the real data alone, reused where another evaluation against the same
    real data computed them from the same inputs (``reportgen.compare_candidates`` shares one)."""
    _prepared: dict[str, PreparedTable] = field(default_factory=dict, repr=False)
    _entities: dict[str, EntityView] = field(default_factory=dict, repr=False)
    _views: dict[str, DistanceView] = field(default_factory=dict, repr=False)  # empty until built
    _view_tables: dict[str, str] = field(default_factory=dict, repr=False)  # view name -> its table
    _building: threading.RLock = field(default_factory=threading.RLock, repr=False)
    """Held while a shared preparation is built: a section computed beside the others (in another
    thread, on a copy of this context that shares these caches) waits for it instead of building
    a second one."""

    def rng(self, purpose: str) -> np.random.Generator:
        """A generator for one purpose, derived from the report's seed and the purpose's name."""
        return derived_rng(self.settings.seed, self._stream_key(purpose))

    def seed_for(self, purpose: str) -> int:
        """An integer seed for one purpose (for libraries that take ``random_state``), as ``rng``."""
        return derived_seed(self.settings.seed, self._stream_key(purpose))

    def _stream_key(self, purpose: str) -> str:
        """The purpose with a single table's name replaced by a fixed one.

        Purposes name their table (``"privacy:<table>"``). One table is called after its file by
        the command line and ``"table"`` when it is a DataFrame: its streams must not depend on
        that, so that the same data and seed give the same numbers however the data arrives.
        """
        if len(self.train) != 1:
            return purpose
        only = next(iter(self.train))
        return ":".join(SINGLE_TABLE_NAME if part == only else part for part in purpose.split(":"))

    def basis(self, table: str, *, counted: bool) -> Basis:
        """On which rows of ``table`` a number is computed, per role.

        ``counted``: a count-based number (``PreparedTable.bin_counts``, children per parent, key
        integrity), which covers every row, in the engine when the inputs were read in place, else
        in memory; otherwise a number computed on the sample.
        """
        available, used = {}, {}
        for role in self.roles:
            sample = self.role_data(role)
            assert sample is not None
            available[role] = (
                self.in_place.rows[role][table] if self.in_place else len(self.full_data(role)[table])
            )
            used[role] = available[role] if counted else len(sample[table])
        engine = self.in_place.engines[TRAIN] if counted and self.in_place else None
        return Basis(all_rows=used == available, rows=used, available=available, engine=engine)

    def entity(self, parent: str) -> EntityView:
        """The entity-level view of a parent table (its rows with child aggregates), computed once."""
        with self._building:
            if parent not in self._entities:
                self._entities[parent] = EntityView.build(self, parent)
            return self._entities[parent]

    def distance_views(self) -> dict[str, DistanceView]:
        """Every table, then every entity view (``"<parent> (entity)"``), then every sequence view.

        What the neighbour-based sections (privacy, membership, alpha-beta, auditing) measure; each
        section decides for itself which views have enough rows. A child table ordered within one
        parent gives the view ``"<child> (sequences)"``, within several ``"<child> (sequences
        in <parent>)"`` each (``reportgen.data.sequence_view``).
        """
        with self._building:
            if not self._views:
                views = {name: DistanceView.of_table(self.table(name)) for name in self.table_names}
                tables = {name: name for name in self.table_names}
                for parent in entity_tables(self.train.schema):
                    views[parent + ENTITY_SUFFIX] = DistanceView.of_entity(self.entity(parent))
                    tables[parent + ENTITY_SUFFIX] = parent
                for child in self.table_names:
                    keys = self.train.schema.sequences(child)
                    for fk in keys:
                        name = child + (SEQUENCE_SUFFIX if len(keys) == 1 else f" (sequences in {fk.parent})")
                        views[name] = DistanceView.of_entity(EntityView.of_sequences(self, fk), "sequence")
                        tables[name] = child
                self._views.update(views)
                self._view_tables.update(tables)
            return dict(self._views)

    def view_table(self, view: str) -> str:
        """The table a distance view's rows come from (a sequence view's: its child table)."""
        self.distance_views()
        return self._view_tables[view]

    def table(self, name: str) -> PreparedTable:
        """The shared preparation of one table (computed on first use)."""
        with self._building:
            if name not in self._prepared:
                self._prepared[name] = PreparedTable(self, name)
            return self._prepared[name]

    @property
    def table_names(self) -> list[str]:
        return self.train.schema.topological_order()

    @property
    def unsynthesised(self) -> list[str]:
        """The training tables the synthetic data lacks (``whole_train``), in topological order."""
        if self.whole_train is None:
            return []
        return [t for t in self.whole_train.schema.topological_order() if t not in self.train]

    def holdout_is_training(self, table: str) -> bool:
        """Whether a table's holdout rows are its training rows (a lookup table copied by a split)."""
        return self.full_test is not None and self.full_train[table].equals(self.full_test[table])

    @property
    def roles(self) -> list[str]:
        """The roles this run has: training and synthetic, and holdout when given."""
        return [TRAIN, SYNTH] if self.test is None else [TRAIN, TEST, SYNTH]

    def with_full_children(self, role: str, parent: str) -> RelationalData:
        """A role's full data with the sampled rows of ``parent`` in place of all of its rows.

        Each sampled parent row then meets all of its child rows, whatever the sample kept of the
        child tables (entity views and child aggregates read it).
        """
        sampled = self.role_data(role)
        assert sampled is not None
        full = self.full_data(role)
        return full.with_tables({**full, parent: sampled[parent]})

    def full_data(self, role: str) -> RelationalData:
        """All rows of one of this run's roles (see ``roles``), before sampling."""
        data = self.role_data(role, full=True)
        if data is None:
            raise KeyError(f"this run has no {role} data")
        return data

    def role_data(self, role: str, *, full: bool = False) -> RelationalData | None:
        if role == TRAIN:
            return self.full_train if full else self.train
        if role == TEST:
            return self.full_test if full else self.test
        return self.full_synth if full else self.synth


class PreparedTable:
    """One table's columns in canonical dtypes for each role, and what is compared and why not."""

    def __init__(self, context: EvaluationContext, name: str):
        self.context = context
        self.name = name
        self.schema: Table = context.train.schema[name]
        self._codes: dict[tuple[str, bool], dict[str, np.ndarray]] = {}
        self._shared: dict[str, Any] = {}

    def shared(self, key: str, compute: Callable[[], T]) -> T:
        """A per-table result that several sections use (the similarity matrix), computed once."""
        if key not in self._shared:
            self._shared[key] = compute()
        return self._shared[key]

    @cached_property
    def excluded(self) -> dict[str, str]:
        """Columns that distribution metrics skip, with the reason shown to the reader."""
        frame = self.context.train[self.name]
        reasons = {}
        for column, kind in self.schema.kinds.items():
            if column in self.schema.key_columns and not kind.is_compared:  # a composite key's data: compared
                reasons[column] = "key column (compared through the relational structure)"
            elif frame[column].isna().all():
                reasons[column] = "all values missing in the training data"
            elif kind is ColumnKind.ID:
                reasons[column] = "identifier"
            elif kind is ColumnKind.TEXT:
                reasons[column] = "free text or near-unique values"
            elif kind is ColumnKind.CATEGORICAL and near_unique(frame[column]):
                reasons[column] = NEAR_UNIQUE
        return reasons

    @property
    def compared_columns(self) -> list[str]:
        return [c for c in self.schema.columns if c not in self.excluded]

    @cached_property
    def bins(self) -> dict[str, ColumnBins]:
        """Univariate bins of every compared column: every level of every side counts."""
        return self._fit_bins(max_levels=None)

    @cached_property
    def pair_bins(self) -> dict[str, ColumnBins]:
        """Bins for column pairs: categories beyond ``max_categories`` real levels are pooled."""
        return self._fit_bins(max_levels=self.context.settings.max_categories)

    def bin_counts(self, role: str, columns: list[str]) -> BinCounts:
        """Rows per bin of ``columns`` and per cell of their pairs, for a role (computed once).

        On every row: in the engine when the inputs were read in place (``context.in_place``), else
        in memory (``counted_frame``). The bins are fitted on the sample either way: the same bins,
        the same cells, whatever form the data came in.
        """
        key = f"bin_counts:{role}:" + "\x00".join(columns)
        return self.shared(key, lambda: self._bin_counts(role, columns))

    def _bin_counts(self, role: str, columns: list[str]) -> BinCounts:
        in_place = self.context.in_place
        if in_place is not None:
            source = in_place.sources[role]
            return lake.bin_counts(source, self.name, columns, self.bins, self.pair_bins)
        frame = self.counted_frame(role)
        if frame is None:
            raise KeyError(f"no {role} data")
        return bin_counts_in_memory(frame, columns, self.bins, self.pair_bins)

    def codes(self, role: str, *, pairs: bool = False) -> dict[str, np.ndarray]:
        """Bin codes of every compared column for a role (computed once, then shared)."""
        key = (role, pairs)
        if key not in self._codes:
            frame = self.frame(role)
            if frame is None:
                raise KeyError(f"no {role} data")
            bins = self.pair_bins if pairs else self.bins
            self._codes[key] = {c: bins[c].codes(frame[c]) for c in self.compared_columns}
        return self._codes[key]

    @cached_property
    def distance_space(self) -> DistanceSpace:
        """The distance space of the neighbour sections (METRICS.md 5), fitted on training data only.

        Its columns are the ``knn`` selection of the compared columns. The other roles only decide
        which numeric columns get a missing indicator (see ``reportgen.privacy.distance_space``).
        """
        columns = self.context.settings.columns.select("knn", self.name, self.compared_columns)
        real = self.frame(TRAIN)
        assert real is not None
        others = [f for role, f in self._frames.items() if role != TRAIN]
        if unseen := list(self.context.missing_elsewhere.get(self.name, ())):
            others.append(pd.DataFrame({c: [np.nan] for c in unseen}))
        kinds = {c: self.schema.kinds[c] for c in columns}
        return DistanceSpace.fit(
            real, kinds, others=others, max_levels=self.context.settings.max_encoded_levels
        )

    def embedded(self, role: str) -> np.ndarray:
        """The rows of a role in the distance space, float32 (computed once per role, then shared)."""
        if role not in self._embedded:
            frame = self.frame(role)
            if frame is None:
                raise KeyError(f"no {role} data")
            self._embedded[role] = self.distance_space.transform(frame)
        return self._embedded[role]

    @cached_property
    def _embedded(self) -> dict[str, np.ndarray]:
        return {}

    def _fit_bins(self, max_levels: int | None) -> dict[str, ColumnBins]:
        real = self.frame(TRAIN)
        assert real is not None
        others = [f for role, f in self._frames.items() if role != TRAIN]
        return {
            c: fit_bins(
                c,
                self.schema.kinds[c],
                real[c],
                [f[c] for f in others],
                n_bins=self.context.settings.n_bins,
                max_levels=max_levels,
            )
            for c in self.compared_columns
        }

    def frame(self, role: str) -> pd.DataFrame | None:
        """The compared columns of this table for a role, in canonical dtypes (None: no holdout)."""
        return self._frames.get(role)

    def counted_frame(self, role: str) -> pd.DataFrame | None:
        """``frame`` of every row in memory, before the sampling caps: what the counts count.

        The sample's frame itself when the caps kept every row. (Inputs read in place are counted
        in their engine instead; their rows in memory are the sample.)
        """
        return self._counted_frames.get(role)

    @cached_property
    def _frames(self) -> dict[str, pd.DataFrame]:
        return self._canonical(full=False)

    @cached_property
    def _counted_frames(self) -> dict[str, pd.DataFrame]:
        if self.context.in_place is not None:
            return self._frames
        full = self._canonical(full=True, unless_same_as=self._frames)
        return {role: full.get(role, frame) for role, frame in self._frames.items()}

    def _canonical(
        self, *, full: bool, unless_same_as: Mapping[str, pd.DataFrame] | None = None
    ) -> dict[str, pd.DataFrame]:
        """The compared columns of each role's sample (or full data) in canonical dtypes.

        With ``unless_same_as``, a role whose full table is its sample is left out (no copy made).
        """
        frames = {}
        for role in (TRAIN, TEST, SYNTH):
            data = self.context.role_data(role, full=full)
            if data is None:
                continue
            source = data[self.name]
            if unless_same_as is not None and len(source) == len(unless_same_as[role]):
                continue
            frames[role] = self.canonical(source, role)
        return frames

    def canonical(self, rows: pd.DataFrame, role: str) -> pd.DataFrame:
        """The compared columns of ``rows`` (of this table, for ``role``) in canonical dtypes."""
        return pd.DataFrame(
            {
                c: to_canonical(
                    rows[c],
                    self.schema.kinds[c],
                    f"Table {self.name!r}, column {c!r} of the {role} data",
                    show_examples=role == SYNTH,
                )
                for c in self.compared_columns
            },
            index=rows.index,
        )


@dataclass(frozen=True)
class EntityView:
    """A view with a row per parent or per sequence, for every role, its distance space and embedded rows.

    A parent table's entity view (``build``) or a child table's sequence view (``of_sequences``).
    Shared by the neighbour-based sections: the aggregation and the embedding are done once.
    """

    frames: dict[str, pd.DataFrame]
    kinds: dict[str, ColumnKind]
    space: DistanceSpace
    embedded: dict[str, np.ndarray]

    @classmethod
    def build(cls, context: EvaluationContext, parent: str) -> EntityView:
        compared = {name: context.table(name).compared_columns for name in context.table_names}
        kinds = {name: context.train.schema[name].kinds for name in context.table_names}
        frames: dict[str, pd.DataFrame] = {}
        view_kinds: dict[str, ColumnKind] = {}
        for role in context.roles:
            frames[role], view_kinds = entity_view(
                context.with_full_children(role, parent), parent, compared, kinds, show_examples=role == SYNTH
            )
        return cls.embedded_in_training_space(context, frames, view_kinds)

    @classmethod
    def of_sequences(cls, context: EvaluationContext, fk: Relation) -> EntityView:
        """The sequence view of ``fk`` (``reportgen.data.sequence_view``) for every role, embedded."""
        prep = context.table(fk.child)
        frames: dict[str, pd.DataFrame] = {}
        view_kinds: dict[str, ColumnKind] = {}
        for role in context.roles:
            frames[role], view_kinds = sequence_view(
                context.with_full_children(role, fk.parent),
                fk,
                prep.compared_columns,
                prep.schema.kinds,
                role,
                show_examples=role == SYNTH,
            )
        return cls.embedded_in_training_space(context, frames, view_kinds)

    @classmethod
    def embedded_in_training_space(
        cls, context: EvaluationContext, frames: dict[str, pd.DataFrame], kinds: dict[str, ColumnKind]
    ) -> EntityView:
        """The frames with the distance space fitted on the training frame, and every role embedded."""
        others = [f for role, f in frames.items() if role != TRAIN]
        space = DistanceSpace.fit(
            frames[TRAIN], kinds, others=others, max_levels=context.settings.max_encoded_levels
        )
        embedded = {role: space.transform(frame) for role, frame in frames.items()}
        return cls(frames, kinds, space, embedded)


@dataclass(frozen=True)
class DistanceView:
    """One table or entity view in its distance space, with the frames its columns come from."""

    view: ViewKind
    space: DistanceSpace
    rows: EmbeddedRows
    frames: Mapping[str, pd.DataFrame]
    kinds: Mapping[str, ColumnKind]

    @property
    def columns(self) -> list[str]:
        return list(self.space.columns)

    @classmethod
    def of_table(cls, prep: PreparedTable) -> DistanceView:
        has_test = prep.frame(TEST) is not None
        rows = EmbeddedRows(
            prep.embedded(TRAIN), prep.embedded(SYNTH), prep.embedded(TEST) if has_test else None
        )
        frames = {role: f for role in (TRAIN, TEST, SYNTH) if (f := prep.frame(role)) is not None}
        kinds = {c: prep.schema.kinds[c] for c in prep.distance_space.columns}
        return cls("table", prep.distance_space, rows, frames, kinds)

    @classmethod
    def of_entity(cls, entity: EntityView, view: ViewKind = "entity") -> DistanceView:
        """An entity view, or a sequence view (built as one, ``EntityView.of_sequences``)."""
        rows = EmbeddedRows(entity.embedded[TRAIN], entity.embedded[SYNTH], entity.embedded.get(TEST))
        return cls(view, entity.space, rows, entity.frames, entity.kinds)
