"""The `openai` adapter on the official SDK (issue 26): the SDK is the one retry owner (a failing request is
sent exactly `retries` + 1 times, the SDK numbering its tries), our policy in its hooks (which replies are
retried, `backoff`, a `Retry-After` honoured up to 60 s and a longer one not retried, in one message), the
SDK's OPENAI_* environment not read, the key in no debug log, and without the SDK (the optional extra
`.[openai]`) a run with an openai model stops with one line naming the extra. Against the real loopback
server (tests/openai_server.py) and real pytest processes."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from e2e.test_missing_extras import pytest_without
from openai_server import FakeOpenAI

from absa_checks.models.protocol import Query, QueryError
from conftest import EXTRAS, REPO, needs_extra
from model_adapters.lexicon import LexiconAdapter
from model_adapters.openai_adapter import MAX_RETRY_AFTER, OpenAIAdapter
from model_adapters.openai_transport import retry_after

SENTENCE = "The fries were soggy but the burgers were great."
QUERY = Query(SENTENCE, "fries", 4, 9)
EXPECTED = LexiconAdapter().predict([QUERY])[0]
EXPECTED = max(EXPECTED, key=EXPECTED.get) if isinstance(EXPECTED, dict) else EXPECTED
LIVENESS = 60  # seconds: a generous bound for a thread that must end, never a measured time


def adapter(server: FakeOpenAI, **settings) -> OpenAIAdapter:
    return OpenAIAdapter("served", server.base_url, "lexicon", **{"backoff": 0.01, "max_concurrency": 1, **settings})


def ask(model: OpenAIAdapter) -> object:
    """The one query's answer, asked in a thread that must end."""
    box: list = []
    thread = threading.Thread(target=lambda: box.append(model.predict([QUERY])[0]), daemon=True)
    thread.start()
    thread.join(LIVENESS)
    assert not thread.is_alive(), "the request never ended"
    return box[0]


# ------------------------------------------------------------------------------------------ one retry owner

@needs_extra("openai")
@pytest.mark.parametrize("retries", [0, 1, 3])
@pytest.mark.parametrize("fault", ["500", "429", "503", "malformed", "drop"])
def test_a_failing_request_is_sent_exactly_retries_plus_one_times_by_the_sdk(fault, retries):
    with FakeOpenAI() as server:
        server.always = fault
        found = ask(adapter(server, retries=retries, max_consecutive_failures=100))
        sent = server.requests
        counts = [headers.get("x-stainless-retry-count") for headers in server.headers]
    assert isinstance(found, QueryError) and f"after {retries + 1} tries" in found.message, found
    assert sent == retries + 1  # one retry loop: two would ask (retries + 1) ** 2 times
    assert counts == [str(n) for n in range(retries + 1)]  # the SDK numbered every try: it sent the retries


@needs_extra("openai")
@pytest.mark.parametrize("fault", ["500", "429", "malformed", "drop", "trickle"])
def test_after_one_failure_the_sdks_retry_gets_the_answer(fault):
    with FakeOpenAI() as server:
        server.faults = [fault]
        found = ask(adapter(server, retries=1, timeout=1))
        sent = server.requests
    assert found == EXPECTED and sent == 2


@needs_extra("openai")
@pytest.mark.parametrize("status", ["400", "401", "404", "422"])
def test_a_refused_request_is_sent_once(status):
    with FakeOpenAI() as server:
        server.always = status
        found = ask(adapter(server, retries=4))
        sent = server.requests
    assert isinstance(found, QueryError) and f"HTTP {status} from" in found.message
    assert "the request was refused, not retried" in found.message and sent == 1


@needs_extra("openai")
def test_the_backoff_setting_is_the_sdks_wait_between_tries():
    with FakeOpenAI() as server:
        server.faults = ["500"]
        started = time.monotonic()
        found = ask(adapter(server, retries=1, backoff=2.0))  # 2 s times a jitter of at least 0.5
        took = time.monotonic() - started
    assert found == EXPECTED and took >= 1.0


# ------------------------------------------------------------------------------------------ Retry-After

