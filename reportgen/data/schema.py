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
``ForeignKey`` whose parent is the table itself. ``Table(..., target="income")`` names the column that
the utility section predicts (a column literally called "target" is declared through the mapping
form, ``Table({"target": "categorical"})``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

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
    """Marks a column as (part of) its table's primary key."""


@dataclass(frozen=True)
class ForeignKey:
    """Marks a column as referring to a row of ``parent``.

    ``parent_column`` defaults to the parent's single-column primary key. ``primary_key=True``
    makes the column part of its own table's primary key too (bridge tables).
    """

    parent: str
    parent_column: str | None = None
    primary_key: bool = False


@dataclass(frozen=True)
class Relation:
    """One resolved foreign key: ``child.column`` refers to ``parent.parent_column``."""

    child: str
    column: str
    parent: str
    parent_column: str

    @property
    def is_self_reference(self) -> bool:
        return self.child == self.parent

    def __str__(self) -> str:
        return f"{self.child}.{self.column} -> {self.parent}.{self.parent_column}"


ColumnSpec = ColumnKind | str | PrimaryKey | ForeignKey


@dataclass(frozen=True)
class Table:
    """The declared columns of one table: their kinds and keys.

    ``inferred`` names the columns whose kind was inferred from data rather than declared;
    ``target`` the column the utility section predicts (None: the table has no target).
    """

    kinds: Mapping[str, ColumnKind] = field(default_factory=dict)
    primary_key: tuple[str, ...] = ()
    foreign_keys: Mapping[str, ForeignKey] = field(default_factory=dict)
    inferred: frozenset[str] = frozenset()
    target: str | None = None

    def __init__(
        self,
        columns: Mapping[str, ColumnSpec] | None = None,
        /,
        *,
        target: str | None = None,
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
        foreign_keys: dict[str, ForeignKey] = {}
        for name, spec in specs.items():
            if isinstance(spec, PrimaryKey):
                primary_key.append(name)
                kinds[name] = ColumnKind.ID
            elif isinstance(spec, ForeignKey):
                foreign_keys[name] = spec
                kinds[name] = ColumnKind.ID
                if spec.primary_key:
                    primary_key.append(name)
            else:
                kinds[name] = ColumnKind.parse(spec, f"column {name!r}")
        object.__setattr__(self, "kinds", kinds)
        object.__setattr__(self, "primary_key", tuple(primary_key))
        object.__setattr__(self, "foreign_keys", foreign_keys)
        object.__setattr__(self, "inferred", frozenset())
        object.__setattr__(self, "target", target)

    @property
    def columns(self) -> list[str]:
        return list(self.kinds)

    def with_inferred(self, inferred: Mapping[str, ColumnKind]) -> Table:
        """This table plus columns whose kinds were inferred from data (in the given order)."""
        new = Table(target=self.target)
        object.__setattr__(new, "kinds", {**self.kinds, **inferred})
        object.__setattr__(new, "primary_key", self.primary_key)
        object.__setattr__(new, "foreign_keys", dict(self.foreign_keys))
        object.__setattr__(new, "inferred", self.inferred | frozenset(inferred))
        return new

    def ordered(self, order: list[str]) -> Table:
        """The same table with its columns in ``order`` (the data's column order)."""
        new = Table(target=self.target)
        object.__setattr__(new, "kinds", {c: self.kinds[c] for c in order})
        object.__setattr__(new, "primary_key", self.primary_key)
        object.__setattr__(new, "foreign_keys", dict(self.foreign_keys))
        object.__setattr__(new, "inferred", self.inferred)
        return new

    def to_dict(self) -> dict[str, Any]:
        """The table as plain data (the schema file's layout), declared kinds only.

        Inferred kinds are left out: reading the same data back infers them again, and a schema
        file written from one dataset must not impose its guesses on another.
        """
        out: dict[str, Any] = {
            "primary_key": list(self.primary_key),
            "foreign_keys": [
                {
                    "column": col,
                    "parent": fk.parent,
                    **({"parent_column": fk.parent_column} if fk.parent_column else {}),
                }
                for col, fk in self.foreign_keys.items()
            ],
            "columns": {
                c: k.value
                for c, k in self.kinds.items()
                if c not in self.primary_key and c not in self.foreign_keys and c not in self.inferred
            },
        }
        if self.target is not None:
            out["target"] = self.target
        return out

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any], where: str) -> Table:
        """Build a table from the schema file's layout (see ``Schema.from_dict``)."""
        unknown = set(spec) - {"primary_key", "foreign_keys", "columns", "target"}
        if unknown:
            raise SchemaError(
                f"{where}: unknown entries {sorted(unknown)}; a table takes 'primary_key', "
                "'foreign_keys', 'columns' and 'target'."
            )
        pk = spec.get("primary_key") or []
        pk = [str(pk)] if isinstance(pk, str) else [str(c) for c in pk]
        foreign = {}
        for fk in spec.get("foreign_keys") or []:
            if not isinstance(fk, Mapping) or "column" not in fk or "parent" not in fk:
                raise SchemaError(f"{where}: each foreign key needs 'column' and 'parent', got {fk!r}.")
            foreign[str(fk["column"])] = fk
        specs: dict[str, ColumnSpec] = {}
        for column in [*pk, *foreign]:  # primary key columns first, in the key's own order
            if column in specs:
                continue
            fk = foreign.get(column)
            specs[column] = (
                PrimaryKey()
                if fk is None
                else ForeignKey(
                    parent=str(fk["parent"]), parent_column=fk.get("parent_column"), primary_key=column in pk
                )
            )
        for name, kind in (spec.get("columns") or {}).items():
            if str(name) not in specs:
                specs[str(name)] = ColumnKind.parse(kind, f"{where}, column {name!r}")
        target = spec.get("target")
        return cls(specs, target=None if target is None else str(target))


