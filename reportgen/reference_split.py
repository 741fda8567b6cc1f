"""Without a holdout: references from a split of the training data.

Most fidelity and utility measures are judged against the same measure between two real samples
(training and holdout): what a perfect generator reaches at these sizes. Without a holdout there
was nothing to compare with, so any number passed. Instead, the training data is split by entity
(``RelationalData.split``): the *set-aside* part stands in for the holdout and the *kept* part for
the training data, and the sections marked ``split_reference`` run on that split. The set-aside
part has as many rows as the synthetic data (at most half the training rows), so the reference
compares samples of the sizes the synthetic number compares, and its sampling noise is that of
the synthetic number.

The generator saw both parts, so the split gives no evidence about privacy: the attacks, which
need rows the generator never saw, still do not run, and a synthetic set that copies training rows
looks as good as the set-aside rows to measures of fidelity.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

from reportgen.context import EvaluationContext
from reportgen.data.relational import RelationalData, SplitWarning
from reportgen.data.roles import TEST, TRAIN
from reportgen.errors import DataError
from reportgen.privacy.proximity import copy_share
from reportgen.results import Finding, ReferenceSplit
from reportgen.seeding import derived_seed

MAX_SET_ASIDE = 0.5
MIN_SPLIT_ROWS = 200  # training rows (largest table) below which no part is set aside


@dataclass(frozen=True)
class TrainingSplit:
    """The context the ``split_reference`` sections run on, and how it was split."""

    context: EvaluationContext
    split: ReferenceSplit
    findings: list[Finding]


def training_split(context: EvaluationContext) -> TrainingSplit | None:
    """The training data split into kept and set-aside parts, for a context without a holdout.

    ``None`` when the context has a holdout. When no split is made (too few training rows, inputs
    read in place, a root table of one entity), the context's findings say why and ``None`` is
    returned: the references stay empty. Inputs read in place keep their sections on the engine's
    all-row counts, which a split of the in-memory sample would replace by sample counts.
    """
    if context.test is not None:
        return None
    full = context.full_train
    largest = max(len(full[name]) for name in full)
    if largest < MIN_SPLIT_ROWS:
        context.findings.append(_no_split(f"{largest:,} training rows; a split needs {MIN_SPLIT_ROWS}"))
        return None
    if context.in_place is not None:
        context.findings.append(_no_split("data read in place keeps every number on all of its rows"))
        return None
    share = set_aside_share(full, context.full_synth)
    seed = derived_seed(context.settings.seed, "reference-split")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SplitWarning)
        try:
            kept, set_aside = full.split(1.0 - share, seed)
        except DataError as error:
            context.findings.append(_no_split(str(error)))
            return None
    settings = context.settings
    split_context = replace(
        context,
        train=kept.sample(settings.n_max_train, derived_seed(settings.seed, f"sample:{TRAIN}")),
        test=set_aside.sample(settings.n_max_test, derived_seed(settings.seed, f"sample:{TEST}")),
        full_train=kept,
        full_test=set_aside,
        findings=context.findings,  # the sections' findings reach the report
        in_place=None,
        holdout_from_training=True,
        _prepared={},
        _entities={},
        _views={},
    )
    split = ReferenceSplit(
        root=kept.split_plan.root if kept.split_plan else next(iter(full)),
        share=share,
        kept={name: len(kept[name]) for name in kept},
        set_aside={name: len(set_aside[name]) for name in set_aside},
        copies=_copies_between_parts(context, split_context),
    )
    notes = [_split_problem(str(w.message)) for w in caught if issubclass(w.category, SplitWarning)]
    return TrainingSplit(split_context, split, notes)


def _copies_between_parts(context: EvaluationContext, split: EvaluationContext) -> dict[str, float]:
    """Per table, the share of set-aside rows equal to a kept row, on the privacy section's columns.

    Two real samples repeat each other this often by coincidence (few possible rows, duplicates in
    the data): the level a synthetic set's exact copies are judged against without a holdout.
    """
    copies = {}
    for name in split.table_names:
        columns = list(context.table(name).distance_space.columns)
        kept, set_aside = split.table(name).frame(TRAIN), split.table(name).frame(TEST)
        if columns and kept is not None and set_aside is not None and len(set_aside):
            copies[name] = copy_share(set_aside[columns], kept[columns])
    return copies


def set_aside_share(train: RelationalData, synth: RelationalData) -> float:
    """The share of training entities set aside: the synthetic data's size, at most half.

    Sizes are counted over all tables, so that the set-aside rows number about as many as the
    synthetic rows, and the reference is measured at the synthetic number's sample sizes.
    """
    n_train = sum(len(train[name]) for name in train)
    n_synth = sum(len(synth[name]) for name in synth if name in train)
    return min(MAX_SET_ASIDE, n_synth / max(n_train, 1))


def _no_split(reason: str) -> Finding:
    return Finding(
        severity="warning",
        code="no_reference_split",
        message=(
            "No holdout data was given and the training data could not be split to stand in for one "
            f"({reason.rstrip('.')}), so no measure has a reference level to be judged against."
        ),
    )


def _split_problem(message: str) -> Finding:
    return Finding(
        severity="info",
        code="reference_split_uneven",
        message=f"The split of the training data that gives the references is uneven: {message}",
    )
