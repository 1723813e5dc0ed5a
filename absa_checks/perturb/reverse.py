"""Reversing and exaggerating one opinion expression; the edits, never the sentence, are returned.

reverse_opinion, in order:
1. an existing negation is removed, never doubled: "is not good" -> "is good",
   "doesn't work" -> "works", "never disappoints" -> "disappoints", "no problems" -> "problems";
2. else the head word is replaced by its antonym in context (adjective, then verb, adverb, noun);
3. else a negation is added: after a form of "be" or a modal ("is not good", "will not last",
   "cannot handle"), with do-support for other verbs ("slows it down" -> "does not slow it down",
   "looks great" -> "does not look great"), or "not" before a bare adjective ("not great food").
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from absa_checks.common.examples import Edit, Opinion
from absa_checks.common.text import BE_FORMS, COPULAS, DO_FORMS, HAVE_FORMS, MODALS
from absa_checks.perturb.antonyms import AntonymFinder
from absa_checks.perturb.inflect import article_for, match_case, verb_form
from absa_checks.perturb.sentence import TaggedSentence

NEGATION_PARTICLES = frozenset({"not", "n't", "never"})
CLITIC_NEGATED_MODALS = {"ca": "can", "wo": "will", "sha": "shall"}
DO_FOR_TAG = {"VBZ": "does", "VBD": "did", "VBP": "do", "VB": "do"}
TAG_FOR_DO = {"does": "VBZ", "did": "VBD", "do": "VBP"}
AUXILIARIES = BE_FORMS | HAVE_FORMS | MODALS | frozenset({"'ll"})
LIGHT_VERBS = frozenset({"make", "made", "makes", "making", "take", "took", "taken", "takes", "give", "gave", "given",
                         "gives", "get", "gets", "got", "gotten", "go", "goes", "went", "gone", "come", "came",
                         "comes", "put", "puts", "set", "sets", "keep", "keeps", "kept"})
NOT_LEXICAL = AUXILIARIES | DO_FORMS | LIGHT_VERBS  # their antonyms ("unmake") are not opinions
NOT_NEGATABLE = AUXILIARIES | DO_FORMS  # light verbs take a negation fine ("do not go for")
HEAD_ORDER = ("J", "V", "R", "N")
# A phrasal verb's particle is not an opinion head: "slows it down" must not become "slows it up"
PARTICLES = frozenset({"up", "down", "out", "in", "off", "on", "over", "back", "away", "around", "through"})
# Last resort for an attributive adjective with no antonym ("an awesome dinner", "a graceless manager"):
# a plain adjective of the opposite polarity, which fits before any noun.
PLAIN_OPPOSITE = {"positive": "disappointing", "negative": "excellent"}
QUANTITY_NOUNS = frozenset({"lot", "lots", "bit", "couple", "number", "plenty", "ton", "tons", "deal", "amount"})
# Verbs an adjective follows as an adverb ("works great"); the tagger often reads "works" as a noun.
# Their reversal is an adverb of the opposite judgement: "works great" -> "works poorly".
ADVERBIAL_VERBS = frozenset({"work", "works", "worked", "working", "run", "runs", "ran", "running", "perform",
                             "performs", "performed", "performing", "function", "functions", "functioned"})
ADVERB_OPPOSITE = {"positive": "poorly", "negative": "well"}
PASSIVE_AUXILIARIES = BE_FORMS | frozenset({"get", "gets", "got", "gotten", "getting"})
CAUSATIVES = frozenset({"make", "makes", "made", "making", "let", "lets", "letting", "help", "helps", "helped",
                        "allow", "allows", "allowed", "enable", "enables", "enabled", "permit", "permits"})
# A hedge reads as an apology for a complaint; before praise it is not English ("a little bit comfortable")
HEDGES = ("a little", "a bit", "a little bit", "slightly", "somewhat", "kind of", "sort of", "a tad", "little")
# Only these take "no" for "a": "have a problem" -> "have no problem"; "works like a charm" and
# "for a filling meal" have no such reading
NO_FOR_A_AFTER = HAVE_FORMS | BE_FORMS | frozenset({"with", "having", "had", "has", "have", "there"})


@dataclass(frozen=True)
class Change:
    edits: tuple[Edit, ...]
    how: str  # "negation removed", "antonym", "negation added", "exaggerated"


def reverse_opinion(sentence: TaggedSentence, opinion: Opinion, finder: AntonymFinder,
                    polarity: str | None = None, avoid: frozenset[str] = frozenset()) -> Change | str:
    """The edits that reverse `opinion` (whose aspect has `polarity`), or why it cannot be reversed.

    `avoid` names ways (Change.how) a caller already tried and found wanting: the next one is tried.
    """
    indices = [i for i in sentence.covering(opinion.start, opinion.end)
               if not sentence.is_protected(sentence.tokens[i])]
    if not indices:
        return "the opinion words are part of an aspect term"
    sentence = _opinion_adjectives(sentence, indices, finder)
    removal = _remove_negation(sentence, indices)
    if removal == ():
        return "removing 'no' would leave a singular noun without an article"
    if removal is not None:
        return Change(removal, "negation removed") if "negation removed" not in avoid else "negation removal read wrong"
    head = _antonym_edit(sentence, indices, finder) if "antonym" not in avoid else None
    if head is not None:
        return Change(head, "antonym")
    added = _add_negation(sentence, indices, finder) if "negation added" not in avoid else "negation read wrong"
    if isinstance(added, str):
        plain = _plain_evaluation(sentence, indices, polarity, finder) if "plain evaluative adjective" not in avoid else None
        return Change(plain, "plain evaluative adjective") if plain else added
    return Change(added, "negation added")


def exaggerate_opinion(sentence: TaggedSentence, opinion: Opinion, adverb: str,
                       intensifiers: frozenset[str], weakeners: frozenset[str]) -> Change | str:
    """Put a degree adverb before the opinion's head adjective or adverb ("extremely poor").

    A plain lexical verb takes "really" only ("I really love the keyboard"; "remarkably tasted" is
    not English); a head that already has an adverb is left alone ("oddly bland").
    """
    indices = [i for i in sentence.covering(opinion.start, opinion.end)
               if not sentence.is_protected(sentence.tokens[i])]
    hedges = _phrase_tokens(sentence, indices, weakeners)  # "little" in "a little bit slow" is not the head
    heads = [i for i in indices if sentence.tokens[i].tag[:1] in "JR" and i not in hedges
             and sentence.tokens[i].lower not in NOT_LEXICAL | NEGATION_PARTICLES | PARTICLES | intensifiers | weakeners]
    if not heads:
        verbs = [i for i in indices if sentence.tokens[i].tag in ("VB", "VBP", "VBZ", "VBD")
                 and sentence.tokens[i].lower not in NOT_LEXICAL]
        before = [sentence.tokens[j] for j in sentence.left(verbs[0], 1)] if verbs else []
        if verbs and not any(t.tag.startswith(("RB", "MD")) or t.lower in NOT_LEXICAL | NEGATION_PARTICLES
                             for t in before):
            return Change(_insert_before(sentence, verbs[0], "really ", "exaggerate verb"), "exaggerated")
        return "no adjective, adverb or plain verb to intensify"
    head = heads[0]
    if sentence.tokens[head].tag in ("JJR", "JJS", "RBR", "RBS"):
        return "a comparative or superlative takes no degree adverb"  # "works really better"
    before = [sentence.tokens[j] for j in sentence.left(head, 2)]
    if before and (before[0].tag.startswith("RB") or before[0].lower in intensifiers | weakeners) or any(
            t.lower in weakeners for t in before):
        return "already intensified or weakened"
    # multi-word weakeners: "a bit slow", "a little bit slow", "kind of slow"
    if _preceded_by(sentence, head, [w for w in weakeners if " " in w]):
        return "already intensified or weakened"
    if any(t.lower in NEGATION_PARTICLES or t.lower == "no" for t in before) or any(
            sentence.tokens[i].lower in NEGATION_PARTICLES for i in indices):
        return "negated: an intensifier would read as a double negative"
    return Change(_insert_before(sentence, head, f"{adverb} ", "exaggerate"), "exaggerated")


def _phrase_tokens(sentence: TaggedSentence, indices: list[int], phrases: frozenset[str]) -> set[int]:
    """Indices of the tokens that belong to a multi-word phrase of `phrases` ("a little bit")."""
    covered: set[int] = set()
    for phrase in phrases:
        words = phrase.split()
        if len(words) < 2:
            continue
        for i in indices:
            if [t.lower for t in sentence.tokens[i:i + len(words)]] == words:
                covered.update(range(i, i + len(words)))
    return covered


def _opinion_adjectives(sentence: TaggedSentence, indices: list[int], finder: AntonymFinder) -> TaggedSentence:
    """Inside an opinion, a word tagged as a noun that WordNet knows as an adjective is one (the
    tagger reads "fluid" in "fast and fluid" as a noun), and so is a "verb" right before an aspect
    ("prompt delivery") or an "adverb" right before a noun ("the fast shipment")."""
    tokens = list(sentence.tokens)
    for i in indices:
        token = tokens[i]
        before_aspect = i + 1 < len(tokens) and sentence.is_protected(tokens[i + 1])  # "prompt delivery"
        after_subject = i > 0 and (tokens[i - 1].tag in ("PRP", "NN", "NNS", "NNP") or
                                   sentence.is_protected(tokens[i - 1]))  # "I like iTunes" stays a verb
        coordinated = i > 1 and tokens[i - 1].lower in ("and", "or") and tokens[i - 2].tag.startswith("JJ")
        never_a_verb = not finder.wordnet.synsets(token.lower, "v")  # "inconsiderate"
        # an inflected comparative right after "be" is an adjective: "is faster than" (tagged RBR)
        comparative = token.tag in ("RBR", "RBS") and i > 0 and tokens[i - 1].lower in BE_FORMS \
            and token.lower.endswith(("er", "est"))
        before_noun = i + 1 < len(tokens) and (tokens[i + 1].tag.startswith("NN") or before_aspect)
        misread = token.tag.startswith("NN") or (token.tag == "RB" and before_noun) or (token.tag in ("VB", "VBP") and (
            (before_aspect and not after_subject) or coordinated or never_a_verb))  # "pleasant and prompt"
        if (misread or comparative) and token.text.isalpha() and finder.wordnet.synsets(token.lower, "a") \
                and not (i + 1 < len(tokens) and tokens[i + 1].lower in ("of",)):
            tokens[i] = replace(token, tag="JJ" + token.tag[2:] if comparative else "JJ")
    return replace(sentence, tokens=tuple(tokens))


# ---------------------------------------------------------------- 1. removing a negation

def _remove_negation(sentence: TaggedSentence, indices: list[int]) -> tuple[Edit, ...] | None:
    tokens = sentence.tokens
    for i in indices:  # "a not-crowded place" -> "a crowded place"
        if tokens[i].lower.startswith("not-") and len(tokens[i].text) > 4:
            return (Edit(tokens[i].start, tokens[i].start + 4, tokens[i].text[:4], "", "remove negation"),)
    window = sorted(set(indices) | set(sentence.left(indices[0], 4)))
    for j in window:  # "no longer includes" -> "still includes"
        if tokens[j].lower == "no" and j + 1 < len(tokens) and tokens[j + 1].lower == "longer":
            return (Edit(tokens[j].start, tokens[j + 1].end, sentence.text[tokens[j].start:tokens[j + 1].end],
                         match_case(tokens[j].text, "still"), "remove negation"),)
    negators = [j for j in window if tokens[j].lower in NEGATION_PARTICLES or tokens[j].lower == "cannot"
                or (tokens[j].lower == "no" and j + 1 < len(tokens)
                    and (tokens[j + 1].tag[:1] in "NJ" or sentence.is_protected(tokens[j + 1])))]  # "no wait"
    if not negators:
        return None
    j = negators[-1]
    negator = tokens[j]
    if negator.lower == "no" and j + 1 < len(tokens) and _bare_singular_after_no(sentence, j):
        return ()  # "has no hard drive" -> "has hard drive": the caller reports it
    if negator.lower == "cannot":
        return (Edit(negator.start, negator.end, negator.text, match_case(negator.text, "can"), "remove negation"),)
    aux = tokens[j - 1] if j > 0 else None
    if aux is not None and negator.lower in ("not", "n't") and aux.lower in DO_FORMS:
        verb = _next_verb(sentence, j)
        if verb is None:
            return None
        tense = TAG_FOR_DO[aux.lower]
        lemma = tokens[verb].lower
        middle = sentence.text[tokens[j].end:tokens[verb].start].strip()
        new = (middle + " " if middle else "") + verb_form(lemma, tense)
        return (Edit(aux.start, tokens[verb].end, sentence.text[aux.start:tokens[verb].end],
                     match_case(aux.text, new), "remove do-support negation"),)
    if negator.lower == "n't":
        if aux is not None and aux.lower in CLITIC_NEGATED_MODALS:  # can't -> can, won't -> will
            full = match_case(aux.text, CLITIC_NEGATED_MODALS[aux.lower])
            return (Edit(aux.start, negator.end, sentence.text[aux.start:negator.end], full, "remove negation"),)
        return (Edit(negator.start, negator.end, negator.text, "", "remove negation"),)
    return (_delete_word(sentence, j, "remove negation"),)


def _bare_singular_after_no(sentence: TaggedSentence, no: int) -> bool:
    """After "no", the noun phrase's last noun is singular: removing "no" would leave no article."""
    nouns = []
    for token in sentence.tokens[no + 1:no + 6]:
        if token.tag.startswith("NN"):
            nouns.append(token)
        elif nouns or not token.tag.startswith("JJ"):
            break
    return bool(nouns) and nouns[-1].tag in ("NN", "NNP")


