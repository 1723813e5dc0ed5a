"""Golden tests for the ARTS perturbations (REVTGT, REVNON, ADDDIFF), written by hand.

Every expected sentence below is what a careful English speaker would write for the perturbation;
it was decided before running the engine, so a wrong output fails the test. Cases are written in the
built-in fixtures' markup: `[term|pos]` marks an aspect, `{words|term}` an opinion about it.

The sections at the end hold the variants blind readers rejected, which must never ship again:
the development round on the training splits (docs/quality/round-5-dev, seed 5, and round 6), written in
the same markup with the opinion words TOWE annotates; and the blind judgement of November 2026
(../shared/quality/judged_2026-11.jsonl), whose rejected text is read from the judged file at test time
(it quotes the shared data), on the SemEval-2014 test units with their TOWE opinion spans from ../shared/data.
The generator says why (the quarantine reason) or ships the repaired text.
"""

from __future__ import annotations

import json
import re

import pytest

from absa_checks.common.examples import Aspect, Edit, Example, Opinion, Unit, Variant
from absa_checks.common.text import apply_edits, map_position, tokenize
from absa_checks.perturb import context, validity
from absa_checks.perturb.engine import Quarantined, Settings, generate
from absa_checks.perturb.resources import load_resources
from absa_checks.perturb.strategies import NotApplicable, tagged
from absa_checks.perturb.wordlists import load_aspect_bank, load_wordlists
from absa_checks.sources import load_dataset
from absa_checks.sources.markup import examples_of, parse_marked
from conftest import SHARED_DATA, needs_shared_data

DEGREE_ADVERBS = tuple(load_wordlists().degree_adverbs)


@pytest.fixture(scope="module")
def laptop_resources():
    return load_resources("laptop")


# ---------------------------------------------------------------- helpers

def example(markup: str, target: int = 0) -> Example:
    return examples_of(parse_marked(markup, "golden", 1))[target]


def make_unit(markup: str, target: int = 0, unit_id: str = "g1") -> Unit:
    return Unit("golden", unit_id, example(markup, target))


def run(resources, markup: str, strategy: str = "revtgt", target: int = 0, k: int | None = None,
        seed: int = 0, domain: str = "restaurant", unit_id: str = "g1"):
    return generate(make_unit(markup, target, unit_id), strategy, Settings.of(seed, k=k), resources, domain)


def variant_of(outcome) -> Variant:
    assert isinstance(outcome, Variant), f"expected a variant, got {outcome!r}"
    return outcome


def assert_spans(variant: Variant) -> None:
    """Every aspect span covers its term, every opinion span its text, in the new sentence."""
    ex = variant.example
    for aspect in (ex.target, *ex.others):
        assert ex.sentence[aspect.start:aspect.end] == aspect.term, aspect
    for opinion in ex.opinions:
        assert ex.sentence[opinion.start:opinion.end] == opinion.text, opinion


def check(resources, markup: str, expected: str, polarity: str, strategy: str = "revtgt", target: int = 0,
          domain: str = "restaurant") -> Variant:
    variant = variant_of(run(resources, markup, strategy, target, domain=domain))
    assert variant.example.sentence == expected
    assert variant.example.target.polarity == polarity
    assert variant.strategy == strategy and variant.origin == "generated"
    assert_spans(variant)
    return variant


def target_words(ex: Example) -> list[str]:
    """The target's term and its opinion texts, as they read in the sentence."""
    return [ex.sentence[ex.target.start:ex.target.end]] + [
        ex.sentence[o.start:o.end] for o in ex.opinions if o.aspect == 0]


# ---------------------------------------------------------------- REVTGT: antonyms

def test_adjective_antonym_fresh_to_stale(resources):
    variant = check(resources, "The [bread|pos] was {fresh|bread}.", "The bread was stale.", "negative")
    assert variant.edits == (Edit(14, 19, "fresh", "stale", "antonym"),)
    assert variant.example.opinions[0].text == "stale"


def test_verb_antonym_only_when_it_carries_sentiment(resources):
    # WordNet's antonym of "love" is "hate", a sentiment word: swapped
    check(resources, "I {loved|pasta} the [pasta|pos].", "I hated the pasta.", "negative")
    # WordNet's antonym of "ignore" is "know", which carries no sentiment: negated instead
    check(resources, "Our [waiter|neg] {ignored|waiter} us.", "Our waiter did not ignore us.", "positive")


def test_adverb_antonym_quickly_to_slowly(resources):
    check(resources, "The [food|pos] arrived {quickly|food}.", "The food arrived slowly.", "negative")


