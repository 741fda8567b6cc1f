"""Registers the sections that ship with reportgen, through the same registry plugins use.

Each section is declared whole in its own module of ``reportgen.sections`` (a ``SECTION``); every
module there is registered, so a new built-in section is one new module, with no list to edit.
Page order comes from each section's ``order``, not from the modules' names.
"""

from __future__ import annotations

import pkgutil
from importlib import import_module

import reportgen.sections
from reportgen.metrics.registry import Section, register


def _declared() -> list[Section]:
    modules = sorted(info.name for info in pkgutil.iter_modules(reportgen.sections.__path__))
    return [import_module(f"reportgen.sections.{name}").SECTION for name in modules]


BUILTIN = tuple(register(section) for section in _declared())
