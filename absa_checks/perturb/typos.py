"""TYPOS: k words outside the aspect terms get one typing slip each (two neighbouring letters swapped, a
letter dropped or a letter doubled), chosen by the unit's seeded random generator. The prediction must
not change.

Never touched: an aspect term (the target's or another's); the target's opinion words (its annotated or
inferred opinion spans; where it has none, every clearly evaluative word, by the VADER valence floor of the
context checks): a typo there would test a misspelt sentiment word, not a misspelt sentence; a negation
("not", "never", "no", "without", "cannot", any word with "n't": the negators list), a word with an
apostrophe, digits. A slip that makes
another word ("slow" -> "low", "now" -> "no", "good" -> "god") is never used: the sentence would say
something else.
"""

from __future__ import annotations

import random
from functools import cache

from absa_checks.common.examples import Edit, Example
from absa_checks.perturb.context import NOT_SENTIMENT
from absa_checks.perturb.polarity import Polarity
from absa_checks.perturb.strategies import NotApplicable, Rejected, Step, StepContext
from absa_checks.perturb.surface import WORD, words_outside_aspects
from absa_checks.perturb.wordlists import load_negators
from absa_checks.sources.infer import MIN_VALENCE

MIN_LENGTH = 3  # a slip in "a" or "is" leaves too little to read
NOTHING_TO_MISSPELL = "no word outside the aspect terms, the target's opinion words and negations to misspell"
TOO_FEW = "fewer words to misspell than k"


@cache
def _negations() -> frozenset[str]:
    return frozenset(word for word in load_negators() if " " not in word)


@cache
def _pattern_lexicon():
    from textblob.en import lexicon  # the tagger's own word list (94,000 forms, function words included)

    return lexicon


def is_word(text: str, wordnet) -> bool:
    """An English word: the tagger's lexicon or WordNet knows it, or it is a negation."""
    lower = text.lower()
    return (lower in _negations() or lower in _pattern_lexicon() or text in _pattern_lexicon()
            or bool(wordnet.synsets(lower)))


def slips(word: str) -> list[tuple[str, str]]:
    """Every single slip of `word` that changes it: (how, the misspelt word)."""
    found = [(f"swap {word[i:i + 2]!r}", word[:i] + word[i + 1] + word[i] + word[i + 2:])
             for i in range(len(word) - 1) if word[i].lower() != word[i + 1].lower()]
    found += [(f"drop {word[i]!r}", word[:i] + word[i + 1:]) for i in range(len(word))
              if i == 0 or word[i].lower() != word[i - 1].lower()]  # dropping either of "ll" is one slip
    found += [(f"double {word[i]!r}", word[:i + 1] + word[i:]) for i in range(len(word))]
    if word[:1].isupper() and word[1:].islower():  # a capitalised word stays so: "Cons" -> "Ocns", not "oCns"
        found = [(how, new[:1].upper() + new[1:].lower()) for how, new in found]
    return [(how, new) for how, new in found if new.lower() != word.lower()]


def misspell(word: str, rng: random.Random, wordnet) -> tuple[str, str] | None:
    """One slip of `word`, drawn with `rng`, that makes no other word; None when every slip does."""
    options = slips(word)
    rng.shuffle(options)
    return next(((how, new) for how, new in options if not is_word(new, wordnet)), None)


def opinion_spans(example: Example, polarity: Polarity) -> tuple[tuple[int, int], ...]:
    """Where the words that carry the target's sentiment are: its opinion spans (annotated, or inferred by
    the source); where it has none, every word whose VADER valence reaches MIN_VALENCE."""
    mine = tuple((o.start, o.end) for o in example.opinions if o.aspect == 0)
    if mine:
        return mine
    return tuple((m.start(), m.end()) for m in WORD.finditer(example.sentence)
                 if m.group().lower() not in NOT_SENTIMENT and abs(polarity.valence(m.group().lower())) >= MIN_VALENCE)


def typos_step(example: Example, context: StepContext) -> Step | NotApplicable | Rejected:
    k = context.params.get("k") or 1
    opinions = opinion_spans(example, context.resources.polarity)
    words = [m for m in words_outside_aspects(example) if len(m.group()) >= MIN_LENGTH
             and "'" not in m.group() and "’" not in m.group() and m.group().lower() not in _negations()
             and not any(m.start() < end and start < m.end() for start, end in opinions)]
    if not words:
        return NotApplicable(NOTHING_TO_MISSPELL)
    if len(words) < k:
        return NotApplicable(TOO_FEW)
    context.rng.shuffle(words)
    edits: list[Edit] = []
    wordnet = context.resources.finder.wordnet
    for match in words:
        slip = misspell(match.group(), context.rng, wordnet)
        if slip is not None:
            edits.append(Edit(match.start(), match.end(), match.group(), slip[1], f"typo: {slip[0]}"))
        if len(edits) == k:
            return Step("typos", tuple(sorted(edits, key=lambda e: e.start)))
    return NotApplicable(TOO_FEW if edits else NOTHING_TO_MISSPELL)
