"""The exact requests sent to an OpenAI-compatible endpoint, as files: exported, answered, replayed.

A request is the JSON body of one `POST {base_url}/chat/completions`. Its key is the sha256 of the body in
canonical JSON (keys sorted, no spaces, non-ASCII kept): the same request gives the same key on every
machine, and any change to the prompt, the model name or a setting gives another key.

Files (JSON Lines, UTF-8, one object a line):

- requests (`absa-checks generate ... --export-requests FILE`): `{"key": KEY, "request": BODY}`;
- answers (`absa-checks serve-replay ANSWERS`): `{"key": KEY, "content": TEXT}`, the assistant message's
  text exactly as the model answered, or `{"key": KEY, "response": OBJECT}`, a whole chat.completion reply.

Pure but for reading and parsing a file's text (the caller writes with absa_checks.common.outputs).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from absa_checks.common.errors import AbsaChecksError

HEX64 = re.compile(r"[0-9a-f]{64}")  # request_key's form: an upper-case copy would never be matched


def request_key(body: dict) -> str:
    """sha256 of the request body in canonical JSON."""
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class Answer:
    key: str
    content: str | None = None   # the assistant's text, or
    response: dict | None = None  # a whole chat.completion reply


def requests_lines(bodies: list[dict]) -> str:
    """The requests file's text: each distinct body once, in the order given."""
    seen: dict[str, dict] = {}
    for body in bodies:
        seen.setdefault(request_key(body), body)
    return "".join(json.dumps({"key": key, "request": body}, ensure_ascii=False, sort_keys=True) + "\n"
                   for key, body in seen.items())


def read_answers(path: Path) -> dict[str, Answer]:
    """An answers file by key; AbsaChecksError naming the file and line for anything malformed."""
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise AbsaChecksError(f"{path}: cannot read the answers file ({err}); give a JSON Lines file of "
                              '{"key": ..., "content": ...} lines') from None
    found: dict[str, Answer] = {}
    lines: dict[str, int] = {}  # where each key is first answered
    for number, line in enumerate(text.split("\n"), 1):  # not splitlines(): U+2028 or U+0085 inside a text
        # written unescaped (ensure_ascii=False) is no line break
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            item = json.loads(line)
        except (json.JSONDecodeError, RecursionError) as err:
            problem = err.msg if isinstance(err, json.JSONDecodeError) else "nested too deeply"
            raise AbsaChecksError(f"{where}: not JSON ({problem}); each line is one object such as "
                                  '{"key": "...", "content": "..."}') from None
        if not isinstance(item, dict) or not isinstance(item.get("key"), str) or not HEX64.fullmatch(item["key"]):
            raise AbsaChecksError(f"{where}: each line needs \"key\", the request's sha256 in 64 lower-case hex "
                                  "digits (from --export-requests)")
        content, response = item.get("content"), item.get("response")
        if "request" in item and content is None and response is None:
            raise AbsaChecksError(f"{where}: this is a request (the --export-requests file), not an answer; give "
                                  'the answers file: {"key": ..., "content": TEXT} for each request answered')
        if (content is None) == (response is None):
            raise AbsaChecksError(f"{where}: give exactly one of \"content\" (the answer's text) or \"response\" "
                                  "(a whole chat.completion object)")
        if content is not None and not isinstance(content, str):
            raise AbsaChecksError(f"{where}: \"content\" is a JSON {_json_type(content)}, not text; give the "
                                  "answer's text as the model wrote it (a JSON answer as one string)")
        if response is not None and not isinstance(response, dict):
            raise AbsaChecksError(f"{where}: \"response\" is a JSON {_json_type(response)}, not an object; give "
                                  "a whole chat.completion object, or the answer's text as \"content\"")
        if item["key"] in found and found[item["key"]] != Answer(item["key"], content, response):
            raise AbsaChecksError(f"{where}: key {item['key'][:12]}... is answered twice, differently (first on "
                                  f"line {lines[item['key']]}); keep one")
        found[item["key"]] = Answer(item["key"], content, response)
        lines.setdefault(item["key"], number)
    return found


def _json_type(value: object) -> str:
    return {dict: "object", list: "array", str: "string", bool: "true/false", int: "number",
            float: "number"}.get(type(value), type(value).__name__)
