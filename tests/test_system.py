"""README's promise: tests that need what pip cannot install skip with their reason outside CI and
fail under CI, all through the one guard in ``tests/system.py``."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .system import HIDE, NEEDS, require, unavailable

TESTS = Path(__file__).resolve().parent
MARKED = ["-m", "needs or postgres", str(TESTS)]  # every test that needs a system dependency
# A hand-made guard: only tests/system.py reads CI or says what to install.
OWN_GUARD = re.compile(r"""environ(\.get\(|\[)["']CI["']|getenv\(["']CI["']|apt-get install""")


def test_only_the_guard_reads_ci_and_every_program_lookup_goes_through_it():
    """No test decides skip-or-fail itself; a test module that looks for a program uses the guard."""
    own_guards, unguarded_lookups = [], []
    for path in TESTS.rglob("*.py"):
        if path.name in {"system.py", Path(__file__).name}:
            continue
        text, name = path.read_text(), str(path.relative_to(TESTS))
        if OWN_GUARD.search(text):
            own_guards.append(name)
        if "shutil.which(" in text and "unavailable(" not in text:
            unguarded_lookups.append(name)
    assert own_guards == [] and unguarded_lookups == [], (own_guards, unguarded_lookups)


def test_the_guard_skips_with_its_reason_outside_ci_and_fails_under_ci(monkeypatch):
    monkeypatch.setenv(HIDE, ",".join(NEEDS))
    monkeypatch.delenv("CI", raising=False)
    for name, (_, install) in NEEDS.items():
        with pytest.raises(pytest.skip.Exception, match=re.escape(f"{name} is not installed ({install})")):
            require(name)
    monkeypatch.setenv("CI", "true")
    for name in NEEDS:
        with pytest.raises(pytest.fail.Exception, match=f"{name} is not installed .*CI is set"):
            require(name)
    with pytest.raises(pytest.fail.Exception, match="no dataset, and CI is set"):
        unavailable("no dataset")


@pytest.mark.slow
def test_every_test_that_needs_a_system_dependency_skips_with_its_reason_when_it_is_hidden():
    """The marked tests, run with every dependency hidden and CI unset: all skip, each naming what."""
    env = {k: v for k, v in os.environ.items() if k != "CI"} | {HIDE: ",".join(NEEDS)}
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "0", "-p", "no:cacheprovider", "-q", "-rs", *MARKED],
        capture_output=True,
        text=True,
        env=env,
        cwd=TESTS.parent,
        timeout=600,
        check=False,
    )
    summary = run.stdout.strip().splitlines()[-1]
    skipped = int(re.search(r"(\d+) skipped", summary).group(1))
    assert re.fullmatch(r"\d+ skipped, \d+ deselected in .*", summary), run.stdout[-3000:]
    reasons = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED")]
    assert reasons and sum(int(re.search(r"SKIPPED \[(\d+)\]", r).group(1)) for r in reasons) == skipped
    for name in NEEDS:  # each dependency is needed by some test, and that test says so
        assert any(f"{name} is not installed" in r for r in reasons), (name, reasons)
