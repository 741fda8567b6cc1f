"""An in-toto Statement v1: a small JSON naming files by SHA-256 (its subjects), with a predicate.

The statement is what a user signs with their own tools (``cosign attest-blob``, ``gpg
--detach-sign``): reportgen writes it beside every report (``reportgen.outputs.write_pair``) and
never holds a key. The format is the in-toto Attestation Framework's Statement layer, v1
(https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md):

- ``_type``: ``"https://in-toto.io/Statement/v1"``;
- ``subject``: one or more resource descriptors, each with a ``name`` and a ``digest`` (here
  ``{"sha256": ...}`` of the file's exact bytes; also a ``mediaType``);
- ``predicateType``: a URI naming the predicate's meaning (ours: ``PREDICATE_TYPE``);
- ``predicate``: an object (ours: ``reportgen.record.predicate_of``).

``statement_problems`` checks these required fields, as the reference implementation
(``in-toto-attestation`` on PyPI) validates them; that package is not used, because it goes
through protobuf's ``Struct``, which stores every number as a double (a seed or a row count would
come back as ``0.0``), and brings protobuf for twenty lines of JSON. A leaf: only the standard
library.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://reportgen.dev/report-record/v1"
MEDIA_TYPES = {
    ".pdf": "application/pdf",
    ".html": "text/html",
    ".htm": "text/html",
    ".json": "application/json",
}


def sha256_hex(content: bytes) -> str:
    """The SHA-256 of ``content`` as lowercase hex, as subjects and fingerprints write it."""
    return hashlib.sha256(content).hexdigest()


def subject(name: str, content: bytes) -> dict[str, Any]:
    """A resource descriptor for a file ``name`` holding exactly ``content``."""
    suffix = name[name.rfind(".") :].lower() if "." in name else ""
    described: dict[str, Any] = {"name": name, "digest": {"sha256": sha256_hex(content)}}
    if suffix in MEDIA_TYPES:
        described["mediaType"] = MEDIA_TYPES[suffix]
    return described


def statement_text(subjects: Sequence[Mapping[str, Any]], predicate: Mapping[str, Any]) -> str:
    """The statement as JSON text (sorted keys, so the same content gives the same bytes)."""
    statement = {
        "_type": STATEMENT_TYPE,
        "subject": list(subjects),
        "predicateType": PREDICATE_TYPE,
        "predicate": dict(predicate),
    }
    problems = statement_problems(statement)
    assert not problems, problems  # built here: a problem is a bug, not bad input
    return json.dumps(statement, indent=2, sort_keys=True, allow_nan=False) + "\n"


def statement_problems(statement: Any) -> list[str]:
    """What keeps ``statement`` from being a valid in-toto Statement v1, in words (empty: valid)."""
    if not isinstance(statement, Mapping):
        return ["it is not a JSON object"]
    problems = []
    if statement.get("_type") != STATEMENT_TYPE:
        problems.append(f"'_type' is {statement.get('_type')!r}, not {STATEMENT_TYPE!r}")
    subjects = statement.get("subject")
    if not isinstance(subjects, list) or not subjects:
        problems.append("'subject' is not a non-empty list")
    else:
        problems += [p for i, s in enumerate(subjects) for p in _subject_problems(i, s)]
    if not isinstance(statement.get("predicateType"), str) or not statement.get("predicateType"):
        problems.append("'predicateType' is missing")
    if not isinstance(statement.get("predicate"), Mapping) or not statement.get("predicate"):
        problems.append("'predicate' is not a non-empty object")
    return problems


def _subject_problems(index: int, described: Any) -> list[str]:
    """A subject must have a digest (v1), each digest a lowercase hex string; ours also a name."""
    if not isinstance(described, Mapping):
        return [f"subject {index} is not an object"]
    digest = described.get("digest")
    if not isinstance(digest, Mapping) or not digest:
        return [f"subject {index} has no digest"]
    problems = []
    if not isinstance(described.get("name"), str) or not described.get("name"):
        problems.append(f"subject {index} has no name")
    for algorithm, value in digest.items():
        if not isinstance(value, str) or not value or value.strip("0123456789abcdef"):
            problems.append(f"subject {index}'s {algorithm} digest is not lowercase hex")
    return problems
