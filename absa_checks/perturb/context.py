"""Does the unchanged rest of the sentence still agree with a reversal? (REVTGT and REVNON)

A reversal edits a few opinion words; the words around them were written for the old polarity. Blind
readers rejected most bad variants for that reason: "Not only do they serve the worst gnocchi around,
they always try to seat our large group", "a lovely find complete with a cosy terrace and bad
food". A variant is quarantined when
- a discourse word whose sense depends on the polarities around it stays ("not only", "even",
  "only", "equally", "than", "recommend", "worth", "if not", "thanks", "so ... that", ...);
- a sentiment word belongs to no aspect's opinion words: it may agree or clash with the edit, and
  nothing tells which ("delight", "confident", "has it all");
- REVTGT: a negation lands on a word that is itself a negation ("not unmatched" reverses nothing);
- REVTGT: VADER's score of the target's clause does not move towards the new polarity (a second
  opinion, independent of how the edit was chosen).
Precision before coverage: each rule removes a cause seen in the blind judgement, at a measured cost.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from absa_checks.common.examples import Edit, Example
from absa_checks.perturb.polarity import Polarity
from absa_checks.perturb.sentence import TaggedSentence
from absa_checks.sources.infer import MIN_VALENCE, clause_bounds

# Nouns that frame a sentence as praise or complaint ("A con was ...", "Two complaints-")
_FRAME_NOUNS = r"cons?|pros?|complaints?|problems?|issues?|downsides?|upsides?|drawbacks?|highlights?|treat"
# Discourse words whose meaning depends on the polarity of what surrounds them.
DISCOURSE_WORDS = re.compile(
    r"(?i)\b(?:not only|even|only|equally|just as|as (?:\w+ ){1,2}as|rather|instead|still|except"
    r"|recomm?end\w*|reccomm?end\w*|worth\w*|if not|skip|avoid|thank\w*|expect\w*|surpris\w*|must"
    r"|at least|anyway|enough|all (?:\w+ )?(?:i|you|one) (?:could|would|need|want)|has it all"
    r"|if|bother|again|below|above|compared?|stay away|come back|go back"
    r"|too|as well|not just|n't just|other than|put up with|because|yum\w*|hard to find|all (?:\w+ )?(?:is|are|were|was)"
    rf"|{_FRAME_NOUNS}|plus|minus"
    r"|nothing more|all we want|diagnosed|get me started|can't complain|cannot complain|had to replace"
    r"|you're set|you are set|everything (?:i|we|you) (?:wanted|needed|want|need)|make sure you"
    r"|what (?:i|we|you) (?:was|were|are|am) looking for|keeper|known for|superior|inferior"
    r"|look\w* forward|considering|award|other|as (?:shown|advertised|described|expected|pictured)|(?:can't|cannot|can not) beat"
    r"|so (?:\w+ ){1,3}(?:that|you|i|we|they|one|it)|such an? \w+ (?:that|you|i|we))\b")
# A discourse word that is itself the opinion edited away is no context ("I recommend" -> "I do not recommend")
OPINION_DISCOURSE = re.compile(r"(?i)^(?:recomm?end\w*|reccomm?end\w*)$")
# A frame noun that is itself an annotated opinion is no frame ("no problems" -> "problems")
FRAME_NOUNS = re.compile(rf"(?i)^(?:{_FRAME_NOUNS})$")
# Lexicon words that in reviews are mostly not opinions about anything ("like" a preposition,
# "pretty" and "super" degree adverbs, "no" a determiner); counted from the SemEval-2014 test sets'
# flagged words and read one by one.
NOT_SENTIMENT = frozenset(
    "like likes liked pretty super yes please kind well sure no not support supported supports help helps "
    "more most much many less least few little big large small new old first last same other own "
    "real really just very only high low top full long short whole huge tiny main major great-grandmother "
    "ok okay fine free clear certain serious seriously true truly right left hard easy lol haha "
    "want wants wanted need needs needed matter care cares save saves saved share shared ready "
    "extra special usual sort lot lots plenty".split())
MIN_OTHER_VALENCE = 2.0  # nouns, verbs, adverbs: "delight" 2.9, "love" 3.2, "definitely" 1.7
NEAR = 40  # characters: an edit this close before an opinion belongs to it ("is not [very] good")
MIN_SHIFT = 0.1    # the compound score of an aspect's stretch must move at least this far
NEGATIVE_PREFIX = re.compile(r"(?i)^(?:un|in|im|ir|il|dis|non-?)(\w{3,})$")
_WORD = re.compile(r"[A-Za-z]+(?:['\u2019][A-Za-z]+)*")


def discourse_problem(example: Example, edits: Sequence[Edit]) -> str | None:
    """The first discourse word outside the edits whose sense depends on the old polarity."""
    for match in DISCOURSE_WORDS.finditer(example.sentence):
        if OPINION_DISCOURSE.match(match.group(0)) and any(
                e.start < match.end() and e.end > match.start() or e.end == match.start() - 1 for e in edits):
            continue
        if FRAME_NOUNS.match(match.group(0)) and any(
                o.start <= match.start() and match.end() <= o.end for o in example.opinions):
            continue
        return match.group(0)
    return None


def unattributed_sentiment(sentence: TaggedSentence, example: Example, edits: Sequence[Edit],
                           polarity: Polarity) -> str | None:
    """A clear evaluative word that is no aspect's opinion, no aspect's term and not edited.

    Adjectives count from MIN_VALENCE; other words only when strongly evaluative (MIN_OTHER_VALENCE):
    "definitely", "luck" or "party" carry valence in VADER without judging anything.
    """
    owned = [(a.start, a.end) for a in (example.target, *example.others)]
    owned += [(o.start, o.end) for o in example.opinions]
    owned += [(e.start, e.end) for e in edits]
    for token in sentence.tokens:
        word = token.lower
        floor = MIN_VALENCE if token.tag.startswith("JJ") else MIN_OTHER_VALENCE
        if word in NOT_SENTIMENT or abs(polarity.valence(word)) < floor:
            continue
        if any(s < token.end and e > token.start for s, e in owned):
            continue
        return token.text
    return None


def negated_negation(variant: Example, edits: Sequence[Edit], is_word) -> str | None:
    """A "not" added before a word that is itself negated by a prefix: "not unmatched"."""
    for rest in _after_added_not(variant, edits):
        following = re.match(r"\s*(?:not\s+)?(\w+)", rest)
        if following is None:
            continue
        word = following.group(1)
        prefixed = NEGATIVE_PREFIX.match(word)
        if prefixed and is_word(prefixed.group(1)):
            return f"not {word}"
    return None


def _stretch(original: Example, index: int, reach: Sequence[Edit], edits: Sequence[Edit]) -> tuple[str, str]:
    """The text from aspect `index` over its opinion words and the edits in `reach`, before and after
    every edit that falls inside it."""
    aspect = (original.target, *original.others)[index]
    mine = [o for o in original.opinions if o.aspect == index]
    start = min([aspect.start] + [o.start for o in mine] + [e.start for e in reach])
    end = max([aspect.end] + [o.end for o in mine] + [e.end for e in reach])
    after = original.sentence[start:end]
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        if start <= edit.start and edit.end <= end:
            after = after[:edit.start - start] + edit.new + after[edit.end - start:]
    return original.sentence[start:end], after


def _after_added_not(variant: Example, edits: Sequence[Edit]):
    """The variant's text after each edit that adds a "not"."""
    for edit in edits:
        if "not" in edit.new.lower().split():
            yield variant.sentence[_after(edit, variant, edits):]


