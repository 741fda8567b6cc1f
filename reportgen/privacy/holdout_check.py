"""Whether the generator saw the holdout: holdout rows the synthetic data repeats, against chance.

The attacks and the holdout references assume that the generator never saw the holdout ``H``. If it
did (a holdout split off after fitting, or fitted on everything), copies of holdout rows make ``H``
look like training data and every attack reads "at chance". What isolates "saw ``H``": a generator
that never saw ``H`` can only reproduce a holdout row by coincidence, and its copies of training
rows are, seen from ``H``, just another independent real sample. So the synthetic rows ``S`` are
compared with an independent real sample of the same size, seen from ``H``:

- ``T2``: a seeded sample of ``m = min(|S|, |T|)`` training rows; ``S_m``: ``m`` synthetic rows
  (all of them when ``|S| <= |T|``), so that both sets have the same size (coincidences grow with
  a set's size);
- exact: ``c(H, S_m)``, the share of holdout rows with a verbatim equal in ``S_m`` (every column of
  the distance space, values as given, as the exact copies are counted), against ``c(H, T2)``; and,
  for context, the training rows' own rate ``c(T1, S_m)``, ``T1`` a seeded sample of ``|H|``
  training rows taken outside ``T2`` first;
- the decision: ``H``'s rate is clearly above the real sample's. A one-sided exact McNemar test on
  the distinct holdout rows whose outcomes differ (equal in ``S_m`` only, against equal in ``T2``
  only; identical holdout rows count once, as they share their outcome) at level ``LEVEL``, and a
  minimum effect: at least ``MIN_EXCESS`` above ``c(H, T2)`` and ``MIN_RATIO`` times it. With few
  possible rows (three categories, 40 combinations) every holdout row has an equal anywhere and
  ``c(H, T2)`` is near 1, so nothing can exceed it by the minimum effect: coincidences there say
  nothing about who saw what;
- close (shown, not decisive): the share of holdout rows whose nearest synthetic row is closer than
  their nearest row of ``T2`` (ties count half), beside the same share for ``T1`` (its own row left
  out of ``T2`` by position). Measured on adult, an honest generator's share is far below the 0.5
  of an independent sample (0.01 to 0.24: its rows are farther from real rows than real rows are),
  and a set that repeats 28% of the holdout rows verbatim reaches only 0.51 (CTGAN's set with 14%
  holdout and 14% training rows mixed in, ``benchmarks/bench_holdout_check.py``); equal shares for
  holdout and training rows fit both a generator that memorised both and one that memorised neither.
  So closeness cannot tell "saw the holdout" apart; only a holdout share well below the training
  rows' says that the generator memorised training rows and not holdout rows.

A holdout that overlaps the training rows (``holdout_overlap``) is judged the same way: how many
holdout rows equal a training row, against how many training rows set aside equal one of the other
training rows (see ``holdout_overlap``).

Every search is read from the privacy section's ``ProximitySearches`` (the shared neighbour lists,
where they exist), so the closeness costs little beyond the section's own searches.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd
from pydantic import BaseModel, Field
from scipy.stats import binomtest, fisher_exact

from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.privacy.distance_space import EmbeddedRows
from reportgen.privacy.proximity import ProximitySearches, copied_rows

LEVEL = 0.001  # one-sided: a false alarm blames the user's pipeline, so the level is strict
MIN_EXCESS = 0.01  # at least 1 percentage point more holdout rows repeated than by a real sample
MIN_RATIO = 1.5  # and at least 1.5 times as many
OVERLAP_EXCESS = 0.1  # holdout rows equal to a training row beyond chance by this share: the split leaked
SET_ASIDE = 4  # a quarter of the training rows (|H| at most) set aside as an independent real sample


class HoldoutCheck(BaseModel):
    """Holdout rows repeated by the synthetic data, against an independent real sample of its size."""

    holdout_rows: int = Field(description="Holdout rows compared (|H|).")
    sample_rows: int = Field(description="Rows m of the synthetic set and of the real sample T2 compared.")
    training_rows: int = Field(description="Training rows T1 whose own rate is shown (|H| at most).")
    holdout_in_synthetic: float = Field(
        ge=0, le=1, description="Share of holdout rows with a verbatim equal among the m synthetic rows."
    )
    holdout_in_real_sample: float = Field(
        ge=0, le=1, description="Share of holdout rows with a verbatim equal among m training rows (T2)."
    )
    training_in_synthetic: float = Field(
        ge=0, le=1, description="Share of training rows T1 with a verbatim equal among the m synthetic rows."
    )
    only_synthetic: int = Field(
        description="Distinct holdout rows equal to a synthetic row but to no T2 row."
    )
    only_real_sample: int = Field(
        description="Distinct holdout rows equal to a T2 row but to no synthetic row."
    )
    p_value: float = Field(ge=0, le=1, description="One-sided exact McNemar test on those two counts.")
    holdout_closer: float = Field(
        ge=0, le=1, description="Share of holdout rows nearer the synthetic rows than T2 (ties half)."
    )
    training_closer: float = Field(
        ge=0, le=1, description="The same share for the training rows T1 (own row left out of T2)."
    )
    seen: bool = Field(description="Whether the synthetic data repeats holdout rows clearly beyond chance.")

    @property
    def excess(self) -> float:
        """How much more often holdout rows are repeated than an independent real sample repeats them."""
        return self.holdout_in_synthetic - self.holdout_in_real_sample


def holdout_check(
    rows: EmbeddedRows,
    frames: Mapping[str, pd.DataFrame],
    rng: np.random.Generator,
    searches: ProximitySearches,
) -> HoldoutCheck:
    """The holdout check of one table or view (it needs a holdout: ``rows.test`` and ``frames[TEST]``).

    ``frames`` holds each role's rows with the distance space's columns as given, in the order of
    ``rows``; ``searches`` the nearest-neighbour searches of the same rows.
    """
    assert rows.test is not None, "the holdout check needs a holdout"
    n_train, n_synth, n_holdout = len(rows.train), len(rows.synth), len(rows.test)
    m = min(n_synth, n_train)
    synth = np.arange(n_synth) if n_synth == m else np.sort(rng.choice(n_synth, m, replace=False))
    order = rng.permutation(n_train)
    real_sample = np.sort(order[:m])
    training = np.sort(np.concatenate([order[m:], order[:m]])[: min(n_holdout, n_train)])
    synthetic = frames[SYNTH].iloc[synth]
    exact = exact_test(frames[TEST], synthetic, frames[TRAIN].iloc[real_sample])
    every = np.arange(n_holdout)
    assert searches.test_synth is not None and searches.test_train is not None
    return HoldoutCheck(
        holdout_rows=n_holdout,
        sample_rows=m,
        training_rows=len(training),
        holdout_in_synthetic=exact.rate,
        holdout_in_real_sample=exact.expected,
        training_in_synthetic=float(copied_rows(frames[TRAIN].iloc[training], synthetic).mean()),
        only_synthetic=exact.only_synthetic,
        only_real_sample=exact.only_real_sample,
        p_value=exact.p_value,
        holdout_closer=_closer(
            searches.test_synth.nearest(every, synth), searches.test_train.nearest(every, real_sample)
        ),
        training_closer=_closer(
            searches.train_synth.nearest(training, synth), searches.train_train.nearest(training, real_sample)
        ),
        seen=exact.seen,
    )


class ExactTest(NamedTuple):
    """Holdout rows repeated verbatim by the synthetic rows and by a real sample of the same size."""

    rate: float  # share of holdout rows with an equal among the synthetic rows
    expected: float  # the same share for the real sample
    only_synthetic: int  # distinct holdout rows with an equal among the synthetic rows only
    only_real_sample: int  # and among the real sample only
    p_value: float  # one-sided exact McNemar test on those two counts

    @property
    def seen(self) -> bool:
        return saw_holdout(self.rate, self.expected, self.p_value)


def exact_test(holdout: pd.DataFrame, synthetic: pd.DataFrame, real_sample: pd.DataFrame) -> ExactTest:
    """The exact comparison of the holdout check on rows as given (same columns in every frame).

    Identical holdout rows share their outcome, so the discordant rows are counted once per
    distinct holdout row.
    """
    in_synth, in_sample = copied_rows(holdout, synthetic), copied_rows(holdout, real_sample)
    first = ~holdout.duplicated().to_numpy()
    only_synth = int((in_synth & ~in_sample & first).sum())
    only_sample = int((in_sample & ~in_synth & first).sum())
    rate = float(in_synth.mean()) if len(holdout) else 0.0
    expected = float(in_sample.mean()) if len(holdout) else 0.0
    return ExactTest(rate, expected, only_synth, only_sample, _mcnemar(only_synth, only_sample))


def saw_holdout(rate: float, expected: float, p_value: float) -> bool:
    """Whether holdout rows are repeated clearly beyond chance: significant and a minimum effect."""
    return p_value < LEVEL and rate - expected >= MIN_EXCESS and rate >= MIN_RATIO * expected


def _mcnemar(only_synth: int, only_sample: int) -> float:
    """P(at least ``only_synth`` of the discordant rows fall on the synthetic side | each side 1/2)."""
    n = only_synth + only_sample
    return 1.0 if n == 0 else float(binomtest(only_synth, n, 0.5, alternative="greater").pvalue)


def _closer(to_synth: np.ndarray, to_sample: np.ndarray) -> float:
    """Share of rows whose nearest synthetic row is nearer than their nearest real-sample row (ties half)."""
    return float(np.mean((to_synth < to_sample) + 0.5 * (to_synth == to_sample)))


class HoldoutOverlap(BaseModel):
    """Holdout rows equal to a training row, against training rows set aside that equal the others."""

    holdout_rows: int = Field(description="Holdout rows compared (|H|).")
    set_aside_rows: int = Field(description="Training rows Ta set aside as an independent real sample.")
    kept_rows: int = Field(description="The other training rows Tb, which both are compared with.")
    holdout_in_training: float = Field(
        ge=0, le=1, description="Share of holdout rows with a verbatim equal among the Tb rows."
    )
    set_aside_in_training: float = Field(
        ge=0, le=1, description="Share of the Ta rows with a verbatim equal among the Tb rows (chance)."
    )
    p_value: float = Field(ge=0, le=1, description="One-sided Fisher exact test of the two shares.")
    leaked: bool = Field(description="Whether holdout rows equal training rows clearly beyond chance.")


def holdout_overlap(holdout: pd.DataFrame, train: pd.DataFrame, rng: np.random.Generator) -> HoldoutOverlap:
    """Whether the holdout repeats training rows beyond what an independent real sample repeats.

    On data with few possible rows (a few categorical columns) every row has an equal anywhere,
    so a raw share says nothing: the training rows are cut at random into ``Ta`` (a quarter, ``|H|``
    at most) and ``Tb``; under an honest split ``H`` and ``Ta`` are independent samples of the same
    data, equally likely to equal a ``Tb`` row, so the two shares are compared by a one-sided
    Fisher exact test at ``LEVEL`` with a minimum excess of ``OVERLAP_EXCESS``. Frames hold the
    distance space's columns as given, as the exact copies are counted.
    """
    n_set_aside = min(len(holdout), len(train) // SET_ASIDE)
    order = rng.permutation(len(train))
    set_aside, kept = train.iloc[np.sort(order[:n_set_aside])], train.iloc[np.sort(order[n_set_aside:])]
    in_kept, chance = copied_rows(holdout, kept), copied_rows(set_aside, kept)
    rate = float(in_kept.mean()) if len(holdout) else 0.0
    expected = float(chance.mean()) if n_set_aside else 0.0
    p_value = _fisher(int(in_kept.sum()), len(holdout), int(chance.sum()), n_set_aside)
    return HoldoutOverlap(
        holdout_rows=len(holdout),
        set_aside_rows=n_set_aside,
        kept_rows=len(kept),
        holdout_in_training=rate,
        set_aside_in_training=expected,
        p_value=p_value,
        leaked=p_value < LEVEL and rate - expected >= OVERLAP_EXCESS,
    )


def _fisher(hits: int, n: int, chance_hits: int, n_chance: int) -> float:
    """P(the holdout's share is at least this high | both samples equally likely to hit), one-sided."""
    if n == 0 or n_chance == 0:
        return 1.0
    table = [[hits, n - hits], [chance_hits, n_chance - chance_hits]]
    return float(fisher_exact(table, alternative="greater").pvalue)
