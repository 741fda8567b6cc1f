"""The headline numbers of a report, read from the results through each section's declaration.

Page 1, the release bars, the verdicts and the comparison with a previous release all read the same
headlines, so they can never disagree. Each section declares its headlines
(``reportgen.metrics.registry.HeadlineSpec``: label, unit, direction, bounds, concern, rule and how
each is read from its result); this module loops over the registry and adds what holds for every
headline. A section that was not computed gives no headline.

Minimum sizes: a number computed on a handful of rows means nothing, however precise it looks. A
headline resting on fewer than ``MIN_ROWS_CAVEAT`` rows (the smaller of the sides it compares, in
the largest table, or in the utility target's table) carries a caveat saying so; on fewer than
``MIN_ROWS_SHOWN`` it is withheld (no headline, so a release bar on it is not evaluated), and a
finding (``too_few_rows``) says which and why. The thresholds: a share measured on 100 rows has a
95% interval of about +-10 points at 50% (1.96 sqrt(0.25 / 100)), the most a headline can move
from sampling alone before it misleads; on 20 rows that interval is +-22 points and a 20-bin
histogram holds one row per bin.
"""

from __future__ import annotations

from collections.abc import Iterator

from reportgen.catalogue import sections
from reportgen.context import ENTITY_SUFFIX
from reportgen.metrics.overview import OverviewResult
from reportgen.metrics.registry import HeadlineSpec, Reading, Section, judged
from reportgen.render.formatting import listed
from reportgen.results import Finding, Headline, ReportResults

MIN_ROWS_CAVEAT = 100
MIN_ROWS_SHOWN = 20
HOLDOUT_SEEN_CAVEAT = (
    "unreliable: the generator appears to have seen the holdout, which this number treats as unseen rows "
    "(see the findings)"
)

__all__ = ["Headline", "headlines", "size_findings", "specs", "too_few_rows"]


def specs() -> dict[str, HeadlineSpec]:
    """Every declared headline by name, in page order."""
    return {spec.name: spec for _, spec in _declared()}


def section_of(name: str) -> Section | None:
    """The section that declares headline ``name``."""
    return next((section for section, spec in _declared() if spec.name == name), None)


def _declared() -> Iterator[tuple[Section, HeadlineSpec]]:
    for section in sections():
        for spec in section.headlines:
            yield section, spec


def _readings(results: ReportResults) -> Iterator[tuple[HeadlineSpec, Reading]]:
    """Each declared headline the results hold, with what its section's result says of it."""
    for section, spec in _declared():
        result = results.computed(section.name)
        reading = None if result is None else spec.read(result)
        if reading is not None:
            yield spec, reading


def headlines(results: ReportResults) -> dict[str, Headline]:
    """Every headline the results hold, by name, in page order, each judged by its section's rule.

    Headlines computed on too few rows are caveated or withheld (``MIN_ROWS_CAVEAT``,
    ``MIN_ROWS_SHOWN``). A reference drawn on a table whose holdout is its training data (a lookup
    table copied to both sides by a split) is withheld with the reason: it would be trivially perfect.
    When the generator appears to have seen the holdout, the headlines that treat the holdout as
    unseen rows (the attacks, utility) say that they are unreliable, and a bar on them cannot pass.
    """
    shared = results.tables_with_training_holdout()
    holdout_seen = any(f.code == "generator_saw_holdout" for f in results.findings)
    found = {}
    for spec, reading in _readings(results):
        rows = _rows_behind(results, spec, reading)
        if rows is not None and rows < MIN_ROWS_SHOWN:
            continue
        headline = spec.headline(reading)
        if rows is not None and rows < MIN_ROWS_CAVEAT:
            size = f"computed on only {_rows(rows)} ({MIN_ROWS_CAVEAT} or more make a stable number)"
            headline.caveat = size if headline.caveat is None else f"{headline.caveat}; {size}"
        headline = _withheld_if_shared(headline, reading.tables, shared)
        if holdout_seen and spec.assumes_unseen_holdout:
            headline.caveat = "; ".join(filter(None, [headline.caveat, HOLDOUT_SEEN_CAVEAT]))
            headline.unreliable = True
        found[spec.name] = judged(headline, spec.rule)
    return found


def _rows_behind(results: ReportResults, spec: HeadlineSpec, reading: Reading | None) -> int | None:
    """The rows a headline rests on: its own count, else the smaller side it compares in its largest table."""
    if reading is not None and reading.rows is not None:
        return reading.rows
    overview = results.computed("overview")
    if not isinstance(overview, OverviewResult) or not overview.tables:
        return None
    sides = [
        [t.rows_train, t.rows_synth] + ([t.rows_test] if spec.compares_holdout and t.rows_test else [])
        for t in overview.tables
        if not t.synthetic_missing  # a table the synthetic data lacks is behind no headline
    ]
    return max(min(rows) for rows in sides)


def _rows(n: int) -> str:
    return f"{n:,} row" if n == 1 else f"{n:,} rows"


def too_few_rows(results: ReportResults, name: str) -> str | None:
    """Why headline ``name`` is withheld for its size, in words, or None."""
    spec = specs()[name]
    reading = next((r for s, r in _readings(results) if s.name == name), None)
    rows = _rows_behind(results, spec, reading)
    if rows is None or rows >= MIN_ROWS_SHOWN:
        return None
    return f"withheld: computed on only {_rows(rows)}, fewer than the {MIN_ROWS_SHOWN} any such number needs"


def size_findings(results: ReportResults) -> list[Finding]:
    """A finding naming the headlines caveated or withheld for the few rows they rest on."""
    sized = [
        (reading.label or spec.label, rows)
        for spec, reading in _readings(results)
        if (rows := _rows_behind(results, spec, reading)) is not None
    ]
    withheld = [label for label, rows in sized if rows < MIN_ROWS_SHOWN]
    caveated = [label for label, rows in sized if MIN_ROWS_SHOWN <= rows < MIN_ROWS_CAVEAT]
    if not withheld and not caveated:
        return []
    parts = []
    if withheld:
        parts.append(
            f"withheld, as they rest on fewer than {MIN_ROWS_SHOWN} rows: {', '.join(withheld)} "
            "(a release bar on them is not evaluated)"
        )
    if caveated:
        parts.append(
            f"shown with a caveat, as they rest on fewer than {MIN_ROWS_CAVEAT} rows: {', '.join(caveated)}"
        )
    return [
        Finding(
            severity="warning",
            code="too_few_rows",
            message=(
                f"The data are too small for some headline numbers to mean anything; {'; '.join(parts)}. "
                f"A share measured on {MIN_ROWS_CAVEAT} rows is uncertain by about 10 points either way; "
                "more rows give numbers that can be trusted (see the methodology)."
            ),
        )
    ]


def _withheld_if_shared(headline: Headline, tables: tuple[str, ...], shared: set[str]) -> Headline:
    """The headline without its reference when that reference is drawn on a shared table."""
    hit = sorted({t.removesuffix(ENTITY_SUFFIX) for t in tables} & shared)
    if headline.reference is None or not hit:
        return headline
    copied = "its training data (a table copied" if len(hit) == 1 else "their training data (tables copied"
    reason = (
        f"withheld: the holdout of {listed(hit)} is {copied} to both sides of the split), so the reference "
        "would be trivially perfect"
    )
    return headline.model_copy(update={"reference": None, "reference_withheld": reason})