def test_comparative_better_to_worse(resources):
    check(resources, "The [sushi|pos] here is {better|sushi} than anywhere else.",
          "The sushi here is worse than anywhere else.", "negative")


def test_comparative_faster_to_slower(laptop_resources):
    check(laptop_resources, "The new [processor|pos] is {faster|processor} than the old one.",
          "The new processor is slower than the old one.", "negative", domain="laptop")


def test_curated_review_sense_great_to_terrible(resources):
    # WordNet's first antonym of "great" is about size ("small"); the review sense is "terrible"
    variant = check(resources, "The [service|pos] was {great|service}.", "The service was terrible.", "negative")
    assert variant.edits == (Edit(16, 21, "great", "terrible", "antonym"),)


def test_article_agrees_after_an_antonym(resources):
    variant = check(resources, "We had a {friendly|waiter} [waiter|pos].", "We had an unfriendly waiter.", "negative")
    assert variant.edits == (Edit(7, 17, "a friendly", "an unfriendly", "antonym"),)
    assert variant.example.target.start == 21


def test_negative_to_positive_antonym(resources):
    check(resources, "The [fries|neg] were {soggy|fries}.", "The fries were crispy.", "positive")


# ---------------------------------------------------------------- REVTGT: adding a negation

def test_do_support_present_tense(laptop_resources):
    variant = check(laptop_resources, "This [update|neg] {slows it down|update}.",
                    "This update does not slow it down.", "positive", domain="laptop")
    assert variant.edits == (Edit(12, 17, "slows", "does not slow", "negate verb with do-support"),)


def test_do_support_past_tense(resources):
    check(resources, "The [waiter|neg] {forgot|waiter} our drinks.",
          "The waiter did not forget our drinks.", "positive")


def test_do_support_base_form_after_i(resources):
    check(resources, "I {recommend|salmon} the [salmon|pos].", "I do not recommend the salmon.", "negative")


def test_negation_after_modal_will(laptop_resources):
    variant = check(laptop_resources, "The [battery|pos] will {last|battery} all day.",
                    "The battery will not last all day.", "negative", domain="laptop")
    assert variant.edits == (Edit(16, 16, "", " not", "negate auxiliary"),)


def test_negation_of_can_is_cannot(laptop_resources):
    check(laptop_resources, "The [laptop|pos] {can handle|laptop} heavy games.",
          "The laptop cannot handle heavy games.", "negative", domain="laptop")


def test_negation_of_an_infinitive(resources):
    variant = check(resources, "Be sure to {try|dumplings} the [dumplings|pos].",
                    "Be sure not to try the dumplings.", "negative")
    assert variant.edits == (Edit(8, 8, "", "not ", "negate infinitive"),)


def test_negation_of_a_sentence_initial_imperative(resources):
    variant = check(resources, "{Try|calamari} the [calamari|pos].", "Do not try the calamari.", "negative")
    assert variant.edits == (Edit(0, 3, "Try", "Do not try", "negate verb with do-support"),)


# ---------------------------------------------------------------- REVTGT: negating after a copula

def test_adjective_without_antonym_is_negated_after_the_copula(resources):
    assert resources.finder.find("authentic", "JJ") is None  # the premise of this case
    variant = check(resources, "The [tacos|pos] are {authentic|tacos}.", "The tacos are not authentic.", "negative")
    assert variant.edits == (Edit(13, 13, "", " not", "negate copula"),)


def test_noun_phrase_after_a_copula(resources):
    check(resources, "The [dessert|pos] is {a joy|dessert}.", "The dessert is not a joy.", "negative")


def test_idiom_after_a_copula(resources):
    check(resources, "The [desserts|pos] are {out of this world|desserts}.",
          "The desserts are not out of this world.", "negative")


# ---------------------------------------------------------------- REVTGT: removing a negation

def test_not_before_an_adjective_is_removed(resources):
    variant = check(resources, "The [fish|neg] is {not fresh|fish}.", "The fish is fresh.", "positive")
    assert variant.edits == (Edit(12, 16, "not ", "", "remove negation"),)
    assert "not" not in variant.example.sentence


def test_doesnt_work_becomes_works(laptop_resources):
    variant = check(laptop_resources, "The [touchpad|neg] {doesn't work|touchpad}.", "The touchpad works.",
                    "positive", domain="laptop")
    assert variant.edits == (Edit(13, 25, "doesn't work", "works", "remove do-support negation"),)


def test_did_not_like_becomes_liked(resources):
    check(resources, "I {did not like|lasagna} the [lasagna|neg].", "I liked the lasagna.", "positive")