def _after(edit: Edit, variant: Example, edits: Sequence[Edit]) -> int:
    """Where `edit`'s new text ends in the variant's coordinates."""
    shift = sum(len(e.new) - (e.end - e.start) for e in edits if e.end <= edit.start and e is not edit)
    return edit.start + shift + len(edit.new)


def lexicon_disagrees(original: Example, edits: Sequence[Edit], intended: str, polarity: Polarity,
                      index: int = 0) -> str | None:
    """VADER's score of the stretch from the target to its opinion words must move towards `intended`.

    The stretch, not the target's clause: in "Waiter and Manager were quite rude" or "..., and all of it
    delicious" the opinion is outside the clause the target starts.
    """
    mine = [o for o in original.opinions if o.aspect == index]
    reach = [e for e in edits if any(e.start <= o.end and e.end >= o.start - NEAR for o in mine)] or list(edits)
    before_text, after_text = _stretch(original, index, reach, edits)
    before, after = polarity.compound(before_text), polarity.compound(after_text)
    if before == after:
        return None  # the lexicon does not see the edit ("doesn't work" -> "works"): no second opinion
    moved = after - before if intended == "positive" else before - after
    if moved < MIN_SHIFT:
        return f"score {before:+.2f} -> {after:+.2f} for '{after_text}', intended {intended}"
    return None


