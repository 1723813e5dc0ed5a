"""CONTRACTIONS: every contraction of the sentence is expanded and every phrase that contracts is
contracted, both ways in one variant ("it is not" -> "it's not", "don't" -> "do not", "I'm" -> "I am").
Nothing is drawn: a sentence always gets the same variant. The prediction must not change.

Only unambiguous forms are touched: "n't" with its auxiliary ("can't" <-> "cannot", "won't" <-> "will
not"); a pronoun with "am/are/is/will/would" ("it's", "they're", "I'll", "I'd") and with "have/has" only
before a participle ("I've been", never "I've a laptop"; "it has a screen" stays). A noun's "'s" is a
possessive and stays; "there is"/"here is" contract only where they open a clause ("the
food here is good" keeps its "is"); "'s"/"'d" expand to "has"/"had" before "been", "got" or a participle ("it's been" ->
"it has been"), else to "is"/"would"; "I'd never" (would or had?) stays. A sentence-final auxiliary stays whole ("what it is."), so does an
inverted "n't" ("isn't it?", "Don't you love ...": "is not it" is no English), and so does an aspect term.
"""

from __future__ import annotations

import re

from absa_checks.common.examples import Edit, Example
from absa_checks.perturb.strategies import NotApplicable, Rejected, Step, StepContext, tagged
from absa_checks.perturb.surface import cased_like, clear_of_aspects

NO_CONTRACTION = "no contraction to expand and no phrase to contract"

NOT = {"do": "don't", "does": "doesn't", "did": "didn't", "is": "isn't", "are": "aren't", "was": "wasn't",
       "were": "weren't", "will": "won't", "would": "wouldn't", "could": "couldn't", "should": "shouldn't",
       "have": "haven't", "has": "hasn't", "had": "hadn't", "must": "mustn't"}
EXPAND_NOT = {contracted: f"{aux} not" for aux, contracted in NOT.items()} | {"can't": "cannot"}
BE_SUBJECTS = {"am": ("i",), "are": ("you", "we", "they"),
               "is": ("he", "she", "it", "that", "there", "here", "what", "who", "where", "how")}
CLITICS = {"am": "'m", "are": "'re", "is": "'s", "will": "'ll", "would": "'d", "have": "'ve", "has": "'s"}
SUBJECTS = {"will": ("i", "you", "we", "they", "he", "she", "it", "that", "there"),
            "would": ("i", "you", "we", "they", "he", "she"),
            "have": ("i", "you", "we", "they"), "has": ("he", "she", "it", "that", "there")} | BE_SUBJECTS
PERFECT = frozenset({"been", "got", "gotten", "had"})  # "it's been", "I'd had": has / had
CONTRACTION_ADVERBS = frozenset({"never", "always", "just", "already", "ever"})  # "I've never been", but "I'd never": ?
BEFORE_PARTICIPLE = frozenset({"have", "has"})  # contracted only before a participle: "it has a screen" stays
# words that start the subject after an inverted auxiliary: "isn't it?", "Why didn't the waiter come?"
SUBJECT_FIRST = frozenset({"i", "you", "we", "they", "he", "she", "it", "there", "that", "this", "these", "those",
                           "the", "a", "an", "my", "your", "our", "their", "his", "her", "its", "anyone", "anybody",
                           "everyone", "somebody", "someone"})
# "there is" / "here is" contract only where they open a clause: "the food here is good" is an adverb
ADVERB_SUBJECTS = frozenset({"here", "there"})
CLAUSE_OPENERS = frozenset({"and", "but", "so", "or", "because", "when", "if", "though", "although", "since",
                            "while", "that", "as", "then", "yet", "also", "now", "still"})
_TOKEN = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")


def contractions_step(example: Example, context: StepContext) -> Step | NotApplicable | Rejected:
    sentence = example.sentence
    words = list(_TOKEN.finditer(sentence))
    tags = {t.start: t.tag for t in tagged(example, context.resources).tokens}
    apostrophe = "’" if "’" in sentence and "'" not in sentence else "'"
    edits: list[Edit] = []
    i = 0
    while i < len(words):
        edit, used = _at(sentence, words, i, tags, apostrophe)
        if edit is not None and clear_of_aspects(example, edit.start, edit.end):
            edits.append(edit)
            i += used
        else:
            i += 1
    return Step("contractions", tuple(edits)) if edits else NotApplicable(NO_CONTRACTION)