def _next_verb(sentence: TaggedSentence, after: int) -> int | None:
    for k in range(after + 1, min(after + 4, len(sentence.tokens))):
        token = sentence.tokens[k]
        if token.tag.startswith("VB"):
            return k
        if not token.tag.startswith("RB"):
            return None
    return None


def _delete_word(sentence: TaggedSentence, index: int, why: str) -> Edit:
    """Delete a word with the space after it (or before it, at the end of a clause)."""
    token = sentence.tokens[index]
    text = sentence.text
    end = token.end
    while end < len(text) and text[end] == " ":
        end += 1
    start = token.start
    if end == token.end:  # nothing after: eat the space before instead
        while start > 0 and text[start - 1] == " ":
            start -= 1
    following = next((t for t in sentence.tokens if t.start >= end), None)
    if sentence.is_sentence_start(index) and following is not None and not sentence.is_protected(following):
        # "Not bad" -> "Bad" (an aspect keeps its own casing: "No green beans" -> "green beans")
        return Edit(start, end + 1, text[start:end + 1], text[end].upper(), why)
    return Edit(start, end, text[start:end], "", why)


# ---------------------------------------------------------------- 2. antonyms

def _antonym_edit(sentence: TaggedSentence, indices: list[int], finder: AntonymFinder) -> tuple[Edit, ...] | None:
    for group in HEAD_ORDER:
        for i in indices:
            token = sentence.tokens[i]
            if token.tag[:1] != group or token.lower in NOT_LEXICAL or len(token.text) < 2:
                continue
            if group == "R" and token.lower in PARTICLES:
                continue
            following = sentence.tokens[i + 1] if i + 1 < len(sentence.tokens) else None
            if group == "V" and following is not None and following.tag in ("IN", "TO"):
                continue  # the preposition belongs to the verb: "suffering from" is not "enjoying from"
            previous = sentence.tokens[i - 1] if i > 0 else None
            if group == "J" and previous is not None and previous.lower in ADVERBIAL_VERBS \
                    and finder.valence is not None and finder.valence(token.lower) != 0:
                polarity = "positive" if finder.valence(token.lower) > 0 else "negative"
                return (Edit(token.start, token.end, token.text, match_case(token.text, ADVERB_OPPOSITE[polarity]),
                             "adverb for an adjective after a verb"),)
            if group == "J" and previous is not None and (previous.tag.startswith("VB") or
                                                          previous.lower in ADVERBIAL_VERBS) \
                    and previous.lower not in COPULAS and not sentence.is_protected(previous):
                continue  # "running great" is adverbial: "running terrible" is not English
            if group == "J" and previous is not None and previous.tag.startswith("JJ"):
                continue  # stacked adjectives read as one judgement: "warm welcoming" -> "warm unwelcoming"
            if token.tag not in ("JJR", "RBR") and _preceded_by(sentence, i, HEDGES):
                continue  # "a little bit uncomfortable" -> "a little bit comfortable"
            antonym = finder.find(token.text, token.tag)
            if antonym is None and token.tag in ("VBN", "VBG") and (token.lower, "a") in finder.curated:
                antonym = finder.find(token.text, "JJ")  # an adjectival participle: "overpriced", "impressed"
            if antonym is None:
                continue
            return (_replace_with_article(sentence, i, match_case(token.text, antonym.word), "antonym"),)
    return None


