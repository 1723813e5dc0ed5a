"""`absa-checks serve-replay ANSWERS` as a real process on 127.0.0.1: the openai adapter gets the recorded
answers to the exact bodies it sends (built with its own body builder, so a drift of the key or the body
fails here), an unknown request is refused at once with the key named and not retried, malformed, streaming
and oversized requests are refused with a clear message, a bad answers file or a port in use is one line
and exit 2, SIGTERM and Ctrl-C end it with exit 0."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from absa_checks.common.llm_requests import Answer, request_key
from absa_checks.models.protocol import Query, QueryError
from absa_checks.models.replay_server import MAX_REQUEST_BODY, answer_request, model_names
from conftest import REPO, needs_extra, start_server

START = re.compile(r"^absa-checks serve-replay: base_url (?P<url>http://127\.0\.0\.1:(?P<port>\d+)/v1) answers "
                   r"(?P<count>\d+) recorded requests? from (?P<file>.+) \(Ctrl-C stops\)$")
SENTENCES = [("The fries were soggy but the burgers were great.", "fries"),
             ("The fries were soggy but the burgers were great.", "burgers"), ("The staff was friendly.", "staff")]
QUERIES = [Query(s, a, s.index(a), s.index(a) + len(a)) for s, a in SENTENCES]
RECORDED = ["Negative.", "positive", "**Positive**"]  # as a model answered, served verbatim and read by the adapter
EXTRACTED = 'Aspects:\n[{"aspect": "fries", "polarity": "negative"}, {"aspect": "burgers", "polarity": "positive"}]'


def environment() -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}


def start(answers: Path) -> tuple[subprocess.Popen, str]:
    """The real command; its base_url, read from the one line it prints before serving."""
    proc, found, _ = start_server(["serve-replay", str(answers)], START, answers.parent)
    return proc, found["url"]


def stop(proc: subprocess.Popen, how: int = signal.SIGTERM) -> tuple[int, str, str]:
    proc.send_signal(how)
    out, err = proc.communicate(timeout=30)  # a generous liveness bound, not a timing assertion
    return proc.returncode, out, err


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "absa_checks.cli", "serve-replay", *args], capture_output=True,
                          text=True, env=environment(), cwd=cwd, timeout=60)


def post(url: str, data: bytes, headers: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(url + "/chat/completions", data=data, method="POST",
                                     headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


def adapters():
    from model_adapters.openai_adapter import OpenAIAdapter

    def made(base_url: str) -> tuple[OpenAIAdapter, OpenAIAdapter]:
        return (OpenAIAdapter("replayed", base_url, "some/model", backoff=0.01, max_concurrency=2),
                OpenAIAdapter("replayed-extract", base_url, "some/model", mode="extract", backoff=0.01))
    return made


def recorded_answers(path: Path) -> Path:
    """An answers file for the exact bodies the adapters send (their own prompt and body builders): the
    classify queries answered as text, the extraction as a whole recorded response."""
    classify, extract = adapters()("http://127.0.0.1:9/v1")  # the body does not hold the endpoint
    lines = [{"key": request_key(classify._body(classify.prompt.replace("{aspect}", q.aspect)
                                                .replace("{sentence}", q.sentence))), "content": text}
             for q, text in zip(QUERIES, RECORDED)]
    body = extract._body(extract.prompt.replace("{sentence}", SENTENCES[0][0]))
    lines.append({"key": request_key(body), "response": {
        "id": "chatcmpl-recorded", "object": "chat.completion", "created": 1700000000, "model": "some/model-0613",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": EXTRACTED}, "finish_reason": "stop"}]}})
    path.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8")
    return path


@needs_extra("openai")
def test_the_adapter_gets_the_recorded_answers_and_an_unknown_request_is_refused_once_naming_its_key(tmp_path):
    proc, url = start(recorded_answers(tmp_path / "answers.jsonl"))
    try:
        classify, extract = adapters()(url)
        found = classify.predict(QUERIES)
        extracted = extract.extract([SENTENCES[0][0]])
        unknown = Query("The room was quiet.", "room", 4, 8)
        refused = classify.predict([unknown])[0]
        tries = classify.requests
    finally:
        code, out, err = stop(proc)
    assert found == ["negative", "positive", "positive"] and extracted == [EXTRACTED]
    assert isinstance(refused, QueryError) and "HTTP 404" in refused.message and "not retried" in refused.message
    assert tries == len(QUERIES) + 1  # the unknown request was sent once: a 404 is not retried
    key = request_key(classify._body(classify.prompt.replace("{aspect}", "room").replace("{sentence}",
                                                                                         unknown.sentence)))
    assert f"(no recorded answer for request {key[:12]} (model 'some/model'): " in refused.message  # the server's
    assert "--export-requests FILE), answer them" in refused.message  # message, quoted by the adapter
    assert code == 0 and out == "absa-checks serve-replay: stopped; 4 answered, 1 refused (no recorded answer)\n"
    assert err == (f"absa-checks serve-replay: refused request {key[:12]} (model 'some/model'): no recorded answer; "
                   "export the requests again (--export-requests) and answer them\n")


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    proc, url = start(recorded_answers(tmp_path_factory.mktemp("served") / "answers.jsonl"))
    try:
        yield url
    finally:
        code, _, err = stop(proc)
        assert code == 0 and "Traceback" not in err


def test_it_listens_on_127_0_0_1_only(served):
    port = int(served.rsplit(":", 1)[1].split("/")[0])
    if not os.path.exists("/proc/net/tcp"):
        pytest.skip("no /proc/net/tcp to read the listening address from")
    found = [row.split()[1] for name in ("/proc/net/tcp", "/proc/net/tcp6") if os.path.exists(name)
             for row in Path(name).read_text().splitlines()[1:]
             if row.split()[3] == "0A" and int(row.split()[1].split(":")[1], 16) == port]
    assert found == ["0100007F:" + f"{port:04X}"]  # 127.0.0.1, and nothing on IPv6 or any other interface


def test_a_recorded_text_is_a_whole_chat_completion_and_a_recorded_response_is_served_verbatim(served):
    classify, extract = adapters()(served)
    body = classify._body(classify.prompt.replace("{aspect}", "staff").replace("{sentence}", SENTENCES[2][0]))
    status, reply = post(served, json.dumps(body, ensure_ascii=True, indent=1).encode())  # escapes and spaces
    assert status == 200 and reply == {
        "id": f"chatcmpl-replay-{request_key(body)[:24]}", "object": "chat.completion", "created": 0,
        "model": "some/model", "choices": [{"index": 0, "message": {"role": "assistant", "content": "**Positive**"},
                                            "logprobs": None, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}
    body = extract._body(extract.prompt.replace("{sentence}", SENTENCES[0][0]))
    request = urllib.request.Request(served.replace("/v1", "/openai/deployments/x/chat/completions?api-version=1"),
                                     data=json.dumps(body).encode(), method="POST")  # another base_url prefix
    with urllib.request.urlopen(request, timeout=30) as answer:
        reply = json.loads(answer.read())
    assert reply["id"] == "chatcmpl-recorded" and reply["model"] == "some/model-0613"


@pytest.mark.parametrize(("data", "status", "words"), [
    (b'{"model": "m", "messages": [', 400, "the request body is not JSON (Expecting value at line 1 column 29)"),
    (b"\xff\xfe{}", 400, "not UTF-8 text"),
    (b'["model"]', 400, "is a JSON list, not an object"),
    (b'{"messages": [{"role": "user", "content": "hi"}]}', 400, 'needs "model" (text) and "messages"'),
    (b'{"model": "m", "messages": []}', 400, 'needs "model" (text) and "messages" (a non-empty list)'),
    (b'{"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true}', 400,
     "the replay server does not stream"),
    (b'{"model": "m", "messages": [{"role": "user", "content": "\\ud800"}]}', 400, "not valid Unicode"),
    (b'{"model": "m", "messages": [{"role": "user", "content": "hi"}]}', 404, "no recorded answer for request "),
])
def test_a_request_that_cannot_be_answered_gets_an_openai_style_error_saying_why(served, data, status, words):
    got, reply = post(served, data)
    assert got == status and words in reply["error"]["message"] and reply["error"]["type"] == "invalid_request_error"


def test_an_oversized_body_another_host_and_another_endpoint_are_refused(served):
    status, reply = post(served, b"x" * (MAX_REQUEST_BODY + 1))
    assert status == 413 and f"at most {MAX_REQUEST_BODY}" in reply["error"]["message"]
    status, reply = post(served, b'{"model": "m", "messages": [1]}', {"Host": "evil.example:80"})
    assert status == 403 and "Host refused" in reply["error"]["message"]
    request = urllib.request.Request(served.replace("/v1", "/v1/completions"), data=b"{}", method="POST")
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(request, timeout=30)
    assert caught.value.code == 404 and "answers POST /v1/chat/completions" in caught.value.read().decode()
    with urllib.request.urlopen(served + "/models", timeout=30) as answer:  # the names recorded responses carry
        assert json.loads(answer.read())["data"] == [{"id": "some/model-0613", "object": "model", "created": 0,
                                                     "owned_by": "replay"}]


def test_the_reply_is_pure_and_a_refusal_names_the_key_and_the_fix():
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    key = request_key(body)
    reply = answer_request(json.dumps(body).encode(), {})
    assert reply.status == 404 and key[:12] in reply.body["error"]["message"] and "--export-requests" in reply.log
    assert "answer them" in reply.body["error"]["message"] and reply.body["error"]["code"] == "unknown_request"
    answers = {key: Answer(key, content="yes")}
    assert answer_request(json.dumps(body).encode(), answers).body["choices"][0]["message"]["content"] == "yes"
    assert answer_request(b"[" * 100000, answers).status == 400  # nested too deeply: refused, not a crash
    assert model_names(answers) == [] and model_names({key: Answer(key, response={"model": "x"})}) == ["x"]


@pytest.mark.parametrize(("text", "words"), [
    ("{oops\n", "answers.jsonl:1: not JSON"),
    ('{"key": "abc", "content": "x"}\n', 'answers.jsonl:1: each line needs "key"'),
    ("", "answers.jsonl: holds no answers"),
])
def test_a_bad_answers_file_is_one_line_and_exit_2(tmp_path, text, words):
    (tmp_path / "answers.jsonl").write_text(text, encoding="utf-8")
    done = run_cli("answers.jsonl", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1 and words in done.stderr


def test_a_port_in_use_or_not_a_port_is_one_line_and_exit_2(tmp_path):
    answers = recorded_answers(tmp_path / "answers.jsonl")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_cli(str(answers), "--port", str(port), cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1
    assert f"--port {port}: cannot listen on 127.0.0.1:{port}" in done.stderr and "another port" in done.stderr
    done = run_cli(str(answers), "--port", "70000", cwd=tmp_path)
    assert done.returncode == 2 and "--port 70000: not a port" in done.stderr


def test_ctrl_c_ends_it_with_exit_0_and_no_traceback(tmp_path):
    proc, _ = start(recorded_answers(tmp_path / "answers.jsonl"))
    assert stop(proc, signal.SIGINT) == (0, "absa-checks serve-replay: stopped; 0 answered, 0 refused (no recorded "
                                            "answer)\n", "")


SUITE = """
suite: replayed
tests:
  - name: adddiff
    strategy: adddiff
    sources: [builtin-restaurant]
    sample: 4