def test_cant_becomes_can(laptop_resources):
    check(laptop_resources, "The [laptop|neg] {can't run|laptop} newer games.",
          "The laptop can run newer games.", "positive", domain="laptop")


def test_never_disappoints_becomes_disappoints(resources):
    check(resources, "This [place|pos] {never disappoints|place}.", "This place disappoints.", "negative")


def test_no_problems_becomes_problems(laptop_resources):
    check(laptop_resources, "We had {no problems|wifi} with the [wifi|pos].", "We had problems with the wifi.",
          "negative", domain="laptop")


def test_no_longer_becomes_still(resources):
    variant = check(resources, "The [menu|neg] {no longer includes|menu} the duck.",
                    "The menu still includes the duck.", "positive")
    assert variant.edits == (Edit(9, 18, "no longer", "still", "remove negation"),)


def test_hyphenated_not_is_removed(resources):
    variant = check(resources, "It is a {not-crowded|place} [place|pos].", "It is a crowded place.", "negative")
    assert variant.edits == (Edit(8, 12, "not-", "", "remove negation"),)


# ---------------------------------------------------------------- conjunctions

def test_and_becomes_but_when_the_clauses_now_differ(resources):
    variant = check(resources,
                    "The [food|pos] was {delicious|food}, and the [service|pos] was {friendly|service}.",
                    "The food was disgusting, but the service was friendly.", "negative")
    assert variant.example.others[0].polarity == "positive"
    assert Edit(24, 27, "and", "but", "conjunction now contrasts") in variant.edits


def test_but_becomes_and_when_the_clauses_now_agree(resources):
    variant = check(resources,
                    "The [burgers|pos] were {delicious|burgers}, but the [fries|neg] were {soggy|fries}.",
                    "The burgers were delicious, and the fries were crispy.", "positive", target=1)
    assert variant.example.others[0].term == "burgers" and variant.example.others[0].polarity == "positive"


def test_though_after_a_comma_becomes_and(resources):
    check(resources, "The [soup|neg] was {lukewarm|soup}, though the [bread|pos] was {warm|bread}.",
          "The soup was hot, and the bread was warm.", "positive")


def test_sentence_initial_although_is_quarantined(resources):
    outcome = run(resources, "Although the [food|pos] was {great|food}, the [service|neg] was {slow|service}.")
    assert isinstance(outcome, Quarantined), outcome
    assert outcome.reason == "a contrastive conjunction no longer fits"
    assert outcome.strategy == "revtgt" and outcome.unit_id == "g1"


def test_sentence_initial_even_though_is_quarantined(resources):
    outcome = run(resources, "Even though the [wait|neg] was {long|wait}, the [food|pos] was {worth it|food}.")
    assert isinstance(outcome, Quarantined), outcome
    assert outcome.reason == "a contrastive conjunction no longer fits"


def test_coordinated_noun_phrase_keeps_its_and(resources):
    variant = check(resources, "The [service|pos] and [food|pos] were {great|service}.",
                    "The service and food were terrible.", "negative")
    assert all(edit.old != "and" for edit in variant.edits)


# ---------------------------------------------------------------- REVNON

def test_revnon_reverses_a_same_polarity_aspect(resources):
    markup = "The [pasta|pos] was {delicious|pasta}, and the [wine|pos] was {excellent|wine}."
    original = example(markup)
    variant = check(resources, markup, "The pasta was delicious, but the wine was poor.", "positive",
                    strategy="revnon")
    assert variant.example.others[0].polarity == "negative"
    assert target_words(variant.example) == target_words(original) == ["pasta", "delicious"]


def test_revnon_exaggerates_an_opposite_aspect_after_the_copula(resources):
    markup = "The [food|pos] was {tasty|food}, but the [service|neg] was {slow|service}."
    variant = variant_of(run(resources, markup, "revnon"))
    match = re.fullmatch(r"The food was tasty, but the service was (\w+) slow\.", variant.example.sentence)
    assert match and match.group(1) in DEGREE_ADVERBS, variant.example.sentence
    assert variant.example.target.polarity == "positive"
    assert variant.example.others[0].polarity == "negative"  # exaggerated, not reversed
    assert variant.edits == (Edit(40, 40, "", f"{match.group(1)} ", "exaggerate"),)
    assert target_words(variant.example) == ["food", "tasty"]
    assert_spans(variant)


