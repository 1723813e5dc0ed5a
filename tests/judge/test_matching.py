"""The matcher of extracted terms against gold, strict and flexible, and its agreement with a reader's
judgements (tests/data/matching_pairs.yaml: 122 hand-labelled pairs, 50 of them near misses: 64 written
for the project, 18 near misses of the shared tagger, 40 drawn from its real outputs with seed 24)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from absa_checks.common.tuples import AnnotatedSentence, AspectTuple
from absa_checks.judge.matching import (
    aspect_match,
    assign,
    content_words,
    flexible_text_match,
    head,
    heads,
    matched,
    surface,
)
from absa_checks.judge.scoring import Counts, sentence_counts
from conftest import MODELS, REPO, SHARED_DATA, needs_extra

PAIRS = yaml.safe_load((Path(__file__).parents[1] / "data" / "matching_pairs.yaml").read_text(encoding="utf-8"))["pairs"]

# The pairs the flexible matcher and the reader disagree on, each a form a reader accepts that no rule here
# covers (never a near miss the matcher accepts): (gold, prediction) -> why
KNOWN_MISSES = {
    ("wine list", "the wine list here"): "a word after the head ('here') is not a modifier the rules know",
    ("prices", "price"): "singular for plural: no lemmatiser",
    ("fans", "fan"): "singular for plural: no lemmatiser",
    ("ordering online", "ordering"): "the head is a verb form followed by an adverb",
    ("Mediterranean salads--layered with beets, goat cheese and walnuts", "Mediterranean salads"):
        "a description after a dash: punctuation is not read, so the head is taken before 'with' ('layered')",
    ("Radeon HD 6750M 512MB graphic card", "Radeon HD"): "a product name without its model number and head noun",
}


def judge(pair: dict, mode: str) -> bool:
    """The matcher's verdict on one labelled pair."""
    prediction, gold, sentence = str(pair["prediction"]), str(pair["gold"]), pair["sentence"]
    others = [str(o) for o in pair.get("others", [])]
    alternatives = [str(a) for a in pair.get("alternatives", [])] if mode == "flexible" else []
    if pair.get("field", "aspect") == "opinion":
        return surface(prediction) == surface(gold) if mode == "strict" else \
            flexible_text_match(prediction, gold, sentence, others, alternatives, aspect=False)
    golds = [AspectTuple(gold), *(AspectTuple(o) for o in others)]
    return aspect_match(AspectTuple(prediction), golds[0], mode, sentence, golds, alternatives)


def agreement(mode: str) -> tuple[int, list[dict]]:
    wrong = [p for p in PAIRS if judge(p, mode) != p["match"]]
    return len(PAIRS) - len(wrong), wrong


def test_the_labelled_pairs_are_many_and_mixed():
    assert len(PAIRS) == 122
    assert sum(not p["match"] for p in PAIRS) == 50  # near misses, not only easy matches
    real = [p for p in PAIRS if "source" in p]
    assert len(real) == 58 and all(p.get("reason") and p.get("id") for p in real)  # labelled by reading, traceable
    # the real pairs carry the terms only, never the public sentence around them
    assert all(len(p["sentence"]) <= max(len(p["gold"]), len(p["prediction"])) + 2 or
               p["sentence"] in (p["gold"], p["prediction"]) for p in real)


def test_flexible_matching_agrees_with_the_reader_and_never_accepts_a_near_miss():
    agreed, wrong = agreement("flexible")
    strict_agreed, _ = agreement("strict")
    # 116 of 122 (95%; before issue 24: 101, with 12 near misses accepted); strict matching agrees on 62
    assert {(p["gold"], p["prediction"]) for p in wrong} == set(KNOWN_MISSES)
    assert agreed == 116 and strict_agreed == 62
    assert all(p["match"] for p in wrong)  # every disagreement is a missed match: no false accept


