"""Child rows in order within their parent: sorted into sequences, and the sequence view of them.

A child table that declares ``order_by`` holds one sequence per parent key value of each foreign
key its order runs within (``Schema.sequences``). ``sort_into_sequences`` is the one place that
puts a table's rows in sequence order: by sequence (the parent key's code, ``reportgen.data.links``),
then by the order columns in their kind's canonical dtype (missing last), then by the primary key,
then by the rows' order in the data (a stable sort). Child rows with a missing key or no parent row
belong to no sequence.

The **sequence view** (``sequence_view``) is what the neighbour-based sections (distances to the
closest record, membership attacks, the attacks on singling out, linkability and inference, alpha-beta)
measure of sequences: one row per sequence, so that a generator that copies whole real sequences
(a patient's visits, a customer's transactions) makes rows of the view that copy real rows, even
when each child row alone is common and the copied sequence hangs under a new parent row. Its
columns depend only on the schema and the compared columns, never on the data:

- ``length``: the sequence's number of rows (kind integer);
- for a numeric, integer or datetime column ``c`` (datetimes in days since 1970-01-01 UTC):
  ``c.first`` and ``c.last``, its values on the first and the last row (missing where that row has
  none); ``c.mean`` and ``c.spread``, the mean and the standard deviation (ddof 0) of its present
  values; ``c.step_spread``, the standard deviation of the steps between consecutive rows where
  both are present (missing with fewer than two steps), which the order of the rows moves while the
  mean and spread do not (the mean step is ``(last - first) / (length - 1)`` and adds nothing);
- for a categorical or boolean column ``c``: ``c.first`` and ``c.last`` (kind categorical);
  ``c.distinct``, the number of distinct present values; ``c.stay``, the share of steps between
  present values that keep the value (missing without such a step).

The parent row's own columns are left out: the entity view (``reportgen.data.entities``) joins a
parent with its children's aggregates; here the sequence is the record, so a real sequence
re-attached to a new parent row is still a copy. Statistics over a sequence's values take the
values in sorted order, so that a sum does not depend on how ties in the order were broken.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen.binning import as_numbers
from reportgen.data.kinds import to_canonical
from reportgen.data.links import link
from reportgen.data.relational import RelationalData
from reportgen.data.schema import ColumnKind, Relation

SECONDS_PER_DAY = 86_400.0
_NUMERIC = (ColumnKind.NUMERIC, ColumnKind.INTEGER, ColumnKind.DATETIME)
_CATEGORICAL = (ColumnKind.CATEGORICAL, ColumnKind.BOOLEAN)


@dataclass(frozen=True)
class SortedSequences:
    """A child table's rows that have a parent, in sequence order (see the module docstring)."""

    rows: pd.DataFrame  # the child rows, in sequence order, index reset
    codes: np.ndarray  # each row's parent key code (``Links``), in sequence order
    order: pd.DataFrame  # the order columns' canonical values, in sequence order
    parent_codes: np.ndarray  # the key code of each parent row, in the parent table's order

    @property
    def starts(self) -> np.ndarray:
        """Whether each row starts a sequence."""
        return np.r_[True, self.codes[1:] != self.codes[:-1]] if len(self.codes) else np.zeros(0, bool)

    @property
    def group(self) -> np.ndarray:
        """The sequence of each row, 0 .. n_sequences - 1, rows of one sequence together."""
        return np.cumsum(self.starts) - 1

    @property
    def n_sequences(self) -> int:
        return int(np.count_nonzero(self.starts))

    @property
    def step(self) -> np.ndarray:
        """For each row but the last, whether the next row continues its sequence."""
        return self.codes[1:] == self.codes[:-1]


def sort_into_sequences(
    data: RelationalData, fk: Relation, role: str, *, show_examples: bool
) -> SortedSequences:
    """``fk.child``'s rows with a parent row, sorted into the sequences of ``fk``.

    ``role`` names the data in the error an order value that does not convert raises;
    ``show_examples`` lets that error quote it (synthetic data only).
    """
    links = link(data, fk)
    rows = data[fk.child][links.has_parent].reset_index(drop=True)
    codes = links.child_codes[links.has_parent]
    table = data.schema[fk.child]
    order = pd.DataFrame(
        {
            c: to_canonical(
                rows[c],
                table.kinds[c],
                f"Table {fk.child!r}, order column {c!r} of the {role} data",
                show_examples=show_examples,
            )
            for c in table.order_by
        }
    )
    keys = pd.DataFrame(
        {
            "sequence": codes,
            **{f"order {c}": order[c] for c in table.order_by},
            **{f"key {c}": rows[c] for c in table.primary_key},
        }
    )
    position = keys.sort_values(list(keys.columns), kind="stable", na_position="last").index.to_numpy()
    return SortedSequences(
        rows=rows.iloc[position].reset_index(drop=True),
        codes=codes[position],
        order=order.iloc[position].reset_index(drop=True),
        parent_codes=links.parent_codes,
    )


