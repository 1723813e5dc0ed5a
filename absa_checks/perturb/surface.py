"""What the robustness strategies (typos, contractions, punctuation, case) share: the aspect spans they
never touch and the words outside them. They change how a sentence is written, never what it says, and
never an aspect term (case alone recases a whole term: perturb.casing), so the gold stays and every span
moves with the edits (common.text.apply_edits)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from absa_checks.common.examples import Example

# a word, with an inner apostrophe ("didn't", "it's", "chef's"); letters only, so "3D" and "1,000" are not words
WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")


def aspect_spans(example: Example) -> tuple[tuple[int, int], ...]:
    return tuple((a.start, a.end) for a in (example.target, *example.others))


def clear_of_aspects(example: Example, start: int, end: int) -> bool:
    """sentence[start:end] shares no character with an aspect term (an empty stretch may touch one's edge)."""
    return not any(start < a_end and end > a_start for a_start, a_end in aspect_spans(example))


def words_outside_aspects(example: Example) -> Iterator[re.Match[str]]:
    """The sentence's words that are no part of an aspect term, left to right."""
    for match in WORD.finditer(example.sentence):
        if clear_of_aspects(example, match.start(), match.end()):
            yield match


def cased_like(new: str, old: str) -> str:
    """`new` written in `old`'s case: "DON'T" -> "DO NOT", "It's" -> "It is", "do not" -> "don't"."""
    if len(old) > 1 and old.isupper():
        return new.upper()
    if old[:1].isupper():
        return new[:1].upper() + new[1:]
    return new
