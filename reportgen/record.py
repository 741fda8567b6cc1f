"""The predicate of a report's in-toto statement: what produced the report, and what it concluded.

The statement (``reportgen.intoto``) names the report and its JSON by SHA-256; its predicate
(type ``reportgen.intoto.PREDICATE_TYPE``) binds them to the run: the inputs' fingerprints (so
``reportgen verify`` can recompute them from the data), the settings and seed, the versions of
the software, the release bars with their outcome, the verdicts and, where the results hold one,
the approver's decision. Every value is copied from the results as the JSON holds them, so the
statement never says something the report does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reportgen.results import GatesResult

RECORDED_RUN = (
    "title",
    "created_at",
    "reportgen_version",
    "versions",
    "seed",
    "settings",
    "has_holdout",
    "inputs",
    "fingerprint_format",
    "engine_fingerprint_format",
    "read_in_place",
)


def predicate_of(results_json: Mapping[str, Any]) -> dict[str, Any]:
    """The statement's predicate, from the results JSON (parsed) exactly as it is written.

    ``decision`` is included when the results have one (an approver's name, role, date and
    decision), whatever its fields, so the record follows the results without a list of its own.
    """
    run = results_json["run"]
    gates = results_json["gates"]
    predicate = {
        "run": {name: run[name] for name in RECORDED_RUN if name in run},
        "bars": {**gates, "passed": GatesResult.model_validate(gates).passed},
        "verdicts": results_json["verdicts"],
    }
    if results_json.get("decision") is not None:
        predicate["decision"] = results_json["decision"]
    return predicate
