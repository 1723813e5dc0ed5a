"""Tokens with character offsets, part-of-speech tags in context, and edits that remap spans.

Tokenisation follows the Penn Treebank for clitics ("doesn't" -> "does" + "n't", "it's" -> "it" + "'s")
because the tagger was trained that way; every token keeps its offsets in the sentence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from absa_checks.common.examples import Aspect, Edit, Example, Opinion

_TOKEN = re.compile(
    r"(?i)(?:ca|wo|sha|[a-z]+)(?=n't\b)|n't\b"      # doesn't -> does + n't, can't -> ca + n't
    r"|'(?:s|m|re|ve|ll|d)\b"                        # it's, I'm, we're, I've, we'll, I'd
    r"|\d+(?:[.,]\d+)*(?!\w)"                         # 3.5, 1,000 (not 3D)
    r"|\w+(?:[-.]\w+|'(?!(?:s|m|re|ve|ll|d)\b)\w+)*"  # words, hyphenated, o'clock (not it's)
    r"|[^\w\s]")                                     # punctuation, one char at a time

DO_FORMS = frozenset({"do", "does", "did"})
MODALS = frozenset({"can", "ca", "could", "will", "wo", "would", "shall", "sha", "should", "may", "might", "must"})
BE_FORMS = frozenset({"be", "is", "are", "was", "were", "am", "been", "being", "'s", "'re", "'m"})
HAVE_FORMS = frozenset({"has", "have", "had", "'ve", "'d"})
COPULAS = BE_FORMS | frozenset({"seem", "seems", "seemed", "look", "looks", "looked", "feel", "feels", "felt",
                                "sound", "sounds", "sounded", "taste", "tastes", "tasted", "smell", "smells",
                                "smelled", "stay", "stays", "stayed", "remain", "remains", "remained", "become",
                                "becomes", "became", "get", "gets", "got"})


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int
    tag: str = ""

    @property
    def lower(self) -> str:
        return self.text.lower()


def tokenize(sentence: str) -> list[Token]:
    return [Token(m.group(0), m.start(), m.end()) for m in _TOKEN.finditer(sentence)]


Tagger = Callable[[Sequence[str]], list[str]]


def pattern_tagger() -> Tagger:
    """TextBlob's pattern tagger: its lexicon ships inside the package, so it works offline."""
    from textblob.en import parser

    def tag(words: Sequence[str]) -> list[str]:
        return [t for _, t in parser.find_tags(list(words))] if words else []

    return tag


SUBJECT_PRONOUNS = frozenset({"i", "we", "you", "they", "he", "she", "it"})


def tag_tokens(sentence: str, tagger: Tagger, is_verb: Callable[[str], bool],
               subject_ends: Sequence[int] = ()) -> list[Token]:
    """Tokens with Penn tags, repaired where the tagger ignores a verb's context.

    - After do-support, a modal or infinitival "to" (allowing "not"/"n't" and adverbs between),
      a word that can be a verb is a verb: pattern tags "slow" in "doesn't slow it" as JJ.
    - Right after a subject pronoun or an aspect term (`subject_ends`: where aspect spans end), a
      noun-tagged word that can be a verb is one: "The screen flickers", "I love the keyboard";
      and a "participle" there is a finite past verb: "Our waiter ignored us".
    """
    tokens = tokenize(sentence)
    tags = tagger([_tagger_form(t.text, i) for i, t in enumerate(tokens)])
    tagged = [replace(t, tag=tag) for t, tag in zip(tokens, tags)]
    ends = set(subject_ends)
    for i in range(1, len(tagged)):  # right after an article a word is not a verb: "is a bore"
        if tagged[i - 1].lower in ("a", "an", "the") and tagged[i].tag.startswith("VB"):
            tagged[i] = replace(tagged[i], tag="NN")
    for i in range(1, len(tagged)):
        token = tagged[i]
        k = i - 1
        while k > 0 and tagged[k].tag.startswith("RB"):  # "I really like"
            k -= 1
        previous = tagged[k]
        after_subject = previous.lower in SUBJECT_PRONOUNS or previous.end in ends
        verb_like = token.tag in ("NN", "NNS") or (token.tag == "IN" and token.lower == "like")
        if after_subject and verb_like and token.start not in ends and is_verb(token.lower):
            verb_tag = "VBZ" if token.lower.endswith("s") and previous.lower not in ("i", "we", "you", "they") else "VBP"
            tagged[i] = replace(token, tag=verb_tag)
        elif token.tag == "VBN" and k == i - 1 and (after_subject or (
                previous.tag.startswith("NN") and i + 1 < len(tagged) and tagged[i + 1].tag in ("DT", "PRP$", "PRP"))):
            # right after its subject with no auxiliary ("Our waiter ignored us"), or after a noun and
            # before its object ("Apple removed the drive"), a past form is finite, not a participle
            tagged[i] = replace(token, tag="VBD")
    for i, token in enumerate(tagged):
        j = i - 1
        while j >= 0 and (tagged[j].lower in ("not", "n't", "never") or tagged[j].tag.startswith("RB")):
            j -= 1
        if j < 0:
            continue
        trigger = tagged[j].lower
        closed_class = token.tag in ("DT", "PRP", "PRP$", "IN", "CC", "CD") and token.lower != "like"
        if (trigger in DO_FORMS or trigger in MODALS or trigger == "to") and not token.tag.startswith("VB") \
                and not closed_class and is_verb(token.lower):
            # "does not works": keep the -s form visible, so the agreement check can see the error
            third_person = trigger in DO_FORMS and token.lower.endswith("s") and not token.lower.endswith("ss") \
                and is_verb(token.lower[:-1])
            tagged[i] = replace(token, tag="VBZ" if third_person else "VB")
    return tagged