CONTRASTS = frozenset({"but", "however", "although", "though", "yet", "whereas", "while", "except"})
# Aspect terms that stand for the whole of which other aspects are parts: "The food is great, I love
# their dumplings" cannot become "The food is great, I hate their dumplings".
GENERAL_TERMS = frozenset({"food", "meal", "meals", "dishes", "cuisine", "menu", "everything"})
# Aspects that are no part of the food: "The food was great and the service was good" may disagree.
NOT_PARTS = frozenset("service staff waiter waiters waitress waitresses waitstaff server servers ambience ambiance "
                      "atmosphere decor price prices place bar music location owner owners manager host hostess "
                      "wait seating portions portion value setting space room view drinks wine".split())


def contrast_without_aspect(sentence: TaggedSentence, example: Example) -> str | None:
    """A contrastive word with no aspect or opinion on one side: the contrast was written for the old
    polarities and nothing can adjust it ("Nice decor but such a let down")."""
    marks = [(a.start, a.end) for a in (example.target, *example.others)]
    marks += [(o.start, o.end) for o in example.opinions]
    tokens = sentence.tokens
    cuts = [i for i, t in enumerate(tokens) if t.lower in CONTRASTS or t.text in (".", "!", "?", ";")]
    for n, i in enumerate(cuts):
        if tokens[i].lower not in CONTRASTS:
            continue
        left_from = tokens[cuts[n - 1]].end if n else 0
        right_to = tokens[cuts[n + 1]].start if n + 1 < len(cuts) else len(sentence.text)
        sides = ((left_from, tokens[i].start), (tokens[i].end, right_to))
        if any(not any(s < hi and e > lo for s, e in marks) for lo, hi in sides):
            return tokens[i].text
    return None


def general_specific_disagree(example: Example, new_polarities: dict[int, str]) -> str | None:
    """A general aspect ("food") and another aspect of the sentence agreed and now disagree."""
    aspects = (example.target, *example.others)
    old = {i: a.polarity for i, a in enumerate(aspects)}
    new = {**old, **new_polarities}
    general = [i for i, a in enumerate(aspects) if a.term.lower() in GENERAL_TERMS]
    for g in general:
        for j in range(len(aspects)):
            if (j != g and old[g] == old[j] and new[g] != new[j] and old[j] in ("positive", "negative")
                    and aspects[j].term.lower() not in NOT_PARTS):
                return f"{aspects[g].term} / {aspects[j].term}"
    return None


FREQUENCY_ADVERBS = frozenset({"sometimes", "occasionally", "usually", "often", "frequently", "still", "also",
                               "already", "even", "just", "really", "definitely", "certainly", "totally",
                               "almost", "nearly", "sure"})
# Focus adverbs that stay before "do not": "I also recommend" -> "I also do not recommend", never "do not also"
FOCUS_ADVERBS = FREQUENCY_ADVERBS - {"really", "just", "totally"}


def misplaced_not(variant: Example, edits: Sequence[Edit]) -> str | None:
    """An added "not" before a frequency or focus adverb ("is not sometimes a little too heavy")."""
    for edit in edits:
        inside = re.search(r"(?i)\bnot (\w+)", edit.new)
        if inside and inside.group(1).lower() in FOCUS_ADVERBS:
            return inside.group(0)  # "I do not also recommend"
        if not edit.new.strip().lower().endswith("not"):
            continue
        rest = variant.sentence[_after(edit, variant, edits):].split()
        if rest and rest[0].lower().strip(",.") in FREQUENCY_ADVERBS:
            return f"not {rest[0]}"
    return None


def clause_mates_change_relation(example: Example, new_polarities: dict[int, str], edits: Sequence[Edit]
                                 ) -> str | None:
    """Two aspects of one clause ("I like iTunes, the security, the Mini form factor") agreed and now
    disagree, or the other way round, with no conjunction between them adjusted."""
    aspects = (example.target, *example.others)
    old = {i: a.polarity for i, a in enumerate(aspects)}
    new = {**old, **new_polarities}
    for i, a in enumerate(aspects):
        lo, hi = clause_bounds(example.sentence, a.start, a.end)
        for j, b in enumerate(aspects):
            if j <= i or not (lo <= b.start and b.end <= hi):
                continue
            if not all(p in ("positive", "negative") for p in (old[i], old[j])):
                continue
            if (old[i] == old[j]) == (new[i] == new[j]):
                continue
            left, right = min(a.end, b.end), max(a.start, b.start)
            if any(left <= e.start and e.end <= right and "conjunction" in e.why for e in edits):
                continue
            return f"{a.term} / {b.term}"
    return None


