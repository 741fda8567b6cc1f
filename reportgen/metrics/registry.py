"""The registry of report sections: built-ins and plugins from the ``reportgen.metrics`` group.

A section bundles what a page needs, with computing and drawing kept apart:

- ``compute(context) -> SectionResult``: reads the prepared data, returns plain data;
- ``figures(result) -> {name: Figure}``: draws from the result alone (no data access);
- ``template``: the Jinja template that lays the result out (found in the ``templates`` folder of
  ``template_package``);
- ``beside``: compute it in a background thread from the start, beside the other sections, for a
  section whose work runs mostly on one core (the others then use the cores it leaves idle). Such a
  section reads the context's data and shared preparations only, never the in-place engines
  (their connections serve one thread), and draws only from its own ``rng`` streams.
- ``split_reference``: without a holdout, compute it on a split of the training data whose
  set-aside part stands in for the holdout, so that its reference levels are measured (fidelity
  and utility). Sections whose holdout must be rows the generator never saw (the attacks) and
  those that describe the inputs as given leave it False.
- ``headlines``: the numbers it puts on page 1 (``HeadlineSpec``): each one's label, unit,
  direction, bounds, the concern it feeds, the rule that says when it is clearly worse than its
  reference, whether it offers a release bar, and how its value and reference are read from the
  result. Page 1, the release bars, the verdicts and the comparison with a previous release loop
  over these declarations; none keeps a table of names.
- ``raise_alarms(result, results, raised)``: the findings its numbers raise once every section is
  computed (copies above the holdout's share, TSTR at chance), given the whole results and the
  alarms the sections before it raised; ``None`` when its compute step raises all it has to.
- ``alarms``: the findings it raises that make a concern's verdict a concern (``Alarm``).
- ``settings``: its own settings (``reportgen.settings.Setting``): each becomes a keyword of
  ``report()``, an option of ``reportgen report``, a line of the run's settings in the JSON and the
  report, and an attribute of ``context.settings`` its compute step reads. ``check_settings(values,
  where)`` checks them together (one that needs another), once all are filled in, before any work.
- ``methodology``: a template (in ``template_package``) with its paragraphs for the methodology
  appendix, given ``run``, ``result`` (None when the section was not computed) and ``results``.
  It is one numbered part headed by the title, or declares its own parts with the ``method``
  macro of ``methodology_macros.html.j2`` (which also links to parts and cites references).

A third-party package adds a section by exposing a ``Section`` (or a zero-argument callable that
returns one) under the ``reportgen.metrics`` entry-point group; built-ins use the same registry.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from reportgen.errors import ReportgenError
from reportgen.results import Concern, Finding, Headline, ReportResults, SectionResult, Unit
from reportgen.rules import Rule
from reportgen.settings import Setting

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from reportgen.context import EvaluationContext

ENTRY_POINT_GROUP = "reportgen.metrics"
T = TypeVar("T")


class MetricNotComputed(ReportgenError):
    """Raised by a section's compute step when it cannot run on these inputs; the report goes on."""


class MetricNotApplicable(MetricNotComputed):
    """Raised when a section does not concern these inputs (no foreign keys, no target asked for).

    The section then gets no page of its own, only a line in the overview.
    """


def measured_and_skipped(outcomes: Mapping[str, T | str]) -> tuple[list[T], dict[str, str]]:
    """A section's per-view outcomes split into results and the reasons of the views not measured.

    Raises ``MetricNotComputed`` with every reason when no view was measured.
    """
    measured = [o for o in outcomes.values() if not isinstance(o, str)]
    skipped = {name: o for name, o in outcomes.items() if isinstance(o, str)}
    if not measured:
        raise MetricNotComputed("; ".join(f"{name}: {reason}" for name, reason in skipped.items()))
    return measured, skipped


@dataclass(frozen=True)
class Reading:
    """What a section's result says of one of its headlines: the value and its reference, with words.

    ``tables`` names the tables (and entity views) the reference is computed on, so a reference drawn
    on a table copied to both sides of a split can be withheld; ``rows`` the rows the number rests
    on where that is not the smaller side of the largest table (utility: its target's table).
    ``label`` and ``meaning`` replace the declared ones where they depend on the data.
    """

    value: float
    reference: float | None = None
    tables: tuple[str, ...] = ()
    rows: int | None = None
    label: str | None = None
    meaning: str | None = None
    spread: float | None = None
    caveat: str | None = None
    gap: str | None = None
    tolerance: float | None = None
    interval: tuple[float, float] | None = None
    interval_label: str | None = None

    @classmethod
    def percent(cls, value: float, reference: float | None, tables: tuple[str, ...] = ()) -> Reading:
        """The reading of a 0-1 measure shown as a 0-100 score, with its reference scaled alike."""
        return cls(value=100 * value, reference=None if reference is None else 100 * reference, tables=tables)


_UNIT_HIGH = {"score": 100.0, "share": 1.0, "number": math.inf}


