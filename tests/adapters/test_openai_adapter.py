"""The `openai` adapter against a real OpenAI-compatible server on 127.0.0.1 (tests/openai_server.py):
answers, faults (429 with Retry-After, 500, malformed JSON, a dropped connection, a slow reply, an
unknown label), the stop after consecutive failures, the cache, and the API key kept secret."""

from __future__ import annotations

import time

import pytest
from openai_server import FakeOpenAI

from absa_checks.common.errors import AdapterError
from absa_checks.models.protocol import Query, QueryError
from conftest import needs_extra
from model_adapters.lexicon import LexiconAdapter
from model_adapters.openai_adapter import OpenAIAdapter

SENTENCES = [("The fries were soggy but the burgers were great.", "fries"),
             ("The fries were soggy but the burgers were great.", "burgers"),
             ("The staff was friendly.", "staff"), ("The room was quiet.", "room"),
             ("The wine list is short and the prices are high.", "prices"), ("We ordered the soup.", "soup")]
QUERIES = [Query(s, a, s.index(a), s.index(a) + len(a)) for s, a in SENTENCES]


def label(answer) -> str:
    return max(answer, key=answer.get) if isinstance(answer, dict) else answer


def expected() -> list[str]:
    return [label(a) for a in LexiconAdapter().predict(QUERIES)]


def adapter(server: FakeOpenAI, **settings) -> OpenAIAdapter:
    return OpenAIAdapter("served", server.base_url, "lexicon", **{"backoff": 0.01, **settings})


@needs_extra("openai")
def test_answers_are_the_served_models():
    with FakeOpenAI() as server:
        found = adapter(server).predict(QUERIES)
    assert [label(a) for a in found] == expected() and server.requests == len(QUERIES)


@needs_extra("openai")
def test_requests_are_deterministic_and_structured_output_is_read():
    with FakeOpenAI() as server:
        found = adapter(server, guided="json_schema").predict(QUERIES[:2])
        choice = adapter(server, guided="choice").predict(QUERIES[:1])
    assert [label(a) for a in found] == expected()[:2] and label(choice[0]) == expected()[0]
    body = server.bodies[0]
    assert body["temperature"] == 0.0 and body["seed"] == 0 and body["model"] == "lexicon"
    assert body["response_format"]["json_schema"]["schema"]["properties"]["polarity"]["enum"] == [
        "negative", "neutral", "positive"]
    assert server.bodies[-1]["guided_choice"] == ["negative", "neutral", "positive"]


@needs_extra("openai")
def test_requests_per_minute_spaces_the_requests():
    with FakeOpenAI() as server:
        started = time.monotonic()
        adapter(server, requests_per_minute=600, max_concurrency=4).predict(QUERIES)  # one every 0.1 s
        took = time.monotonic() - started
    assert took >= 0.5 and server.requests == len(QUERIES)


@needs_extra("openai")
def test_logprobs_give_probabilities():
    with FakeOpenAI() as server:
        found = adapter(server, logprobs=True).predict(QUERIES[:1])[0]
    assert isinstance(found, dict) and label(found) == expected()[0] and found[label(found)] > 0.8


@needs_extra("openai")
def test_every_fault_ends_in_the_right_answer_after_retries():
    with FakeOpenAI() as server:
        server.faults = ["429", "500", "malformed", "drop"]
        started = time.monotonic()
        found = adapter(server, max_concurrency=1).predict(QUERIES)
        took = time.monotonic() - started
    assert [label(a) for a in found] == expected()
    assert server.requests == len(QUERIES) + 4 and took >= 1.0  # the 429's Retry-After: 1 was honoured


@needs_extra("openai")
def test_a_slow_reply_times_out_and_is_asked_again():
    with FakeOpenAI() as server:
        server.faults, server.slow_seconds = ["slow"], 3.0
        found = adapter(server, max_concurrency=1, timeout=0.5).predict(QUERIES[:2])
    assert [label(a) for a in found] == expected()[:2] and server.requests == 3


@needs_extra("openai")
def test_an_unknown_label_is_an_error_of_its_query_only():
    with FakeOpenAI() as server:
        server.faults = ["unknown"]
        found = adapter(server, max_concurrency=1).predict(QUERIES[:3])
    assert isinstance(found[0], QueryError) and "'delicious', which names no polarity" in found[0].message
    assert [label(a) for a in found[1:]] == expected()[1:3]


@needs_extra("openai")
def test_a_completion_without_text_says_why_from_its_finish_reason_and_is_not_asked_again():
    """`content: null` with finish_reason length used to be "a malformed reply (not an OpenAI chat completion)"
    after retries (issue 35, probe 29)."""
    with FakeOpenAI() as server:
        server.faults = ["notext:length", "notext:content_filter", "notext:tool_calls"]
        found = adapter(server, max_concurrency=1, max_tokens=4).predict(QUERIES[:4])
    assert [answer.message for answer in found[:3]] == [  # type: ignore[union-attr]
        "model 'served': the answer was cut at max_tokens (4) before any text (finish_reason length); raise "
        "max_tokens in the model's entry",
        f"model 'served': the answer was withheld by the content filter of {server.base_url}/chat/completions "
        "(finish_reason content_filter); this query has no answer",
        "model 'served': a chat completion with no text (content null, finish_reason 'tool_calls') from "
        f"{server.base_url}/chat/completions; the model must answer in text"]
    assert found[0].reason == "cut at max_tokens before any text"  # type: ignore[union-attr]
    assert label(found[3]) == expected()[3] and server.requests == 4  # none asked again