def _preceded_by(sentence: TaggedSentence, index: int, phrases) -> bool:
    """One of these (multi-word) phrases ends right before token `index`, within its clause."""
    before = " ".join(sentence.tokens[j].lower for j in reversed(list(sentence.left(index, 3))))
    return any(before == p or before.endswith(" " + p) for p in phrases)


def _replace_with_article(sentence: TaggedSentence, index: int, new: str, why: str) -> Edit:
    """Replace token `index` by `new`, fixing a directly preceding a/an ("a friendly" -> "an unfriendly")."""
    token = sentence.tokens[index]
    if index > 0 and sentence.tokens[index - 1].lower in ("a", "an") and \
            sentence.text[sentence.tokens[index - 1].end:token.start] == " ":
        article = sentence.tokens[index - 1]
        fixed = match_case(article.text, article_for(new))
        return Edit(article.start, token.end, sentence.text[article.start:token.end], f"{fixed} {new}", why)
    return Edit(token.start, token.end, token.text, new, why)


def _insert_before(sentence: TaggedSentence, index: int, words: str, why: str) -> tuple[Edit, ...]:
    """Insert `words` before token `index`, fixing a/an before it and sentence-initial capitals."""
    token = sentence.tokens[index]
    if index > 0 and sentence.tokens[index - 1].lower in ("a", "an") and \
            sentence.text[sentence.tokens[index - 1].end:token.start] == " ":
        article = sentence.tokens[index - 1]
        fixed = match_case(article.text, article_for(words))
        return (Edit(article.start, article.end, article.text, fixed, why), Edit(token.start, token.start, "", words, why))
    if sentence.is_sentence_start(index) and token.text[:1].isupper():
        lowered = token.text[:1].lower() + token.text[1:] if not token.text.isupper() else token.text
        return (Edit(token.start, token.end, token.text, match_case(token.text, words) + lowered, why),)
    return (Edit(token.start, token.start, "", words, why),)


