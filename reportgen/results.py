"""The results of a report: typed, serialisable to JSON and back, and the only input of rendering.

Everything a page shows lives here, so the PDF, the HTML and the JSON can never disagree. Each
section's result is a subclass of ``SectionResult`` registered with its section (see
``reportgen.catalogue``, which hands the name-to-class lookup over with ``set_result_types`` when it
is imported, so this module knows nothing of sections); reading JSON back rebuilds the right
subclass by name. ``reportgen.ReportResults`` imports the catalogue first, so results read through
it are typed in any process; reading them before the catalogue is imported is an error rather than
a silent loss of every number.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, field_validator

from reportgen.approval_model import Decision, StandardCriterion
from reportgen.errors import ReportgenError
from reportgen.fingerprint_model import ENGINE_FORMAT, FORMAT, TableFingerprint

if TYPE_CHECKING:
    import pandas as pd

Severity = Literal["info", "warning", "error"]
SectionStatus = Literal["ok", "not_computed", "not_applicable"]
Concern = Literal["privacy", "fidelity", "utility"]
CONCERNS: tuple[Concern, ...] = ("privacy", "fidelity", "utility")
Unit = Literal["score", "share", "number"]
GateStatus = Literal["pass", "fail", "not_evaluated"]


def _no_registry(name: str) -> type[SectionResult]:
    """The lookup before the registry is imported: none (the base class would drop every number)."""
    raise ReportgenError(
        f"Cannot read the results of section {name!r} before reportgen's section registry knows "
        "their class: read them with reportgen.ReportResults (import reportgen as rg; "
        "rg.ReportResults.load(path)), which loads the registry."
    )


_result_type_of: Callable[[str], type[SectionResult]] = _no_registry


def set_result_types(resolver: Callable[[str], type[SectionResult]]) -> None:
    """Tell JSON reading which result class each section name has (the section registry does this)."""
    global _result_type_of
    _result_type_of = resolver


def _no_order() -> list[str]:
    """The page order before the registry is imported: none (headlines keep the order they come in)."""
    return []


_headline_order: Callable[[], list[str]] = _no_order


def set_headline_order(order: Callable[[], list[str]]) -> None:
    """Tell JSON reading the headlines' page order, which sorted JSON keys lose (the registry does this)."""
    global _headline_order
    _headline_order = order


# Page 1 as HTML for a notebook cell. Rendering sits above this module, so it hands its page-1
# renderer over (``reportgen.catalogue`` does, beside the result types); until then a notebook
# shows the text repr.
_page_one_html: Callable[[ReportResults], str] | None = None


def set_page_one_renderer(renderer: Callable[[ReportResults], str]) -> None:
    """Tell ``ReportResults._repr_html_`` how to draw page 1 (the section registry does this)."""
    global _page_one_html
    _page_one_html = renderer


class Finding(BaseModel):
    """Something the reader must know about the data or the run, listed in one place."""

    model_config = ConfigDict(frozen=True)

    severity: Severity
    code: str = Field(description="Stable machine-readable identifier, e.g. 'synthetic_orphans'.")
    message: str = Field(description="What was found and what it means for the report.")
    table: str | None = None
    column: str | None = None
    tables: list[str] = Field(
        default_factory=list, description="The tables of a finding about several ('table' is then empty)."
    )


