"""Golden tests for the causes blind readers found in the development round on the training splits
(docs/quality/round-5-dev, seed 5; docs/perturbations.md). Each sentence is the judged one, written in
the built-in fixtures' markup (`[term|pos]` an aspect, `{words|term}` an opinion about it), with the
opinion words TOWE annotates; the variant a reader rejected must never ship again.
"""

from __future__ import annotations

import pytest

from absa_checks.examples import Aspect, Edit, Example, Unit, Variant
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
    ("With the terrible variety on the menu , I eat here often and never get bored .",
     "With the {great variety|menu} on the [menu|pos] , I eat here often and never get bored .",
     "revtgt", "restaurant", "a clause names no aspect"),
    ("A mac is very difficult to use and it simply makes sense.",
     "A mac is {very easy|use} to [use|pos] and it simply makes sense.", "revtgt", "laptop", "a clause names no aspect"),
    ("The service is wonderful--the last time I was there (and I do mean the last time) we were told ...",
     "The [service|neg] is {awful|service}--the last time I was there (and I do mean the last time) we were "
     "told that they needed our table so we would have to leave.", "revtgt", "restaurant", "a clause names no aspect"),
    # an emoticon judges the whole sentence
    ("The Apple team also assists you very poorly when choosing which computer is right for you :)",
     "The [Apple team|pos] also assists you {very nicely|Apple team} when choosing :)", "revtgt", "laptop",
     "a sentiment word outside the annotated opinions"),
    # comparatives and frames that keep the old polarity
    ("I hate this program, it is superior to windows movie maker.",
     "I {love|program} this [program|pos], it is {superior|windows movie maker} to [windows movie maker|neg].",
     "revtgt", "laptop", "a discourse word depends on the old polarity"),
    ("We were looking forward to nasty glass of Sangria when we arrived.",
     "We were looking forward to {nice|glass of Sangria} [glass of Sangria|pos] when we arrived.",
     "revtgt", "restaurant", "a discourse word depends on the old polarity"),
    # a negation added under a negation that stays, or before an adverb of a complaint
    ("There is nothing not to complain about the system.",
     "There is {nothing to complain|system} about the [system|pos].", "revtgt", "laptop",
     "an antonym under a negation that stays"),
    ("Wait staff is not blantently unappreciative of your business but its the best pie on the UWS!",
     "[Wait staff|neg] is {blantently unappreciative|Wait staff} of your business.", "revtgt", "restaurant",
     "a negated intensified complaint is no praise"),
    # REVNON: the target's sentiment rests on a reversed aspect's words
    ("It's applications are terrible, including the replacements for Microsoft office.",
     "It's [applications|pos] are {terrific|applications}, including the {replacements|Microsoft office} for "
     "[Microsoft office|pos!].", "revnon", "laptop", "the target has no evaluative word of its own"),
]


@pytest.mark.parametrize("judged, markup, strategy, domain, reason", QUARANTINED,
                         ids=[row[0][:40] for row in QUARANTINED])
def test_a_rejected_variant_is_quarantined_with_its_reason(resources, judged, markup, strategy, domain, reason):
    outcome = generated(resources, markup, strategy, domain)
    assert isinstance(outcome, Quarantined), getattr(outcome, "example", outcome)
    assert outcome.reason.startswith(reason), (outcome.reason, outcome.detail)


def test_a_neutral_target_is_skipped_by_default(resources):
    # "now called nikki sushi, sushi is OK." -> "sushi is not OK." made the neutral target negative
    outcome = generated(resources, "[sushi|neu] is {OK|sushi}.", "revtgt", "restaurant")
    assert isinstance(outcome, NotApplicable) and "neutral" in outcome.reason


def test_an_adjective_after_works_becomes_an_adverb(resources):
    # "it works great" -> "it works terrible" is not English
    outcome = generated(resources, "The [keyboard|pos] works {great|keyboard}.", "revtgt", "laptop")
    assert isinstance(outcome, Variant) and outcome.example.sentence == "The keyboard works poorly."


@pytest.mark.parametrize("markup, rejected", [
    ("At first, I feel {a little bit uncomfortable|Mac system} in using the [Mac system|neg].",
     "a little bit comfortable"),
    ("And [windows 7|pos] works {like a charm|windows 7}.", "like no charm"),
    ("Somehow the [system clock|neg] got {messed up|system clock} after reboot.", "got did not mess up"),
])
def test_no_rejected_wording_ships(resources, markup, rejected):
    outcome = generated(resources, markup, "revtgt", "laptop")
    assert not (isinstance(outcome, Variant) and rejected in outcome.example.sentence), outcome.example.sentence


def test_a_conjunction_between_two_other_aspects_is_not_the_targets_to_change():
    # "Terrible OS, dreadful improvements ... bumping up the processor speed but adding the thunderbolt port."
    sentence = "Great OS, fabulous improvements bumping up the processor speed and adding the thunderbolt port."
    original = Example(sentence, Aspect("OS", 6, 8, "positive"),
                       others=(Aspect("processor speed", 48, 63, "positive"),
                               Aspect("thunderbolt port", 79, 95, "positive")))
    fix = Edit(64, 67, "and", "but", "conjunction now contrasts")
    assert context.conjunction_between_others(original, (fix,)) == "processor speed but thunderbolt port"
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
    # "an excellent piece of cheesecake and we had several other disappointing pastries"
    outcome = generated(resources, "I got an {excellent|cheesecake} piece of [cheesecake|pos!] and we had several "
                                   "other {nice|pastries} [pastries|pos].", "revnon", "restaurant")
    assert isinstance(outcome, Quarantined) and outcome.reason == "a discourse word depends on the old polarity"


def test_a_negation_that_answers_but_stays():
    # "one great place to eat pizza but not a good place for take-out pizza" -> "but a good place"
    original = Example("A great place to eat in but not a good place for take-out.", Aspect("take-out", 50, 58))
    assert context.orphaned_polarity_item(original, (Edit(27, 31, "not ", "", "remove negation"),)) == "but"
    plain = Example("The place is not good for take-out.", Aspect("take-out", 26, 34))
    assert context.orphaned_polarity_item(plain, (Edit(13, 17, "not ", "", "remove negation"),)) is None
