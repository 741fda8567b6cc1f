"""The methodology appendix and the glossary: every section, this run's settings, the references."""

from __future__ import annotations

import dataclasses
import logging
import math
import re
from html import unescape
from html.parser import HTMLParser
from importlib.resources import files
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

from reportgen.catalogue import report_settings, sections
from reportgen.errors import RenderError
from reportgen.evaluation import evaluate
from reportgen.metrics.registry import Section
from reportgen.preparation import prepare_context
from reportgen.privacy.risks import wilson
from reportgen.render.document import appendix_context, appendix_numbers, render_back_matter
from reportgen.render.environment import environment
from reportgen.render.formatting import fmt_count
from reportgen.results import ReportResults
from reportgen.settings import ReportSettings

# Characters of the page's mathematics that ruff flags as look-alikes of ASCII letters, named here.
TIMES, DASH = "\N{MULTIPLICATION SIGN}", "\N{EN DASH}"
MINUS, ALPHA, BETA, NU = (
    "\N{MINUS SIGN}",
    "\N{GREEK SMALL LETTER ALPHA}",
    "\N{GREEK SMALL LETTER BETA}",
    "\N{GREEK SMALL LETTER NU}",
)

# WeasyPrint's warning where the optional system library HarfBuzz-Subset is absent (not a style issue).
FONT_SUBSET_FALLBACK = "Using fontTools instead of HarfBuzz-Subset"

# The general parts, then each section's in registry order (a section without parts of its own,
# sequences, is headed by its title), then the references. The standards part is not among them: it
# reads this run's numbers, and follows the run record.
HEADINGS = [
    "Column kinds and missing values",
    "Sampling and splits",
    "The distance space",
    "Nearest-neighbour search",
    "Entity-level views",
    "Release bars and fingerprints",
    "Did the generator see the holdout?",
    "Univariate and bivariate similarity",
    "Distribution plots",
    "Phik correlations",
    "Association retained",
    "Detection test",
    "Relational metrics",
    "Fidelity: sequences",
    "Membership inference attacks",
    "Singling out, linkability and inference",
    "1-NN distances and exact copies",
    "Proximity ratios and the privacy score",
    "Maximum similarity (Gower)",
    f"{ALPHA}-precision, {BETA}-recall and authenticity",
    "Utility: TSTR and synthetic ranking agreement",
    "References",
]

REFERENCE_TITLES = [
    "How Faithful is your Synthetic Data? Sample-level Metrics for Evaluating and Auditing Generative Models",
    "Measuring the quality of Synthetic data for use in competitions",
    "aindo.rdml documentation",
    "A. Skabar, 2024",
    "A new correlation coefficient between categorical, ordinal and interval variables with Pearson characteristics",
    "A general coefficient of similarity and some of its properties",
    "Deep One-Class Classification",
    "Accuracy and Stability of Numerical Algorithms",
    "Revisiting Classifier Two-Sample Tests",
    "Comparing the Areas under Two or More Correlated Receiver Operating Characteristic Curves",
    "Inference for the Generalization Error",
    "The Inadequacy of Similarity-based Privacy Metrics",
    "The DCR Delusion",
    "Membership Inference Attacks against Synthetic Data through Overfitting Detection",
    "The Use of Confidence or Fiducial Limits Illustrated in the Case of the Binomial",
    "Auditing Differentially Private Machine Learning",
    "Membership Inference Attacks From First Principles",
    "Opinion 05/2014 on Anonymisation Techniques",
    "A Unified Framework for Quantifying Privacy Risk in Synthetic Data",
    "Probable inference, the law of succession, and statistical inference",
    "ISO/IEC 27559:2022",
    "De-Identifying Government Datasets: Techniques and Governance",
    "Anonymisation: managing data protection risk code of practice",
    "45 CFR 164.514(b)(1)",
    "J. Jälkö et al., 2026",
]