# Words that need a negation before them: removing the negation leaves them ungrammatical
# ("have not yet discovered" -> "have yet discovered", "I don't have any app open" -> "I have any app open")
NEGATIVE_POLARITY_ITEMS = frozenset({"yet", "any", "anything", "anyone", "anybody", "anywhere", "either", "ever",
                                     "at all"})


def orphaned_polarity_item(original: Example, edits: Sequence[Edit]) -> str | None:
    """A negation removed before a word that only a negation licenses, or after the "but" it answers
    ("a fine spot to dine in but not a good spot for delivery" -> "but a good spot")."""
    for edit in edits:
        if not edit.why.startswith("remove") or edit.old.strip() == "":
            continue
        before = original.sentence[:edit.start].split()
        if before and before[-1].lower() == "but":
            return "but"
        following = original.sentence[edit.end:].split()[:4]
        for word in following:
            if word.lower().strip(",.!?") in NEGATIVE_POLARITY_ITEMS:
                return word
    return None


EXTREME = frozenset({"excellent", "terrible", "awful", "amazing", "perfect", "superb", "outstanding", "horrible",
                     "fantastic", "wonderful", "disgusting", "fabulous", "incredible", "dreadful", "phenomenal",
                     "atrocious", "exceptional", "abysmal", "spectacular"})
INTENSIFIERS = frozenset({"very", "fairly", "quite", "rather", "somewhat", "pretty", "a bit", "slightly"})


def unidiomatic_degree(variant: Example, edits: Sequence[Edit]) -> str | None:
    """A gradable degree word left before an extreme adjective the edit brought ("very excellent")."""
    for edit in edits:
        words = edit.new.split()
        if not words or words[-1].lower().strip(",.!") not in EXTREME:
            continue
        before = variant.sentence[:_after(edit, variant, edits) - len(edit.new)].split()
        if before and before[-1].lower() in INTENSIFIERS:
            return f"{before[-1]} {words[-1]}"
    return None


def neutral_gains_sentiment(original: Example, edits: Sequence[Edit], polarity: Polarity) -> str | None:
    """REVTGT keeps a neutral target neutral: the stretch to its opinion words must not turn clearly
    evaluative ("keep up with the latest specs" -> "the worst specs")."""
    before_text, text = _stretch(original, 0, edits, edits)
    before, after = polarity.compound(before_text), polarity.compound(text)
    if abs(after) >= NEUTRAL_LIMIT and abs(after) > abs(before):
        return f"score {before:+.2f} -> {after:+.2f} for '{text}'"
    return None


NEUTRAL_LIMIT = 0.4


NEGATORS = frozenset({"not", "n't", "never", "no", "cannot", "without", "nothing", "none", "nor", "arent", "isnt",
                      "dont", "doesnt", "didnt", "wasnt", "werent", "cant", "wont", "wouldnt", "couldnt", "hasnt",
                      "havent", "shouldnt"})  # reviews drop the apostrophe
_CLAUSE_BREAK = re.compile(r"[,;:.!?()]|\b(?:but|and|or|which|that|because|so|while|although|though)\b", re.I)


def antonym_under_negation(original: Example, edits: Sequence[Edit]) -> str | None:
    """An antonym or a new negation put under a negation that stays ("does not handle ... properly" ->
    "... poorly", "nothing to complain about" -> "nothing not to complain about"): a double negative
    that reverses nothing a reader can follow."""
    for edit in edits:
        if not edit.why.startswith(("antonym", "plain opposite", "adverb for", "negate")):
            continue
        clause = _CLAUSE_BREAK.split(original.sentence[:edit.start])[-1]
        words = [w.lower() for w in re.findall(r"[A-Za-z']+", clause.replace("n't", " n't"))]
        negator = next((w for w in words if w in NEGATORS), None)
        if negator:
            return f"'{negator}' before '{edit.old}'"
    return None


STRONG_DEGREE = frozenset({"very", "highly", "extremely", "so", "too", "really", "totally", "completely",
                           "incredibly", "super", "absolutely", "terribly", "awfully", "utterly", "horribly"})


