"""The sections a report has: the built-in ones and the installed plugins, in page order.

``reportgen.metrics.registry`` declares what a section is and collects registrations; this module
sits above the built-in registrations (``reportgen.metrics.builtin``, which import the sections'
compute steps and figures) and answers for all of them, so the registry never imports the
sections that import it. Importing it also tells ``reportgen.results`` each section's result
class, so that results read back from JSON are typed.
"""

from __future__ import annotations

import reportgen.metrics.builtin  # noqa: F401  (registers the built-in sections)
from reportgen.errors import ReportgenError
from reportgen.metrics.registry import Section, registered
from reportgen.results import SectionResult, set_result_types


def sections() -> list[Section]:
    """Every registered section, built-in and plugin, in page order."""
    return registered()


def get_section(name: str) -> Section:
    """The registered section called ``name``."""
    for section in sections():
        if section.name == name:
            return section
    raise ReportgenError(f"No report section named {name!r} is registered.")


def result_type_of(name: str) -> type[SectionResult]:
    """The result class of a section (the base class for sections no longer installed)."""
    for section in sections():
        if section.name == name:
            return section.result_type
    return SectionResult


set_result_types(result_type_of)
