"""The standards page: which numbers of this report speak to the criteria regulators and standards name.

``CRITERIA`` declares the mapping as data: each criterion of a document (the Article 29 Working
Party's Opinion 05/2014, ISO/IEC 27559:2022, NIST SP 800-188, the UK ICO's anonymisation guidance,
the HIPAA expert determination) with its source and wording, the headlines of this report that
bear on it (read from ``ReportResults.headlines``, with the JSON path of each number and of its
interval) and what those numbers do not cover. ``standards(results)`` builds the page's rows from
the results after evaluation, as the verdicts are built: a number that was not computed (its
section skipped or failed, its table too small) stays on the page with the reason, never dropped.

The page says what the report measures against each criterion, never that a release meets one:
whether a measured risk is acceptable weighs the release's context (its recipients, their
controls, the other data they hold), which no number here measures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reportgen.approval_model import CriterionEvidence, StandardCriterion
from reportgen.gates import why_missing
from reportgen.headlines import specs
from reportgen.results import ReportResults


@dataclass(frozen=True)
class Number:
    """A headline that speaks to a criterion, read from ``ReportResults.headlines``.

    ``interval``: the JSON path of its interval where the headline holds none; ``note``: what kind of
    number it is, where an interval is not its uncertainty; ``only_with``: a setting without which
    the number is not part of the report (a claimed epsilon).
    """

    headline: str
    interval: str | None = None
    note: str | None = None
    only_with: str | None = None


@dataclass(frozen=True)
class Record:
    """A part of the run record (no number) that a criterion asks for: ``path`` in the JSON."""

    path: str
    label: str


@dataclass(frozen=True)
class Criterion:
    """One criterion of a document, the numbers that speak to it and what they leave out (``GAPS`` keys)."""

    key: str
    document: str
    criterion: str
    wording: str
    reads: tuple[Number | Record, ...]
    gaps: tuple[str, ...]


DOCUMENTS = {
    "wp29": (
        "Article 29 Data Protection Working Party, Opinion 05/2014 on Anonymisation Techniques (WP216), 2014"
    ),
    "iso27559": (
        "ISO/IEC 27559:2022, Information security, cybersecurity and privacy protection — Privacy enhancing "
        "data de-identification framework"
    ),
    "nist800188": (
        "NIST Special Publication 800-188, De-Identifying Government Datasets: Techniques and "
        "Governance, 2023"
    ),
    "ico": (
        "UK Information Commissioner's Office, Anonymisation: managing data protection risk code of "
        "practice, 2012, and its later anonymisation guidance"
    ),
    "hipaa": (
        "HIPAA Privacy Rule, 45 CFR 164.514(b)(1) (expert determination), with HHS's Guidance Regarding "
        "Methods for De-identification of Protected Health Information, 2012"
    ),
}

GAPS = {
    "auxiliary": (
        "No attack here models an adversary with auxiliary data beyond the holdout: each attacker holds the "
        "synthetic data and real rows of the same population, not outside sources (registers, other "
        "releases, knowledge of particular people)."
    ),
    "budget": (
        "The attacks are the ones implemented here, with their budgets: three membership attacks on up to "
        "{mia_max_targets} targets a side, and singling-out, linkability and inference attacks on "
        "{risk_attacks} targets a side; a stronger or better-informed attack may succeed where these do not."
    ),
    "population": (
        "The rates are averages over rows drawn at random (population level): the risk of the most exposed "
        "person is not bounded."
    ),
    "context": (
        "The release's context (who receives it, under which controls, with which other data), which the "
        "document weighs together with the data, is not assessed here."
    ),
    "singling": (
        "Singling out is measured as predicates built from the synthetic data that isolate one training row "
        "more often than one holdout row, on this data's columns only."
    ),
    "linking": (
        "Linkability is measured between two halves of each row's columns within this data, not across "
        "other databases the recipient may hold."
    ),
    "inferring": (
        "Inference is measured one secret column at a time from the other columns; several secrets together "
        "are not."
    ),
    "dp": (
        "A lower bound can show that a claimed \N{GREEK SMALL LETTER EPSILON} is too small; it cannot show "
        "that the release is differentially private, and a bound of 0 does not mean that it is."
    ),
    "very_small": (
        "Whether the risk is “very small” for the anticipated recipient is the expert's determination, which "
        "this report does not make."
    ),
    "documented": (
        "The report documents its own methods and results (the methodology appendix and the run record); "
        "the expert's reasoning about the anticipated recipient and the other available information is not "
        "part of it."
    ),
}

_AUC = Number("mia_auc", interval="sections.membership.auc.interval")
_TPR = Number("mia_tpr_at_1pct_fpr", interval="sections.membership.tpr_at_1pct_fpr.interval")
_EPSILON = Number("epsilon_lower", note="a lower bound holding with 97.5% confidence")
_CLAIM = Number(
    "epsilon_claim", note="a lower bound holding with 97.5% confidence", only_with="claimed_epsilon"
)
_SINGLING, _LINKING, _INFERRING = Number("singling_out"), Number("linkability"), Number("inference")
_COPIES = Number("exact_copies")
_ATTACKS = ("auxiliary", "budget", "population")

CRITERIA: tuple[Criterion, ...] = (
    Criterion(
        "wp29-singling-out",
        "wp29",
        "Singling out",
        "“the possibility to isolate some or all records which identify an individual in the dataset”",
        (_SINGLING, _COPIES),
        ("singling", *_ATTACKS),
    ),
    Criterion(
        "wp29-linkability",
        "wp29",
        "Linkability",
        "“the ability to link, at least, two records concerning the same data subject or a group of data "
        "subjects (either in the same database or in two different databases)”",
        (_LINKING,),
        ("linking", *_ATTACKS),
    ),
    Criterion(
        "wp29-inference",
        "wp29",
        "Inference",
        "“the possibility to deduce, with significant probability, the value of an attribute from the values "
        "of a set of other attributes”",
        (_INFERRING,),
        ("inferring", *_ATTACKS),
    ),
    Criterion(
        "iso27559-reidentification",
        "iso27559",
        "Re-identification risk",
        "The risk that data principals are re-identified from de-identified data is assessed from the data "
        "and from the context of its release, and kept at an acceptable level (paraphrased).",
        (_TPR, _SINGLING, _LINKING, _INFERRING, _COPIES),
        ("context", *_ATTACKS),
    ),
    Criterion(
        "nist800188-identity",
        "nist800188",
        "Identity disclosure (re-identification)",
        "Learning which person a record of the data belongs to (paraphrased); the membership attacks measure "
        "the related disclosure that a person's record was in the training data.",
        (_AUC, _TPR, _SINGLING, _COPIES),
        _ATTACKS,
    ),
    Criterion(
        "nist800188-attribute",
        "nist800188",
        "Attribute disclosure",
        "Learning a confidential attribute of a person from the released data (paraphrased).",
        (_INFERRING,),
        ("inferring", *_ATTACKS),
    ),
    Criterion(
        "nist800188-privacy-loss",
        "nist800188",
        "Differential privacy's privacy-loss parameter \N{GREEK SMALL LETTER EPSILON}",
        "A differentially private release bounds by \N{GREEK SMALL LETTER EPSILON} how much any one person's "
        "data can change what is released (paraphrased).",
        (_EPSILON, _CLAIM),
        ("dp", "population"),
    ),
    Criterion(
        "ico-identifiability",
        "ico",
        "Identifiability",
        "Whether people can be identified from the data by means reasonably likely to be used, judged on a "
        "spectrum and with singling out, linkability and inference as its indicators (paraphrased).",
        (_SINGLING, _LINKING, _INFERRING, _COPIES),
        ("context", *_ATTACKS),
    ),
    Criterion(
        "ico-motivated-intruder",
        "ico",
        "Motivated intruder test",
        "Whether a reasonably competent intruder with ordinary resources (the internet, public documents) "
        "and investigative techniques, but no specialist skills, could identify people in the data "
        "(paraphrased).",
        (_TPR, _SINGLING, _LINKING),
        _ATTACKS,
    ),
    Criterion(
        "hipaa-very-small",
        "hipaa",
        "Expert determination: the risk is very small",
        "An expert “determines that the risk is very small that the information could be used, alone or in "
        "combination with other reasonably available information, by an anticipated recipient to identify "
        "an individual who is a subject of the information” (164.514(b)(1)(i))",
        (_TPR, _SINGLING, _LINKING, _INFERRING, _COPIES),
        ("very_small", *_ATTACKS),
    ),
    Criterion(
        "hipaa-documented",
        "hipaa",
        "Expert determination: methods and results documented",
        "The expert “documents the methods and results of the analysis that justify such determination” "
        "(164.514(b)(1)(ii))",
        (
            Record("run.inputs", "Input fingerprints (SHA-256 of each table as given)"),
            Record("run.settings", "Every setting of the run"),
            Record("run.seed", "The seed"),
            Record("run.versions", "The versions of the software"),
        ),
        ("documented",),
    ),
)


def standards(results: ReportResults) -> list[StandardCriterion]:
    """Each declared criterion with the numbers of these results that speak to it, in declared order."""
    settings = results.run.settings
    data = results.model_dump(mode="json")
    return [
        StandardCriterion(
            key=c.key,
            source=c.document,
            document=DOCUMENTS[c.document],
            criterion=c.criterion,
            wording=c.wording,
            evidence=[
                _evidence(results, data, read)
                for read in c.reads
                if not (isinstance(read, Number) and read.only_with and settings.get(read.only_with) is None)
            ],
            not_covered={gap: _gap(GAPS[gap], settings) for gap in c.gaps},
        )
        for c in CRITERIA
    ]


def _evidence(results: ReportResults, data: Mapping[str, Any], read: Number | Record) -> CriterionEvidence:
    """One number as measured in this release (with its interval), or why it is not in the report.

    ``data``: the results as JSON data, where the paths are walked.
    """
    if isinstance(read, Record):
        present = _walk(data, read.path) is not None
        if present:
            return CriterionEvidence(path=read.path, label=read.label, status="recorded")
        reason = "not recorded in this run"
        return CriterionEvidence(path=read.path, label=read.label, status="not_computed", reason=reason)
    path = f"headlines.{read.headline}.value"
    headline = results.headlines.get(read.headline)
    label = headline.label if headline else specs()[read.headline].label
    if headline is None:
        reason = why_missing(results, read.headline)
        return CriterionEvidence(path=path, label=label, status="not_computed", reason=reason)
    interval = headline.interval
    interval_path: str | None = f"headlines.{read.headline}.interval"
    if interval is None and read.interval is not None:
        found = _walk(data, read.interval)
        interval, interval_path = (tuple(found), read.interval) if found else (None, None)
    return CriterionEvidence(
        path=path,
        label=label,
        status="measured",
        value=headline.value,
        unit=headline.unit,
        interval=interval,
        interval_path=interval_path if interval is not None else None,
        interval_label=read.note
        or (headline.interval_label or "").rstrip(",")
        or ("95% interval" if interval else None),
    )


def _walk(data: Any, path: str) -> Any:
    """The value at a dotted ``path`` of JSON data, or None where the path leads nowhere."""
    for part in path.split("."):
        if not isinstance(data, Mapping) or part not in data:
            return None
        data = data[part]
    return data


class _Settings(dict[str, Any]):
    """The run's settings for a gap's sentence: counts with thousands separators, absent ones as such."""

    def __missing__(self, name: str) -> str:
        return f"(no {name} setting)"


def _gap(text: str, settings: Mapping[str, Any]) -> str:
    """A gap's sentence with the run's settings (the attacks' budgets) filled in."""
    shown = {
        n: f"{v:,}" if isinstance(v, int) and not isinstance(v, bool) else v for n, v in settings.items()
    }
    return text.format_map(_Settings(shown))
