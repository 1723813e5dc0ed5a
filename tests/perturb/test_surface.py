"""The robustness invariances (typos, contractions, punctuation, case): the gold stays, no aspect term is
ever edited, every span follows, seeded, and a unit with nothing to change says why."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.examples import Aspect, Edit, Example, Opinion, Unit, Variant
from absa_checks.perturb import validity
from absa_checks.perturb.engine import Quarantined, Settings, generate
from absa_checks.perturb.strategies import NotApplicable, tagged
from absa_checks.perturb.typos import NOTHING_TO_MISSPELL, is_word, misspell, slips
from absa_checks.sources.builtin import load_builtin
from absa_checks.suites.spec import parse_suite

ROBUSTNESS = ("typos", "contractions", "punctuation", "case")


def unit(sentence: str, *terms: str, polarities: tuple[str, ...] = ()) -> Unit:
    """A unit whose aspects are `terms` (first occurrence each; the first is the target)."""
    aspects = []
    for i, term in enumerate(terms):
        start = sentence.index(term)
        aspects.append(Aspect(term, start, start + len(term), (polarities or ("positive",) * len(terms))[i]))
    return Unit("toy", sentence[:20], Example(sentence, aspects[0], tuple(aspects[1:])))


def variant_of(resources, u: Unit, strategy: str, seed: int = 0, **params) -> Variant | NotApplicable | Quarantined:
    return generate(u, strategy, Settings.of(seed, **params), resources, "restaurant")


def text(resources, sentence: str, strategy: str, *terms: str, seed: int = 0) -> str:
    made = variant_of(resources, unit(sentence, *terms), strategy, seed)
    assert isinstance(made, Variant), made
    return made.example.sentence


def assert_terms_kept(original: Example, variant: Example, recased: bool = False) -> None:
    """Every aspect keeps its term (for `case`, `recased`: up to case), its polarity, and is at its span."""
    pairs = zip((original.target, *original.others), (variant.target, *variant.others), strict=True)
    for before, after in pairs:
        same = after.term.casefold() == before.term.casefold() if recased else after.term == before.term
        assert same and after.polarity == before.polarity, (before, after)
        assert variant.sentence[after.start:after.end] == after.term, (variant.sentence, after)


@pytest.mark.parametrize("strategy", ROBUSTNESS)
def test_every_builtin_variant_keeps_every_aspect_term_its_span_and_the_gold(resources, strategy: str):
    made = 0
    for source in ("builtin-restaurant", "builtin-laptop"):
        for u in load_builtin(source).units:
            outcome = variant_of(resources, u, strategy)
            assert not isinstance(outcome, Quarantined), outcome
            if isinstance(outcome, Variant):
                made += 1
                assert outcome.example.sentence != u.original.sentence
                assert_terms_kept(u.original, outcome.example, recased=strategy == "case")
                for opinion in outcome.example.opinions:  # opinion spans follow too
                    assert outcome.example.sentence[opinion.start:opinion.end] == opinion.text
    assert made > 60


@pytest.mark.parametrize("strategy, sentence, terms", [
    # every word of the sentence a strategy would change is inside an aspect term, the target's or another's
    ("contractions", "I'm told the I'm Hungry platter isn't bad.", ("I'm Hungry platter",)),
    ("typos", "Fried calamari: outstanding.", ("Fried calamari",)),
    ("punctuation", "The pizza, pasta and salad were good.", ("pizza", "pasta", "salad")),
    ("punctuation", "The Greek yogurt (with cucumber, dill, and garlic) is great!", ("Greek yogurt (with cucumber, dill, "
                                                                                  "and garlic)",)),
    ("punctuation", "We loved the Yahoo!", ("Yahoo!",)),
])
def test_an_aspect_term_is_never_edited_even_where_it_reads_like_a_site(resources, strategy, sentence, terms):
    for seed in range(8):
        outcome = variant_of(resources, unit(sentence, *terms), strategy, seed)
        assert not isinstance(outcome, Quarantined), outcome  # never proposed, not merely caught
        if isinstance(outcome, Variant):
            assert_terms_kept(unit(sentence, *terms).original, outcome.example)
            for term in terms:
                assert term in outcome.example.sentence


def test_an_edit_inside_an_aspect_term_is_quarantined_by_the_validity_check(resources):
    u = unit("The Pad Thai was great.", "Pad Thai")
    edit = Edit(4, 7, "Pad", "PAD", "upper-case")
    variant = Example("The PAD Thai was great.", u.original.target)
    found = validity.problems(u.original, variant, (edit,), False, tagged(u.original, resources),
                              tagged(variant, resources), surface=True)
    assert ("an aspect term was edited", "Pad Thai") in found


def test_a_surface_edit_may_touch_the_targets_opinion_words_where_revnon_may_not(resources):
    original = Example("The pizza was great.", Aspect("pizza", 4, 9, "positive"), (),
                       (Opinion("great", 14, 19),))
    edit = Edit(14, 19, "great", "GREAT", "upper-case")
    variant = Example("The pizza was GREAT.", original.target, (), (Opinion("GREAT", 14, 19),))
    before, after = tagged(original, resources), tagged(variant, resources)
    assert validity.problems(original, variant, (edit,), False, before, after, surface=True) == []
    assert ("the target or its opinion words were edited", "") in validity.problems(original, variant, (edit,),
                                                                                    False, before, after)


@pytest.mark.parametrize("strategy", ("typos", "punctuation", "case"))
def test_the_seed_decides_the_variant(resources, strategy: str):
    units = load_builtin("builtin-restaurant").units[:40]

    def sentences(seed: int) -> list[str]:
        return [getattr(variant_of(resources, u, strategy, seed), "example", u.original).sentence for u in units]

    assert sentences(3) == sentences(3)
    assert sentences(3) != sentences(4)


def test_contractions_draw_nothing_a_sentence_always_gets_the_same_variant(resources):
    sentence = "It is not bad pizza, but I don't think we'll be back."
    assert {text(resources, sentence, "contractions", "pizza", seed=seed) for seed in range(5)} == {
        "It's not bad pizza, but I do not think we will be back."}


@pytest.mark.parametrize("sentence, expected", [
    ("The pizza is not bad.", "The pizza isn't bad."),
    ("The pizza isn't bad.", "The pizza is not bad."),
    ("I do not like the pizza.", "I don't like the pizza."),
    ("Don't order the pizza.", "Do not order the pizza."),
    ("DON'T ORDER THE pizza.", "DO NOT ORDER THE pizza."),
    ("You cannot beat the pizza.", "You can't beat the pizza."),
    ("You can't beat the pizza.", "You cannot beat the pizza."),
    ("We won't order the pizza again.", "We will not order the pizza again."),
    ("It is the best pizza.", "It's the best pizza."),
    ("There is nothing like the pizza.", "There's nothing like the pizza."),
    ("We came, and there is the pizza.", "We came, and there's the pizza."),
    ("It's the best pizza.", "It is the best pizza."),
    ("It's been the best pizza.", "It has been the best pizza."),
    ("The pizza has been great.", "The pizza has been great."),  # a noun subject: nothing to contract
    ("It has been the best pizza.", "It's been the best pizza."),
    ("I would recommend the pizza.", "I'd recommend the pizza."),
    ("I'd recommend the pizza.", "I would recommend the pizza."),
    ("I'd better order the pizza.", "I had better order the pizza."),
    ("I'd ordered the pizza before.", "I had ordered the pizza before."),
    ("I'd never order the pizza.", "I'd never order the pizza."),  # would or had: left as it is
    ("I am sure the pizza is great.", "I'm sure the pizza is great."),
    ("They're proud of the pizza.", "They are proud of the pizza."),
    ("We have tried the pizza.", "We've tried the pizza."),
    ("I would not order the pizza.", "I wouldn't order the pizza."),
    ("It’s the best pizza.", "It is the best pizza."),
    ("It is the best pizza, isn’t it?", "It’s the best pizza, isn’t it?"),  # an inverted n't stays
    ("Don't you love the pizza?", "Don't you love the pizza?"),
    ("Why didn't the waiter bring the pizza?", "Why didn't the waiter bring the pizza?"),
])
def test_contractions_go_both_ways(resources, sentence: str, expected: str):
    made = variant_of(resources, unit(sentence, "pizza"), "contractions")
    if expected == sentence:
        assert isinstance(made, NotApplicable)
    else:
        assert isinstance(made, Variant) and made.example.sentence == expected


@pytest.mark.parametrize("sentence", [
    "The chef's pizza is great.",            # a noun's 's is a possessive
    "It has a great pizza.",                 # "has" of possession never contracts ("It's a great pizza")
    "I know what the pizza is.",             # a sentence-final auxiliary stays whole
    "The pizza is, I think, great.",
    "Let's order the pizza.",
    "Frankly, the pizza here is something I can make at home.",  # "here" is an adverb, not a subject
    "Even for two hungry people there is plenty of pizza.",
])
def test_contractions_leave_what_is_not_an_auxiliary_alone(resources, sentence: str):
    made = variant_of(resources, unit(sentence, "pizza"), "contractions")
    assert isinstance(made, NotApplicable) and made.reason == "no contraction to expand and no phrase to contract"


def test_a_curly_apostrophe_sentence_gets_curly_contractions(resources):
    assert text(resources, "It is great, but the pizza isn’t.", "contractions", "pizza") == \
        "It’s great, but the pizza is not."


def test_typos_never_touch_a_negation_and_never_make_another_word(resources):
    sentence = "The pizza was not good and never warm, nothing without cheese."
    for seed in range(30):
        made = variant_of(resources, unit(sentence, "pizza"), "typos", seed, k=3)
        assert isinstance(made, Variant)
        words = re.findall(r"[a-z]+", made.example.sentence.lower())
        assert {"not", "never", "nothing", "without"} <= set(words)
        assert len(made.edits) == 3 and all(e.why.startswith("typo: ") for e in made.edits)
    wordnet = resources.finder.wordnet
    for word in ("slow", "good", "now", "bad"):
        assert {misspell(word, random.Random(seed), wordnet) for seed in range(20)} - {None}
        for seed in range(20):
            slip = misspell(word, random.Random(seed), wordnet)
            assert slip is not None and not is_word(slip[1], wordnet), (word, slip)
    assert ("swap 'Co'", "Ocns") in slips("Cons") and all(new[0].isupper() and new[1:].islower()
                                                         for _, new in slips("Cons"))
    assert ("drop 's'", "low") in slips("slow")  # a slip that exists, and is refused: it is another word
    assert is_word("low", wordnet) and is_word("no", wordnet)


def test_typos_k_misspells_k_distinct_words(resources):
    made = variant_of(resources, unit("The pizza was tasty and the service quick and friendly.", "pizza"),
                      "typos", 1, k=4)
    assert isinstance(made, Variant) and len({(e.start, e.end) for e in made.edits}) == 4


@pytest.mark.parametrize("strategy, sentence, terms, params, why", [
    ("typos", "No pizza.", ("pizza",), {}, NOTHING_TO_MISSPELL),
    ("typos", "Delicious pizza.", ("pizza",), {}, NOTHING_TO_MISSPELL),  # the only word left carries the sentiment
    ("typos", "Great pizza today.", ("pizza",), {"k": 2}, "fewer words to misspell than k"),
    ("contractions", "The pizza was great.", ("pizza",), {}, "no contraction to expand and no phrase to contract"),
    ("punctuation", "Great pizza :)", ("pizza",), {}, "no final punctuation or comma to change"),
    ("case", "寿司 42", ("寿司",), {}, "no letter changes case"),
])
def test_nothing_to_change_is_no_variant_with_its_reason(resources, strategy, sentence, terms, params, why):
    made = variant_of(resources, unit(sentence, *terms), strategy, **params)
    assert isinstance(made, NotApplicable) and made.reason == why


def test_punctuation_removes_or_adds_and_keeps_a_list_of_aspects(resources):
    seen = {text(resources, "Sadly, the bread was stale.", "punctuation", "bread", seed=s) for s in range(12)}
    assert seen == {"Sadly the bread was stale.", "Sadly, the bread was stale"}
    assert text(resources, "The bread was stale", "punctuation", "bread") == "The bread was stale."
    listed = {text(resources, "The pizza, pasta and salad were good!!", "punctuation", "pizza", "pasta", "salad",
                   seed=s) for s in range(8)}
    assert listed == {"The pizza, pasta and salad were good"}
    assert text(resources, "It cost 1,000 yen.", "punctuation", "yen") == "It cost 1,000 yen"
    assert text(resources, "We will be back for the pizza ....", "punctuation", "pizza") == \
        "We will be back for the pizza"


def test_case_changes_every_word_the_aspect_terms_too_each_at_its_span(resources):
    """Issue 35: "IT'S GREAT FOR streaming video" was judged unrealistic: the terms are cased like the rest."""
    u = unit("The Pad Thai was great, I'd say, and the BLT too.", "Pad Thai", "BLT")
    made = {variant_of(resources, u, "case", seed=s) for s in range(20)}
    assert not any(isinstance(m, Quarantined) for m in made)
    assert {m.example.sentence for m in made} == {"the pad thai was great, i'd say, and the blt too.",
                                                  "THE PAD THAI WAS GREAT, I'D SAY, AND THE BLT TOO.",
                                                  "The Pad Thai Was Great, I'd Say, And The Blt Too."}
    for m in made:
        assert_terms_kept(u.original, m.example, recased=True)
        recased = {e.old: e.new for e in m.edits if e.old in ("Pad Thai", "BLT")}  # each term one edit, whole
        assert [m.example.target.term, m.example.others[0].term] == [recased.get(t, t) for t in ("Pad Thai", "BLT")]
    assert "GREAT FOR STREAMING VIDEO." in {text(resources, "Great for streaming video.", "case", "streaming video",
                                                 seed=s) for s in range(20)}


def test_a_word_across_a_terms_edge_is_recased_on_both_sides(resources):
    u = unit("The pizzas were great.", "pizza")
    sentences = {variant_of(resources, u, "case", seed=s).example.sentence for s in range(20)}
    assert sentences == {"the pizzas were great.", "THE PIZZAS WERE GREAT.", "The Pizzas Were Great."}


def test_a_length_changing_case_moves_the_span(resources):
    u = unit("Straße and pizza.", "pizza")
    for seed in range(10):
        made = variant_of(resources, u, "case", seed)
        assert isinstance(made, Variant)
        assert_terms_kept(u.original, made.example, recased=True)
    upper = [variant_of(resources, u, "case", s) for s in range(10)]
    assert any(m.example.sentence == "STRASSE AND PIZZA." and m.example.target.start == 12 for m in upper)
    upper = [variant_of(resources, unit("Die Straße is loud.", "Straße"), "case", s) for s in range(10)]  # the term grows
    assert any(m.example.sentence == "DIE STRASSE IS LOUD." and m.example.target == Aspect("STRASSE", 4, 11, "positive")
               for m in upper)


def test_typos_k_is_checked_where_it_is_written(tmp_path: Path):
    suite = tmp_path / "s.yaml"
    suite.write_text("suite: s\ntests:\n  - {name: t, strategy: typos, k: 11, sources: [builtin-laptop]}\n")
    with pytest.raises(AbsaChecksError, match="s.yaml:3: 'k' is 11; at most 10 words can be misspelt"):
        parse_suite(suite, ("builtin-laptop",))
    suite.write_text("suite: s\ntests:\n  - {name: t, strategy: case, k: 2, sources: [builtin-laptop]}\n")
    with pytest.raises(AbsaChecksError, match="'k' only applies to adddiff, typos; test 't' is case"):
        parse_suite(suite, ("builtin-laptop",))


def test_the_robustness_suite_runs_with_the_lexicon_model(run):
    result = run(["suites/invariance/robustness.yaml", "--absa-sources", "builtin-restaurant"],
                 env={"ABSA_DATA_DIR": ""})
    assert result.code == 0, result.out[-3000:]
    cases = result.report["cases"]
    assert {c["strategy"] for c in cases} == {"typos", "typos(k=3)", "contractions", "punctuation", "case"}
    assert all(c["expect"] == "unchanged" and c["variant"]["gold"] == c["original"]["gold"] for c in cases)
    def at_span(c: dict) -> str:
        found = c["variant"]["sentence"][c["variant"]["from"]:c["variant"]["to"]]
        return found.casefold() if c["strategy"] == "case" else found  # case recases the term too

    assert all(at_span(c) == (c["original"]["term"].casefold() if c["strategy"] == "case" else c["original"]["term"])
               for c in cases)
    assert any(c["strategy"] == "case" and c["variant"]["sentence"].isupper() for c in cases)
    assert 150 <= len(cases) <= 400
    coverage = result.report["coverage"]
    assert "no variant: no contraction to expand and no phrase to contract" in str(coverage)
    assert "absa-checks PASSED" in result.summary


def test_typos_never_hit_the_targets_opinion_words(resources):
    """Issue 35: a typo in the word that carries the target's sentiment ("nightmare" -> "nightmmare", "wrong"
    -> "wrnog", seed 0) tests a misspelt opinion, not a misspelt sentence: the target's opinion spans are never
    touched, nor any aspect term; 59 of the 382 restaurant variants of seed 0 hit one before."""
    for source in ("builtin-restaurant", "builtin-laptop"):
        for u in load_builtin(source).units:
            mine = [(o.start, o.end) for o in u.original.opinions if o.aspect == 0]
            for seed in (0, 1):
                made = variant_of(resources, u, "typos", seed)
                assert not isinstance(made, Quarantined), made
                if isinstance(made, Variant):
                    hit = [e.old for e in made.edits for a, b in mine if e.start < b and a < e.end]
                    assert not hit, (u.original.sentence, hit)
                    assert_terms_kept(u.original, made.example)
    parking = next(u for u in load_builtin("builtin-restaurant").units
                   if u.original.sentence == "The parking is a nightmare on weekends.")
    assert variant_of(resources, parking, "typos", 0).edits[0].old == "weekends"


def test_typos_without_opinion_spans_spare_the_evaluative_words(resources):
    """A unit with no opinion span for the target: the words the lexicon finds evaluative are spared."""
    u = unit("The pizza was delicious, but the waiter was slow.", "pizza")
    assert not u.original.opinions
    misspelt = {e.old for seed in range(20) for e in variant_of(resources, u, "typos", seed).edits}
    assert misspelt and not misspelt & {"delicious", "slow"}