"""


@needs_extra("openai")
def test_a_run_asked_live_and_replayed_from_its_recorded_answers_gives_the_same_cases(tmp_path):
    """The pipeline end to end without a live model: a run (absa_checks.evaluate, the run core pytest drives)
    against a live server (tests/openai_server.py), its requests answered as that server answered them, and
    the same run against serve-replay."""
    from openai_server import FakeOpenAI

    from absa_checks import evaluate

    live, replayed = tmp_path / "live", tmp_path / "replayed"
    for folder in (live, replayed):
        folder.mkdir()
        (folder / "suite.yaml").write_text(SUITE)
    entry = "models:\n  served: {{kind: openai, base_url: '{}', model: lexicon, backoff: 0.01}}\n"
    with FakeOpenAI() as server:
        (live / "models.yaml").write_text(entry.format(server.base_url))
        first = evaluate("served", live / "suite.yaml", rootdir=live).report
        answers = {request_key(body): server.answer(body["messages"][0]["content"]) for body in server.bodies}
    (tmp_path / "answers.jsonl").write_text("".join(json.dumps({"key": key, "content": text}) + "\n"
                                                    for key, text in answers.items()), encoding="utf-8")
    proc, url = start(tmp_path / "answers.jsonl")
    try:
        (replayed / "models.yaml").write_text(entry.format(url))
        second = evaluate("served", replayed / "suite.yaml", rootdir=replayed).report
    finally:
        code, out, _ = stop(proc)
    assert first["summary"]["cases"] >= 4 and first["summary"]["errors"] == 0
    assert second["cases"] == first["cases"] and second["verdict"] == first["verdict"]
    assert code == 0 and out.endswith(f"stopped; {len(answers)} answered, 0 refused (no recorded answer)\n")


@needs_extra("openai")
def test_the_adapter_quotes_a_refusals_message_with_the_key_hidden(monkeypatch):
    from types import SimpleNamespace

    from model_adapters.openai_adapter import OpenAIAdapter

    key = "sk-test-5ecret-9f8e7d6c5b4a"
    monkeypatch.setenv("ABSA_TEST_REPLAY_KEY", key)
    model = OpenAIAdapter("served", "http://127.0.0.1:9/v1", "m", api_key_env="ABSA_TEST_REPLAY_KEY")
    said = json.dumps({"error": {"message": f"bad key {key}\n" + "x" * 500}}).encode()
    quoted = model._refusal(SimpleNamespace(content=said))
    assert quoted.startswith(" (bad key *** xxx") and quoted.endswith("...)") and key[3:] not in quoted
    assert model._refusal(SimpleNamespace(content=b"<html>nope</html>")) == ""
    assert model._refusal(SimpleNamespace(content=b'{"error": "text"}')) == ""
