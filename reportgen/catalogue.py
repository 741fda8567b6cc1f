"""The sections a report has: the built-in ones and the installed plugins, in page order.

``reportgen.metrics.registry`` declares what a section is and collects registrations; this module
sits above the built-in registrations (``reportgen.metrics.builtin``, which import the sections'
compute steps and figures) and answers for all of them, so the registry never imports the
sections that import it. Importing it also tells ``reportgen.results`` each section's result
class, so that results read back from JSON are typed, and gathers the settings the sections
declare (``report_settings``), so that ``report()`` and the CLI take them without naming them.
"""

from __future__ import annotations

import difflib
from dataclasses import fields, replace
from typing import Any

import reportgen.metrics.builtin  # noqa: F401  (registers the built-in sections)
from reportgen.errors import InvalidParameterError, ReportgenError
from reportgen.metrics.registry import Section, registered
from reportgen.params import check_param
from reportgen.privacy.neighbours import resolve_device
from reportgen.render.notebook import page_one_html
from reportgen.results import SectionResult, set_headline_order, set_page_one_renderer, set_result_types
from reportgen.settings import DEVICE_NAME, ReportSettings, Setting

SHARED_SETTINGS = frozenset(f.name for f in fields(ReportSettings)) - {"sections"}


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


def headline_order() -> list[str]:
    """Every declared headline's name in page order: each section's, in registry order."""
    return [spec.name for section in sections() for spec in section.headlines]


def section_settings() -> dict[str, Setting]:
    """Every setting the registered sections declare, by name, in page order.

    Two sections may not declare the same name, nor one a name of the shared settings: a keyword of
    ``report()`` must mean one thing.
    """
    found: dict[str, Setting] = {}
    owner: dict[str, str] = {}
    for section in sections():
        for setting in section.settings:
            clash = owner.get(setting.name) or ("ReportSettings" if setting.name in SHARED_SETTINGS else None)
            if clash:
                raise ReportgenError(
                    f"Section {section.name!r} declares the setting {setting.name!r}, which {clash!r} "
                    "already has; rename one of them."
                )
            found[setting.name] = setting
            owner[setting.name] = section.name
    return found


def report_settings(
    base: ReportSettings | None = None, *, where: str = "report", **values: Any
) -> ReportSettings:
    """``base`` (default: every default) with ``values`` set and every section setting filled in.

    ``values`` may name shared settings (``seed``, ``n_max_train``...) and section settings alike;
    a section setting takes its value in ``values`` (checked against its declaration), else in
    ``base``, else its declared default. A name that is neither raises ``InvalidParameterError``
    naming the closest ones, so a typo never runs with a default silently.
    """
    declared = section_settings()
    unknown = [name for name in values if name not in declared and name not in SHARED_SETTINGS]
    if unknown:
        name = unknown[0]
        close = difflib.get_close_matches(name, [*declared, *SHARED_SETTINGS], n=3)
        hint = f" Did you mean {' or '.join(map(repr, close))}?" if close else ""
        raise InvalidParameterError(
            f"{where}() got the setting {name!r}, which no report section declares.{hint} "
            f"Section settings: {', '.join(declared)}."
        )
    own = {name: value for name, value in values.items() if name in declared}
    for name, value in own.items():
        declared[name].check(value, where)
    shared = {name: value for name, value in values.items() if name in SHARED_SETTINGS}
    if "device" in shared:  # refused before any work: a GPU asked for where torch sees none
        check_param(where, "device", shared["device"], [DEVICE_NAME])
        resolve_device(shared["device"], f"{where}()")
    base = replace(base or ReportSettings(), **shared)
    given = dict(base.sections) | own
    filled = {name: given.get(name, s.default) for name, s in declared.items()}
    for section in sections():
        if section.check_settings is not None:
            section.check_settings(filled, where)
    return base.with_sections(**filled)


set_result_types(result_type_of)
set_headline_order(headline_order)
set_page_one_renderer(page_one_html)  # a ReportResults in a notebook cell shows page 1
