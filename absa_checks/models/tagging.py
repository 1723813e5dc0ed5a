"""Unified BIO tags (`B-positive`, `I-negative`, `O`, ...) on word pieces -> extracted aspect tuples.

A piece is tagged by its character span. An aspect is a maximal run of tagged pieces that starts with a
B (or with an I after an O) and whose pieces touch or are one space apart; a B always starts a new
one. Its polarity is the majority over its pieces (ties: the earliest), its span from the first
piece's start to the last piece's end. Tag names are read by name: `B-POS`, `b-positive` and
`B-Positive` are the same tag.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from absa_checks.common.labels import polarity_word
from absa_checks.common.tuples import AspectTuple


def parse_tag(tag: str) -> tuple[str, str | None] | None:
    """("B" | "I" | "O", polarity or None); None when the tag is not a unified BIO tag."""
    if tag.upper() == "O":
        return "O", None
    prefix, _, rest = tag.partition("-")
    polarity = polarity_word(rest) if rest else None
    if prefix.upper() not in ("B", "I") or polarity is None:
        return None
    return prefix.upper(), polarity


def decode(sentence: str, offsets: Sequence[tuple[int, int]], tags: Sequence[str]) -> list[AspectTuple]:
    """The aspects a tagger found in `sentence`, from each piece's (start, end) and tag; pieces with an
    empty span (special tokens) are ignored."""
    found: list[AspectTuple] = []
    run: list[tuple[int, int, str | None]] = []  # (start, end, polarity): B-/I- tags always have one

    def close() -> None:
        if run:
            polarity = Counter(p for _, _, p in run).most_common(1)[0][0]
            start, end = run[0][0], run[-1][1]
            found.append(AspectTuple(sentence[start:end], polarity, start, end))
            run.clear()

    for (start, end), tag in zip(offsets, tags):
        if start == end:
            continue
        parsed = parse_tag(tag)
        if parsed is None:
            raise ValueError(f"tag {tag!r} is not a unified BIO tag (O, B-<polarity>, I-<polarity>)")
        prefix, polarity = parsed
        if prefix == "O":
            close()
            continue
        if prefix == "B" or not run or start - run[-1][1] > 1:
            close()
        run.append((start, end, polarity))
    close()
    return found
