"""The data overview: what was compared, at which sizes, with which column kinds and key health."""

from __future__ import annotations

from typing import Literal

import pandas as pd
from pydantic import BaseModel, Field

from reportgen.context import EvaluationContext
from reportgen.data.relational import RelationalData
from reportgen.results import SectionResult


class ColumnSummary(BaseModel):
    """One column: its kind, where the kind came from, missing shares, and why it is excluded."""

    name: str
    kind: str
    kind_source: Literal["declared", "inferred"]
    key: Literal["primary", "foreign", "primary+foreign"] | None = None
    excluded_reason: str | None = Field(default=None, description="Why metrics skip this column.")
    missing_train: float = Field(ge=0, le=1, description="Share of missing values, training data.")
    missing_test: float | None = Field(default=None, ge=0, le=1)
    missing_synth: float = Field(ge=0, le=1)


class RelationSummary(BaseModel):
    """A foreign key ``child.column -> parent.parent_column``."""

    child: str
    column: str
    parent: str
    parent_column: str


class TableSummary(BaseModel):
    """One table: sizes per role before and after sampling, columns, and synthetic key health."""

    name: str
    rows_train: int
    rows_test: int | None
    rows_synth: int
    used_train: int = Field(description="Training rows used after the n_max_train cap.")
    used_test: int | None
    used_synth: int
    primary_key: list[str]
    columns: list[ColumnSummary]
    synth_duplicate_primary_keys: int = 0
    synth_missing_primary_keys: int = 0
    synth_orphans: dict[str, int] = Field(default_factory=dict)

    @property
    def n_compared(self) -> int:
        return sum(c.excluded_reason is None for c in self.columns)


class OverviewResult(SectionResult):
    """The data overview section."""

    tables: list[TableSummary]
    relations: list[RelationSummary]


def compute_overview(ctx: EvaluationContext) -> OverviewResult:
    """Summarise every table of the three inputs (missing shares on the full, unsampled data)."""
    synth_integrity = ctx.full_synth.integrity()
    tables = []
    for name in ctx.table_names:
        schema = ctx.train.schema[name]
        prepared = ctx.table(name)
        integrity = synth_integrity[name]
        columns = [
            ColumnSummary(
                name=column,
                kind=kind.value,
                kind_source="inferred" if column in schema.inferred else "declared",
                key=_key_role(column, schema.primary_key, list(schema.foreign_keys)),
                excluded_reason=prepared.excluded.get(column),
                missing_train=_missing_share(ctx.full_train[name][column]),
                missing_test=None if ctx.full_test is None else _missing_share(ctx.full_test[name][column]),
                missing_synth=_missing_share(ctx.full_synth[name][column]),
            )
            for column, kind in schema.kinds.items()
        ]
        tables.append(
            TableSummary(
                name=name,
                rows_train=len(ctx.full_train[name]),
                rows_test=_rows(ctx.full_test, name),
                rows_synth=len(ctx.full_synth[name]),
                used_train=len(ctx.train[name]),
                used_test=_rows(ctx.test, name),
                used_synth=len(ctx.synth[name]),
                primary_key=list(schema.primary_key),
                columns=columns,
                synth_duplicate_primary_keys=integrity.duplicate_primary_keys,
                synth_missing_primary_keys=integrity.missing_primary_keys,
                synth_orphans=integrity.orphans,
            )
        )
    relations = [
        RelationSummary(child=r.child, column=r.column, parent=r.parent, parent_column=r.parent_column)
        for r in ctx.train.schema.relations
    ]
    return OverviewResult(section="overview", tables=tables, relations=relations)


def _key_role(
    column: str, primary_key: tuple[str, ...], foreign_keys: list[str]
) -> Literal["primary", "foreign", "primary+foreign"] | None:
    is_pk, is_fk = column in primary_key, column in foreign_keys
    if is_pk and is_fk:
        return "primary+foreign"
    return "primary" if is_pk else "foreign" if is_fk else None


def _rows(data: RelationalData | None, table: str) -> int | None:
    return None if data is None else len(data[table])


def _missing_share(values: pd.Series) -> float:
    return float(values.isna().mean()) if len(values) else 0.0
