"""Golden tests for the causes blind readers found in the development round on the training splits
(docs/quality/round-5-dev, seed 5; docs/perturbations.md). Each sentence is the judged one, written in
the built-in fixtures' markup (`[term|pos]` an aspect, `{words|term}` an opinion about it), with the
opinion words TOWE annotates; the variant a reader rejected must never ship again.
"""

from __future__ import annotations

import pytest

from absa_checks.common.examples import Aspect, Edit, Example, Unit, Variant
from absa_checks.perturb import context
from absa_checks.perturb.engine import Quarantined, Settings, generate
from absa_checks.perturb.resources import load_resources
from absa_checks.perturb.strategies import NotApplicable
from absa_checks.sources.markup import examples_of, parse_marked


@pytest.fixture(scope="module")
def resources():
    return {"laptop": load_resources("laptop"), "restaurant": load_resources("restaurant")}


def generated(resources, markup: str, strategy: str = "revtgt", domain: str = "laptop"):
    # the target is the aspect marked "!": "[term|pos!]" (else the first)
    examples = examples_of(parse_marked(markup.replace("!]", "]"), "golden", 1))
    marked = [part.split("|")[0] for part in markup.split("[")[1:] if "!]" in part.split("]")[0] + "]"]
    unit = Unit("golden", "g1", next((e for e in examples if marked and e.target.term == marked[0]), examples[0]))
    return generate(unit, strategy, Settings(seed=0), resources[domain], domain)


# (judged variant, markup, strategy, domain, the quarantine reason now given)
QUARANTINED = [
    # the rest of the sentence still supports the old polarity (a clause that names no aspect)
    ("With the dreadful range on the wine list , I come here a lot and am never bored .",
     "With the {great range|wine list} on the [wine list|pos] , I come here a lot and am never bored .",
     "revtgt", "restaurant", "a clause names no aspect"),
    ("This tablet is very hard to use and it just feels right.",
     "This tablet is {very easy|use} to [use|pos] and it just feels right.", "revtgt", "laptop",
     "a clause names no aspect"),
    ("The food is superb--the last time I went there (and I really mean the last time) we were told ...",
     "The [food|neg] is {dreadful|food}--the last time I went there (and I really mean the last time) we were "
     "told that they wanted our booth so we would have to go.", "revtgt", "restaurant",
     "a clause names no aspect"),
    # an emoticon judges the whole sentence
    ("The support team also helps you very poorly when picking which plan suits you :)",
     "The [support team|pos] also helps you {very nicely|support team} when picking :)", "revtgt", "laptop",
     "a sentiment word outside the annotated opinions"),
    # comparatives and frames that keep the old polarity
    ("I hate this editor, it is superior to the old photo viewer.",
     "I {love|editor} this [editor|pos], it is {superior|photo viewer} to the old [photo viewer|neg].",
     "revtgt", "laptop", "a discourse word depends on the old polarity"),
    ("We were looking forward to nasty pot of tea when we sat down.",
     "We were looking forward to {nice|pot of tea} [pot of tea|pos] when we sat down.",
     "revtgt", "restaurant", "a discourse word depends on the old polarity"),
    # a negation added under a negation that stays, or before an adverb of a complaint
    ("There is nothing not to complain about the display.",
     "There is {nothing to complain|display} about the [display|pos].", "revtgt", "laptop",
     "an antonym under a negation that stays"),
    ("Bar staff is not blantently unappreciative of your custom but the tapas are great!",
     "[Bar staff|neg] is {blantently unappreciative|Bar staff} of your custom.", "revtgt", "restaurant",
     "a negated intensified complaint is no praise"),
    # REVNON: the target's sentiment rests on a reversed aspect's words
    ("It's apps are terrible, including the replacements for Photoshop.",
     "It's [apps|pos] are {terrific|apps}, including the {replacements|Photoshop} for "
     "[Photoshop|pos!].", "revnon", "laptop", "the target has no evaluative word of its own"),
]


@pytest.mark.parametrize("judged, markup, strategy, domain, reason", QUARANTINED,
                         ids=[row[0][:40] for row in QUARANTINED])
def test_a_rejected_variant_is_quarantined_with_its_reason(resources, judged, markup, strategy, domain, reason):
    outcome = generated(resources, markup, strategy, domain)
    assert isinstance(outcome, Quarantined), getattr(outcome, "example", outcome)
    assert outcome.reason.startswith(reason), (outcome.reason, outcome.detail)


def test_a_neutral_target_is_skipped_by_default(resources):
    # "renamed last year, sushi is OK." -> "sushi is not OK." made the neutral target negative
    outcome = generated(resources, "[sushi|neu] is {OK|sushi}.", "revtgt", "restaurant")
    assert isinstance(outcome, NotApplicable) and "neutral" in outcome.reason


