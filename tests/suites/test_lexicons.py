"""The built-in lexicons of the capability templates (absa_checks/fixtures/lexicons/): each loads and keeps the
rules its header states, so that a generated sentence's gold label is right by construction."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

LEXICONS = Path(__file__).resolve().parents[2] / "absa_checks" / "fixtures" / "lexicons"
DOMAINS = ("restaurant", "laptop")
POLARITIES = ("positive", "negative", "neutral")
OPINIONS = ("positive", "negative")  # no neutral adjective: judges read even "average" as an opinion (round 9)
# words lists the capability suites draw from (suites/capabilities/), in every domain
SHARED_WORDS = ("intensifier", "diminisher", "diminisher_positive", "gradable_positive", "gradable_negative",
                "litotes", "comparative_positive", "comparative_negative", "name", "place")
DOMAIN_WORDS = {"restaurant": ("cuisine",), "laptop": ("brand",)}


def _load(domain: str) -> dict[str, Any]:
    data = yaml.safe_load((LEXICONS / f"{domain}.yaml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _term(entry: Any) -> tuple[str, bool]:
    if isinstance(entry, dict):
        assert set(entry) <= {"term", "plural"}, entry
        return entry["term"], bool(entry.get("plural", False))
    assert isinstance(entry, str), entry
    return entry, False


def _opinion_words(data: dict[str, Any], polarity: str) -> set[str]:
    return {word for words in data["opinions"].get(polarity, {}).values() for word in words}


def test_the_lexicon_folder_holds_exactly_the_built_in_domains():
    assert sorted(path.stem for path in LEXICONS.glob("*.yaml")) == sorted(DOMAINS)


@pytest.mark.parametrize("domain", DOMAINS)
def test_lexicon_shape(domain):
    data = _load(domain)
    assert data["domain"] == domain
    assert set(data) == {"domain", "aspects", "opinions", "words"}
    assert set(data["opinions"]) == set(OPINIONS)
    for polarity, by_category in data["opinions"].items():
        for category, words in by_category.items():
            assert category == "all" or category in data["aspects"], (polarity, category)
            assert words and all(isinstance(word, str) and word == word.strip() and word for word in words)
            assert len(words) == len(set(words)), (polarity, category, "a word listed twice")
    for name, words in data["words"].items():
        assert words and all(isinstance(word, str) and word.strip() == word and word for word in words), name
        assert len(words) == len(set(words)), (name, "a word listed twice")


@pytest.mark.parametrize("domain", DOMAINS)
def test_aspect_terms(domain):
    data = _load(domain)
    seen: dict[str, str] = {}
    for category, entries in data["aspects"].items():
        assert entries, category
        for entry in entries:
            term, plural = _term(entry)
            assert term == term.strip() and term, (category, entry)
            # one term, one category: otherwise its opinions would not be known to fit
            assert term.lower() not in seen, f"{term!r} in {seen.get(term.lower())} and {category}"
            seen[term.lower()] = category
            assert not (plural and not term.endswith("s")), f"{term!r} marked plural: check the mark"
    # a term is never an opinion word (its sentence would carry a second, unlabelled opinion)
    opinions = set().union(*(_opinion_words(data, polarity) for polarity in POLARITIES))
    assert not set(seen) & {word.lower() for word in opinions}
    # taxonomy swaps a term for another of its category: most categories need two terms or more
    assert sum(len(entries) >= 2 for entries in data["aspects"].values()) >= 5


@pytest.mark.parametrize("domain", DOMAINS)
def test_no_word_in_two_polarities(domain):
    data = _load(domain)
    positive, negative, neutral = (_opinion_words(data, polarity) for polarity in POLARITIES)
    assert not positive & negative
    assert not positive & neutral
    assert not negative & neutral
    words = data["words"]
    # the word lists with a polarity agree with the opinions, and never cross them
    assert not set(words["gradable_positive"]) & (negative | neutral)
    assert not set(words["gradable_negative"]) & (positive | neutral)
    assert not set(words["comparative_positive"]) & set(words["comparative_negative"])
    assert not set(words["litotes"]) & positive


@pytest.mark.parametrize("domain", DOMAINS)
@pytest.mark.parametrize("polarity", ("positive", "negative"))
def test_every_category_has_words_of_both_polarities(domain, polarity):
    data = _load(domain)
    by_category = data["opinions"][polarity]
    assert len(by_category.get("all", ())) >= 3
    for category in data["aspects"]:
        # a category's own words, beyond the `all` ones: "the battery was great" is not a test of vocabulary
        assert len(by_category.get(category, ())) >= 2, f"{domain}: {category} has few {polarity} words of its own"


@pytest.mark.parametrize("domain", DOMAINS)
def test_category_words_are_not_repeated_under_all(domain):
    data = _load(domain)
    for polarity in OPINIONS:
        general = set(data["opinions"][polarity].get("all", ()))
        for category, words in data["opinions"][polarity].items():
            if category != "all":
                assert not general & set(words), (polarity, category, general & set(words))


@pytest.mark.parametrize("domain", DOMAINS)
def test_the_word_lists_the_suites_use(domain):
    data = _load(domain)
    for name in SHARED_WORDS + DOMAIN_WORDS[domain]:
        assert name in data["words"], name
    words = data["words"]
    assert len(words["name"]) >= 20 and len(words["place"]) >= 10
    for name in DOMAIN_WORDS[domain]:
        assert len(words[name]) >= 10
    # a word list swapped for fairness must not carry sentiment
    opinions = set().union(*(_opinion_words(data, polarity) for polarity in POLARITIES))
    for name in ("name", "place", *DOMAIN_WORDS[domain]):
        assert not {word.lower() for word in words[name]} & opinions, name


def test_the_domains_share_the_general_words():
    """The words that fit any category, and the degree words, are the same in every domain: a result about
    intensity or litotes then compares across domains."""
    restaurant, laptop = _load("restaurant"), _load("laptop")
    for polarity in OPINIONS:
        assert restaurant["opinions"][polarity]["all"] == laptop["opinions"][polarity]["all"]
    for name in SHARED_WORDS:
        if name not in ("name", "place"):
            assert restaurant["words"][name] == laptop["words"][name], name


# ---------------------------------------------------------------------------- through the template engine

SUITES = Path(__file__).resolve().parents[2] / "suites" / "capabilities"
CAPABILITIES = ("vocabulary", "binding", "negation", "comparatives", "temporal", "intensity", "taxonomy", "fairness")


def _capability_suites():
    from absa_checks.sources.catalog import known_source_names
    from absa_checks.suites.spec import parse_suite

    return {path.stem: parse_suite(path, known_source_names()) for path in sorted(SUITES.glob("*.yaml"))}


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_lexicon_loads_through_the_engine(domain):
    from absa_checks.suites.lexicons import load_builtin

    lexicon = load_builtin(domain)
    data = _load(domain)
    assert lexicon is not None and lexicon.domain == domain
    assert lexicon.categories() == tuple(data["aspects"])
    for category in lexicon.categories():
        for polarity in ("positive", "negative"):
            own = set(data["opinions"][polarity].get(category, ()))
            assert own <= set(lexicon.opinion_words(polarity, category))


def test_the_capability_suites_cover_every_capability_in_every_domain():
    suites = _capability_suites()
    assert set(suites) == set(DOMAINS)
    for domain, suite in suites.items():
        seen: dict[str, set[str]] = {}
        for test in suite.tests:
            assert test.template is not None, test.name
            assert test.template.domain == domain, test.name
            assert test.capability in CAPABILITIES, (test.name, test.capability)
            assert test.type in ("mft", "inv", "dir"), test.name
            seen.setdefault(test.capability, set()).add(test.type)
        assert set(seen) == set(CAPABILITIES), domain
        # the test types the issue asks for, per capability
        assert seen["intensity"] == {"dir"} and seen["taxonomy"] == {"inv"} and seen["fairness"] == {"inv"}
        for capability in ("vocabulary", "binding", "negation", "comparatives", "temporal"):
            assert seen[capability] == {"mft"}, capability


def test_the_default_run_stays_modest_and_every_case_has_its_gold():
    """`pytest suites/` runs these by default: about 600-900 cases in both files together; each case's target has
    a polarity, the other aspects of its sentence theirs, and the ids are stable across expansions."""
    from absa_checks.common.labels import POLARITIES as LABELS
    from absa_checks.suites.templates import expand

    total = 0
    for suite in _capability_suites().values():
        for test in suite.tests:
            first, again = expand(test.template, test.name, 0), expand(test.template, test.name, 0)
            assert [u.unit_id for u in first.units] == [u.unit_id for u in again.units], test.name
            assert len({u.unit_id for u in first.units}) == len(first.units), test.name
            for unit in first.units:
                example = unit.original
                assert example.target.polarity in LABELS, (test.name, example.sentence)
                assert all(other.polarity in LABELS for other in example.others), (test.name, example.sentence)
                assert example.sentence[0].isupper() and example.sentence.endswith("."), example.sentence
                assert "{" not in example.sentence and "  " not in example.sentence, example.sentence
            total += len(first.units)
    assert 600 <= total <= 900, total


def test_absa_checks_validate_accepts_the_capability_suites():
    import subprocess
    import sys

    repo = SUITES.parents[1]
    done = subprocess.run([sys.executable, "-m", "absa_checks.cli", "validate", str(SUITES)], cwd=repo,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 suite files, 0 with errors" in done.stdout
