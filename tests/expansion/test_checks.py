"""The deterministic checks a ZOOM candidate passes before JUDGE's verdict counts (absa_checks.expansion.checks),
each rejection reason with a case that meets it and one that does not, and the answers' readers."""

from __future__ import annotations

import json

import pytest

from absa_checks.common.tuples import IMPLICIT, AspectTuple
from absa_checks.expansion import checks
from absa_checks.expansion.checks import AnswerError, Proposal, check, normalisation_of, read_judge, read_zoom
from absa_checks.expansion.prompt import FormCandidate

SENTENCE = "The grilled salmon was n't worth the price , but our waiter was really friendly ."
GOLD = (AspectTuple("grilled salmon", "negative", opinion="n't worth", category="food prices"),
        AspectTuple("waiter", "positive", opinion="really friendly", category="service general"))


def verdict(quad: int, field: str, term: str, span: str | None = None, step: str = "zoom-out"):
    return check(Proposal(quad, field, term, span if span is not None else term), step, SENTENCE, GOLD, set())


@pytest.mark.parametrize("quad, field, term, span", [
    (0, "aspect", "The grilled salmon", None),              # zoom-out: a determiner
    (0, "aspect", "salmon", None),                          # zoom-in: a part (JUDGE decides whether it is the same)
    (0, "opinion", "not worth", "n't worth"),               # a contraction written out, declared
    (0, "opinion", "n't worth the price", None),            # zoom-out over a complement
    (1, "aspect", "our waiter", None),
    (1, "opinion", "friendly", None),
])
def test_a_span_next_to_the_gold_term_passes(quad, field, term, span):
    made = verdict(quad, field, term, span)
    assert made == FormCandidate(quad, field, term, span or term, "zoom-out")


@pytest.mark.parametrize("quad, field, term, span, reason", [
    (0, "aspect", "the smoked salmon", None, checks.REJECT_NOT_IN_SENTENCE),
    (0, "aspect", "grilled salmon was", "grilled  salmon   was", None),  # spacing is no problem
    (0, "opinion", "worth", None, checks.REJECT_NEGATION),              # the negation dropped
    (1, "opinion", "not really friendly", "really friendly", checks.REJECT_NOT_NORMALISATION),
    (1, "opinion", "really friendly .", None, None),
    (0, "aspect", "price", None, checks.REJECT_NOT_ADJACENT),
    (0, "opinion", "n't worth the price , but our waiter", None, checks.REJECT_SWALLOWS_OTHER),
    (0, "aspect", "grilled salmon was n't worth", None, checks.REJECT_SWALLOWS_OWN),
    (1, "aspect", "waiter was really friendly", None, checks.REJECT_SWALLOWS_OWN),
    (0, "aspect", "Grilled  Salmon", None, checks.REJECT_GOLD_ITSELF),
    (0, "aspect", "", None, checks.REJECT_MALFORMED),
    (5, "aspect", "salmon", None, checks.REJECT_NO_QUAD),
])
def test_each_reason_is_given_where_it_applies(quad, field, term, span, reason):
    made = check(Proposal(quad if quad < len(GOLD) else -1, field, term, span if span is not None else term),
                 "zoom-out", SENTENCE, GOLD, set())
    if reason is None:
        assert isinstance(made, FormCandidate)
    else:
        assert made == reason


def test_a_null_term_has_no_forms_and_a_form_proposed_twice_counts_once():
    gold = (AspectTuple(IMPLICIT, "positive", opinion="great", category="restaurant general"),)
    sentence = "what a great place"
    assert check(Proposal(0, "aspect", "place", "place"), "zoom-in", sentence, gold, set()) == checks.REJECT_NO_QUAD
    seen: set = set()
    assert isinstance(check(Proposal(0, "opinion", "great place", "great place"), "zoom-out", sentence, gold, seen),
                      FormCandidate)
    assert check(Proposal(0, "opinion", "Great place", "great place"), "zoom-in", sentence, gold, seen) == \
        checks.REJECT_TWICE


def test_a_form_spanning_the_whole_sentence_is_no_term():
    gold = (AspectTuple("", "positive", opinion="Best", category="restaurant general"),)
    assert check(Proposal(0, "opinion", "Best In ALL of NYC", "Best In ALL of NYC"), "zoom-out", "Best In ALL of NYC !",
                 gold, set()) == checks.REJECT_WHOLE_SENTENCE
    assert isinstance(check(Proposal(0, "opinion", "Best In ALL", "Best In ALL"), "zoom-out", "Best In ALL of NYC !",
                            gold, set()), FormCandidate)


