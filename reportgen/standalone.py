"""The public one-purpose functions: one section's numbers from the inputs, without a report.

``compute_privacy_stats``, ``compute_membership`` and ``compute_privacy_risks`` take the same inputs
as ``report()``, prepare them as it does (``reportgen.preparation``) and run one section's
measurement, so with the same settings their numbers equal the report's. They sit above the
preparation stage and the sections, which never import them.
"""

from __future__ import annotations

from collections.abc import Sequence

from reportgen.data.schema import Schema
from reportgen.errors import InvalidParameterError
from reportgen.metrics.membership import MIN_TARGETS as MIN_MEMBERSHIP_TARGETS
from reportgen.metrics.membership import NO_HOLDOUT as NO_MEMBERSHIP_HOLDOUT
from reportgen.metrics.membership import ViewMembership, membership_outcomes
from reportgen.metrics.privacy import TablePrivacy, privacy_outcomes
from reportgen.metrics.privacy_risks import NO_HOLDOUT as NO_RISK_HOLDOUT
from reportgen.metrics.privacy_risks import ViewRisks, risk_outcomes
from reportgen.params import Interval, NoneValue, validate_params
from reportgen.preparation import DataInput, prepared
from reportgen.privacy.membership import MembershipStats
from reportgen.privacy.proximity import PrivacyStats
from reportgen.privacy.risks import MIN_TARGETS as MIN_RISK_TARGETS
from reportgen.privacy.risks import N_ATTACKS
from reportgen.settings import MIA_MAX_TARGETS, LinkColumns, ReportSettings


@validate_params(
    {
        "q": [Interval(float, 0, 1, closed="neither")],
        "risk_confidence": [NoneValue(), Interval(float, 0, None)],
        "n_max": [Interval(int, 1, None)],
        "seed": [Interval(int, 0, 2**32 - 1)],
        "n_repeats": [Interval(int, 1, None)],
    }
)
def compute_privacy_stats(
    data_train: DataInput,
    data_test: DataInput | None,
    data_synth: DataInput,
    *,
    q: float = 0.1,
    risk_confidence: float | None = None,
    n_max: int = 50_000,
    seed: int = 0,
    n_repeats: int = 5,
    schema: Schema | None = None,
) -> dict[str, PrivacyStats]:
    """The privacy score, its std and the risk of every table (and entity view): ``{name: PrivacyStats}``.

    Same inputs in the same order as ``report()`` (training, holdout, synthetic): DataFrame, dict
    of DataFrames or RelationalData, or data read in place (a ``reportgen.sources`` source, a
    Parquet/CSV path, a ``.duckdb`` file or a database URL), whose samples are drawn in its engine.
    ``n_max`` caps the rows of every role as ``report(n_max_train=n_max, n_max_test=n_max,
    n_max_synth=n_max)`` does, so with the same seed the numbers equal the report's; ``data_test``
    is the holdout given to ``report()``, ``None`` when there is none (it decides which columns get
    a missing indicator in the distance space, and adds the holdout curve; the score and risk do not
    depend on whether it is given). Tables that cannot be measured (no compared column, or fewer
    than 100 training rows) are left out; the report lists them with the reason.
    """
    settings = ReportSettings(
        seed=seed, n_max_train=n_max, n_max_test=n_max, n_max_synth=n_max
    ).with_sections(privacy_q=q, risk_confidence=risk_confidence, privacy_repeats=n_repeats)
    with prepared(data_train, data_test, data_synth, settings, schema=schema) as ctx:
        outcomes = privacy_outcomes(ctx, section=False)
    return {
        name: o.proximity
        for name, o in outcomes.items()
        if isinstance(o, TablePrivacy) and o.proximity is not None
    }


@validate_params(
    {
        "n_max": [Interval(int, 1, None)],
        "seed": [Interval(int, 0, 2**32 - 1)],
        "max_targets": [Interval(int, MIN_MEMBERSHIP_TARGETS, None)],
    }
)
def compute_membership(
    data_train: DataInput,
    data_test: DataInput,
    data_synth: DataInput,
    *,
    n_max: int = 50_000,
    seed: int = 0,
    max_targets: int = MIA_MAX_TARGETS,
    schema: Schema | None = None,
) -> dict[str, MembershipStats]:
    """The membership attacks on every table (and entity view): ``{name: MembershipStats}``.

    Same inputs in the same order as ``report()`` (training, holdout, synthetic); ``data_test`` is
    the real holdout the generator never saw (the non-members: required). ``n_max`` caps the rows
    of every role as ``report(n_max_train=n_max, n_max_test=n_max, n_max_synth=n_max)`` does, and
    ``max_targets`` the targets per side, so with the same seed the numbers equal the report's (the
    epsilon bounds at the level that covers the three attacks of every view returned, as the
    report's). Views that cannot be attacked (no compared column, too few rows) are left out; the
    report lists them with the reason.
    """
    if data_test is None:
        raise InvalidParameterError(f"compute_membership needs data_test: {NO_MEMBERSHIP_HOLDOUT}.")
    settings = ReportSettings(
        seed=seed, n_max_train=n_max, n_max_test=n_max, n_max_synth=n_max
    ).with_sections(mia_max_targets=max_targets)
    with prepared(data_train, data_test, data_synth, settings, schema=schema) as ctx:
        views = membership_outcomes(ctx)
    return {name: v.stats for name, v in views.items() if isinstance(v, ViewMembership)}


@validate_params(
    {
        "n_attacks": [Interval(int, MIN_RISK_TARGETS, None)],
        "n_max": [Interval(int, 1, None)],
        "seed": [Interval(int, 0, 2**32 - 1)],
    }
)
def compute_privacy_risks(
    data_train: DataInput,
    data_test: DataInput,
    data_synth: DataInput,
    *,
    n_attacks: int = N_ATTACKS,
    secrets: Sequence[str] | None = None,
    link_columns: LinkColumns = None,
    n_max: int = 50_000,
    seed: int = 0,
    schema: Schema | None = None,
) -> dict[str, ViewRisks]:
    """Singling out, linkability and inference risks of every table (and entity view).

    Same inputs in the same order as ``report()`` (training, holdout, synthetic); ``data_test`` is
    the real holdout the generator never saw (the control: required). ``n_attacks``: targets per
    side and predicates per singling-out mode; ``secrets``: the columns inference guesses (tables
    holding none of them use the default, every column up to ``MAX_SECRETS``); ``link_columns``:
    linkability's two column sets (default: the columns shuffled and cut in halves); ``n_max`` caps
    the rows of every role as ``report()``'s ``n_max_*`` do, so with the same seed the numbers equal
    the report's, intervals included (each at ``1 - 0.05 / M`` for the ``M`` risk intervals of all
    the views returned). Tables that cannot be attacked (too few rows, no compared column) are left
    out; the report lists them with the reason.
    """
    if data_test is None:
        raise InvalidParameterError(f"compute_privacy_risks needs the holdout data: {NO_RISK_HOLDOUT}.")
    settings = ReportSettings(
        seed=seed, n_max_train=n_max, n_max_test=n_max, n_max_synth=n_max
    ).with_sections(
        risk_attacks=n_attacks,
        risk_secrets=tuple(secrets) if secrets is not None else None,
        risk_link_columns=link_columns,
    )
    with prepared(data_train, data_test, data_synth, settings, schema=schema) as ctx:
        views = risk_outcomes(ctx)
    return {name: risks for name, risks in views.items() if isinstance(risks, ViewRisks)}
