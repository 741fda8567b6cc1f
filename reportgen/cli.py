"""The ``reportgen`` command.

Exit codes: 0 success; 3 the report was written but a release bar failed (the message names it);
4 ``verify``: something the statement records does not match (the lines say what); 2 bad input
or usage (the message says what to fix); 1 an unexpected failure (a bug: please report it with
the traceback).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen.data.dialects import DIALECTS
from reportgen.errors import InvalidParameterError, ReportgenError

if TYPE_CHECKING:
    from reportgen.data.schema import Schema
    from reportgen.metrics.membership import EpsilonClaim

EXIT_OK, EXIT_FAILURE, EXIT_BAD_INPUT, EXIT_BAR_FAILED = 0, 1, 2, 3
EXIT_NOT_VERIFIED = 4

_EPILOG = "Exit codes: 0 success, 3 a release bar failed, 2 bad input or usage, 1 unexpected failure."
_EPILOG_PRIVACY = (
    "Exit codes: 0 success, 3 a number could not be measured (the reason is printed; as report's bars, "
    "unless --allow-not-evaluated), 2 bad input or usage, 1 unexpected failure."
)
_EPILOG_COMPARE = (
    "Exit codes: 0 a candidate is recommended, 3 none can be (each one's reason is printed), 2 bad input "
    "or usage, 1 unexpected failure."
)
_EXIT_VERIFY = (
    "Exit codes: 0 everything checked matches, 4 something does not match or is missing (listed), "
    "2 bad input or usage, 1 unexpected failure."
)
_EPILOG_NO_BARS = (
    "Exit codes: 0 success, 2 bad input or usage, 1 unexpected failure (no release bars here: see report)."
)


# The commands that take the settings the sections declare, and whose (None: every section's).
_SETTINGS_OF: dict[str, tuple[str, ...] | None] = {
    "report": None,
    "privacy": ("privacy", "membership", "privacy_risks"),
    "compare": None,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: the process arguments); return the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in arguments if not a.startswith("-")), None)
    parser = _parser(with_settings=command in _SETTINGS_OF)
    if (mistake := _misspelling(parser, arguments)) is not None:
        print(f"reportgen: error: {mistake}", file=sys.stderr)
        return EXIT_BAD_INPUT
    args = parser.parse_args(arguments)
    try:
        return int(args.run(args))
    except ReportgenError as error:
        print(f"reportgen: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _misspelling(parser: argparse.ArgumentParser, arguments: list[str]) -> str | None:
    """An unknown command or option, with the closest known ones, or None when all are known.

    argparse alone reports a misspelled ``--trian`` as a missing ``--train`` and suggests nothing.
    An option counts as known when it is one of the command's options or a prefix of exactly the
    ones argparse would accept as its abbreviation.
    """
    commands = _commands(parser)
    command = next((a for a in arguments if not a.startswith("-")), None)
    if command is None:
        return None
    if command not in commands:
        known = ", ".join(commands)
        return f"unknown command {command!r}{_closest(command, list(commands))} (the commands: {known})."
    options = [o for action in commands[command]._actions for o in action.option_strings]
    for given in (a.split("=", 1)[0] for a in arguments[arguments.index(command) + 1 :]):
        if given.startswith("--") and given != "--" and not any(o.startswith(given) for o in options):
            usage = f"see reportgen {command} --help"
            return f"unknown option {given} of reportgen {command}{_closest(given, options)} ({usage})."
    return None


def _commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The sub-command parsers by name."""
    found = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(found[0].choices) if found else {}


def _closest(given: str, known: list[str]) -> str:
    """``; did you mean X?`` for the closest known spelling, or nothing when none is close."""
    close = difflib.get_close_matches(given, known, n=1, cutoff=0.6)
    return f": did you mean {close[0]}?" if close else ""


