"""A model's free-text answer about one aspect, read as a reader would: the polarity it ASSERTS.

"Negative.", "**Negative**", "sentiment: neutral", "mostly positive", "It is positive, not negative" and
"The sentiment is not positive; it is negative." each assert one polarity. Answers that do not are
refused, never guessed:
- no polarity word at all ("delicious", "mixed");
- only negated polarities ("not negative", "It isn't positive"): what it is, is not said. The one
  exception is both polar words negated ("Neither positive nor negative", "not positive or negative"),
  which a reader takes as neutral;
- two polarities asserted ("positive for the fries but negative overall", "Positive. Actually, negative."),
  or only offered as alternatives ("positive or neutral", "could be positive, might be negative").

How a mention of a polarity word is classed (pure, word by word):
- negated: a negator (not, n't, never, no, neither, nor, non, hardly, barely, scarcely, without, than,
  nothing, cannot, instead of, less, nowhere, lack(s)) or a negating phrase (far from, anything but, all but,
  short of, other than, except; "by no means", "not at all", "no longer" hold a negator) before it in its own clause, with no other polarity word in between; a polarity joined to a negated
  one by "or"/"nor" is negated too ("not positive or negative");
- hedged: a modal of possibility (could, might, may, possibly, perhaps, maybe) before it in its clause,
  or joined to another polarity by "or" ("positive or neutral");
- asserted: otherwise. Degree words ("mostly", "slightly", "very", "likely", "probably") do not change it.
A clause ends at . , ; : ! ? and at but / though / although / however / whereas / yet. The list of the
three choices as the question wrote it ("positive, negative or neutral") is not an answer and is skipped.

An answer that reasons first and then concludes ("... so the fries are negative, the burgers positive.
Final answer: negative") is read from its last "final answer" / "answer:" / "answer is" on, when that
part asserts a polarity.

"less X than Y" is read as "Y rather than X". A clause that is a bare denial ("Not at all.", "No.") after a
polarity was named ("Positive? Not at all.") may deny it: refused.

The reading: one asserted polarity -> it (other mentions only negated or hedged); none asserted, one
hedged polarity and nothing else -> it; positive and negative both negated, nothing asserted -> neutral;
anything else -> refused with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

WORDS = {"positive": "positive", "positively": "positive", "pos": "positive",
         "negative": "negative", "negatively": "negative", "neg": "negative",
         "neutral": "neutral", "neutrally": "neutral", "neu": "neutral"}
ANSWER_NEGATORS = frozenset({"not", "never", "no", "neither", "nor", "non", "hardly", "barely", "scarcely", "without",
                      "than", "nothing", "cannot", "instead", "less", "nowhere", "lack", "lacks", "lacking"})
# Negating phrases whose words alone are not negators ("but" ends a clause, "from" is a preposition), read as "not"
NEGATING_PHRASES = re.compile(r"\b(?:far from|anything but|all but|short of|other than|except)\b")
# "less negative than positive" says positive: read as "positive rather than negative"
_LESS_THAN = re.compile(r"\bless (positive|negative|neutral)(?:ly)? than (positive|negative|neutral)\b")
# a clause of these words alone ("No doubt.") denies nothing
NOT_A_DENIAL = frozenset({"doubt", "question", "questions", "wonder", "surprise", "surprisingly"})
ANSWER_HEDGES = frozenset({"could", "might", "may", "possibly", "perhaps", "maybe", "conceivably"})
CLAUSE_WORDS = frozenset({"but", "though", "although", "however", "whereas", "yet"})
CLAUSE_MARKS = frozenset(".,;:!?")
_TOKEN = re.compile(r"[a-z]+(?:'[a-z]+)?|[.,;:!?]")
_CHOICES = re.compile(r"\b(positive|negative|neutral)\s*(?:,|/|or)\s*(positive|negative|neutral)\s*,?\s*(?:/|or|and)\s*"
                      r"(positive|negative|neutral)\b")


@dataclass(frozen=True)
class Reading:
    polarity: str | None  # None: refused
    problem: str = ""     # why it was refused: "names no polarity ...", "names positive and negative ..."


def _tokens(text: str) -> list[str]:
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"[*_`#>\"]", " ", text)  # Markdown emphasis, headings, quotes
    text = re.sub(r"\bnon-", "non ", text)
    text = _LESS_THAN.sub(r"\2 rather than \1", text)
    text = NEGATING_PHRASES.sub(" not ", text)
    text = _CHOICES.sub(lambda m: " " if len({m[1], m[2], m[3]}) == 3 else m[0], text)  # the question's menu
    return _TOKEN.findall(text)


def _is_negator(token: str) -> bool:
    return token in ANSWER_NEGATORS or token.endswith("n't")


def _mentions(tokens: list[str]) -> list[tuple[str, str]]:
    """(polarity, how: asserted / negated / hedged) for every polarity word, in order."""
    found: list[tuple[int, str, str]] = []
    for at, token in enumerate(tokens):
        polarity = WORDS.get(token)
        if polarity is None:
            continue
        how = "asserted"
        between: list[str] = []
        for back in range(at - 1, -1, -1):  # back to the clause start or the previous polarity word
            word = tokens[back]
            if word in CLAUSE_MARKS or word in CLAUSE_WORDS:
                break
            if word in WORDS:
                joined = all(w in ("or", "nor", "maybe", "perhaps", "possibly", "even") for w in between)
                if joined and between:  # "not positive or negative", "positive or neutral"
                    previous = found[-1]
                    if previous[2] == "negated":
                        how = "negated"
                    else:
                        how = "hedged"
                        found[-1] = (previous[0], previous[1], "hedged")
                break
            between.append(word)
            if _is_negator(word):
                how = "negated"
                break
            if word in ANSWER_HEDGES:
                how = "hedged"
        found.append((at, polarity, how))
    return [(polarity, how) for _, polarity, how in found]


_CONCLUSION = re.compile(r"final answer|\banswer\s*(?:is\b|:)", re.IGNORECASE)


def read_polarity(text: str) -> Reading:
    """The polarity `text` asserts, or None with the reason (module docstring)."""
    conclusions = list(_CONCLUSION.finditer(text))
    if conclusions:
        concluded = _read(text[conclusions[-1].end():])
        if concluded.polarity is not None:
            return concluded
    return _read(text)


def _denial_after(tokens: list[str]) -> bool:
    """Whether a clause made of a negation alone ("Not at all.", "No.", "By no means.") follows a clause that
    names a polarity: "Positive? Not at all." may deny what came before, so it is not read for sure."""
    clauses: list[list[str]] = [[]]
    for token in tokens:
        if token in CLAUSE_MARKS or token in CLAUSE_WORDS:
            clauses.append([])
        else:
            clauses[-1].append(token)
    named = False
    for clause in clauses:
        if any(word in WORDS for word in clause):
            named = True
        elif named and any(_is_negator(word) for word in clause) and not NOT_A_DENIAL & set(clause):
            return True
    return False


def _read(text: str) -> Reading:
    tokens = _tokens(text)
    mentions = _mentions(tokens)
    if mentions and _denial_after(tokens):
        return Reading(None, "names a polarity and then a bare denial (\"... ? Not at all.\"); it is not guessed "
                             "which one is denied")
    asserted = sorted({p for p, how in mentions if how == "asserted"})
    hedged = sorted({p for p, how in mentions if how == "hedged"})
    negated = sorted({p for p, how in mentions if how == "negated"})
    if not mentions:
        return Reading(None, "names no polarity (positive, negative, neutral)")
    if len(asserted) == 1 and asserted[0] not in negated:
        return Reading(asserted[0])
    if len(asserted) > 1:
        return Reading(None, f"asserts both {' and '.join(asserted)}; it is not guessed which one is meant")
    if asserted:  # one polarity both asserted and negated ("positive? not positive")
        return Reading(None, f"both says and denies {asserted[0]}; it is not guessed")
    if len(hedged) == 1 and not negated:
        return Reading(hedged[0])
    if len(hedged) > 1:
        return Reading(None, f"offers {' or '.join(hedged)} without choosing; it is not guessed")
    if not hedged and set(negated) == {"positive", "negative"}:
        return Reading("neutral")  # "neither positive nor negative"
    if hedged:
        return Reading(None, f"only says it might be {hedged[0]} and is not {' or '.join(negated)}; "
                             "it is not guessed")
    return Reading(None, f"only says what the sentiment is not ({' or '.join(negated)}), not what it is; "
                         "it is not guessed")
