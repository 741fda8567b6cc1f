"""File writes: atomic, and named safely.

A reader sees the old file or the new one, never half of one; a file name made from a table name
stays inside its folder.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from pathlib import Path

# Characters a table name may hold that a file name must not: path separators (a name like
# ``../x`` or ``/etc/x`` would leave the folder), characters Windows refuses, glob characters
# (DuckDB reads a file name as a pattern), and ``%`` itself, so the encoding is one-to-one.
_NOT_IN_FILE_NAMES = frozenset('/\\%:*?"<>|[]{}')


def write_atomic(path: Path, write: Callable[[Path], object]) -> None:
    """Call ``write`` on a temporary file beside ``path``, then rename it onto ``path``.

    On any failure the temporary file is removed and ``path`` keeps its previous content. The
    temporary file is created by ``write`` itself, so the result gets the usual permissions.
    """
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        write(temporary)
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def safe_file_name(name: str, suffix: str) -> str:
    """``name`` plus ``suffix`` as a single file name that stays inside the folder it is joined to.

    A table name comes from the user's data (a database table may be called ``../escaped``), so
    every character that could make it a path, a pattern or a name the file system refuses is
    written as ``%XX`` (its UTF-8 bytes in hex); other characters are kept, so ordinary names stay
    readable. Distinct names give distinct file names, and ``schema.yaml`` names each table's file.
    """
    encoded = "".join(
        "".join(f"%{byte:02X}" for byte in char.encode("utf-8"))
        if char in _NOT_IN_FILE_NAMES or not char.isprintable()
        else char
        for char in name
    )
    if encoded.startswith("."):  # a hidden file, or "." and ".." themselves
        encoded = "%2E" + encoded[1:]
    return encoded + suffix