def test_revnon_exaggerates_an_attributive_adjective_with_its_article(resources):
    markup = "The [steak|pos] was {juicy|steak}, but we had {a poor|dessert} [dessert|neg]."
    variant = variant_of(run(resources, markup, "revnon"))
    match = re.fullmatch(r"The steak was juicy, but we had (a|an) (\w+) poor dessert\.", variant.example.sentence)
    assert match, variant.example.sentence
    article, adverb = match.groups()
    assert adverb in DEGREE_ADVERBS
    assert article == ("an" if adverb[0] in "aeiou" else "a")  # "an extremely poor", "a very poor"
    assert variant.example.others[0].polarity == "negative"
    assert_spans(variant)


def test_revnon_puts_really_before_a_plain_verb(resources):
    check(resources, "The [pizza|pos] was {amazing|pizza}, but I {hated|decor} the [decor|neg].",
          "The pizza was amazing, but I really hated the decor.", "positive", strategy="revnon")


def test_revnon_leaves_an_intensified_word_alone(resources):
    markup = ("The [pizza|pos] was {amazing|pizza}, but the [service|neg] was {very slow|service} "
              "and the [wine|neg] was {bland|wine}.")
    variant = variant_of(run(resources, markup, "revnon"))
    match = re.fullmatch(r"The pizza was amazing, but the service was very slow and the wine was (\w+) bland\.",
                         variant.example.sentence)
    assert match and match.group(1) in DEGREE_ADVERBS, variant.example.sentence
    assert_spans(variant)


@pytest.mark.parametrize("weakened", ["slightly slow", "a bit slow", "a little bit slow", "kind of slow"])
def test_revnon_leaves_a_weakened_word_alone(resources, weakened):
    outcome = run(resources, f"The [pizza|pos] was {{amazing|pizza}}, but the [service|neg] was {{{weakened}|service}}.",
                  "revnon")
    assert isinstance(outcome, Quarantined), outcome
    assert outcome.reason == "no other aspect could be reversed or exaggerated"


def test_revnon_never_edits_the_target_or_its_opinions(resources):
    markup = ("The [fries|neg] were {soggy|fries}, the [burger|neg] was {dry|burger} "
              "and the [shake|pos] was {creamy|shake}.")
    original = example(markup)
    variant = variant_of(run(resources, markup, "revnon"))
    assert target_words(variant.example) == target_words(original) == ["fries", "soggy"]
    assert variant.example.target.polarity == "negative"
    assert_spans(variant)


def test_revnon_not_applicable_to_a_neutral_target(resources):
    outcome = run(resources, "The [menu|neu] is on the wall, and the [staff|neg] were {rude|staff}.", "revnon")
    assert isinstance(outcome, NotApplicable)


def test_revnon_not_applicable_to_a_single_aspect(resources):
    outcome = run(resources, "The [bread|pos] was {fresh|bread}.", "revnon")
    assert isinstance(outcome, NotApplicable)


# ---------------------------------------------------------------- ADDDIFF

def appended_expressions(variant: Variant, k: int, domain: str = "restaurant") -> list[str]:
    """The bank expression behind each of the last k aspects, read off the sentence at its span."""
    sentence = variant.example.sentence
    expressions = []
    for aspect in variant.example.others[-k:]:
        entries = [e for e in load_aspect_bank(domain) if e.aspect == aspect.term and e.polarity == aspect.polarity]
        found = [e.expression for e in entries
                 if sentence[aspect.start - e.expression.index(e.aspect):].startswith(e.expression)]
        assert len(found) == 1, (aspect, found)
        expressions.append(found[0])
    return expressions


def check_adddiff(resources, markup: str, k: int, link: str, final: str, seed: int = 0, target: int = 0):
    original = example(markup, target)
    variant = variant_of(run(resources, markup, "adddiff", target, k=k, seed=seed))
    ex = variant.example
    assert len(ex.others) == len(original.others) + k
    assert ex.others[:len(original.others)] == original.others  # nothing before the end moved
    assert ex.target == original.target and ex.opinions == original.opinions
    added = ex.others[-k:]
    expressions = appended_expressions(variant, k)
    if k == 1:
        joined = expressions[0]
    else:
        joined = ", ".join(expressions[:-1]) + " and " + expressions[-1]
    body = original.sentence[:len(original.sentence) - len(final)]
    assert ex.sentence == body + link + joined + final
    terms = [a.term.lower() for a in added]
    assert len(set(terms)) == k  # distinct
    for term in terms:  # not mentioned in the original
        assert not re.search(rf"\b{re.escape(term)}\b", original.sentence.lower())
    if original.polarity in ("positive", "negative"):
        opposite = "negative" if original.polarity == "positive" else "positive"
        assert all(a.polarity == opposite for a in added)
    assert_spans(variant)
    assert variant.edits == (Edit(len(body), len(original.sentence), final, link + joined + final,
                                  f"append {k} aspects"),)
    return variant