def negated_intensified_complaint(variant: Example, edits: Sequence[Edit], old_polarity: str | None) -> str | None:
    """'not' before an intensified complaint ("not HIGHLY DISAPPOINTED", "not too slow") softens it;
    it does not make it praise."""
    if old_polarity != "negative":
        return None
    for rest in _after_added_not(variant, edits):
        words = rest.split()
        if words and (words[0].lower().strip(",.!") in STRONG_DEGREE or words[0].lower().endswith("ly")):
            return f"not {words[0]}"  # "not blatantly unappreciative" is no praise either
    return None


def colliding_edits(edits: Sequence[Edit]) -> str | None:
    """Two edits of one reversal that touch ("it's not disgusting CHEAP"): each was placed for its own
    word and together they read as one garbled phrase."""
    ordered = sorted((e for e in edits if "conjunction" not in e.why), key=lambda e: (e.start, e.end))
    for first, second in zip(ordered, ordered[1:]):
        if second.start - first.end <= 1 and first.why != second.why:  # one change's parts ("a" -> "an" + word)
            return f"'{first.new}' next to '{second.new}'"
    return None


# Where a sentence's clauses part: punctuation, dashes, and the conjunctions and relative words that start a clause
_CLAUSE_SPLIT = re.compile(r"[,;:!?()]|--+|\s-\s|\.(?=\s)|\b(?:and|but|so|because|although|though|while|whereas"
                           r"|which|who|when|since|until|unless|if|as)\b", re.I)
MIN_CLAUSE_WORDS = 3  # "etc", "for sure", "at night" are no statement of their own
EMOTICON = re.compile(r"(?:^|\s)[:;=8][-']?[()\[\]DPp/\\|]+(?=\s|$)")


def clause_without_aspect(example: Example) -> str | None:
    """A clause of three or more words that names no annotated aspect ("I eat here often and never get
    bored", "it simply makes sense", "-- the last time I was there"): written for the old polarity, it
    supports or explains it, and nothing tells whether the reversal contradicts it. Blind readers
    rejected most reversals of sentences with such a clause; precision comes first."""
    spans = [(a.start, a.end) for a in (example.target, *example.others)]
    text, start = example.sentence, 0
    breaks = [(m.start(), m.end()) for m in _CLAUSE_SPLIT.finditer(text)] + [(len(text), len(text))]
    for end, next_start in breaks:
        clause = text[start:end]
        if len(_WORD.findall(clause)) >= MIN_CLAUSE_WORDS and not any(
                s < end and e > start for s, e in spans):
            return clause.strip()
        start = next_start
    return None


def emoticon(example: Example) -> str | None:
    """An emoticon judges the whole sentence (":-)", ":(") and stays as written."""
    found = EMOTICON.search(example.sentence)
    return found.group(0).strip() if found else None


NOT_MISPLACED_AFTER = frozenset({"the", "a", "an", "my", "our", "their", "his", "her", "its", "your", "this", "that", "of"})


def negation_misplaced_in_phrase(original: Example, edits: Sequence[Edit]) -> str | None:
    """A "not" inserted after a determiner, a possessive or "way" ("the fish's not sweetness", "run way
    not to slow"), or before a list it would only partly negate ("is not dark, cool and soothing")."""
    for edit in edits:
        if edit.old or "not" not in edit.new.lower().split():
            continue
        before = original.sentence[:edit.start].split()
        last = before[-1].lower() if before else ""
        if last in NOT_MISPLACED_AFTER or last.endswith("'s") or last == "way":
            return f"{last} not"
        after = original.sentence[edit.end:]
        if re.match(r"\s*\w+,\s*\w+", after) and edit.new.startswith(" "):
            return f"not{after[:30]}"
    return None


def conjunction_between_others(original: Example, edits: Sequence[Edit]) -> str | None:
    """REVTGT changed a conjunction whose nearest aspects on both sides are not the target ("bumping up
    the processor speed but adding the thunderbolt port"): their relation did not change."""
    aspects = (original.target, *original.others)
    for edit in edits:
        if "conjunction" not in edit.why:
            continue
        left = max((a for a in aspects if a.end <= edit.start), key=lambda a: a.end, default=None)
        right = min((a for a in aspects if a.start >= edit.end), key=lambda a: a.start, default=None)
        if left is not None and right is not None and original.target not in (left, right):
            return f"{left.term} {edit.new} {right.term}"
    return None