@pytest.mark.parametrize("term, found", [
    ("front of house staff", ("staff",)),            # "front of": a part, so the staff is named
    ("bottle of wine", ("wine",)),                   # a container of Y names Y
    ("glass of wine", ("wine",)),
    ("the pieces of fish", ("fish",)),
    ("two glasses of the house wine", ("wine",)),    # plural partitives too
    ("slice of NYC pizza", ("pizza",)),
    ("battery life of this laptop", ("life",)),      # X of Y otherwise names X
    ("selection of wines", ("selection",)),          # a selection is rated itself
    ("portions of the food", ("portions",)),         # so are portions (their size)
    ("guacamole at pacifico", ("guacamole",)),
    ("round corner table next to the large window", ("table",)),
    ("fried oysters and clams", ("oysters", "clams")),  # a coordination: one head per conjunct
    ("mac & cheese", ("mac", "cheese")),
    ("order of fried oysters and clams", ("oysters", "clams")),
    ("pizza \u2019 s", ("pizza",)),                   # a clitic left by tokenisation is no head
])
def test_heads_of_aspect_terms(term, found):
    assert heads(content_words(term)) == found


@pytest.mark.parametrize("prediction, gold, accepted", [
    ("staff", "front of house staff", True),
    ("front", "front of house staff", False),
    ("front of house", "front of house staff", False),
    ("wine", "bottle of wine", True),
    ("bottle", "bottle of wine", False),
    ("bottle of wine", "wine", True),                # zoom-out keeping the head
    ("wine", "selection of wines", False),
    ("battery life", "battery life of this laptop", True),
    ("laptop", "battery life of this laptop", False),
    ("counter", "servers behind the counter", False),
    ("servers", "servers behind the counter", True),
])
def test_a_flexible_match_keeps_the_head_of_the_gold_term(prediction, gold, accepted):
    sentence = f"We liked the {prediction}, the {gold} a lot."
    assert flexible_text_match(prediction, gold, sentence) is accepted


@pytest.mark.parametrize("prediction, gold", [
    ("meal of", "meal"), ("quality of", "quality of the meat"), ("chicken in", "chicken in the salads"),
    ("fish on", "fish on the omikase platter"), ("of the pizza", "pizza"), ("with pizza", "pizza"),
    ("scallops and", "scallops"), ("pita and", "pita"), ("and salad", "salad"), ("pizza but", "pizza"),
    ("pizza the", "pizza"), ("pizza this", "pizza"), ("pizza it", "pizza"), ("it pizza", "pizza"),
    ("food they", "food"), ("desserts which", "desserts"), ("screen than", "screen"),
])
def test_a_predicted_term_that_begins_or_ends_with_a_function_word_is_not_the_gold(prediction, gold):
    sentence = f"I had {prediction} {gold} there."
    assert not flexible_text_match(prediction, gold, sentence)
    assert flexible_text_match(gold, gold, sentence)  # the gold's own text still matches


def test_leading_determiners_are_dropped_before_the_edges_are_judged():
    assert flexible_text_match("the pizza", "pizza", "The pizza was great.")
    assert flexible_text_match("our waiter", "waiter", "Our waiter was great.")
    assert flexible_text_match("log on", "log on", "The log on is fast.")  # the gold's own words: same text
    # an opinion may end in a pronoun ("worth it"), never in a preposition or a conjunction
    assert flexible_text_match("worth it", "worth", "It is worth it.", aspect=False)
    assert flexible_text_match("love it", "love", "I love it.", aspect=False)
    assert not flexible_text_match("it", "love it", "I love it.", aspect=False)
    assert not flexible_text_match("friendly and", "friendly", "Friendly and fast.", aspect=False)
    assert not flexible_text_match("good for", "good", "Good for the price.", aspect=False)


@pytest.mark.parametrize("prediction, gold, accepted", [
    ("not good", "good", False), ("good", "not good", False), ("never crisp", "crisp", False),
    ("really not good", "not good", True), ("n't worth", "not worth", True), ("aren't crisp", "not crisp", True),
])
def test_an_opinion_grown_or_cut_over_a_negation_is_another_opinion(prediction, gold, accepted):
    sentence = f"It was {prediction} and {gold}."
    assert flexible_text_match(prediction, gold, sentence, aspect=False) is accepted