class Basis(BaseModel):
    """The rows a number was computed on: every row (counted in the engine), or a seeded sample.

    ``rows`` gives, per role (training, holdout, synthetic), the rows that went into the number;
    ``available`` the rows the role has. ``engine`` names where the counting ran ("duckdb",
    "postgresql", ...), None when it ran in memory on pandas. ``reason`` says why a number of
    inputs read in place is on the sample all the same (the roles are in different databases).
    """

    all_rows: bool = Field(description="True when every row of every role was used.")
    rows: dict[str, int] = Field(description="Rows used, per role.")
    available: dict[str, int] = Field(description="Rows the role has, per role.")
    engine: str | None = Field(default=None, description="Where the counts ran; None: in memory.")
    reason: str | None = Field(
        default=None, description="Why inputs read in place gave this number on a sample only."
    )

    @property
    def label(self) -> str:
        """In words, for a caption: "all rows" or "a sample of 50,000 training rows, ..."."""
        if self.all_rows:
            return "all rows" + (f" (counted in {self.engine})" if self.engine else "")
        parts = [f"{self.rows[r]:,} of {self.available[r]:,} {r} rows" for r in self.rows]
        why = f"; not all rows, as {self.reason}" if self.reason else ""
        return "a seeded sample: " + ", ".join(parts) + why


class SectionResult(BaseModel):
    """Base of every section's result.

    ``status`` is 'not_computed' when the section could not run on these inputs (a gap the reader
    must see) and 'not_applicable' when it does not concern them (no foreign keys, no target asked
    for): such a section gets no page, only a line in the overview.
    """

    section: str = Field(description="Name of the registered section that produced this result.")
    status: SectionStatus = "ok"
    reason: str | None = Field(default=None, description="Why it was not computed (or does not apply).")


class ReferenceSplit(BaseModel):
    """Without a holdout: the split of the training rows whose set-aside part stands in for one.

    The fidelity and utility sections then compare the synthetic data with the kept training rows,
    and take their reference from the set-aside rows measured the same way (two real samples). The
    generator saw both parts, so the attacks, which need unseen rows, are not run on it.
    """

    root: str = Field(description="The table whose entities were split (rows that descend travel along).")
    share: float = Field(description="Share of the root's entities set aside: min(1/2, synthetic/training).")
    kept: dict[str, int] = Field(description="Per table, the training rows the sections compare with.")
    set_aside: dict[str, int] = Field(description="Per table, the training rows that stand in for a holdout.")
    copies: dict[str, float] = Field(
        default_factory=dict,
        description=(
            "Per table, the share of set-aside rows equal to a kept row on the privacy section's "
            "columns: how often real rows repeat one another, the level exact copies are judged against."
        ),
    )


class RunInfo(BaseModel):
    """Which software, settings and seed produced the report (provenance)."""

    title: str
    reportgen_version: str
    created_at: str = Field(description="UTC time of the run, ISO 8601.")
    seed: int
    settings: dict[str, Any]
    versions: dict[str, str] = Field(description="Versions of the packages that compute results.")
    device: str = Field(
        default="cpu",
        description=(
            "Where torch ran the exact neighbour searches (the 'device' setting, resolved): "
            "'cpu', or the GPU, e.g. 'cuda:0 (NVIDIA H200)'."
        ),
    )
    has_holdout: bool
    reference_split: ReferenceSplit | None = Field(
        default=None,
        description="Without a holdout, the split of the training data that gives the references.",
    )
    inputs: dict[str, dict[str, TableFingerprint]] = Field(
        default_factory=dict,
        description="Per role, each input table's SHA-256 fingerprint, rows and columns.",
    )
    fingerprint_format: str = FORMAT
    engine_fingerprint_format: str = Field(
        default=ENGINE_FORMAT,
        description="Format of the fingerprints of database tables read in place ('rows in the engine').",
    )
    read_in_place: dict[str, str] = Field(
        default_factory=dict,
        description=(
            "Per role read where it is (not loaded into memory), where: the files or database. "
            "Its fingerprints are then of the files' bytes, or of a database table's rows digested "
            "in the engine (``TableFingerprint.of`` says which)."
        ),
    )