@needs_extra("openai")
def test_consecutive_failures_stop_the_adapter_with_one_message_and_few_requests():
    with FakeOpenAI() as server:
        server.faults = ["500"] * 200
        model = adapter(server, retries=1, max_consecutive_failures=3, max_concurrency=2)
        with pytest.raises(AdapterError, match=r"stopped after 3 failed requests in a row \(the last: HTTP 500"):
            model.predict(QUERIES)
        sent = server.requests
        with pytest.raises(AdapterError, match="stopped after"):
            model.predict(QUERIES)  # stopped: nothing more is asked
        assert server.requests == sent <= 2 * (3 + 2)


def test_settings_are_checked():
    with pytest.raises(AdapterError, match="mode 'chat' is not one of classify, extract"):
        OpenAIAdapter("m", "http://127.0.0.1:9/v1", "x", mode="chat")
    with pytest.raises(AdapterError, match="the prompt must contain {aspect}"):
        OpenAIAdapter("m", "http://127.0.0.1:9/v1", "x", prompt="Sentence: {sentence}")
    with pytest.raises(AdapterError, match="NO_SUCH_KEY_VAR .api_key_env. is not set"):
        OpenAIAdapter("m", "http://127.0.0.1:9/v1", "x", api_key_env="NO_SUCH_KEY_VAR")


SUITE = """
suite: served
tests:
  - name: adddiff
    strategy: adddiff
    sources: [builtin-restaurant]
    sample: 15
"""


@pytest.mark.slow
@needs_extra("allure")  # --alluredir: the Allure results are searched for the key too
@needs_extra("openai")
def test_a_run_through_pytest_is_cached_and_never_shows_the_key(tmp_path, run):
    key = "sk-test-5ecret-9f8e7d6c5b4a"
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    with FakeOpenAI() as server:
        (tmp_path / "models.yaml").write_text(
            f"models:\n  served: {{kind: openai, base_url: '{server.base_url}', model: lexicon, "
            "api_key_env: ABSA_TEST_OPENAI_KEY, backoff: 0.01, retries: 0, max_consecutive_failures: 100}\n")
        env = {"ABSA_TEST_OPENAI_KEY": key}
        server.faults = ["500", "500"]  # two errored queries: their messages are outputs too
        args = ["suite.yaml", "--absa-model", "served", "--absa-markdown", "r.md", "--alluredir", "allure",
                "--junitxml", "junit.xml", "-rA"]
        first = run(args, cwd=tmp_path, env=env)
        asked = server.requests
        second = run(args, cwd=tmp_path, env=env)
        assert server.authorizations and all(a == f"Bearer {key}" for a in server.authorizations)
    assert first.report["summary"]["cases"] > 10 and first.report["summary"]["errors"] >= 1
    assert asked > 10 and server.requests - asked <= 2  # the second run asks only for what errored
    assert second.report["timing"]["predictions"]["cache_hits"] > 10
    outputs = [first.out, second.out] + [p.read_text(errors="replace") for p in tmp_path.rglob("*")
                                         if p.is_file() and p.suffix != ".sqlite"]
    outputs += [p.read_bytes().decode("latin-1") for p in tmp_path.rglob("*.sqlite*") if p.is_file()]
    assert len(outputs) > 8 and not any(key in text or key[3:] in text for text in outputs)


@needs_extra("openai")
def test_extraction_mode_reads_the_models_text_and_runs_behavioural_suites(tmp_path, run):
    from absa_checks.models.answers import normalise_answer
    from absa_checks.sources.builtin import load_builtin

    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    with FakeOpenAI() as server:
        server.vocabulary = {"fries", "burgers", "staff"}
        texts = adapter(server, mode="extract").extract([SENTENCES[0][0], "Nothing to see here."])
        server.vocabulary = {u.original.target.term for u in load_builtin("builtin-restaurant").units}
        (tmp_path / "models.yaml").write_text(
            f"models:\n  served: {{kind: openai, base_url: '{server.base_url}', model: lexicon, mode: extract}}\n")
        result = run(["suite.yaml", "--absa-model", "served"], cwd=tmp_path)
    assert texts[0].startswith("Here are the aspects:")  # prose around the JSON, as LLMs write it
    tuples = normalise_answer(texts[0], "served")
    fries, burgers = expected()[:2]
    assert [(t.aspect, t.polarity) for t in tuples] == [("burgers", burgers), ("fries", fries)]
    assert normalise_answer(texts[1], "served") == []
    assert result.report["summary"]["cases"] > 10 and result.report["summary"]["errors"] == 0
    assert result.report["run"]["model"]["mode"] == "extract"