GLOSSARY_TERMS = [
    "training data", "holdout data", "synthetic data", "reference level", "TVD", "similarity",
    "KS statistic", "phik", "DCR", "nearest neighbour", "proximity ratio", "privacy score", "risk",
    "exact copy", "Gower similarity", "entity view", f"{ALPHA}-precision", f"{BETA}-recall", "authenticity", "TSTR",
    "SRA", "AUROC", "R²", "release bar", "fingerprint", "seed", "orphan", "foreign key", "primary key",
    "cardinality", "association retained", "detection test", "membership inference attack", "advantage", "chance level", "Clopper",
    "confidence interval", "empirical ε lower bound", "ROC curve", "self-test", "TPR and FPR",
    "singling out", "linkability", "inference", "Wilson interval",
]  # fmt: skip

# Settings a reader may change, which the appendix must print from the run (never hard-coded).
PRINTED_SETTINGS = {
    "n_max_train", "n_max_test", "n_max_synth", "n_max_phik", "max_categories", "n_bins",
    "min_category_count", "privacy_q", "privacy_repeats", "n_max_gower", "max_encoded_levels", "n_max_detection",
    "mia_max_targets", "risk_attacks",
}  # fmt: skip

CHANGED = report_settings(
    seed=4,
    n_max_train=5_000,
    n_max_phik=1_234,
    max_categories=5,
    n_bins=7,
    min_category_count=3,
    privacy_q=0.25,
    risk_confidence=1.5,
    privacy_repeats=3,
    n_max_gower=150,
    max_encoded_levels=6,
    mia_max_targets=321,
    risk_attacks=400,
)


def frames() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(11)
    n = 300
    real = pd.DataFrame(
        {
            "amount": rng.lognormal(3, 1, n),
            "city": rng.choice(["Rome", "Oslo", "Lima", "Pune", "Kyiv", "Baku", "Doha"], n),
            "member": rng.choice([True, False], n),
            "joined": pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.integers(0, 900, n), unit="D"),
        }
    )
    synth = real.sample(frac=1.0, random_state=3).reset_index(drop=True)
    synth["amount"] = synth["amount"] * rng.normal(1, 0.1, n)
    return real.iloc[:200], real.iloc[200:], synth


def run_with(settings: ReportSettings) -> ReportResults:
    """The results that ``report()`` computes for these settings (same code path, nothing written)."""
    train, test, synth = frames()
    return evaluate(prepare_context(train, test, synth, settings), title="appendix test")


@pytest.fixture(scope="module")
def default_results() -> ReportResults:
    return run_with(ReportSettings())


@pytest.fixture(scope="module")
def changed_results() -> ReportResults:
    return run_with(CHANGED)


def render(template: str, results: ReportResults, pages: list[Section] | None = None) -> str:
    """The appendix or the glossary as the document renders it, with every section's methodology."""
    return render_back_matter(template, results, sections() if pages is None else pages)


def with_run(results: ReportResults, **changes: object) -> ReportResults:
    return results.model_copy(update={"run": results.run.model_copy(update=changes)})


def number_of(anchor: str) -> str:
    """The number the appendix gives the part ``anchor`` (so the tests follow a renumbering)."""
    return f"A.{appendix_numbers(environment(), sections())[anchor]}"