@needs_extra("openai")
@pytest.mark.parametrize("fault, asked", [
    ("429:120", "120"), ("429:3600", "3600"), ("503:61", "61"), ("429:inf", "inf"),
    ("429:Wed, 21 Oct 2037 07:28:00 GMT", ""),  # an HTTP date years away
], ids=["429-120s", "429-an-hour", "503-61s", "429-inf", "429-date"])
def test_a_retry_after_above_60_s_is_not_retried_and_says_so_in_one_message(fault, asked):
    with FakeOpenAI() as server:
        server.always = fault
        found = ask(adapter(server, retries=4, max_consecutive_failures=100))
        sent = server.requests
    assert isinstance(found, QueryError), found
    assert sent == 1  # neither waited for (the run would hang) nor retried early (the server said not yet)
    assert f"HTTP {fault[:3]} from http://127.0.0.1:" in found.message
    assert f"asking to wait {asked}" in found.message and "(Retry-After), more than the 60 s a request waits, " \
           "so it was not retried; lower requests_per_minute or run later" in found.message


@needs_extra("openai")
def test_consecutive_long_retry_afters_stop_the_adapter_naming_the_last():
    from absa_checks.common.errors import AdapterError

    with FakeOpenAI() as server:
        server.always = "429:600"
        model = adapter(server, retries=4, max_consecutive_failures=2)
        with pytest.raises(AdapterError, match=r"stopped after 2 failed requests in a row \(the last: HTTP 429"):
            model.predict([QUERY] * 4)
        assert server.requests == 2


@pytest.mark.parametrize("value, seconds", [
    ("1", 1.0), ("0", 0.0), ("-5", 0.0), ("2.5", 2.5), ("60", 60.0), ("61", 61.0), ("inf", float("inf")),
    ("nan", None), ("soon", None), (None, None),
])
def test_retry_after_is_read_as_seconds(value, seconds):
    assert retry_after({} if value is None else {"retry-after": value}) == seconds


@pytest.mark.parametrize("value, retried", [("60", True), ("59.5", True), ("60.5", False), ("3600", False),
                                            (None, True), ("soon", True)])
def test_the_retry_policy_honours_retry_after_up_to_60_s(value, retried):
    model = OpenAIAdapter("m", "http://127.0.0.1:9/v1", "x", backoff=0.5)
    headers = {} if value is None else {"retry-after": value}
    assert MAX_RETRY_AFTER == 60
    assert model._should_retry(429, headers) is retried and model._should_retry(503, headers) is retried
    assert model._should_retry(404, headers) is False
    if retried and value not in (None, "soon"):
        assert model._wait_before_retry(0, headers) == float(value)
    if value in (None, "soon"):  # our backoff: 0.5 s doubling, times a jitter in [0.5, 1), at most 30 s
        waits = [model._wait_before_retry(n, headers) for n in range(8)]
        assert all(0.25 * 2 ** n <= w < 0.5 * 2 ** n for n, w in enumerate(waits[:6])) and max(waits) <= 30


def test_the_jitter_is_seeded():
    first, second = (OpenAIAdapter("m", "http://127.0.0.1:9/v1", "x", seed=3) for _ in range(2))
    assert [first._wait_before_retry(n, None) for n in range(5)] == [second._wait_before_retry(n, None)
                                                                     for n in range(5)]


# ------------------------------------------------------------------------------------------ what is sent

@needs_extra("openai")
def test_the_sdks_environment_is_not_sent(monkeypatch):
    """OPENAI_API_KEY, OPENAI_ORG_ID and OPENAI_PROJECT_ID are the SDK's defaults, not this entry's: without
    api_key_env no Authorization header goes to the server, and with it only that key."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-NotForThisServer1234")
    monkeypatch.setenv("OPENAI_ORG_ID", "org-NotForThisServer")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-NotForThisServer")
    monkeypatch.setenv("MY_SERVER_KEY", "sk-mine-OnlyThisOne5678")
    with FakeOpenAI() as server:
        assert ask(adapter(server)) == EXPECTED
        assert ask(adapter(server, api_key_env="MY_SERVER_KEY")) == EXPECTED
        headers = server.headers
    assert "authorization" not in headers[0] and headers[1]["authorization"] == "Bearer sk-mine-OnlyThisOne5678"
    assert not any("NotForThisServer" in value for sent in headers for value in sent.values())


SUITE = """suite: served
tests:
  - name: adddiff
    strategy: adddiff
    sources: [builtin-restaurant]
    sample: 4
