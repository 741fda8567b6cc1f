"""The data overview: what was compared, at which sizes, with which column kinds and key health."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import pandas as pd
from pydantic import BaseModel, Field

from reportgen.context import EvaluationContext
from reportgen.data import lake
from reportgen.data.relational import KeyIntegrity, RelationalData
from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.data.schema import Relation, Table
from reportgen.results import SectionResult

NOT_SYNTHESISED = "the synthetic data lacks this table"


class ColumnSummary(BaseModel):
    """One column: its kind, where the kind came from, missing shares, and why it is excluded."""

    name: str
    kind: str
    kind_source: Literal["declared", "inferred"]
    key: Literal["primary", "foreign", "primary+foreign"] | None = None
    excluded_reason: str | None = Field(default=None, description="Why metrics skip this column.")
    missing_train: float = Field(ge=0, le=1, description="Share of missing values, training data.")
    missing_test: float | None = Field(default=None, ge=0, le=1)
    missing_synth: float | None = Field(
        default=None, ge=0, le=1, description="None: the synthetic data lacks the column's table."
    )


class RelationSummary(BaseModel):
    """A foreign key ``child.columns -> parent.parent_columns`` (one or more columns, in pairs)."""

    child: str
    columns: list[str]
    parent: str
    parent_columns: list[str]

    @property
    def label(self) -> str:
        return relation_label(self.child, self.columns, self.parent, self.parent_columns)


class KeyHealth(BaseModel):
    """Key problems of one table in one role, on all of its rows: real data is reported, not refused."""

    duplicate_primary_keys: int = 0
    missing_primary_keys: int = 0
    orphans: dict[str, int] = Field(
        default_factory=dict, description="Child rows whose key matches no parent row, per foreign key."
    )

    @property
    def n_orphans(self) -> int:
        return sum(self.orphans.values())

    @property
    def is_clean(self) -> bool:
        return not (self.duplicate_primary_keys or self.missing_primary_keys or self.n_orphans)


class TableSummary(BaseModel):
    """One table: sizes per role before and after sampling, columns, and synthetic key health."""

    name: str
    synthetic_missing: bool = Field(
        default=False,
        description=(
            "The synthetic data lacks this table: nothing is compared for it; its training rows, "
            "missing shares and key health are shown (no holdout or synthetic numbers)."
        ),
    )
    rows_train: int
    rows_test: int | None
    rows_synth: int
    used_train: int = Field(description="Training rows used after the n_max_train cap.")
    used_test: int | None
    used_synth: int
    sampling: dict[str, str] = Field(
        default_factory=dict, description="Per role whose rows were sampled: how the rows used were drawn."
    )
    primary_key: list[str]
    columns: list[ColumnSummary]
    keys: dict[str, KeyHealth] = Field(default_factory=dict, description="Key health per role, all rows.")
    counted_in: str | None = Field(
        default=None,
        description=(
            "The engine that counted rows, missing values and keys on every row when the inputs "
            "were read where they are ('duckdb', 'postgresql'); None: counted in memory."
        ),
    )

    @property
    def n_compared(self) -> int:
        return sum(c.excluded_reason is None for c in self.columns)


class OverviewResult(SectionResult):
    """The data overview section."""

    tables: list[TableSummary]
    relations: list[RelationSummary]


def compute_overview(ctx: EvaluationContext) -> OverviewResult:
    """Summarise every table of the three inputs (missing shares and keys on the full, unsampled data).

    When the inputs were read in place, the rows, missing shares and keys are counted on every
    row in the engine (``reportgen.data.lake``); the sample sizes are the ``used_*`` numbers.
    A training table the synthetic data lacks is listed too, in schema order, with its training
    rows, missing shares and key health (``_unsynthesised``), and the training data's orphans
    pointing at it count in its children's key health.
    """
    integrity = _integrity(ctx)
    schema = ctx.train.schema if ctx.whole_train is None else ctx.whole_train.schema
    missing = set(ctx.unsynthesised)
    tables = [
        _unsynthesised(ctx, name, integrity[TRAIN][name])
        if name in missing
        else _summary(ctx, name, integrity)
        for name in schema.topological_order()
    ]
    relations = [
        RelationSummary(
            child=r.child, columns=list(r.columns), parent=r.parent, parent_columns=list(r.parent_columns)
        )
        for r in schema.relations
    ]
    return OverviewResult(section="overview", tables=tables, relations=relations)


def _summary(
    ctx: EvaluationContext, name: str, integrity: dict[str, dict[str, KeyIntegrity]]
) -> TableSummary:
    """A compared table: its sizes, columns and key health in every role."""
    schema, keys = ctx.train.schema[name], _whole_train(ctx).schema[name]  # keys into lacking tables too
    prepared = ctx.table(name)
    missing = {role: _missing_shares(ctx, role, name) for role in ctx.roles}
    rows = ctx.basis(name, counted=True).available
    return TableSummary(
        name=name,
        rows_train=rows[TRAIN],
        rows_test=rows.get(TEST),
        rows_synth=rows[SYNTH],
        used_train=len(ctx.train[name]),
        used_test=_rows(ctx.test, name),
        used_synth=len(ctx.synth[name]),
        sampling={
            role: data.sampling[name].method
            for role, data in _roles(ctx, full=False).items()
            if data.sampling is not None and data.sampling[name].is_sampled
        },
        primary_key=list(schema.primary_key),
        columns=_columns(schema, keys, prepared.excluded, missing),
        keys={role: _key_health(found[name]) for role, found in integrity.items()},
        counted_in=ctx.in_place.engines[TRAIN] if ctx.in_place else None,
    )


def _unsynthesised(ctx: EvaluationContext, name: str, found: KeyIntegrity) -> TableSummary:
    """A training table the synthetic data lacks: its training rows, missing shares and keys only."""
    assert ctx.whole_train is not None
    schema = ctx.whole_train.schema[name]
    missing = {TRAIN: _missing_shares(ctx, TRAIN, name)}
    columns = _columns(schema, schema, dict.fromkeys(schema.kinds, NOT_SYNTHESISED), missing)
    return TableSummary(
        name=name,
        synthetic_missing=True,
        rows_train=found.rows,
        rows_test=None,
        rows_synth=0,
        used_train=0,
        used_test=None,
        used_synth=0,
        primary_key=list(schema.primary_key),
        columns=columns,
        keys={TRAIN: _key_health(found)},
        counted_in=ctx.in_place.engines[TRAIN] if ctx.in_place else None,
    )


def _columns(
    schema: Table, keys: Table, excluded: Mapping[str, str], missing: Mapping[str, Mapping[str, float]]
) -> list[ColumnSummary]:
    """Each column's kind, key role (in ``keys``), why it is excluded, and missing share per role."""
    return [
        ColumnSummary(
            name=column,
            kind=kind.value,
            kind_source="inferred" if column in schema.inferred else "declared",
            key=_key_role(keys, column),
            excluded_reason=excluded.get(column),
            missing_train=missing[TRAIN][column],
            missing_test=missing[TEST][column] if TEST in missing else None,
            missing_synth=missing[SYNTH][column] if SYNTH in missing else None,
        )
        for column, kind in schema.kinds.items()
    ]