def text_of(html: str) -> str:
    """The visible text: tags dropped, entities decoded, whitespace collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", "", html))).strip()


def shown_settings(html: str) -> dict[str, set[str]]:
    shown: dict[str, set[str]] = {}
    for name, value in re.findall(r'<span class="setting" data-setting="(\w+)">([^<]*)</span>', html):
        shown.setdefault(name, set()).add(unescape(value))
    return shown


def expected_text(value: object) -> str:
    return fmt_count(value) if isinstance(value, int) else str(value)


class Structure(HTMLParser):
    """Checks that elements nest properly; collects ids, internal links, headings and glossary terms."""

    VOID: ClassVar[set[str]] = {"br", "hr", "img", "meta", "link", "col", "input", "wbr"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.ids: list[str] = []
        self.links: list[str] = []
        self.text: dict[str, list[str]] = {"h2": [], "h3": [], "dt": []}
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.append(str(attributes["id"]))
        href = attributes.get("href")
        if tag == "a" and href and href.startswith("#"):
            self.links.append(href[1:])
        if tag in self.text:
            self._open = tag
            self.text[tag].append("")
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes <{self.stack[-1:]}>"
        self.stack.pop()
        if tag == self._open:
            self._open = None

    def handle_data(self, data: str) -> None:
        if self._open:
            self.text[self._open][-1] += data

    @classmethod
    def of(cls, html: str) -> Structure:
        parser = cls()
        parser.feed(html)
        parser.close()
        assert parser.stack == [], f"unclosed elements: {parser.stack}"
        return parser


def test_every_section_is_there_in_report_order(default_results):
    html = render("appendix.html.j2", default_results)
    assert html.lstrip().startswith('<section class="appendix" id="methodology" data-title="')
    structure = Structure.of(html)
    assert [" ".join(h.split()) for h in structure.text["h2"]] == ["Methodology"]
    headings = [" ".join(h.split()) for h in structure.text["h3"]]
    assert len(headings) == len(HEADINGS)
    for i, (heading, expected) in enumerate(zip(headings, HEADINGS, strict=True), start=1):
        assert heading.endswith(expected), (heading, expected)
        if expected != "References":
            assert heading == f"A.{i} {expected}"


def test_the_settings_shown_are_the_runs(default_results, changed_results):
    for results in (default_results, changed_results):
        run = results.run
        html = render("appendix.html.j2", results)
        shown = shown_settings(html)
        assert set(shown) >= PRINTED_SETTINGS, PRINTED_SETTINGS - set(shown)
        for name, values in shown.items():
            assert values == {expected_text(run.settings[name])}, (name, values, run.settings[name])
        assert ("risk_confidence" in shown) == (run.settings["risk_confidence"] is not None)


def test_a_changed_setting_changes_the_page(default_results, changed_results):
    default_run, changed_run = default_results.run, changed_results.run
    default, changed = (text_of(render("appendix.html.j2", r)) for r in (default_results, changed_results))
    assert changed_run.settings["n_bins"] == 7 and default_run.settings["n_bins"] == 20
    assert "7 quantile bins of the training data" in changed
    assert "20 quantile bins of the training data" in default
    assert "fewer than 3 training rows" in changed and "fewer than 10 training rows" in default
    assert "min(150, |T|, |S|)" in changed and "min(5,000, |T|, |S|)" in default
    assert "runs 3 times" in changed and "runs 5 times" in default
    assert "At most 1,234 rows per role" in changed
    # The floor a full copy scores, 100 q / ((1 + q) / 2), follows privacy_q: 18 at 0.1, 40 at 0.25.
    assert "= 18 at this run's q" in default and "= 40 at this run's q" in changed
    assert "c = 1.5" in changed and "risk_confidence is not set in this run" in default
    assert "seed (4)" in changed and "seed (0)" in default
    assert "more than 6 training levels" in changed and "more than 50 training levels" in default
    assert "n = min(321, ⌊|H| / 2⌋, |T|)" in changed and "n = min(5,000, ⌊|H| / 2⌋, |T|)" in default
    assert "min(400, |T|, |H|)" in changed and "min(1,000, |T|, |H|)" in default
    for run, text in ((default_run, default), (changed_run, changed)):
        n = run.settings["risk_attacks"]
        rate = 100 * wilson(n // 2, n, 0.95)[1]
        low, half = (100 * wilson(round(p * n), n, 0.95)[1] / (1 - p) * 2**0.5 for p in (0.05, 0.5))
        assert f"at most ±{rate:.1f} points" in text
        assert f"±{low:.1f} points when both rates are near 5%, ±{half:.1f} points near 50%" in text


def test_each_reference_is_listed_and_cited(default_results):
    html = render("appendix.html.j2", default_results)
    references = html[html.index('id="m-references"') :]
    for title in REFERENCE_TITLES:
        assert title in text_of(references), title
    structure = Structure.of(html)
    listed = [i for i in structure.ids if i.startswith("ref-")]
    assert len(listed) == len(set(listed)) >= len(REFERENCE_TITLES)
    standards = Structure.of(render("standards.html.j2", default_results))  # cites the documents it maps
    cited = {link for link in structure.links + standards.links if link.startswith("ref-")}
    assert cited == set(listed), "every reference is cited somewhere, and every citation is listed"
    numbers = re.findall(r'<span class="ref-number">\[(\d+)\]</span>', references)
    assert numbers == [str(i) for i in range(1, len(listed) + 1)]


def test_the_glossary_defines_each_term_in_order(default_results):
    html = render("glossary.html.j2", default_results)
    assert html.lstrip().startswith('<section class="glossary" id="glossary">')
    structure = Structure.of(html)
    assert [" ".join(h.split()) for h in structure.text["h2"]] == ["Glossary"]
    terms = [" ".join(t.split()) for t in structure.text["dt"]]
    for term in GLOSSARY_TERMS:
        assert any(t.lower().startswith(term.lower()) for t in terms), term

    def key(term: str) -> str:
        return term.lower().replace(ALPHA, "alpha").replace(BETA, "beta").replace("²", "2")

    assert terms == sorted(terms, key=key)
    definitions = re.findall(r"<dd>(.*?)</dd>", html, flags=re.S)
    assert len(definitions) == len(terms) and all(text_of(d) for d in definitions)


def test_links_resolve_and_ids_are_unique(default_results):
    both = Structure.of(
        render("appendix.html.j2", default_results) + render("glossary.html.j2", default_results)
    )
    assert len(both.ids) == len(set(both.ids))
    assert set(both.links) <= set(both.ids), set(both.links) - set(both.ids)


def test_every_link_to_a_part_shows_that_part_s_number(default_results):
    """Links are resolved by anchor, so a renumbering moves them with their part."""
    html = render("appendix.html.j2", default_results) + render("glossary.html.j2", default_results)
    headings = dict(re.findall(r'<div class="method" id="([^"]+)">\s*<h3>(A\.\d+) ', html))
    assert list(headings.values()) == [f"A.{i}" for i in range(1, len(headings) + 1)]
    links = re.findall(r'<a class="xref" href="#([^"]+)">([^<]*)</a>', html)
    assert len(links) > 40
    for anchor, shown in links:
        assert shown == headings[anchor], (anchor, shown)


def test_no_template_writes_a_part_number_by_hand():
    """Numbers come from ``numbers`` only; the glossary's lead names one as an example of the form."""
    templates = files("reportgen").joinpath("templates")
    found = {}
    for path in [*templates.iterdir(), *templates.joinpath("sections").iterdir()]:
        if path.name.endswith(".j2"):
            text = path.read_text(encoding="utf-8").replace("Section numbers such as A.3 point", "")
            found[path.name] = re.findall(r".{20}\bA\.\d.{10}", text)
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_a_link_to_no_part_and_an_anchor_declared_twice_are_errors(default_results):
    env = environment()
    page = env.from_string(
        '{% from "methodology_macros.html.j2" import xref with context %}{{ xref("m-nowhere") }}'
    )
    with pytest.raises(RenderError, match="'m-nowhere'"):
        page.render(numbers=appendix_numbers(env, sections()))
    similarity = next(s for s in sections() if s.name == "similarity")
    twice = [*sections(), dataclasses.replace(similarity, name="similarity_again", order=99)]
    with pytest.raises(RenderError, match="m-similarity"):
        render("appendix.html.j2", default_results, twice)