class Schema(Mapping[str, Table]):
    """Named tables and the foreign keys between them, checked for consistency on creation."""

    def __init__(self, tables: Mapping[str, Table] | None = None, /, **more: Table):
        self._tables: dict[str, Table] = {**(tables or {}), **more}
        for name, table in self._tables.items():
            if not isinstance(table, Table):
                raise SchemaError(f"Table {name!r}: expected a reportgen.Table, got {type(table).__name__}.")
        self.relations: tuple[Relation, ...] = tuple(self._resolve_relations())
        self._check_acyclic()

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
            for column, fk in table.foreign_keys.items():
                where = f"Table {child!r}, column {column!r}"
                if fk.parent not in self._tables:
                    raise SchemaError(
                        f"{where}: foreign key to table {fk.parent!r}, which is not in the "
                        f"schema (tables: {sorted(self._tables)}). Add the parent table or "
                        "declare the column as a plain column."
                    )
                parent = self._tables[fk.parent]
                parent_column = fk.parent_column
                if parent_column is None:
                    if len(parent.primary_key) != 1:
                        raise SchemaError(
                            f"{where}: foreign key to {fk.parent!r}, whose primary key has "
                            f"{len(parent.primary_key)} columns; name the referenced column "
                            "with ForeignKey(parent=..., parent_column=...)."
                        )
                    parent_column = parent.primary_key[0]
                elif parent_column not in parent.kinds:
                    raise SchemaError(
                        f"{where}: foreign key to {fk.parent}.{parent_column}, a column the "
                        f"schema does not declare in {fk.parent!r}."
                    )
                yield Relation(child, column, fk.parent, parent_column)

    def _check_acyclic(self) -> None:
        order = self.topological_order()
        if len(order) < len(self._tables):
            stuck = sorted(set(self._tables) - set(order))
            raise SchemaError(
                f"The foreign keys between tables {stuck} form a cycle; reportgen needs the "
                "tables to form a hierarchy (self-references are allowed)."
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
        ``columns``, plus a top-level ``relationships`` list).
        """
        if not isinstance(spec, Mapping) or not isinstance(spec.get("tables"), Mapping):
            raise SchemaError("A schema file needs a top-level 'tables' mapping of table names to tables.")
        if "relationships" in spec:
            spec = _from_neutral_metadata(spec)
        return cls(
            {
                str(name): Table.from_dict(table or {}, f"Schema table {name!r}")
                for name, table in spec["tables"].items()
            }
        )


def _from_neutral_metadata(spec: Mapping[str, Any]) -> dict[str, Any]:
    """Translate the shared datasets' ``metadata.json`` layout into reportgen's own."""
    tables: dict[str, Any] = {}
    for name, table in spec["tables"].items():
        pk = list(table.get("primary_key") or [])
        tables[name] = {
            "primary_key": pk,
            "foreign_keys": [],
            "columns": {c: k for c, k in (table.get("columns") or {}).items() if c not in pk},
        }
    for rel in spec.get("relationships") or []:
        child_key, parent_key = list(rel["child_key"]), list(rel["parent_key"])
        if len(child_key) != 1:
            raise SchemaError(
                f"Relationship {rel['child_table']} -> {rel['parent_table']}: composite foreign "
                "keys are not supported yet."
            )
        child = tables[rel["child_table"]]
        child["foreign_keys"].append(
            {"column": child_key[0], "parent": rel["parent_table"], "parent_column": parent_key[0]}
        )
        child["columns"].pop(child_key[0], None)
    return {"tables": tables}