@pytest.mark.parametrize("prediction, gold, accepted", [
    ("hardly edible", "edible", False), ("edible", "hardly edible", False), ("barely warm", "warm", False),
    ("anything but cheap", "cheap", False), ("cheap", "anything but cheap", False),
    ("scarcely friendly", "friendly", False), ("no longer fresh", "fresh", False), ("far from good", "good", False),
    ("really hardly edible", "hardly edible", True), ("nothing special", "nothing special", True),
])
def test_an_opinion_grown_or_cut_over_a_negating_word_or_phrase_is_another_opinion(prediction, gold, accepted):
    sentence = f"The food was {prediction} and {gold}."
    assert flexible_text_match(prediction, gold, sentence, aspect=False) is accepted


@pytest.mark.parametrize("prediction, gold, accepted", [
    ("life", "battery life", False), ("battery life", "life", False), ("time", "boot time", False),
    ("size", "screen size", False), ("quality", "food quality", False), ("quality", "sound quality", False),
    ("speed", "processor speed", False), ("prices", "wine prices", False), ("resolution", "screen resolution", False),
    ("battery life", "long battery life", True),   # a qualifier dropped: still the battery life
    ("quality", "build quality", True),            # "build" qualifies: the quality of the machine itself
    ("quality", "overall quality", True), ("price", "great price", True), ("price", "reasonable price", True),
    ("fries", "french fries", True), ("card", "WLAN card", True),  # not attribute nouns: the thing itself
    ("service", "customer service", True),
])
def test_a_generic_attribute_noun_alone_is_not_the_compound_that_names_its_owner(prediction, gold, accepted):
    sentence = f"We liked the {gold}, the {prediction} a lot."
    assert flexible_text_match(prediction, gold, sentence) is accepted


@pytest.mark.parametrize("prediction, gold, accepted", [
    ("s", "pizza \u2019 s", False), ("s", "pizza ' s", False), ("'s", "pizza 's", False),
    ("pizza", "pizza \u2019 s", True), ("sake", "sake \u2019 s", True),
    ("pizza 's", "pizza", True),  # a possessive is dropped, as before: "pizza's" is the pizza
    ("n't", "do n't", False), ("t", "don ' t", False), ("re", "you ' re", False),
])
def test_clitics_and_word_fragments_are_not_terms(prediction, gold, accepted):
    sentence = f"The {gold} are thin."
    assert flexible_text_match(prediction, gold, sentence) is accepted


@pytest.mark.parametrize("prediction, gold, accepted", [
    ("clams", "fried oysters and clams", False),
    ("fried oysters", "fried oysters and clams", False),
    ("fried oysters and", "fried oysters and clams", False),
    ("oysters and clams", "fried oysters and clams", True),   # both heads kept
    ("fried oysters and clams", "clams", False),              # zoom-out over another thing
    ("chips", "fish and chips", False),
    ("cheese", "mac & cheese", False),
    ("mouse", "wireless keyboard and mouse", False),
    ("keyboard or mouse", "keyboard", False),
])
def test_one_conjunct_of_a_coordination_is_a_near_miss(prediction, gold, accepted):
    sentence = f"An order of {gold} and of {prediction}."
    assert flexible_text_match(prediction, gold, sentence) is accepted


