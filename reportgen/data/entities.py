"""The entity-level view of a parent table: each parent row with aggregates of its child rows.

Privacy metrics look at each table on its own, keys dropped. Copying a whole customer together
with their transactions may not show in any single table (the customer row alone is common, each
transaction alone is common), but it shows in the entity view, where one row describes a parent
row and its children: the parent's compared columns, then for each direct child table

- ``<child>.count``: the number of child rows (kind integer, as float64 like every canonical number);
- ``<child>.<column>.mean`` for each numeric, integer or datetime compared child column: the mean
  over the child rows with a value (kind numeric; datetime means stay datetimes, kind datetime,
  ``datetime64[ns, UTC]``, exact to within float precision, well below a microsecond);
- ``<child>.<column>.mode`` for each categorical or boolean compared child column: the most frequent
  value among the child rows with a value, ties broken by the smallest value in string order, so the
  view is deterministic (kind categorical, strings as in ``to_canonical``).

Missing child values are left out of means and modes, as in the relational metrics' means; a
parent with no child (or no child with a value) gets a missing mean or mode and a count of 0.
When one child table has several foreign keys into the same parent (a bill's buyer and seller),
each key gets its own aggregates, named ``<child>[<fk column>]`` (``<child>[a,b]`` for a composite
key) instead of ``<child>``.

Only direct children are aggregated (one level). Grandchildren are already summarised in the
children's own entity views, and chaining aggregates of aggregates (a customer's mean over their
invoices of the mean over each invoice's lines) multiplies columns while blurring what they mean.

Every column is in the canonical dtype of its kind (``reportgen.data.kinds``), and the columns
depend only on the schema, ``compared`` and ``kinds``, never on the data: the view of the training,
holdout and synthetic data of one schema have the same columns and dtypes, even for a child table
with no rows (counts 0, means and modes missing).

Keys are matched by ``reportgen.data.links``, as in the relational section: key values through
``key_values`` (integral floats as integers); child rows with a missing key value and orphan child rows (whose
key matches no parent row) are left out; parent rows that repeat a key value (broken synthetic
data) all get the aggregates of that key value; a parent row with a missing key has no children;
the foreign keys from one child table into one parent whose referenced columns together are the
parent's composite primary key form one key, matched on the tuple of values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen.data.kinds import to_canonical
from reportgen.data.links import link
from reportgen.data.relational import RelationalData
from reportgen.data.schema import ColumnKind, Relation, Schema
from reportgen.errors import SchemaError

_MEAN_KINDS = {
    ColumnKind.NUMERIC: ColumnKind.NUMERIC,
    ColumnKind.INTEGER: ColumnKind.NUMERIC,
    ColumnKind.DATETIME: ColumnKind.DATETIME,
}
_MODE_KINDS = (ColumnKind.CATEGORICAL, ColumnKind.BOOLEAN)


@dataclass(frozen=True)
class ChildKey:
    """One foreign key into the parent, with the ``label`` that prefixes its aggregate columns."""

    fk: Relation
    label: str

    @property
    def child(self) -> str:
        return self.fk.child

    @property
    def child_columns(self) -> tuple[str, ...]:
        return self.fk.columns


def entity_tables(schema: Schema) -> list[str]:
    """The tables that get an entity view: those with a child table (self-references aside).

    In schema order.
    """
    return [name for name in schema if schema.children(name)]


def child_keys(schema: Schema, parent: str) -> list[ChildKey]:
    """The foreign keys into ``parent`` from other tables, composite ones grouped (schema order)."""
    into = [fk for fk in schema.relations if fk.parent == parent and fk.child != parent]
    per_child = {fk.child: sum(other.child == fk.child for other in into) for fk in into}
    return [ChildKey(fk, _label(fk.child, fk.columns, several=per_child[fk.child] > 1)) for fk in into]


def _label(child: str, columns: tuple[str, ...], *, several: bool) -> str:
    return f"{child}[{','.join(columns)}]" if several else child


def entity_view(
    data: RelationalData,
    parent: str,
    compared: Mapping[str, Sequence[str]],
    kinds: Mapping[str, Mapping[str, ColumnKind]],
    *,
    show_examples: bool = False,
) -> tuple[pd.DataFrame, dict[str, ColumnKind]]:
    """One row per row of ``data[parent]`` (same order and index): its columns and child aggregates.

    ``compared`` names the compared columns of each table (a table left out has none) and
    ``kinds`` their kinds; pass the same ones for every role, so the views have the same columns.
    Identifier key columns (kind id) are dropped even if listed. ``show_examples`` lets conversion
    errors quote values (for synthetic data only, so that errors never print real records). Returns
    the view and the kind of each of its columns. See the module docstring for the aggregates and
    the key matching.
    """
    frame = data[parent]
    columns = _compared(data.schema, parent, compared)
    parts = {c: _canonical(data, parent, c, kinds[parent][c], show_examples) for c in columns}
    view_kinds = {c: kinds[parent][c] for c in columns}
    for key in child_keys(data.schema, parent):
        aggregates, aggregate_kinds = _aggregates(data, parent, key, compared, kinds, show_examples)
        _check_new_names(parent, view_kinds, aggregate_kinds)
        parts.update(aggregates)
        view_kinds.update(aggregate_kinds)
    # the parts share the parent's index: build from their arrays, which a repeated label cannot misalign
    return pd.DataFrame({c: s.array for c, s in parts.items()}, index=frame.index), view_kinds


def _compared(schema: Schema, table: str, compared: Mapping[str, Sequence[str]]) -> list[str]:
    """The compared columns of ``table``, identifier keys left out (a composite key's data kept)."""
    spec = schema[table]
    return [c for c in compared.get(table, ()) if c not in spec.key_columns or spec.kinds[c].is_compared]


def _canonical(
    data: RelationalData, table: str, column: str, kind: ColumnKind, show_examples: bool
) -> pd.Series:
    where = f"Table {table!r}, column {column!r}"
    return to_canonical(data[table][column], kind, where, show_examples=show_examples)


def _aggregates(
    data: RelationalData,
    parent: str,
    key: ChildKey,
    compared: Mapping[str, Sequence[str]],
    kinds: Mapping[str, Mapping[str, ColumnKind]],
    show_examples: bool,
) -> tuple[dict[str, pd.Series], dict[str, ColumnKind]]:
    """The count, means and modes of one child key, aligned with the parent's rows."""
    links = link(data, key.fk)
    linked, parent_codes = links.has_parent, links.parent_codes
    codes = links.child_codes[linked]
    index = data[parent].index
    counts = links.children_per_parent_row().astype("float64")
    out = {f"{key.label}.count": pd.Series(counts, index=index)}
    out_kinds = {f"{key.label}.count": ColumnKind.INTEGER}
    for column in _compared(data.schema, key.child, compared):
        kind = kinds[key.child][column]
        if kind not in _MEAN_KINDS and kind not in _MODE_KINDS:
            continue
        values = _canonical(data, key.child, column, kind, show_examples)[linked]
        per_code = _means(values, codes) if kind in _MEAN_KINDS else _modes(values, codes)
        name = f"{key.label}.{column}.{'mean' if kind in _MEAN_KINDS else 'mode'}"
        out[name] = per_code.reindex(parent_codes).set_axis(index)
        out_kinds[name] = _MEAN_KINDS.get(kind, ColumnKind.CATEGORICAL)
    return out, out_kinds


def _means(values: pd.Series, codes: np.ndarray) -> pd.Series:
    """Mean of the values per key code (missing values left out), numbers as float64."""
    means = values.groupby(codes).mean()
    return means if values.dtype.kind == "M" else means.astype("float64")


def _modes(values: pd.Series, codes: np.ndarray) -> pd.Series:
    """Most frequent value per key code; ties go to the smallest value in string order."""
    pairs = pd.DataFrame({"code": codes, "value": values.to_numpy()}).dropna()
    counts = pairs.groupby(["code", "value"]).size().reset_index(name="n")
    best = counts.sort_values(["code", "n", "value"], ascending=[True, False, True], kind="stable")
    best = best.drop_duplicates("code")
    return pd.Series(best["value"].to_numpy(), index=best["code"].to_numpy(), dtype="string")


def _check_new_names(parent: str, existing: Mapping[str, ColumnKind], new: Mapping[str, ColumnKind]) -> None:
    clash = sorted(set(existing) & set(new))
    if clash:
        raise SchemaError(
            f"Entity view of table {parent!r}: the aggregate column name(s) {clash} are already "
            "taken by a column of the view. Rename the parent column(s) so that they do not look "
            "like '<child table>.<column>.<mean|mode|count>'."
        )
