"""Lexicons for template tests: aspect terms per category, opinion words per polarity and category, and
plain word lists (docs/suites.md, "Templates").

A built-in lexicon per domain lives in `absa_checks/fixtures/lexicons/<domain>.yaml`; a suite's top-level
`lexicons:` (the same shape) is merged over it: lists are extended, never replaced. Reading is pure apart
from the file read; every error names the file and line (absa_checks.common.yaml_lines).
"""

from __future__ import annotations

import difflib
import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from absa_checks.common.errors import SpecError
from absa_checks.common.labels import POLARITIES
from absa_checks.common.yaml_lines import LocatedYaml, decode, load_located

LEXICON_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "lexicons"
LEXICON_KEYS = ("domain", "aspects", "opinions", "words")
TERM_KEYS = ("term", "plural")
ALL = "all"  # opinions that fit any category


@dataclass(frozen=True)
class Term:
    """An aspect term of a category; `plural` decides the agreement ({a1.was} -> were)."""

    text: str
    category: str
    plural: bool = False


@dataclass(frozen=True)
class Lexicon:
    """Aspect terms by category, opinion words by polarity then category ("all" fits any), word lists by name.
    `files` are the lexicon files read, as (shown path, sha256) (part of the run's fingerprint)."""

    domain: str | None
    aspects: tuple[tuple[str, tuple[Term, ...]], ...] = ()
    opinions: tuple[tuple[str, tuple[tuple[str, tuple[str, ...]], ...]], ...] = ()
    words: tuple[tuple[str, tuple[str, ...]], ...] = ()
    files: tuple[tuple[str, str], ...] = ()

    def categories(self) -> tuple[str, ...]:
        return tuple(category for category, _ in self.aspects)

    def terms(self, category: str) -> tuple[Term, ...]:
        return dict(self.aspects).get(category, ())

    def opinion_words(self, polarity: str, category: str | None) -> tuple[str, ...]:
        """The words of `polarity` that fit `category` (its own and the "all" ones); None: the "all" ones."""
        by_category = dict(dict(self.opinions).get(polarity, ()))
        own = by_category.get(category, ()) if category is not None else ()
        return _unique(own + by_category.get(ALL, ()))

    def word_list(self, name: str) -> tuple[str, ...]:
        return dict(self.words).get(name, ())


def _unique(items: tuple) -> tuple:
    return tuple(dict.fromkeys(items))


def builtin_path(domain: str) -> Path:
    return LEXICON_DIR / f"{domain}.yaml"


def load_builtin(domain: str) -> Lexicon | None:
    """The built-in lexicon of `domain`, or None when the project ships none for it."""
    path = builtin_path(domain)
    if not path.is_file():
        return None
    raw = path.read_bytes()
    shown = f"absa_checks/fixtures/lexicons/{path.name}"
    located = load_located(decode(raw, shown), shown)
    found = parse_lexicon(_Fail(shown, located), located.data, (), Lexicon(domain))
    return Lexicon(found.domain or domain, found.aspects, found.opinions, found.words,
                   ((shown, hashlib.sha256(raw).hexdigest()),))


class _Fail:
    """The smallest checker parse_lexicon needs (spec.py passes its own, with the suite's lines)."""

    def __init__(self, path: str, located: LocatedYaml):
        self.path = path
        self.located = located

    def fail(self, at: tuple, message: str) -> SpecError:
        return SpecError(self.path, self.located.line(at), message)


