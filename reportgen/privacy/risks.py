"""Singling out, linkability and attribute inference as attacks, with the holdout as control.

The three criteria of the Article 29 Working Party (Opinion 05/2014) as Giomi et al. (PETS 2023)
turn them into attacks, and as anonymeter 1.1 implements them (METRICS.md section 13). The attacker
holds the synthetic data ``S``. Each attack runs against training rows (members: the generator saw
them) and against as many holdout rows (controls: real rows it never saw). What an attack achieves
on controls is what any data from the same population gives away, so the risk is the excess

    risk = (r_members - r_controls) / (1 - r_controls)

- **Singling out**: predicates built from ``S`` (``age >= 71 and sex == F and race == X``) that match
  exactly one synthetic row; an attack succeeds when its predicate matches exactly one row of the
  target population. Multivariate mode (as anonymeter): a random synthetic row and
  ``PREDICATE_COLUMNS`` random columns, each condition ``==`` its value (categories, missing as
  "is missing"), or ``>=`` / ``<=`` it for numbers above / at most the synthetic median. Univariate
  mode: one column, a value held by one synthetic row, a lone missing value, or ``<= min`` /
  ``>= max``. Populations are distinct rows (as anonymeter), every distinct holdout row and as many
  distinct training rows (a seeded sample): equal sizes, so no size correction is needed.
- **Linkability**: the columns are split into two sets; each target's two halves are searched among
  the synthetic rows (``N_NEIGHBOURS`` nearest on each set's columns); the attack links the halves
  when the two neighbour sets share a row.
- **Inference**: for a secret column, the target's value is guessed as that of its nearest
  synthetic row on every other column; right when equal (categories, and missing for missing) or,
  for numbers, within ``TOLERANCE`` of the guess (``|guess - value| <= 0.05 |guess|``, anonymeter's
  rule; datetimes within 0.05 of the training data's 1st-99th percentile range).

Baselines: random predicates (random columns, values and operators, as anonymeter), two random
neighbour sets, a random synthetic row's value: an attack that does no better than its baseline
says nothing.

Intervals (anonymeter's): each success rate gets the Wilson score interval, written as its centre
``p~ = (k + z^2/2) / (n + z^2)`` and half-width ``e = z / (n + z^2) sqrt(k (n - k) / n + z^2 / 4)``.
The risk is computed from the two centres, and its half-width propagates the two half-widths to
first order: ``sqrt((e_m / (1 - p~_c))^2 + (e_c (p~_m - 1) / (1 - p~_c)^2)^2)``; the risk and its
interval are then clipped to [0, 1]. A report puts every risk interval at one level that covers all
of them together (``with_risk_confidence``; ``reportgen.metrics.privacy_risks`` says which).

Neighbour searches run on the shared exact engine (``neighbours.knn``) in the shared distance
space: squared distance there is the number of differing categories plus the squared differences of
the scaled numbers, a mixed distance like anonymeter's Gower-like one (which sums absolute
differences of min-max scaled numbers). Ties are broken at random (the synthetic rows are shuffled,
seeded, before each search), as an attacker facing equally near rows would.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations, pairwise
from math import comb, sqrt
from typing import Literal

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field
from scipy.stats import norm

from reportgen.data.roles import SYNTH, TEST, TRAIN
from reportgen.data.schema import ColumnKind
from reportgen.privacy.distance_space import DistanceSpace, NumericEncoding, category_labels, column_numbers
from reportgen.privacy.neighbours import knn
from reportgen.settings import MIN_RISK_ATTACKS, N_RISK_ATTACKS

CONFIDENCE = 0.95
N_ATTACKS = N_RISK_ATTACKS  # targets per side (linkability, inference), predicates per singling-out mode
N_NEIGHBOURS = 10  # linkability: nearest synthetic rows per half
PREDICATE_COLUMNS = 3  # columns of a multivariate singling-out predicate (anonymeter's default)
TOLERANCE = 0.05  # numeric inference: relative to the guess (anonymeter's default)
MAX_SECRETS = 10  # inference: secrets per table when the user names none
MAX_CANDIDATES = 250_000  # multivariate singling out: candidate predicates tried at most, per table
MIN_TARGETS = MIN_RISK_ATTACKS  # fewer targets per side make every interval uninformative

Attack = Literal["singling_out", "linkability", "inference"]
_MISSING = -1  # the code of a missing value
_NOTHING = -2  # a code no value has
_TOP = np.int32(np.iinfo(np.int32).max)
_STAGES = (16, 64, 256, 1024, 4096, 16384)  # prefixes of the shuffled synthetic rows checked first
_BATCH = 4096  # candidate predicates generated at a time
_CELLS = 1 << 22  # predicate x row cells per counting step (4 MB per boolean mask)


# --- rates, intervals and the risk ------------------------------------------------------------


class SuccessRate(BaseModel):
    """How often one attack succeeded on one set of targets, with its Wilson interval."""

    model_config = ConfigDict(frozen=True)

    successes: int = Field(ge=0)
    attacks: int = Field(ge=1)
    rate: float = Field(ge=0, le=1, description="successes / attacks")
    interval: tuple[float, float] = Field(description="Wilson score interval at the attack's confidence.")


class AttackResult(BaseModel):
    """One attack (a mode, a secret) on members, controls and at random: counts, rates and the risk.

    Counts and rates only: no predicate value, guess or record is kept.
    """

    model_config = ConfigDict(frozen=True)

    attack: Attack
    detail: str = Field(description="Singling out: the mode; linkability: k; inference: the secret column.")
    known: list[list[str]] = Field(
        description="The columns the attacker uses: one list, or the two sets of linkability."
    )
    members: SuccessRate = Field(description="The attack on training rows (the generator saw them).")
    controls: SuccessRate = Field(description="The attack on holdout rows (real rows it never saw).")
    baseline: SuccessRate = Field(description="A random-guess attack on the training rows.")
    confidence: float = Field(
        gt=0,
        lt=1,
        description="Confidence level of the rates' intervals and of the Wilson centres of the risk.",
    )
    risk: float = Field(ge=0, le=1, description="(r_members - r_controls) / (1 - r_controls), clipped.")
    risk_interval: tuple[float, float]
    risk_confidence: float | None = Field(
        default=None,
        gt=0,
        lt=1,
        description=(
            "Confidence level of risk_interval: in a report, 1 - 5%/M for its M risk intervals, so that "
            "all hold together with 95% confidence. None: the same as confidence (results written "
            "before the report-wide correction)."
        ),
    )

    @property
    def beats_baseline(self) -> bool:
        """Whether the attack did better than random guessing on the members (anonymeter's check)."""
        return self.members.rate > self.baseline.rate


def wilson(successes: int, attacks: int, confidence: float) -> tuple[float, float]:
    """Centre and half-width of the Wilson score interval of ``successes`` out of ``attacks``."""
    z = float(norm.ppf(0.5 + confidence / 2))
    denominator = attacks + z * z
    centre = (successes + z * z / 2) / denominator
    half = z / denominator * sqrt(successes * (attacks - successes) / attacks + z * z / 4)
    return centre, half


def success_rate(successes: int, attacks: int, confidence: float) -> SuccessRate:
    """The rate ``successes / attacks`` with its Wilson interval."""
    centre, half = wilson(successes, attacks, confidence)
    return SuccessRate(
        successes=successes,
        attacks=attacks,
        rate=successes / attacks,
        interval=(max(0.0, centre - half), min(1.0, centre + half)),
    )


def excess_risk(members: SuccessRate, controls: SuccessRate, confidence: float) -> tuple[float, float]:
    """The risk from the two Wilson centres and its half-width by first-order error propagation.

    Unclipped (it may be negative when controls fare better); ``clipped`` bounds it to [0, 1].
    """
    p_m, e_m = wilson(members.successes, members.attacks, confidence)
    p_c, e_c = wilson(controls.successes, controls.attacks, confidence)
    risk = (p_m - p_c) / (1 - p_c)
    error = sqrt((e_m / (1 - p_c)) ** 2 + (e_c * (p_m - 1) / (1 - p_c) ** 2) ** 2)
    return risk, error


def risk_interval(members: SuccessRate, controls: SuccessRate, confidence: float) -> tuple[float, float]:
    """The risk's interval at ``confidence``: anonymeter's, from the two rates' Wilson intervals, clipped."""
    risk, error = excess_risk(members, controls, confidence)
    return _clip(risk - error), _clip(risk + error)


def attack_result(
    attack: Attack,
    detail: str,
    known: list[list[str]],
    counts: tuple[tuple[int, int], tuple[int, int], tuple[int, int]],
    confidence: float,
) -> AttackResult:
    """The result of an attack from its (successes, attacks) on members, controls and baseline."""
    members, controls, baseline = (success_rate(k, n, confidence) for k, n in counts)
    risk, _ = excess_risk(members, controls, confidence)
    return AttackResult(
        attack=attack,
        detail=detail,
        known=known,
        members=members,
        controls=controls,
        baseline=baseline,
        confidence=confidence,
        risk=_clip(risk),
        risk_interval=risk_interval(members, controls, confidence),
        risk_confidence=confidence,
    )


def with_risk_confidence(result: AttackResult, confidence: float) -> AttackResult:
    """The result with its risk interval at ``confidence`` instead (the risk itself unchanged).

    The report sets every risk interval to the level that makes all of them hold together
    (``reportgen.metrics.privacy_risks``); the risk stays the estimate at the attack's own level.
    """
    interval = risk_interval(result.members, result.controls, confidence)
    return result.model_copy(update={"risk_interval": interval, "risk_confidence": confidence})


def _clip(value: float) -> float:
    return min(max(value, 0.0), 1.0)


# --- the data the attacks read ----------------------------------------------------------------


@dataclass(frozen=True)
class AttackData:
    """A table or entity view as the attacks read it, per role (training, holdout, synthetic).

    ``codes``: (n, p) int32, each column's values numbered over every role together (numbers in
    value order, so ``>=`` on codes is ``>=`` on values), ``-1`` for missing; ``numbers``: (n, p)
    float64 values of the numeric columns (NaN elsewhere); ``embedded``: the distance-space rows,
    whose features of column ``j`` are ``features[j]``; ``scales``: the tolerance unit of a datetime
    column (its distance-space scale), ``None`` for the relative rule.
    """

    columns: tuple[str, ...]
    numeric: np.ndarray
    codes: Mapping[str, np.ndarray]
    numbers: Mapping[str, np.ndarray]
    embedded: Mapping[str, np.ndarray]
    features: tuple[slice, ...]
    scales: tuple[float | None, ...]

    @classmethod
    def build(
        cls,
        frames: Mapping[str, pd.DataFrame],
        kinds: Mapping[str, ColumnKind],
        space: DistanceSpace,
        embedded: Mapping[str, np.ndarray],
    ) -> AttackData:
        """From the canonical frames of the three roles and their rows in the fitted ``space``."""
        columns = tuple(space.columns)
        numeric = np.array([kinds[c].is_ordered for c in columns], bool)
        codes = {role: np.empty((len(f), len(columns)), np.int32) for role, f in frames.items()}
        numbers = {role: np.full((len(f), len(columns)), np.nan) for role, f in frames.items()}
        for j, c in enumerate(columns):
            if numeric[j]:
                values = {r: pd.Series(column_numbers(f[c], kinds[c], c)) for r, f in frames.items()}
                for role, x in values.items():
                    numbers[role][:, j] = x.to_numpy()
            else:
                values = {r: category_labels(f[c]) for r, f in frames.items()}
            for role, shared in _shared_codes(values, ordered=bool(numeric[j])).items():
                codes[role][:, j] = shared
        widths = np.cumsum([0] + [len(e.feature_names) for e in space.encodings])
        features = tuple(slice(int(a), int(b)) for a, b in pairwise(widths))
        scales = tuple(
            e.scale if isinstance(e, NumericEncoding) and e.kind is ColumnKind.DATETIME else None
            for e in space.encodings
        )
        return cls(columns, numeric, codes, numbers, dict(embedded), features, scales)

    def feature_indices(self, columns: Sequence[int]) -> np.ndarray:
        """The embedded features of the given columns."""
        return np.concatenate([np.arange(self.features[j].start, self.features[j].stop) for j in columns])


def _shared_codes(values: Mapping[str, pd.Series], *, ordered: bool) -> dict[str, np.ndarray]:
    """Codes of the values of every role on one numbering (in value order if ``ordered``), -1 missing."""
    together = pd.concat([v.reset_index(drop=True) for v in values.values()], ignore_index=True)
    codes, _ = pd.factorize(together, sort=ordered)
    bounds = pairwise(np.cumsum([0] + [len(v) for v in values.values()]))
    return {role: codes[a:b].astype(np.int32) for role, (a, b) in zip(values, bounds, strict=True)}


@dataclass(frozen=True)
class Targets:
    """Who is attacked, as row indices of the training and holdout data.

    ``members`` / ``controls``: the targets of linkability and inference; the singling-out
    populations are distinct rows, equally many on each side.
    """

    members: np.ndarray
    controls: np.ndarray
    member_population: np.ndarray
    control_population: np.ndarray

    @classmethod
    def draw(cls, data: AttackData, n_attacks: int, rng: np.random.Generator) -> Targets:
        """``min(n_attacks, |T|, |H|)`` targets per side and the two populations, seeded."""
        n_train, n_test = len(data.codes[TRAIN]), len(data.codes[TEST])
        n = min(n_attacks, n_train, n_test)
        members = np.sort(rng.choice(n_train, n, replace=False))
        controls = np.sort(rng.choice(n_test, n, replace=False))
        distinct_train, distinct_test = _distinct(data.codes[TRAIN]), _distinct(data.codes[TEST])
        m = min(len(distinct_train), len(distinct_test))
        member_population = np.sort(rng.choice(distinct_train, m, replace=False))
        control_population = np.sort(rng.choice(distinct_test, m, replace=False))
        return cls(members, controls, member_population, control_population)


def _distinct(codes: np.ndarray) -> np.ndarray:
    """The index of the first row of each distinct row of ``codes``, in row order."""
    return np.flatnonzero(~pd.DataFrame(codes).duplicated().to_numpy())


# --- singling out -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Predicates:
    """Conjunctions of conditions ``low <= code <= high`` on one column each, one row per predicate.

    ``negate`` turns a condition into "present and not in [low, high]" (the baseline's ``!=``).
    Missing values have code -1: ``[-1, -1]`` is "is missing", and ranges from 0 exclude it.
    Every range has ``low <= high`` (``[-2, -2]`` matches nothing).
    """

    columns: np.ndarray  # (n, c) int
    low: np.ndarray  # (n, c) int32
    high: np.ndarray  # (n, c) int32
    negate: np.ndarray  # (n, c) bool

    def __len__(self) -> int:
        return len(self.columns)

    def take(self, rows: np.ndarray) -> Predicates:
        return Predicates(self.columns[rows], self.low[rows], self.high[rows], self.negate[rows])


def count_matches(columns: np.ndarray, predicates: Predicates) -> np.ndarray:
    """How many rows of ``columns`` ((p, n) codes, one row per column) each predicate matches.

    In steps of about 4 million (predicate, row) cells, one thread: the work is bound by memory,
    and a second thread gained nothing on a two-core machine.
    """
    n = columns.shape[1]
    step = max(1, _CELLS // max(n, 1))
    starts = range(0, len(predicates), step)

    def part(start: int) -> np.ndarray:
        chunk = predicates.take(np.arange(start, min(start + step, len(predicates))))
        mask = np.ones((len(chunk), n), bool)
        for slot in range(chunk.columns.shape[1]):
            x = columns[chunk.columns[:, slot]].view(np.uint32)
            low = chunk.low[:, slot, None].view(np.uint32)
            width = (chunk.high[:, slot, None].astype(np.int64) - chunk.low[:, slot, None]).astype(np.uint32)
            np.subtract(x, low, out=x)  # low <= x <= high  <=>  (x - low) mod 2^32 <= high - low
            inside = x <= width
            if chunk.negate[:, slot].any():
                present = columns[chunk.columns[:, slot]] != _MISSING
                inside = np.where(chunk.negate[:, slot, None], ~inside & present, inside)
            mask &= inside
        return mask.sum(axis=1)

    parts = [part(s) for s in starts]
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def single_out_synthetic(synth: np.ndarray, predicates: Predicates, rows: np.ndarray) -> np.ndarray:
    """Whether each predicate, built from synthetic row ``rows[i]``, matches that row alone.

    ``synth`` holds distinct rows in random order, so its prefixes are random samples: a predicate
    that matches another row of a short prefix is out at once, and only the others are counted on a
    longer prefix, up to every row. Exact: a predicate is dropped only on a match that is not its row.
    """
    alive = np.arange(len(predicates))
    for stop in (*(s for s in _STAGES if s < synth.shape[1]), synth.shape[1]):
        if len(alive) == 0:
            break
        counts = count_matches(synth[:, :stop], predicates.take(alive))
        alive = alive[counts - (rows[alive] < stop) == 0]
    flags = np.zeros(len(predicates), bool)
    flags[alive] = True
    return flags


def multivariate_predicates(
    synth: np.ndarray,
    numeric: np.ndarray,
    n: int,
    rng: np.random.Generator,
    *,
    n_columns: int = PREDICATE_COLUMNS,
    max_candidates: int = MAX_CANDIDATES,
) -> tuple[Predicates, int]:
    """Up to ``n`` predicates that single out a synthetic row, and the candidates tried.

    ``synth``: (p, N) codes of distinct synthetic rows in random order. A candidate is a random row
    and ``n_columns`` random columns (anonymeter's multivariate mode); candidates are distinct, so
    every predicate found is too.
    """
    p, n_rows = synth.shape
    c = min(n_columns, p)
    medians = np.array([np.median(col[col >= 0]) if (col >= 0).any() else 0.0 for col in synth])
    kept: list[Predicates] = []
    found = tried = 0
    for rows, columns in _candidates(n_rows, p, c, max_candidates, rng):
        candidates = _from_rows(synth, rows, columns, numeric, medians)
        singles = np.flatnonzero(single_out_synthetic(synth, candidates, rows))[: n - found]
        kept.append(candidates.take(singles))
        found, tried = found + len(singles), tried + len(rows)
        if found >= n:
            break
    return _concat(kept, c), tried


def _candidates(
    n_rows: int, p: int, c: int, limit: int, rng: np.random.Generator
) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Distinct (row, sorted ``c`` columns) pairs in random order, in batches, at most ``limit``.

    When there are few pairs (at most ``2 limit``) they are enumerated and shuffled; otherwise drawn
    at random, repeats dropped (at least half of every draw is new).
    """
    sets = comb(p, c)
    if n_rows * sets <= 2 * limit:
        every = np.array(list(combinations(range(p), c)), np.int64).reshape(sets, c)
        order = rng.permutation(n_rows * sets)[:limit]
        for start in range(0, len(order), _BATCH):
            part = order[start : start + _BATCH]
            yield part // sets, every[part % sets]
        return
    ranks = np.array([[comb(j, i + 1) for i in range(c)] for j in range(p)], np.int64)
    seen: set[int] = set()
    while len(seen) < limit:
        rows = rng.integers(0, n_rows, _BATCH)
        columns = np.sort(rng.random((_BATCH, p)).argsort(axis=1)[:, :c], axis=1)
        keys = rows * sets + ranks[columns, np.arange(c)].sum(axis=1)  # the set's rank: injective
        fresh = []
        for i, key in enumerate(keys.tolist()):
            if key not in seen and len(seen) < limit:
                seen.add(key)
                fresh.append(i)
        yield rows[fresh], columns[fresh]


def _from_rows(
    synth: np.ndarray, rows: np.ndarray, columns: np.ndarray, numeric: np.ndarray, medians: np.ndarray
) -> Predicates:
    """Each row's values on its columns: ``==``, or towards the extreme side of the median for numbers."""
    values = synth[columns, rows[:, None]]
    low, high = values.copy(), values.copy()
    present_number = numeric[columns] & (values != _MISSING)
    up = present_number & (values > medians[columns])
    high[up] = _TOP
    low[present_number & ~up] = 0
    return Predicates(columns, low, high, np.zeros(columns.shape, bool))


def univariate_predicates(
    synth: np.ndarray, numeric: np.ndarray, n: int, rng: np.random.Generator
) -> Predicates:
    """Up to ``n`` one-column predicates that single out a synthetic row (anonymeter's univariate mode).

    A lone missing value, a value held by one row, and ``<= min`` / ``>= max`` of a number held by
    one row; shuffled, then the first ``n``.
    """
    candidates: list[tuple[int, int, int]] = []
    for j, col in enumerate(synth):
        counts = np.bincount(col + 1)  # index 0: missing
        if counts[0] == 1:
            candidates.append((j, _MISSING, _MISSING))
        present = np.flatnonzero(counts[1:])
        if numeric[j] and len(present):
            low, high = int(present[0]), int(present[-1])
            if counts[low + 1] == 1:
                candidates.append((j, 0, low))
            if counts[high + 1] == 1:
                candidates.append((j, high, int(_TOP)))
        candidates += [(j, int(v), int(v)) for v in np.flatnonzero(counts[1:] == 1)]
    order = rng.permutation(len(candidates))[:n]
    chosen = np.array([candidates[i] for i in order], np.int64).reshape(-1, 3)
    return Predicates(
        chosen[:, :1],
        chosen[:, 1:2].astype(np.int32),
        chosen[:, 2:3].astype(np.int32),
        np.zeros((len(chosen), 1), bool),
    )


def random_predicates(
    synth: np.ndarray, numeric: np.ndarray, n: int, n_columns: int, rng: np.random.Generator
) -> Predicates:
    """Baseline predicates (anonymeter's): random columns, values seen in ``S`` and operators.

    Categories get ``==`` or ``!=``, numbers one of ``== != > < >= <=``; a missing value gives "is
    missing" for ``==`` and "is present" otherwise.
    """
    p = synth.shape[0]
    c = min(n_columns, p)
    levels = [np.unique(col) for col in synth]
    columns = np.sort(rng.random((n, p)).argsort(axis=1)[:, :c], axis=1)
    offsets = np.cumsum([0] + [len(v) for v in levels])
    sizes = np.diff(offsets)
    pick = (rng.random((n, c)) * sizes[columns]).astype(np.int64)
    values = np.concatenate(levels)[offsets[columns] + pick].astype(np.int32)
    ops = np.where(numeric[columns], rng.integers(0, 6, (n, c)), rng.integers(0, 2, (n, c)))
    ops = np.where(values == _MISSING, np.minimum(ops, 1), ops)  # missing: only == or !=
    low = np.select([ops == 2, ops == 3, ops == 5], [values + 1, 0, 0], values).astype(np.int32)
    high = np.select([ops == 2, ops == 3, ops == 4], [_TOP, values - 1, _TOP], values).astype(np.int32)
    nothing = high < low  # "< the smallest code": a range no code is in
    low[nothing], high[nothing] = _NOTHING, _NOTHING
    return Predicates(columns, low, high, ops == 1)


def _concat(parts: list[Predicates], c: int) -> Predicates:
    if not parts:
        empty = np.zeros((0, c), np.int64)
        return Predicates(empty, empty.astype(np.int32), empty.astype(np.int32), empty.astype(bool))
    return Predicates(
        *(np.concatenate([getattr(p, f) for p in parts]) for f in ("columns", "low", "high", "negate"))
    )


def singling_out(
    data: AttackData,
    targets: Targets,
    mode: Literal["univariate", "multivariate"],
    n_attacks: int,
    rng: np.random.Generator,
    *,
    confidence: float = CONFIDENCE,
    max_candidates: int = MAX_CANDIDATES,
) -> tuple[AttackResult | None, int]:
    """The singling-out attack in one mode, and the candidate predicates tried (None: none found)."""
    synth = data.codes[SYNTH][_distinct(data.codes[SYNTH])]
    synth = np.ascontiguousarray(synth[rng.permutation(len(synth))].T)
    if mode == "univariate":
        predicates, tried = univariate_predicates(synth, data.numeric, n_attacks, rng), 0
        n_columns = 1
    else:
        predicates, tried = multivariate_predicates(
            synth, data.numeric, n_attacks, rng, max_candidates=max_candidates
        )
        n_columns = PREDICATE_COLUMNS
    if len(predicates) == 0:
        return None, tried
    members = np.ascontiguousarray(data.codes[TRAIN][targets.member_population].T)
    controls = np.ascontiguousarray(data.codes[TEST][targets.control_population].T)
    baseline = random_predicates(synth, data.numeric, len(predicates), n_columns, rng)
    n = len(predicates)
    counts = (
        (int((count_matches(members, predicates) == 1).sum()), n),
        (int((count_matches(controls, predicates) == 1).sum()), n),
        (int((count_matches(members, baseline) == 1).sum()), n),
    )
    return attack_result("singling_out", mode, [list(data.columns)], counts, confidence), tried


# --- linkability and inference ----------------------------------------------------------------


def _nearest_synthetic(
    queries: np.ndarray, synth: np.ndarray, k: int, rng: np.random.Generator
) -> np.ndarray:
    """Indices of the ``k`` nearest synthetic rows of each query, ties broken at random."""
    order = rng.permutation(len(synth))
    _, indices = knn(queries, synth[order], k=k)
    return order[indices]


def _queries(data: AttackData, targets: Targets) -> np.ndarray:
    """The embedded members, then the embedded controls."""
    return np.concatenate([data.embedded[TRAIN][targets.members], data.embedded[TEST][targets.controls]])


def linkability(
    data: AttackData,
    targets: Targets,
    sets: tuple[Sequence[int], Sequence[int]],
    rng: np.random.Generator,
    *,
    k: int = N_NEIGHBOURS,
    confidence: float = CONFIDENCE,
) -> AttackResult:
    """Link each target's two column sets through their ``k`` nearest synthetic rows."""
    synth = data.embedded[SYNTH]
    k = min(k, len(synth))
    queries = _queries(data, targets)
    neighbours = []
    for columns in sets:
        features = data.feature_indices(columns)
        neighbours.append(_nearest_synthetic(queries[:, features], synth[:, features], k, rng))
    linked = _shared_row(*neighbours)
    n = len(targets.members)
    guesses = [_random_sets(n, len(synth), k, rng) for _ in range(2)]
    counts = (
        (int(linked[:n].sum()), n),
        (int(linked[n:].sum()), n),
        (int(_shared_row(*guesses).sum()), n),
    )
    known = [[data.columns[j] for j in columns] for columns in sets]
    return attack_result("linkability", f"k = {k}", known, counts, confidence)


def _random_sets(n: int, size: int, k: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` sets of ``k`` distinct indices below ``size``, each uniform (rows with a repeat redrawn)."""
    sets = rng.integers(0, size, (n, k))
    while True:
        ordered = np.sort(sets, axis=1)
        repeated = np.flatnonzero((ordered[:, 1:] == ordered[:, :-1]).any(axis=1))
        if len(repeated) == 0:
            return sets
        sets[repeated] = rng.integers(0, size, (len(repeated), k))


def _shared_row(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Whether row ``i`` of ``a`` and row ``i`` of ``b`` (index sets) share an index."""
    return (a[:, :, None] == b[:, None, :]).any(axis=(1, 2))


def inference(
    data: AttackData,
    targets: Targets,
    secret: int,
    rng: np.random.Generator,
    *,
    tolerance: float = TOLERANCE,
    confidence: float = CONFIDENCE,
) -> AttackResult | None:
    """Guess column ``secret`` of each target from its nearest synthetic row on every other column.

    None when there is no other column to search on.
    """
    others = [j for j in range(len(data.columns)) if j != secret]
    if not others:
        return None
    features = data.feature_indices(others)
    synth = data.embedded[SYNTH]
    nearest = _nearest_synthetic(_queries(data, targets)[:, features], synth[:, features], 1, rng)[:, 0]
    n = len(targets.members)
    truth = [(TRAIN, targets.members), (TEST, targets.controls)]
    right = _right_guesses(data, secret, nearest, truth, tolerance)
    random_rows = rng.integers(0, len(synth), n)
    baseline = _right_guesses(data, secret, random_rows, truth[:1], tolerance)
    counts = ((int(right[:n].sum()), n), (int(right[n:].sum()), n), (int(baseline.sum()), n))
    known = [[data.columns[j] for j in others]]
    return attack_result("inference", data.columns[secret], known, counts, confidence)


def _right_guesses(
    data: AttackData, j: int, synth_rows: np.ndarray, truth: list[tuple[str, np.ndarray]], tolerance: float
) -> np.ndarray:
    """Whether the secret of synthetic row ``synth_rows[i]`` is right for the i-th target."""
    guess_codes = data.codes[SYNTH][synth_rows, j]
    true_codes = np.concatenate([data.codes[role][rows, j] for role, rows in truth])
    if not data.numeric[j]:
        return guess_codes == true_codes  # a missing guess is right for a missing value
    guess = data.numbers[SYNTH][synth_rows, j]
    value = np.concatenate([data.numbers[role][rows, j] for role, rows in truth])
    scale = data.scales[j]
    unit = np.abs(guess) if scale is None else scale
    close = np.abs(guess - value) <= tolerance * unit
    both_missing = np.isnan(guess) & np.isnan(value)
    return close | both_missing
