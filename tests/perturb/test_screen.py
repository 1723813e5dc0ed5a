"""Screening variants made elsewhere (ARTS's published ones) with our own checks."""

from __future__ import annotations

import importlib.util

from absa_checks.common.examples import Aspect, Edit, Example, Opinion
from absa_checks.perturb.screen import edits_between, screen
from conftest import REPO, SHARED_DATA, needs_shared_data


def test_edits_are_recovered_by_a_token_diff():
    assert edits_between("The food is great.", "The food is not great.") == (
        Edit(12, 12, "", "not ", "published edit"),)
    assert edits_between("Great food.", "Terrible food.") == (Edit(0, 5, "Great", "Terrible", "published edit"),)
    assert edits_between("same", "same") == ()


def _example(sentence: str, term: str, opinion: str, polarity: str = "positive") -> Example:
    start, at = sentence.index(term), sentence.index(opinion)
    return Example(sentence, Aspect(term, start, start + len(term), polarity),
                   opinions=(Opinion(opinion, at, at + len(opinion), 0),))


def test_a_clean_reversal_passes(resources):
    original = _example("The soup was delicious.", "soup", "delicious")
    assert screen(original, "The soup was disgusting.", "revtgt", resources) == []


def test_a_published_variant_is_quarantined_for_the_same_reasons_as_ours(resources):
    original = _example("Not only do they have the best gnocchi around, they always try to seat our large group.",
                        "gnocchi", "best")
    found = screen(original, "Not only do they have the worst gnocchi around, they always try to seat "
                             "our large group.", "revtgt", resources)
    assert found[0] == ("a discourse word depends on the old polarity", "Not only")
    unmatched = _example("Apple is unmatched in product quality.", "product quality", "unmatched")
    found = screen(unmatched, "Apple is not unmatched in product quality.", "revtgt", resources)
    assert ("a negation of a negative word does not reverse it", "not unmatched") in found
    assert screen(original, original.sentence, "revtgt", resources) == [("nothing changed", "")]


@needs_shared_data
def test_the_arts_screen_counts_every_published_variant():
    spec = importlib.util.spec_from_file_location("screen_arts", REPO / "benchmarks" / "quality" / "screen_arts.py")
    benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(benchmark)
    results = benchmark.measure(SHARED_DATA)
    published = {"arts-laptop/revtgt": 466, "arts-laptop/revnon": 135, "arts-restaurant/revtgt": 846,
                 "arts-restaurant/revnon": 444}
    for name, total in published.items():
        counts = results[name]["counts"]
        assert sum(counts.values()) == total
        assert counts["would quarantine"] == sum(results[name]["quarantined_by_reason"].values())
        assert 0 < counts["would ship"] < total  # the checks neither pass nor reject everything
