"""Tests for the VADER-lexicon adapter (model_adapters/lexicon.py).

Expected labels were checked against vaderSentiment 3.3.2; where VADER's lexicon lacks a word
(e.g. "tasty", "soggy", "slow", "slows", "fast", "reliable") the test asserts what is true.
"""

from __future__ import annotations

import pytest

from absa_checks.perturb.polarity import supplementary_lexicon
from model_adapters.lexicon import (
    ALGORITHM_VERSION,
    LexiconAdapter,
    compound_to_label,
    compound_to_probabilities,
    target_clause,
    target_window,
)
from model_adapters.protocol import Adapter, Query, QueryError


@pytest.fixture(scope="module")
def target() -> LexiconAdapter:
    return LexiconAdapter("target")


@pytest.fixture(scope="module")
def sentence() -> LexiconAdapter:
    return LexiconAdapter("sentence")


def query(text: str, aspect: str, occurrence: int = 0) -> Query:
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(aspect, start + 1)
    return Query(text, aspect, start, start + len(aspect))


def label(adapter: LexiconAdapter, q: Query) -> str:
    (answer,) = adapter.predict([q])
    assert isinstance(answer, dict)
    return max(answer, key=answer.__getitem__)


FOOD_SERVICE = "The food was great but the service was slow and rude."
ADDDIFF = "The sound quality is amazing, but support is painfully slow and the keyboard is terrible."


def test_satisfies_protocol(target: LexiconAdapter, sentence: LexiconAdapter) -> None:
    assert isinstance(target, Adapter) and isinstance(sentence, Adapter)
    assert (target.name, sentence.name) == ("lexicon", "lexicon-sentence")
    assert target.describe()["kind"] == "lexicon"
    assert target.describe()["scope"] == "target"
    assert str(sentence.describe()["lexicon"]).startswith("vaderSentiment ")


def test_tasty_burgers_soggy_fries_spans(target: LexiconAdapter, sentence: LexiconAdapter) -> None:
    text = "Tasty burgers, soggy fries."
    # "fries" is at 21-26 (not 22-27: that span would read "ries.").
    burgers, fries = Query(text, "burgers", 6, 13), Query(text, "fries", 21, 26)
    assert text[6:13] == "burgers" and text[21:26] == "fries"
    assert target_clause(text, 6, 13) == "Tasty burgers"
    assert target_clause(text, 21, 26) == "soggy fries"
    # VADER 3.3.2 has no entry for "tasty" or "soggy", so every scope sees no opinion here.
    assert label(target, burgers) == label(target, fries) == "neutral"
    assert label(sentence, burgers) == label(sentence, fries)


def test_same_shape_with_lexicon_words(target: LexiconAdapter, sentence: LexiconAdapter) -> None:
    text = "Delicious burgers, horrible fries."
    assert label(target, query(text, "burgers")) == "positive"
    assert label(target, query(text, "fries")) == "negative"
    assert label(sentence, query(text, "burgers")) == label(sentence, query(text, "fries"))


def test_contrast_with_but(target: LexiconAdapter, sentence: LexiconAdapter) -> None:
    assert target_clause(FOOD_SERVICE, *span(FOOD_SERVICE, "service")) == "the service was slow and rude"
    assert label(target, query(FOOD_SERVICE, "food")) == "positive"
    assert label(target, query(FOOD_SERVICE, "service")) == "negative"
    # The aspect-blind baseline gives both aspects one label (VADER weights the part after "but").
    assert label(sentence, query(FOOD_SERVICE, "food")) == label(sentence, query(FOOD_SERVICE, "service"))


def span(text: str, aspect: str) -> tuple[int, int]:
    q = query(text, aspect)
    return q.start, q.end


def test_and_starting_a_new_clause_splits(target: LexiconAdapter) -> None:
    text = "The food was great and the service was horrible."
    assert target_clause(text, *span(text, "food")) == "The food was great"
    assert target_clause(text, *span(text, "service")) == "the service was horrible"
    assert label(target, query(text, "food")) == "positive"
    assert label(target, query(text, "service")) == "negative"


def test_and_between_adjectives_is_kept(target: LexiconAdapter) -> None:
    text = "The laptop is fast and reliable."
    assert target_clause(text, *span(text, "laptop")) == "The laptop is fast and reliable"
    # "fast" and "reliable" are not in VADER's lexicon; an in-lexicon pair shows the scoring.
    text = "The laptop is nice and lovely."
    assert "lovely" in target_clause(text, *span(text, "laptop"))
    assert label(target, query(text, "laptop")) == "positive"


def test_and_inside_the_aspect_is_not_a_boundary(target: LexiconAdapter) -> None:
    text = "The fish and chips were awful."
    assert target_clause(text, *span(text, "fish and chips")) == "The fish and chips were awful"
    assert label(target, query(text, "fish and chips")) == "negative"


def test_negation_flips_the_label(target: LexiconAdapter) -> None:
    # VADER has no "slow"; TextBlob's lexicon (the supplement) has it at -0.3, so the adjective now
    # reads negative and its negation positive (VADER's own negation rule).
    assert label(target, query("The rendering is slow.", "rendering")) == "negative"
    assert label(target, query("The rendering is not slow.", "rendering")) == "positive"
    # ... and ARTS's rendering pair now flips the right way
    assert label(target, query("Video export slows it down considerably.", "Video export")) == "negative"
    assert label(target, query("Video export does not slow it down considerably.", "Video export")) == "positive"
    assert label(target, query("The screen is good.", "screen")) == "positive"
    assert label(target, query("The screen is not good.", "screen")) == "negative"


