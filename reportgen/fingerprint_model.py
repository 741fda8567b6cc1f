"""What the results record of an input table: its fingerprint, and the versions of how it is made.

A leaf: ``reportgen.results`` holds these and ``reportgen.provenance`` computes them (from data in
memory or read in place), so results need not import the data layer.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

FORMAT = "reportgen-fingerprint-1"
ENGINE_FORMAT = "reportgen-engine-fingerprint-2"


class TableFingerprint(BaseModel):
    """One input table: its SHA-256 fingerprint, rows and columns."""

    sha256: str = Field(description=f"SHA-256 of the canonical serialisation ({FORMAT}).")
    rows: int
    columns: int
    of: str = Field(
        default="values",
        description=(
            "What was hashed: 'values' (the canonical serialisation), 'file bytes' (a table read in "
            f"place from files: its files' names and bytes), or 'rows in the engine' ({ENGINE_FORMAT}: "
            "a database table read in place, digested there on every row, whatever their order)."
        ),
    )
