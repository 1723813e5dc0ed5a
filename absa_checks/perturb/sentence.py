"""A tagged sentence with the lookups the perturbations need (which tokens a span covers, etc.)."""

from __future__ import annotations

from dataclasses import dataclass

from absa_checks.common.text import Token

CLAUSE_STOPS = frozenset({",", ";", ":", ".", "!", "?", "(", ")", "-", "but", "and", "although", "though",
                          "while", "whereas", "however", "yet", "because", "so", "or"})


@dataclass(frozen=True)
class TaggedSentence:
    text: str
    tokens: tuple[Token, ...]
    protected: tuple[tuple[int, int], ...]  # aspect spans: never edited

    def covering(self, start: int, end: int) -> list[int]:
        """Indices of the tokens that overlap [start, end)."""
        return [i for i, t in enumerate(self.tokens) if t.start < end and t.end > start]

    def is_protected(self, token: Token) -> bool:
        return any(token.start < e and token.end > s for s, e in self.protected)

    def left(self, index: int, limit: int = 6):
        """Token indices to the left of `index`, nearest first, stopping at a clause boundary or an aspect."""
        for j in range(index - 1, max(-1, index - 1 - limit), -1):
            token = self.tokens[j]
            if token.lower in CLAUSE_STOPS or self.is_protected(token):
                return
            yield j

    def is_sentence_start(self, index: int) -> bool:
        return all(t.text in "\"'([" for t in self.tokens[:index])