def test_renders_without_undefined_values_for_older_and_fuller_runs(default_results):
    settings = default_results.run.settings
    older = with_run(default_results, settings={k: v for k, v in settings.items() if k != "n_max_utility"})
    with_target = with_run(
        default_results, settings=settings | {"targets": {"table": "city"}}, has_holdout=False
    )
    for results in (older, with_target):
        for template in ("appendix.html.j2", "glossary.html.j2"):
            html = render(template, results)
            assert "{{" not in html and "{%" not in html
            Structure.of(html)
    assert "table.city" in text_of(render("appendix.html.j2", with_target))
    assert "none was given for this report" in text_of(render("appendix.html.j2", with_target))


def test_both_render_as_includes_of_the_document(default_results):
    """The document template includes them with ``run`` in scope; the output equals a direct render."""
    env, pages = environment(), sections()
    context = appendix_context(env, default_results, pages, appendix_numbers(env, pages))
    for template in ("appendix.html.j2", "glossary.html.j2"):
        included = env.from_string(f'<main>{{% include "{template}" %}}</main>').render(
            run=default_results.run, **context
        )
        assert included == f"<main>{render(template, default_results)}</main>"


def test_the_constants_written_out_match_the_code(default_results):
    """Numbers of the appendix that are module constants, not settings: a change in the code shows here."""
    from reportgen.data.kinds import TEXT_DISTINCT_RATIO, TEXT_MIN_DISTINCT
    from reportgen.gates import bar_specs, default_bars
    from reportgen.metrics import alpha_beta as metrics_alpha_beta
    from reportgen.metrics import (
        association,
        correlation,
        detection,
        distributions,
        privacy,
        relational,
        similarity,
        utility,
    )
    from reportgen.metrics import membership as metrics_membership
    from reportgen.metrics.utility_models import FAMILIES
    from reportgen.privacy import (
        alpha_beta,
        holdout_check,
        intervals,
        membership,
        one_class,
        proximity,
        risks,
    )
    from reportgen.render import distribution_figures, wide

    text = text_of(render("appendix.html.j2", default_results))
    low, high = distributions.PLOT_RANGE
    config = one_class.OneClassConfig()
    expected = [
        f"more than {TEXT_MIN_DISTINCT} distinct values where more than {TEXT_DISTINCT_RATIO:.0%}",
        f"drawn on {distributions.N_PLOT_BINS} equal-width bins between the {100 * low:g}th and {100 * high:g}th",
        f"spanning at most {distributions.N_PLOT_BINS} values",
        f"histogram, at most {distributions.MAX_EXACT} of them",
        f"when at least {distribution_figures.HIDDEN_NOTE:g} of the column's",
        f"({distributions.N_PAIR_BINS} quantile bins, or the {distributions.N_PAIR_BINS} most frequent",
        f"when it has at most {distributions.MAX_PAIR_PLOTS}; otherwise the {distributions.MAX_PAIR_PLOTS} least",
        f"histograms of at most {wide.FIGURES_SHOWN} columns and lists at most {wide.ROWS_SHOWN} in the similarity",
        f"show at most {wide.HEATMAP_COLUMNS} columns",
        f"the {wide.SECRETS_SHOWN} secrets most at risk",
        f"phik's own rule, {correlation.PHIK_BINS} equal-width bins",
        f"exceed 5% of the time, {similarity.KS_CRITICAL:g} √((n + m) / (nm))",
        f"At most {relational.MAX_BINS} bins: when the {100 * relational.TAIL_QUANTILE:g}th percentile is above "
        f"{relational.MAX_BINS - 2}",
        f"They share {proximity.N_HIST_BINS} bins",
        f"ε = 10{MINUS}{round(-math.log10(proximity.EPS))} is added",
        f"at least {2 * privacy.MIN_HALF} training and {privacy.MIN_HALF} synthetic rows",
        f"k = {alpha_beta.K_RECALL}",
        f"0, 1/{alpha_beta.N_LEVELS}, …, 1",
        f"1 {MINUS} 2{MINUS}{alpha_beta.K_RECALL} ≈ {1 - 2.0**-alpha_beta.K_RECALL:.2f}",
        f"{len(config.hidden)} hidden layers of {config.hidden[0]} units with ReLU, an output of {config.output_dim}",
        f"with {NU} = {config.nu}",
        f"AdamW (weight decay 10{MINUS}{round(-math.log10(config.weight_decay))}) on "
        f"{1 - config.validation_share:.0%} of the rows",
        f"closer to 0 than {one_class.CENTRE_EPS} moved to ±{one_class.CENTRE_EPS}",
        f"than 10{MINUS}{round(-math.log10(one_class.MIN_IMPROVEMENT))} of its first value after the warm-up for as "
        "many epochs as the patience",
        f"at most {utility.MAX_CLASSES} classes",
        f"at least {metrics_alpha_beta.MIN_TRAINING_ROWS} training rows (for the 80/20 split) and "
        f"{metrics_alpha_beta.MIN_GENERATED_ROWS} synthetic rows",
        f"outside the {ALPHA} = {metrics_alpha_beta.REPORT_ALPHA} support",
        f"H is a seeded {utility.HOLDOUT_SHARE:.0%} of the training rows and Ri is trained on the other "
        f"{1 - utility.HOLDOUT_SHARE:.0%}",
        f"fewer than {utility.MIN_ROWS} rows",
        f"is below {association.NOISE_Z:g} in both",
        f"at most {association.N_MOST_LOST}, by name",
        f"needs {detection.MIN_ROWS} rows a side",
        f"each of the {detection.MAX_LEVELS} most frequent training levels",
        f"{detection.N_FOLDS}-fold stratified cross-validation",
        f"A feature row held by {detection.MIN_LEAF} or more rows",
        f"when even the {100 * detection.ALARM_CONFIDENCE:g}% interval lies below 0.5",
        f"gives p < {1 - detection.ALARM_CONFIDENCE:g}",
        f"the mean of the {detection.N_FOLDS} folds' AUROCs",
        f"times 1/{detection.N_FOLDS} + 1/{detection.N_FOLDS - 1}",
        f"the {detection.N_LEADING} largest falls",
        f"at most {detection.N_IMPORTANCE_ROWS:,} held-out rows",
        f"{100 * detection.CONFIDENCE:g}%, from DeLong's variance",
    ]
    expected += [
        f"shuffled {membership.N_RELABELLINGS} times",
        f"the {100 * membership.CHANCE_QUANTILE:g}th percentile of the worst attack's AUC",
        f"ROC curves of at most {membership.N_ROC_POINTS} points",
        f"distances to the {membership.DENSITY_K}th nearest reference row",
        f"round({membership.DENSITY_K} |S| / |Href|)",
        "plants of "
        + ", ".join(f"{100 * p:g}%" for p in membership.PLANT_SHARES[:-1])
        + f" and {100 * membership.PLANT_SHARES[-1]:g}% of |S|",
        "The TPR at FPR "
        + ", ".join(f"{100 * p:g}%" for p in membership.FPR_LEVELS[:-1])
        + f" and {100 * membership.FPR_LEVELS[-1]:g}%",
        f"two-sided {100 * intervals.CONFIDENCE:g}% Clopper{DASH}Pearson",
        f"1 {MINUS} {1 - membership.EPSILON_CONFIDENCE:.1%} / (2B) for the B = {len(membership.ATTACKS)} {TIMES} "
        "(views attacked) ε bounds",
        f"all B hold together with {membership.EPSILON_CONFIDENCE:.1%} confidence",
        f"{2 * len(membership.ATTACKS)} one-sided bounds, each at {membership.epsilon_level(len(membership.ATTACKS)):.2%}",
        f"anonymeter's interval at the level 1 {MINUS} {1 - risks.CONFIDENCE:.0%}/M (Bonferroni)",
        f"the risk intervals ({number_of('m-attacks')}) hold together with {risks.CONFIDENCE:.0%} confidence",
        f"at least {metrics_membership.MIN_TARGETS} targets per side ({metrics_membership.MIN_TARGETS} training, "
        f"{2 * metrics_membership.MIN_TARGETS} holdout and {metrics_membership.MIN_TARGETS} synthetic rows)",
        f"a synthetic row and {risks.PREDICATE_COLUMNS} of its columns drawn at random",
        f"at most {risks.MAX_CANDIDATES:,} distinct candidates are tried per table",
        f"looks up the {risks.N_NEIGHBOURS} nearest synthetic rows of each",
        f"Baseline: two lists of {risks.N_NEIGHBOURS} synthetic rows",
        f"|guess {MINUS} value| ≤ {risks.TOLERANCE} {TIMES} |guess|",
        f"within {risks.TOLERANCE} {TIMES} the training data's 1st{DASH}99th percentile range",
        f"Secrets: every column, or {risks.MAX_SECRETS} drawn at random",
        f"at least {risks.MIN_TARGETS} training, holdout and synthetic rows",
        f"p < {holdout_check.LEVEL:.1%} and",
        f"≥ {100 * holdout_check.MIN_EXCESS:g} percentage point and",
        f"≥ {holdout_check.MIN_RATIO:g} {TIMES} c(H, T2)",
        f"at least {100 * holdout_check.MIN_EXCESS:g} percentage point and {holdout_check.MIN_RATIO:g} times the real",
        f"by at least {100 * holdout_check.OVERLAP_EXCESS:g} percentage points with p < {holdout_check.LEVEL:.1%}",
        f"a {['', '', 'half', 'third', 'quarter'][holdout_check.SET_ASIDE]}, |H| at most",
    ]
    for phrase in expected:
        assert phrase in text, phrase
    assert len(FAMILIES) == 12 and "Twelve families" in text
    assert len(set(config.hidden)) == 1
    assert default_bars() == {"privacy": 80.0} and "privacy score must be at least 80" in text
    for name in bar_specs():
        assert f"{name} (" in text, f"release bar {name!r} is not described"


