"""LLM answers read as a reader would (absa_checks/models/answer_reading.py): the polarity the answer asserts, or a
refusal with its reason; never the first polarity word it happens to contain. The table holds answers as
chat models write them; None means refused (the case becomes an error naming the answer)."""

from __future__ import annotations

import pytest

from absa_checks.models.answer_reading import read_polarity

TABLE = [
    # plain, formatted, labelled
    ("positive", "positive"),
    ("Negative", "negative"),
    ("Positive.", "positive"),
    ("**Negative**", "negative"),
    ("`neutral`", "neutral"),
    ("sentiment: neutral", "neutral"),
    ("Sentiment: **Positive**", "positive"),
    ("Answer: negative", "negative"),
    ('{"polarity": "negative"}', "negative"),
    ("NEUTRAL", "neutral"),
    ("The sentiment towards the fries is negative.", "negative"),
    ("The reviewer speaks positively about the staff.", "positive"),
    # degrees and mild hedges do not change the polarity
    ("mostly positive", "positive"),
    ("Slightly negative.", "negative"),
    ("Probably neutral.", "neutral"),
    ("Very positive!", "positive"),
    ("It might be negative.", "negative"),  # one polarity, only hedged: nothing else is offered
    ("I'd say negative, though it could be neutral", "negative"),
    ("Negative, although one could argue it is neutral.", "negative"),
    # negation
    ("The sentiment is not positive; it is negative.", "negative"),
    ("It is positive, not negative", "positive"),
    ("Not negative, positive.", "positive"),
    ("Positive (not negative).", "positive"),
    ("It isn't positive. It's negative.", "negative"),
    ("Negative rather than neutral.", "negative"),
    ("More positive than negative.", "positive"),
    ("Not negative at all - clearly positive!", "positive"),
    ("Neither positive nor negative", "neutral"),
    ("It's neither positive nor negative, so neutral.", "neutral"),
    ("Neutral (neither positive nor negative).", "neutral"),
    ("not positive or negative", "neutral"),
    ("The review is non-negative about the decor; positive.", "positive"),
    # reasoning, then a conclusion
    ("The fries are soggy, which is negative, while the burgers are positive. Final answer: negative", "negative"),
    ("Looking at the staff: friendly means positive. So the answer is positive.", "positive"),
    ("The burgers are positive, the fries negative. Answer: positive or negative", None),
    # the question's own menu is not an answer
    ("Positive, negative or neutral? Negative.", "negative"),
    ("Of positive, neutral and negative, I choose neutral.", "neutral"),
    # refused: negated only
    ("not negative", None),
    ("It is not positive.", None),
    ("I don't think the sentiment is negative.", None),
    ("Hardly positive.", None),
    # negating phrases (not single negators): what the answer is, is not said
    ("Far from positive.", None),
    ("Anything but positive.", None),
    ("The sentiment is far from negative.", None),
    ("It is anything but neutral.", None),
    ("Barely positive.", None),
    ("Scarcely negative at all.", None),
    ("By no means positive.", None),
    ("Not at all positive.", None),
    ("Less than positive.", None),
    ("Nothing positive here.", None),
    ("No longer positive.", None),
    ("Nowhere near positive.", None),
    ("The review lacks positive sentiment.", None),
    ("Less positive, I'd say.", None),
    ("Positive? Not at all.", None),
    ("Is it positive? No.", None),
    ("Negative? By no means.", None),
    # ... and their neighbours that do assert one polarity
    ("Far from positive; it is negative.", "negative"),
    ("Anything but negative - clearly positive.", "positive"),
    ("Far from negative, the reviewer is positive about it.", "positive"),
    ("Less negative than positive.", "positive"),
    ("Less positive than negative overall.", "negative"),
    ("No, negative.", "negative"),
    ("Positive, no doubt.", "positive"),
    ("Not at all negative: positive.", "positive"),
    ("By no means negative. Positive.", "positive"),
    ("No longer negative; now positive.", "positive"),
    ("Hardly neutral - it is negative.", "negative"),
    # refused: two polarities asserted or offered
    ("positive or neutral", None),
    ("It could be positive, or it might be negative.", None),
    ("Negative for the fries but positive overall.", None),
    ("Both positive and negative.", None),
    ("Positive. Actually, negative.", None),
    ("Somewhat positive but mostly neutral", None),
    # refused: no polarity word
    ("delicious", None),
    ("Mixed.", None),
    ("1", None),
    ("", None),
    ("I cannot tell from this sentence.", None),
]


@pytest.mark.parametrize("answer, expected", TABLE, ids=[a[:40] or "<empty>" for a, _ in TABLE])
def test_an_answer_is_read_for_the_polarity_it_asserts(answer: str, expected: str | None):
    reading = read_polarity(answer)
    assert reading.polarity == expected, reading.problem
    assert bool(reading.problem) == (expected is None)


def test_the_table_covers_every_kind_of_answer():
    assert len(TABLE) >= 30
    assert {expected for _, expected in TABLE} == {"positive", "negative", "neutral", None}


@pytest.mark.parametrize("answer, reason", [
    ("not negative", "only says what the sentiment is not (negative)"),
    ("positive or neutral", "offers neutral or positive without choosing"),
    ("Negative for the fries but positive overall.", "asserts both negative and positive"),
    ("delicious", "names no polarity"),
])
def test_a_refusal_says_why(answer: str, reason: str):
    assert reason in read_polarity(answer).problem