def test_adddiff_one_aspect(resources):
    check_adddiff(resources, "The [pizza|pos] was {great|pizza}.", 1, ", but ", ".")


def test_adddiff_two_aspects(resources):
    variant = check_adddiff(resources, "The [pizza|pos] was {great|pizza}.", 2, ", but ", ".")
    assert variant.example.target.polarity == "positive"


def test_adddiff_three_aspects(resources):
    check_adddiff(resources, "The [fries|neg] were {soggy|fries}.", 3, ", but ", ".")


def test_adddiff_five_aspects(resources):
    check_adddiff(resources, "The [pizza|pos] was {great|pizza}.", 5, ", but ", ".")


def test_adddiff_uses_however_after_an_existing_but(resources):
    check_adddiff(resources, "The [pizza|pos] was {great|pizza}, but the [wine|neg] was {sour|wine}.", 1,
                  "; however, ", ".")


def test_adddiff_uses_however_after_an_existing_though(resources):
    check_adddiff(resources, "The [soup|neg] was {cold|soup}, though the [bread|pos] was {warm|bread}.", 2,
                  "; however, ", ".")


def test_adddiff_keeps_an_exclamation_mark_at_the_end(resources):
    check_adddiff(resources, "The [pizza|pos] was {great|pizza}!", 1, ", but ", "!")


def test_adddiff_without_final_punctuation(resources):
    check_adddiff(resources, "the [pizza|pos] was {great|pizza}", 2, ", but ", "")


def test_adddiff_neutral_target_joined_with_a_semicolon(resources):
    variant = check_adddiff(resources, "We ordered the [pizza|neu].", 1, "; ", ".")
    assert variant.example.target.polarity == "neutral"


def test_adddiff_different_seeds_can_choose_different_aspects(resources):
    chosen = set()
    for seed in range(8):
        variant = variant_of(run(resources, "The [pizza|pos] was {great|pizza}.", "adddiff", k=2, seed=seed))
        chosen.add(tuple(a.term for a in variant.example.others))
    assert len(chosen) > 1


# ---------------------------------------------------------------- determinism

@pytest.mark.parametrize("strategy, k", [("revtgt", None), ("revnon", None), ("adddiff", 3), ("adddiff", None)])
def test_same_unit_and_seed_give_the_same_variant(resources, strategy, k):
    markup = "The [food|pos] was {tasty|food}, but the [service|neg] was {slow|service}."
    first = run(resources, markup, strategy, k=k, seed=7)
    second = run(resources, markup, strategy, k=k, seed=7)
    assert isinstance(first, Variant) and first == second


# ---------------------------------------------------------------- span remapping

def test_repeated_term_target_is_the_second_one(resources):
    markup = "The first [pizza|pos] was {fresh|pizza}, and the second [pizza|pos] was {perfect|pizza#2}."
    variant = check(resources, markup, "The first pizza was stale, but the second pizza was perfect.", "positive",
                    strategy="revnon", target=1)
    sentence = variant.example.sentence
    second = sentence.index("pizza", sentence.index("pizza") + 1)
    assert variant.example.target.start == second
    assert variant.example.others[0].start == sentence.index("pizza")
    assert variant.example.others[0].polarity == "negative"


def test_repeated_term_target_keeps_its_span_after_a_shorter_edit_before_it(resources):
    markup = "The first [pizza|pos] was {excellent|pizza}, and the second [pizza|pos] was {great|pizza#2}."
    # revnon on the second pizza: the first is reversed ("excellent" -> "poor", five characters shorter)
    variant = check(resources, markup, "The first pizza was poor, but the second pizza was great.", "positive",
                    strategy="revnon", target=1)
    sentence = variant.example.sentence
    assert variant.example.target.start == sentence.rindex("pizza") == example(markup, 1).target.start - 5
    assert variant.example.others[0].start == sentence.index("pizza")
    assert [o.text for o in variant.example.opinions] == ["poor", "great"]


def test_map_position_insertions():
    insertion = [Edit(5, 5, "", "abc ", "x")]
    assert map_position(5, insertion, include_insertions=False) == 9  # an aspect start moves past it
    assert map_position(5, insertion, include_insertions=True) == 5  # an opinion start grows over it
    assert map_position(5, insertion, include_insertions=True, is_end=True) == 9  # an opinion end grows
    assert map_position(5, insertion, include_insertions=False, is_end=True) == 5
    assert map_position(3, insertion, include_insertions=False) == 3
    assert map_position(8, insertion, include_insertions=False) == 12


