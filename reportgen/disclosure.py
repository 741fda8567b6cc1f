"""Which real values the report may print: the no-leak rule, in one place.

A value of a real column may be printed (in a plot's labels, a finding, a notice, a table, the
JSON) only when at least ``min_count`` training rows hold it (``ReportSettings.min_category_count``,
10 by default). A rarer value could single out a person: a class held by 3 patients, a city with
one customer. Values that no training row holds (seen only in the holdout or the synthetic data)
are not printed either: a holdout value is real too, and a synthetic one may copy a real record
outside the training rows. Such values are counted, never named ("2 classes held by fewer than 10
training rows, not named").

The distribution plots pool the same values into "(other)" (``shown_levels`` in
``reportgen.metrics.distributions`` builds on ``frequent_counts``); every message that names
values builds on ``Disclosure``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from reportgen.render.formatting import sentence

WITHHELD = "(a value too rare to print)"


def frequent_counts(real: pd.Series | np.ndarray, min_count: int) -> pd.Series:
    """Training rows per printable value (as text): the values held by at least ``min_count`` rows."""
    counts = pd.Series(real).dropna().astype("string").value_counts()
    return counts[counts >= min_count]


@dataclass(frozen=True)
class Disclosure:
    """The printable values of one real column, and the words for the rest."""

    printable: frozenset[str]
    min_count: int

    @classmethod
    def of(cls, real: pd.Series | np.ndarray, min_count: int) -> Disclosure:
        """The rule for a column, from its real training values."""
        return cls(frozenset(frequent_counts(real, min_count).index), min_count)

    def allows(self, value: object) -> bool:
        """Whether ``value`` may be printed."""
        return str(value) in self.printable

    def split(self, values: Iterable[object]) -> tuple[list[str], int]:
        """The printable values (as text, in order) and how many others there were."""
        texts = [str(v) for v in values]
        shown = [t for t in texts if t in self.printable]
        return shown, len(texts) - len(shown)

    def name(self, values: Sequence[object], noun: tuple[str, str], limit: int = 5) -> str:
        """The values in words: "Classes 'a', 'b' and 2 classes held by fewer than 10 training rows (...)".

        ``noun`` is the singular and the plural; at most ``limit`` values are named.
        """
        shown, hidden = self.split(values)
        parts = []
        if shown:
            more = f" and {len(shown) - limit} more" if len(shown) > limit else ""
            listed = ", ".join(repr(v) for v in shown[:limit])
            parts.append(f"{_counted(noun, len(shown))} {listed}{more}")
        if hidden:
            parts.append(f"{hidden} {_counted(noun, hidden)} {self.rare_words()}")
        return sentence(" and ".join(parts))

    def rare_words(self) -> str:
        """Why a value is not named, in words."""
        return f"held by fewer than {self.min_count} training rows (not named: no rare real value is printed)"

    def scrub(self, text: str, values: Iterable[object]) -> str:
        """``text`` with every quoted value of ``values`` that may not be printed replaced by ``WITHHELD``.

        For messages that come from elsewhere (a library's error) and may quote a value.
        """
        for value in {str(v) for v in values} - self.printable:
            text = re.sub(rf"(['\"]){re.escape(value)}\1", WITHHELD, text)
        return text


def _counted(noun: tuple[str, str], n: int) -> str:
    return noun[0] if n == 1 else noun[1]