@pytest.mark.parametrize(
    "subset_with", [pytest.param("HarfBuzz-Subset", marks=pytest.mark.needs("HarfBuzz-Subset")), "fontTools"]
)
def test_the_styles_lay_out_cleanly_in_weasyprint(default_results, caplog, monkeypatch, subset_with):
    """The two sections with report.css and appendix.css make a PDF without CSS or layout warnings.

    Where the system's HarfBuzz-Subset is absent (README's commands cannot install it), WeasyPrint
    subsets fonts with fontTools and says so: a note about fonts, not styles. So the styles are
    checked both ways, the fontTools way with HarfBuzz-Subset hidden from WeasyPrint.
    """
    from weasyprint import HTML

    if subset_with == "fontTools":
        monkeypatch.setattr("weasyprint.pdf.fonts.harfbuzz_subset", None)
    styles = "".join(
        files("reportgen").joinpath(f"templates/{name}").read_text(encoding="utf-8")
        for name in ("report.css", "appendix.css")
    )
    body = render("appendix.html.j2", default_results) + render("glossary.html.j2", default_results)
    document = (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>t</title>'
        f"<style>{styles}</style></head><body>{body}</body></html>"
    )
    with caplog.at_level(logging.WARNING, logger="weasyprint"):
        pdf = HTML(string=document).write_pdf()
    assert pdf.startswith(b"%PDF")
    messages = [r.getMessage() for r in caplog.records if r.name.startswith("weasyprint")]
    assert any(m.startswith(FONT_SUBSET_FALLBACK) for m in messages) == (subset_with == "fontTools")
    assert [m for m in messages if not m.startswith(FONT_SUBSET_FALLBACK)] == []