def test_map_position_inside_a_replacement():
    edits = [Edit(2, 6, "abcd", "xy", "x")]
    assert map_position(4, edits, include_insertions=True) == 2
    assert map_position(4, edits, include_insertions=True, is_end=True) == 4
    assert map_position(7, edits, include_insertions=False) == 5


def test_apply_edits_grows_opinions_but_not_aspects():
    ex = Example("The slow service.", Aspect("service", 9, 16, "negative"), (), (Opinion("slow", 4, 8),))
    grown = apply_edits(ex, [Edit(4, 4, "", "very ", "x")])
    assert grown.sentence == "The very slow service."
    assert grown.opinions[0] == Opinion("very slow", 4, 13)
    assert (grown.target.start, grown.target.end) == (14, 21)
    moved = apply_edits(ex, [Edit(9, 9, "", "room ", "x")], {0: "positive"})
    assert moved.sentence == "The slow room service."
    assert moved.target == Aspect("service", 14, 21, "positive")  # not grown over the insertion
    assert moved.opinions[0] == Opinion("slow", 4, 8)


def test_apply_edits_rejects_overlapping_edits():
    ex = Example("The slow service.", Aspect("service", 9, 16, "negative"))
    with pytest.raises(ValueError):
        apply_edits(ex, [Edit(4, 8, "slow", "fast", "x"), Edit(6, 10, "ow s", "", "x")])


def test_tokenize_splits_clitics_like_the_treebank():
    assert [t.text for t in tokenize("It doesn't, and I can't.")] == ["It", "does", "n't", ",", "and", "I", "ca",
                                                                    "n't", "."]
    assert [t.text for t in tokenize("a not-crowded place")] == ["a", "not-crowded", "place"]


# ---------------------------------------------------------------- validity

def _broken(resources, original: Example, sentence: str, edit: Edit):
    variant = apply_edits(original, [edit], {0: "positive"})
    assert variant.sentence == sentence
    return validity.problems(original, variant, (edit,), True, tagged(original, resources),
                             tagged(variant, resources))


def test_validity_reports_a_double_negation(resources):
    original = example("The [fish|neg] is {not fresh|fish}.")
    found = _broken(resources, original, "The fish is not not fresh.", Edit(11, 11, "", " not", "negate copula"))
    assert ("double negation", "The fish is not not fresh.") in found


def test_validity_reports_a_verb_agreement_error(resources):
    original = example("The [touchpad|neg] {works badly|touchpad}.")
    found = _broken(resources, original, "The touchpad does not works badly.",
                    Edit(13, 13, "", "does not ", "negate verb"))
    assert [reason for reason, _ in found] == ["verb agreement"]


def test_validity_reports_do_support_with_a_third_person_verb(resources):
    original = example("The [software|neg] {slows it down|software}.")
    found = _broken(resources, original, "The software does not slows it down.",
                    Edit(13, 13, "", "does not ", "negate verb"))
    assert ("verb agreement", "does not slows") in found


def test_validity_accepts_a_good_variant(resources):
    original = example("The [fish|neg] is {not fresh|fish}.")
    assert _broken(resources, original, "The fish is fresh.", Edit(12, 16, "not ", "", "remove negation")) == []


# ---------------------------------------------------------------- rejected in blind rounds 5 and 6

@pytest.fixture(scope="module")
def resources_by_domain():
    return {"laptop": load_resources("laptop"), "restaurant": load_resources("restaurant")}


def generated(resources_by_domain, markup: str, strategy: str = "revtgt", domain: str = "laptop"):
    # the target is the aspect marked "!": "[term|pos!]" (else the first)
    examples = examples_of(parse_marked(markup.replace("!]", "]"), "golden", 1))
    marked = [part.split("|")[0] for part in markup.split("[")[1:] if "!]" in part.split("]")[0] + "]"]
    unit = Unit("golden", "g1", next((e for e in examples if marked and e.target.term == marked[0]), examples[0]))
    return generate(unit, strategy, Settings(seed=0), resources_by_domain[domain], domain)


