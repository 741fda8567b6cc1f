"""What an approver files beside the numbers: the decision on a release and the standards page's rows.

Plain data, kept below ``reportgen.results`` (which holds both in ``ReportResults.decision`` and
``ReportResults.standards``):

- ``Decision``: the approver's name, role, date, decision (approve / approve with conditions /
  reject) and conditions, from a release configuration's ``decision:`` key or ``report(decision=...)``
  (``decision_from`` checks them, naming where they came from). The report prints them in its
  decision block, or a blank form where none was given.
- ``StandardCriterion`` and ``CriterionEvidence``: one criterion of a standard or guidance document
  and the numbers of this report that speak to it, as ``reportgen.standards`` maps them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

from reportgen.errors import InvalidParameterError

DecisionValue = Literal["approve", "approve with conditions", "reject"]
DECISIONS: tuple[DecisionValue, ...] = ("approve", "approve with conditions", "reject")
DECISION_KEYS = ("name", "role", "date", "decision", "conditions")


class Decision(BaseModel):
    """The approver's decision on this release, as recorded in the report (before any signature).

    ``decision`` None: the approver is named but the decision is left to complete on the form.
    """

    name: str | None = Field(default=None, description="The approver's name.")
    role: str | None = Field(default=None, description="The approver's role (e.g. data protection officer).")
    date: str | None = Field(default=None, description="The date of the decision, ISO 8601 (YYYY-MM-DD).")
    decision: DecisionValue | None = Field(
        default=None, description="approve, approve with conditions or reject."
    )
    conditions: list[str] = Field(
        default_factory=list, description="The conditions of the decision, one each."
    )


def decision_from(value: Decision | Mapping[str, Any], where: str, key: str = "decision") -> Decision:
    """A checked ``Decision`` from a mapping (a configuration file's ``decision:``, ``report(decision=)``).

    ``where`` and ``key`` name the source in errors: "The configuration file 'release.yaml', key
    'decision.date', must be ...".
    Refused: unknown keys, a decision other than the three, a decision without the approver's name,
    "approve with conditions" without conditions, a date that is not an ISO 8601 date, and values that
    are not text.
    """
    if isinstance(value, Decision):
        value = value.model_dump()

    def at(field: str | None = None) -> str:
        return f"{where}, key {key + ('.' + field if field else '')!r},"

    if not isinstance(value, Mapping):
        raise InvalidParameterError(
            f"{at()} must be a mapping of {', '.join(DECISION_KEYS)}. Got {value!r} instead."
        )
    unknown = sorted((str(k) for k in set(value) - set(DECISION_KEYS)), key=repr)
    if unknown:
        raise InvalidParameterError(f"{at()} has unknown key(s) {unknown}; known: {list(DECISION_KEYS)}.")
    found = {field: _text(value.get(field), at(field)) for field in ("name", "role", "decision")}
    decision = found["decision"]
    if decision is not None and decision.lower() not in DECISIONS:
        raise InvalidParameterError(
            f"{at('decision')} must be one of {', '.join(map(repr, DECISIONS))}. Got {decision!r} instead."
        )
    conditions = _conditions(value.get("conditions"), at("conditions"))
    if decision is not None and found["name"] is None:
        raise InvalidParameterError(
            f"{at()} gives a decision ({decision!r}) but no name: a decision is recorded with the "
            f"approver's name (add {key}.name)."
        )
    if decision is not None and decision.lower() == "approve with conditions" and not conditions:
        raise InvalidParameterError(
            f"{at()} approves with conditions but lists none: add {key}.conditions (a list of sentences)."
        )
    return Decision(
        name=found["name"],
        role=found["role"],
        date=_iso_date(value.get("date"), at("date")),
        decision=None if decision is None else decision.lower(),  # type: ignore[arg-type]
        conditions=conditions,
    )


def _text(value: Any, where: str) -> str | None:
    """A non-empty string (stripped), or None when absent or blank."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidParameterError(f"{where} must be text. Got {value!r} instead.")
    return value.strip() or None


def _conditions(value: Any, where: str) -> list[str]:
    """Conditions as a list of sentences: one string, or a list of strings."""
    if value is None:
        return []
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, (list, tuple)) or not all(isinstance(item, str) for item in items):
        raise InvalidParameterError(f"{where} must be text or a list of texts. Got {value!r} instead.")
    return [item.strip() for item in items if item.strip()]


def _iso_date(value: Any, where: str) -> str | None:
    """An ISO 8601 calendar date as text (YAML reads 2026-11-27 as a date already), or None."""
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        raise InvalidParameterError(
            f"{where} must be a date (YYYY-MM-DD), not a date and time. Got {value!r}."
        )
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            pass
    raise InvalidParameterError(
        f"{where} must be an ISO 8601 date such as 2026-11-27. Got {value!r} instead."
    )


EvidenceStatus = Literal["measured", "not_computed", "recorded"]


class CriterionEvidence(BaseModel):
    """One number of this report that speaks to a criterion, as measured in this release (or why not)."""

    path: str = Field(description="Where the number is in this JSON, dotted (headlines.singling_out).")
    label: str
    status: EvidenceStatus = Field(
        description="measured; not_computed (reason says why); recorded (part of the run record, no number)."
    )
    value: float | None = None
    unit: Literal["score", "share", "number"] | None = None
    interval: tuple[float, float] | None = None
    interval_path: str | None = Field(default=None, description="Where the interval is in this JSON.")
    interval_label: str | None = None
    reason: str | None = Field(default=None, description="Why the number is not in this report.")


class StandardCriterion(BaseModel):
    """A criterion of a standard or guidance document and the evidence of this report that bears on it."""

    key: str
    source: str = Field(description="The source document's key in the report's references (wp29, hipaa...).")
    document: str = Field(description="The source document, cited.")
    criterion: str = Field(description="The criterion's name in the document.")
    wording: str = Field(
        description="What the document asks: quoted where in quotation marks, else paraphrased."
    )
    evidence: list[CriterionEvidence]
    not_covered: dict[str, str] = Field(
        description="What the numbers do not cover for this criterion, by key (one key, one gap)."
    )