def test_a_term_predicted_twice_counts_once_where_the_gold_has_no_spans():
    sentence = "The waitress was rude and the waitress forgot us ."
    twice = [AspectTuple("waitress", "negative", 4, 12), AspectTuple("waitress", "negative", 30, 38)]
    asqp = AnnotatedSentence("rest15-1", sentence, (AspectTuple("waitress", "negative"),), spans=False)
    for level in ("aspect", "pair"):
        for mode in ("strict", "flexible"):
            assert sentence_counts(asqp, twice, level, mode) == Counts(1, 1, 1)
    # with spans in the gold, each place is a term of its own: the second is a false positive
    semeval = AnnotatedSentence("1", sentence, (AspectTuple("waitress", "negative", 4, 12),), spans=True)
    assert sentence_counts(semeval, twice, "pair", "strict") == Counts(1, 2, 1)
    # unmatched duplicates count once too; another polarity is another pair
    wrong = [AspectTuple("towels", "negative", 0, 6), AspectTuple("towels", "negative", 20, 26),
             AspectTuple("waitress", "positive", 4, 12)]
    assert sentence_counts(asqp, wrong, "pair", "strict") == Counts(0, 2, 1)
    assert sentence_counts(asqp, [*twice, AspectTuple("waitress", "positive", 50, 58)], "pair", "strict") == \
        Counts(1, 2, 1)
    # a sentence's gold given without the spans flag: spans decided by the gold tuples themselves
    assert sentence_counts(AnnotatedSentence("x", sentence, (AspectTuple("waitress", "negative"),)), twice,
                           "pair", "strict") == Counts(1, 1, 1)


def test_duplicates_that_each_match_a_gold_tuple_of_their_own_both_count():
    sentence = "The special roll and the regular roll were great ."
    gold = AnnotatedSentence("rest15-2", sentence, (AspectTuple("special roll", "positive"),
                                                    AspectTuple("regular roll", "positive")), spans=False)
    rolls = [AspectTuple("roll", "positive", 12, 16), AspectTuple("roll", "positive", 33, 37)]
    assert sentence_counts(gold, rolls, "pair", "flexible") == Counts(2, 2, 2)
    assert sentence_counts(gold, rolls, "pair", "strict") == Counts(0, 1, 2)


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


def _missing_for_the_draw() -> str:
    """Why the draw cannot be repeated here ('' when it can)."""
    if not (MODELS / "minilm-absa-e2e-rest" / "config.json").is_file():
        return f"needs the shared end-to-end checkpoint at {MODELS / 'minilm-absa-e2e-rest'} (set ABSA_SHARED_DIR)"
    if not (SHARED_DATA / "semeval2014" / "Laptops_Test_Gold.xml").is_file():
        return f"needs the shared SemEval-2014 test data under {SHARED_DATA} (set ABSA_SHARED_DIR)"
    return ""


@pytest.mark.slow
@needs_extra("transformers")
@pytest.mark.skipif(bool(_missing_for_the_draw()), reason=_missing_for_the_draw() or "-")
def test_the_drawn_pairs_are_the_ones_the_recorded_seed_draws_from_the_taggers_real_outputs(tmp_path):
    """The 40 pairs with `seed: 24` are what benchmarks/quality/matching_pairs.py draws from the shared tagger's answers
    on the SemEval-2014 test sets (the tagger run for real, its answers cached in tmp_path only)."""
    cache = tmp_path / "answers.jsonl"
    script = [sys.executable, str(REPO / "benchmarks" / "quality" / "matching_pairs.py")]
    common = ["--data", str(SHARED_DATA), "--cache", str(cache)]
    subprocess.run([*script, "predict", *common, "--model", str(MODELS / "minilm-absa-e2e-rest"),
                    "--sources", "semeval14-restaurant", "semeval14-laptop"],
                   check=True, capture_output=True, timeout=900)
    drawn = subprocess.run([*script, "draw", *common, "--seed", "24", "--n", "40"], check=True, capture_output=True,
                           text=True, timeout=300).stdout.splitlines()
    assert drawn[0] == "# 235 candidate pairs; seed 24; 40 drawn"
    found = [json.loads(line) for line in drawn[1:]]
    committed = [p for p in PAIRS if p.get("seed") == 24]
    assert [(d["source"], d["id"], d["gold"], d["prediction"], d["fragment"]) for d in found] == \
        [(p["source"], p["id"], p["gold"], p["prediction"], p["sentence"]) for p in committed]
