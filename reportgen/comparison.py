"""Release comparison: every headline number beside the previous release's, regressions flagged.

A regression is a change in the bad direction larger than the noise a re-run could show:
more than ``max(1, 2 x std)`` points for a score (the std where the number has one, e.g. the
privacy score), more than 1 percentage point for a share (risk, exact copies), or more than the
headline's own ``tolerance`` where it states one (the membership attacks' AUC and epsilon bound).
Settings that differ between the two runs are listed, since they change what the numbers mean.
"""

from __future__ import annotations

from pathlib import Path

from reportgen.errors import LoadError
from reportgen.headlines import headlines
from reportgen.results import Comparison, Headline, HeadlineChange, ReportResults
from reportgen.structured import parse_yaml_or_json

SCORE_TOLERANCE = 1.0
SHARE_TOLERANCE = 0.01


def load_previous(path: str | Path) -> ReportResults:
    """The previous release's results, with a clear error when the file is not a reportgen JSON."""
    path = Path(path)
    where = f"The previous release's results {str(path)!r}"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise LoadError(f"{where} do not exist.") from None
    except IsADirectoryError:
        raise LoadError(
            f"{where} is a folder: give the JSON file written beside the previous report "
            "(report.json beside report.pdf)."
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise LoadError(f"{where} cannot be read: {error}.") from None
    data = parse_yaml_or_json(text, as_json=True, where=where)  # refuses too deep a nesting
    try:
        return ReportResults.model_validate(data)
    except (ValueError, RecursionError) as error:
        raise LoadError(
            f"{str(path)!r} is not the JSON that reportgen writes beside a report "
            f"({error.__class__.__name__})."
        ) from None


def compare(current: ReportResults, previous: ReportResults, source: str) -> Comparison:
    """Each headline of ``current`` beside ``previous``, with the regressions."""
    now, before = current.headlines or headlines(current), previous.headlines or headlines(previous)
    changes = [_change(h, before.get(name)) for name, h in now.items()]
    changes += [
        HeadlineChange(
            name=name, label=h.label, unit=h.unit, previous=h.value, current=None, regression=False
        )
        for name, h in before.items()
        if name not in now
    ]
    settings = sorted(
        key
        for key in set(current.run.settings) | set(previous.run.settings)
        if current.run.settings.get(key) != previous.run.settings.get(key)
    )
    return Comparison(
        source=source,
        previous_title=previous.run.title,
        previous_created_at=previous.run.created_at,
        changes=changes,
        changed_settings=settings,
    )


def _change(now: Headline, before: Headline | None) -> HeadlineChange:
    if before is None:
        return HeadlineChange(
            name=now.name, label=now.label, unit=now.unit, previous=None, current=now.value, regression=False
        )
    worse = (before.value - now.value) if now.higher_is_better else (now.value - before.value)
    if now.tolerance is not None:
        tolerance = now.tolerance
    elif now.unit == "share":
        tolerance = SHARE_TOLERANCE
    else:
        tolerance = max(SCORE_TOLERANCE, 2 * max(now.spread or 0.0, before.spread or 0.0))
    return HeadlineChange(
        name=now.name,
        label=now.label,
        unit=now.unit,
        previous=before.value,
        current=now.value,
        regression=worse > tolerance,
        tolerance=tolerance,
    )
