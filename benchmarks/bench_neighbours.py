"""Timings of the distance space and the exact neighbour engine against a plain float32 product.

Run: python benchmarks/bench_neighbours.py [--quick] [--generator ctgan]
(needs ../shared/datasets; --quick skips the 200,000 x 200,000 memory run, which takes a minute
or two; --memory-only runs only that, at 125 features, adult's dimensionality here)

Prints, for adult (32,561 synthetic rows against 32,561 training rows):
- the time to fit the distance space and embed both sets;
- the time of an exact 1-NN search (best of 3) at 1 and at 2 worker threads, and scikit-learn's
  brute force for reference;
- the time of a plain float32 product of the same shapes (NumPy and torch, in the engine's
  blocks at 1 and 2 threads, and whole at 2 threads), the fastest of which is the baseline, and
  the ratio of the fastest search to it;
- the same search and baseline while a busy loop occupies one core;
- in a fresh subprocess, time and peak resident memory of a 1-NN search of 200,000 random rows
  against 200,000 random rows of the adult dimensionality.
Search and baseline repetitions are interleaved, so a change in the machine's load hits both.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import torch
from adult import DATASETS, read  # benchmarks/adult.py
from sklearn.neighbors import NearestNeighbors
from threadpoolctl import threadpool_limits

import reportgen as rg
from reportgen.privacy.distance_space import DistanceSpace
from reportgen.privacy.neighbours import CPU_CHUNK_ROWS, knn

REPEAT = 3


def best_of(fn: Callable[[], object], repeat: int = REPEAT) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def embed(generator: str) -> tuple[np.ndarray, np.ndarray, float]:
    train = read(DATASETS / "adult" / "adult_train.csv")
    synth = read(DATASETS / "adult" / "synthetic" / generator / "adult_train.csv.gz")
    data = rg.RelationalData(train)
    kinds = dict(data.schema[next(iter(data.schema))].kinds)
    start = time.perf_counter()
    space = DistanceSpace.fit(train, kinds, others=[synth])
    real, fake = space.transform(train), space.transform(synth)
    return real, fake, time.perf_counter() - start


@contextlib.contextmanager
def threads(n: int) -> Iterator[None]:
    previous = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        with threadpool_limits(limits=n, user_api="blas"):
            yield
    finally:
        torch.set_num_threads(previous)


def block_products(q: np.ndarray, r: np.ndarray) -> dict[str, Callable[[], object]]:
    """Plain float32 products of the search's shapes, in the engine's blocks (result reused)."""
    qt, rt = torch.from_numpy(q), torch.from_numpy(r)
    step = CPU_CHUNK_ROWS
    out = np.empty((step, step), np.float32)

    def numpy_blocks() -> None:
        for i in range(0, len(q), step):
            for j in range(0, len(r), step):
                a, b = q[i : i + step], r[j : j + step]
                np.matmul(a, b.T, out=out[: len(a), : len(b)] if len(a) == len(b) == step else None)

    def torch_blocks() -> None:
        for i in range(0, len(q), step):
            for j in range(0, len(r), step):
                _ = qt[i : i + step] @ rt[j : j + step].T

    return {"numpy blocks": numpy_blocks, "torch blocks": torch_blocks}


def whole_products(q: np.ndarray, r: np.ndarray) -> dict[str, float]:
    """The same products in one call each (a 4.2 GB result for adult): timed once, 2 threads."""
    qt, rt = torch.from_numpy(q), torch.from_numpy(r)
    with threads(2):
        return {
            "numpy whole, 2 thread(s)": best_of(lambda: q @ r.T, 1),
            "torch whole, 2 thread(s)": best_of(lambda: qt @ rt.T, 1),
        }


def compare(q: np.ndarray, r: np.ndarray, label: str) -> None:
    """Interleaved best-of timings of the search and of every baseline product."""
    search = {f"knn k=1, {n} worker thread(s)": (lambda n=n: knn(q, r, k=1, n_threads=n)) for n in (1, 2)}
    base = {f"{name}, {n} thread(s)": (n, fn) for n in (1, 2) for name, fn in block_products(q, r).items()}
    times = {name: float("inf") for name in [*search, *base]}
    for _ in range(REPEAT):
        for name, fn in search.items():
            times[name] = min(times[name], best_of(fn, 1))
        for name, (n, fn) in base.items():
            with threads(n):
                times[name] = min(times[name], best_of(fn, 1))
    print(f"\n{label}: {len(q):,} x {len(r):,} rows, {q.shape[1]} features (best of {REPEAT})")
    times |= whole_products(q, r)
    for name, seconds in times.items():
        print(f"  {name:<42} {seconds:7.2f} s")
    fastest = min((name for name in times if name not in search), key=times.__getitem__)
    best_search = min(search, key=times.__getitem__)
    flops = 2 * len(q) * len(r) * q.shape[1]
    print(f"  baseline = {fastest}: {times[fastest]:.2f} s ({flops / times[fastest] / 1e9:.0f} GFLOP/s)")
    print(
        f"  search / baseline = {times[best_search] / times[fastest]:.2f} "
        f"(best search: {best_search}, {times[best_search]:.2f} s)"
    )


@contextlib.contextmanager
def busy_core() -> Iterator[None]:
    """A busy loop pinned to core 0 for the duration."""
    child = subprocess.Popen(
        [sys.executable, "-c", "import os; os.sched_setaffinity(0, {0})\nwhile True: pass"]
    )
    try:
        time.sleep(0.5)
        yield
    finally:
        child.kill()
        child.wait()


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far (VmHWM: exact for this process, unlike ru_maxrss,
    which a child can inherit from the parent that started it)."""
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def memory_child(n: int, d: int) -> None:
    """Runs in a fresh process: one 1-NN search of n random rows against n, then time and memory."""
    rng = np.random.default_rng(0)
    q, r = rng.random((n, d), np.float32), rng.random((n, d), np.float32)
    before = peak_rss_mb()
    start = time.perf_counter()
    knn(q, r, k=1)
    seconds = time.perf_counter() - start
    print(f"{seconds:.1f} {before:.0f} {peak_rss_mb():.0f}")