def _tagger_form(word: str, index: int) -> str:
    """What the tagger sees: "Great food" and "GREAT beer" are adjectives, not proper nouns."""
    if len(word) > 1 and word.isupper() and word.isalpha():
        return word.lower()
    if index == 0 and word[:1].isupper() and word[1:].islower():
        return word.lower()
    return word


# ---------------------------------------------------------------- edits and span remapping

def apply_edits(example: Example, edits: Sequence[Edit], polarity_changes: dict[int, str] | None = None,
                extra_aspects: Sequence[Aspect] = (), extra_opinions: Sequence[Opinion] = (),
                grow_opinions: bool = True) -> Example:
    """The example with `edits` applied (in its own coordinates) and every span remapped.

    Aspect spans are exact (an edit touching an aspect is a bug the validity check reports), but for one
    edit: a recasing, which spans an aspect term exactly and changes its case only ("pizza" -> "PIZZA",
    `recases`), gives the aspect the recased term at its span (CASE: the term cased like the sentence);
    opinion spans grow to cover edits inside them and insertions at their edges.
    `polarity_changes` maps aspect index (0 = target, i = others[i-1]) to a new polarity.
    `grow_opinions=False` keeps insertions at an opinion's edges outside it (ADDDIFF appends a clause
    right after a sentence's last opinion when there is no final punctuation).
    """
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    for before, after in zip(ordered, ordered[1:]):
        if after.start < before.end:
            raise ValueError(f"overlapping edits {before} and {after}")
    pieces, cursor = [], 0
    for edit in ordered:
        pieces.append(example.sentence[cursor:edit.start])
        pieces.append(edit.new)
        cursor = edit.end
    pieces.append(example.sentence[cursor:])
    sentence = "".join(pieces)
    changes = polarity_changes or {}

    def move_aspect(aspect: Aspect, index: int) -> Aspect:
        start = map_position(aspect.start, ordered, include_insertions=False)
        term = next((e.new for e in ordered if recases(e, aspect.start, aspect.end)), aspect.term)
        return replace(aspect, term=term, start=start, end=start + len(term),
                       polarity=changes.get(index, aspect.polarity))

    def move_opinion(opinion: Opinion) -> Opinion:
        start = map_position(opinion.start, ordered, include_insertions=grow_opinions, is_end=False)
        end = map_position(opinion.end, ordered, include_insertions=grow_opinions, is_end=True)
        return replace(opinion, start=start, end=end, text=sentence[start:end])

    target = move_aspect(example.target, 0)
    others = tuple(move_aspect(a, i + 1) for i, a in enumerate(example.others)) + tuple(extra_aspects)
    opinions = tuple(move_opinion(o) for o in example.opinions) + tuple(extra_opinions)
    return replace(example, sentence=sentence, target=target, others=others, opinions=opinions)


def recases(edit: Edit, start: int, end: int) -> bool:
    """`edit` spans exactly sentence[start:end] and changes its case only (casefolded alike: "Straße" ->
    "STRASSE" too)."""
    return (edit.start, edit.end) == (start, end) and edit.new != edit.old and \
        edit.new.casefold() == edit.old.casefold()


def map_position(position: int, edits: Sequence[Edit], include_insertions: bool, is_end: bool = False) -> int:
    """Where `position` of the old sentence lands in the new one.

    For a span start, an insertion exactly at the position lands inside the span when
    `include_insertions` (it grows the span), before it otherwise; for a span end, an insertion
    exactly at the position lands inside when `include_insertions`.
    """
    shift = 0
    for edit in edits:
        delta = len(edit.new) - (edit.end - edit.start)
        if edit.start == edit.end == position:  # a pure insertion at this very position
            if is_end == include_insertions:
                shift += delta
            continue
        if edit.end <= position:
            shift += delta
        elif edit.start < position:  # the position falls inside a replaced stretch
            return (edit.start + shift + len(edit.new)) if is_end else (edit.start + shift)
    return position + shift
