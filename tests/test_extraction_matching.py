"""The matcher of extracted terms against gold, strict and flexible, and its agreement with a reader's
judgements (tests/data/matching_pairs.yaml: 64 hand-labelled pairs, near misses included)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from absa_checks.extraction.matching import aspect_match, assign, content_words, flexible_text_match, head, matched, surface
from absa_checks.extraction.tuples import AnnotatedSentence, AspectTuple

PAIRS = yaml.safe_load((Path(__file__).parent / "data" / "matching_pairs.yaml").read_text())["pairs"]


def judge(pair: dict, mode: str) -> bool:
    """The matcher's verdict on one labelled pair."""
    prediction, gold, sentence = str(pair["prediction"]), str(pair["gold"]), pair["sentence"]
    others = [str(o) for o in pair.get("others", [])]
    alternatives = [str(a) for a in pair.get("alternatives", [])] if mode == "flexible" else []
    if pair.get("field", "aspect") == "opinion":
        return surface(prediction) == surface(gold) if mode == "strict" else \
            flexible_text_match(prediction, gold, sentence, others, alternatives)
    golds = [AspectTuple(gold), *(AspectTuple(o) for o in others)]
    return aspect_match(AspectTuple(prediction), golds[0], mode, sentence, golds, alternatives)


def agreement(mode: str) -> tuple[int, list[dict]]:
    wrong = [p for p in PAIRS if judge(p, mode) != p["match"]]
    return len(PAIRS) - len(wrong), wrong


def test_the_labelled_pairs_are_many_and_mixed():
    assert len(PAIRS) >= 60
    assert sum(not p["match"] for p in PAIRS) >= 20  # near misses, not only easy matches


def test_flexible_matching_agrees_with_the_reader_and_never_accepts_a_near_miss():
    agreed, wrong = agreement("flexible")
    strict_agreed, _ = agreement("strict")
    # 60 of 64 (94%): the misses are forms a reader accepts that no rule here covers (plural vs singular,
    # a word after the head); strict matching agrees on 32 (50%)
    assert agreed == 60 and strict_agreed == 32, [(p["gold"], p["prediction"]) for p in wrong]
    assert all(p["match"] for p in wrong)  # every disagreement is a missed match: no false accept


@pytest.mark.parametrize("text, words, word", [
    ("the battery life of this laptop", ("battery", "life", "of", "this", "laptop"), "life"),
    ("our waiter's", ("waiter",), "waiter"),
    ("was n't worth", ("was", "not", "worth"), "worth"),
    ("French fries", ("french", "fries"), "fries"),
])
def test_content_words_and_heads(text, words, word):
    assert content_words(text) == words and head(words) == word


def test_a_prediction_counts_for_one_gold_tuple_only():
    sentence = AnnotatedSentence("s1", "The pasta and the pasta sauce were good.",
                                 (AspectTuple("pasta", "positive"), AspectTuple("pasta sauce", "positive")))
    one = [AspectTuple("pasta", "positive")]
    assert matched(one, sentence, "aspect", "strict") == {0: 0}
    assert len(matched(one, sentence, "aspect", "flexible")) == 1  # not two, though it is near both
    assert assign(2, 2, lambda p, g: True) == {0: 0, 1: 1} or len(assign(2, 2, lambda p, g: True)) == 2


def test_spans_decide_strict_matching_when_both_have_them():
    gold = AspectTuple("food", "positive", 4, 8)
    assert aspect_match(AspectTuple("food", "positive", 4, 8), gold, "strict", "The food was good, food!")
    assert not aspect_match(AspectTuple("food", "positive", 19, 23), gold, "strict", "The food was good, food!")


def test_levels_need_polarity_opinion_and_category():
    sentence = AnnotatedSentence("s", "The fries were n't crisp .", (AspectTuple("fries", "negative",
                                 opinion="were n't crisp", category="food quality"),))
    good = AspectTuple("fries", "negative", opinion="weren't crisp", category="Food Quality")
    assert matched([good], sentence, "quad", "strict") == {0: 0}
    assert matched([AspectTuple("fries", "positive", opinion="weren't crisp")], sentence, "pair", "strict") == {}
    assert matched([AspectTuple("fries", "negative", opinion="not crisp", category="food quality")],
                   sentence, "triplet", "flexible") == {0: 0}
    assert matched([AspectTuple("fries", "negative", opinion="not crisp")], sentence, "triplet", "strict") == {}
