"""The settings of one report run: sample caps, column selections, seed. Recorded in the results.

``ReportSettings`` holds the settings every section shares (the seed, the row caps of each role, the
column kinds and selections, the utility targets, which preparation also reads) as fields, and each
section's own settings in ``sections``, filled from the ``Setting`` declarations on the sections
(``reportgen.catalogue.report_settings``). Both are read as attributes (``settings.n_max_phik``)
and recorded flat in the results JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from reportgen.errors import InvalidParameterError
from reportgen.params import Constraint, InstanceOf, check_param

ColumnSelection = None | int | Sequence[str] | Mapping[str, int | Sequence[str]]
LinkColumns = None | tuple[Sequence[str], Sequence[str]]

_SECTIONS = ("univ", "biv", "knn", "phik")

# Rows per role for the phik matrices. Phik's cost is almost all per column pair (a bivariate-normal
# fit per contingency table), little per row: on adult (15 columns, 2 cores) the section takes 1.2 to
# 1.9 s for its three matrices at caps from 5,000 rows to all 32,561, and 195,366 rows take 2.0 s for
# two matrices against 1.0 s at 50,000. Fewer rows only add noise (adult's training-vs-holdout
# reference falls from 0.989 with every row to 0.971 at 5,000), so the cap equals the default
# n_max_train: by default phik sees every sampled row, and the cap bounds the cost when that is raised.
N_MAX_PHIK = 50_000

# Rows each utility model (TSTR, SRA) learns from and is scored on, at most: real training and holdout
# rows are capped at this, synthetic rows at twice this (a half to learn from, a half to score S on).
# Its cost is 24 model fits (12 families, on real and on synthetic rows) that grow with the rows; see
# benchmarks/bench_utility.py for the adult figures.
N_MAX_UTILITY = 20_000

# Levels a categorical column keeps in the distance space and in Gower similarity (and so in the
# one-class network, which reads distance-space rows): its most frequent training levels, the rest
# pooled into one "other" level. 50 is the text rule's distinct-value threshold (TEXT_MIN_DISTINCT):
# a column with at most 50 levels is encoded whole, one with more is near-unique (an identifier,
# left out) or pooled here. It keeps every categorical of the bundled datasets whole (adult's
# native_country has 41 levels, lahman's teamID 35), so their numbers do not change, and it bounds a
# column's one-hot width at 52 (levels, "other", missing): a 3,000-level city column took 3,174
# dimensions, 29 minutes and 7.6 GiB of the privacy section before.
MAX_ENCODED_LEVELS = 50

# Rows a side for the detection test (training against synthetic, and against holdout). On adult
# (2 cores) a comparison of 10,000 rows a side takes 0.5 to 2 s (five fits, one thread) and its
# 95% interval is about +-0.01 wide at chance, tight enough to call an AUROC of 0.52 detectable;
# see benchmarks/bench_dependence.py.
N_MAX_DETECTION = 10_000

# Targets per side of the membership attacks (training rows as members, holdout rows as non-members).
# The attacks' cost grows with the targets (two exact searches of 2 x 5,000 rows into the synthetic
# and reference rows: seconds on adult), while their intervals shrink only as 1/sqrt(targets): at
# 5,000 a TPR of 1% has a 95% Clopper-Pearson interval of 0.74%-1.32%, and TPR at 0.1% FPR still
# rests on 5 false positives. More targets buy little; fewer would blur the low-FPR rates.
MIA_MAX_TARGETS = 5_000

# Singling out, linkability and inference (reportgen.privacy.risks): targets per side and predicates
# per singling-out mode. See benchmarks/bench_anonymeter.py for the time and interval widths on adult.
N_RISK_ATTACKS = 1000
MIN_RISK_ATTACKS = 50  # fewer targets per side make every interval uninformative

# What a ``device`` argument must be (``report``, ``audit``...): a torch device name, resolved and
# checked against the GPUs torch sees by ``reportgen.privacy.neighbours.resolve_device``.
DEVICE_NAME = InstanceOf((str,), "a str such as 'cpu', 'cuda' or 'auto'")


@dataclass(frozen=True)
class Setting:
    """One setting a section declares: everything ``report()``, the CLI and the appendix need of it.

    - ``name``: the keyword of ``report()`` and the key in the results JSON's settings;
    - ``default`` and ``constraints`` (``reportgen.params``): the value when not given, and what a
      given value must be (checked by ``check``, with the message every public function gives);
    - ``help``: one line for the command line and the docs (the default is added to it);
    - ``parse``: how the command line's text becomes the value (``None``: set from Python only);
      ``flag`` (default ``--`` and the name in dashes), ``aliases`` (older spellings kept working),
      ``metavar`` and ``repeatable`` (the option is given once per item, collected into a list);
    - ``check_columns``: a check of the value against the tables' columns, called once the data is
      read (a column named by a setting that no table has is refused rather than silently unused).
    """

    name: str
    default: Any
    help: str
    constraints: tuple[Constraint, ...] = ()
    parse: Callable[[str], Any] | None = int
    flag: str | None = None
    aliases: tuple[str, ...] = ()
    metavar: str = "N"
    repeatable: bool = False
    check_columns: Callable[[Any, Mapping[str, Sequence[str]]], None] | None = None

    @property
    def option(self) -> str:
        """The command-line option that sets it."""
        return self.flag or "--" + self.name.replace("_", "-")

    def check(self, value: Any, where: str = "report") -> None:
        """Raise ``InvalidParameterError`` unless ``value`` meets the declared constraints."""
        if self.constraints:
            check_param(where, self.name, value, self.constraints)


@dataclass(frozen=True)
class ReportColumns:
    """Which columns each family of sections uses.

    Each field is ``None`` (every compared column), a count ``n`` (the first ``n`` compared columns
    in table order), a list of column names (applied to every table that has them), or a mapping of
    table name to a count or a list (tables not named use every column).

    - ``univ``: univariate distributions; ``biv``: column pairs; ``knn``: the distance space of the
      privacy sections; ``phik``: the phik correlation matrices.
    """

    univ: ColumnSelection = None
    biv: ColumnSelection = None
    knn: ColumnSelection = None
    phik: ColumnSelection = None

    def select(self, family: str, table: str, available: Sequence[str]) -> list[str]:
        """The columns of ``table`` that ``family`` uses, out of the ``available`` ones."""
        choice: Any = getattr(self, family)
        if isinstance(choice, Mapping):
            choice = choice.get(table)
        if choice is None:
            return list(available)
        if isinstance(choice, int):
            return list(available)[:choice]
        return [c for c in choice if c in available]

    def check(self, tables: Mapping[str, Sequence[str]]) -> None:
        """Raise for names that match no table or column, so a typo never silently drops a column."""
        for family in _SECTIONS:
            choice: Any = getattr(self, family)
            per_table = choice if isinstance(choice, Mapping) else {t: choice for t in tables}
            for table, sel in per_table.items():
                if table not in tables:
                    raise InvalidParameterError(
                        f"ReportColumns.{family} names table {table!r}, which is not in the data "
                        f"(tables: {sorted(tables)})."
                    )
                if isinstance(sel, bool) or (isinstance(sel, int) and sel < 1):
                    raise InvalidParameterError(
                        f"ReportColumns.{family} for table {table!r} must be a positive count or "
                        f"a list of column names. Got {sel!r} instead."
                    )
                if sel is None or isinstance(sel, int):
                    continue
                if isinstance(sel, str) or not isinstance(sel, Sequence):
                    raise InvalidParameterError(
                        f"ReportColumns.{family} for table {table!r} must be a list of column "
                        f"names. Got {sel!r} instead."
                    )
                unknown = [c for c in sel if c not in tables[table]]
                if unknown and not isinstance(choice, Mapping) and len(tables) > 1:
                    unknown = [c for c in sel if not any(c in cols for cols in tables.values())]
                if unknown:
                    raise InvalidParameterError(
                        f"ReportColumns.{family} names column(s) {unknown} that table {table!r} "
                        f"does not have (its columns: {list(tables[table])})."
                    )

    def to_dict(self) -> dict[str, Any]:
        return {f: _plain(getattr(self, f)) for f in _SECTIONS}


@dataclass(frozen=True)
class ReportSettings:
    """Every setting that changes a number in the report.

    The fields are shared by every section; ``sections`` holds the sections' own settings by name
    (``n_max_phik``, ``privacy_q``, ...), read as attributes like the fields. Build one with every
    registered section's defaults through ``reportgen.catalogue.report_settings``; preparing a
    context fills in any section default missing here.
    """

    seed: int = 0
    n_max_train: int = 50_000
    n_max_test: int = 50_000
    n_max_synth: int = 50_000
    max_categories: int = 20
    n_bins: int = 20
    min_category_count: int = 10
    max_encoded_levels: int = MAX_ENCODED_LEVELS
    columns: ReportColumns = ReportColumns()
    targets: Mapping[str, str] | None = None
    device: str = "cpu"  # where torch searches and trains: "cpu", "cuda", "cuda:N" or "auto"
    sections: Mapping[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        """A section's setting, as if it were a field."""
        values = self.__dict__.get("sections", {})
        if name in values:
            return values[name]
        raise AttributeError(
            f"ReportSettings has no setting {name!r}. Section settings are filled from the sections' "
            "declarations by reportgen.catalogue.report_settings (and when a context is prepared)."
        )

    def with_sections(self, **values: Any) -> ReportSettings:
        """These settings with the given section settings replaced or added."""
        return replace(self, sections={**self.sections, **values})

    def to_dict(self) -> dict[str, Any]:
        """Every setting by name, flat (the sections' after the shared ones), as JSON values."""
        shared = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "sections"}
        every = shared | {"columns": self.columns.to_dict()} | dict(self.sections)
        return {name: _plain(value) for name, value in every.items()}


