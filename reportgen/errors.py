"""The exceptions reportgen raises: one tree, rooted at ``ReportgenError``.

::

    ReportgenError
    ├── InvalidParameterError      a function argument is out of its allowed range or type
    ├── SchemaError                the schema contradicts itself or the data's layout
    ├── DataError                  the data cannot be evaluated as given
    │   └── IncompatibleDataError  real and synthetic data differ in tables, columns or kinds
    ├── LoadError                  a file, folder or database could not be read
    └── RenderError                the report could not be written

Every message names the table and column concerned and says how to fix the problem. Key problems
of real data (orphans, duplicate keys) are not errors: they are reported as findings.
"""

from __future__ import annotations


class ReportgenError(Exception):
    """Root of every error reportgen raises on purpose."""


class InvalidParameterError(ReportgenError, ValueError):
    """A function argument is out of its allowed range or of the wrong type."""


class SchemaError(ReportgenError):
    """The schema contradicts itself or does not match the data's tables and columns."""


class DataError(ReportgenError):
    """The data cannot be evaluated as given."""


class IncompatibleDataError(DataError):
    """Real and synthetic (or training and holdout) data differ in tables, columns or kinds."""


class LoadError(ReportgenError):
    """A file, folder or database could not be read or written."""


class RenderError(ReportgenError):
    """The report could not be rendered or written."""