class Headline(BaseModel):
    """One page-1 number with its reference level, what it means in plain words, and how it is judged.

    Sections declare their headlines (``reportgen.metrics.registry.HeadlineSpec``); the report keeps
    them as printed on page 1 (``ReportResults.headlines``), with the rule's answer (``worse``) and
    the release bar on it, so a pipeline reads what the approver read.
    """

    name: str
    label: str
    value: float
    reference: float | None = None
    spread: float | None = None  # a standard deviation, where the number has one
    unit: Unit
    higher_is_better: bool
    meaning: str
    concern: Concern | None = Field(default=None, description="The page-1 verdict this number feeds.")
    reference_kind: Literal["real", "chance", "none"] = Field(
        default="real",
        description=(
            "What the reference is: 'real' the same measure between two real samples (training and "
            "holdout, or training rows set aside), 'chance' the level chance reaches, 'none' no reference."
        ),
    )
    caveat: str | None = None  # what the number does not cover (tables not measured), in words
    closer_to_reference: bool = False  # True where neither direction is simply better (alpha/beta)
    gap: str | None = None  # which way the number departs from its reference, in words
    tolerance: float | None = None  # a change smaller than this is noise (None: the unit's rule)
    reference_withheld: str | None = None  # why a reference is not shown although a holdout was given
    interval: tuple[float, float] | None = None  # its 95% interval, where the number has one
    interval_label: str | None = None  # what kind of interval it is, in words (None: "95% interval")
    unreliable: bool = False  # its premise failed (a holdout the generator saw): a bar on it cannot pass
    worse: bool = Field(
        default=False,
        description="The section's rule: the number is clearly worse than its reference (or level).",
    )
    bar: float | None = Field(default=None, description="The release bar on this number, if one is in force.")
    bar_status: GateStatus | None = Field(default=None, description="How the number compares with its bar.")


class GateResult(BaseModel):
    """One bar and how the report's number compares with it."""

    name: str
    label: str
    bar: float
    value: float | None
    status: GateStatus
    higher_is_better: bool = Field(default=True, description="False: the bar is a maximum.")
    unit: Unit = "score"
    reason: str | None = Field(default=None, description="Why the bar could not be evaluated, or a caveat.")

    @property
    def worse_than(self) -> str:
        """How a failing value relates to its bar, in words: "below" or "above"."""
        return "below" if self.higher_is_better else "above"


class GatesResult(BaseModel):
    """Every bar in force, failing closed.

    A bar that could not be evaluated fails the release unless ``allow_not_evaluated`` was set
    (``report(allow_not_evaluated=True)``, ``--allow-not-evaluated``).
    """

    gates: list[GateResult] = Field(default_factory=list)
    allow_not_evaluated: bool = False

    @property
    def passed(self) -> bool:
        return not self.failed

    @property
    def failed(self) -> list[GateResult]:
        """The bars that stop the release: failed ones, and unevaluated ones unless allowed."""
        return [
            g
            for g in self.gates
            if g.status == "fail" or (g.status == "not_evaluated" and not self.allow_not_evaluated)
        ]

    @property
    def not_evaluated(self) -> list[GateResult]:
        return [g for g in self.gates if g.status == "not_evaluated"]


class ConcernVerdict(BaseModel):
    """The verdict on one concern of page 1 (``reportgen.verdict``) and the sentence that explains it."""

    concern: Concern
    status: Literal["pass", "concern", "fail", "not_evaluated"]
    why: str


class HeadlineChange(BaseModel):
    """One headline number in this release and the previous one (None: absent in that release)."""

    name: str
    label: str
    unit: Unit
    previous: float | None
    current: float | None
    regression: bool
    tolerance: float | None = None


class Comparison(BaseModel):
    """The comparison with a previous release's results (``report(previous=...)``)."""

    source: str = Field(description="The previous results file, as given.")
    previous_title: str
    previous_created_at: str
    changes: list[HeadlineChange]
    changed_settings: list[str] = Field(default_factory=list)

    @property
    def regressions(self) -> list[HeadlineChange]:
        return [c for c in self.changes if c.regression]


