"""The headline numbers of a report: one place that reads them from the results.

Page 1, the release bars and the comparison with a previous release all read the same headlines,
so the three can never disagree. Every headline is on a scale where its direction is stated
(``higher_is_better``); scores are on 0-100, shares on 0-1, and plain numbers (the membership
attacks' AUC and epsilon bound) on their own scale. A section that was not computed gives no
headline. Sections added later (alpha-precision, utility) add a reader here.

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

from collections.abc import Callable
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel
from scipy.integrate import trapezoid

from reportgen.context import ENTITY_SUFFIX
from reportgen.render.formatting import listed
from reportgen.results import Finding, ReportResults

CHANCE_MARGIN = 0.02  # a mean model score within this of chance counts as "at chance"
MIN_ROWS_CAVEAT = 100
MIN_ROWS_SHOWN = 20
# The attacks' headlines: each compares training rows with holdout rows too.
ATTACK_HEADLINES = (
    "mia_auc",
    "mia_tpr_at_1pct_fpr",
    "epsilon_lower",
    "singling_out",
    "linkability",
    "inference",
)
# Headlines that compare training rows with holdout rows too (attacks), and the utility headlines,
# which rest on the target's table; the others compare training with synthetic rows.
_WITH_HOLDOUT = set(ATTACK_HEADLINES)
_UTILITY = {"tstr", "utility", "sra"}
HOLDOUT_SEEN_CAVEAT = (
    "unreliable: the generator appears to have seen the holdout, which this number treats as unseen rows "
    "(see the findings)"
)


class Headline(BaseModel):
    """One headline number with its reference level and what it means, in plain words."""

    name: str
    label: str
    value: float
    reference: float | None = None
    spread: float | None = None  # a standard deviation, where the number has one
    unit: Literal["score", "share", "number"]
    higher_is_better: bool
    meaning: str
    caveat: str | None = None  # what the number does not cover (tables not measured), in words
    closer_to_reference: bool = False  # True where neither direction is simply better (alpha/beta)
    gap: str | None = None  # which way the number departs from its reference, in words
    tolerance: float | None = None  # a change smaller than this is noise (None: the unit's rule)
    reference_withheld: str | None = None  # why a reference is not shown although a holdout was given
    interval: tuple[float, float] | None = None  # its 95% interval, where the number has one
    interval_label: str | None = None  # what kind of interval it is, in words (None: "95% interval")
    unreliable: bool = False  # its premise failed (a holdout the generator saw): a bar on it cannot pass


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
    return [
        _share_as_score(
            "correlation",
            "Correlation similarity",
            r.similarity,
            r.reference_similarity,
            "How well the associations between columns (phik) are kept (100: exactly).",
        )
    ]


def _share_as_score(name: str, label: str, value: float, reference: float | None, meaning: str) -> Headline:
    """A headline of a 0-1 measure where higher is better, shown on 0-100 with its reference."""
    return Headline(
        name=name,
        label=label,
        value=100 * value,
        reference=None if reference is None else 100 * reference,
        unit="score",
        higher_is_better=True,
        meaning=meaning,
    )


def _association(results: ReportResults) -> list[Headline]:
    r = _section(results, "association")
    if r is None or r.retained is None:
        return []
    return [
        _share_as_score(
            "association",
            "Association retained",
            r.retained,
            r.reference,
            "How much of the association between columns (phik) the synthetic data keeps "
            "(100: all of it; near 0: none, as when each column is generated on its own).",
        )
    ]


def _association_entity(results: ReportResults) -> list[Headline]:
    r = _section(results, "association")
    weakest = None if r is None else next((t for t in r.entities if t.table == r.weakest_entity), None)
    if weakest is None:
        return []
    return [
        _share_as_score(
            "association_entity",
            "Association retained, entity level",
            weakest.retained,
            weakest.reference,
            f"The same for a parent row with its children's aggregates, in the view that keeps the least "
            f"({weakest.table}): whether each parent keeps children that fit it.",
        )
    ]


def _detection(results: ReportResults) -> list[Headline]:
    r = _section(results, "detection")
    if r is None:
        return []
    return [
        Headline(
            name="detection",
            label="Detection score",
            value=r.score,
            reference=r.reference_score,
            unit="score",
            higher_is_better=True,
            meaning=(
                "Whether a classifier can tell synthetic rows from real ones, in the table or view "
                "where it does best (100: no better than a coin toss; 0: every synthetic row recognised; "
                "an AUROC below chance scores as low as one as far above it)."
            ),
        )
    ]


def _relational(results: ReportResults) -> list[Headline]:
    r = _section(results, "relational")
    if r is None:
        return []
    return [
        _share_as_score(
            "cardinality",
            "Cardinality similarity",
            r.similarity,
            r.reference,
            "How well the number of child rows per parent row is reproduced (100: exactly).",
        )
    ]


def _not_measured(skipped: dict[str, str]) -> str | None:
    """A caveat naming the tables (and views) a headline's section could not measure."""
    return f"not measured in {', '.join(skipped)} (see the findings)" if skipped else None


