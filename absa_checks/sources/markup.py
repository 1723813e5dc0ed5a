"""The built-in fixtures' sentence markup: readable to write, exact spans to read.

One sentence per line; `#` starts a comment line.

    The [burgers|pos] were {delicious|burgers}, but the [fries|neg] were {soggy|fries}.

- `[term|pol]` marks an aspect term with its polarity (`pos`, `neg` or `neu`);
- `{words|term}` marks an opinion expression about the aspect `term` (write `term#2` for the
  second aspect with the same term).
Every sentence becomes one example per aspect (that aspect as the target, the rest as others).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from absa_checks.common.errors import DataError
from absa_checks.common.examples import Aspect, Example, Opinion

POLARITY_CODES = {"pos": "positive", "neg": "negative", "neu": "neutral"}
_MARK = re.compile(r"\[([^\[\]{}|]+)\|([a-z]+)\]|\{([^\[\]{}|]+)\|([^\[\]{}|]+)\}")


@dataclass(frozen=True)
class MarkedSentence:
    line: int
    sentence: str
    aspects: tuple[Aspect, ...]
    opinions: tuple[tuple[int, Opinion], ...]  # (index into aspects, opinion)


def parse_line(text: str, where: str) -> tuple[str, list[Aspect], list[tuple[str, str, int, int]]]:
    """Plain sentence, aspects, and raw opinions (aspect reference, text, start, end)."""
    plain: list[str] = []
    length = 0
    cursor = 0
    aspects: list[Aspect] = []
    opinions: list[tuple[str, str, int, int]] = []
    for match in _MARK.finditer(text):
        plain.append(text[cursor:match.start()])
        length += match.start() - cursor
        if match.group(1) is not None:
            term, code = match.group(1), match.group(2)
            if code not in POLARITY_CODES:
                raise DataError(f"{where}: polarity '{code}' for [{term}|{code}]; use pos, neg or neu")
            aspects.append(Aspect(term, length, length + len(term), POLARITY_CODES[code]))
            inner = term
        else:
            inner = match.group(3)
            opinions.append((match.group(4).strip(), inner, length, length + len(inner)))
        plain.append(inner)
        length += len(inner)
        cursor = match.end()
    plain.append(text[cursor:])
    sentence = "".join(plain)
    leftover = re.search(r"[\[\]{}|]", sentence)
    if leftover:
        raise DataError(f"{where}: stray '{leftover.group(0)}' at character {leftover.start()}; "
                        "aspects are [term|pos], opinions {words|term}")
    return sentence, aspects, opinions


def parse_marked(text: str, where: str, line: int) -> MarkedSentence:
    sentence, aspects, raw_opinions = parse_line(text, f"{where}:{line}")
    if not aspects:
        raise DataError(f"{where}:{line}: no aspect marked; write [term|pos] around at least one aspect")
    opinions = []
    for reference, words, start, end in raw_opinions:
        term, _, nth = reference.partition("#")
        matching = [i for i, a in enumerate(aspects) if a.term == term]
        index = int(nth) - 1 if nth.isdigit() else 0
        if not matching or index >= len(matching):
            known = ", ".join(a.term for a in aspects)
            raise DataError(f"{where}:{line}: opinion {{{words}|{reference}}} names no marked aspect; "
                            f"marked aspects: {known}")
        opinions.append((matching[index], Opinion(words, start, end)))
    return MarkedSentence(line, sentence, tuple(aspects), tuple(opinions))


def read_marked_file(path: Path) -> list[MarkedSentence]:
    sentences = []
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = raw.strip()
        if text and not text.startswith("#"):
            sentences.append(parse_marked(text, str(path), number))
    return sentences


def examples_of(marked: MarkedSentence) -> list[Example]:
    """One example per aspect: that aspect as the target; opinions re-indexed (0 = target)."""
    examples = []
    for target_index, target in enumerate(marked.aspects):
        order = [target_index] + [i for i in range(len(marked.aspects)) if i != target_index]
        position = {aspect_index: rank for rank, aspect_index in enumerate(order)}
        opinions = tuple(Opinion(o.text, o.start, o.end, aspect=position[i])
                         for i, o in sorted(marked.opinions, key=lambda pair: pair[1].start))
        others = tuple(marked.aspects[i] for i in order[1:])
        examples.append(Example(marked.sentence, target, others, opinions))
    return examples