def _at(sentence: str, words: list[re.Match[str]], i: int, tags: dict[int, str], apostrophe: str
        ) -> tuple[Edit | None, int]:
    """The edit that starts at word i and how many words it takes; (None, 0) when none does."""
    word = words[i]
    text = word.group()
    lower = text.lower().replace("’", "'")
    after = words[i + 1] if i + 1 < len(words) and _joined(sentence, word, words[i + 1]) else None
    following = words[i + 1] if i + 1 < len(words) else None
    if lower in EXPAND_NOT:
        if following is not None and following.group().lower() in SUBJECT_FIRST:
            return None, 0  # "isn't it", "Don't you love", "Why isn't the pizza": "is not it" is no English
        return _edit(word.start(), word.end(), text, EXPAND_NOT[lower], "expand"), 1
    if "'" in lower:
        subject, _, clitic = lower.partition("'")
        full = _expanded(subject, "'" + clitic, following, tags)
        if full is not None:
            return _edit(word.start(), word.end(), text, f"{subject} {full}", "expand"), 1
        return None, 0
    if lower == "cannot":
        return _edit(word.start(), word.end(), text, "can't", "contract", apostrophe), 1
    if after is None:
        return None, 0
    second = after.group().lower()
    if lower in NOT and second == "not" and _continues(sentence, after.end()):
        return _edit(word.start(), after.end(), sentence[word.start():after.end()], NOT[lower], "contract",
                     apostrophe), 2
    if second in SUBJECTS and lower in SUBJECTS[second] and _continues(sentence, after.end()) \
            and (lower not in ADVERB_SUBJECTS or _opens_clause(sentence, word.start())):
        third = words[i + 2] if i + 2 < len(words) else None
        if second in BEFORE_PARTICIPLE and not _participle(third, tags):
            return None, 0
        if second == "would" and third is not None and third.group().lower() == "not":
            return None, 0  # "I would not" -> "I wouldn't", at the next word
        return _edit(word.start(), after.end(), sentence[word.start():after.end()], text + CLITICS[second],
                     "contract", apostrophe), 2
    return None, 0


def _expanded(subject: str, clitic: str, following: re.Match[str] | None, tags: dict[int, str]) -> str | None:
    """The auxiliary a pronoun's clitic stands for, or None when it is not one we expand ("chef's", "let's")."""
    perfect = following is not None and (following.group().lower() in PERFECT)
    if clitic == "'s":
        return ("has" if perfect else "is") if subject in SUBJECTS["is"] else None
    if clitic == "'d":
        after = following.group().lower() if following is not None else ""
        if subject not in SUBJECTS["would"] or after in CONTRACTION_ADVERBS:
            return None  # "I'd never go" (would) and "I'd never been" (had): an adverb leaves it open
        past = following is not None and tags.get(following.start()) in ("VBN", "VBD")  # "I'd ordered": had
        return "had" if perfect or past or after == "better" else "would"
    for full in ("am", "are", "will", "have"):
        if CLITICS[full] == clitic and subject in SUBJECTS[full]:
            return full
    return None


def _participle(word: re.Match[str] | None, tags: dict[int, str]) -> bool:
    # the tagger reads a participle right after "have" as a past tense at times ("We have tried")
    return word is not None and (word.group().lower() in PERFECT or tags.get(word.start()) in ("VBN", "VBD")
                                 or word.group().lower() in CONTRACTION_ADVERBS)


def _joined(sentence: str, first: re.Match[str], second: re.Match[str]) -> bool:
    return bool(re.fullmatch(r"[ \t]+", sentence[first.end():second.start()]))


def _opens_clause(sentence: str, position: int) -> bool:
    before = sentence[:position].rstrip()
    last = re.search(r"(\w+)$", before)
    return not before or not last or last.group(1).lower() in CLAUSE_OPENERS


def _continues(sentence: str, position: int) -> bool:
    """A word follows: "what it is." keeps its "is" whole."""
    return bool(re.match(r"[ \t]+[^\W_]", sentence[position:]))


def _edit(start: int, end: int, old: str, new: str, why: str, apostrophe: str = "'") -> Edit:
    return Edit(start, end, old, cased_like(new.replace("'", apostrophe), old), why)
