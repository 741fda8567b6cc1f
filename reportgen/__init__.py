"""reportgen: is this synthetic dataset fit to share?  Fidelity, utility and privacy reports.

Evaluates synthetic data against the real data it imitates (fidelity, utility, privacy) and writes a
PDF or HTML report with the results as JSON beside it.
"""

from reportgen.api import report
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

__version__ = "0.1.0"

_LAZY = {  # imported on first use (they load torch)
    "audit": "reportgen.auditing",
    "compute_membership": "reportgen.metrics.membership",
    "compute_privacy_stats": "reportgen.metrics.privacy",
    "compute_privacy_risks": "reportgen.metrics.privacy_risks",
}


def __getattr__(name: str):
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'reportgen' has no attribute {name!r}")


__all__ = [
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
    "__version__",
    "audit",
    "compute_membership",
    "compute_privacy_risks",
    "compute_privacy_stats",
    "report",
    "sources",
]