def sequence_view(
    data: RelationalData,
    fk: Relation,
    compared: Sequence[str],
    kinds: Mapping[str, ColumnKind],
    role: str,
    *,
    show_examples: bool = False,
) -> tuple[pd.DataFrame, dict[str, ColumnKind]]:
    """One row per sequence of ``fk`` in ``data``: its length and its columns' summaries.

    ``compared`` names the child's compared columns and ``kinds`` their kinds; pass the same for
    every role, so the views have the same columns. Identifier key columns are left out. Returns
    the view (a ``RangeIndex``, sequences in their sorted order) and the kind of each column.
    """
    ordered = sort_into_sequences(data, fk, role, show_examples=show_examples)
    group, n = ordered.group, ordered.n_sequences
    parts: dict[str, pd.Series] = {"length": pd.Series(np.bincount(group, minlength=n).astype("float64"))}
    view_kinds = {"length": ColumnKind.INTEGER}
    spec = data.schema[fk.child]
    for column in compared:
        kind = kinds[column]
        if column in spec.key_columns and not kind.is_compared:
            continue
        where = f"Table {fk.child!r}, column {column!r} of the {role} data"
        values = to_canonical(ordered.rows[column], kind, where, show_examples=show_examples)
        if kind in _NUMERIC:
            summary, summary_kinds = _numeric_summary(column, kind, values, ordered)
        elif kind in _CATEGORICAL:
            summary, summary_kinds = _categorical_summary(column, values, ordered)
        else:
            continue
        parts.update(summary)
        view_kinds.update(summary_kinds)
    return pd.DataFrame({c: s.to_numpy() for c, s in parts.items()}).astype(
        {c: "string" for c, k in view_kinds.items() if k is ColumnKind.CATEGORICAL}
    ), view_kinds


def _numeric_summary(
    column: str, kind: ColumnKind, values: pd.Series, ordered: SortedSequences
) -> tuple[dict[str, pd.Series], dict[str, ColumnKind]]:
    x = as_numbers(values)
    if kind is ColumnKind.DATETIME:
        x = x / SECONDS_PER_DAY
    group, n = ordered.group, ordered.n_sequences
    ends = np.flatnonzero(np.r_[ordered.starts[1:], True]) if len(x) else np.zeros(0, int)
    by_value = np.lexsort((x, group))
    g, v = group[by_value], x[by_value]
    present = ~np.isnan(v)
    g, v = g[present], v[present]
    counts = np.bincount(g, minlength=n)
    means = np.bincount(g, weights=v, minlength=n) / np.where(counts > 0, counts, 1)
    squares = np.bincount(g, weights=(v - means[g]) ** 2, minlength=n)
    kept = ordered.step & ~np.isnan(x[1:]) & ~np.isnan(x[:-1])
    own = kind if kind is ColumnKind.INTEGER else ColumnKind.NUMERIC
    summary = {
        f"{column}.first": x[ordered.starts],
        f"{column}.last": x[ends],
        f"{column}.mean": np.where(counts > 0, means, np.nan),
        f"{column}.spread": np.where(counts > 0, np.sqrt(squares / np.where(counts > 0, counts, 1)), np.nan),
        f"{column}.step_spread": _spread_per_group((x[1:] - x[:-1])[kept], group[1:][kept], n),
    }
    summary_kinds = {name: ColumnKind.NUMERIC for name in summary}
    summary_kinds[f"{column}.first"] = summary_kinds[f"{column}.last"] = own
    return {name: pd.Series(values, dtype="float64") for name, values in summary.items()}, summary_kinds


def _spread_per_group(values: np.ndarray, group: np.ndarray, n: int) -> np.ndarray:
    """The standard deviation (ddof 0) of each group's values (sorted first); NaN below two values."""
    by_value = np.lexsort((values, group))
    g, v = group[by_value], values[by_value]
    counts = np.bincount(g, minlength=n)
    means = np.bincount(g, weights=v, minlength=n) / np.where(counts > 0, counts, 1)
    squares = np.bincount(g, weights=(v - means[g]) ** 2, minlength=n)
    return np.where(counts >= 2, np.sqrt(squares / np.where(counts > 0, counts, 1)), np.nan)


def _categorical_summary(
    column: str, values: pd.Series, ordered: SortedSequences
) -> tuple[dict[str, pd.Series], dict[str, ColumnKind]]:
    group, n = ordered.group, ordered.n_sequences
    ends = np.flatnonzero(np.r_[ordered.starts[1:], True]) if len(values) else np.zeros(0, int)
    present = values.notna().to_numpy()
    codes = pd.factorize(values)[0]  # -1: missing
    pairs = np.unique(group[present] * (codes.max(initial=0) + 1) + codes[present])
    distinct = np.bincount(pairs // (codes.max(initial=0) + 1), minlength=n).astype("float64")
    kept = ordered.step & present[1:] & present[:-1]
    stays = np.bincount(group[1:][kept], weights=(codes[1:] == codes[:-1])[kept], minlength=n)
    steps = np.bincount(group[1:][kept], minlength=n)
    summary = {
        f"{column}.first": values.iloc[np.flatnonzero(ordered.starts)].reset_index(drop=True),
        f"{column}.last": values.iloc[ends].reset_index(drop=True),
        f"{column}.distinct": pd.Series(distinct),
        f"{column}.stay": pd.Series(np.where(steps > 0, stays / np.where(steps > 0, steps, 1), np.nan)),
    }
    summary_kinds = {
        f"{column}.first": ColumnKind.CATEGORICAL,
        f"{column}.last": ColumnKind.CATEGORICAL,
        f"{column}.distinct": ColumnKind.INTEGER,
        f"{column}.stay": ColumnKind.NUMERIC,
    }
    return summary, summary_kinds
