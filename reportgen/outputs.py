"""Where a report goes: the path checked before any work; the report, JSON and statement written together.

Checking first: a run can take minutes, so a path that cannot be written (a folder where the file
should be, a parent that is a file, a folder without write permission) is refused before the data
are read, with the path and the fix in the message. A missing folder is not a mistake: it is
created, by ``report()`` and by the command line alike (which says so on the terminal), as a
``mkdir -p`` would; the nearest folder that exists must be writable.

Writing together: the report (PDF or HTML), its JSON and its in-toto statement (``NAME.intoto.json``,
``reportgen.intoto``: the other two named by the SHA-256 of their exact bytes, with the run's
record as predicate) are three files that must describe the same run. ``write_pair`` renders
nothing; it receives the document and the JSON in memory, builds the statement from those very
bytes, and

1. writes each to a temporary file beside its target (``.NAME.RANDOM.tmp``) and flushes it to disk;
2. renames the document onto its target, then the JSON, then the statement (``os.replace``, atomic
   on one filesystem), the statement last, so that a statement newer than what it names is never
   seen, nor a JSON newer than its document.

SIGTERM, SIGINT and SIGHUP arriving during steps 1 and 2 (a few milliseconds of file writes, never
the rendering) are held back and delivered, with their previous handler, once all files are in
place and the temporary files are gone: a stop sent by a scheduler or a Ctrl-C leaves the old files
or the new ones, never a mix and never a temporary file. An exception in step 1 (disk full,
permission denied) removes the temporary files and leaves the old files untouched. What no handler
can catch (SIGKILL, a power cut between two renames) is made detectable instead: the document
prints the SHA-256 of its JSON's text (``results_sha256``), and the statement names both by
digest (``reportgen verify`` checks them), so a reader or an auditor can tell files that do not
belong together. Signals can be held back only in the main thread; in another thread the files are
written the same way without that guard.
"""

from __future__ import annotations

import os
import signal
import threading
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

from reportgen.errors import RenderError
from reportgen.intoto import sha256_hex, statement_text, subject

HELD_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, name)
)


def json_path_of(path: Path) -> Path:
    """The JSON written beside a report: same name, ``.json``."""
    return path.with_suffix(".json")


def statement_path_of(path: Path) -> Path:
    """The in-toto statement written beside a report: same name, ``.intoto.json``."""
    return path.with_suffix(".intoto.json")


def results_sha256(json_text: str) -> str:
    """The fingerprint the document prints of its JSON: SHA-256 of the JSON file's bytes."""
    return sha256_hex(json_text.encode("utf-8"))


def check_output_path(path: Path) -> list[Path]:
    """Refuse an output path that cannot be written, before any work; return the folders to create.

    Checked: neither the report nor its JSON is a folder, the nearest existing parent is a folder
    (not a file) and it is writable. The returned folders (outermost first) do not exist yet and
    will be created when the report is written.
    """
    if path.is_dir():
        raise RenderError(
            f"The report path {str(path)!r} is a folder. Name a file inside it, such as "
            f"{str(path / 'report.pdf')!r}."
        )
    if json_path_of(path).is_dir():
        raise RenderError(
            f"The results JSON of the report {str(path)!r} goes to {str(json_path_of(path))!r}, which is a "
            "folder. Move that folder away or give the report another name."
        )
    if statement_path_of(path).is_dir():
        raise RenderError(
            f"The statement of the report {str(path)!r} goes to {str(statement_path_of(path))!r}, which is "
            "a folder. Move that folder away or give the report another name."
        )
    return _folders_to_create(path, "the report", RenderError)