def _parser(*, with_settings: bool = True) -> argparse.ArgumentParser:
    """The command line, with the options of the sections' settings when ``with_settings``.

    Those options load every section (and plugin); the commands that do not take them leave it
    False, so that they start fast.
    """
    parser = argparse.ArgumentParser(
        prog="reportgen",
        description="Is this synthetic dataset fit to share? Fidelity, utility and privacy reports.",
        epilog=_EPILOG,
    )
    commands = parser.add_subparsers(title="commands", required=True, metavar="COMMAND")

    rep = commands.add_parser(
        "report",
        help="evaluate synthetic data against real data and write a PDF or HTML report",
        description=(
            "Each input is a folder of CSV/Parquet files (one per table, plus an optional "
            "schema.yaml), a single CSV/Parquet file, or a database URL such as sqlite:///real.db."
        ),
        epilog=_EPILOG,
    )
    _add_inputs(rep)
    rep.add_argument("--test", help="real holdout data the generator never saw (recommended)")
    rep.add_argument("--out", required=True, help="output file: .pdf or .html (a .json is written beside it)")
    _add_judging(rep, _SETTINGS_OF["report"], with_settings)
    rep.add_argument(
        "--junit",
        metavar="FILE",
        help="also write the release bars as JUnit XML (one test case per bar) for CI",
    )
    rep.add_argument("--previous", metavar="JSON", help="a previous release's report JSON to compare with")
    rep.add_argument(
        "--config",
        metavar="FILE",
        help="release configuration (YAML or JSON): fail_under bars, and the approver's decision",
    )
    _add_quiet(rep)
    rep.set_defaults(run=_run_report)

    cmp = commands.add_parser(
        "compare",
        help="judge several synthetic datasets of the same real data in one run and recommend one",
        description=(
            "Each candidate is judged exactly as 'reportgen report' judges it (the same numbers, bars "
            "and verdicts), sharing the work on the real data; page 1 ranks the candidates on every "
            "headline and names the one the stated rule recommends (never one that fails a bar or "
            "whose privacy verdict is not a pass). Inputs as for 'reportgen report'."
        ),
        epilog=_EPILOG_COMPARE,
    )
    _add_inputs(
        cmp,
        candidates=True,
        synth_help=(
            "a candidate's synthetic data, repeatable: NAME=PATH, or PATH alone (named after its file or "
            "folder), e.g. --synth ctgan=synthetic/ctgan/ --synth tvae=synthetic/tvae/"
        ),
    )
    cmp.add_argument("--test", help="real holdout data the generator never saw (needed for a privacy pass)")
    cmp.add_argument(
        "--out", required=True, help="the comparison: .pdf or .html (a .json is written beside it)"
    )
    cmp.add_argument(
        "--reports",
        metavar="FOLDER",
        help="also write each candidate's own full report there (NAME.pdf or .html)",
    )
    _add_judging(cmp, _SETTINGS_OF["compare"], with_settings)
    cmp.add_argument(
        "--config", metavar="FILE", help="release configuration (YAML or JSON) with fail_under bars"
    )
    _add_quiet(cmp)
    cmp.set_defaults(run=_run_compare)

    priv = commands.add_parser(
        "privacy",
        help="print the privacy score and risk per table, and with --test the attacks",
        description=(
            "The proximity-ratio privacy statistics of METRICS.md section 7 and, when a holdout is given "
            "with --test, the attacks of section 13: membership inference (the worst attack per table) "
            "and the singling-out, linkability and inference risks (the worst of each per table), "
            "computed exactly as the report computes them (same inputs and seed give the same numbers). "
            "With --json and --test, each table's object also holds its attacks under 'membership' and "
            "'risks'."
        ),
        epilog=_EPILOG_PRIVACY,
    )
    _add_inputs(priv)
    priv.add_argument("--test", help="real holdout data the generator never saw: runs the membership attacks")
    priv.add_argument("--n-max", type=int, default=50_000, metavar="N", help="cap on rows per table")
    if with_settings:
        _add_settings(priv, _SETTINGS_OF["privacy"])
    _add_in_place(priv)
    priv.add_argument(
        "--allow-not-evaluated",
        action="store_true",
        help="a number that could not be measured does not fail the command (default: exit 3)",
    )
    priv.add_argument("--json", action="store_true", help="print JSON instead of a table")
    priv.set_defaults(run=_run_privacy)

    aud = commands.add_parser(
        "audit",
        help="keep the synthetic rows that are inside the real support and authentic; write them",
        description=(
            "Flags every synthetic row by alpha-precision and authenticity (METRICS.md section 8), keeps "
            "those inside the alpha-support that are authentic (dropping a parent row drops its children), "
            "writes the curated data in the synthetic input's format and prints the scores before and after. "
            "Parquet and .duckdb inputs (any with --in-place) are read in place: the training sample is "
            "drawn in the engine; one synthetic table is streamed in batches of --batch-rows through the "
            "network and its kept rows written batch by batch to Parquet (--out a .parquet file or a "
            "folder), so it may exceed memory; relational synthetic data is read whole (entity views need "
            "whole parents)."
        ),
        epilog=_EPILOG_NO_BARS,
    )
    _add_inputs(aud, synth_help="synthetic data to curate")
    aud.add_argument(
        "--out", required=True, help="curated data: a folder, a table file or a database URL, like --synth"
    )
    aud.add_argument("--alpha", type=float, default=0.95, help="rows inside the alpha-support stay (0.95)")
    aud.add_argument("--n-max", type=int, default=50_000, metavar="N", help="cap on training rows per table")
    aud.add_argument("--flags", metavar="FILE", help="also write each synthetic row's flags to this CSV")
    aud.add_argument("--replace", action="store_true", help="replace existing tables of a database --out")
    aud.add_argument(
        "--no-report-scores", action="store_true", help="skip the similarity and privacy scores (faster)"
    )
    aud.add_argument(
        "--batch-rows",
        type=int,
        default=100_000,
        metavar="N",
        help=(
            "synthetic rows held at a time when one synthetic table is read in place and curated batch "
            "by batch to Parquet (100000)"
        ),
    )
    _add_in_place(aud)
    aud.add_argument("--json", action="store_true", help="print the summary as JSON")
    aud.set_defaults(run=_run_audit)

    demo = commands.add_parser(
        "demo",
        help="write a report on demo data that ships with reportgen (UCI Adult + SDV CTGAN)",
        description=(
            "A real report on data inside the package: by default one table (4,000 rows of UCI Adult, "
            "a real holdout of 2,000 rows the generator never saw, SDV CTGAN's synthetic rows, target "
            "income), so every section shows its references; --relational shows four linked tables "
            "of the Chinook database and SDV HMA's synthetic version instead."
        ),
        epilog=_EPILOG_NO_BARS,
    )
    demo.add_argument(
        "--relational", action="store_true", help="the multi-table demo (Chinook, 4 tables, SDV HMA)"
    )
    demo.add_argument(
        "--out",
        default="reportgen-demo/report.pdf",
        help="output file: .pdf or .html (default reportgen-demo/report.pdf)",
    )
    demo.add_argument("--seed", type=int, default=0)
    _add_quiet(demo)
    demo.set_defaults(run=_run_demo)

    _add_verify(commands)

    sql = commands.add_parser(
        "sql",
        help="print the exact SQL a report sends to an engine (Spark, Snowflake, BigQuery, Trino...)",
        description=(
            "Runs every kind of statement a report read in place sends (row counts, missing values, "
            "bin counts, KS, content digest, keys, the seeded sample) on INPUT with DuckDB, and prints "
            "each one as it is sent to --dialect: the statements are written once and translated by "
            "SQLGlot. Without INPUT, on the relational demo data that ships with reportgen."
        ),
        epilog=_EPILOG_NO_BARS,
    )
    sql.add_argument("input", nargs="?", help="a data folder, file, .duckdb file or database URL")
    sql.add_argument("--dialect", required=True, choices=sorted(DIALECTS), help="the engine's SQL dialect")
    sql.add_argument("--schema", help="schema file (YAML or JSON) of the input")
    sql.add_argument("--seed", type=int, default=0, help="seed of the sample's order (default 0)")
    sql.set_defaults(run=_run_sql)
    return parser


