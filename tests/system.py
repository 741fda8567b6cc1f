"""The one guard for tests that need what pip cannot install (a system library, program or service).

README promises that such tests skip with their reason outside CI and fail where the environment
variable ``CI`` is set (``.ci/run`` installs them, so there a missing one is a broken CI machine, not
a reason to pass silently). Every such test goes through :func:`require`, usually by the marker
``needs(name)`` (``postgres`` for the database tests), which ``tests/conftest.py`` checks before any
fixture runs. ``tests/test_system.py`` enforces this.

``REPORTGEN_TESTS_HIDE`` (names separated by commas) makes this module treat those dependencies as
absent, so the promise can be checked on a machine that has them, without uninstalling anything.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import pytest

HIDE = "REPORTGEN_TESTS_HIDE"


def unavailable(reason: str) -> NoReturn:
    """Skip with ``reason``, or fail with it where ``CI`` is set (CI must run every test)."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}, and CI is set (.ci/run installs it)", pytrace=False)
    pytest.skip(reason)


def hidden(name: str) -> bool:
    """Whether ``REPORTGEN_TESTS_HIDE`` names ``name`` (to check the skips without uninstalling)."""
    return name in {part.strip() for part in os.environ.get(HIDE, "").split(",")}


def chromium() -> str | None:
    """The headless browser's program, or None."""
    if hidden("Chromium"):
        return None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def postgres_binaries() -> tuple[str, str] | None:
    """``initdb`` and ``pg_ctl`` from the PATH, else from the newest /usr/lib/postgresql/*/bin."""
    if hidden("PostgreSQL"):
        return None
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if initdb and pg_ctl:
        return initdb, pg_ctl
    folders = glob.glob("/usr/lib/postgresql/*/bin")
    for folder in sorted(folders, key=lambda f: [int(n) for n in re.findall(r"\d+", f)])[::-1]:
        candidates = Path(folder, "initdb"), Path(folder, "pg_ctl")
        if all(c.is_file() for c in candidates):
            return str(candidates[0]), str(candidates[1])
    return None


def harfbuzz_subset() -> bool:
    """Whether WeasyPrint found HarfBuzz-Subset (>= 4.1, as it requires) to subset fonts with."""
    if hidden("HarfBuzz-Subset"):
        return False
    from weasyprint.pdf import fonts

    return fonts.harfbuzz_subset is not None and bool(fonts.harfbuzz.hb_version_atleast(4, 1, 0))


# name -> (probe: true when present, how to install it)
def java() -> str | None:
    """The Java runtime a local Spark session starts (on the PATH, or under JAVA_HOME), if any."""
    if hidden("Java"):
        return None
    home = os.environ.get("JAVA_HOME")
    in_home = Path(home, "bin", "java") if home else None
    return shutil.which("java") or (str(in_home) if in_home and in_home.is_file() else None)


NEEDS: dict[str, tuple[Callable[[], object], str]] = {
    "Chromium": (chromium, "apt-get install chromium"),
    "PostgreSQL": (postgres_binaries, "apt-get install postgresql: initdb and pg_ctl"),
    "HarfBuzz-Subset": (harfbuzz_subset, "apt-get install libharfbuzz-subset0"),
    "Java": (java, "apt-get install openjdk-17-jre-headless"),
}


def require(name: str) -> None:
    """Return if ``name`` (a key of :data:`NEEDS`) is installed; otherwise skip, or fail under CI."""
    probe, install = NEEDS[name]
    if not probe():
        unavailable(f"{name} is not installed ({install})")