def test_an_adjective_after_works_becomes_an_adverb(resources):
    # "it works great" -> "it works terrible" is not English
    outcome = generated(resources, "The [keyboard|pos] works {great|keyboard}.", "revtgt", "laptop")
    assert isinstance(outcome, Variant) and outcome.example.sentence == "The keyboard works poorly."


@pytest.mark.parametrize("markup, rejected", [
    ("At first, I felt {a little bit uncomfortable|new layout} in using the [new layout|neg].",
     "a little bit comfortable"),
    ("And the [installer|pos] works {like a charm|installer}.", "like no charm"),
    ("Somehow the [calendar app|neg] got {messed up|calendar app} after an update.", "got did not mess up"),
])
def test_no_rejected_wording_ships(resources, markup, rejected):
    outcome = generated(resources, markup, "revtgt", "laptop")
    assert not (isinstance(outcome, Variant) and rejected in outcome.example.sentence), outcome.example.sentence


def test_a_conjunction_between_two_other_aspects_is_not_the_targets_to_change():
    # "Terrible OS, dreadful updates ... bumping up the memory speed but adding the card reader."
    sentence = "Great OS, fabulous updates bumping up the memory speed and adding the card reader."
    original = Example(sentence, Aspect("OS", 6, 8, "positive"),
                       others=(Aspect("memory speed", 42, 54, "positive"),
                               Aspect("card reader", 70, 81, "positive")))
    fix = Edit(55, 58, "and", "but", "conjunction now contrasts")
    assert context.conjunction_between_others(original, (fix,)) == "memory speed but card reader"
    near_target = Example("The OS is great and the processor speed is great.", Aspect("OS", 4, 6, "positive"),
                          others=(Aspect("processor speed", 24, 39, "positive"),))
    assert context.conjunction_between_others(near_target, (Edit(16, 19, "and", "but", "conjunction"),)) is None


def test_a_negation_never_lands_inside_a_noun_phrase_or_before_a_list():
    listed = Example("The decor is dark, cool and soothing.", Aspect("decor", 4, 9, "positive"))
    assert context.negation_misplaced_in_phrase(listed, (Edit(12, 12, "", " not", "negate copula"),))
    possessive = Example("It highlights the fish's sweetness.", Aspect("fish", 18, 22, "positive"))
    assert context.negation_misplaced_in_phrase(possessive, (Edit(25, 25, "", "not ", "negate"),)) == "fish's not"
    clean = Example("The decor is dark.", Aspect("decor", 4, 9, "positive"))
    assert context.negation_misplaced_in_phrase(clean, (Edit(12, 12, "", " not", "negate copula"),)) is None


# Blind round 6 (docs/quality/round-6*, seed 6): causes found on fresh units, fixed after the round
@pytest.mark.parametrize("markup, rejected", [
    ("I also {recommend|garlic knots} the [garlic knots|pos].", "do not also recommend"),
    ("The [aluminum body|pos] sure makes it {stand out|aluminum body}.", "do not stand out"),
    ("Its [screen|pos] lets you {enjoy|screen} movies.", "do not enjoy"),
    ("The [resolution on the screen|pos] is {almost pure HD|resolution on the screen}.", "not almost"),
    ("All the [food|pos] was {hot tasty|food}.", "not hot tasty"),
    ("Some [features|neg] arent {friendly|features}.", "arent unfriendly"),
])
def test_no_round6_rejected_wording_ships(resources, markup, rejected):
    outcome = generated(resources, markup, "revtgt", "restaurant")
    assert not (isinstance(outcome, Variant) and rejected in outcome.example.sentence), outcome.example.sentence


def test_other_ties_the_target_to_the_reversed_aspects(resources):
    # "a superb slice of tart and we had several other disappointing cakes"
    outcome = generated(resources, "I got a {superb|tart} slice of [tart|pos!] and we had several "
                                   "other {nice|cakes} [cakes|pos].", "revnon", "restaurant")
    assert isinstance(outcome, Quarantined) and outcome.reason == "a discourse word depends on the old polarity"


def test_a_negation_that_answers_but_stays():
    # "a fine spot to dine but not a good spot for delivery" -> "but a good spot"
    original = Example("A fine spot to dine in but not a good spot for delivery.", Aspect("delivery", 47, 55))
    assert context.orphaned_polarity_item(original, (Edit(27, 31, "not ", "", "remove negation"),)) == "but"
    plain = Example("The place is not good for take-out.", Aspect("take-out", 26, 34))
    assert context.orphaned_polarity_item(plain, (Edit(13, 17, "not ", "", "remove negation"),)) is None