def relation_label(child: str, columns: list[str], parent: str, parent_columns: list[str]) -> str:
    """A foreign key in words, as every page and finding names it: ``child.a -> parent.b``."""
    return str(Relation(child, tuple(columns), parent, tuple(parent_columns)))


def _roles(ctx: EvaluationContext, *, full: bool) -> dict[str, RelationalData]:
    roles = {role: ctx.role_data(role, full=full) for role in (TRAIN, TEST, SYNTH)}
    return {role: data for role, data in roles.items() if data is not None}


def _key_health(found: KeyIntegrity) -> KeyHealth:
    return KeyHealth(
        duplicate_primary_keys=found.duplicate_primary_keys,
        missing_primary_keys=found.missing_primary_keys,
        orphans={str(rel): n for rel, n in found.orphans.items()},
    )


def _key_role(schema: Table, column: str) -> Literal["primary", "foreign", "primary+foreign"] | None:
    is_pk = column in schema.primary_key
    is_fk = any(column in fk.columns for fk in schema.foreign_keys)
    if is_pk and is_fk:
        return "primary+foreign"
    return "primary" if is_pk else "foreign" if is_fk else None


def _rows(data: RelationalData | None, table: str) -> int | None:
    return None if data is None else len(data[table])


def _missing_shares(ctx: EvaluationContext, role: str, table: str) -> dict[str, float]:
    """Each column's share of missing values in a role's full data (in the engine when in place)."""
    frame = ctx.full_data(role)[table] if table in ctx.train else _whole_train(ctx)[table]
    if ctx.in_place is None:
        return {c: float(frame[c].isna().mean()) if len(frame) else 0.0 for c in frame.columns}
    numeric = [c for c in frame.columns if _holds_non_finite(frame[c].dtype)]
    counts = lake.missing_counts(ctx.in_place.sources[role], table, numeric, list(frame.columns))
    rows = ctx.in_place.rows[role][table]
    return {c: n / rows if rows else 0.0 for c, n in counts.items()}


def _holds_non_finite(dtype: Any) -> bool:
    """Whether a column can hold NaN or infinity, which count as missing: numbers, not booleans.

    Booleans stay out of the engine's cast to a double, which DuckDB 2.0 pushes into its CSV reader,
    where "True" is no number.
    """
    return pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)


def _integrity(ctx: EvaluationContext) -> dict[str, dict[str, KeyIntegrity]]:
    """Key integrity of every table in every role: in the engine when in place, else in memory.

    The training data's covers the tables the synthetic data lacks too (``whole_train``).
    """
    roles = {**_roles(ctx, full=True), TRAIN: _whole_train(ctx)}
    if ctx.in_place is None:
        return {role: data.integrity() for role, data in roles.items()}
    out: dict[str, dict[str, KeyIntegrity]] = {}
    for role, source in ctx.in_place.sources.items():
        schema = roles[role].schema
        out[role] = {}
        for name, table in schema.items():
            duplicates, missing = lake.primary_key_counts(source, name, table.primary_key)
            orphans = {
                rel: lake.key_counts(source, rel).orphans for rel in schema.relations if rel.child == name
            }
            out[role][name] = KeyIntegrity(ctx.in_place.rows[role][name], duplicates, missing, orphans)
    return out


def _whole_train(ctx: EvaluationContext) -> RelationalData:
    """All training rows of every training table, those the synthetic data lacks included."""
    return ctx.full_train if ctx.whole_train is None else ctx.whole_train