def _add_judging(
    parser: argparse.ArgumentParser, settings_of: tuple[str, ...] | None, with_settings: bool
) -> None:
    """The options of ``report`` that ``compare`` shares: title, caps, targets, bars, settings, in place."""
    parser.add_argument("--title", help="title on the first page")
    for role in ("train", "test", "synth"):
        parser.add_argument(
            f"--n-max-{role}",
            type=int,
            default=50_000,
            metavar="N",
            help=f"cap on {role} rows per table (default 50000)",
        )
    parser.add_argument(
        "--max-categories",
        type=int,
        default=20,
        metavar="N",
        help="numbers with at most N distinct values are categorical (default 20)",
    )
    parser.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="TABLE=COLUMN",
        help="the column the utility models predict, repeatable (one table: COLUMN alone is enough)",
    )
    parser.add_argument(
        "--fail-under",
        action=_BarsAction,
        default=[],
        metavar="NAME=VALUE",
    )
    parser.add_argument(
        "--allow-not-evaluated",
        action="store_true",
        help="a bar whose number could not be computed does not fail the release (default: it fails)",
    )
    parser.add_argument(
        "--device",
        default="cpu",
        metavar="DEVICE",
        help="where torch runs the exact neighbour searches: cpu, cuda, cuda:N or auto (a GPU "
        "where torch sees one; default cpu)",
    )
    if with_settings:
        _add_settings(parser, settings_of)
    _add_in_place(parser)


def _add_inputs(
    parser: argparse.ArgumentParser, *, synth_help: str = "synthetic data", candidates: bool = False
) -> None:
    """The options every evaluating command shares: the inputs, their schema and the seed.

    ``candidates``: ``--synth`` is repeatable, one candidate each (``compare``).
    """
    parser.add_argument("--train", required=True, help="real training data (what the generator saw)")
    if candidates:
        parser.add_argument("--synth", required=True, action="append", metavar="[NAME=]PATH", help=synth_help)
    else:
        parser.add_argument("--synth", required=True, help=synth_help)
    parser.add_argument("--schema", help="schema file (YAML or JSON) applied to every input")
    parser.add_argument("--seed", type=int, default=0, help="seed of every random step (default 0)")