def _plain_evaluation(sentence: TaggedSentence, indices: list[int], polarity: str | None,
                      finder: AntonymFinder) -> tuple[Edit, ...] | None:
    if polarity not in PLAIN_OPPOSITE:
        return None  # a neutral aspect's words must not gain a sentiment
    adjectives = [i for i in indices if sentence.tokens[i].tag.startswith("JJ")]
    if not adjectives or sentence.tokens[adjectives[0]].tag != "JJ":
        return None
    head = adjectives[0]
    following = sentence.tokens[head + 1] if head + 1 < len(sentence.tokens) else None
    if following is None or following.lower.endswith("ed") or not (
            following.tag.startswith("NN") or sentence.is_protected(following)):
        return None  # only attributive: "an awesome dinner"; never "out of this disappointing"
    if finder.valence is not None and abs(finder.valence(sentence.tokens[head].lower)) < 1.0:
        return None  # a describing word is no praise to replace: "old operating system", "upgradeable RAM"
    word = match_case(sentence.tokens[head].text, PLAIN_OPPOSITE[polarity])
    return (_replace_with_article(sentence, head, word, "plain opposite adjective"),)


# ---------------------------------------------------------------- 3. adding a negation

def _add_negation(sentence: TaggedSentence, indices: list[int], finder: AntonymFinder) -> tuple[Edit, ...] | str:
    tokens = sentence.tokens
    verbs = [i for i in indices if tokens[i].tag.startswith("VB") and tokens[i].lower not in NOT_NEGATABLE]
    heads = verbs or [i for i in indices if tokens[i].tag[:1] in "JRN" and tokens[i].lower not in NOT_LEXICAL]
    if heads and tokens[heads[0]].tag.startswith("VB"):
        before = tokens[heads[0] - 1].lower if heads[0] > 0 else ""
        declarative = not sentence.is_sentence_start(heads[0]) and before not in AUXILIARIES | DO_FORMS | {"to"}
        if declarative and tokens[heads[0]].lower in LIGHT_VERBS and finder.valence is not None and not any(
                abs(finder.valence(tokens[i].lower)) >= 1.0 for i in indices):
            # "you get a gigantic burrito" -> "you do not get ...": denying the event judges nothing
            return "a verb that carries no sentiment cannot be negated to reverse one"
        return _negate_verb(sentence, heads[0], finder)
    # a predicate: find its copula left of the opinion ("is really good", "looks great", "are out of this world")
    for j in sentence.left(indices[0], 5):
        word = tokens[j].lower
        if word in BE_FORMS:
            following = tokens[j + 1:j + 3]
            if following and following[0].lower in ("almost", "nearly"):
                return "a negation before 'almost' does not reverse"  # "is not almost pure HD"
            if len(following) == 2 and all(t.tag.startswith("JJ") for t in following) and following[1].text != ",":
                return "a negation before stacked adjectives is garbled"  # "was not hot tasty"
            if word == "be" and j > 0 and tokens[j - 1].lower in MODALS:
                return _negate_after_auxiliary(sentence, j - 1)  # "can be solved" -> "cannot be solved"
            return (Edit(tokens[j].end, tokens[j].end, "", " not", "negate copula"),)
        if word in COPULAS:
            return _negate_verb(sentence, j, finder)
        if word in MODALS:
            return _negate_after_auxiliary(sentence, j)
        if not (tokens[j].tag[:1] in "RJD" or tokens[j].tag in ("PRP$", "CD", "IN")):
            break
    verb_before = _verb_before(sentence, indices[0])  # "works like a charm", "have a problem"
    if not heads:
        if verb_before is not None:
            return _negate_verb(sentence, verb_before, finder)
        return "no adjective, verb, adverb or noun in the opinion words"
    head = heads[0]
    if tokens[head].tag[:1] == "N":
        return _negate_noun(sentence, head) or (
            _negate_verb(sentence, verb_before, finder) if verb_before is not None
            else "a noun opinion without a copula or verb cannot be negated fluently")
    start = head
    for j in sentence.left(head, 3):  # "very good food" -> "not very good food"
        if tokens[j].tag.startswith("RB"):
            start = j
        else:
            break
    if start > 0 and tokens[start - 1].lower in ("a", "an", "the", "this", "that", "my", "our", "their", "its"):
        return "an attributive adjective after a determiner cannot be negated fluently"
    # "works not perfectly", "for not optimal mobility", "the waiter not brusquely told": without a
    # copula or auxiliary English does not put "not" there
    return "an adjective or adverb without a copula cannot be negated fluently"


