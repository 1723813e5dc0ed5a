"""The review page over an audit sheet (`absa-checks audit draw`): JSON lines, one blinded item each
({"item", "original", "variant", "question", "fluent", "sentiment_ok", "reason", ...}). A judge's answers
are written on the item's line (`fluent`, `sentiment_ok`: true/false, `reason`); every other key and every
other line stay as they were, byte for byte."""

from __future__ import annotations

import json
from typing import Any

from absa_checks.common.errors import AbsaChecksError
from absa_checks.review.marking import Span, changed, locate, render

NAME = "audit"
AUDIT_QUESTIONS = ("fluent", "sentiment_ok")


class SheetError(AbsaChecksError):
    """An audit sheet that cannot be read or answered: one line naming the file (and line) and the fix."""


def is_sheet(text: str) -> bool:
    """Whether a file's first line is an audit item (key "item", no "status") rather than a candidate."""
    for line in text.removeprefix("\ufeff").split("\n"):
        if line.strip():
            try:
                first = json.loads(line)
            except ValueError:
                return False
            return isinstance(first, dict) and "item" in first and "status" not in first
    return False


def _parse(text: str, shown: str) -> list[tuple[int, dict[str, Any]]]:
    found: list[tuple[int, dict[str, Any]]] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), 1):
        if not line.strip():
            continue
        at = f"{shown}:{number}"
        try:
            record = json.loads(line)
        except ValueError as err:
            raise SheetError(f"{at}: not a JSON line ({err.args[0].split(':')[0]}); each line is one audit item") from None
        if not isinstance(record, dict) or not isinstance(record.get("item"), str) or not record["item"]:
            raise SheetError(f"{at}: expected an audit item (a JSON object with an 'item' id); write the sheet with "
                             "`absa-checks audit draw`")
        for key in ("original", "variant", "question"):
            if not isinstance(record.get(key), str):
                raise SheetError(f"{at}: '{key}' must be a text; write the sheet with `absa-checks audit draw`")
        for key in AUDIT_QUESTIONS:
            if record.get(key) not in (True, False, None):
                raise SheetError(f"{at}: '{key}' is {record[key]!r}; use true, false or null (not answered yet)")
        if not isinstance(record.get("reason", ""), (str, type(None))):
            raise SheetError(f"{at}: 'reason' must be a text")
        if record["item"] in seen:
            raise SheetError(f"{at}: item '{record['item']}' is also on line {seen[record['item']]}; each item once")
        seen[record["item"]] = number
        found.append((number, record))
    return found


def check(text: str, shown: str) -> None:
    _parse(text, shown)


def items(text: str, shown: str) -> list[dict[str, Any]]:
    return [view(number, record) for number, record in _parse(text, shown)]


def to_do(found: list[dict[str, Any]]) -> str:
    left = sum(1 for item in found if not item["answered"])
    return f"{left} item{'' if left == 1 else 's'} to answer; every answer is saved at once"


def view(number: int, record: dict[str, Any]) -> dict[str, Any]:
    """An item for the page: the record, its line, whether both questions are answered, and the two
    sentences as HTML (changed words marked; the target marked where it is found)."""
    original, variant, term = record["original"], record["variant"], record.get("target")
    o_spans: list[Span] = []
    v_spans: list[Span] = []
    if isinstance(term, str) and term:
        for sentence, spans in ((original, o_spans), (variant, v_spans)):
            where = locate(sentence, term, None, None)
            if where:
                spans.append(Span(*where, "target", f"target: {term}"))
    left, right = changed(original, variant)
    return {"id": record["item"], "line": number, "record": record,
            "answered": all(record.get(key) is not None for key in AUDIT_QUESTIONS),
            "diff": {"original": render(original, o_spans, left, "del"), "variant": render(variant, v_spans, right, "mark")}}


def apply(text: str, shown: str, body: dict[str, Any], reviewer: str, now: str) -> tuple[str, dict[str, Any]]:
    """The sheet's text with the answers in `body` ({"item", "fluent", "sentiment_ok", "reason"}; both null
    clears the item) written on the item's line; every other line byte for byte."""
    _parse(text, shown)
    wanted = body.get("item", body.get("id"))
    fluent, sentiment, reason = body.get("fluent"), body.get("sentiment_ok"), body.get("reason") or ""
    if fluent not in (True, False, None) or sentiment not in (True, False, None) or not isinstance(reason, str):
        raise SheetError("'fluent' and 'sentiment_ok' are true, false or null; 'reason' a text")
    if (fluent is None) != (sentiment is None):
        raise SheetError("answer both questions (fluent, then the intended sentiment), or clear both")
    lines = text.split("\n")
    for index, line in enumerate(lines):
        bom = "\ufeff" if index == 0 and line.startswith("\ufeff") else ""
        body_text = line.removeprefix(bom)
        if not body_text.strip():
            continue
        record = json.loads(body_text)
        if record.get("item") != wanted:
            continue
        record.update(fluent=fluent, sentiment_ok=sentiment, reason=reason.strip() if fluent is not None else "")
        ending = "\r" if line.endswith("\r") else ""
        lines[index] = bom + json.dumps(record, ensure_ascii=False) + ending
        return "\n".join(lines), view(index + 1, record)
    raise SheetError(f"{shown}: no item {wanted!r}; reload the page (the sheet may have changed)")
