"""Opinion spans inferred from the VADER lexicon, for sources that annotate none.

For each aspect: the lexicon's clear sentiment words (|mean valence| >= 1.0) inside that aspect's
clause (absa_checks.clauses.target_clause), nearest to the aspect first, at most two, never touching
any aspect's span. A "not", "never" or "...n't" word right before a sentiment word belongs to the
opinion ("not good" is one opinion), so reversing it later reverses the whole expression.
Every opinion made here has `inferred=True`.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from types import MappingProxyType
from typing import Mapping, Sequence

from ..clauses import target_clause
from ..errors import DataError
from ..examples import Aspect, Opinion

MIN_VALENCE = 1.0
PER_ASPECT = 2
NEGATORS = frozenset({"not", "never", "n't", "cannot"})
# Lexicon entries that are mostly not opinions in reviews ("feels like", "kind of", "pretty fast",
# "tech support", "no problems" is better left to the negation rule's cousins).
NOT_OPINIONS = frozenset({"like", "kind", "pretty", "please", "well", "sure", "yes", "no", "support"})

_WORD = re.compile(r"[A-Za-z]+(?:['\u2019][A-Za-z]+)*")


@functools.lru_cache(maxsize=1)
def vader_lexicon() -> Mapping[str, float]:
    """word -> mean valence, read once from the vader_lexicon.txt that vaderSentiment ships."""
    try:
        text = resources.files("vaderSentiment").joinpath("vader_lexicon.txt").read_text(encoding="utf-8")
    except (ModuleNotFoundError, OSError) as err:
        raise DataError(f"opinion inference needs the VADER lexicon from the vaderSentiment package ({err}); "
                        "pip install vaderSentiment") from None
    lexicon: dict[str, float] = {}
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) < 2:
            continue
        try:
            lexicon.setdefault(fields[0], float(fields[1]))
        except ValueError:
            continue
    return MappingProxyType(lexicon)


def is_negator(word: str) -> bool:
    lower = word.lower().replace("\u2019", "'")
    return lower in NEGATORS or lower.endswith("n't")


def clause_bounds(sentence: str, start: int, end: int) -> tuple[int, int]:
    """Character offsets of target_clause(sentence, start, end); the whole sentence if not found."""
    clause = target_clause(sentence, start, end)
    at = sentence.find(clause) if clause else -1
    while at != -1:
        if at <= start and at + len(clause) >= end:
            return at, at + len(clause)
        at = sentence.find(clause, at + 1)
    return 0, len(sentence)


def infer_opinions(sentence: str, aspects: Sequence[Aspect]) -> tuple[Opinion, ...]:
    """Inferred opinions for every aspect; Opinion.aspect is the aspect's index in `aspects`."""
    lexicon = vader_lexicon()
    words = list(_WORD.finditer(sentence))
    spans = [(a.start, a.end) for a in aspects]

    def free(lo: int, hi: int) -> bool:
        return all(hi <= s or lo >= e for s, e in spans)

    found: list[Opinion] = []
    for index, aspect in enumerate(aspects):
        lo, hi = clause_bounds(sentence, aspect.start, aspect.end)
        candidates = []
        for position, word in enumerate(words):
            lower = word.group().lower().replace("\u2019", "'")
            if (word.start() < lo or word.end() > hi or lower in NOT_OPINIONS or is_negator(lower)
                    or abs(lexicon.get(lower, 0.0)) < MIN_VALENCE or not free(word.start(), word.end())):
                continue
            start = word.start()
            before = words[position - 1] if position else None
            if (before is not None and before.start() >= lo and is_negator(before.group())
                    and not sentence[before.end():word.start()].strip() and free(before.start(), word.end())):
                start = before.start()
            distance = aspect.start - word.end() if word.end() <= aspect.start else word.start() - aspect.end
            candidates.append((distance, start, word.end()))
        for _, start, end in sorted(candidates)[:PER_ASPECT]:
            found.append(Opinion(sentence[start:end], start, end, aspect=index, inferred=True))
    return tuple(found)
