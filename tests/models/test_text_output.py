"""The text-output parser for generative models and LLMs: three formats, and a clear error for the rest."""

from __future__ import annotations

import pytest

from absa_checks.common.tuples import IMPLICIT, AspectTuple
from absa_checks.models.text_output import AnswerUnreadable, parse


def test_json_lists_objects_and_prose_around_them():
    assert parse('[{"aspect": "fries", "polarity": "negative"}, {"term": "burgers", "sentiment": "POS"}]') == [
        AspectTuple("fries", "negative"), AspectTuple("burgers", "positive")]
    answer = 'Here are the aspects:\n{"aspects": [{"aspect": "wine", "polarity": "neutral", "opinion": "fine", ' \
             '"category": "drinks quality"}]}\nHope this helps.'
    assert parse(answer) == [AspectTuple("wine", "neutral", opinion="fine", category="drinks quality")]


def test_asqp_paraphrase_and_tag_forms():
    assert parse("food quality is bad because fries is soggy [SSEP] service general is great because it is quick") == [
        AspectTuple("fries", "negative", opinion="soggy", category="food quality"),
        AspectTuple(IMPLICIT, "positive", opinion="quick", category="service general")]
    assert parse("[A] fries [O] soggy [S] negative [C] food quality") == [
        AspectTuple("fries", "negative", opinion="soggy", category="food quality")]


def test_aspect_polarity_pairs():
    assert parse("fries: negative; burgers: positive") == [AspectTuple("fries", "negative"),
                                                            AspectTuple("burgers", "positive")]
    assert parse("- battery life: pos\n- screen: neg") == [AspectTuple("battery life", "positive"),
                                                           AspectTuple("screen", "negative")]


@pytest.mark.parametrize("empty", ["", "  ", "none", "None.", "[]", "{}"])
def test_no_aspects(empty):
    assert parse(empty) == []


@pytest.mark.parametrize("answer, fragment", [
    ('[{"aspect": "fries", "polarity": "negative"', "not valid JSON"),
    ('[{"aspect": "fries", "polarity": "soggy"}]', "'soggy' is not a polarity"),
    ('[{"aspect": "fries"}]', "needs 'aspect' and 'polarity'"),
    ('["fries", "negative"]', "item 1 of the JSON answer is str"),
    ("fries: delicious", "'delicious' is not a polarity"),
    ("the fries were soggy", "is not 'aspect: polarity'"),
    ("food quality is bad because fries is soggy [SSEP] oops", "quad 2 of the ASQP answer"),
    (None, "not text"),
])
def test_malformed_answers_raise_one_clear_error(answer, fragment):
    with pytest.raises(AnswerUnreadable) as info:
        parse(answer)
    assert fragment in str(info.value)


def test_an_empty_json_list_after_prose_means_no_aspect():
    assert parse("Here are the aspects:\n[]") == []
