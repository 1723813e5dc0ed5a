"""absa_checks/common/llm_requests.py: the request key (stable across key order, escapes and machines;
changed by any setting), the requests file, and every malformed line of an answers file named by file:line."""

from __future__ import annotations

import hashlib
import json

import pytest

from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.llm_requests import Answer, read_answers, request_key, requests_lines

BODY = {"model": "m", "messages": [{"role": "user", "content": "Rewrite: Le café était très bon."}],
        "temperature": 0.0, "seed": 0}


def test_the_key_is_the_sha256_of_the_canonical_body_whatever_the_key_order_or_escapes():
    reordered = {"seed": 0, "temperature": 0.0, "messages": [{"content": BODY["messages"][0]["content"],
                                                             "role": "user"}], "model": "m"}
    escaped = json.loads(json.dumps(BODY, ensure_ascii=True))  # "\u00e9" on the wire reads as "é"
    spaced = json.loads(json.dumps(BODY, indent=4))
    assert request_key(BODY) == request_key(reordered) == request_key(escaped) == request_key(spaced)


def test_the_key_is_pinned_to_its_canonical_form():
    canonical = '{"messages":[{"content":"é","role":"user"}],"model":"m"}'
    assert request_key({"model": "m", "messages": [{"role": "user", "content": "é"}]}) == \
        hashlib.sha256(canonical.encode("utf-8")).hexdigest() == \
        "a2c7407eff95b5c502141a1edf5c79c99248361836acc7a3a5141baeb9f67b82"


@pytest.mark.parametrize("change", [{"model": "m2"}, {"temperature": 0.7}, {"seed": 1}, {"max_tokens": 5},
                                    {"messages": [{"role": "user", "content": "Rewrite: Le café était bon."}]}])
def test_any_change_to_the_model_a_setting_or_the_prompt_gives_another_key(change):
    assert request_key({**BODY, **change}) != request_key(BODY)


def test_the_requests_file_holds_each_distinct_body_once_in_order(tmp_path):
    other = {**BODY, "seed": 1}
    text = requests_lines([BODY, other, dict(reversed(list(BODY.items())))])
    lines = [json.loads(line) for line in text.split("\n") if line]
    assert [line["key"] for line in lines] == [request_key(BODY), request_key(other)]
    assert lines[0]["request"] == BODY and "é" in text  # written as text, not escaped


def write(tmp_path, text: str):
    path = tmp_path / "answers.jsonl"
    path.write_bytes(text.encode("utf-8"))
    return path


KEY = request_key(BODY)


def test_answers_are_read_by_key_with_a_bom_crlf_blank_lines_and_line_separators_inside_a_text(tmp_path):
    other = request_key({**BODY, "seed": 1})
    text = ("\ufeff" + json.dumps({"key": KEY, "content": "a\u2028b\x85c"}, ensure_ascii=False) + "\r\n\r\n"
            + json.dumps({"key": other, "response": {"choices": []}}) + "\r\n"
            + json.dumps({"key": KEY, "content": "a\u2028b\x85c"}) + "\n")  # the same answer twice is kept once
    assert read_answers(write(tmp_path, text)) == {KEY: Answer(KEY, content="a\u2028b\x85c"),
                                                   other: Answer(other, response={"choices": []})}


@pytest.mark.parametrize(("line", "words"), [
    ("{oops", "not JSON"),
    ("[" * 100000 + "]" * 100000, "not JSON (nested too deeply)"),
    ('["a"]', 'needs "key"'),
    (json.dumps({"content": "x"}), 'needs "key"'),
    (json.dumps({"key": KEY[:63], "content": "x"}), "64 lower-case hex"),
    (json.dumps({"key": KEY.upper(), "content": "x"}), "64 lower-case hex"),
    (json.dumps({"key": "z" * 64, "content": "x"}), "64 lower-case hex"),
    (json.dumps({"key": KEY}), 'exactly one of "content"'),
    (json.dumps({"key": KEY, "content": "x", "response": {}}), 'exactly one of "content"'),
    (json.dumps({"key": KEY, "content": 3}), '"content" is a JSON number, not text'),
    (json.dumps({"key": KEY, "content": {"spans": []}}), '"content" is a JSON object, not text; give the answer'),
    (json.dumps({"key": KEY, "response": "x"}), '"response" is a JSON string, not an object'),
    (json.dumps({"key": KEY, "request": BODY}), "this is a request (the --export-requests file), not an answer"),
])
def test_each_malformed_line_is_named_by_file_and_line(tmp_path, line, words):
    path = write(tmp_path, json.dumps({"key": request_key({**BODY, "seed": 9}), "content": "fine"}) + "\n\n" + line
                 + "\n")
    with pytest.raises(AbsaChecksError) as caught:
        read_answers(path)
    message = str(caught.value)
    assert message.startswith(f"{path}:3: ") and words in message and "\n" not in message


def test_a_key_answered_twice_differently_names_both_lines(tmp_path):
    path = write(tmp_path, json.dumps({"key": KEY, "content": "yes"}) + "\n" + json.dumps({"key": KEY, "content": "no"}))
    with pytest.raises(AbsaChecksError, match=r"answers\.jsonl:2: key [0-9a-f]{12}\.\.\. is answered twice, "
                                              r"differently \(first on line 1\)"):
        read_answers(path)


@pytest.mark.parametrize("case", ["missing", "folder", "latin-1"])
def test_an_unreadable_answers_file_is_one_message_naming_it(tmp_path, case):
    path = tmp_path / "answers.jsonl"
    if case == "folder":
        path.mkdir()
    elif case == "latin-1":
        path.write_bytes(json.dumps({"key": KEY, "content": "caf\xe9"}, ensure_ascii=False).encode("latin-1"))
    with pytest.raises(AbsaChecksError) as caught:
        read_answers(path)
    assert str(caught.value).startswith(f"{path}: cannot read the answers file")
