"""Golden tests for the ARTS perturbations (REVTGT, REVNON, ADDDIFF), written by hand.

Every expected sentence below is what a careful English speaker would write for the perturbation;
it was decided before running the engine, so a wrong output fails the test. Cases are written in the
built-in fixtures' markup: `[term|pos]` marks an aspect, `{words|term}` an opinion about it.
"""

from __future__ import annotations

import re

import pytest

from absa_checks.common.examples import Aspect, Edit, Example, Opinion, Unit, Variant
from absa_checks.common.text import apply_edits, map_position, tokenize
from absa_checks.perturb import validity
from absa_checks.perturb.engine import Quarantined, Settings, generate
from absa_checks.perturb.resources import load_resources
from absa_checks.perturb.strategies import NotApplicable, tagged
from absa_checks.perturb.wordlists import load_aspect_bank, load_wordlists
from absa_checks.sources.markup import examples_of, parse_marked

DEGREE_ADVERBS = tuple(load_wordlists().degree_adverbs)


@pytest.fixture(scope="module")
def resources():
    return load_resources("restaurant")


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