def check_output_kind(path: Path, *, folder: bool, what: str) -> None:
    """Refuse, before any work, an output that exists as the wrong kind or cannot be created.

    ``folder``: whether ``path`` is written as a folder (of files) or as one file; ``what`` names
    it in the message (such as "--out"). A path that exists as the other kind, a parent that is a
    file or an unwritable nearest folder is an ``InvalidParameterError`` saying what to do.
    """
    from reportgen.errors import InvalidParameterError

    if folder and path.exists() and not path.is_dir():
        raise InvalidParameterError(
            f"{what} {str(path)!r} is an existing file, but it is written as a folder (a file per "
            "table and schema.yaml). Name a folder, or move the file away."
        )
    if not folder and path.is_dir():
        raise InvalidParameterError(
            f"{what} {str(path)!r} is an existing folder, but it is written as one file. Name a file, "
            "or move the folder away."
        )
    _folders_to_create(path, what, InvalidParameterError)


def _folders_to_create(path: Path, what: str, error: type[Exception]) -> list[Path]:
    """The missing folders above ``path``, outermost first.

    The nearest existing one must be a writable folder, else ``error`` says so.
    """
    missing = []
    parent = path.absolute().parent
    while not parent.exists() and not parent.is_symlink():
        missing.append(parent)
        parent = parent.parent
    if not parent.is_dir():
        raise error(
            f"Cannot write {what} to {str(path)!r}: {str(parent)!r} is a file, not a folder. "
            "Choose a path whose parent is a folder."
        )
    if not os.access(parent, os.W_OK | os.X_OK):
        raise error(
            f"Cannot write {what} to {str(path)!r}: the folder {str(parent)!r} is not writable. "
            "Choose a folder you can write to, or change its permissions."
        )
    return missing[::-1]


def write_pair(document_path: Path, document: bytes, json_text: str, predicate: Mapping[str, Any]) -> None:
    """Write the report, its JSON and its statement so that all change together, or none (see the module).

    The statement names the document and the JSON by the SHA-256 of the bytes written here, with
    ``predicate`` (``reportgen.record.predicate_of``) as its predicate.
    """
    json_target, statement_target = json_path_of(document_path), statement_path_of(document_path)
    check_output_path(document_path)
    try:
        document_path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise RenderError(f"Cannot create the folder of {str(document_path)!r}: {error}") from None
    json_bytes = json_text.encode("utf-8")
    statement = statement_text(
        [subject(document_path.name, document), subject(json_target.name, json_bytes)], predicate
    )
    parts = [(document_path, document), (json_target, json_bytes), (statement_target, statement.encode())]
    temporaries = [_temporary(target) for target, _ in parts]
    with _signals_held():
        try:
            for temporary, (_, content) in zip(temporaries, parts, strict=True):
                _write_synced(temporary, content)
            for temporary, (target, _) in zip(temporaries, parts, strict=True):
                os.replace(temporary, target)
        except OSError as error:
            raise RenderError(
                f"Cannot write the report {str(document_path)!r}, its JSON and its statement: {error}. The "
                "previous files, if any, are unchanged; free disk space or fix the permissions and run again."
            ) from None
        finally:
            for temporary in temporaries:
                temporary.unlink(missing_ok=True)


def _temporary(target: Path) -> Path:
    """A hidden temporary file beside ``target``, so the rename stays on one filesystem."""
    return target.with_name(f".{target.name}.{uuid.uuid4().hex}.tmp")


def _write_synced(path: Path, content: bytes) -> None:
    """Write ``content`` and flush it to disk, so a rename never exposes an empty file after a crash."""
    with open(path, "wb") as handle:
        handle.write(content)
        handle.flush()
        os.fsync(handle.fileno())


@contextmanager
def _signals_held() -> Iterator[None]:
    """Hold back termination signals inside the block; deliver them after it, to their own handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def hold(signum: int, frame: FrameType | None) -> None:
        received.append(signum)

    previous: dict[int, Any] = {}
    try:
        for signum in HELD_SIGNALS:
            previous[signum] = signal.signal(signum, hold)
        yield
    finally:
        for signum, handler in previous.items():
            if handler is not None:  # None: a handler set outside Python, which cannot be restored
                signal.signal(signum, handler)
        for signum in dict.fromkeys(received):
            signal.raise_signal(signum)
