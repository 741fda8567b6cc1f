"""The headline numbers of a report: one place that reads them from the results.

Page 1, the release bars and the comparison with a previous release all read the same headlines,
so the three can never disagree. Every headline is on a scale where its direction is stated
(``higher_is_better``); scores are on 0-100, shares on 0-1. A section that was not computed gives
no headline. Sections added later (alpha-precision, utility) add a reader here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel

from reportgen.results import ReportResults


class Headline(BaseModel):
    """One headline number with its reference level and what it means, in plain words."""

    name: str
    label: str
    value: float
    reference: float | None = None
    spread: float | None = None  # a standard deviation, where the number has one
    unit: Literal["score", "share"]
    higher_is_better: bool
    meaning: str


def _section(results: ReportResults, name: str) -> Any | None:
    return results.computed(name)  # typed Any: each reader knows its section's result type


def _similarity(results: ReportResults) -> list[Headline]:
    r = _section(results, "similarity")
    if r is None:
        return []
    return [
        Headline(
            name="similarity",
            label="Similarity",
            value=r.score,
            reference=r.reference_score,
            unit="score",
            higher_is_better=True,
            meaning="How closely each column and each pair of columns is reproduced (100: identically).",
        )
    ]


def _correlation(results: ReportResults) -> list[Headline]:
    r = _section(results, "correlation")
    if r is None:
        return []
    reference = None if r.reference_similarity is None else 100 * r.reference_similarity
    return [
        Headline(
            name="correlation",
            label="Correlation similarity",
            value=100 * r.similarity,
            reference=reference,
            unit="score",
            higher_is_better=True,
            meaning="How well the associations between columns (phik) are kept (100: exactly).",
        )
    ]


def _relational(results: ReportResults) -> list[Headline]:
    r = _section(results, "relational")
    if r is None:
        return []
    return [
        Headline(
            name="cardinality",
            label="Cardinality similarity",
            value=100 * r.similarity,
            reference=None if r.reference is None else 100 * r.reference,
            unit="score",
            higher_is_better=True,
            meaning="How well the number of child rows per parent row is reproduced (100: exactly).",
        )
    ]


def _privacy(results: ReportResults) -> list[Headline]:
    r = _section(results, "privacy")
    if r is None:
        return []
    return [
        Headline(
            name="privacy",
            label="Privacy score",
            value=r.privacy_score,
            spread=r.privacy_score_std,
            unit="score",
            higher_is_better=True,
            meaning=(
                "Whether synthetic rows sit closer to real training rows than real rows sit to each "
                "other (100: no closer; low values mean memorised records)."
            ),
        ),
        Headline(
            name="risk",
            label="Training rows at risk",
            value=r.risk,
            unit="share",
            higher_is_better=False,
            meaning="Estimated share of real training rows the synthetic data sits unusually close to.",
        ),
        Headline(
            name="exact_copies",
            label="Exact copies",
            value=r.exact_copies,
            unit="share",
            higher_is_better=False,
            meaning="Share of synthetic rows identical to a real training row on every compared column.",
        ),
    ]


_ATTACKS = (
    (
        "singling_out",
        "Singling-out risk",
        "How much more often conditions built from the synthetic data isolate exactly one training row "
        "than one holdout row (the worst table; 0 is best).",
    ),
    (
        "linkability",
        "Linkability risk",
        "How much more often the synthetic data lets an attacker join two partial records of a training "
        "row than of a holdout row (the worst table; 0 is best).",
    ),
    (
        "inference",
        "Inference risk",
        "How much more often the synthetic data reveals a column of a training row than of a holdout row "
        "(the worst table and secret column; 0 is best).",
    ),
)


def _privacy_risks(results: ReportResults) -> list[Headline]:
    r = _section(results, "privacy_risks")
    if r is None:
        return []
    return [
        Headline(
            name=name,
            label=label,
            value=headline.risk,
            unit="share",
            higher_is_better=False,
            meaning=meaning,
        )
        for name, label, meaning in _ATTACKS
        if (headline := getattr(r, name)) is not None
    ]


def _alpha_beta(results: ReportResults) -> list[Headline]:
    r = _section(results, "alpha_beta")
    if r is None:
        return []
    tables = {t.table: t for t in r.tables}
    items = (
        (
            "alpha_precision",
            "\N{GREEK SMALL LETTER ALPHA}-precision",
            "ip_alpha",
            "How many synthetic rows look like typical real rows.",
        ),
        (
            "beta_recall",
            "\N{GREEK SMALL LETTER BETA}-recall",
            "ir_beta",
            "How much of the variety of the real data is covered.",
        ),
        (
            "authenticity",
            "Authenticity",
            "authenticity",
            "Share of synthetic rows that are not closer to a training row than real rows are to each other "
            "(a perfect generator gets about 50).",
        ),
    )
    found = []
    for name, label, attribute, meaning in items:
        weakest = tables.get(r.weakest.get(attribute, ""))
        holdout = None if weakest is None or weakest.holdout is None else weakest.holdout
        found.append(
            Headline(
                name=name,
                label=label,
                value=100 * getattr(r, attribute),
                reference=None if holdout is None else 100 * getattr(holdout, attribute),
                unit="score",
                higher_is_better=True,
                meaning=meaning,
            )
        )
    return found


def _utility(results: ReportResults) -> list[Headline]:
    """TSTR and SRA of the first table with a target (more tables: see the utility section)."""
    r = _section(results, "utility")
    table = next((t for t in r.tables if t.tstr is not None), None) if r is not None else None
    if table is None:
        return []
    found = [
        Headline(
            name="tstr",
            label=f"TSTR ({table.metric}, 0-100)",
            value=100 * table.tstr,
            reference=None if table.real_baseline is None else 100 * table.real_baseline,
            unit="score",
            higher_is_better=True,
            meaning=(
                f"How well models trained on the synthetic data predict {table.target} on real data; "
                "the reference is the same models trained on real data."
            ),
        )
    ]
    if table.sra is not None:
        found.append(
            Headline(
                name="sra",
                label="SRA (0-100)",
                value=100 * table.sra,
                unit="score",
                higher_is_better=True,
                meaning="Whether synthetic data ranks model families as real data does (100: same order).",
            )
        )
    return found


READERS: list[Callable[[ReportResults], list[Headline]]] = [
    _similarity,
    _correlation,
    _relational,
    _privacy,
    _privacy_risks,
    _alpha_beta,
    _utility,
]


def headlines(results: ReportResults) -> dict[str, Headline]:
    """Every headline the results hold, by name, in page order."""
    return {h.name: h for read in READERS for h in read(results)}
