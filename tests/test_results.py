"""Results read back from JSON: typed through ``reportgen.ReportResults``, never silently untyped."""

import json

from .conftest import fresh_python

RUN = {
    "title": "t",
    "reportgen_version": "0",
    "created_at": "2025-01-01T00:00:00+00:00",
    "seed": 0,
    "settings": {},
    "versions": {},
    "has_holdout": False,
}


def test_results_read_before_the_registry_knows_their_classes_are_refused_not_emptied(tmp_path):
    """``reportgen.results`` alone cannot know a section's class: reading one is an error saying how
    to read it, instead of a plain SectionResult without a single number."""
    results = {
        "run": RUN,
        "sections": {"privacy_risks": {"section": "privacy_risks", "status": "ok", "tables": []}},
    }
    (tmp_path / "r.json").write_text(json.dumps(results))
    direct = fresh_python(
        "from reportgen.results import ReportResults\nReportResults.load('r.json')", tmp_path
    )
    assert direct.returncode != 0 and "rg.ReportResults.load(path)" in direct.stderr
    typed = fresh_python(
        "import reportgen as rg\nprint(type(rg.ReportResults.load('r.json').sections['privacy_risks']).__name__)",
        tmp_path,
    )
    assert (typed.returncode, typed.stdout.strip()) == (0, "PrivacyRisksResult"), typed.stderr
