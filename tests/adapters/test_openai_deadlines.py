"""The `openai` adapter's deadlines, interrupts, settings and answers, against the real loopback server
(tests/openai_server.py) with injected faults: a reply trickled one byte every 0.5 s is cut off at the
total `timeout`; SIGTERM and Ctrl-C end a run waiting on a server that never answers, with the partial
report; wrong setting types are exit 4 before the run; a key pasted into `api_key_env` is never shown;
malformed log probabilities and unreadable answers are errors of their own query."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from openai_server import FakeOpenAI

from absa_checks.common.errors import AdapterError
from absa_checks.models.protocol import Query, QueryError
from conftest import REPO, _plugin_args, needs_extra
from model_adapters.lexicon import LexiconAdapter
from model_adapters.openai_adapter import OpenAIAdapter

SENTENCES = [("The fries were soggy but the burgers were great.", "fries"), ("The staff was friendly.", "staff")]
QUERIES = [Query(s, a, s.index(a), s.index(a) + len(a)) for s, a in SENTENCES]
EXPECTED = [max(a, key=a.get) if isinstance(a, dict) else a for a in LexiconAdapter().predict(QUERIES)]
LIVENESS = 30  # seconds: far above what the fixed code takes, far below what the faults would hold


def adapter(server: FakeOpenAI, **settings) -> OpenAIAdapter:
    return OpenAIAdapter("served", server.base_url, "lexicon", **{"backoff": 0.01, "max_concurrency": 1, **settings})


def in_thread(function):
    """Run `function` in a thread; (thread, box) where box[0] is its result once the thread ended."""
    box: list = []
    thread = threading.Thread(target=lambda: box.append(function()), daemon=True)
    thread.start()
    return thread, box


def label(answer) -> str:
    return max(answer, key=answer.get) if isinstance(answer, dict) else answer


# ---------------------------------------------------------------------------------------------- deadlines

@needs_extra("openai")
def test_a_trickled_reply_is_cut_off_at_the_total_timeout_and_asked_again():
    with FakeOpenAI() as server:
        server.faults = ["trickle"]  # ~300 bytes at 0.5 s each: minutes, never a socket timeout
        thread, box = in_thread(lambda: adapter(server, timeout=1, retries=1).predict(QUERIES[:1]))
        thread.join(LIVENESS)
        assert not thread.is_alive(), "the trickled reply held the request past its timeout"
        assert server.requests == 2  # cut off, then asked again
    assert [label(a) for a in box[0]] == EXPECTED[:1]


@needs_extra("openai")
def test_a_trickled_reply_without_retries_is_an_error_naming_the_timeout():
    with FakeOpenAI() as server:
        server.always = "trickle"
        thread, box = in_thread(lambda: adapter(server, timeout=1, retries=0,
                                                max_consecutive_failures=10).predict(QUERIES))
        thread.join(LIVENESS)
        assert not thread.is_alive()
    assert all(isinstance(a, QueryError) and "no complete reply within timeout 1 s" in a.message for a in box[0])


@needs_extra("openai")
def test_halting_leaves_a_hanging_server_at_once():
    with FakeOpenAI() as server:
        server.always = "hang"
        model = adapter(server, timeout=600, retries=4, max_concurrency=2)
        thread, box = in_thread(lambda: model.predict(QUERIES))
        deadline = time.monotonic() + LIVENESS
        while server.requests < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        model.halt()
        thread.join(LIVENESS)
        assert not thread.is_alive()
        assert server.requests == 2  # no retry after the halt
    assert all(isinstance(a, QueryError) and "interrupted" in a.message for a in box[0])


@needs_extra("openai")
@pytest.mark.parametrize("fault, settings", [
    ("500", {"backoff": 30.0, "retries": 4}),          # waiting 15-30 s before the retry
    ("", {"requests_per_minute": 1, "max_concurrency": 2}),  # the second request waits a minute for its slot
], ids=["backoff", "rate-limit"])
def test_halting_ends_the_waits_between_requests(fault, settings):
    with FakeOpenAI() as server:
        server.always = fault
        model = adapter(server, **settings)
        thread, box = in_thread(lambda: model.predict(QUERIES))
        deadline = time.monotonic() + LIVENESS
        while server.requests < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(0.3)  # now waiting
        model.halt()
        thread.join(LIVENESS)
        assert not thread.is_alive(), "a wait between requests ignored the halt"
        assert server.requests == 1
    assert any(isinstance(a, QueryError) and "interrupted" in a.message for a in box[0])


# ---------------------------------------------------------------------------------------------- signals

SUITE = """suite: served
tests:
  - name: adddiff
    strategy: adddiff
    sources: [builtin-restaurant]
    sample: 6