def _add_in_place(parser: argparse.ArgumentParser) -> None:
    """``--in-place``: every input read where it is, as Parquet and .duckdb inputs always are."""
    parser.add_argument(
        "--in-place",
        action="store_true",
        help=(
            "read every input where it is (CSV through DuckDB, databases by SQL) instead of loading it; "
            "Parquet and .duckdb inputs always are: samples drawn in the engine, never loaded whole"
        ),
    )

    parser.add_argument(
        "--spark-conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=(
            "a setting of the Spark session for spark:// and sc:// inputs (repeatable), e.g. "
            "spark.executor.memory=4g; inputs such as spark://local[2]/lake/train/ (a Parquet folder), "
            "spark://yarn/sales (a database's tables) or sc://host:15002/main.sales (Spark Connect)"
        ),
    )


def _with_spark_conf(given: str | None, settings: Sequence[str]) -> str | None:
    """A ``spark://`` or ``sc://`` input with ``--spark-conf`` settings added to its query."""
    from urllib.parse import quote as escape

    from reportgen.data.spark import is_spark_url

    if not given or not settings or not is_spark_url(given):
        return given
    pairs = []
    for text in settings:
        key, sep, value = text.partition("=")
        if not sep or not key.strip():
            raise InvalidParameterError(
                f"--spark-conf {text!r}: expected KEY=VALUE, e.g. spark.executor.memory=4g."
            )
        pairs.append(f"{escape(key.strip())}={escape(value.strip())}")
    return given + ("&" if "?" in given else "?") + "&".join(pairs)


