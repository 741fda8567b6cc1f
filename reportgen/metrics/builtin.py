"""Registers the sections that ship with reportgen, through the same registry plugins use.

Each section is declared whole in its own module of ``reportgen.sections``; this list puts them in
the registry.
"""

from __future__ import annotations

from reportgen.metrics.registry import register
from reportgen.sections import (
    alpha_beta,
    association,
    correlation,
    detection,
    distributions,
    membership,
    overview,
    privacy,
    privacy_risks,
    relational,
    sequences,
    similarity,
    utility,
)

BUILTIN = tuple(
    register(module.SECTION)
    for module in (
        overview,
        similarity,
        distributions,
        correlation,
        association,
        detection,
        relational,
        sequences,
        membership,
        privacy_risks,
        privacy,
        alpha_beta,
        utility,
    )
)
