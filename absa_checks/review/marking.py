"""An original and its variant as HTML for the review page: the words the variant changed struck out
(<del>) and highlighted (<mark>), as the Allure case page shows them, and the target and the other aspects
marked (<span class="target">, <span class="aspect">) around them."""

from __future__ import annotations

import difflib
import html
import re
from dataclasses import dataclass

from absa_checks.common.examples import term_starts


@dataclass(frozen=True)
class Span:
    """A marked stretch of a sentence: `role` is the CSS class ("target" or "aspect")."""

    start: int
    end: int
    role: str
    title: str = ""


def _words(text: str) -> list[str]:
    return re.findall(r"\w+(?:'\w+)?|[^\w\s]|\s+", text)


def changed(original: str, variant: str) -> tuple[list[bool], list[bool]]:
    """For each character of each sentence, whether it lies in a word the word diff changed."""
    a, b = _words(original), _words(variant)
    left, right = [False] * len(original), [False] * len(variant)
    starts_a = [0]
    for word in a:
        starts_a.append(starts_a[-1] + len(word))
    starts_b = [0]
    for word in b:
        starts_b.append(starts_b[-1] + len(word))
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            continue
        for flags, starts, words, lo, hi in ((left, starts_a, a, i1, i2), (right, starts_b, b, j1, j2)):
            for k in range(lo, hi):
                if words[k].strip():  # changed whitespace alone is not shown
                    for c in range(starts[k], starts[k + 1]):
                        flags[c] = True
    return left, right


def locate(sentence: str, term: str, start: object, end: object) -> tuple[int, int] | None:
    """Where `term` is in `sentence`: at the given span when it is there, else its occurrence nearest the
    given start (an attempt's other aspects carry the original's spans), else None."""
    if isinstance(start, int) and isinstance(end, int) and sentence[start:end] == term and term:
        return start, end
    found = term_starts(sentence, term) if term else []
    if not found:
        return None
    near = start if isinstance(start, int) else 0
    best = min(found, key=lambda i: (abs(i - near), i))
    return best, best + len(term)


def render(sentence: str, spans: list[Span], flags: list[bool], tag: str) -> str:
    """The sentence as HTML: spans (non-overlapping; an overlapping one is dropped) wrap the changed words,
    which are wrapped in `tag` (del or mark)."""
    kept: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end)):
        if span.start < span.end and all(span.start >= k.end or span.end <= k.start for k in kept):
            kept.append(span)
    out, at = [], 0
    for span in sorted(kept, key=lambda s: s.start):
        out.append(_changes(sentence, flags, at, span.start, tag))
        title = f' title="{html.escape(span.title)}"' if span.title else ""
        out.append(f'<span class="{span.role}"{title}>{_changes(sentence, flags, span.start, span.end, tag)}</span>')
        at = span.end
    out.append(_changes(sentence, flags, at, len(sentence), tag))
    return "".join(out)


def _changes(sentence: str, flags: list[bool], start: int, end: int, tag: str) -> str:
    out, i = [], start
    while i < end:
        j = i
        while j < end and flags[j] == flags[i]:
            j += 1
        text = html.escape(sentence[i:j])
        out.append(f"<{tag}>{text}</{tag}>" if flags[i] else text)
        i = j
    return "".join(out)
