"""Work computed from the real data alone, kept to be reused by the evaluation of another candidate.

``reportgen.compare_candidates`` judges several synthetic datasets against the same training and
holdout rows. Some of what the sections compute reads no synthetic row: the real-to-real and
holdout-to-real neighbour lists of the privacy section, the one-class network of the sample-level
section, the detection test of training against holdout rows, the utility models trained on real
rows. A ``RealSide`` keeps each such result under its purpose and a digest of every input it was
computed from (arrays, frames, settings, the seed of its random stream), so a result is reused
exactly where it would otherwise be recomputed from the same inputs: sharing cannot change a
number, and a computation whose inputs differ between candidates (a distance space with a missing
indicator that one synthetic dataset needs) is simply computed again. One report has a ``RealSide``
of its own, which reuses nothing.

Kept results are shared between evaluations, so their users treat them as read-only.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import pandas as pd

T = TypeVar("T")


class RealSide:
    """Results computed from real data only, by purpose and digest of their inputs (thread-safe)."""

    def __init__(self) -> None:
        self._kept: dict[tuple[str, str], Any] = {}
        self._lock = threading.Lock()
        self.reused = 0
        """How many results were reused instead of computed (what ``compare_candidates`` saved)."""

    def result(self, purpose: str, inputs: Sequence[object], compute: Callable[[], T]) -> T:
        """``compute()``, or the result kept from an earlier call with the same purpose and inputs.

        ``inputs`` must hold everything the result depends on (``digest`` reads arrays, frames,
        mappings, sequences and plain values); ``compute`` must read nothing else.
        """
        key = (purpose, digest(inputs))
        with self._lock:
            if key in self._kept:
                self.reused += 1
                return self._kept[key]
        value = compute()
        with self._lock:
            return self._kept.setdefault(key, value)

    def __len__(self) -> int:
        return len(self._kept)


def digest(inputs: Sequence[object]) -> str:
    """A digest of values, arrays and frames (equal inputs give equal digests; types count)."""
    sha = hashlib.blake2b(digest_size=20)
    _feed(sha, list(inputs))
    return sha.hexdigest()


def _feed(sha: Any, value: object) -> None:
    if isinstance(value, pd.DataFrame):
        sha.update(repr(("frame", list(value.columns), [str(d) for d in value.dtypes], value.shape)).encode())
        sha.update(pd.util.hash_pandas_object(value, index=True).to_numpy().tobytes())
    elif isinstance(value, pd.Series):
        sha.update(repr(("series", value.name, str(value.dtype), len(value))).encode())
        sha.update(pd.util.hash_pandas_object(value, index=True).to_numpy().tobytes())
    elif isinstance(value, np.ndarray):
        sha.update(repr(("array", value.dtype.str, value.shape)).encode())
        if value.dtype.hasobject:
            sha.update(pd.util.hash_array(value.ravel()).tobytes())
        else:
            sha.update(np.ascontiguousarray(value).tobytes())
    elif isinstance(value, Mapping):
        sha.update(b"mapping")
        for key, item in value.items():
            _feed(sha, key)
            _feed(sha, item)
    elif isinstance(value, (list, tuple)):
        sha.update(f"sequence{len(value)}".encode())
        for item in value:
            _feed(sha, item)
    elif value is None or isinstance(value, (str, int, float, bool, np.generic)):
        sha.update(repr((type(value).__name__, value)).encode())
    else:
        raise TypeError(f"cannot digest a {type(value).__name__}: pass its parts (arrays, values)")