@dataclass(frozen=True)
class HeadlineSpec:
    """One page-1 number a section declares: what it is, how it is judged and how it is read.

    - ``read(result)`` gives its ``Reading``, or None where the result holds no such number;
    - ``rule`` says when it is clearly worse than its reference (``reportgen.rules``);
    - ``concern``: the page-1 verdict it feeds (privacy, fidelity, utility);
    - ``low``/``high``: the bounds of its value and of a release bar on it (the unit's by default:
      0-100 for scores, 0-1 for shares); ``bar``: whether it offers a release bar, ``default_bar``
      one in force unless the user sets another;
    - ``reference_kind``: what its reference is ("real": two real samples; "chance"; "none");
    - ``compares_holdout``: it compares training rows with holdout rows (the attacks), so it rests on
      the holdout's rows too; ``assumes_unseen_holdout``: it is unreliable when the generator
      appears to have seen the holdout (the attacks, and utility scored on the holdout);
    - ``evidence``: for the privacy verdict, the sentence that makes this number the evidence of a
      pass (an attack at chance); a privacy verdict with no such number is not a pass;
    - ``tolerance``: a change smaller than this is noise (where the reading gives none);
    - ``bar_setting``: a setting whose value, when given, is a bar in force on this headline (the
      claimed epsilon is the bar of the bound at the claimed delta); a ``fail_under`` on it wins.

    ``judge(value, reference, ...)`` applies the rule to any number on the headline's scale, so a
    section's page marks its tables' and rows' numbers as page 1 marks the headline.
    """

    name: str
    label: str
    unit: Unit
    higher_is_better: bool
    concern: Concern
    meaning: str
    read: Callable[[Any], Reading | None]
    rule: Rule
    reference_kind: Literal["real", "chance", "none"] = "real"
    closer_to_reference: bool = False
    bar: bool = True
    default_bar: float | None = None
    low: float = 0.0
    high: float | None = None
    compares_holdout: bool = False
    assumes_unseen_holdout: bool = False
    evidence: Callable[[Headline], str] | None = None
    tolerance: float | None = None
    bar_setting: str | None = None

    @property
    def upper(self) -> float:
        """The highest value the number (and a bar on it) can take."""
        return _UNIT_HIGH[self.unit] if self.high is None else self.high

    def passes(self, value: float, bar: float) -> bool:
        """Whether ``value`` meets ``bar`` (a number equal to its bar passes)."""
        return value >= bar if self.higher_is_better else value <= bar

    @property
    def bounds(self) -> str:
        """Its range in words: "0 to 1", "0 to infinity"."""
        high = "infinity" if math.isinf(self.upper) else f"{self.upper:g}"
        return f"{self.low:g} to {high}"

    def describe_bounds(self) -> str:
        return f"a number from {self.bounds}"

    def judge(
        self,
        value: float | None,
        reference: float | None = None,
        interval: tuple[float, float] | None = None,
        tolerance: float | None = None,
    ) -> bool:
        """Whether ``value`` is clearly worse than ``reference`` by this headline's rule (None: no)."""
        if value is None:
            return False
        reading = Reading(value=value, reference=reference, interval=interval, tolerance=tolerance)
        return self.headline(reading).worse

    def headline(self, reading: Reading) -> Headline:
        """The page-1 headline of ``reading``, judged by this declaration's rule."""
        found = Headline(
            name=self.name,
            label=reading.label or self.label,
            value=reading.value,
            reference=reading.reference,
            spread=reading.spread,
            unit=self.unit,
            higher_is_better=self.higher_is_better,
            meaning=reading.meaning or self.meaning,
            concern=self.concern,
            reference_kind=self.reference_kind,
            caveat=reading.caveat,
            closer_to_reference=self.closer_to_reference,
            gap=reading.gap,
            tolerance=self.tolerance if reading.tolerance is None else reading.tolerance,
            interval=reading.interval,
            interval_label=reading.interval_label,
        )
        return judged(found, self.rule)


def judged(headline: Headline, rule: Rule) -> Headline:
    """``headline`` with ``worse`` set by ``rule`` (again after its reference changed)."""
    headline.worse = rule.worse(headline)
    return headline


@dataclass(frozen=True)
class Alarm:
    """A finding a section raises that makes its concern's verdict a concern.

    ``also`` names other concerns it weighs on where they measured something, with what it means
    for them (a holdout the generator saw makes TSTR, scored on that holdout, unreliable too).
    """

    code: str
    concern: Concern
    also: Mapping[Concern, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Section:
    """One section of the report: how to compute its result, how to show it and what it means."""

    name: str
    title: str
    order: int
    result_type: type[SectionResult]
    compute: Callable[[EvaluationContext], SectionResult]
    template: str
    figures: Callable[[SectionResult], dict[str, Figure]] | None = None
    template_package: str = "reportgen"
    beside: bool = False
    split_reference: bool = False
    headlines: tuple[HeadlineSpec, ...] = ()
    raise_alarms: Callable[[Any, ReportResults, Sequence[Finding]], list[Finding]] | None = None
    alarms: tuple[Alarm, ...] = ()
    settings: tuple[Setting, ...] = ()
    check_settings: Callable[[Mapping[str, Any], str], None] | None = None
    methodology: str | None = None


_BUILTIN: dict[str, Section] = {}
_plugins: dict[str, Section] | None = None


def register(section: Section) -> Section:
    """Add a built-in section (plugins register through the entry-point group instead)."""
    if section.name in _BUILTIN:
        raise ValueError(f"A section named {section.name!r} is already registered.")
    _BUILTIN[section.name] = section
    return section


def _load_plugins() -> dict[str, Section]:
    global _plugins
    if _plugins is None:
        _plugins = {}
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            loaded = ep.load()
            section = loaded() if callable(loaded) and not isinstance(loaded, Section) else loaded
            if not isinstance(section, Section):
                raise ReportgenError(
                    f"Entry point {ep.name!r} in group {ENTRY_POINT_GROUP!r} must give a "
                    f"reportgen Section, got {type(section).__name__}."
                )
            _plugins[section.name] = section
    return _plugins


def registered() -> list[Section]:
    """Every section registered so far (plugins loaded, built-ins imported), in page order.

    The built-ins register when ``reportgen.metrics.builtin`` is imported, which this module cannot
    do (they import it): ``reportgen.catalogue.sections`` is the complete list.
    """
    found = {**_load_plugins(), **_BUILTIN}
    return sorted(found.values(), key=lambda s: (s.order, s.name))
