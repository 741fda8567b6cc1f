"""The shape of a relational dataset: tables, column kinds, primary and foreign keys.

A ``Schema`` is a set of named ``Table`` s. A table declares the columns it knows about; columns of
the data that a table does not declare get their kind inferred (``reportgen.data.kinds``), and the
inference is recorded so the report can show it::

    Schema(
        customers=Table(customer_id=PrimaryKey(), age="numeric", country="categorical"),
        orders=Table(order_id=PrimaryKey(), customer_id=ForeignKey(parent="customers")),
    )

A composite primary key is several ``PrimaryKey()`` columns; a column that is both part of the
primary key and a foreign key is ``ForeignKey(parent=..., primary_key=True)``; a self-reference is a
``ForeignKey`` whose parent is the table itself. A foreign key over several columns (a composite key,
or one whose columns also belong to other keys) is declared on the table::

    Table(foreign_keys=[ForeignKey(parent="teams", columns=["yearID", "teamID"])], stint="integer")

Key columns are identifiers (kind ``id``), compared only through the keys, except a column of a
composite key declared with a kind of its own (``PrimaryKey(kind="datetime")``, ``yearID="integer"``
beside the table's foreign key above, or the column's kind in a schema file): a season's year or a
rating's date is data as well as part of a key, and is compared as that kind too.

``parent_columns`` defaults to the parent's primary key, in its order. Per-column foreign keys from
one table into one parent that together reference the parent's whole composite primary key are
read as one composite key too (the layout of older schema files).

``Table(..., target="income")`` names the column that
the utility section predicts (a column literally called "target" is declared through the mapping
form, ``Table({"target": "categorical"})``).

``Table(..., order_by=["date"])`` (``order_by: [date]`` in a schema file) declares that the table's
rows happen in order within each parent row: a customer's invoices by date, a player's seasons by
year. The rows of one parent, sorted by the order columns (ties broken by the primary key, then by
the rows' order in the data), form that parent's sequence, which the sequences section compares.
A sequence runs within each foreign key into another table that holds no order column (a key that
holds one, such as a season's team and year, fixes the order within its parent); a table with an
order needs at least one such key.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from reportgen.data.sdv_metadata import SchemaNote, from_sdv_metadata, is_sdv_metadata
from reportgen.errors import SchemaError


class ColumnKind(str, Enum):
    """How a column is compared. ``ID`` columns (keys, identifiers) are never compared as data."""

    NUMERIC = "numeric"
    INTEGER = "integer"
    CATEGORICAL = "categorical"
    BOOLEAN = "boolean"
    DATETIME = "datetime"
    TEXT = "text"
    ID = "id"

    @property
    def is_ordered(self) -> bool:
        """Whether values are numbers on a line (numbers, integers, dates): binned, not levelled."""
        return self in (ColumnKind.NUMERIC, ColumnKind.INTEGER, ColumnKind.DATETIME)

    @classmethod
    def parse(cls, value: ColumnKind | str, where: str) -> ColumnKind:
        """Read a kind from its name, accepting common synonyms ("numerical", "ordinal", ...)."""
        if isinstance(value, ColumnKind):
            return value
        key = str(value).strip().lower()
        key = _KIND_SYNONYMS.get(key, key)
        try:
            return cls(key)
        except ValueError:
            allowed = ", ".join(k.value for k in cls)
            raise SchemaError(f"{where}: unknown column kind {value!r}. Use one of: {allowed}.") from None

    @property
    def is_compared(self) -> bool:
        """Whether distribution metrics compare columns of this kind."""
        return self not in (ColumnKind.ID, ColumnKind.TEXT)


_KIND_SYNONYMS = {
    "numerical": "numeric",
    "continuous": "numeric",
    "float": "numeric",
    "int": "integer",
    "ordinal": "categorical",
    "category": "categorical",
    "string": "categorical",
    "bool": "boolean",
    "date": "datetime",
    "key": "id",
}


@dataclass(frozen=True)
class PrimaryKey:
    """Marks a column as (part of) its table's primary key.

    ``kind``: for a column of a composite key that is data too (a date or a year beside a code), its
    kind: the column is then compared as that kind as well as serving as a key. None (and any kind
    on a one-column key, which only identifies rows): an identifier, kind id.
    """

    kind: ColumnKind | str | None = None


@dataclass(frozen=True)
class ForeignKey:
    """A reference from rows of one table to rows of ``parent``.

    As a column's spec (``customer_id=ForeignKey(parent="customers")``) it is a one-column key;
    ``parent_column`` then names the referenced column (default: the parent's primary key) and
    ``primary_key=True`` makes the column part of its own table's primary key too (bridge tables).
    In ``Table(foreign_keys=[...])`` it names its own ``columns``, and ``parent_columns`` (default:
    the parent's primary key), so a key may span several columns and a column may be in several keys.
    """

    parent: str
    parent_column: str | None = None
    primary_key: bool = False
    columns: tuple[str, ...] = ()
    parent_columns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("columns", "parent_columns"):
            value = getattr(self, name)
            object.__setattr__(self, name, (value,) if isinstance(value, str) else tuple(map(str, value)))
        if self.parent_column is not None:
            if self.parent_columns and self.parent_columns != (self.parent_column,):
                raise SchemaError(
                    f"ForeignKey to {self.parent!r}: give parent_column or parent_columns, not both."
                )
            object.__setattr__(self, "parent_columns", (self.parent_column,))


@dataclass(frozen=True)
class Relation:
    """One resolved foreign key: ``child.columns`` refer to ``parent.parent_columns``, in pairs."""

    child: str
    columns: tuple[str, ...]
    parent: str
    parent_columns: tuple[str, ...]

    def __post_init__(self) -> None:
        for name in ("columns", "parent_columns"):
            value = getattr(self, name)
            object.__setattr__(self, name, (value,) if isinstance(value, str) else tuple(value))

    @property
    def is_self_reference(self) -> bool:
        return self.child == self.parent

    @property
    def is_composite(self) -> bool:
        return len(self.columns) > 1

    def __str__(self) -> str:
        return f"{self.child}.{_key_text(self.columns)} -> {self.parent}.{_key_text(self.parent_columns)}"


def _key_text(columns: tuple[str, ...]) -> str:
    return columns[0] if len(columns) == 1 else f"({', '.join(columns)})"


ColumnSpec = ColumnKind | str | PrimaryKey | ForeignKey


@dataclass(frozen=True)
class Table:
    """The declared columns of one table: their kinds and keys.

    ``foreign_keys`` lists every foreign key with its ``columns`` filled in (column-spec keys and
    ``Table(foreign_keys=[...])`` alike). ``inferred`` names the columns whose kind was inferred
    from data rather than declared; ``target`` the column the utility section predicts (None: the
    table has no target).
    """

    kinds: Mapping[str, ColumnKind] = field(default_factory=dict)
    primary_key: tuple[str, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    inferred: frozenset[str] = frozenset()
    target: str | None = None
    order_by: tuple[str, ...] = ()

    def __init__(
        self,
        columns: Mapping[str, ColumnSpec] | None = None,
        /,
        *,
        target: str | None = None,
        foreign_keys: Sequence[ForeignKey] = (),
        order_by: Sequence[str] | str = (),
        **more: ColumnSpec,
    ):
        if target is not None and not isinstance(target, str):
            raise SchemaError(
                f"Table(target=...) names the target column and must be a str; got {target!r}. "
                "To declare a column called 'target', write Table({'target': kind})."
            )
        specs: dict[str, ColumnSpec] = {**(columns or {}), **more}
        kinds: dict[str, ColumnKind] = {}
        primary_key: list[str] = []
        keys: list[ForeignKey] = []
        for name, spec in specs.items():
            if isinstance(spec, PrimaryKey):
                primary_key.append(name)
                kinds[name] = ColumnKind.parse(spec.kind or ColumnKind.ID, f"column {name!r}")
            elif isinstance(spec, ForeignKey):
                if spec.columns and spec.columns != (name,):
                    raise SchemaError(
                        f"Column {name!r}: a ForeignKey given as a column's spec covers that column; "
                        "declare a key over other columns with Table(foreign_keys=[...])."
                    )
                keys.append(replace(spec, columns=(name,)))
                kinds[name] = ColumnKind.ID
                if spec.primary_key:
                    primary_key.append(name)
            else:
                kinds[name] = ColumnKind.parse(spec, f"column {name!r}")
        for fk in foreign_keys:
            keys.append(_table_level_key(fk))
            for column in fk.columns:
                kinds.setdefault(column, ColumnKind.ID)
        object.__setattr__(self, "kinds", _identifier_keys(kinds, primary_key, keys))
        object.__setattr__(self, "primary_key", tuple(primary_key))
        object.__setattr__(self, "foreign_keys", tuple(keys))
        object.__setattr__(self, "inferred", frozenset())
        object.__setattr__(self, "target", target)
        object.__setattr__(self, "order_by", _order_columns(order_by))

    @property
    def columns(self) -> list[str]:
        return list(self.kinds)

    @property
    def key_columns(self) -> frozenset[str]:
        """Columns of the primary key or of any foreign key: compared through keys, never as data."""
        return frozenset(self.primary_key).union(*(fk.columns for fk in self.foreign_keys))

    def _copy(self, kinds: Mapping[str, ColumnKind], inferred: frozenset[str]) -> Table:
        new = Table(target=self.target, order_by=self.order_by)
        object.__setattr__(new, "kinds", dict(kinds))
        object.__setattr__(new, "primary_key", self.primary_key)
        object.__setattr__(new, "foreign_keys", self.foreign_keys)
        object.__setattr__(new, "inferred", inferred)
        return new

    def with_inferred(self, inferred: Mapping[str, ColumnKind]) -> Table:
        """This table plus columns whose kinds were inferred from data (in the given order)."""
        return self._copy({**self.kinds, **inferred}, self.inferred | frozenset(inferred))

    def ordered(self, order: list[str]) -> Table:
        """The same table with its columns in ``order`` (the data's column order)."""
        return self._copy({c: self.kinds[c] for c in order}, self.inferred)

    def without_keys_into(self, tables: Collection[str], *, ordered: bool = True) -> Table:
        """This table without its foreign keys into ``tables`` (their columns stay, as identifiers).

        ``ordered=False`` drops its order too (no key it runs within is left).
        """
        new = self._copy(self.kinds, self.inferred)
        object.__setattr__(
            new, "foreign_keys", tuple(fk for fk in self.foreign_keys if fk.parent not in tables)
        )
        if not ordered:
            object.__setattr__(new, "order_by", ())
        return new

    def to_dict(self) -> dict[str, Any]:
        """The table as plain data (the schema file's layout), declared kinds only.

        Inferred kinds are left out: reading the same data back infers them again, and a schema
        file written from one dataset must not impose its guesses on another.
        """
        out: dict[str, Any] = {
            "primary_key": list(self.primary_key),
            "foreign_keys": [_key_to_dict(fk) for fk in self.foreign_keys],
            "columns": {
                c: k.value
                for c, k in self.kinds.items()
                if (c not in self.key_columns or k is not ColumnKind.ID) and c not in self.inferred
            },
        }
        if self.target is not None:
            out["target"] = self.target
        if self.order_by:
            out["order_by"] = list(self.order_by)
        return out

    @classmethod
    def from_dict(cls, spec: Any, where: str) -> Table:
        """Build a table from the schema file's layout (see ``Schema.from_dict``)."""
        spec = _entry_mapping(spec, where, "a table", "{primary_key: [...], columns: {name: kind}}")
        unknown = set(spec) - {"primary_key", "foreign_keys", "columns", "target", "order_by"}
        if unknown:
            raise SchemaError(
                f"{where}: unknown entries {sorted(map(str, unknown))}; a table takes 'primary_key', "
                "'foreign_keys', 'columns', 'target' and 'order_by'."
            )
        pk = _column_names(spec.get("primary_key"), f"{where}, 'primary_key'", one_name=True)
        fks = spec.get("foreign_keys")
        if fks is not None and not isinstance(fks, list):
            raise SchemaError(
                f"{where}: 'foreign_keys' must be a list of foreign keys, each "
                f"{{column: ..., parent: ...}}; got {value_shape(fks)}."
            )
        keys = [_key_from_dict(fk, where) for fk in fks or []]
        columns = _columns_mapping(spec.get("columns"), where)
        declared = {str(name): kind for name, kind in columns.items()}
        specs: dict[str, ColumnSpec] = {  # key columns first
            c: PrimaryKey(
                None if declared.get(c) is None else ColumnKind.parse(declared[c], f"{where}, column {c!r}")
            )
            for c in pk
        }
        for name, kind in declared.items():
            if name not in specs:
                specs[name] = ColumnKind.parse(kind, f"{where}, column {name!r}")
        target = spec.get("target")
        if target is not None:
            target = _one_name(target, f"{where}: 'target' must be a column name")
        try:
            return cls(
                specs,
                foreign_keys=keys,
                target=target,
                order_by=spec.get("order_by") or (),
            )
        except SchemaError as error:
            raise SchemaError(f"{where}: {error}") from None


def _order_columns(order_by: Sequence[str] | str) -> tuple[str, ...]:
    """The order columns as a tuple of names: one name, or a list of distinct names."""
    columns = (order_by,) if isinstance(order_by, str) else tuple(order_by)
    if not all(isinstance(c, str) and c for c in columns) or len(set(columns)) != len(columns):
        raise SchemaError(f"order_by takes a list of distinct column names; got {order_by!r}.")
    return columns


def runs_within(key_columns: Collection[str], order_by: Collection[str]) -> bool:
    """Whether an order runs within each parent of a foreign key over ``key_columns``.

    It does when the key holds no order column: within a parent of a key that holds one (a
    season's team and year), that column is fixed and orders nothing.
    """
    return bool(order_by) and not set(key_columns) & set(order_by)


def _identifier_keys(
    kinds: dict[str, ColumnKind], primary_key: list[str], keys: list[ForeignKey]
) -> dict[str, ColumnKind]:
    """``kinds`` with every key column an identifier (kind id) unless it belongs to a composite key.

    A column of a composite key (a season's year beside a team code, a rating's date beside a user)
    keeps a declared kind: it is data as well as a coordinate of the key, and is compared as such.
    A one-column key is the row's identity; its values are codes, compared through the keys alone.
    """
    composite = set(primary_key) if len(primary_key) > 1 else set()
    composite.update(c for fk in keys if len(fk.columns) > 1 for c in fk.columns)
    key_columns = set(primary_key).union(*(fk.columns for fk in keys))
    return {c: ColumnKind.ID if c in key_columns and c not in composite else k for c, k in kinds.items()}


def _table_level_key(fk: ForeignKey) -> ForeignKey:
    if not isinstance(fk, ForeignKey):
        raise SchemaError(f"Table(foreign_keys=...) takes ForeignKey objects; got {fk!r}.")
    if not fk.columns:
        raise SchemaError(
            f"ForeignKey to {fk.parent!r} in Table(foreign_keys=...): name its columns, e.g. "
            "ForeignKey(parent=..., columns=['a', 'b'])."
        )
    if fk.primary_key:
        raise SchemaError(
            f"ForeignKey to {fk.parent!r} over {list(fk.columns)}: declare primary key columns "
            "with PrimaryKey() (or the column's own ForeignKey(..., primary_key=True))."
        )
    return fk


def _key_to_dict(fk: ForeignKey) -> dict[str, Any]:
    if len(fk.columns) == 1:
        return {
            "column": fk.columns[0],
            "parent": fk.parent,
            **({"parent_column": fk.parent_columns[0]} if fk.parent_columns else {}),
        }
    return {
        "columns": list(fk.columns),
        "parent": fk.parent,
        **({"parent_columns": list(fk.parent_columns)} if fk.parent_columns else {}),
    }


def _key_from_dict(fk: Any, where: str) -> ForeignKey:
    if not isinstance(fk, Mapping) or "parent" not in fk or ("column" in fk) == ("columns" in fk):
        raise SchemaError(
            f"{where}: each foreign key needs 'parent' and either 'column' or 'columns'; got {fk!r}."
        )
    parent = _one_name(fk["parent"], f"{where}: a foreign key's 'parent' must be a table name")
    if "column" in fk:
        columns: tuple[str, ...] = (
            _one_name(fk["column"], f"{where}: a foreign key's 'column' must be a column name"),
        )
    else:
        columns = _column_names(fk["columns"], f"{where}, foreign key to {parent!r}, 'columns'")
    if fk.get("parent_column") is not None:
        parents: tuple[str, ...] = (
            _one_name(fk["parent_column"], f"{where}: a foreign key's 'parent_column' must be a column name"),
        )
    else:
        parents = _column_names(
            fk.get("parent_columns"), f"{where}, foreign key to {parent!r}, 'parent_columns'"
        )
    if not columns:
        raise SchemaError(f"{where}: 'columns' of a foreign key is a non-empty list of names; got {fk!r}.")
    return ForeignKey(parent=parent, columns=columns, parent_columns=parents)


def value_shape(value: Any) -> str:
    """Name what a file gave where another shape belongs: "a list ['a', 'b']" (cut if long)."""
    kind = type(value).__name__
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return "nothing (null)" if value is None else f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} {text}"


def _entry_mapping(value: Any, where: str, what: str, example: str) -> Mapping[Any, Any]:
    """``value`` if it is a mapping (None: an empty one), else a SchemaError saying what belongs there."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise SchemaError(f"{where} must be a mapping ({what}, such as {example}); got {value_shape(value)}.")
    return value


def _columns_mapping(value: Any, where: str) -> Mapping[Any, Any]:
    """A table's ``columns`` entry: a mapping of column names to kinds (None: no columns declared)."""
    if value is not None and not isinstance(value, Mapping):
        raise SchemaError(
            f"{where}: 'columns' must be a mapping of column names to kinds, such as "
            f"{{age: numeric, city: categorical}}; got {value_shape(value)}."
        )
    return value or {}


def _one_name(value: Any, what: str) -> str:
    """A table or column name given in a file: a string (a number, as YAML reads ``2024``, too)."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise SchemaError(f"{what}; got {value_shape(value)}.")
    return str(value)


def _column_names(value: Any, where: str, *, one_name: bool = False) -> tuple[str, ...]:
    """A list of column names given in a file (None: none).

    A lone string is refused rather than split into letters, except where ``one_name`` reads it as
    the one column of a key (a table's ``primary_key: id``).
    """
    if value is None:
        return ()
    if one_name and isinstance(value, str):
        return (value,)
    if not isinstance(value, list):
        raise SchemaError(
            f"{where} must be a list of column names, such as ['id'] or ['year', 'team']; "
            f"got {value_shape(value)}."
        )
    return tuple(_one_name(c, f"{where} must be a list of column names") for c in value)


class Schema(Mapping[str, Table]):
    """Named tables and the foreign keys between them, checked for consistency on creation."""

    def __init__(self, tables: Mapping[str, Table] | None = None, /, **more: Table):
        self._tables: dict[str, Table] = {**(tables or {}), **more}
        self.notes: tuple[SchemaNote, ...] = ()  # what a foreign schema said that this one cannot hold
        for name, table in self._tables.items():
            if not isinstance(table, Table):
                raise SchemaError(f"Table {name!r}: expected a reportgen.Table, got {type(table).__name__}.")
        self.relations: tuple[Relation, ...] = tuple(self._resolve_relations())
        self._check_acyclic()
        for name in self._tables:
            self._check_order(name)

    def __getitem__(self, name: str) -> Table:
        try:
            return self._tables[name]
        except KeyError:
            raise SchemaError(
                f"No table {name!r} in the schema; its tables are {sorted(self._tables)}."
            ) from None

    def __contains__(self, name: object) -> bool:
        return name in self._tables

    def __iter__(self) -> Iterator[str]:
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)

    def __repr__(self) -> str:
        return f"Schema({', '.join(self._tables)})"

    def __eq__(self, other: object) -> bool:
        """Same tables, keys and kinds (declared or inferred alike)."""
        return (
            isinstance(other, Schema)
            and list(self) == list(other)
            and all(
                self[t].to_dict() == other[t].to_dict() and dict(self[t].kinds) == dict(other[t].kinds)
                for t in self
            )
        )

    __hash__ = None  # type: ignore[assignment]

    def _resolve_relations(self) -> Iterator[Relation]:
        for child, table in self._tables.items():
            resolved = [self._resolve(child, fk) for fk in table.foreign_keys]
            yield from _grouped_per_column_keys(resolved, self._tables)

    def _resolve(self, child: str, fk: ForeignKey) -> Relation:
        where = f"Table {child!r}, column{'s' if len(fk.columns) > 1 else ''} {_names(fk.columns)}"
        if fk.parent not in self._tables:
            raise SchemaError(
                f"{where}: foreign key to table {fk.parent!r}, which is not in the schema (tables: "
                f"{sorted(self._tables)}). Add the parent table or declare the column as a plain column."
            )
        parent = self._tables[fk.parent]
        parent_columns = fk.parent_columns or parent.primary_key
        if not fk.parent_columns and len(parent.primary_key) != len(fk.columns):
            if len(fk.columns) == 1 and len(parent.primary_key) > 1:
                raise SchemaError(
                    f"{where}: foreign key to {fk.parent!r}, whose primary key has "
                    f"{len(parent.primary_key)} columns; name the referenced column with "
                    "ForeignKey(parent=..., parent_column=...), or declare the whole key with "
                    "Table(foreign_keys=[ForeignKey(parent=..., columns=[...])])."
                )
            raise SchemaError(
                f"{where}: foreign key to {fk.parent!r}, whose primary key is "
                f"{_names(parent.primary_key) or 'not declared'}; the key needs one referenced column per "
                "column: give parent_columns."
            )
        if len(parent_columns) != len(fk.columns):
            raise SchemaError(
                f"{where}: {len(fk.columns)} column(s) refer to {len(parent_columns)} column(s) "
                f"{_names(parent_columns)} of {fk.parent!r}; give one referenced column per column."
            )
        unknown = [c for c in parent_columns if c not in parent.kinds]
        if unknown:
            raise SchemaError(
                f"{where}: foreign key to {fk.parent}.{_names(tuple(unknown))}, column(s) the schema "
                f"does not declare in {fk.parent!r}."
            )
        return Relation(child, fk.columns, fk.parent, tuple(parent_columns))

    def _check_acyclic(self) -> None:
        order = self.topological_order()
        if len(order) < len(self._tables):
            stuck = sorted(set(self._tables) - set(order))
            raise SchemaError(
                f"The foreign keys between tables {stuck} form a cycle; reportgen needs the "
                "tables to form a hierarchy (self-references are allowed)."
            )

    def _check_order(self, name: str) -> None:
        """A table with an order needs a foreign key into another table that its order runs within."""
        order_by = self._tables[name].order_by
        if order_by and not self.sequences(name):
            held = " (its keys into other tables all hold an order column)" if self.parents(name) else ""
            raise SchemaError(
                f"Table {name!r}: order_by {list(order_by)} orders rows within their parent row, and the "
                f"table has no foreign key into a parent table to order them within{held}. Declare "
                "the foreign key, or leave order_by out."
            )

    def sequences(self, table: str) -> list[Relation]:
        """The foreign keys of ``table`` its rows form sequences within (none without ``order_by``)."""
        order_by = self._tables[table].order_by
        return [r for r in self.parents(table) if runs_within(r.columns, order_by)]

    def subset(self, tables: Collection[str]) -> Schema:
        """The schema of ``tables`` only: foreign keys into the other tables are left out.

        A table's order goes with the last key it runs within: its rows are then no sequences.
        """
        dropped = [t for t in self._tables if t not in tables]
        return Schema(
            {
                t: self._tables[t].without_keys_into(
                    dropped, ordered=any(r.parent not in dropped for r in self.sequences(t))
                )
                for t in self._tables
                if t in tables
            }
        )

    def parents(self, table: str) -> list[Relation]:
        """Foreign keys of ``table`` to other tables (self-references excluded)."""
        return [r for r in self.relations if r.child == table and not r.is_self_reference]

    def children(self, table: str) -> list[Relation]:
        """Foreign keys of other tables into ``table`` (self-references excluded)."""
        return [r for r in self.relations if r.parent == table and not r.is_self_reference]

    def self_references(self, table: str) -> list[Relation]:
        return [r for r in self.relations if r.child == table and r.is_self_reference]

    def roots(self) -> list[str]:
        """Tables with no parent table."""
        return [t for t in self._tables if not self.parents(t)]

    def topological_order(self) -> list[str]:
        """Tables with every parent before its children (stable: ties keep declaration order)."""
        remaining = {t: {r.parent for r in self.parents(t)} for t in self._tables}
        order: list[str] = []
        progress = True
        while remaining and progress:
            progress = False
            for table in list(remaining):
                if remaining[table] <= set(order):
                    order.append(table)
                    del remaining[table]
                    progress = True
        return order

    def descendants(self, table: str) -> list[str]:
        """Tables reachable from ``table`` along foreign keys, in topological order."""
        found = {table}
        for t in self.topological_order():
            if any(r.parent in found for r in self.parents(t)):
                found.add(t)
        return [t for t in self.topological_order() if t in found and t != table]

    def to_dict(self) -> dict[str, Any]:
        """The schema as plain data: the layout of a schema file (YAML or JSON)."""
        return {"tables": {name: t.to_dict() for name, t in self._tables.items()}}

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> Schema:
        """Read a schema from plain data.

        Two layouts are accepted: reportgen's own (``{"tables": {name: {"primary_key": [...],
        "foreign_keys": [{"column", "parent"}], "columns": {name: kind}}}}``) and the neutral
        ``metadata.json`` layout of the shared datasets (tables with ``primary_key`` and
        ``columns``, plus a top-level ``relationships`` list); SDV's metadata is read too
        (``reportgen.data.sdv_metadata``), with what it says that this schema cannot hold as
        ``notes``, which the report lists among its findings.
        """
        notes: list[SchemaNote] = []
        if is_sdv_metadata(spec):
            spec, notes = from_sdv_metadata(spec)
        if not isinstance(spec, Mapping) or not isinstance(spec.get("tables"), Mapping):
            raise SchemaError("A schema file needs a top-level 'tables' mapping of table names to tables.")
        if "relationships" in spec:
            spec = _from_neutral_metadata(spec)
        schema = cls(
            {
                str(name): Table.from_dict(table, f"Schema table {str(name)!r}")
                for name, table in spec["tables"].items()
            }
        )
        schema.notes = tuple(notes)
        return schema


def _names(columns: tuple[str, ...]) -> str:
    return ", ".join(repr(c) for c in columns)


def _grouped_per_column_keys(relations: list[Relation], tables: Mapping[str, Table]) -> list[Relation]:
    """Relations of one child table, one-column keys merged into one composite key where needed.

    One-column keys into one parent are merged when their referenced columns are, together, the
    parent's composite primary key (the per-column layout of older schemas).
    """
    out: list[Relation] = []
    merged: set[str] = set()
    for rel in relations:
        if rel.is_composite:
            out.append(rel)
            continue
        if rel.parent in merged:
            continue
        pk = tables[rel.parent].primary_key
        into = [r for r in relations if r.parent == rel.parent and not r.is_composite]
        by_parent = {r.parent_columns[0]: r.columns[0] for r in into}
        if len(pk) > 1 and len(into) == len(pk) and sorted(by_parent) == sorted(pk):
            out.append(Relation(rel.child, tuple(by_parent[c] for c in pk), rel.parent, pk))
            merged.add(rel.parent)
        else:
            out.append(rel)
    return out


def _from_neutral_metadata(spec: Mapping[str, Any]) -> dict[str, Any]:
    """Translate the shared datasets' ``metadata.json`` layout into reportgen's own."""
    tables: dict[str, Any] = {}
    for name, table in spec["tables"].items():
        where = f"Schema table {str(name)!r}"
        table = _entry_mapping(table, where, "a table", "{primary_key: [...], columns: {name: kind}}")
        tables[str(name)] = {
            "primary_key": list(
                _column_names(table.get("primary_key"), f"{where}, 'primary_key'", one_name=True)
            ),
            "foreign_keys": [],
            # key columns too: a composite key's keep their kind
            "columns": dict(_columns_mapping(table.get("columns"), where)),
            **({"order_by": table["order_by"]} if table.get("order_by") else {}),
        }
    relations = spec.get("relationships")
    if relations is not None and not isinstance(relations, list):
        raise SchemaError(
            "'relationships' must be a list of relationships, each {parent_table, parent_key, "
            f"child_table, child_key}}; got {value_shape(relations)}."
        )
    for number, rel in enumerate(relations or [], start=1):
        child, parent, keys = _relationship(rel, number, tables)
        tables[child]["foreign_keys"].append(
            {"columns": keys[0], "parent": parent, "parent_columns": keys[1]}
        )
    return {"tables": tables}


_RELATIONSHIP_KEYS = ("parent_table", "parent_key", "child_table", "child_key")


def _relationship(
    rel: Any, number: int, tables: Mapping[str, Any]
) -> tuple[str, str, tuple[list[str], list[str]]]:
    """One entry of ``relationships``: its child and parent tables and their key columns, checked."""
    rel = _entry_mapping(
        rel, f"Relationship #{number}", "a relationship", "{parent_table, parent_key, child_table, child_key}"
    )
    where = f"Relationship #{number}"
    if isinstance(rel.get("child_table"), str) and isinstance(rel.get("parent_table"), str):
        where = f"Relationship {rel['child_table']!r} -> {rel['parent_table']!r}"
    missing = [k for k in _RELATIONSHIP_KEYS if k not in rel]
    if missing:
        raise SchemaError(
            f"{where}: missing {', '.join(repr(k) for k in missing)}; a relationship takes "
            f"{', '.join(_RELATIONSHIP_KEYS)}."
        )
    child = _one_name(rel["child_table"], f"{where}: 'child_table' must be a table name")
    parent = _one_name(rel["parent_table"], f"{where}: 'parent_table' must be a table name")
    if child not in tables or parent not in tables:
        raise SchemaError(f"{where}: both tables must be listed under 'tables'.")
    keys = (
        list(_column_names(rel["child_key"], f"{where}: 'child_key'")),
        list(_column_names(rel["parent_key"], f"{where}: 'parent_key'")),
    )
    if not keys[0] or not keys[1]:
        raise SchemaError(f"{where}: 'child_key' and 'parent_key' each name at least one column.")
    return child, parent, keys
