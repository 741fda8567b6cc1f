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

A third-party package adds a section by exposing a ``Section`` (or a zero-argument callable that
returns one) under the ``reportgen.metrics`` entry-point group; built-ins use the same registry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, TypeVar

from reportgen.errors import ReportgenError
from reportgen.results import SectionResult

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
class Section:
    """One section of the report: how to compute its result and how to show it."""

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
