"""Work spread over threads: results in order, one native thread each inside, counts restored after."""

from __future__ import annotations

import threading

import pytest
import torch
from threadpoolctl import threadpool_info, threadpool_limits

from reportgen.threads import map_in_threads


def native_threads() -> dict[str, int]:
    """The thread count of each native pool (BLAS, OpenMP) loaded in this process, by library file."""
    return {pool["filepath"]: pool["num_threads"] for pool in threadpool_info()}


def test_work_runs_in_order_on_worker_threads_each_on_one_native_thread():
    def inside(i: int) -> tuple[int, dict[str, int], int, bool]:
        return (
            i * i,
            native_threads(),
            torch.get_num_threads(),
            threading.current_thread() is threading.main_thread(),
        )

    previous = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        with threadpool_limits(limits=2):  # what the caller runs with, to be restored
            outside = native_threads()
            found = map_in_threads(inside, range(7))
            assert native_threads() == outside and torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(previous)
    assert [square for square, *_ in found] == [i * i for i in range(7)]
    for _, pools, torch_threads, on_main_thread in found:
        assert set(pools.values()) <= {1} and torch_threads == 1 and not on_main_thread


def test_an_error_in_one_item_reaches_the_caller():
    with pytest.raises(ZeroDivisionError):
        map_in_threads(lambda i: 1 / i, [1, 0, 2])
    assert map_in_threads(lambda i: i, []) == []