def _verb_before(sentence: TaggedSentence, first: int) -> int | None:
    """A lexical verb just left of the opinion, across determiners and prepositions ("works like a")."""
    for j in sentence.left(first, 3):
        token = sentence.tokens[j]
        if token.tag.startswith("VB") and token.lower not in NOT_NEGATABLE | NEGATION_PARTICLES:
            return j
        if not (token.tag in ("DT", "IN", "PDT", "PRP$") or token.lower == "like"):
            return None
    return None


def _negate_noun(sentence: TaggedSentence, noun: int) -> tuple[Edit, ...] | None:
    """'a problem' / 'any issues' -> 'no problem' / 'no issues'; a bare plural or mass noun takes 'no'."""
    tokens = sentence.tokens
    first = noun
    for j in sentence.left(noun, 2):  # adjectives in between: "a big problem" -> "no big problem"
        if tokens[j].tag.startswith("JJ"):
            first = j
        else:
            break
    if tokens[noun].lower in QUANTITY_NOUNS:
        return None  # "a lot of features" is no "no lot of features"
    before = tokens[first - 1] if first > 0 else None
    governor = tokens[first - 2].lower if first > 1 else None
    if before is not None and before.lower in ("a", "an", "any", "some"):
        if governor not in NO_FOR_A_AFTER:
            return None  # "works like a charm" -> "works like no charm" is not English
        return (Edit(before.start, before.end, before.text, match_case(before.text, "no"), "negate noun"),)
    if tokens[noun].tag == "NNS" and (before is None or before.tag[:1] in "VI"):
        return _insert_before(sentence, first, "no ", "negate noun")
    return None


