"""When is a headline clearly worse than its reference? One rule per headline, declared by its section.

Page 1's verdicts, the section pages' highlighting and the alarms all ask a headline's rule, so a
number is "bad" in one way only. Each rule reads the headline alone (its value, reference, unit,
direction, tolerance and interval):

- ``BelowReference``: a 0-100 score more than ``SCORE_MARGIN`` points (or the headline's own
  tolerance, where it states a wider one) worse than its reference (the same measure between two
  real samples); no reference, no judgement.
- ``AwayFromReference``: the same on either side, for the numbers where closer to the reference is
  better (alpha-precision, beta-recall).
- ``ShareAboveReference``: a share (exact copies, rows at risk) above both twice its reference and
  its reference plus ``SHARE_MARGIN`` (``share_clearly_above``), and above it by more than the
  headline's own tolerance where it states one.
- ``BeyondLevel``: an attack's number (AUC, epsilon bound) beyond its chance level (or 0) by more
  than its own tolerance.
- ``IntervalAboveZero``: an attack's risk whose 95% interval lies above ``SHARE_MARGIN``.

The margins are the verdict's: 10 points of a 0-100 score and 1 point of a share are departures a
reader sees as real, well beyond the sampling noise of the references on the bundled data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from reportgen.results import Headline

SCORE_MARGIN = 10.0
SHARE_MARGIN = 0.01


class Rule(Protocol):
    """Says whether a headline is clearly worse than its reference, and how, in words."""

    def worse(self, h: Headline) -> bool: ...

    def describe(self) -> str: ...


def share_clearly_above(share: float, reference: float) -> bool:
    """Whether a share (exact copies, rows at risk) is clearly above its reference.

    Clearly: above both twice the reference and the reference plus ``SHARE_MARGIN``.
    """
    return share > max(2 * reference, reference + SHARE_MARGIN)


def _shortfall(h: Headline, reference: float) -> float:
    """How far the value falls short of ``reference`` in the headline's bad direction."""
    return reference - h.value if h.higher_is_better else h.value - reference


@dataclass(frozen=True)
class BelowReference:
    """A score worse than its reference by more than ``margin`` points, or its own wider tolerance."""

    margin: float = SCORE_MARGIN

    def worse(self, h: Headline) -> bool:
        margin = max(self.margin, h.tolerance or 0.0)
        return h.reference is not None and _shortfall(h, h.reference) > margin

    def describe(self) -> str:
        return f"more than {self.margin:g} points (or its own wider tolerance) worse than its reference"


@dataclass(frozen=True)
class AwayFromReference:
    """A score further than ``margin`` points from its reference, on either side."""

    margin: float = SCORE_MARGIN

    def worse(self, h: Headline) -> bool:
        return h.reference is not None and abs(h.value - h.reference) > self.margin

    def describe(self) -> str:
        return f"more than {self.margin:g} points from its reference, on either side"


@dataclass(frozen=True)
class ShareAboveReference:
    """A share above both twice its reference and its reference plus ``SHARE_MARGIN``."""

    def worse(self, h: Headline) -> bool:
        if h.reference is None:
            return False
        return share_clearly_above(h.value, h.reference) and h.value - h.reference > (h.tolerance or 0.0)

    def describe(self) -> str:
        return (
            f"above both twice its reference and its reference plus {100 * SHARE_MARGIN:g} point "
            "(or its own wider tolerance)"
        )


@dataclass(frozen=True)
class BeyondLevel:
    """A number beyond its level (its reference, or 0 without one) by more than its tolerance."""

    def worse(self, h: Headline) -> bool:
        return _shortfall(h, h.reference or 0.0) > (h.tolerance or 0.0)

    def describe(self) -> str:
        return "beyond its chance level (or 0) by more than its own tolerance"


@dataclass(frozen=True)
class IntervalAboveZero:
    """A risk whose interval lies entirely above ``margin``."""

    margin: float = SHARE_MARGIN

    def worse(self, h: Headline) -> bool:
        return h.interval is not None and h.interval[0] > self.margin

    def describe(self) -> str:
        return f"its 95% interval lies above {100 * self.margin:g}%"