def test_supplement_fills_only_words_vader_lacks(target: LexiconAdapter) -> None:
    supplement = supplementary_lexicon()
    assert supplement["slow"] < 0 and supplement["bland"] < 0 and supplement["quick"] > 0
    # VADER's own value for a word it has is kept
    assert target._polarity.valence("good") == 1.9
    assert target._polarity.valence("slow") == pytest.approx(4 * supplement["slow"])


def test_adddiff_sentence(target: LexiconAdapter, sentence: LexiconAdapter) -> None:
    sound = query(ADDDIFF, "sound quality")
    assert target_clause(ADDDIFF, sound.start, sound.end) == "The sound quality is amazing"
    assert label(target, sound) == "positive"
    # The added negative clauses drag the whole-sentence score below zero.
    assert label(sentence, sound) == "negative"
    assert label(target, query(ADDDIFF, "keyboard")) == "negative"


def test_fallback_window_when_clause_has_no_opinion(target: LexiconAdapter) -> None:
    text = "Great food, the service"
    assert target_clause(text, *span(text, "service")) == "the service"
    assert target_window(text, *span(text, "service")) == text
    assert label(target, query(text, "service")) == "positive"


def test_fallback_window_stops_at_contrastive_words(target: LexiconAdapter, sentence: LexiconAdapter) -> None:
    text = "Everything was great except the fries"  # target at the very end, no final punctuation
    assert target_window(text, *span(text, "fries")) == "the fries"
    assert label(target, query(text, "fries")) == "neutral"
    assert label(sentence, query(text, "fries")) == "positive"


def test_window_size_is_four_tokens_each_side() -> None:
    text = "one two three four five TARGET six seven eight nine ten"
    assert target_window(text, *span(text, "TARGET")) == "two three four five TARGET six seven eight nine"


def test_target_at_end_of_sentence(target: LexiconAdapter) -> None:
    text = "I really love this laptop"
    q = query(text, "laptop")
    assert q.end == len(text)
    assert label(target, q) == "positive"


def test_no_lexicon_words_is_neutral(target: LexiconAdapter, sentence: LexiconAdapter) -> None:
    q = query("The table is by the window.", "table")
    assert label(target, q) == label(sentence, q) == "neutral"
    (answer,) = target.predict([q])
    assert isinstance(answer, dict)
    assert answer["positive"] == pytest.approx(answer["negative"])


def test_invalid_span_is_a_query_error(target: LexiconAdapter, sentence: LexiconAdapter) -> None:
    bad = Query("Short.", "x", 3, 99)
    good = query("The screen is good.", "screen")
    answers = target.predict([bad, good])
    assert isinstance(answers[0], QueryError) and isinstance(answers[1], dict)
    # The sentence scope never looks at the span.
    assert isinstance(sentence.predict([bad])[0], dict)
    assert target.predict([]) == []


@pytest.mark.parametrize("text,aspect", [
    (FOOD_SERVICE, "food"), (FOOD_SERVICE, "service"), (ADDDIFF, "keyboard"),
    ("The table is by the window.", "table"), ("The screen is not good.", "screen"),
])
@pytest.mark.parametrize("scope", ["target", "sentence"])
def test_probabilities_agree_with_decision_rule(text: str, aspect: str, scope: str) -> None:
    adapter = LexiconAdapter(scope)
    q = query(text, aspect)
    (answer,) = adapter.predict([q])
    assert isinstance(answer, dict)
    assert set(answer) == {"negative", "neutral", "positive"}
    assert sum(answer.values()) == pytest.approx(1.0)
    assert all(0.0 < p < 1.0 for p in answer.values())
    assert max(answer, key=answer.__getitem__) == compound_to_label(adapter.compound(q))


@pytest.mark.parametrize("c,expected", [
    (0.9, "positive"), (0.06, "positive"), (0.04, "neutral"), (0.0, "neutral"),
    (-0.04, "neutral"), (-0.05, "negative"), (-0.9, "negative"),
])
def test_decision_rule_and_softmax(c: float, expected: str) -> None:
    assert compound_to_label(c) == expected
    probs = compound_to_probabilities(c)
    assert sum(probs.values()) == pytest.approx(1.0)
    assert max(probs, key=probs.__getitem__) == expected


def test_fingerprint_stable_and_scope_specific() -> None:
    a, b, s = LexiconAdapter(), LexiconAdapter("target"), LexiconAdapter("sentence")
    assert a.fingerprint() == b.fingerprint()
    assert a.fingerprint() != s.fingerprint()
    assert len(a.fingerprint()) == 16 and int(a.fingerprint(), 16) >= 0
    assert ALGORITHM_VERSION.startswith("2")


def test_fingerprint_tracks_algorithm_version(monkeypatch: pytest.MonkeyPatch) -> None:
    before = LexiconAdapter().fingerprint()
    monkeypatch.setattr("model_adapters.lexicon.ALGORITHM_VERSION", "3")
    assert LexiconAdapter().fingerprint() != before


def test_unknown_scope_raises() -> None:
    with pytest.raises(ValueError, match="sentence.*target|target.*sentence"):
        LexiconAdapter("aspect")


def test_the_lexicon_is_read_at_the_first_prediction_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building the adapter reads nothing (a run stopped by a usage error, or answered from the cache, never
    imports TextBlob); the first prediction reads the lexicon, and later ones reuse it."""
    import model_adapters.lexicon as lexicon

    built = []

    class Counted(lexicon.Polarity):
        def __init__(self) -> None:
            built.append(self)
            super().__init__()

    monkeypatch.setattr(lexicon, "Polarity", Counted)
    adapter = LexiconAdapter("target")
    assert built == []
    query = Query("The soup was cold.", "soup", 4, 8)
    first = adapter.predict([query])
    second = adapter.predict([query])
    assert len(built) == 1 and first == second == LexiconAdapter("target").predict([query])