def _add_quiet(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress display")


def _progress(args: argparse.Namespace):
    """A progress display on a terminal; nothing when output goes to a log or --quiet is given."""
    if args.quiet or not sys.stderr.isatty():
        return None

    def show(stage: str, fraction: float) -> None:
        print(f"[{fraction:4.0%}] {stage}", file=sys.stderr, flush=True)

    return show


def _run_report(args: argparse.Namespace) -> int:
    from reportgen.api import report
    from reportgen.config import read_config
    from reportgen.data.io import read_schema
    from reportgen.gates import gate_message, parse_bar
    from reportgen.outputs import check_output_path

    _check_out(args.out)
    if args.junit:
        check_output_path(Path(args.junit))
    settings = _given_settings(args)
    schema = read_schema(args.schema) if args.schema else None
    train, test, synth, tables = _inputs(args, schema)
    config = read_config(args.config) if args.config else None
    bars = dict(config.fail_under) if config else {}
    bars |= dict(parse_bar(text) for text in args.fail_under)
    results = report(
        train,
        test,
        synth,
        args.out,
        fail_under=bars,
        decision=config.decision if config else None,
        previous=args.previous,
        junit=args.junit,
        **_judging(args, settings, schema, train, tables),
    )
    _announce(Path(args.out))
    for gate in results.gates.failed:
        print(f"reportgen: {gate_message(gate)}", file=sys.stderr)
    if results.comparison is not None:
        for change in results.comparison.regressions:
            print(
                f"reportgen: regression since the previous release: {change.label.lower()}", file=sys.stderr
            )
    return EXIT_OK if results.gates.passed else EXIT_BAR_FAILED


def _judging(
    args: argparse.Namespace, settings: dict[str, Any], schema: Schema | None, train: Any, tables: list[str]
) -> dict[str, Any]:
    """The keywords ``report`` and ``compare`` both take from the options ``_add_judging`` declares."""
    return {
        "allow_not_evaluated": args.allow_not_evaluated,
        "schema": schema if isinstance(train, str) else None,  # loaded data already carries it
        "targets": _targets(args.target, tables),
        "n_max_train": args.n_max_train,
        "n_max_test": args.n_max_test,
        "n_max_synth": args.n_max_synth,
        "max_categories": args.max_categories,
        "seed": args.seed,
        "device": args.device,
        "title": args.title,
        "progress": _progress(args),
        **settings,
    }


def _run_compare(args: argparse.Namespace) -> int:
    from reportgen.candidates import compare_candidates
    from reportgen.config import read_config
    from reportgen.data.io import read_schema
    from reportgen.data.sources import is_lake_input
    from reportgen.gates import parse_bar

    _check_out(args.out)
    specs = candidate_specs(args.synth)
    settings = _given_settings(args)
    schema = read_schema(args.schema) if args.schema else None
    paths = list(specs.values())
    args.synth = paths[0]
    args.in_place = in_place(args) or any(is_lake_input(p) for p in paths)  # read in place: all alike
    train, test, _, tables = _inputs(args, schema)  # the real data, loaded (or opened) once
    candidates = {name: _candidate(args, path, schema) for name, path in specs.items()}
    bars = read_config(args.config).fail_under if args.config else {}
    bars |= dict(parse_bar(text) for text in args.fail_under)
    comparison = compare_candidates(
        train,
        test,
        candidates,
        args.out,
        reports=args.reports,
        fail_under=bars,
        **_judging(args, settings, schema, train, tables),
    )
    print(f"Comparison written to {args.out} (results: {Path(args.out).with_suffix('.json')})")
    if comparison.recommended is None:
        for candidate in comparison.candidates:
            print(f"reportgen: {candidate.name} cannot be recommended: {candidate.excluded}", file=sys.stderr)
        return EXIT_BAR_FAILED
    print(f"Recommended: {comparison.recommended}")
    return EXIT_OK


def candidate_specs(texts: Sequence[str]) -> dict[str, str]:
    """``--synth`` values as {name: path}: ``NAME=PATH``, or a path named after its file or folder."""
    specs: dict[str, str] = {}
    for text in texts:
        name, sep, path = text.partition("=")
        if not sep or Path(text).exists():
            name, path = _name_of(text), text
        name, path = name.strip(), path.strip()
        if not name or not path:
            raise InvalidParameterError(
                f"--synth {text!r}: expected NAME=PATH (or a PATH alone), "
                "e.g. --synth ctgan=synthetic/ctgan/."
            )
        if name in specs:
            raise InvalidParameterError(
                f"--synth {text!r}: a candidate named {name!r} was given already ({specs[name]!r}); "
                "give each candidate its own name with NAME=PATH."
            )
        specs[name] = path
    return specs


def _candidate(args: argparse.Namespace, path: str, schema: Schema | None) -> Any:
    """One candidate's synthetic data as ``_inputs`` passes it on: a path read in place, or loaded."""
    from reportgen.data.io import load

    if args.in_place:
        return _with_spark_conf(path, args.spark_conf)
    return load(path, schema)


def _name_of(path: str) -> str:
    """A candidate's name from its path: the file's name without suffixes, or the folder's name."""
    given = Path(path.rstrip("/\\"))
    return given.name.split(".")[0] if given.suffix else given.name


def _inputs(args: argparse.Namespace, schema: Schema | None) -> tuple[Any, Any, Any, list[str]]:
    """The inputs of ``report``, ``privacy`` and ``audit``, and the training data's table names.

    Parquet files and folders and DuckDB files (and every input with ``--in-place``) are passed on
    as paths, which the Python functions read where they are (``reportgen.sources``); the others
    are loaded.
    """
    from reportgen.data.io import load
    from reportgen.data.sources import open_source

    holdout = getattr(args, "test", None)  # audit has no holdout
    if args.spark_conf:
        args.train, args.synth = (_with_spark_conf(p, args.spark_conf) for p in (args.train, args.synth))
        holdout = _with_spark_conf(holdout, args.spark_conf)
    if in_place(args):
        with open_source(args.train, schema) as source:
            tables = list(source.relations)
        return args.train, holdout, args.synth, tables
    train = load(args.train, schema)
    synth = load(args.synth, schema)  # report() checks it against the training data, by role
    test = load(holdout, schema) if holdout else None
    return train, test, synth, list(train)


def in_place(args: argparse.Namespace) -> bool:
    """Whether a command reads its inputs in place: ``--in-place``, or any Parquet or DuckDB input."""
    from reportgen.data.sources import is_lake_input

    given = [p for p in (args.train, getattr(args, "test", None), args.synth) if p]
    return bool(args.in_place) or any(is_lake_input(p) for p in given)


def _targets(texts: Sequence[str], tables: list[str]) -> dict[str, str]:
    """``--target`` values as {table: column}: ``TABLE=COLUMN``, or ``COLUMN`` when there is one table."""
    targets = {}
    for text in texts:
        table, sep, column = text.partition("=")
        if not sep or (table not in tables and len(tables) == 1):
            if len(tables) != 1:
                raise InvalidParameterError(
                    f"--target {text!r}: the data has {len(tables)} tables, so name the table as "
                    f"TABLE=COLUMN (tables: {sorted(tables)})."
                )
            table, column = tables[0], text
        targets[table] = column
    return targets


class _BarsAction(argparse._AppendAction):
    """``--fail-under``, whose help lists the bars the registered sections offer.

    The help is built only when it is shown: listing the bars loads every section (and plugin),
    which every other command line would pay for at start-up.
    """

    @property
    def help(self) -> str:
        return _bar_help()

    @help.setter
    def help(self, value: str | None) -> None:
        pass


def _bar_help() -> str:
    """The --fail-under help, from the bars the registered sections offer."""
    from reportgen.gates import bar_specs

    offered = bar_specs().values()
    at_least = ", ".join(b.name for b in offered if b.higher_is_better)
    at_most = ", ".join(f"{b.name} ({b.bounds})" for b in offered if not b.higher_is_better)
    return (
        "release bar on a headline, repeatable (e.g. privacy=80); exit 3 when the number is worse than "
        f"VALUE: below it for {at_least} (scores 0-100), above it for {at_most}"
    )


def _add_settings(parser: argparse.ArgumentParser, owners: tuple[str, ...] | None) -> None:
    """An option for each setting the sections declare (``owners``: only these sections').

    The help lists them under each section's title.
    """
    from reportgen.catalogue import sections

    for section in sections():
        shown = [s for s in section.settings if s.parse is not None]  # the others: Python only
        if not shown or (owners is not None and section.name not in owners):
            continue
        group = parser.add_argument_group(f"settings of {section.title}")
        for setting in shown:
            assert setting.parse is not None
            default = "" if setting.default is None else f" (default {setting.default})"
            group.add_argument(
                setting.option,
                *setting.aliases,
                dest=setting.name,
                type=setting.parse,
                action="append" if setting.repeatable else "store",
                default=None,
                metavar=setting.metavar,
                help=(setting.help + default).replace("%", "%%"),
            )


def _given_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The sections' settings given on the command line (the others keep their declared defaults).

    Each is checked against its declaration here, so a bad value fails before any data is read;
    so is ``--device`` (a GPU torch cannot see), which ``_judging`` passes on.
    """
    from reportgen.catalogue import report_settings, section_settings

    given = {
        name: getattr(args, name) for name in section_settings() if getattr(args, name, None) is not None
    }
    report_settings(**given, **({"device": args.device} if "device" in args else {}))
    return given


def _run_privacy(args: argparse.Namespace) -> int:
    """The privacy numbers per table (with --test the attacks too), and why any could not be measured.

    One evaluation context serves every measure, with the settings ``report`` would use, so the
    numbers equal ``compute_privacy_stats``, ``compute_membership`` and ``compute_privacy_risks``.
    A number that cannot be measured fails the command (exit 3), as a release bar that cannot be
    evaluated fails ``report``, unless ``--allow-not-evaluated``.
    """
    import json

    from reportgen.catalogue import report_settings
    from reportgen.data.io import read_schema
    from reportgen.metrics.membership import epsilon_claim, membership_outcomes
    from reportgen.metrics.privacy import privacy_outcomes
    from reportgen.metrics.privacy_risks import risk_outcomes
    from reportgen.preparation import prepared
    from reportgen.settings import ReportSettings

    given = _given_settings(args)
    schema = read_schema(args.schema) if args.schema else None
    train, test, synth, _ = _inputs(args, schema)
    shared = ReportSettings(
        seed=args.seed, n_max_train=args.n_max, n_max_test=args.n_max, n_max_synth=args.n_max
    )
    settings = report_settings(shared, **given)
    with prepared(train, test, synth, settings, schema=schema) as ctx:
        privacy = privacy_outcomes(ctx, section=False)
        attacks = membership_outcomes(ctx) if test is not None else {}
        risks = risk_outcomes(ctx) if test is not None else {}
        claim = (
            epsilon_claim(ctx, [o for o in attacks.values() if not isinstance(o, str)]) if attacks else None
        )
    stats = {n: o.proximity for n, o in privacy.items() if not isinstance(o, str) and o.proximity is not None}
    measured = {n: o.stats for n, o in attacks.items() if not isinstance(o, str)}
    found = {n: o for n, o in risks.items() if not isinstance(o, str)}
    # Tables too small for the ratios still show their exact copies (a verbatim copy of 60 rows shows).
    copies = {
        n: o.distances.exact_copies for n, o in privacy.items() if not isinstance(o, str) and n not in stats
    }
    missing = _not_measured(
        {
            "privacy score": {n: o if isinstance(o, str) else o.proximity_reason for n, o in privacy.items()},
            "membership attacks": {n: o for n, o in attacks.items() if isinstance(o, str)},
            "singling out, linkability and inference": {n: o for n, o in risks.items() if isinstance(o, str)},
        }
    )
    if settings.claimed_epsilon is not None and claim is None:
        why = "no view could be attacked" if test is not None else "the attacks need a holdout (--test)"
        missing.setdefault("claimed epsilon", {})["audit of the claim"] = why
    if args.json:
        printed: dict[str, dict] = {name: {} for name in privacy}
        for name, s in stats.items():
            printed[name] |= s.model_dump(mode="json")
        for name, share in copies.items():
            printed[name]["exact_copies"] = share
        for key, results in (("membership", measured), ("risks", found)):
            for name, a in results.items():
                printed[name][key] = a.model_dump(mode="json")
        for name, reasons in missing.items():
            printed.setdefault(name, {})["not_measured"] = reasons
        if claim is not None:
            printed["epsilon_claim"] = claim.model_dump(mode="json")
        print(json.dumps(printed, indent=2))
    else:
        _print_privacy(stats)
        for name, share in copies.items():
            print(f"{name}: {share:.1%} of the synthetic rows are exact copies of training rows")
        for printer, results in ((_print_attacks, measured), (_print_risks, found)):
            if results:
                print()
                printer(results)
        if claim is not None:
            print()
            _print_claim(claim)
    outcome = _fail_closed(missing, args.allow_not_evaluated)
    return EXIT_BAR_FAILED if claim is not None and claim.contradicted else outcome


def _print_claim(claim: EpsilonClaim) -> None:
    """The claimed guarantee against the attacks' largest bound: refuted, or not refuted (never confirmed)."""
    bound = f"the attacks prove epsilon >= {claim.lower_bound:.2f} ({claim.attack} on {claim.table})"
    claimed = f"Claimed ({claim.epsilon:g}, {claim.delta:g})-differential privacy: {bound}"
    if claim.contradicted:
        print(f"{claimed}, above the claim: the evidence contradicts it.")
    else:
        print(
            f"{claimed}, at or below the claim: not contradicted. A population-level lower bound can "
            "refute a claim, never confirm it."
        )


def _not_measured(reasons: dict[str, dict[str, str | None]]) -> dict[str, dict[str, str]]:
    """``{number: {table: reason or None}}`` turned into ``{table: {number: reason}}``, the missing only."""
    missing: dict[str, dict[str, str]] = {}
    for label, per_table in reasons.items():
        for name, reason in per_table.items():
            if reason is not None:
                missing.setdefault(name, {})[label] = reason
    return missing


def _fail_closed(missing: dict[str, dict[str, str]], allowed: bool) -> int:
    """Say on stderr why each missing number is missing; exit 3 for any, unless they are allowed."""
    for name, reasons in missing.items():
        for label, reason in reasons.items():
            print(f"reportgen: not measured for {name}: {label}: {reason}", file=sys.stderr)
    if missing and not allowed:
        print(
            "reportgen: a number that cannot be measured fails, as a release bar that cannot be "
            "evaluated fails report; pass --allow-not-evaluated to accept that.",
            file=sys.stderr,
        )
        return EXIT_BAR_FAILED
    return EXIT_OK


def _print_privacy(stats: dict) -> None:
    width = max([5, *(len(name) for name in stats)])
    print(f"{'table':<{width}}  {'privacy score':>13}  {'std':>5}  {'95% interval':>12}  {'risk':>6}")
    for name, s in stats.items():
        low, high = s.privacy_score_interval
        print(
            f"{name:<{width}}  {s.privacy_score:13.1f}  {s.privacy_score_std:5.1f}  "
            f"{f'{low:.0f}-{high:.0f}':>12}  {s.risk:6.1%}"
        )


def _print_attacks(attacks: dict) -> None:
    """The worst membership attack (highest AUC) per table, with its intervals and the chance levels."""
    width = max([5, *(len(name) for name in attacks)])
    print(
        f"{'table':<{width}}  {'worst attack':<13}  {'AUC (95% interval)':>21}  "
        f"{'TPR@1%FPR (95% interval)':>25}  {'epsilon':>7}  {'chance AUC':>10}  {'chance TPR':>10}"
    )
    for name, m in attacks.items():
        worst, chance = m.worst, m.self_test.chance
        rate = worst.at(0.01)
        auc = f"{worst.auc:.3f} ({worst.auc_interval[0]:.3f}-{worst.auc_interval[1]:.3f})"
        tpr = f"{rate.tpr:.2%} ({rate.tpr_interval[0]:.2%}-{rate.tpr_interval[1]:.2%})"
        print(
            f"{name:<{width}}  {worst.attack:<13}  {auc:>21}  {tpr:>25}  {worst.epsilon_lower:7.2f}  "
            f"{chance.auc:10.3f}  {chance.tpr_at_1pct_fpr:10.2%}"
        )


def _print_risks(risks: dict) -> None:
    """The worst singling-out, linkability and inference attack per table, with their intervals."""
    width = max([5, *(len(name) for name in risks)])
    print(f"{'table':<{width}}  {'attack':<13}  {'worst':<24}  {'risk (95% interval)':>22}  {'targets':>7}")
    for name, view in risks.items():
        for attack in ("singling_out", "linkability", "inference"):
            worst = view.worst(attack)
            if worst is None:
                continue
            low, high = worst.risk_interval
            risk = f"{worst.risk:.2%} ({low:.2%}-{high:.2%})"
            print(f"{name:<{width}}  {attack:<13}  {worst.detail[:24]:<24}  {risk:>22}  {view.targets:7,}")


def _run_audit(args: argparse.Namespace) -> int:
    from reportgen.auditing import audit_command

    print(
        audit_command(
            args.train,
            args.synth,
            args.out,
            schema_file=args.schema,
            alpha=args.alpha,
            n_max=args.n_max,
            seed=args.seed,
            flags_file=args.flags,
            replace=args.replace,
            with_report_scores=not args.no_report_scores,
            as_json=args.json,
            in_place=args.in_place,
            batch_rows=args.batch_rows,
        )
    )
    return EXIT_OK


def _add_verify(commands: Any) -> None:
    """``reportgen verify STATEMENT``: a report's in-toto statement against its files and inputs."""
    ver = commands.add_parser(
        "verify",
        help="check a report's in-toto statement (NAME.intoto.json) against its files and, given, its inputs",
        description=(
            "Recomputes the SHA-256 of the report and the JSON that the statement names (looked for "
            "beside it) and, given the inputs as to reportgen report (--train, --test, --synth, "
            "--schema, ...), their fingerprints, and prints what matches and what does not, and what "
            "was not checked. A signature over the statement is checked with the tool that made it "
            "(cosign verify-blob, gpg --verify)."
        ),
        epilog=_EXIT_VERIFY,
    )
    ver.add_argument("statement", help="the .intoto.json written beside the report")
    ver.add_argument("--train", help="the report's training data, as given to reportgen report")
    ver.add_argument("--test", help="its holdout, if the report had one")
    ver.add_argument("--synth", help="its synthetic data")
    ver.add_argument("--schema", help="the schema file the report was given, if any")
    _add_in_place(ver)
    ver.set_defaults(run=_run_verify)


def _run_verify(args: argparse.Namespace) -> int:
    from reportgen.data.io import read_schema
    from reportgen.verification import verify_statement

    given = bool(args.train or args.synth or args.test)
    schema = read_schema(args.schema) if args.schema else None
    train = test = synth = None
    if given:
        if not (args.train and args.synth):
            raise InvalidParameterError(
                "To check the inputs, give --train and --synth (and --test if the report had a holdout) "
                "as they were given to reportgen report; or none of them, to check the files only."
            )
        train, test, synth, _ = _inputs(args, schema)
    verification = verify_statement(
        args.statement,
        data_train=train,
        data_test=test,
        data_synth=synth,
        schema=schema if isinstance(train, str) else None,  # loaded data already carries it
    )
    print("\n".join(verification.lines()))
    return EXIT_OK if verification.passed else EXIT_NOT_VERIFIED


def _run_sql(args: argparse.Namespace) -> int:
    from importlib.resources import as_file, files

    from reportgen.data.sources import open_source
    from reportgen.data.statements import sent_statements

    demo = files("reportgen").joinpath("demo_data/chinook")
    with as_file(demo) as folder:
        given = args.input or folder / "real"
        schema = args.schema or (None if args.input else folder / "schema.yaml")
        with open_source(given, schema) as source:
            for statement in sent_statements(source, args.dialect, seed=args.seed):
                print(statement + ";\n")
    return EXIT_OK


def _run_demo(args: argparse.Namespace) -> int:
    from reportgen.demo import run_demo

    _check_out(args.out)
    run_demo(args.out, relational=args.relational, seed=args.seed, progress=_progress(args))
    _announce(Path(args.out))
    return EXIT_OK


def _check_out(out: str) -> None:
    """Refuse an --out that cannot be written before loading anything; say which folders are created."""
    from reportgen.outputs import check_output_path
    from reportgen.render.document import output_format

    output_format(Path(out))
    missing = check_output_path(Path(out))
    if missing:  # the outermost missing folder: the ones inside it are created with it
        print(f"reportgen: folder {missing[0]} does not exist; it will be created", file=sys.stderr)


def _announce(path: Path) -> None:
    from reportgen.outputs import json_path_of, statement_path_of

    print(f"Report written to {path} (results: {json_path_of(path)}, statement: {statement_path_of(path)})")


if __name__ == "__main__":
    sys.exit(main())
