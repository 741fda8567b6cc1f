"""Where the test suite's time goes, and how two workers share it, from one run's recorded times.

    python -m pytest --record-durations /tmp/durations.json
    python benchmarks/suite_time.py /tmp/durations.json [--workers 2]

``--record-durations`` (tests/conftest.py) writes each test's seconds: setup, call and teardown.
This script collects the tests (``pytest --collect-only``, nothing runs), forms xdist's work units
(an ``xdist_group``, or a test of its own) as tests/conftest.py marks them, and prints the sum, the
slowest units and the time per test file. It also simulates two workers that each take the next
unit when free, in xdist's order (largest group first, then about collection order) and longest
unit first: on 2026-11-27 both ended within a second of perfect sharing (1,090 tests in 774 units,
the longest 193 s of 2,569 s), so the suite's wall time is its total work over the workers, and
ordering the units was not worth a hook. A simulation from one run's times, not a measurement.
"""

from __future__ import annotations

import argparse
import contextlib
import heapq
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


class _Collector:
    """Keeps the collected items' ids and units, in the order the conftest leaves them."""

    def __init__(self) -> None:
        self.units: list[tuple[str, str]] = []  # (unit, nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            group = item.get_closest_marker("xdist_group")
            name = (group.args[0] if group.args else group.kwargs["name"]) if group else None
            self.units.append((f"group {name}" if name else item.nodeid, item.nodeid))


def _simulate(units: list[tuple[str, float]], workers: int) -> float:
    """When the last worker finishes, each taking the next unit in ``units`` order when free."""
    free = [0.0] * workers
    for _, seconds in units:
        heapq.heapreplace(free, free[0] + seconds)
    return max(free)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("durations", type=Path, help="the file --record-durations wrote")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    known = json.loads(args.durations.read_text())
    collector = _Collector()
    with open(os.devnull, "w") as quiet, contextlib.redirect_stdout(quiet):  # not the list of tests
        options = ["--collect-only", "-q", "-n", "0", "-p", "no:cacheprovider", str(ROOT / "tests")]
        code = pytest.main(options, plugins=[collector])
    if code != 0:
        sys.exit(f"collection failed (exit {code})")
    typical = sorted(known.values())[len(known) // 2]
    per_unit: dict[str, float] = defaultdict(float)
    per_file: dict[str, float] = defaultdict(float)
    sizes: dict[str, int] = defaultdict(int)
    for unit, nodeid in collector.units:
        seconds = known.get(nodeid, typical)
        per_unit[unit] += seconds
        per_file[nodeid.split("::")[0]] += seconds
        sizes[unit] += 1
    first = {unit: nodeid for unit, nodeid in reversed(collector.units)}
    # xdist's reorder: most tests first, then collection order (about the tests' paths)
    xdist_order = sorted(per_unit.items(), key=lambda kv: (-sizes[kv[0]], first[kv[0]]))
    longest_first = sorted(per_unit.items(), key=lambda kv: -kv[1])
    total = sum(per_unit.values())
    print(f"{len(collector.units)} tests in {len(per_unit)} work units, {total:.0f} s in all")
    for order, units in (("xdist's order", xdist_order), ("longest unit first", longest_first)):
        print(f"  {args.workers} workers, {order}: ends at {_simulate(units, args.workers):.0f} s")
    print(f"  perfect sharing: {total / args.workers:.0f} s; longest unit {max(per_unit.values()):.0f} s")
    print("\nlongest units:")
    for unit, seconds in sorted(per_unit.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {seconds:7.1f} s  {sizes[unit]:3d} tests  {unit}")
    print("\ntest files:")
    for file, seconds in sorted(per_file.items(), key=lambda kv: -kv[1])[:25]:
        print(f"  {seconds:7.1f} s  {file}")


if __name__ == "__main__":
    main()