"""


@pytest.mark.slow
@needs_extra("openai")
def test_debug_logs_of_the_sdk_and_http_library_never_show_the_key(tmp_path: Path, run):
    key = "plainlowercasesecretvalue"  # not key-shaped: only the adapter knows it is the key
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    with FakeOpenAI() as server:
        server.faults = ["500", "429", "drop"]  # retries: the SDK logs them
        (tmp_path / "models.yaml").write_text(
            f"models:\n  served: {{kind: openai, base_url: '{server.base_url}', model: lexicon, "
            "api_key_env: MY_KEY, backoff: 0.01}\n")
        result = run(["suite.yaml", "--absa-model", "served", "--log-cli-level=DEBUG", "--log-level=DEBUG", "-rA",
                      "--junitxml", "junit.xml"], cwd=tmp_path, env={"MY_KEY": key, "OPENAI_LOG": "debug"})
        assert server.authorizations and all(a == f"Bearer {key}" for a in server.authorizations)
    assert result.report is not None and result.report["summary"]["cases"] > 0, result.out[-3000:]
    assert "Retrying request" in result.out  # the SDK's debug log is in the output searched
    outputs = [result.out] + [p.read_text(errors="replace") for p in tmp_path.rglob("*") if p.is_file()]
    assert not any(key in text for text in outputs)


# ------------------------------------------------------------------------------------------ without the SDK

@pytest.mark.parametrize("model", ["remote", "remote,remote-too"])
def test_an_openai_model_without_the_sdk_stops_the_run_with_one_line_naming_the_extra(tmp_path, model):
    (tmp_path / "models.yaml").write_text(
        "models:\n  remote: {kind: openai, base_url: 'http://127.0.0.1:9/v1', model: x}\n"
        "  remote-too: {kind: openai, base_url: 'http://127.0.0.1:9/v1', model: y}\n")
    done = pytest_without(("openai",), [str(REPO / "suites" / "invariance" / "adddiff.yaml"), "-q",
                                        "--absa-models", str(tmp_path / "models.yaml"), "--absa-model", model])
    out = done.stdout + done.stderr
    assert done.returncode == 4, out[-3000:]
    lines = [line for line in out.splitlines() if line.strip()]
    assert len(lines) == 1, out[-3000:]
    assert "model 'remote' (kind openai) needs openai, not installed here: pip install -e '.[openai]' in a " \
           "checkout, or pip install 'absa-checks[openai]'" in lines[0]
    assert "Traceback" not in out and "ModuleNotFoundError" not in out


def test_without_the_sdk_the_openai_tests_are_skipped_naming_the_extra():
    """What .ci/run checks in its venv without the extra (there over all of tests/): every test marked
    needs_extra("openai") is skipped with the install line, none fails."""
    import subprocess
    import sys

    files = [path.relative_to(REPO).as_posix() for path in sorted((REPO / "tests").rglob("test_*.py"))
             if 'needs_extra("openai")' in path.read_text()]
    assert len(files) >= 5
    done = pytest_without(("openai",), ["-q", "-rs", "-m", "needs_extra(extra='openai')", *files])
    assert done.returncode == 0, done.stdout[-3000:]
    check = subprocess.run([sys.executable, str(REPO / ".ci" / "check_extra_skips.py"), "openai"], input=done.stdout,
                           capture_output=True, text=True, timeout=60)
    assert check.returncode == 0, check.stderr + done.stdout[-3000:]


def test_every_test_that_runs_an_openai_model_is_marked():
    """A test file that starts the loopback server, builds the adapter against it or writes an openai entry
    carries needs_extra("openai"): a guard for tests added later."""
    assert EXTRAS["openai"] == ("openai",)
    needs = ("FakeOpenAI(", "kind: openai")
    checked = 0
    for path in sorted((REPO / "tests").rglob("*.py")):
        text = path.read_text()
        if path.name == "openai_server.py" or not any(n in text for n in needs):
            continue
        checked += 1
        assert 'needs_extra("openai")' in text, f"{path.relative_to(REPO)} runs an openai model: mark it"
    assert checked >= 5  # the files are found where they are (a glob that saw none would pass)