def test_a_term_of_another_quad_inside_the_gold_term_itself_is_no_swallowing():
    sentence = "the wine list here is long"
    gold = (AspectTuple("wine list", "positive", opinion="long"), AspectTuple("wine", "positive", opinion="long"))
    assert isinstance(check(Proposal(0, "aspect", "the wine list here", "the wine list here"), "zoom-out", sentence,
                            gold, set()), FormCandidate)
    assert check(Proposal(1, "aspect", "wine list", "wine list"), "zoom-out", sentence, gold, set()) == \
        checks.REJECT_SWALLOWS_OTHER


@pytest.mark.parametrize("term, span", [
    ("will not find much better", "won 't find much better"), ("does not look appetizing", "doesn 't look appetizing"),
    ("were not very attentive", "werent very attentive"), ("CANNOT GET ANY BETTER", "CANT GET ANY BETTER"),
    ("DO NOT GO", "DONOT GO"), ("feel like you are home", "feel like you ’ re home"), ("love", "looove"),
    ("slow", "slowwwww"), ("restaurant", "restaraunt"), ("wings with chimichurri", "wings with chimmichuri"),
    ("coffee", "coffe"), ("best", "bestt"), ("booths", "boths"), ("pizzas", "pizza ’ s"), ("decor", "décor"),
    ("wifi", "wi-fi"), ("waiter", "wiater"),
])
def test_declared_normalisations_are_accepted(term, span):
    assert normalisation_of(term, span)


@pytest.mark.parametrize("term, span", [
    ("good", "food"), ("honey walnut prawns", "honwy walnut prawns"), ("no bread or rice", "no bread of rice"),
    ("stuffed tilapia", "stuff tilapia"), ("pizza", "pasta"), ("their Slamwich", "they 're Slamwich"),
    ("cheaper", "cheapest"),
])
def test_other_words_are_no_normalisation(term, span):
    assert not normalisation_of(term, span)


def test_a_negation_written_any_way_is_the_same_negation():
    gold = (AspectTuple("link", "negative", opinion="doesn 't work"),)
    made = check(Proposal(0, "opinion", "does not work", "doesn 't work"), "zoom-in", "the link doesn 't work .", gold,
                 set())
    assert isinstance(made, FormCandidate)
    assert check(Proposal(0, "opinion", "work", "work"), "zoom-in", "the link doesn 't work .", gold, set()) == \
        checks.REJECT_NEGATION


def test_read_zoom_takes_objects_or_plain_strings_and_numbers_quads_from_one():
    answer = json.dumps({"quads": [{"quad": 2, "aspect": ["our waiter"], "opinion": [{"term": "friendly"}]},
                                   {"quad": 9, "aspect": [{"term": "x", "span": "x"}]}]})
    found = read_zoom("Sure:\n```json\n" + answer + "\n```", 2)
    assert found == [Proposal(1, "aspect", "our waiter", "our waiter"), Proposal(1, "opinion", "friendly", "friendly"),
                     Proposal(-1, "aspect", "x", "x")]


@pytest.mark.parametrize("answer", ["I'm sorry, but I can't help with that.", "{not json", "[1, 2]",
                                    '{"quads": {"quad": 1}}', '{"quads": [3]}', '{"quads": [{"aspect": "x"}]}',
                                    '{"answer": []}'])
def test_read_zoom_refuses_what_is_not_the_object_asked_for(answer):
    with pytest.raises(AnswerError):
        read_zoom(answer, 1)


def test_read_judge_keeps_the_first_true_or_false_verdict_of_each_candidate():
    answer = json.dumps({"verdicts": [{"candidate": 1, "reason": "same", "valid": True},
                                      {"candidate": 2, "reason": "?", "valid": "yes"},
                                      {"candidate": 3, "valid": False}, {"candidate": 3, "valid": True},
                                      {"candidate": 7, "valid": True}]})
    assert read_judge(answer, 3) == {0: True, 2: False}
    with pytest.raises(AnswerError):
        read_judge('{"verdict": []}', 3)