def parse_lexicon(check: Any, raw: Any, at: tuple, base: Lexicon, whole: bool = True) -> Lexicon:
    """`raw` (a lexicon mapping at `at` of `check`'s file) merged over `base`: lists extended, never replaced.
    `check.fail(at, message)` makes the SpecError naming file and line. `whole` False checks the shape only
    (a suite's lexicon before it is known which built-in one it extends)."""
    where = ".".join(str(p) for p in at) or "the lexicon"
    if not isinstance(raw, dict):
        raise check.fail(at, f"'{where}' must be a mapping with {', '.join(LEXICON_KEYS)}")
    _keys(check, raw, at, LEXICON_KEYS, where)
    domain = raw.get("domain", base.domain)
    if domain is not None and not isinstance(domain, str):
        raise check.fail(at + ("domain",), f"'{where}.domain' must be a domain name, e.g. restaurant")
    aspects = {category: list(terms) for category, terms in base.aspects}
    for category, items in _mapping(check, raw.get("aspects", {}), at + ("aspects",)).items():
        c_at = at + ("aspects", category)
        if category == ALL:
            raise check.fail(c_at, f"'{ALL}' is not an aspect category: under 'opinions' it means words that fit any "
                                   "category; name the category (food, battery, ...)")
        terms = aspects.setdefault(str(category), [])
        known = {t.text for t in terms}
        for i, item in enumerate(_list(check, items, c_at)):
            term = _term(check, item, c_at + (i,), str(category))
            if term.text not in known:
                terms.append(term)
                known.add(term.text)
    categories = tuple(aspects)
    opinions = {polarity: {c: list(ws) for c, ws in by_category} for polarity, by_category in base.opinions}
    for polarity, by_category in _mapping(check, raw.get("opinions", {}), at + ("opinions",)).items():
        p_at = at + ("opinions", polarity)
        if polarity not in POLARITIES:
            hint = difflib.get_close_matches(str(polarity), POLARITIES, n=1)
            fix = f"did you mean '{hint[0]}'?" if hint else f"use {', '.join(POLARITIES)}"
            raise check.fail(p_at, f"opinion polarity '{polarity}' is not one of {', '.join(POLARITIES)}; {fix}")
        mine = opinions.setdefault(polarity, {})
        for category, words in _mapping(check, by_category, p_at).items():
            if whole and category != ALL and category not in categories:
                hint = difflib.get_close_matches(str(category), categories, n=1)
                fix = f"did you mean '{hint[0]}'?" if hint else \
                    f"use an aspect category ({', '.join(categories) or 'none defined yet'}) or '{ALL}'"
                raise check.fail(p_at + (category,), f"opinion category '{category}' is no aspect category of this "
                                                     f"lexicon; {fix}")
            _extend(mine.setdefault(str(category), []), _strings(check, words, p_at + (category,)))
    if whole:
        _check_polarities(check, opinions, raw.get("opinions") or {}, at + ("opinions",))
    words_now = {name: list(ws) for name, ws in base.words}
    for name, items in _mapping(check, raw.get("words", {}), at + ("words",)).items():
        _extend(words_now.setdefault(str(name), []), _strings(check, items, at + ("words", name)))
    return Lexicon(domain, tuple((c, tuple(ts)) for c, ts in aspects.items()),
                   tuple((p, tuple((c, tuple(ws)) for c, ws in by_c.items())) for p, by_c in opinions.items()),
                   tuple((n, tuple(ws)) for n, ws in words_now.items()), base.files)


def _check_polarities(check: Any, opinions: dict[str, dict[str, list[str]]], raw: Any, at: tuple) -> None:
    """A word that fits one category under two polarities would make its gold depend on the draw: refused,
    blaming the entry of `raw` that lists it (the built-in lexicon was checked the same way when read)."""
    raw = raw if isinstance(raw, dict) else {}
    categories = {category for by_category in opinions.values() for category in by_category}
    for category in sorted(categories | {ALL}):
        owner: dict[str, tuple[str, str]] = {}  # word -> (polarity, the list it is in)
        for polarity, by_category in opinions.items():
            for listed in dict.fromkeys((category, ALL)):
                for word in by_category.get(listed, ()):
                    first = owner.setdefault(word.lower(), (polarity, listed))
                    if first[0] == polarity:
                        continue
                    mine = (polarity, listed)
                    blame = mine if listed in (raw.get(polarity) or {}) else first
                    raise check.fail(at + blame, f"'{word}' is {first[0]} (opinions.{first[0]}.{first[1]}) and "
                                                 f"{polarity} (opinions.{polarity}.{listed}) for the same category, "
                                                 "so a sentence with it would have no single gold label: keep it "
                                                 "under one polarity")


def _extend(into: list[str], words: tuple[str, ...]) -> None:
    for word in words:
        if word not in into:
            into.append(word)


def _keys(check: Any, raw: dict, at: tuple, allowed: tuple[str, ...], where: str) -> None:
    for key in raw:
        if key not in allowed:
            hint = difflib.get_close_matches(str(key), allowed, n=1)
            fix = f"did you mean '{hint[0]}'?" if hint else f"allowed keys: {', '.join(allowed)}"
            raise check.fail(at + (key,), f"unknown key '{key}' in '{where}'; {fix}")


def _mapping(check: Any, raw: Any, at: tuple) -> dict:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise check.fail(at, f"'{'.'.join(map(str, at))}' must be a mapping (name: [words])")
    return raw


def _list(check: Any, raw: Any, at: tuple) -> list:
    if not isinstance(raw, list) or not raw:
        raise check.fail(at, f"'{'.'.join(map(str, at))}' must be a non-empty list of words (an empty lexicon list "
                             "fills nothing: give words, or remove the entry)")
    return raw


def _strings(check: Any, raw: Any, at: tuple) -> tuple[str, ...]:
    found = []
    for i, item in enumerate(_list(check, raw, at)):
        if not isinstance(item, str) or not item.strip():
            raise check.fail(at + (i,), f"'{'.'.join(map(str, at + (i,)))}' must be a word, got {item!r}")
        found.append(item.strip())
    return tuple(found)


def _term(check: Any, raw: Any, at: tuple, category: str) -> Term:
    if isinstance(raw, str) and raw.strip():
        return Term(raw.strip(), category)
    if isinstance(raw, dict):
        _keys(check, raw, at, TERM_KEYS, ".".join(map(str, at)))
        text, plural = raw.get("term"), raw.get("plural", False)
        if isinstance(text, str) and text.strip() and isinstance(plural, bool):
            return Term(text.strip(), category, plural)
    raise check.fail(at, f"'{'.'.join(map(str, at))}' must be a term (pasta) or {{term: fries, plural: true}}, "
                         f"got {raw!r}")
