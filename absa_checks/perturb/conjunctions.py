"""Keep the conjunction between two aspects' clauses in line with their (new) polarities.

"good, and the decor is nasty" -> "good, but the decor is nasty" when the two now differ;
"great, but the staff is rude" -> "great, and the staff is friendly" when they now agree.
A subordinating contrast after a comma becomes "and" as well ("warm, though the soup was hearty"
-> "warm, and the soup was hearty"); one that opens the sentence ("Although the food was great,
...") cannot be rewritten simply, so that variant is rejected rather than shipped contradictory.
"""

from __future__ import annotations

from absa_checks.common.examples import Edit, Example
from absa_checks.common.labels import POLAR
from absa_checks.perturb.inflect import match_case
from absa_checks.perturb.sentence import TaggedSentence

ADDITIVE = frozenset({"and"})
SWAPPABLE_CONTRAST = frozenset({"but", "yet"})
SUBORDINATE_CONTRAST = frozenset({"although", "though", "whereas", "while"})
FIXED_CONTRAST = SUBORDINATE_CONTRAST | frozenset({"however", "except"})


def regions(example: Example) -> list[tuple[int, int, int]]:
    """(start, end, aspect index) of each aspect with its opinions, in sentence order."""
    aspects = [example.target, *example.others]
    result = []
    for index, aspect in enumerate(aspects):
        mine = [o for o in example.opinions if o.aspect == index]
        start = min([aspect.start] + [o.start for o in mine])
        end = max([aspect.end] + [o.end for o in mine])
        result.append((start, end, index))
    return sorted(result)


def adjust(example: Example, sentence: TaggedSentence, new_polarity: dict[int, str]) -> list[Edit] | str:
    """Edits to the conjunctions next to the aspects whose polarity changed, or a rejection reason."""
    aspects = [example.target, *example.others]
    old = {i: a.polarity for i, a in enumerate(aspects)}
    new = {**old, **new_polarity}
    edits: list[Edit] = []
    ordered = regions(example)
    for (a_start, a_end, a), (b_start, b_end, b) in zip(ordered, ordered[1:]):
        if a_end > b_start or (a not in new_polarity and b not in new_polarity):
            continue
        if not all(p in POLAR for p in (old[a], old[b], new[a], new[b])):
            continue
        agreed, agrees = old[a] == old[b], new[a] == new[b]
        if agreed == agrees:
            continue
        gap = [t for t in sentence.tokens if t.start >= a_end and t.end <= b_start]
        conjunctions = [t for t in gap if t.lower in ADDITIVE | SWAPPABLE_CONTRAST | FIXED_CONTRAST]
        opener = _opening_contrast(sentence, a_start)
        if agrees and not conjunctions and opener is not None and any(t.text in (",", ";") for t in gap):
            # "Although the food was great, the service was slow": the contrast opens the sentence
            return f"'{opener.text}' opening the sentence before '{aspects[a].term}' and '{aspects[b].term}'"
        if len(conjunctions) != 1:
            continue  # no single conjunction joins them (a list, a new sentence): nothing to fix
        word = conjunctions[0]
        if not _joins_clauses(sentence, a_start, word, b_end):
            continue  # "the service and food is", "a rude manager and a rude bartender": not two clauses
        if agrees and word.lower in SUBORDINATE_CONTRAST and _after_comma(sentence, word):
            first = _even_before(sentence, word) or word  # "even though" / "even if" go as a whole
            edits.append(Edit(first.start, word.end, sentence.text[first.start:word.end], "and",
                              "conjunction now agrees"))
        elif agrees and word.lower in FIXED_CONTRAST:
            return f"'{word.text}' between '{aspects[a].term}' and '{aspects[b].term}'"
        elif agrees and word.lower in SWAPPABLE_CONTRAST:
            edits.append(Edit(word.start, word.end, word.text, match_case(word.text, "and"), "conjunction now agrees"))
        elif not agrees and word.lower in ADDITIVE and not _other_but(sentence, word):
            # "and" between clauses that differ is fine English; a second "but" would stutter
            edits.append(Edit(word.start, word.end, word.text, match_case(word.text, "but"), "conjunction now contrasts"))
    return edits


def _after_comma(sentence: TaggedSentence, word) -> bool:
    before = [t for t in sentence.tokens if t.end <= word.start]
    if before and before[-1].lower == "even":
        before = before[:-1]
    return bool(before) and before[-1].text in (",", ";")


def _even_before(sentence: TaggedSentence, word):
    before = [t for t in sentence.tokens if t.end <= word.start]
    return before[-1] if before and before[-1].lower == "even" else None


def _joins_clauses(sentence: TaggedSentence, left_start: int, word, right_end: int) -> bool:
    """A comma before the conjunction, or a verb on each side of it within the two aspects' stretch."""
    if _after_comma(sentence, word):
        return True
    left = [t for t in sentence.tokens if left_start <= t.start and t.end <= word.start]
    right = [t for t in sentence.tokens if word.end <= t.start and t.end <= right_end]
    def has_verb(tokens: list) -> bool:
        return any(t.tag.startswith(("VB", "MD")) for t in tokens)

    return has_verb(left) and has_verb(right)


def _opening_contrast(sentence: TaggedSentence, before: int):
    """A subordinating contrast ("Although", "Even though") that opens the sentence before `before`."""
    words = [t for t in sentence.tokens if t.text not in "\"'(["]
    if words and words[0].lower == "even" and len(words) > 1:
        words = words[1:]
    if words and words[0].lower in SUBORDINATE_CONTRAST and words[0].end <= before:
        return words[0]
    return None


def _other_but(sentence: TaggedSentence, word) -> bool:
    return any(t.lower == "but" and t.start != word.start for t in sentence.tokens)