class ReportResults(BaseModel):
    """Everything one report computed."""

    run: RunInfo
    headlines: dict[str, Headline] = Field(
        default_factory=dict, description="Page 1's headline numbers, by name, in page order, as printed."
    )
    gates: GatesResult = Field(default_factory=lambda: GatesResult())
    verdicts: list[ConcernVerdict] = Field(default_factory=list, description="Page 1's verdict per concern.")
    comparison: Comparison | None = None
    findings: list[Finding] = Field(default_factory=list)
    sections: dict[str, SerializeAsAny[SectionResult]] = Field(default_factory=dict)
    standards: list[StandardCriterion] = Field(
        default_factory=list,
        description="The criteria of standards and guidance, each with the numbers of this report on it.",
    )
    decision: Decision | None = Field(
        default=None, description="The approver's decision, when given (None: a blank form in the report)."
    )

    @field_validator("sections", mode="before")
    @classmethod
    def _typed_sections(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return value

        def typed(name: str, item: Any) -> Any:
            if not isinstance(item, dict):
                return item
            if item.get("status", "ok") != "ok":
                return SectionResult.model_validate(item)
            return _result_type_of(name).model_validate(item)

        return {name: typed(name, item) for name, item in value.items()}

    @field_validator("headlines", mode="after")
    @classmethod
    def _in_page_order(cls, value: dict[str, Headline]) -> dict[str, Headline]:
        """Headlines in page order (as declared), a headline no section declares last, in the order given."""
        rank = {name: i for i, name in enumerate(_headline_order())}
        return dict(sorted(value.items(), key=lambda item: rank.get(item[0], len(rank))))

    def computed(self, name: str) -> SectionResult | None:
        """The result of section ``name``, or None when it is absent or was not computed."""
        result = self.sections.get(name)
        return result if result is not None and result.status == "ok" else None

    def tables_with_training_holdout(self) -> set[str]:
        """Tables whose holdout rows are their training rows (a lookup table copied by a split)."""
        return {f.table for f in self.findings if f.code == "holdout_equals_training" and f.table}

    def _repr_html_(self) -> str | None:
        """Page 1 (verdicts, headlines with references and bars, findings count) for a notebook cell.

        None where no renderer is registered, so the notebook falls back to the text repr.
        """
        return None if _page_one_html is None else _page_one_html(self)

    def headlines_frame(self) -> pd.DataFrame:
        """Page 1's headlines as a DataFrame, one row per measure in page order, exactly as printed.

        Every field of ``Headline`` is a column (``interval`` as ``interval_low`` and
        ``interval_high``), the identifying and judging ones first.
        """
        import pandas as pd  # only here: reading results needs no pandas

        rows = [_headline_row(h) for h in self.headlines.values()]
        columns = list(_headline_row(None))
        return pd.DataFrame(rows, columns=columns)

    def to_json(self) -> str:
        """The results as JSON text (stable key order, so equal results give equal text)."""
        return json.dumps(self.model_dump(mode="json"), indent=2, sort_keys=True, allow_nan=False)

    @classmethod
    def from_json(cls, text: str) -> ReportResults:
        return cls.model_validate(json.loads(text))

    @classmethod
    def load(cls, path: str | Path) -> ReportResults:
        """Read the JSON that ``report()`` writes beside every report, each section with its result class.

        ``reportgen.ReportResults`` knows the classes of the built-in and installed plugin sections
        in any process (a section no longer installed is read as a plain ``SectionResult``).
        """
        return cls.from_json(Path(path).read_text(encoding="utf-8"))


_FRAME_FIRST = (
    "name",
    "label",
    "concern",
    "value",
    "reference",
    "unit",
    "higher_is_better",
    "worse",
    "bar",
    "bar_status",
)


def _headline_row(headline: Headline | None) -> dict[str, Any]:
    """One headline as a frame row; ``None`` gives the columns (with no values) for an empty frame."""
    fields = headline.model_dump() if headline is not None else dict.fromkeys(Headline.model_fields)
    interval = fields.pop("interval")
    fields["interval_low"], fields["interval_high"] = interval if interval is not None else (None, None)
    return {**{name: fields.pop(name) for name in _FRAME_FIRST}, **fields}
