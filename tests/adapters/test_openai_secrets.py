"""Secrets in an openai entry never reach an output: credentials in base_url (user:password@, ?api-key=), a
key pasted into model: or into a numeric setting, a key with a stray line break. Each run is a real pytest
subprocess against a real server on 127.0.0.1 (tests/openai_server.py); every output (stdout and stderr,
and every file the run wrote: JSON, Markdown, JUnit XML, Allure) is searched for the secret. Also the
redaction module itself (absa_checks/common/redaction.py), and an answer that only says what it is not, end to end."""

from __future__ import annotations

from pathlib import Path

import pytest
from openai_server import FakeOpenAI

from absa_checks.common.redaction import looks_secret, redact_text, redact_url, shown
from conftest import needs_extra

SUITE = """
suite: served
tests:
  - name: adddiff
    strategy: adddiff
    sources: [builtin-restaurant]
    sample: 4
"""
ARGS = ["suite.yaml", "--absa-model", "served", "--absa-markdown", "r.md", "--junitxml", "junit.xml",
        "--alluredir", "allure", "-rA"]


def outputs(tmp_path: Path, out: str) -> list[str]:
    inputs = {"models.yaml", "suite.yaml", "pytest.ini"}
    return [out] + [p.read_bytes().decode("latin-1") for p in tmp_path.rglob("*") if p.is_file() and p.name not in inputs]


def project(tmp_path: Path, entry: str) -> None:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    (tmp_path / "suite.yaml").write_text(SUITE)
    (tmp_path / "models.yaml").write_text("models:\n  served:\n    kind: openai\n" + entry)


@needs_extra("openai")
@pytest.mark.parametrize("entry, secret, message", [
    ("    base_url: 'http://alice:S3cretPassw0rdXYZ@{host}/v1'\n    model: lexicon\n", "S3cretPassw0rdXYZ",
     "base_url holds credentials"),
    ("    base_url: 'http://sk-proj-Userinfo0nlyToken77@{host}/v1'\n    model: lexicon\n",
     "Userinfo0nlyToken77", "base_url holds credentials"),
    ("    base_url: 'http://{host}/v1?api-key=ZZtopSecretKey123'\n    model: lexicon\n", "ZZtopSecretKey123",
     "has a query string"),
    ("    base_url: 'http://{host}/v1?token=ZZtopSecretKey123&api-version=2024-02-01'\n    model: lexicon\n",
     "ZZtopSecretKey123", "has a query string"),
    ("    base_url: '${{ABSA_TEST_PROXY}}'\n    model: lexicon\n", "Pr0xyPassw0rdQ", "base_url holds credentials"),
    ("    base_url: 'http://{host}/v1'\n    model: 'sk-proj-QQQ8fK2LqP9zR4tY7uW1xCvB'\n",
     "QQQ8fK2LqP9zR4tY7uW1xCvB", "model looks like an API key"),
    ("    base_url: 'http://{host}/v1'\n    model: 'a8Fk2LqP9zR4tY7uW1xCbN3m'\n", "a8Fk2LqP9zR4tY7uW1xCbN3m",
     "model looks like an API key"),
    ("    base_url: 'http://{host}/v1'\n    model: lexicon\n    timeout: 'sk-live-Ab12Cd34Ef56Gh78'\n",
     "Ab12Cd34Ef56Gh78", "timeout (a value that looks like a key"),
], ids=["userinfo", "userinfo-token", "query", "query-among-others", "from-env", "model-sk", "model-random",
        "key-in-timeout"])
def test_a_secret_in_a_setting_is_refused_at_load_and_never_shown(tmp_path: Path, run, entry, secret, message):
    with FakeOpenAI() as server:
        host = server.base_url.split("//")[1].split("/")[0]
        project(tmp_path, entry.format(host=host))
        env = {"ABSA_TEST_PROXY": f"http://bob:Pr0xyPassw0rdQ@{host}/v1"}
        result = run(ARGS, cwd=tmp_path, env=env)
    assert result.code == 4, result.out[-2000:]
    assert "ERROR: model 'served': " in result.out and message in result.out
    assert "Traceback" not in result.out and server.requests == 0
    assert not any(secret in text for text in outputs(tmp_path, result.out))


@needs_extra("openai")
@pytest.mark.parametrize("key, what", [("sk-test-Line1Part\nLine2Part", "a line break"),
                                       ("sk-test-Line1Part\n", "a line break"),
                                       (" sk-test-Line1Part", "a space or tab"),
                                       ("sk-test-Line1\tPart", "a space or tab")],
                         ids=["inner-newline", "trailing-newline", "leading-space", "tab"])
def test_a_key_with_whitespace_is_refused_naming_the_variable_not_the_key(tmp_path: Path, run, key, what):
    with FakeOpenAI() as server:
        project(tmp_path, f"    base_url: '{server.base_url}'\n    model: lexicon\n    api_key_env: MY_KEY\n")
        result = run(ARGS, cwd=tmp_path, env={"MY_KEY": key})
    assert result.code == 4, result.out[-2000:]
    assert f"the key in the environment variable MY_KEY (api_key_env) contains {what}" in result.out
    assert "check the server" not in result.out and server.requests == 0
    assert not any("Line1" in text or "Part" in text for text in outputs(tmp_path, result.out))


@needs_extra("openai")
def test_api_key_env_given_as_a_reference_is_explained(tmp_path: Path, run):
    with FakeOpenAI() as server:
        project(tmp_path, f"    base_url: '{server.base_url}'\n    model: lexicon\n    api_key_env: '${{MYK}}'\n")
        result = run(ARGS, cwd=tmp_path, env={"MYK": "lowercasekeyvalue1234"})
    assert result.code == 4, result.out[-2000:]
    assert "api_key_env names the variable that holds the key, it does not take its value: write " \
           "api_key_env: MYK, not api_key_env: ${MYK}" in result.out
    assert "is not set" not in result.out
    assert not any("lowercasekeyvalue1234" in text for text in outputs(tmp_path, result.out))