def _plain(value: Any) -> Any:
    """A setting's value as JSON holds it: mappings as dicts, sequences as lists."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def check_secret_columns(secrets: Sequence[str] | None, tables: Mapping[str, Sequence[str]]) -> None:
    """Refuse inference secrets that name no column of any table (a typo drops nothing).

    They apply to every table (and entity view) that holds them.
    """
    _check_known("risk_secrets (--secret on the command line)", list(secrets or []), tables)


def check_link_columns(link_columns: LinkColumns, tables: Mapping[str, Sequence[str]]) -> None:
    """Refuse linkability sets that are not two non-empty lists of known columns, or share a column."""
    if link_columns is None:
        return
    if (
        not isinstance(link_columns, (tuple, list))
        or len(link_columns) != 2
        or any(isinstance(part, str) or not part for part in link_columns)
    ):
        raise InvalidParameterError(
            "risk_link_columns must be two non-empty lists of column names (the attacker's two "
            f"sets). Got {link_columns!r} instead."
        )
    if set(link_columns[0]) & set(link_columns[1]):
        raise InvalidParameterError(
            f"risk_link_columns names {sorted(set(link_columns[0]) & set(link_columns[1]))} in both "
            "sets; each column belongs to one set."
        )
    _check_known("risk_link_columns", [*link_columns[0], *link_columns[1]], tables)


def _check_known(name: str, columns: Sequence[str], tables: Mapping[str, Sequence[str]]) -> None:
    known = {c for table_columns in tables.values() for c in table_columns}
    unknown = [c for c in columns if c not in known]
    if unknown:
        existing = "; ".join(f"table {t!r}: {', '.join(map(str, cs))}" for t, cs in tables.items())
        raise InvalidParameterError(
            f"{name} names column(s) {', '.join(map(repr, unknown))} that no table has, so "
            f"no attack can use them. Name columns of the data ({existing})."
        )