def _privacy(results: ReportResults) -> list[Headline]:
    r = _section(results, "privacy")
    if r is None:
        return []
    found = [
        Headline(
            name="exact_copies",
            label="Exact copies",
            value=r.exact_copies,
            reference=r.exact_copies_reference,
            unit="share",
            higher_is_better=False,
            meaning="Share of synthetic rows identical to a real training row on every compared column.",
        ),
    ]
    if r.privacy_score is None:
        return found
    return [
        Headline(
            name="privacy",
            label="Privacy score",
            value=r.privacy_score,
            reference=r.privacy_score_reference,
            spread=r.privacy_score_std,
            caveat=_not_measured(r.skipped),
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
        *found,
    ]


# nats: a few false positives move the bound; adult's leaky data gives 4.7 to 6.0 over seeds 0-4
EPSILON_TOLERANCE = 1.0
EPSILON_MEANING = (
    "The privacy loss the attacks prove (0: none proven): a lower bound on the "
    "\N{GREEK SMALL LETTER EPSILON} of pure \N{GREEK SMALL LETTER EPSILON}-differential privacy "
    "(\N{GREEK SMALL LETTER DELTA} = 0), "
    "measured on rows drawn at random from this training/holdout split, so for typical rows, not the "
    "worst case a guarantee covers; it holds with 97.5% confidence for every attack and view together."
)


def _membership(results: ReportResults) -> list[Headline]:
    """The worst membership attack: its AUC, its TPR at 1% FPR and the largest epsilon lower bound.

    The reference of the AUC and the TPR is the chance level of the view they come from: the 95th
    percentile that random relabellings of the same targets reach.
    """
    r = _section(results, "membership")
    if r is None:
        return []
    views = {t.table: t.stats for t in r.tables}
    auc_view, tpr_view = views[r.auc.table], views[r.tpr_at_1pct_fpr.table]
    return [
        Headline(
            name="mia_auc",
            label="Membership attack AUC",
            value=r.auc.value,
            reference=auc_view.self_test.chance.auc,
            unit="number",
            higher_is_better=False,
            tolerance=max(0.01, 2 * auc_view.attack(r.auc.attack).auc_std),
            meaning=(
                "How well the strongest attack tells training rows from holdout rows using the synthetic "
                "data (0.5: a coin toss); the reference is what chance reaches at these sizes."
            ),
        ),
        Headline(
            name="mia_tpr_at_1pct_fpr",
            label="Training rows found at 1% false positives",
            value=r.tpr_at_1pct_fpr.value,
            reference=tpr_view.self_test.chance.tpr_at_1pct_fpr,
            unit="share",
            higher_is_better=False,
            meaning=(
                "Share of training rows the strongest attack finds while wrongly accusing 1% of holdout "
                "rows (chance: about 1%; the reference is what chance reaches at these sizes)."
            ),
        ),
        Headline(
            name="epsilon_lower",
            label="Empirical \N{GREEK SMALL LETTER EPSILON} lower bound",
            value=r.epsilon_lower.value,
            unit="number",
            higher_is_better=False,
            tolerance=EPSILON_TOLERANCE,
            meaning=EPSILON_MEANING,
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


def risk_interval_label(intervals: int | None) -> str:
    """What a risk headline's interval is, in words: simultaneous over the report's ``M`` intervals."""
    if intervals is None or intervals <= 1:
        return "95% interval"
    return f"95% interval, corrected for the report's {intervals} risk intervals,"


def _privacy_risks(results: ReportResults) -> list[Headline]:
    r = _section(results, "privacy_risks")
    if r is None:
        return []
    return [
        Headline(
            name=name,
            label=label,
            value=headline.risk,
            interval=headline.risk_interval,
            interval_label=risk_interval_label(r.intervals),
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
            "Whether synthetic rows are spread over the real data's typical region as real rows are.",
        ),
        (
            "beta_recall",
            "\N{GREEK SMALL LETTER BETA}-recall",
            "ir_beta",
            "Whether the synthetic data covers the variety of the real data as a fresh sample would.",
        ),
        (
            "authenticity",
            "Authenticity",
            "authenticity",
            "Share of synthetic rows that are not closer to a training row than real rows are to each "
            "other; a fresh real sample gets the reference (about 50), far below it means copying.",
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
                closer_to_reference=True,
                gap=None if weakest is None else _curve_gap(name, weakest),
                meaning=meaning,
            )
        )
    return found


def _curve_gap(name: str, table: Any) -> str | None:
    """Which side of its diagonal (or of the holdout's level) a sample-level number falls, in words."""
    if name == "authenticity":
        if table.holdout is None:
            return None
        fewer = table.synthetic.authenticity < table.holdout.authenticity
        return (
            "more synthetic rows sit next to a training row than fresh real rows do"
            if fewer
            else "fewer synthetic rows sit next to a training row than fresh real rows do"
        )
    signed = _signed_area(name, table.synthetic.curves)
    if table.holdout is not None:  # a fresh real sample's own departure is the level, not the diagonal
        signed -= _signed_area(name, table.holdout.curves)
    if abs(signed) < 0.01:
        return None
    fresh = "fresh real rows do" if table.holdout is not None else "a perfect sample would"
    if name == "alpha_precision":
        return (
            f"synthetic rows crowd the typical core of the real data more than {fresh} (too little variety)"
            if signed > 0
            else f"more synthetic rows fall outside the real data's typical region than {fresh}"
        )
    return (
        f"the synthetic data covers more of the real rows than {fresh}"
        if signed > 0
        else f"under-coverage: the synthetic data covers less of the real data's variety than {fresh}"
    )


def _signed_area(name: str, curves: Any) -> float:
    """The area between a sample-level curve and the diagonal: above it positive, below negative."""
    curve = curves.precision if name == "alpha_precision" else curves.recall
    return float(trapezoid(np.asarray(curve) - np.asarray(curves.levels), curves.levels))


def _utility(results: ReportResults) -> list[Headline]:
    """TSTR (and relative to the real baseline) and SRA of the first table with a target."""
    r = _section(results, "utility")
    table = next((t for t in r.tables if t.tstr is not None), None) if r is not None else None
    if table is None:
        return []
    baseline = table.real_baseline
    found = [
        Headline(
            name="tstr",
            label=f"TSTR ({table.metric}, 0-100)",
            value=100 * table.tstr,
            reference=None if baseline is None else 100 * baseline,
            unit="score",
            higher_is_better=True,
            meaning=(
                f"How well models trained on the synthetic data predict {table.target} on real data; "
                "the reference is the same models trained on real data."
            ),
        )
    ]
    relative = utility_relative(table.tstr, baseline, table.metric)
    unlearnable = at_chance(synthetic_self_score(table), table.metric)  # only read with a baseline
    if relative is not None:
        found.append(
            Headline(
                name="utility",
                label="Utility (TSTR relative to real data)",
                value=relative,
                unit="score",
                higher_is_better=True,
                meaning=(
                    "How much of the real data's predictive power above chance the synthetic data keeps "
                    "(100: all of it; 0: no better than chance)."
                ),
                caveat=(
                    f"models trained on synthetic rows predict {table.target} no better than chance on "
                    "other synthetic rows, so the synthetic data keeps no relationship with it: what "
                    "TSTR gains over chance comes from the columns' frequencies alone"
                    if unlearnable
                    else None
                ),
            )
        )
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


def chance_level(metric: str) -> float:
    """The score of a model that knows nothing: AUROC 0.5, R² 0."""
    return 0.5 if metric == "AUROC" else 0.0


def at_chance(score: float | None, metric: str) -> bool:
    """Whether a mean score is within ``CHANCE_MARGIN`` of chance (or below it)."""
    return score is not None and score <= chance_level(metric) + CHANCE_MARGIN


def synthetic_self_score(table: Any) -> float | None:
    """The mean ``S_i`` of a utility table: how well the synthetic data predicts its own target.

    At chance, the synthetic target does not depend on the other synthetic columns, so whatever
    TSTR gains over chance comes from the columns' frequencies, not from a relationship kept.
    """
    scores = [m.synthetic for m in table.models if m.synthetic is not None]
    return float(np.mean(scores)) if scores else None


def utility_relative(tstr: float, baseline: float | None, metric: str) -> float | None:
    """How much of the real baseline's margin over chance TSTR keeps, on 0-100.

    ``100 * (TSTR - chance) / (baseline - chance)``, clipped to [0, 100]; None without a baseline
    that beats chance.
    """
    chance = chance_level(metric)
    if baseline is None or baseline <= chance:
        return None
    return float(min(100.0, max(0.0, 100 * (tstr - chance) / (baseline - chance))))


READERS: list[Callable[[ReportResults], list[Headline]]] = [
    _similarity,
    _correlation,
    _association,
    _association_entity,
    _detection,
    _relational,
    _membership,
    _privacy,
    _privacy_risks,
    _alpha_beta,
    _utility,
]


def headlines(results: ReportResults) -> dict[str, Headline]:
    """Every headline the results hold, by name, in page order.

    Headlines computed on too few rows are caveated or withheld (``MIN_ROWS_CAVEAT``,
    ``MIN_ROWS_SHOWN``). A reference drawn on a table whose holdout is its training data (a lookup
    table copied to both sides by a split) is withheld with the reason: it would be trivially perfect.
    When the generator appears to have seen the holdout, the headlines that treat the holdout as
    unseen rows (the attacks, utility) say that they are unreliable, and a bar on them cannot pass.
    """
    shared = results.tables_with_training_holdout()
    sources = _reference_tables(results)
    found = {}
    for headline in (h for read in READERS for h in read(results)):
        rows = rows_behind(results, headline.name)
        if rows is not None and rows < MIN_ROWS_SHOWN:
            continue
        if rows is not None and rows < MIN_ROWS_CAVEAT:
            size = f"computed on only {_rows(rows)} ({MIN_ROWS_CAVEAT} or more make a stable number)"
            headline.caveat = size if headline.caveat is None else f"{headline.caveat}; {size}"
        found[headline.name] = _withheld_if_shared(headline, sources.get(headline.name, []), shared)
    if any(f.code == "generator_saw_holdout" for f in results.findings):
        for name in found.keys() & (_WITH_HOLDOUT | _UTILITY):
            found[name].caveat = "; ".join(filter(None, [found[name].caveat, HOLDOUT_SEEN_CAVEAT]))
            found[name].unreliable = True
    return found


def rows_behind(results: ReportResults, name: str) -> int | None:
    """The rows a headline rests on: the smaller side it compares, in its largest table (None: unknown)."""
    if name in _UTILITY:
        utility = _section(results, "utility")
        table = next((t for t in utility.tables if t.tstr is not None), None) if utility else None
        return None if table is None else min(table.rows.values())
    overview = _section(results, "overview")
    if overview is None or not overview.tables:
        return None
    sides = [
        [t.rows_train, t.rows_synth] + ([t.rows_test] if name in _WITH_HOLDOUT and t.rows_test else [])
        for t in overview.tables
        if not t.synthetic_missing  # a table the synthetic data lacks is behind no headline
    ]
    return max(min(rows) for rows in sides)


def _rows(n: int) -> str:
    return f"{n:,} row" if n == 1 else f"{n:,} rows"


def too_few_rows(results: ReportResults, name: str) -> str | None:
    """Why a headline is withheld for its size, in words, or None."""
    rows = rows_behind(results, name)
    if rows is None or rows >= MIN_ROWS_SHOWN:
        return None
    return f"withheld: computed on only {_rows(rows)}, fewer than the {MIN_ROWS_SHOWN} any such number needs"


def size_findings(results: ReportResults) -> list[Finding]:
    """A finding naming the headlines caveated or withheld for the few rows they rest on."""
    every = [h for read in READERS for h in read(results)]
    sized = {h.name: rows for h in every if (rows := rows_behind(results, h.name)) is not None}
    withheld = [h.label for h in every if sized.get(h.name, MIN_ROWS_SHOWN) < MIN_ROWS_SHOWN]
    caveated = [
        h.label for h in every if MIN_ROWS_SHOWN <= sized.get(h.name, MIN_ROWS_CAVEAT) < MIN_ROWS_CAVEAT
    ]
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


def _reference_tables(results: ReportResults) -> dict[str, list[str]]:
    """The tables (and entity views) each headline's reference is computed on."""
    found: dict[str, list[str]] = {}
    for name in ("similarity", "correlation", "association"):
        if (r := _section(results, name)) is not None:
            found[name] = [t.table for t in r.tables]
    if (r := _section(results, "association")) is not None and r.weakest_entity is not None:
        found["association_entity"] = [r.weakest_entity]
    if (r := _section(results, "detection")) is not None:
        found["detection"] = [r.weakest_table]
    if (r := _section(results, "relational")) is not None:
        found["cardinality"] = [t for rel in r.relations for t in (rel.child, rel.parent)]
    if (r := _section(results, "privacy")) is not None:
        found["privacy"] = [r.weakest_table] if r.weakest_table else []
        found["exact_copies"] = [r.exact_copies_table] if r.exact_copies_table else []
    if (r := _section(results, "alpha_beta")) is not None:
        for name, attribute in (
            ("alpha_precision", "ip_alpha"),
            ("beta_recall", "ir_beta"),
            ("authenticity", "authenticity"),
        ):
            found[name] = [r.weakest[attribute]] if attribute in r.weakest else []
    if (r := _section(results, "utility")) is not None:
        found["tstr"] = [t.table for t in r.tables if t.tstr is not None][:1]
    return found


def _withheld_if_shared(headline: Headline, tables: list[str], shared: set[str]) -> Headline:
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
