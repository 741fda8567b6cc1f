"""The one Jinja environment of the report: autoescaped, strict, with the number filters, long words cut."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from jinja2 import ChoiceLoader, Environment, PackageLoader, StrictUndefined

from reportgen.render import wide
from reportgen.render.formatting import FILTERS, shown


@lru_cache(maxsize=8)
def environment(template_packages: tuple[str, ...] = ("reportgen",)) -> Environment:
    """An environment that finds templates in the ``templates`` folder of each package."""
    env = Environment(
        loader=ChoiceLoader([PackageLoader(pkg, "templates") for pkg in template_packages]),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=shown,  # no printed string is long enough to hold the layout hostage
    )
    env.filters.update(FILTERS | wide.FILTERS)
    env.globals.update(wide.GLOBALS)
    return env


def packages_of(template_packages: Iterable[str]) -> tuple[str, ...]:
    """Unique packages, reportgen first, in a hashable form for the cache."""
    return tuple(dict.fromkeys(["reportgen", *template_packages]))
