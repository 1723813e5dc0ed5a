"""Plain data of extraction: one (aspect, polarity, opinion, category) tuple, found in or annotated on a sentence."""

from __future__ import annotations

from dataclasses import dataclass

LEVELS = ("aspect", "pair", "triplet", "quad")  # what must match: + polarity, + opinion, + category
IMPLICIT = ""  # an aspect with no term in the sentence (ASQP's NULL)


@dataclass(frozen=True)
class AspectTuple:
    """An aspect term (`IMPLICIT` when the sentence names none) with what was said of it.

    `start`/`end` are the term's character span in the sentence when known (a tagger knows it; text
    output and tokenised gold do not); opinion and category are None when not given."""

    aspect: str
    polarity: str | None = None
    start: int | None = None
    end: int | None = None
    opinion: str | None = None
    category: str | None = None

    @property
    def has_span(self) -> bool:
        return self.start is not None and self.end is not None


@dataclass(frozen=True)
class AnnotatedSentence:
    """A sentence with its gold tuples, and for each gold tuple the alternatives a reader would also
    accept (an expanded ground truth: aspect forms and opinion forms). `spans`: whether the gold gives
    character spans (SemEval-2014 does, ASQP does not); None: whether any gold tuple has one."""

    sentence_id: str
    sentence: str
    gold: tuple[AspectTuple, ...]
    aspect_alternatives: tuple[tuple[str, ...], ...] = ()   # per gold tuple, in order
    opinion_alternatives: tuple[tuple[str, ...], ...] = ()
    spans: bool | None = None

    @property
    def has_spans(self) -> bool:
        return self.spans if self.spans is not None else any(g.has_span for g in self.gold)

    def alternatives(self, index: int, field: str) -> tuple[str, ...]:
        table = self.aspect_alternatives if field == "aspect" else self.opinion_alternatives
        return table[index] if index < len(table) else ()