@needs_extra("openai")
def test_api_key_env_given_through_a_variable_that_names_the_key_variable_works(tmp_path: Path, run):
    """An indirection (`api_key_env: ${WHICH}` with WHICH=REAL_KEY, REAL_KEY set) is a name: it is used."""
    key = "sk-test-Indirect9f8e7d6c5b"
    with FakeOpenAI() as server:
        project(tmp_path, f"    base_url: '{server.base_url}'\n    model: lexicon\n    api_key_env: '${{WHICH}}'\n")
        result = run(ARGS, cwd=tmp_path, env={"WHICH": "REAL_KEY", "REAL_KEY": key})
        assert server.authorizations and all(a == f"Bearer {key}" for a in server.authorizations)
    assert result.code == 0, result.out[-2000:]
    assert not any(key in text for text in outputs(tmp_path, result.out))


@needs_extra("openai")
@pytest.mark.parametrize("answer", ["Far from positive.", "Anything but positive.", "Positive? Not at all."])
def test_an_answer_that_only_says_what_it_is_not_is_an_error_never_a_pass(tmp_path: Path, run, answer):
    with FakeOpenAI() as server:
        server.always = f"answer:{answer}"
        project(tmp_path, f"    base_url: '{server.base_url}'\n    model: lexicon\n    retries: 0\n")
        result = run(ARGS, cwd=tmp_path)
    assert result.code != 0 and "PASSED" not in result.summary, result.out[-2000:]
    assert f"model 'served' answered {answer!r}" in result.out
    assert result.report is not None and result.report["summary"]["errors"] >= 1


# ------------------------------------------------------------------------------------------ the module itself

@pytest.mark.parametrize("url, redacted", [
    ("http://alice:pw123@host:8000/v1", "http://***@host:8000/v1"),
    ("https://token@host/v1", "https://***@host/v1"),
    ("http://host/v1?api-key=abc&x=1", "http://host/v1?api-key=***&x=***"),
    ("http://host/v1?abc", "http://host/v1?***"),
    ("http://host/v1#frag", "http://host/v1#***"),
    ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
])
def test_redact_url(url, redacted):
    assert redact_url(url) == redacted


def test_redact_text_hides_urls_and_key_shaped_tokens_and_keeps_the_rest():
    text = ("URLError talking to http://alice:S3cret@127.0.0.1:1/v1/chat/completions; key sk-proj-abcdefgh12345678, "
            "Authorization: Bearer abc.def-ghi12345; fingerprint 614c51eb9e8da23b")
    out = redact_text(text)
    assert "S3cret" not in out and "abcdefgh12345678" not in out and "abc.def-ghi12345" not in out
    assert "http://***@127.0.0.1:1/v1/chat/completions" in out and "fingerprint 614c51eb9e8da23b" in out


@pytest.mark.parametrize("value, secret", [
    ("sk-proj-QQQ8fK2LqP9zR4tY7uW1xCvB", True), ("a8Fk2LqP9zR4tY7uW1xCbN3m", True),
    ("ghp_16C7e42F292c6912E7710c838347Ae178B4a", True), ("0123456789abcdef0123456789abcdef", True),
    ("gpt-4o-mini", False), ("meta-llama/Meta-Llama-3.1-8B-Instruct", False), ("Qwen/Qwen2.5-7B-Instruct-AWQ", False),
    ("llama3.1:8b-instruct-q4_K_M", False), ("ft:gpt-4o-mini-2024-07-18:my-org:custom:9sWQ1vBz", False),
    ("mistralai/Mistral-7B-Instruct-v0.3", False), ("lexicon", False), (30, False),
])
def test_looks_secret(value, secret):
    assert looks_secret(value) is secret
    assert (str(value) in shown(value)) is (not secret)


def test_every_message_and_report_path_of_a_model_spec_is_redacted():
    from absa_checks.models.adapters import ModelSpec
    spec = ModelSpec("m", "openai", from_env=(("MY_KEY", "envvalue123456"),))
    message = ("model 'm': URLError talking to http://u:Passw0rdHere@host/v1/chat/completions?key=QueryS3cret; "
               "key envvalue123456 or sk-live-Abcdefgh12345678")
    found = spec.redact({"error": message, "list": [message]})
    for text in (found["error"], found["list"][0]):
        assert not any(s in text for s in ("Passw0rdHere", "QueryS3cret", "envvalue123456", "Abcdefgh12345678"))
        assert "${MY_KEY}" in text and "http://***@host/v1/chat/completions?key=***" in text


@needs_extra("openai")
def test_a_server_echoing_the_key_in_its_answer_does_not_put_it_in_an_output(tmp_path: Path, run):
    key = "plainlowercasekeyvalue"  # not key-shaped: only the adapter knows it is the key
    with FakeOpenAI() as server:
        server.always = f"answer:Authorization {key} received"
        project(tmp_path, f"    base_url: '{server.base_url}'\n    model: lexicon\n    api_key_env: MY_KEY\n"
                          "    retries: 0\n")
        result = run(ARGS, cwd=tmp_path, env={"MY_KEY": key})
    assert result.report is not None and result.report["summary"]["errors"] >= 1, result.out[-2000:]
    assert "answered 'Authorization *** received'" in result.out
    assert not any(key in text for text in outputs(tmp_path, result.out))
