"""Checks every generated variant must pass; a variant that fails one is quarantined with the reason."""

from __future__ import annotations

import re

from absa_checks.common.examples import Edit, Example
from absa_checks.common.text import recases
from absa_checks.perturb.sentence import TaggedSentence

_DOUBLE_NEGATION = re.compile(
    r"(?i)\b(?:not|never|no)\s+(?:\w+\s+)?(?:not|never)\b|n't\s+(?:\w+\s+)?(?:not|never)\b|\bcannot\s+not\b")
_DO_SUPPORT = frozenset({"do", "does", "did"})


def problems(original: Example, variant: Example, edits: tuple[Edit, ...], edits_target: bool,
             tagged_original: TaggedSentence, tagged_variant: TaggedSentence, surface: bool = False
             ) -> list[tuple[str, str]]:
    """(reason, detail) for each way the variant is broken; empty when it is fine. `edits_target`: the
    strategy must change the target's opinion words (REVTGT), else it must not touch them; `surface`: the
    strategy changes only how words are written (typos, case, ...), so it may touch opinion words but no
    aspect term, save to recase a whole term (CASE: `common.text.recases`)."""
    found = []
    t = variant.target
    if variant.sentence[t.start:t.end] != t.term:
        found.append(("target span no longer matches the term", t.term))
    for other in variant.others:
        if variant.sentence[other.start:other.end] != other.term:
            found.append(("an aspect span no longer matches its term", other.term))
            break
    if variant.sentence == original.sentence:
        found.append(("nothing changed", ""))
    if surface:
        touched = [a.term for a in (original.target, *original.others)
                   if any(_touches(e, a.start, a.end) and not recases(e, a.start, a.end) for e in edits)]
        if touched:
            found.append(("an aspect term was edited", touched[0]))
    elif edits_target:
        mine = [o for o in original.opinions if o.aspect == 0]
        if not any(_near(e, o.start, o.end, reach_left=NEGATION_REACH) for o in mine for e in edits):
            found.append(("the target's opinion words did not change", ""))
    else:
        if any(_touches(e, original.target.start, original.target.end) for e in edits) or any(
                _touches(e, o.start, o.end) for o in original.opinions if o.aspect == 0 for e in edits):
            found.append(("the target or its opinion words were edited", ""))
    return found + language_problems(tagged_original, tagged_variant)


def language_problems(tagged_original: TaggedSentence, tagged_variant: TaggedSentence) -> list[tuple[str, str]]:
    """A double negation or a verb-agreement error that the variant has and the original had not."""
    found = []
    if len(_DOUBLE_NEGATION.findall(tagged_variant.text)) > len(_DOUBLE_NEGATION.findall(tagged_original.text)):
        found.append(("double negation", tagged_variant.text))
    new_errors = _agreement_errors(tagged_variant) - _agreement_errors(tagged_original)
    found.extend(("verb agreement", error) for error in sorted(new_errors))
    return found


def _touches(edit: Edit, start: int, end: int) -> bool:
    return edit.start < end and edit.end > start


NEGATION_REACH = 40  # characters: "is not [a truly personal] fave" negates the opinion from its copula


def _near(edit: Edit, start: int, end: int, reach_left: int = 0) -> bool:
    """The edit touches [start, end), or ends at most `reach_left` characters before it."""
    return edit.start <= end and edit.end >= start - reach_left


def _agreement_errors(sentence: TaggedSentence) -> set[str]:
    """Verb-form errors we can see: "does not slows", "did not liked", "rendering not slows"."""
    errors = set()
    tokens = sentence.tokens
    for i, token in enumerate(tokens):
        if token.lower not in ("not", "n't"):
            continue
        before = tokens[i - 1].lower if i > 0 else ""
        after = next((t for t in tokens[i + 1:i + 4] if not t.tag.startswith("RB")), None)
        if after is None:
            continue
        if before in _DO_SUPPORT and after.tag in ("VBZ", "VBD", "VBN", "VBG"):
            errors.add(f"{before} {token.text} {after.text}")
        elif (token.lower == "not" and i + 1 < len(tokens) and after is tokens[i + 1]
              and after.tag in ("VBZ", "VBD", "VBN") and before not in _DO_SUPPORT and tokens[i - 1].tag[:1] in "NP"):
            errors.add(f"{tokens[i - 1].text} not {after.text}")
    return errors
