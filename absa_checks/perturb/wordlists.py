"""The word lists behind the ARTS perturbations, read from `absa_checks/fixtures/`.

- `<domain>.aspect_bank.tsv`: opinion clauses about aspects, appended by ADDDIFF;
- `degree_adverbs.txt` / `weakeners.txt`: intensifiers REVNON uses to exaggerate, and downtoners it must not use;
- `negators.txt`: negation cues and their kind; `conjunctions.tsv`: connectives and their relation;
- `antonyms.tsv`: curated antonyms for opinion words WordNet 3.0 cannot flip.

Every file is UTF-8, `#` starts a comment line, blank lines are ignored, and columns are TAB-separated. A file that
does not validate raises `DataError` naming `file:line`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType

from absa_checks.common.domains import DOMAINS
from absa_checks.common.errors import DataError
from absa_checks.sources.builtin import FIXTURES

BANK_POLARITIES: tuple[str, ...] = ("positive", "negative")
NEGATOR_KINDS: tuple[str, ...] = ("particle", "contraction", "determiner", "adverb", "preposition")
CONJUNCTION_RELATIONS: tuple[str, ...] = ("contrast", "addition")
ANTONYM_POS: tuple[str, ...] = ("a", "v", "r", "n")


@dataclass(frozen=True)
class BankEntry:
    """One ADDDIFF clause: `the service is painfully slow` about `service`, negative."""

    polarity: str
    aspect: str
    expression: str


@dataclass(frozen=True)
class WordLists:
    """Every word list; the mappings are read-only views."""

    aspect_banks: Mapping[str, tuple[BankEntry, ...]]
    degree_adverbs: tuple[str, ...]
    weakeners: tuple[str, ...]
    negators: Mapping[str, str]
    conjunctions: Mapping[str, str]
    antonyms: Mapping[tuple[str, str], str]

    def aspect_bank(self, domain: str) -> tuple[BankEntry, ...]:
        if domain not in self.aspect_banks:
            raise DataError(f"unknown domain {domain!r}; expected one of {', '.join(DOMAINS)}")
        return self.aspect_banks[domain]


def count_whole_words(term: str, text: str) -> int:
    """How often `term` occurs in `text` as whole words (case-insensitive): `fan` once in `the fan is loud`,
    never in `fans` or `fantastic`."""
    return len(re.findall(r"(?<!\w)" + re.escape(term) + r"(?!\w)", text, flags=re.IGNORECASE))


def _rows(name: str, columns: int) -> list[tuple[int, tuple[str, ...]]]:
    """(line number, fields) of every data line of fixtures/`name`, checking the number of TAB columns."""
    path = FIXTURES / name
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError(f"{path}: word list missing; reinstall absa-checks or restore the file") from None
    except UnicodeDecodeError as error:
        raise DataError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = tuple(field.strip() for field in line.split("\t"))
        if len(fields) != columns or not all(fields):
            raise DataError(f"{path}:{number}: expected {columns} non-empty TAB-separated column(s), got {line!r}")
        rows.append((number, fields))
    if not rows:
        raise DataError(f"{path}: no entries")
    return rows


def _where(name: str, number: int) -> str:
    return f"{FIXTURES / name}:{number}"


def _unique(name: str, rows: list[tuple[int, str]]) -> tuple[str, ...]:
    seen: dict[str, int] = {}
    for number, word in rows:
        if word in seen:
            raise DataError(f"{_where(name, number)}: {word!r} repeats line {seen[word]}")
        seen[word] = number
    return tuple(seen)


@cache
def load_aspect_bank(domain: str) -> tuple[BankEntry, ...]:
    """The ADDDIFF clauses of `domain` ("restaurant" or "laptop"), in file order."""
    if domain not in DOMAINS:
        raise DataError(f"unknown domain {domain!r}; expected one of {', '.join(DOMAINS)}")
    name = f"{domain}.aspect_bank.tsv"
    entries = []
    seen: dict[str, int] = {}
    for number, (polarity, aspect, expression) in _rows(name, 3):
        if polarity not in BANK_POLARITIES:
            raise DataError(f"{_where(name, number)}: polarity {polarity!r} is not one of {', '.join(BANK_POLARITIES)}")
        found = count_whole_words(aspect, expression)
        if found != 1:
            raise DataError(f"{_where(name, number)}: aspect {aspect!r} occurs {found} times as whole words in "
                            f"{expression!r}; it must occur exactly once")
        if expression in seen:
            raise DataError(f"{_where(name, number)}: expression {expression!r} repeats line {seen[expression]}")
        seen[expression] = number
        entries.append(BankEntry(polarity, aspect, expression))
    return tuple(entries)


@cache
def load_degree_adverbs() -> tuple[str, ...]:
    """Intensifiers (extremely, really, ...), in file order; checked to share nothing with the weakeners."""
    name = "degree_adverbs.txt"
    rows = [(number, word.lower()) for number, (word,) in _rows(name, 1)]
    weak = set(load_weakeners())
    for number, word in rows:
        if word in weak:
            raise DataError(f"{_where(name, number)}: {word!r} weakens; it belongs in weakeners.txt only")
    return _unique(name, rows)


@cache
def load_weakeners() -> tuple[str, ...]:
    """Downtoners (barely, slightly, a bit, ...), in file order."""
    name = "weakeners.txt"
    return _unique(name, [(number, word.lower()) for number, (word,) in _rows(name, 1)])


def _mapping(name: str, allowed: tuple[str, ...], what: str) -> dict[str, str]:
    result: dict[str, str] = {}
    for number, (word, value) in _rows(name, 2):
        if value not in allowed:
            raise DataError(f"{_where(name, number)}: {what} {value!r} is not one of {', '.join(allowed)}")
        key = word.lower()
        if key in result:
            raise DataError(f"{_where(name, number)}: {word!r} is listed twice")
        result[key] = value
    return result


@cache
def _negators() -> dict[str, str]:
    return _mapping("negators.txt", NEGATOR_KINDS, "kind")


def load_negators() -> dict[str, str]:
    """Negation cue -> kind (particle, contraction, determiner, adverb, preposition). A fresh dict each call."""
    return dict(_negators())


@cache
def _conjunctions() -> dict[str, str]:
    return _mapping("conjunctions.tsv", CONJUNCTION_RELATIONS, "relation")


def load_conjunctions() -> dict[str, str]:
    """Connective -> relation (contrast or addition). A fresh dict each call."""
    return dict(_conjunctions())


@cache
def _antonyms() -> dict[tuple[str, str], str]:
    name = "antonyms.tsv"
    result: dict[tuple[str, str], str] = {}
    for number, (word, pos, antonym) in _rows(name, 3):
        if pos not in ANTONYM_POS:
            raise DataError(f"{_where(name, number)}: pos {pos!r} is not one of {', '.join(ANTONYM_POS)}")
        if word.lower() == antonym.lower():
            raise DataError(f"{_where(name, number)}: {word!r} is its own antonym")
        key = (word.lower(), pos)
        if key in result:
            raise DataError(f"{_where(name, number)}: {word!r} ({pos}) is listed twice")
        result[key] = antonym
    return result


def load_antonyms() -> dict[tuple[str, str], str]:
    """(word, pos) -> antonym, pos in a/v/r/n. A fresh dict each call."""
    return dict(_antonyms())


def load_wordlists() -> WordLists:
    """Every list, validated, bundled behind read-only mappings."""
    return WordLists(
        aspect_banks=MappingProxyType({domain: load_aspect_bank(domain) for domain in DOMAINS}),
        degree_adverbs=load_degree_adverbs(),
        weakeners=load_weakeners(),
        negators=MappingProxyType(load_negators()),
        conjunctions=MappingProxyType(load_conjunctions()),
        antonyms=MappingProxyType(load_antonyms()),
    )
