"""Examples written by hand: a suite's own sources (`sources: {name: {examples: [...]}}` or `{file: ...}`) and
examples files, parsed and validated into InlineSourceSpec (pure but for reading the files they name). Every
error names the file, the line and the key; the format is in docs/suites.md.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from absa_checks.common import inputs
from absa_checks.common.domains import DOMAINS
from absa_checks.common.errors import SpecError
from absa_checks.common.examples import term_starts
from absa_checks.common.labels import POLARITIES
from absa_checks.common.yaml_lines import decode, load_located
from absa_checks.suites import strategies
from absa_checks.suites.yaml_checks import Checker, kind_of, strategy_name

SOURCE_KEYS = ("examples", "file", "domain")
EXAMPLE_KEYS = ("id", "sentence", "aspect", "span", "polarity", "opinions", "aspects", "variants")
OTHER_ASPECT_KEYS = ("term", "polarity", "span", "opinions")
OPINION_KEYS = ("text", "span")
VARIANT_KEYS = ("sentence", "polarity", "span")


@dataclass(frozen=True)
class InlineVariantSpec:
    strategy: str
    sentence: str
    polarity: str | None
    span: tuple[int, int] | None
    line: int


@dataclass(frozen=True)
class InlineExampleSpec:
    example_id: str | None
    sentence: str
    aspect: str
    span: tuple[int, int] | None
    polarity: str
    others: tuple[tuple[str, str | None, tuple[int, int] | None], ...]  # (term, polarity, span)
    variants: tuple[InlineVariantSpec, ...]
    line: int
    # (aspect index: 0 the target, i the i-th of `others`; text; start), or None when the example gives
    # none, and they are inferred
    opinions: tuple[tuple[int, str, int], ...] | None = None


@dataclass(frozen=True)
class InlineSourceSpec:
    name: str
    path: str  # the file the examples were written in
    examples: tuple[InlineExampleSpec, ...]
    # where the suite defines it ("suites/a.yaml:4"), and what it is: the examples' file, resolved. Two
    # definitions of one name in a run are one source only when they read the same file (items.py checks)
    defined_at: str = ""
    identity: str = ""
    file_sha256: str = ""  # an examples file (`file:`): the sha256 of its bytes, as shown (part of the run's fingerprint)
    file_shown: str = ""
    domain: str | None = None  # `domain: restaurant`: checkpoints of other domains leave it out (absa_checks.common.domains)


def parse_inline_sources(check: Checker, raw: Any, suite: Path, shown: str) -> dict[str, InlineSourceSpec]:
    base_dir = suite.parent
    if isinstance(raw, list):
        raise check.fail(("sources",), "the top-level 'sources' names this file's own example sources "
                                       "(name: {examples: [...]} or name: {file: ...}); to run every test "
                                       "over the same sources, put the list under 'defaults:' instead")
    sources = check.mapping(raw, ("sources",), tuple(raw) if isinstance(raw, dict) else ())
    bare = check.located.not_a_name(("sources",), "the source name")  # `yes:` is YAML's true, `null:` nothing
    if bare is not None:
        raise SpecError(shown, bare[0], bare[1])
    result = {}
    for name, body in sources.items():
        at = ("sources", name)
        body = check.mapping(body, at, SOURCE_KEYS)
        if ("examples" in body) == ("file" in body):
            raise check.fail(at, f"source '{name}' needs exactly one of 'examples' (a list written here) "
                                 "or 'file' (a path to an examples file)")
        defined_at = f"{shown}:{check.located.line(at)}"
        domain = check.choice(body["domain"], at + ("domain",), DOMAINS) if "domain" in body else None
        if "file" in body:
            file = check.string(body["file"], at + ("file",))
            found = parse_examples_file(base_dir / file, name, shown, check.located.line(at + ("file",)),
                                        display_path=os.path.normpath(os.path.join(os.path.dirname(shown), file)))
            result[name] = replace(found, defined_at=defined_at, domain=domain)
        else:
            result[name] = InlineSourceSpec(name, shown, _parse_examples(check, body["examples"], at + ("examples",)),
                                            defined_at, str(suite.resolve()), domain=domain)
    return result


def parse_examples_file(path: Path, source_name: str, referenced_from: str = "", line: int | None = None,
                        display_path: str | None = None) -> InlineSourceSpec:
    """An examples file holds `examples: [...]` in the same form as inline examples.

    Errors name the file as `display_path` (default: `path`); `referenced_from` and `line` are the
    suite file and line that name it, blamed when the file cannot be read.
    """
    path = Path(path)
    shown = display_path or str(path)
    try:
        data = inputs.read_bytes(path)
    except OSError as err:
        problem = "not found" if isinstance(err, FileNotFoundError) else f"cannot be read ({err.strerror})"
        raise SpecError(referenced_from or shown, line if referenced_from else None,
                        f"examples file '{shown}' {problem}; the path in 'file:' is relative to the "
                        "suite file") from None
    located = load_located(decode(data, shown), shown)
    if located.data is None:
        raise SpecError(shown, 1, "the examples file is empty; it needs an 'examples:' list")
    check = Checker(shown, located)
    top = check.mapping(located.data, (), ("examples",))
    if "examples" not in top:
        raise check.fail((), "an examples file needs an 'examples:' list")
    return InlineSourceSpec(source_name, str(path), _parse_examples(check, top["examples"], ("examples",)),
                            shown, str(path.resolve()), hashlib.sha256(data).hexdigest(), shown)


def _parse_examples(check: Checker, raw: Any, at: tuple) -> tuple[InlineExampleSpec, ...]:
    if not isinstance(raw, list) or not raw:
        raise check.fail(at, f"'{check.name(at)}' must be a non-empty list of examples (each starting with "
                             f"'- sentence:'), got {kind_of(raw)}")
    examples = []
    ids: dict[str, int] = {}
    unnamed: dict[tuple[str, str], int] = {}  # an example without an id is its unit by sentence and aspect
    for i, item in enumerate(raw):
        example = _parse_example(check, item, at + (i,))
        if example.example_id is not None:
            if example.example_id in ids:
                raise check.fail(at + (i, "id"), f"example id '{example.example_id}' is used twice (first on line "
                                                 f"{ids[example.example_id]}); give each example its own id")
            ids[example.example_id] = check.located.line(at + (i, "id")) or example.line
        else:
            key = (example.sentence, example.aspect)
            if key in unnamed:
                raise check.fail(at + (i,), f"this example has the sentence and aspect of the one on line "
                                            f"{unnamed[key]} and neither has an id, so they would be one unit (its "
                                            "cases mixed): give each an 'id', or keep one")
            unnamed[key] = example.line
        examples.append(example)
    return tuple(examples)


def _parse_example(check: Checker, raw: Any, at: tuple) -> InlineExampleSpec:
    item = check.mapping(raw, at, EXAMPLE_KEYS)
    for key in ("sentence", "aspect", "polarity"):
        if key not in item:
            raise check.fail(at, f"an example needs '{key}'")
    sentence = check.string(item["sentence"], at + ("sentence",))
    aspect = check.string(item["aspect"], at + ("aspect",))
    polarity = check.choice(item["polarity"], at + ("polarity",), POLARITIES)
    span = check.span(item["span"], at + ("span",), sentence) if "span" in item else None
    _check_term(check, sentence, aspect, span, at, at + ("aspect",))
    opinions = _parse_opinions(check, item, at, sentence, 0)
    others = []
    raw_others = item.get("aspects") or []
    if not isinstance(raw_others, list):
        raise check.fail(at + ("aspects",), f"'{check.name(at + ('aspects',))}' must be a list of the other "
                                            "aspects, e.g. [{term: fries, polarity: negative}], "
                                            f"got {kind_of(raw_others)}")
    for j, other in enumerate(raw_others):
        o_at = at + ("aspects", j)
        other = check.mapping(other, o_at, OTHER_ASPECT_KEYS)
        if "term" not in other:
            raise check.fail(o_at, "an aspect needs 'term'")
        term = check.string(other["term"], o_at + ("term",))
        o_pol = check.choice(other["polarity"], o_at + ("polarity",), POLARITIES) if "polarity" in other else None
        o_span = check.span(other["span"], o_at + ("span",), sentence) if "span" in other else None
        _check_term(check, sentence, term, o_span, o_at, o_at + ("term",))
        others.append((term, o_pol, o_span))
        opinions += _parse_opinions(check, other, o_at, sentence, j + 1)
    variants = []
    raw_variants = check.mapping(item.get("variants") or {}, at + ("variants",),
                                 tuple(item["variants"]) if isinstance(item.get("variants"), dict) else ())
    for strategy, body in raw_variants.items():
        v_at = at + ("variants", strategy)
        if not strategies.is_known(str(strategy)):
            hint = difflib.get_close_matches(str(strategy), tuple(strategies.registry()), n=1)
            fix = f"did you mean '{hint[0]}'?" if hint else f"use one of: {', '.join(strategies.registry())}"
            raise check.fail(v_at, f"unknown strategy '{strategy}' under 'variants'; {fix}")
        for k, one in enumerate(body if isinstance(body, list) else [body]):
            one_at = v_at + (k,) if isinstance(body, list) else v_at
            raw_one = one
            if isinstance(one, str):
                one = {"sentence": one}
            one = check.mapping(one, one_at, VARIANT_KEYS)
            if "sentence" not in one:
                raise check.fail(one_at, "a variant needs 'sentence'")
            v_sentence = check.string(one["sentence"], one_at + ("sentence",))
            v_span = check.span(one["span"], one_at + ("span",), v_sentence) if "span" in one else None
            if " ".join(v_sentence.split()) == " ".join(sentence.split()):  # nothing to flip or to keep
                raise check.fail(one_at + ("sentence",) if isinstance(raw_one, dict) else one_at,
                                 f"'{check.name(v_at)}': this {strategy} variant is the example's sentence "
                                 "unchanged, so it tests nothing (a model would be blamed, or pass, for a sentence "
                                 "that did not change): write the changed sentence, or remove the variant")
            _check_term(check, v_sentence, aspect, v_span, one_at, one_at, variant=True)
            v_pol = check.choice(one["polarity"], one_at + ("polarity",), POLARITIES) if "polarity" in one else None
            variants.append(InlineVariantSpec(strategy_name(check, str(strategy), v_at), v_sentence, v_pol, v_span,
                                              check.located.line(one_at) or 0))
    example_id = None
    if "id" in item:
        if isinstance(item["id"], bool) or not isinstance(item["id"], (str, int)) or not str(item["id"]).strip():
            raise check.fail(at + ("id",), f"'{check.name(at + ('id',))}' must be a non-empty name or number, "
                                           f"got {kind_of(item['id'])}")
        example_id = str(item["id"])
    given_opinions = "opinions" in item or any(isinstance(o, dict) and "opinions" in o for o in raw_others)
    return InlineExampleSpec(example_id, sentence, aspect, span, polarity, tuple(others), tuple(variants),
                             check.located.line(at) or 0, tuple(opinions) if given_opinions else None)


def _parse_opinions(check: Checker, item: dict, at: tuple, sentence: str, aspect: int) -> list[tuple[int, str, int]]:
    """An aspect's `opinions`: its opinion words, each a string that occurs once in the sentence as whole
    words, or {text, span}; [] (no opinion words: REVTGT/REVNON leave it alone) is allowed."""
    if "opinions" not in item:
        return []
    raw, list_at = item["opinions"], at + ("opinions",)
    if not isinstance(raw, list):
        raise check.fail(list_at, f"'{check.name(list_at)}' must be a list of the aspect's opinion words as they "
                                  f"appear in the sentence, e.g. [delicious] or [\"not worth\"], got {kind_of(raw)}")
    found = []
    for k, one in enumerate(raw):
        one_at = list_at + (k,)
        one = {"text": one} if isinstance(one, str) else check.mapping(one, one_at, OPINION_KEYS)
        if "text" not in one:
            raise check.fail(one_at, "an opinion needs 'text'")
        text = check.string(one["text"], one_at + ("text",))
        span = check.span(one["span"], one_at + ("span",), sentence) if "span" in one else None
        if span is not None:
            if sentence[span[0]:span[1]] != text:
                raise check.fail(one_at + ("span",), f"'{check.name(one_at + ('span',))}' {list(span)} covers "
                                                     f"{sentence[span[0]:span[1]]!r}, not {text!r}")
            found.append((aspect, text, span[0]))
            continue
        starts = term_starts(sentence, text)
        if len(starts) != 1:
            problem = "does not occur as whole words" if not starts else f"occurs {len(starts)} times"
            fix = (unicode_forms(sentence, text, "opinion") if not starts else "") or (
                "write it exactly as in the sentence" + (", with 'span: [from, to]' to say which" if starts else ""))
            raise check.fail(one_at, f"'{check.name(one_at)}': the opinion {text!r} {problem} in {sentence!r}; {fix}")
        found.append((aspect, text, starts[0]))
    return found


def unicode_forms(sentence: str, term: str, what: str) -> str:
    """When `term` is in `sentence` only once both are in one Unicode form (NFC): which of the two writes an
    accented letter as two characters, and the fix; else "". The text is never normalised here: a sentence is
    given to the model as written, and its offsets count its characters."""
    if unicodedata.normalize("NFC", term) not in unicodedata.normalize("NFC", sentence):
        return ""
    decomposed, composed = ("sentence", what) if sentence != unicodedata.normalize("NFC", sentence) \
        else (what, "sentence")
    text = sentence if decomposed == "sentence" else term
    pair = next((text[i - 1:i + 1] for i in range(1, len(text)) if unicodedata.combining(text[i])), "")
    how = (f"writes {unicodedata.normalize('NFC', pair)!r} as {pair[0]!r} + the combining U+{ord(pair[1]):04X} "
           f"(decomposed, NFD), the {composed} as one character (NFC)") if pair else \
        f"is in another Unicode form than the {composed}"
    return (f"they differ only in Unicode normalisation: the {decomposed} {how}, so they print alike but do not "
            "match; write both in one form: save the file as NFC (composed), the usual")


def _check_term(check: Checker, sentence: str, term: str, span: tuple[int, int] | None, at: tuple,
                term_at: tuple, variant: bool = False) -> None:
    """`term` must be at `span` (under `at`), or occur exactly once in `sentence` as a word (blamed on `term_at`)."""
    anywhere = [i for i in range(len(sentence)) if sentence.startswith(term, i)]
    starts = term_starts(sentence, term) if span is None else anywhere
    found = " and ".join(f"[{i}, {i + len(term)}]" for i in starts)
    if span is not None:
        if sentence[span[0]:span[1]] != term:
            where = f"{term!r} is at {found}" if starts else f"{term!r} does not occur in the sentence"
            raise check.fail(at + ("span",), f"'{check.name(at + ('span',))}' {list(span)} covers "
                                             f"{sentence[span[0]:span[1]]!r}, not {term!r}; {where} "
                                             "(offsets count characters from 0, end excluded)")
        return
    if not starts and anywhere:
        word = re.search(rf"\w*{re.escape(term)}\w*", sentence)
        assert word is not None  # the term occurs (anywhere)
        inside = word.group()
        raise check.fail(term_at, f"'{check.name(term_at)}': {term!r} occurs only inside a longer word ({inside!r}) "
                                  f"in {sentence!r}; add 'span: [from, to]' if that is really the aspect")
    if not starts:
        fix = unicode_forms(sentence, term, "aspect") or (
            f"a variant must keep the aspect {term!r} verbatim" if variant
            else "the aspect must appear verbatim (same spelling and case)")
        raise check.fail(term_at, f"'{check.name(term_at)}': {term!r} does not occur in {sentence!r}; {fix}")
    if len(starts) > 1:
        how = ("write the variant as a mapping with 'sentence:' and 'span: [from, to]'" if variant
               else "add 'span: [from, to]'")
        raise check.fail(term_at, f"'{check.name(term_at)}': {term!r} occurs {len(starts)} times in {sentence!r} "
                                  f"(at {found}); {how} to say which")