"""


@needs_extra("openai")
@pytest.mark.parametrize("sig, xdist", [(signal.SIGTERM, False), (signal.SIGINT, False), (signal.SIGINT, True)],
                         ids=["sigterm", "ctrl-c", "ctrl-c-xdist"])
@pytest.mark.slow
def test_a_signal_ends_a_run_waiting_on_a_hanging_server_with_the_partial_report(tmp_path: Path, sig, xdist):
    """Two checkpoints: `good` answers (its cases run), then `stuck` never answers (timeout 600 s, 4
    retries); the signal comes while every worker thread waits on `stuck`. Under `-n 2` Ctrl-C goes to the
    process group, as a terminal sends it; there the partial report is written when a case had finished
    (as reliability row 6)."""
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    with FakeOpenAI() as good, FakeOpenAI() as stuck:
        stuck.always = "hang"
        (tmp_path / "models.yaml").write_text(
            "models:\n"
            f"  good: {{kind: openai, base_url: '{good.base_url}', model: lexicon}}\n"
            f"  stuck: {{kind: openai, base_url: '{stuck.base_url}', model: lexicon, timeout: 600, retries: 4, "
            "max_concurrency: 4}\n")
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        for name in ("PYTEST_XDIST_WORKER", "PYTEST_ADDOPTS", "CI"):
            env.pop(name, None)
        process = subprocess.Popen(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *_plugin_args(), "suite.yaml", "--absa-model",
             "good,stuck", "--absa-report", "r.json", "--absa-markdown", "r.md", *(["-n", "2"] if xdist else [])],
            cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            start_new_session=xdist)
        deadline = time.monotonic() + 300
        while stuck.requests < 4 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        assert process.poll() is None and stuck.requests >= 4, "the run never reached the hanging server"
        os.killpg(process.pid, sig) if xdist else process.send_signal(sig)
        try:
            out, _ = process.communicate(timeout=LIVENESS)
        except subprocess.TimeoutExpired:
            process.kill()
            out, _ = process.communicate()
            pytest.fail(f"the run ignored the signal while waiting on the server:\n{out[-3000:]}")
        asked = stuck.requests
    assert process.returncode != 0, out[-3000:]
    assert asked <= 2 * (4 + 4)  # the requests under way (per process), none retried after the stop
    assert not (tmp_path / "r.json").exists() and "absa-checks PASSED" not in out
    if xdist and not (tmp_path / "r.partial.json").exists():
        return
    report = json.loads((tmp_path / "r.partial.json").read_text())
    assert report["complete"] is False and report["stopped"].startswith("interrupted")
    assert report["cases"] and report["verdict"]["passed"] is False
    assert (tmp_path / "r.partial.md").read_text().startswith("> **Partial run**")


# ---------------------------------------------------------------------------------------------- settings

@needs_extra("openai")
@pytest.mark.parametrize("setting, value, message", [
    ("timeout", "abc", "timeout 'abc' must be a number above 0 and at most 3600, e.g. timeout: 30"),
    ("timeout", "0", "timeout 0 must be a number above 0"),
    ("timeout", "-3", "timeout -3 must be a number above 0"),
    ("timeout", ".nan", "timeout nan must be a number above 0"),
    ("timeout", "[1, 2]", "timeout [1, 2] must be a number above 0"),
    ("max_concurrency", '"x"', "max_concurrency 'x' must be a whole number of at least 1"),
    ("max_concurrency", "2.5", "max_concurrency 2.5 must be a whole number of at least 1"),
    ("retries", "-1", "retries -1 must be a whole number of at least 0"),
    ("retries", "true", "retries True must be a whole number of at least 0"),
    ("requests_per_minute", "0", "requests_per_minute 0 must be a number above 0"),
    ("max_consecutive_failures", "0", "max_consecutive_failures 0 must be a whole number of at least 1"),
    ("temperature", "hot", "temperature 'hot' must be a number at least 0"),
    ("backoff", "-0.5", "backoff -0.5 must be a number at least 0"),
    ("seed", "1.5", "seed 1.5 must be a whole number of at least 0"),
    ("max_tokens", "0", "max_tokens 0 must be a whole number of at least 1"),
    ("logprobs", "maybe", "logprobs 'maybe' must be true or false"),
    ("mode", "chat", "mode 'chat' is not one of classify, extract"),
    ("guided", "regex", "guided 'regex' is not one of none, choice, json_schema"),
    ("prompt", "42", "prompt must be text holding {sentence}"),
    ("base_url", "localhost:8000/v1", "base_url must start with http:// or https://"),
    ("api_key_env", "''", "api_key_env is empty"),
    # upper bounds: a value past them is a typo, and would overflow a timer (OverflowError) at run time
    ("timeout", "1e12", "timeout 1000000000000.0 must be a number above 0 and at most 3600"),
    ("timeout", "3601", "timeout 3601 must be a number above 0 and at most 3600"),
    ("requests_per_minute", "1e-9", "requests_per_minute 1e-09 is less than one request an hour"),
    ("requests_per_minute", "0.001", "requests_per_minute 0.001 is less than one request an hour"),
    ("requests_per_minute", "1e300", "requests_per_minute 1e+300 must be a number above 0 and at most 1e+06"),
    ("max_concurrency", "100000", "max_concurrency 100000 must be a whole number of at least 1 and at most 256"),
    ("retries", "1000000", "retries 1000000 must be a whole number of at least 0 and at most 100"),
    ("backoff", "1e9", "backoff 1000000000.0 must be a number at least 0 and at most 600"),
    ("temperature", "50", "temperature 50 must be a number at least 0 and at most 2"),
    ("seed", "99999999999999999999999", "seed 99999999999999999999999 must be a whole number of at least 0 and"),
    ("max_tokens", "10000000000", "max_tokens 10000000000 must be a whole number of at least 1 and at most"),
    # base_url: http(s)://host[:port][/path]
    ("base_url", "'http://'", "base_url 'http://' names no host"),
    ("base_url", "'https:///v1'", "base_url 'https:///v1' names no host"),
    ("base_url", "'http://:8000/v1'", "base_url 'http://:8000/v1' names no host"),
    ("base_url", "'http://127.0.0.1:99999/v1'", "base_url 'http://127.0.0.1:99999/v1' is not a URL"),
    ("base_url", "'http://127.0.0.1:80a/v1'", "base_url 'http://127.0.0.1:80a/v1' is not a URL"),
    ("base_url", "'ftp://127.0.0.1/v1'", "base_url must start with http:// or https://"),
    ("base_url", "'http:/127.0.0.1/v1'", "base_url must start with http:// or https://"),
    ("base_url", "'http://127.0.0.1:8000/v1?stream=false'", "base_url http://127.0.0.1:8000/v1?stream=*** has a "
                                                            "query string"),
    ("base_url", "'http://127.0.0.1:8000/v1#top'", "base_url http://127.0.0.1:8000/v1#*** has a query string or a"),
], ids=lambda v: str(v)[:24])
def test_a_setting_of_the_wrong_type_is_exit_4_before_the_run(tmp_path: Path, run, setting, value, message):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    entry = {"base_url": "'http://127.0.0.1:9/v1'", "model": "x", setting: value}
    (tmp_path / "models.yaml").write_text("models:\n  remote:\n    kind: openai\n" +
                                          "".join(f"    {k}: {v}\n" for k, v in entry.items()))
    result = run(["suite.yaml", "--absa-model", "remote"], cwd=tmp_path)
    assert result.code == 4, result.out[-2000:]
    assert f"model 'remote': {message}" in result.out
    assert "Traceback" not in result.out and result.report is None


def test_numbers_from_the_environment_are_read_as_numbers(monkeypatch):
    model = OpenAIAdapter("m", "http://127.0.0.1:9/v1", "x", timeout="2.5", retries="3", logprobs="true")
    assert (model.timeout, model.retries, model.logprobs) == (2.5, 3, True)


KEYS = ["sk-proj-4fGh7JkL9mNpQ2rStUvWxYz012345", "AbCdEf0123456789GhIjKlMnOp", "sk_live_51Hx9bqQ2eZvKYlo2C",
        "my key with spaces", "OPENAI-API-KEY"]


@needs_extra("openai")
@pytest.mark.parametrize("pasted", KEYS, ids=["sk-proj", "high-entropy-name", "sk_live", "spaces", "dashes"])
def test_a_key_pasted_into_api_key_env_is_refused_and_never_shown(tmp_path: Path, run, pasted):
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "models.yaml").write_text(f"models:\n  remote: {{kind: openai, base_url: 'http://127.0.0.1:9/v1', "
                                          f"model: x, api_key_env: '{pasted}'}}\n")
    result = run(["suite.yaml", "--absa-model", "remote", "--junitxml", "junit.xml", "-rA"], cwd=tmp_path)
    assert result.code == 4, result.out[-2000:]
    assert "api_key_env must name an environment variable; it looks like a key was pasted there" in result.out
    outputs = [result.out] + [p.read_text(errors="replace") for p in tmp_path.rglob("*")
                              if p.is_file() and p.name != "models.yaml"]
    assert not any(pasted in text or pasted[4:20] in text for text in outputs)
    with pytest.raises(AdapterError) as raised:
        OpenAIAdapter("m", "http://127.0.0.1:9/v1", "x", api_key_env=pasted)
    assert pasted not in str(raised.value) and pasted[4:20] not in str(raised.value)


def test_a_variable_name_in_api_key_env_still_works_and_is_named_when_unset():
    with pytest.raises(AdapterError, match="the environment variable MY_PROJECT_OPENAI_KEY_2 .api_key_env. is not"):
        OpenAIAdapter("m", "http://127.0.0.1:9/v1", "x", api_key_env="MY_PROJECT_OPENAI_KEY_2")


# ---------------------------------------------------------------------------------------------- answers

@needs_extra("openai")
@pytest.mark.parametrize("logprobs, problem", [
    ({"content": "positive"}, "non-empty 'content' list"),
    ({"content": []}, "non-empty 'content' list"),
    ([1, 2], "non-empty 'content' list"),
    ({"content": [{"token": "x"}]}, "no 'top_logprobs' list"),
    ({"content": [{"top_logprobs": "positive"}]}, "no 'top_logprobs' list"),
    ({"content": [{"top_logprobs": [["positive", -0.1]]}]}, "has no 'token' text"),
    ({"content": [{"top_logprobs": [{"token": 7, "logprob": -0.1}]}]}, "has no 'token' text"),
    ({"content": [{"top_logprobs": [{"token": "positive", "logprob": "high"}]}]}, "is not a log probability"),
    ({"content": [{"top_logprobs": [{"token": "positive", "logprob": 3.0}]}]}, "is not a log probability"),
    ({"content": [{"top_logprobs": [{"token": "positive", "logprob": 1e400}]}]}, "is not a log probability"),
    ({"content": [{"top_logprobs": [{"token": "positive"}]}]}, "is not a log probability"),
], ids=lambda v: str(v)[:30])
def test_malformed_logprobs_are_an_error_of_their_own_query(logprobs, problem):
    with FakeOpenAI() as server:
        server.faults = ["logprobs:" + json.dumps(logprobs)]
        found = adapter(server, logprobs=True).predict(QUERIES)
    assert isinstance(found[0], QueryError), found[0]
    assert "the log probabilities in its reply cannot be read" in found[0].message and problem in found[0].message
    assert label(found[1]) == EXPECTED[1]


@needs_extra("openai")
def test_logprobs_the_server_does_not_send_leave_the_label():
    with FakeOpenAI() as server:
        server.faults = ["logprobs:null", 'logprobs:{"content": null}']
        found = adapter(server, logprobs=True).predict(QUERIES)
    assert found == EXPECTED


@needs_extra("openai")
@pytest.mark.parametrize("answer, expected", [
    ("The sentiment is not positive; it is negative.", "negative"),
    ("**Neutral**", "neutral"),
    ("It is positive, not negative", "positive"),
    ("Neither positive nor negative", "neutral"),
    ("not negative", "refused: only says what the sentiment is not"),
    ("positive or negative, hard to say", "refused: offers negative or positive without choosing"),
    ("Positive for the burgers but negative for the fries, " + "x" * 200, "refused: asserts both"),
])
def test_an_llm_answer_is_read_for_what_it_asserts_or_refused_with_its_text(answer, expected):
    with FakeOpenAI() as server:
        server.faults = ["answer:" + answer]
        found = adapter(server).predict(QUERIES[:1])[0]
    if expected.startswith("refused: "):
        assert isinstance(found, QueryError) and expected[len("refused: "):] in found.message
        assert f"model 'served' answered {answer[:60]!r}"[:-1] in found.message  # a short prefix of the answer
        assert "x" * 100 not in found.message
    else:
        assert found == expected


@pytest.mark.parametrize("value, pasted", [
    ("OPENAI_API_KEY", False), ("HF_TOKEN", False), ("MY_PROJECT_OPENAI_KEY_2", False),
    ("MyCompanyOpenAIKey2024", False), ("AzureOpenAIKeyForTheEastUSRegion2", False),
    ("sk-proj-4fGh7JkL9mNpQ2rS", True), ("sk_live_51Hx9bqQ2eZvKYlo2C", True), ("Xq7pL2mN9vB4cR8tK1wZ5yH3", True),
    ("AbCdEf0123456789GhIjKlMnOp", True), ("Bearer abc", True), ("ghp-123", True),
])
def test_what_looks_like_a_pasted_key(value, pasted):
    from model_adapters.openai_settings import looks_like_a_key

    assert looks_like_a_key(value) is pasted
