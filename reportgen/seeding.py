"""One way to derive randomness: every purpose gets its own stream, all from the report's seed.

Streams are keyed by a purpose's name, not by call order, so adding or reordering sections never
changes the numbers of another section.
"""

from __future__ import annotations

import zlib

import numpy as np


def derived_seed(seed: int, purpose: str) -> int:
    """A 32-bit seed for ``purpose``, derived from the report's ``seed``."""
    sequence = np.random.SeedSequence([seed, zlib.crc32(purpose.encode())])
    return int(sequence.generate_state(1)[0])


def derived_rng(seed: int, purpose: str) -> np.random.Generator:
    """A generator for ``purpose``, derived from the report's ``seed``."""
    return np.random.default_rng(derived_seed(seed, purpose))
