"""reportgen: is this synthetic dataset fit to share?  Fidelity, utility and privacy reports.

Evaluates synthetic data against the real data it imitates (fidelity, utility, privacy) and writes a
PDF or HTML report with the results as JSON beside it.
"""

from typing import TYPE_CHECKING

__version__ = "0.1.0"

# Every public name is imported on first use: ``import reportgen`` alone costs nothing, so the
# one-class network's training process (``reportgen.privacy.one_class``) starts without loading
# the whole report (pandas, scikit-learn, WeasyPrint), and the command line starts sooner.
_LAZY = {
    "report": "reportgen.api",
    "RelationalData": "reportgen.data.relational",
    "SplitWarning": "reportgen.data.relational",
    "ColumnKind": "reportgen.data.schema",
    "ForeignKey": "reportgen.data.schema",
    "PrimaryKey": "reportgen.data.schema",
    "Schema": "reportgen.data.schema",
    "Table": "reportgen.data.schema",
    "DataError": "reportgen.errors",
    "IncompatibleDataError": "reportgen.errors",
    "InvalidParameterError": "reportgen.errors",
    "LoadError": "reportgen.errors",
    "RenderError": "reportgen.errors",
    "ReportgenError": "reportgen.errors",
    "SchemaError": "reportgen.errors",
    "Finding": "reportgen.results",
    "ReportResults": "reportgen.results",
    "ReportColumns": "reportgen.settings",
    "audit": "reportgen.auditing",
    "compare_candidates": "reportgen.candidates",
    "CandidateComparison": "reportgen.choice",
    "compute_membership": "reportgen.standalone",
    "compute_privacy_stats": "reportgen.standalone",
    "compute_privacy_risks": "reportgen.standalone",
    "verify_statement": "reportgen.verification",
    "Verification": "reportgen.verification",
}
_LAZY_MODULES = {"sources": "reportgen.data.sources"}
# Modules a name needs imported before it is handed out. JSON results name each section; the section
# catalogue, which sits above ``reportgen.results`` (so results.py cannot import it without an import
# circle), tells ``ReportResults`` each section's result class when it is imported, so that
# ``rg.ReportResults.load(path)`` gives typed sections in a fresh process too.
_WIRED = {"ReportResults": "reportgen.catalogue"}

if TYPE_CHECKING:
    from reportgen.api import report
    from reportgen.auditing import audit
    from reportgen.candidates import compare_candidates
    from reportgen.choice import CandidateComparison
    from reportgen.data import sources
    from reportgen.data.relational import RelationalData, SplitWarning
    from reportgen.data.schema import ColumnKind, ForeignKey, PrimaryKey, Schema, Table
    from reportgen.errors import (
        DataError,
        IncompatibleDataError,
        InvalidParameterError,
        LoadError,
        RenderError,
        ReportgenError,
        SchemaError,
    )
    from reportgen.results import Finding, ReportResults
    from reportgen.settings import ReportColumns
    from reportgen.standalone import compute_membership, compute_privacy_risks, compute_privacy_stats
    from reportgen.verification import Verification, verify_statement


def __getattr__(name: str):
    from importlib import import_module

    if name in _LAZY:
        if name in _WIRED:
            import_module(_WIRED[name])
        return getattr(import_module(_LAZY[name]), name)
    if name in _LAZY_MODULES:
        return import_module(_LAZY_MODULES[name])
    raise AttributeError(f"module 'reportgen' has no attribute {name!r}")


__all__ = [
    "CandidateComparison",
    "ColumnKind",
    "DataError",
    "Finding",
    "ForeignKey",
    "IncompatibleDataError",
    "InvalidParameterError",
    "LoadError",
    "PrimaryKey",
    "RelationalData",
    "RenderError",
    "ReportColumns",
    "ReportResults",
    "ReportgenError",
    "Schema",
    "SchemaError",
    "SplitWarning",
    "Table",
    "Verification",
    "__version__",
    "audit",
    "compare_candidates",
    "compute_membership",
    "compute_privacy_risks",
    "compute_privacy_stats",
    "report",
    "sources",
    "verify_statement",
]