def _negate_verb(sentence: TaggedSentence, verb: int, finder: AntonymFinder) -> tuple[Edit, ...] | str:
    tokens = sentence.tokens
    first = verb
    for j in sentence.left(verb, 3):  # adverbs stay between the negation and the verb
        if tokens[j].tag.startswith("RB") and tokens[j].lower not in NEGATION_PARTICLES:
            first = j
            continue
        if tokens[j].lower in AUXILIARIES | DO_FORMS:  # "will last", "do like" (emphatic do)
            return _negate_after_auxiliary(sentence, j)
        break
    tag = tokens[verb].tag
    if tag in ("VBN", "VBG"):
        return "a participle without an auxiliary cannot be negated fluently"  # "not pretty surprised"
    before = tokens[first - 1] if first > 0 else None
    causer = tokens[first - 2].lower if first > 1 else ""
    if tokens[verb].tag == "VB" and causer in CAUSATIVES:
        return "a bare infinitive after a causative verb takes no do-support"  # "makes it do not stand out"
    if before is not None and before.lower == "to" and first > 2 and tokens[first - 3].lower in CAUSATIVES:
        return "an infinitive after a causative verb cannot be negated"  # "allow you not to enjoy"
    if before is not None and before.lower in PASSIVE_AUXILIARIES:
        return "a passive participle takes no do-support"  # "got messed up" -> "got did not mess up"
    if before is not None and before.lower == "to":  # "be sure to try" -> "be sure not to try"
        return (Edit(before.start, before.start, "", "not ", "negate infinitive"),)
    if tag in ("VB", "VBP"):
        has_subject = before is not None and (before.tag in ("PRP", "NN", "NNS", "NNP", "NNPS")
                                              or sentence.is_protected(before))
        after = tokens[verb + 1] if verb + 1 < len(tokens) else None
        imperative = sentence.is_sentence_start(first) or (
            after is not None and (after.tag in ("DT", "PRP$", "PRP") or sentence.is_protected(after)))
        if not (has_subject or imperative):
            # a bare base form after "and" or a comma is as often a noun the tagger misread ("and ease of use")
            return "a base-form verb without a visible subject cannot be negated safely"
    after_verb = tokens[verb + 1] if verb + 1 < len(tokens) else None
    if after_verb is not None and after_verb.lower == "of":
        return "a noun read as a verb cannot take do-support"  # "ease of use" -> "do not ease of use"
    lemma = finder.lemma(tokens[verb].text, "v", tag)
    do = DO_FOR_TAG.get(tag, "do")
    middle = sentence.text[tokens[first].start:tokens[verb].start]
    new = f"{do} not {middle}{lemma}"
    if sentence.is_sentence_start(first):
        new = new[0].upper() + new[1:]
    return (Edit(tokens[first].start, tokens[verb].end, sentence.text[tokens[first].start:tokens[verb].end],
                 new, "negate verb with do-support"),)


def _negate_after_auxiliary(sentence: TaggedSentence, aux: int) -> tuple[Edit, ...]:
    token = sentence.tokens[aux]
    if token.lower == "can":
        return (Edit(token.start, token.end, token.text, match_case(token.text, "cannot"), "negate modal"),)
    return (Edit(token.end, token.end, "", " not", "negate auxiliary"),)