# (judged variant, markup, strategy, domain, the quarantine reason now given)
ROUND5_QUARANTINED = [
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


@pytest.mark.parametrize("judged_text, markup, strategy, domain, reason", ROUND5_QUARANTINED,
                         ids=[row[0][:40] for row in ROUND5_QUARANTINED])
def test_a_rejected_variant_is_quarantined_with_its_reason(resources_by_domain, judged_text, markup, strategy, domain, reason):
    outcome = generated(resources_by_domain, markup, strategy, domain)
    assert isinstance(outcome, Quarantined), getattr(outcome, "example", outcome)
    assert outcome.reason.startswith(reason), (outcome.reason, outcome.detail)


def test_a_neutral_target_is_skipped_by_default(resources_by_domain):
    # "renamed last year, sushi is OK." -> "sushi is not OK." made the neutral target negative
    outcome = generated(resources_by_domain, "[sushi|neu] is {OK|sushi}.", "revtgt", "restaurant")
    assert isinstance(outcome, NotApplicable) and "neutral" in outcome.reason


def test_an_adjective_after_works_becomes_an_adverb(resources_by_domain):
    # "it works great" -> "it works terrible" is not English
    outcome = generated(resources_by_domain, "The [keyboard|pos] works {great|keyboard}.", "revtgt", "laptop")
    assert isinstance(outcome, Variant) and outcome.example.sentence == "The keyboard works poorly."


@pytest.mark.parametrize("markup, rejected", [
    ("At first, I felt {a little bit uncomfortable|new layout} in using the [new layout|neg].",
     "a little bit comfortable"),
    ("And the [installer|pos] works {like a charm|installer}.", "like no charm"),
    ("Somehow the [calendar app|neg] got {messed up|calendar app} after an update.", "got did not mess up"),
])
def test_no_rejected_wording_ships(resources_by_domain, markup, rejected):
    outcome = generated(resources_by_domain, markup, "revtgt", "laptop")
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
def test_no_round6_rejected_wording_ships(resources_by_domain, markup, rejected):
    outcome = generated(resources_by_domain, markup, "revtgt", "restaurant")
    assert not (isinstance(outcome, Variant) and rejected in outcome.example.sentence), outcome.example.sentence


def test_other_ties_the_target_to_the_reversed_aspects(resources_by_domain):
    # "a superb slice of tart and we had several other disappointing cakes"
    outcome = generated(resources_by_domain, "I got a {superb|tart} slice of [tart|pos!] and we had several "
                                   "other {nice|cakes} [cakes|pos].", "revnon", "restaurant")
    assert isinstance(outcome, Quarantined) and outcome.reason == "a discourse word depends on the old polarity"


def test_a_negation_that_answers_but_stays():
    # "a fine spot to dine but not a good spot for delivery" -> "but a good spot"
    original = Example("A fine spot to dine in but not a good spot for delivery.", Aspect("delivery", 47, 55))
    assert context.orphaned_polarity_item(original, (Edit(27, 31, "not ", "", "remove negation"),)) == "but"
    plain = Example("The place is not good for take-out.", Aspect("take-out", 26, 34))
    assert context.orphaned_polarity_item(plain, (Edit(13, 17, "not ", "", "remove negation"),)) is None


# ---------------------------------------------------------------- rejected in the blind judgement of November 2026

LAP, RES = "semeval14-laptop", "semeval14-restaurant"

# (cause, source, unit, strategy, the quarantine reason now given); the rejected variant itself is read
# from the judged file (judged below), not copied here
JUDGED_QUARANTINED = [
    # 1. the edit contradicts the unchanged context
    ("context", RES, "11463275#424927#1_0", "revtgt", "a discourse word depends on the old polarity"),
    ("context", RES, "33070601#438491#1_0", "revtgt", "a discourse word depends on the old polarity"),
    ("context", RES, "11639814#570590#1_1", "revnon", "a general and a specific aspect now disagree"),
    ("context", LAP, "48:1_0", "revtgt", "a contrast joins an unannotated clause"),
    ("context", RES, "11432842#416795#4_0", "revtgt", "a discourse word depends on the old polarity"),
    ("context", RES, "11359619#487952#3_1", "revtgt", "a sentiment word outside the annotated opinions"),
    ("context", RES, "11359717#1138929#0_0", "revtgt", "a contrast joins an unannotated clause"),
    ("context", RES, "35509422#0#3_1", "revtgt", "a discourse word depends on the old polarity"),
    ("context", LAP, "57:1_0", "revnon", "the target has no evaluative word of its own"),
    # 2. wrong-sense or invented antonyms
    ("antonym", LAP, "363:27_0", "revtgt", "cannot reverse an opinion"),
    ("antonym", RES, "11482070#503858#0_0", "revtgt", "cannot reverse an opinion"),
    ("antonym", RES, "33069536#707145#3_0", "revnon", "a reversal falls in the target's clause"),
    # 3. "not" where English does not put it
    ("not placement", LAP, "959:1_0", "revtgt", "cannot reverse an opinion"),
    ("not placement", LAP, "709:1_0", "revtgt", "cannot reverse an opinion"),
    ("not placement", LAP, "293:3_0", "revtgt", "cannot reverse an opinion"),
    ("not placement", RES, "33068909#1189415#2_0", "revtgt", "cannot reverse an opinion"),
    # 4. negations that do not reverse
    ("non-reversing negation", LAP, "211:1_2", "revtgt", "a negation of a negative word does not reverse it"),
    ("non-reversing negation", RES, "35393632#1591698#7_0", "revtgt",
     "a discourse word depends on the old polarity"),
    ("non-reversing negation", LAP, "997:1_0", "revtgt",
     "neutral target (neutral: skip)"),  # a neutral target is skipped by default since blind round 5
    ("not placement", LAP, "758:1_0", "revtgt",
     "a clause names no aspect"),  # was repaired to "works poorly"; "It came in brand new" names no aspect
    # 5. REVNON: an aspect sharing the target's phrase keeps its sentiment, or the reversal leaks into the target
    ("revnon sharing", LAP, "952:1_1", "revnon", "an aspect with the target's sentiment keeps it"),
    ("revnon sharing", LAP, "706:1_1", "revnon", "an aspect with the target's sentiment keeps it"),
    ("revnon sharing", LAP, "16:1_2", "revnon", "an aspect with the target's sentiment keeps it"),
    ("revnon leak", LAP, "567:1_1", "revnon", "a reversal falls in the target's clause"),
    ("revnon leak", LAP, "786:237_0", "revnon", "no other aspect could be reversed or exaggerated"),
    ("revnon leak", RES, "32867472#663531#1_0", "revnon", "an aspect with the target's sentiment keeps it"),
]

# (cause, source, unit, strategy, the repaired variant shipped now)
JUDGED_REPAIRED = [
    ("antonym", LAP, "130:1_0", "revtgt", "Works poorly, but I am extremely happy to be back to an apple OS."),
    ("antonym", LAP, "87:1_0", "revnon", "It works fine, but all the software seems to run pretty poorly."),
]


@pytest.fixture(scope="module")
def judged():
    """(source, unit, strategy) -> the variant of ours a blind reader rejected, from the judged file."""
    rows = map(json.loads, (SHARED_DATA.parent / "quality" / "judged_2026-11.jsonl").read_text(encoding="utf-8")
               .splitlines())
    return {(r["source"], r["unit"], r["strategy"]): r["variant"] for r in rows if r["generator"] == "absa-checks"}


@pytest.fixture(scope="module")
def units():
    return {(name, u.unit_id): u for name in (LAP, RES) for u in load_dataset(name, SHARED_DATA).units}


@pytest.fixture(scope="module")
def resources_by_source():
    return {LAP: load_resources("laptop"), RES: load_resources("restaurant")}


def _generate(units, resources_by_source, source, unit, strategy):
    domain = "laptop" if source == LAP else "restaurant"
    return generate(units[(source, unit)], strategy, Settings(seed=0), resources_by_source[source], domain)


@needs_shared_data
@pytest.mark.parametrize("cause, source, unit, strategy, reason", JUDGED_QUARANTINED,
                         ids=[f"{row[0]}:{row[2]}:{row[3]}" for row in JUDGED_QUARANTINED])
def test_a_judged_failure_is_quarantined_with_its_reason(judged, units, resources_by_source, cause, source, unit, strategy,
                                                         reason):
    rejected = judged[(source, unit, strategy)]
    outcome = _generate(units, resources_by_source, source, unit, strategy)
    assert isinstance(outcome, (Quarantined, NotApplicable)), f"{cause}: shipped {getattr(outcome, 'example', outcome)}"
    assert outcome.reason.startswith(reason), (outcome.reason, outcome.detail, rejected)  # never shipped as rejected


@needs_shared_data
@pytest.mark.parametrize("cause, source, unit, strategy, repaired", JUDGED_REPAIRED,
                         ids=[f"{row[0]}:{row[2]}:{row[3]}" for row in JUDGED_REPAIRED])
def test_a_judged_failure_is_repaired(judged, units, resources_by_source, cause, source, unit, strategy, repaired):
    rejected = judged[(source, unit, strategy)]
    outcome = _generate(units, resources_by_source, source, unit, strategy)
    assert isinstance(outcome, Variant), outcome
    assert outcome.example.sentence == repaired != rejected
