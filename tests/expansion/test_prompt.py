"""The three requests (absa_checks.expansion.prompt): one body per sentence and step, keyed by content, holding
the project's instructions and worked examples; the shipped files name the prompt they were made with."""

from __future__ import annotations

import json

from absa_checks.common.llm_requests import request_key
from absa_checks.common.tuples import IMPLICIT, AspectTuple
from absa_checks.expansion import prompt
from absa_checks.expansion.prompt import ExpanderSettings, FormCandidate
from conftest import REPO

GOLD = (AspectTuple("pizza", "positive", opinion="great", category="food quality"),
        AspectTuple(IMPLICIT, "negative", opinion="pricey", category="restaurant prices"))


def test_each_zoom_body_is_the_steps_instructions_examples_and_the_sentence():
    for step in ("zoom-in", "zoom-out"):
        body = prompt.zoom_body(step, "great pizza , but pricey", GOLD, ExpanderSettings())
        assert body["messages"][0] == {"role": "system", "content": prompt.EXPAND_SYSTEM[step]}
        assert body["messages"][1:-1] == list(prompt.EXPAND_SHOTS[step])
        assert body["messages"][-1]["content"] == (
            "Sentence: great pizza , but pricey\nQuads:\n"
            '1. aspect: "pizza"; category: food quality; sentiment: positive; opinion: "great"\n'
            '2. aspect: "NULL"; category: restaurant prices; sentiment: negative; opinion: "pricey"\n'
            "Answer with the JSON object only.")
        assert (body["model"], body["temperature"], body["seed"], body["max_tokens"]) == ("expander", 0.0, 0, 1024)
    bodies = {step: prompt.zoom_body(step, "great pizza , but pricey", GOLD, ExpanderSettings())
              for step in prompt.STEPS[:2]}
    assert request_key(bodies["zoom-in"]) != request_key(bodies["zoom-out"])
    assert request_key(prompt.zoom_body("zoom-in", "great pizza , but pricey", GOLD, ExpanderSettings(seed=1))) != \
        request_key(bodies["zoom-in"])


def test_the_judge_body_numbers_the_candidates_with_their_quad_and_gold_term():
    found = (FormCandidate(0, "aspect", "the pizza", "the pizza", "zoom-out"),
             FormCandidate(1, "opinion", "a bit pricey", "a bit pricey", "zoom-out"))
    body = prompt.judge_body("the pizza is great , but a bit pricey", GOLD, found, ExpanderSettings(model="m"))
    last = body["messages"][-1]["content"]
    assert '1. quad 1, aspect (gold "pizza"): "the pizza"' in last
    assert '2. quad 2, opinion (gold "pricey"): "a bit pricey"' in last
    assert body["model"] == "m" and body["messages"][0]["content"] == prompt.EXPAND_SYSTEM["judge"]


def test_the_worked_examples_answer_in_the_form_the_readers_take():
    from absa_checks.expansion.checks import read_judge, read_zoom

    for step in ("zoom-in", "zoom-out"):
        assert read_zoom(prompt.EXPAND_SHOTS[step][1]["content"], 2)
    assert read_judge(prompt.EXPAND_SHOTS["judge"][1]["content"], 5) == {0: True, 1: True, 2: False, 3: True, 4: False}


def test_a_sentence_whose_terms_are_all_null_is_not_asked():
    assert not prompt.has_terms((AspectTuple(IMPLICIT, "positive", opinion=IMPLICIT),))
    assert prompt.has_terms(GOLD)


def test_the_shipped_files_were_made_with_this_prompt():
    """A changed prompt changes every request key: the shipped files must then be made again (docs/extraction.md)."""
    for name in ("asqp-rest15", "asqp-rest16"):
        head = json.loads((REPO / "suites/extraction/expanded" / f"{name}.expanded.jsonl").open().readline())
        assert head["prompt_sha256"] == prompt.EXPAND_PROMPT_SHA256
        assert (head["model"], head["temperature"], head["seed"]) == ("expander", 0.0, 0)