def memory_run(n: int, d: int) -> None:
    command = [sys.executable, __file__, "--memory-child", str(n), str(d)]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout.split()
    seconds, before, peak = (float(v) for v in out)
    data_mb = 2 * n * d * 4 / 2**20
    print(f"\n1-NN of {n:,} x {n:,} random rows, {d} features, default settings (fresh process):")
    print(f"  time {seconds:.1f} s; peak RSS {peak:.0f} MB (before the search {before:.0f} MB, of which")
    print(f"  the two input arrays {data_mb:.0f} MB); the search itself added {peak - before:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="skip the 200,000-row memory run")
    parser.add_argument("--memory-only", action="store_true", help="only the 200,000-row memory run")
    parser.add_argument("--generator", default="ctgan")
    parser.add_argument("--memory-child", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(*args.memory_child)
        return
    print(f"cores usable: {len(os.sched_getaffinity(0))}; load average: {os.getloadavg()[0]:.2f}")
    if args.memory_only:
        memory_run(200_000, 125)
        return
    real, synth, seconds = embed(args.generator)
    print(f"adult: DistanceSpace fit + transform of train and {args.generator}: {seconds:.2f} s")
    print(f"distance space: {real.shape[1]} features")

    model = NearestNeighbors(n_neighbors=1, algorithm="brute").fit(real)
    print(
        f"scikit-learn brute force 1-NN, for reference: {best_of(lambda: model.kneighbors(synth), 1):.2f} s"
    )
    distances, _ = knn(synth, real, k=1)
    print(f"synthetic rows at distance 0 from a training row: {int((distances[:, 0] == 0).sum()):,}")
    within = best_of(lambda: knn(real, k=1), 1)
    print(f"exact 1-NN of the training rows within themselves (self excluded by index): {within:.2f} s")
    compare(synth, real, "adult, machine as it is")
    with busy_core():
        compare(synth, real, "adult, with a busy loop on core 0")
    if not args.quick:
        memory_run(200_000, real.shape[1])


if __name__ == "__main__":
    main()
