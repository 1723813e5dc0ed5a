"""Expanded matching (issue 38): exact match against the gold and its accepted alternatives, scored beside strict
and flexible; its gates and its column in the summary table."""

from __future__ import annotations

from absa_checks.common.tuples import AnnotatedSentence, AspectTuple
from absa_checks.judge import gates
from absa_checks.judge.matching import aspect_match, compatible, expanded_match
from absa_checks.judge.scoring import ExtractionResult, modes_for, score, sentence_counts

PIZZA = AnnotatedSentence("s", "the pizza was not bad at all", (AspectTuple("pizza", "positive", opinion="not bad"),),
                          aspect_alternatives=(("the pizza",),), opinion_alternatives=(("not bad at all",),))


def test_expanded_accepts_the_gold_and_its_alternatives_exactly_and_nothing_else():
    assert expanded_match("The  Pizza", "pizza", ["the pizza"]) and expanded_match("pizza", "pizza", [])
    assert not expanded_match("pizzas", "pizza", ["the pizza"])
    gold = PIZZA.gold[0]
    assert compatible(AspectTuple("the pizza", "positive", opinion="not bad at all"), 0, PIZZA, "triplet", "expanded")
    assert not compatible(AspectTuple("the pizza", "positive", opinion="bad"), 0, PIZZA, "triplet", "expanded")
    assert not compatible(AspectTuple("the pizza"), 0, PIZZA, "aspect", "strict")
    # flexible reads the rules only: an alternative the rules refuse stays refused there
    odd = AnnotatedSentence("s", "the pie was good", (AspectTuple("pie"),), aspect_alternatives=(("pie was",),))
    assert compatible(AspectTuple("pie was"), 0, odd, "aspect", "expanded")
    assert not compatible(AspectTuple("pie was"), 0, odd, "aspect", "flexible")
    assert aspect_match(AspectTuple("pizza"), gold, "expanded", PIZZA.sentence)


def test_with_spans_an_alternative_must_be_at_the_gold_terms_place():
    sentence = "pizza here , pizza there"
    gold = AspectTuple("pizza", "positive", 0, 5)
    assert aspect_match(AspectTuple("pizza here", None, 0, 10), gold, "expanded", sentence, alternatives=["pizza here"])
    assert not aspect_match(AspectTuple("pizza there", None, 13, 24), gold, "expanded", sentence,
                            alternatives=["pizza there"])


def test_expanded_is_scored_only_where_an_expanded_gold_was_read():
    plain = AnnotatedSentence("s", "the pizza", (AspectTuple("pizza", "positive"),))
    assert modes_for([plain]) == ("strict", "flexible")
    assert modes_for([plain, PIZZA]) == ("strict", "expanded", "flexible")
    found = score([PIZZA], [[AspectTuple("the pizza", "positive", opinion="not bad at all")]])
    assert {level: modes["expanded"]["f1"].k for level, modes in found.items()} == {"aspect": 2, "pair": 2,
                                                                                   "triplet": 2}
    assert found["triplet"]["strict"]["f1"].k == 0


def test_a_pair_listed_once_per_category_has_the_alternatives_of_every_line():
    both = AnnotatedSentence("s", "the pizza was cheap and good",
                             (AspectTuple("pizza", "positive", opinion="cheap", category="food prices"),
                              AspectTuple("pizza", "positive", opinion="good", category="food quality")),
                             aspect_alternatives=((), ("the pizza",)), opinion_alternatives=((), ()))
    assert sentence_counts(both, [AspectTuple("the pizza", "positive")], "pair", "expanded").tp == 1


def test_an_expanded_gate_reads_expanded_f1_and_says_so():
    rates = score([PIZZA], [[AspectTuple("pizza", "positive")]])
    result = ExtractionResult("t", "t", "src", "m", 1, 0, "", {"min_aspect_f1_expanded": 0.5, "basis": "point"}, rates)
    [decided] = gates.evaluate_extraction([result], "point")
    assert decided.name == "min_aspect_f1_expanded" and decided.rate is rates["aspect"]["expanded"]["f1"]
    assert gates.extraction_mode("min_pair_f1") == "strict" and gates.extraction_mode("min_pair_f1_flexible") == \
        "flexible"


def test_the_summary_table_has_an_expanded_column_saying_when_there_is_none():
    from absa_checks.reports.summary_table import EXTRACTION_HEADER, NO_EXPANDED, extraction_rows

    with_file = ExtractionResult("t", "t", "a", "m", 1, 0, "", {}, score([PIZZA], [[AspectTuple("pizza", "positive")]]))
    plain = AnnotatedSentence("s", "the pizza", (AspectTuple("pizza", "positive"),))
    without = ExtractionResult("t", "t", "b", "m", 1, 0, "", {}, score([plain], [[AspectTuple("pizza", "positive")]]))
    rows = extraction_rows([with_file, without], [])
    column = EXTRACTION_HEADER.index("expanded F1 [95% CI]")
    assert rows[0][column].startswith("100.00") and rows[-1][column] == NO_EXPANDED
