"""Release configuration files: the bars a team applies to every release, and the approver's decision.

A YAML or JSON file with two keys, both optional::

    fail_under:
      privacy: 80
      similarity: 85
    decision:
      name: Ada Lovelace
      role: Data protection officer
      date: 2026-11-27
      decision: approve with conditions   # approve, approve with conditions or reject
      conditions:
        - Shared with the partner's analysts only

``reportgen report --config release.yaml`` reads it (``--fail-under`` on the command line wins
for the bars it names); in Python, ``report(fail_under=config.fail_under, decision=config.decision)``
with ``config = read_config("release.yaml")``. The decision fills the report's decision block
(without it the block is a blank form to complete); ``reportgen.approval_model.decision_from``
checks it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from reportgen.approval_model import Decision, decision_from
from reportgen.errors import InvalidParameterError, LoadError
from reportgen.gates import bars_in_force
from reportgen.structured import parse_yaml_or_json

KNOWN_KEYS = ("fail_under", "decision")


@dataclass(frozen=True)
class ReleaseConfig:
    """What a configuration file sets."""

    fail_under: dict[str, float] = field(default_factory=dict)
    decision: Decision | None = None


def read_config(path: str | Path) -> ReleaseConfig:
    """Read and check a configuration file; errors name the file and what to fix."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise LoadError(f"Cannot read the configuration file {str(path)!r}: {error.strerror}.") from None
    where = f"The configuration file {str(path)!r}"
    data = parse_yaml_or_json(text, as_json=path.suffix.lower() == ".json", where=where) or {}
    if not isinstance(data, dict):
        raise LoadError(
            f"The configuration file {str(path)!r} must hold a mapping such as 'fail_under: ...'."
        )
    unknown = sorted(set(data) - set(KNOWN_KEYS), key=repr)  # keys may be of mixed types
    if unknown:
        raise LoadError(
            f"The configuration file {str(path)!r} has unknown key(s) {unknown}; known: {list(KNOWN_KEYS)}."
        )
    bars = data.get("fail_under") or {}
    if not isinstance(bars, dict):
        raise LoadError(f"'fail_under' in {str(path)!r} must map bar names to numbers, e.g. privacy: 80.")
    bars_in_force(bars)  # refuses unknown names and out-of-range values, naming them
    decision = None
    if data.get("decision") is not None:
        try:
            decision = decision_from(data["decision"], where)
        except InvalidParameterError as error:
            raise LoadError(str(error)) from None
    return ReleaseConfig(fail_under={name: float(value) for name, value in bars.items()}, decision=decision)
