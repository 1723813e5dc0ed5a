"""Checking and repairing aspect spans in data we did not write."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SpanFix:
    term: str
    start: int
    end: int
    note: str  # empty when the span was right as given


def repair_span(sentence: str, term: str, start: int, end: int) -> SpanFix | None:
    """Make sentence[start:end] == term, staying as close to the given span as possible.

    Tries, in order: the span as given; another occurrence of the term (nearest to the given
    start); a case-insensitive match; a match that ignores spacing ('" tools " menu'); finally,
    when the span's text is a near spelling of the term ('delivery' for 'delivary'), the span's
    own text becomes the term. None when nothing fits, or the term is empty.
    """
    if not term.strip():  # an empty term "occurs" everywhere: nothing to repair it to
        return None
    if 0 <= start < end <= len(sentence) and sentence[start:end] == term:
        return SpanFix(term, start, end, "")
    for pattern, why in ((re.escape(term), "moved the span to where the term occurs"),
                         ("(?i)" + re.escape(term), "took the sentence's casing of the term"),
                         (_spacing_pattern(term), "matched the term ignoring spaces")):
        found = [m for m in re.finditer(pattern, sentence)]
        if found:
            best = min(found, key=lambda m: abs(m.start() - start))
            return SpanFix(best.group(0), best.start(), best.end(), why)
    if 0 <= start < end <= len(sentence):
        ratio = difflib.SequenceMatcher(None, sentence[start:end].lower(), term.lower()).ratio()
        if ratio >= 0.8:
            return SpanFix(sentence[start:end], start, end, "took the span's spelling of the term")
    return None


def _spacing_pattern(term: str) -> str:
    chars = [re.escape(c) for c in term if not c.isspace()]
    return r"(?i)" + r"\s*".join(chars)
