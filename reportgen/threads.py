"""Work spread over the cores in Python threads, with every native thread pool held to one thread.

The sections that fit many small models or search in blocks (utility, detection, the sample-level
section, the neighbour engine) run them side by side in threads: the native code they call (BLAS,
OpenMP in scikit-learn's boosting, torch) releases the interpreter, and threads share the data
without copying it. Each such pool must then run one thread per Python thread, or two workers on
two cores start four native threads that wait at every barrier for the ones displaced (one test
took 75 s instead of 1.4 s). Torch's and BLAS's thread counts are process-wide, so they are held
around all the work (``one_thread_each``); OpenMP's is each thread's own, so every worker sets it
for itself (``map_in_threads``).

Results never depend on the number of threads: every piece of work is seeded and alone on its rows.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import torch
from threadpoolctl import threadpool_limits

T = TypeVar("T")
R = TypeVar("R")


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


@contextlib.contextmanager
def one_thread_each() -> Iterator[None]:
    """Torch, the BLAS libraries and OpenMP on one thread per calling thread; restored on exit.

    Torch's and BLAS's settings are process-wide. Code that runs work in several Python threads
    holds them around all of it, so that each thread's own set-and-restore finds and restores the
    same value. OpenMP's is the calling thread's own: a worker thread limits itself
    (``map_in_threads`` does so in each of its workers).
    """
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1):
            yield
    finally:
        torch.set_num_threads(previous_threads)


def map_in_threads(function: Callable[[T], R], items: Iterable[T], *, workers: int | None = None) -> list[R]:
    """``function`` of each item, in order, computed in threads (at most one per item).

    ``workers``: how many threads (default: one per usable core). Torch, BLAS and OpenMP run one
    thread each meanwhile (see the module's docstring). Each call runs in a copy of the caller's
    ``contextvars`` context, so it sees what the caller set there (the report's device). An
    exception in any call is raised here.
    """
    work = list(items)
    if not work:
        return []

    def one(item: T) -> R:
        with threadpool_limits(limits=1, user_api="openmp"):
            return function(item)

    calls = [(contextvars.copy_context(), item) for item in work]
    with one_thread_each(), ThreadPoolExecutor(min(workers or usable_cores(), len(work))) as pool:
        return list(pool.map(lambda call: call[0].run(one, call[1]), calls))
