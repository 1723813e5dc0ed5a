"""Clauses: the part of a sentence that talks about one aspect.

Used by the lexicon model (score the target's own clause), by opinion inference, and by the
perturbations (which conjunction joins two aspects' clauses).
"""

from __future__ import annotations

import re

WINDOW = 4  # tokens on each side of the target in the fallback window

_CONTRASTIVE = r"but|although|though|whereas|however|yet|except"
# Clause boundaries: punctuation (not inside numbers such as 3.5 or 1,000), a spaced dash,
# and the contrastive/subordinating words.
_BOUNDARY = re.compile(
    rf"(?<!\d)[.,](?!\d)|[;:!?()]|\s[-\u2013\u2014]+\s|\b(?:{_CONTRASTIVE}|while)\b", re.IGNORECASE
)
_AND = re.compile(r"\band\b", re.IGNORECASE)
# "and" starts a new clause only when a verb follows; these cover the usual review phrasing.
_VERB_LIKE = frozenset(
    "is are was were am be been has have had do does did can could will would seems seem looks "
    "look feels feel isn't aren't wasn't weren't doesn't don't didn't hasn't haven't won't can't".split()
)
_CONTRASTIVE_WORDS = frozenset(_CONTRASTIVE.split("|"))


def target_clause(sentence: str, start: int, end: int) -> str:
    """The clause of `sentence` that contains the span [start, end)."""
    lo, hi = 0, len(sentence)
    for m in _BOUNDARY.finditer(sentence):
        # Boundaries inside the target (e.g. "fish and chips", "(USB)") are not cuts.
        if m.end() <= start:
            lo = max(lo, m.end())
        elif m.start() >= end:
            hi = min(hi, m.start())
    ands = [m for m in _AND.finditer(sentence, lo, hi)]
    for i, m in enumerate(ands):
        # The right side runs to the next "and" of the clause, so "slow and rude" stays whole
        # even when a later "and the keyboard is ..." starts a new clause.
        right_end = ands[i + 1].start() if i + 1 < len(ands) else hi
        words = re.findall(r"[a-z']+", sentence[m.end():right_end].lower())
        if not _VERB_LIKE.intersection(words):
            continue
        if m.end() <= start:
            lo = max(lo, m.end())
        elif m.start() >= end:
            hi = min(hi, m.start())
    return sentence[lo:hi].strip()


def target_window(sentence: str, start: int, end: int, size: int = WINDOW) -> str:
    """Up to `size` tokens each side of the target, cut at contrastive conjunctions."""
    tokens = list(re.finditer(r"\S+", sentence))
    inside = [i for i, t in enumerate(tokens) if t.start() < max(end, start + 1) and t.end() > start]
    if not inside:
        return sentence[start:end].strip()
    first, last = inside[0], inside[-1]
    bare = [re.sub(r"\W+", "", t.group()).lower() for t in tokens]
    for _ in range(size):  # extend left until a contrastive word: its clause contrasts with ours
        if first == 0 or bare[first - 1] in _CONTRASTIVE_WORDS:
            break
        first -= 1
    for _ in range(size):
        if last == len(tokens) - 1 or bare[last + 1] in _CONTRASTIVE_WORDS:
            break
        last += 1
    return sentence[tokens[first].start():tokens[last].end()]


