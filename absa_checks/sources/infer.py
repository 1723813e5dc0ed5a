"""Opinion spans inferred for sources that annotate none (plain SemEval XML, MAMS, ARTS JSON, GCAE).

An aspect's opinion words are found from how they attach to the aspect, in the style of TOWE's
annotation (one span per opinion word; a negation belongs to its word: "not good", "didn't like"):

1. attributive: evaluative adjectives right before the aspect ("great food", "fresh and tasty sushi",
   "a faster processor", "no cd drive", "reasonably priced");
2. predicative: the aspect's noun phrase ("the battery life of this laptop", "the food and service",
   "iPhoto, which") is the subject of a linking verb and adjectives follow ("the soup was really tasty",
   "the staff is friendly and attentive", "is too slick", "is first rate", "was well prepared"); a
   strongly evaluative noun after the verb stands for them ("is a huge disappointment");
3. the aspect is the subject of a verb that is evaluative ("the screen flickers"), qualified by an
   evaluative adverb ("it works great", "responds well"), or negated or stopped when its job is to
   work ("did not work", "stopped working");
4. the aspect is the object of an evaluative verb ("I love the keyboard", "did not enjoy the food");
5. a word governs the aspect through a preposition ("happy with the OS", "great for gaming", "a
   problem with the touchpad", "plenty of storage") or an infinitive ("easy to use", "easy to use
   the keyboard");
6. an evaluative word right after the aspect with no verb between ("Works well", "priced just right",
   "Features: Average");
7. when rules 1-6 attach nothing: rule 2 or 3 for an "it"/"they" that follows the aspect closely
   ("I installed Linux via Parallels and it works flawlessly");
8. else the nearest clear sentiment word (VADER |valence| >= 1.5, or an evaluative adjective) of the
   aspect's own clause (absa_checks.sources.clauses.target_clause) that no rule gave another aspect.

"Evaluative" means the word carries sentiment in the VADER lexicon (|mean valence| >= 1.0) or in
TextBlob's adjective lexicon (|polarity| >= 0.2 with subjectivity >= 0.4), or is on the short
hand-written lists below, and is not on the list of words the lexicons rate but reviews use neutrally
("new", "like"). DESCRIPTIVE words ("small", "hot", "long") are opinions only where a rule attaches
them to an aspect, never by rule 8. After a linking verb any adjective counts, and so does a word
the tagger does not know that is one letter or two off an evaluative one ("exellent"). Parts of speech
come from TextBlob's pattern tagger, as in the perturbations; its tags only decide what the lexicons
cannot (a verb from a noun, an adverb from an adjective).

The word lists are written by hand from general review vocabulary, not taken from any annotated
data set. Spans never touch an aspect's words; at most three per aspect. Every opinion made here has
`inferred=True`. Precision matters more than recall: a wrong opinion word makes a wrong variant.
benchmarks/quality/opinion_inference.py measures both against TOWE's gold spans (docs/opinion_inference.md).

Why this module is long: the eight rules are one ordered cascade over one tagged sentence; they share the word
lists, the lexicon tests and the chain walkers, and a word list is only meaningful beside the rule that reads
it. Split by section, every rule would import a dozen private helpers from its neighbours and a change to one
list could not be read against the rules it changes; the whole is measured as one (docs/opinion_inference.md).
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from types import MappingProxyType

from absa_checks.common.errors import DataError
from absa_checks.common.examples import Aspect, Example, Opinion
from absa_checks.sources.clauses import target_clause

MIN_VALENCE = 1.0         # VADER (-4..4): mean valence of a clear sentiment word ("good" 1.9, "fine" 0.8)
NOUN_VALENCE = 1.5        # a noun needs more: "problem" (-1.7) judges, "luck" or "party" do not
FALLBACK_VALENCE = 1.5    # rule 8 guesses without syntax, so it takes only the clearest words
MIN_POLARITY = 0.2        # TextBlob: |polarity| of an evaluative adjective ...
MIN_SUBJECTIVITY = 0.4    # ... that is also subjective
PER_ASPECT = 3
MISSPELLED_MIN_LENGTH = 7     # shorter words are too often other real words one letter off
MISSPELLED_SIMILARITY = 0.85
PRONOUN_REACH = 6  # words: a farther "it" is as often the product as the aspect

# with the usual missing apostrophes of reviews ("didnt", "doesnt")
INFERENCE_NEGATORS = frozenset({"not", "never", "n't", "cannot", "dont", "doesnt", "didnt", "isnt", "wasnt", "arent", "werent",
                      "cant", "wont", "couldnt", "wouldnt", "shouldnt", "hasnt", "havent"})
INFERENCE_DETERMINERS = frozenset({"a", "an", "the", "this", "that", "these", "those", "my", "our", "your", "their", "his",
                         "her", "its", "some", "any", "all", "every", "each", "both", "another", "such"})
LINKING_VERBS = frozenset({
    "be", "is", "are", "was", "were", "am", "been", "being", "'s", "'re", "'m",
    "seem", "seems", "seemed", "look", "looks", "looked", "feel", "feels", "felt", "sound", "sounds", "sounded",
    "taste", "tastes", "tasted", "smell", "smells", "smelled", "stay", "stays", "stayed", "remain", "remains",
    "remained", "become", "becomes", "became", "get", "gets", "got", "appear", "appears", "appeared", "prove",
    "proved", "proves"})
INFERENCE_AUXILIARIES = frozenset({"do", "does", "did", "has", "have", "had", "'ve", "'d", "will", "would", "'ll", "can", "ca",
                         "could", "shall", "should", "may", "might", "must", "wo"})
# Degree, frequency and stance words: they modify an opinion, they are not one ("super fast").
DEGREE = frozenset({
    "very", "so", "too", "really", "quite", "extremely", "super", "incredibly", "absolutely", "totally",
    "completely", "highly", "truly", "pretty", "fairly", "rather", "somewhat", "slightly", "bit", "just", "always",
    "usually", "also", "still", "even", "definitely", "certainly", "surely", "simply", "generally", "mostly",
    "almost", "nearly", "exceptionally", "especially", "particularly", "amazingly", "surprisingly", "relatively",
    "fully", "overall", "most", "more", "less", "least", "little", "much", "way",
    "remarkably", "unbelievably", "ridiculously", "insanely", "exceedingly", "consistently", "often", "sometimes",
    "ever", "now", "then", "already", "only", "as", "enough", "clearly", "obviously", "perfectly", "hugely",
    "seriously", "terribly", "awfully", "horribly", "wonderfully", "beautifully", "again", "actually", "honestly",
    "frankly", "probably", "maybe", "extra"})
# Words between a subject and its verb that leave the predicate the subject's ("the dim sum however was bad").
PARENTHETICALS = frozenset({"however", "though", "too", "both", "all", "here", "there", "itself", "themselves",
                            "alone", "overall", "especially", "particularly"})
# Between a linking verb and its adjective: "is a bit slow", "is one of the best", "is by far the best".
PREDICATE_FILLER = frozenset({"a", "an", "the", "one", "of", "among", "by", "far", "kind", "sort", "bit", "all",
                              "anything", "something"})
# Words the lexicons rate that reviews use without judging anything ("the new model", "looks like").
NOT_EVALUATIVE = frozenset({
    "new", "old", "other", "same", "own", "only", "first", "last", "next", "whole", "entire", "main", "certain",
    "sure", "able", "available", "extra", "special", "original", "real", "actual", "live", "overall", "particular",
    "usual", "regular", "standard", "basic", "common", "general", "final", "total", "several", "various",
    "different", "additional", "current", "recent", "latest", "early", "late", "much", "more", "most", "many",
    "few", "less", "least", "like", "please", "yes", "no", "pretty", "super", "top", "support", "help",
    "care", "helps", "helped", "true", "left", "due", "well", "hand", "serious", "seriously", "whatever",
    "want", "wants", "wanted", "need", "needs", "needed", "hope", "hoped", "hopes", "thank", "thanks", "god", "lol",
    "joke", "play", "playing", "played", "share", "shared", "sharing", "save", "saved", "welcome", "matter", "honest",
    "honestly", "trust", "chance", "interest", "interested", "mean", "miss", "missed", "yeah", "wish", "positive",
    "negative", "soon", "ready", "straight", "deal", "dear", "dead", "stop", "stopped", "block", "cut", "war",
    "ill", "lost", "lose", "losing", "important", "significant", "major", "minor", "complete", "completely", "pure",
    "direct", "exact", "correct", "proper", "careful", "active", "party", "friends", "friend", "hands", "heart",
    "granted", "clearly", "definitely", "certainly", "surely", "truly", "really", "absolutely", "advantage",
    "united", "full", "freedom", "kiss", "hug", "haha", "wow", "hell", "damn", "pleasure", "lucky", "luck",
    "worry", "worried", "fine", "worth", "recommend", "recommended", "recommends", "problem", "problems", "issue",
    "issues", "trouble"})
# Opinions only where a rule ties them to the aspect ("small portions", "the soup was cold"); a loose
# "small" or "free" in a clause is usually about something else.
DESCRIPTIVE = frozenset({
    "big", "small", "tiny", "huge", "large", "long", "short", "high", "low", "hot", "cold", "warm", "cool",
    "dark", "light", "heavy", "thin", "thick", "loud", "quiet", "sweet", "sour", "spicy", "rich", "free", "fun",
    "funny", "fine", "easy", "hard", "clear", "strong", "weak", "right", "wrong", "worth", "limited", "plenty",
    "simple", "fair", "soft", "secure", "safe", "kind", "ok", "okay", "alright", "problem", "problems", "issue", "issues", "trouble",
    "recommend", "recommended", "recommends"})
# Before a noun these name a kind of thing, not an opinion of it ("hot and sour soup", "sweet potato fries").
DISH_WORDS = frozenset({"sour", "average"})
# Evaluative adjectives the two lexicons lack (written for this project: common review vocabulary).
ADJECTIVES = frozenset({
    "tasty", "yummy", "flavorful", "flavourful", "tasteless", "flavorless", "overpriced", "pricey", "pricy",
    "affordable", "inexpensive", "costly", "intuitive", "unintuitive", "reliable", "unreliable", "sturdy", "flimsy",
    "durable", "greasy", "salty", "soggy", "tender", "juicy", "crispy", "crunchy", "mushy", "rubbery", "overcooked",
    "undercooked", "burnt", "burned", "speedy", "snappy", "sluggish", "laggy", "buggy", "glitchy", "unresponsive", "roomy",
    "spacious", "cramped", "crowded", "overcrowded", "noisy", "cozy", "cosy", "clean", "dirty", "filthy", "spotless",
    "knowledgeable", "courteous", "inattentive", "prompt", "efficient", "inefficient", "unhelpful", "portable",
    "lightweight", "bulky", "clunky", "sleek", "slim", "compact", "crisp", "vibrant", "vivid", "dim", "grainy",
    "blurry", "comfortable", "uncomfortable", "ergonomic", "accurate", "inaccurate", "stable", "unstable", "fast",
    "slow", "quick", "smooth", "seamless", "outdated", "fresh", "stale", "bland", "authentic", "generous", "skimpy",
    "cheap", "expensive", "reasonable", "mediocre", "decent", "superb", "fabulous", "phenomenal", "stellar",
    "subpar", "sub-par", "lousy", "crappy", "shoddy", "sloppy", "rude", "friendly", "attentive", "polite",
    "impolite", "cheerful", "welcoming", "overrated", "underrated", "top-notch", "first-rate", "second-rate",
    "fantastic", "delectable", "scrumptious", "succulent", "inedible", "watery", "oily", "dry", "raw", "heavenly",
    "divine", "addictive", "responsive", "useless", "useful", "handy", "convenient", "inconvenient",
    "user-friendly", "upgradeable", "upgradable", "defective", "faulty", "broken", "sharp", "bright", "average",
    "solid", "spotty", "blazing", "powerful", "difficult", "tough", "chewy", "overdone", "bitter",
    "tepid", "lukewarm", "flavourless", "sensitive", "zippy", "nimble", "dull", "pleasant",
    "unpleasant", "calm", "accommodating", "adequate", "inadequate", "superior", "inferior", "reasonably-priced", "well-priced"})
VERBS = frozenset({
    "love", "loved", "loves", "like", "liked", "likes", "enjoy", "enjoyed", "enjoys", "adore", "adored", "adores",
    "hate", "hated", "hates", "dislike", "disliked", "dislikes", "recommend", "recommended", "recommends", "prefer",
    "preferred", "prefers", "appreciate", "appreciated", "crash", "crashes", "crashed", "freeze", "freezes", "froze",
    "overheat", "overheats", "overheated", "flicker", "flickers", "flickered", "lag", "lags", "lagged",
    "malfunction", "malfunctions", "malfunctioned", "die", "dies", "died", "fail", "fails", "failed", "excel",
    "excels", "excelled", "shine", "shines", "rock", "rocks", "suck", "sucks", "sucked", "stink", "stinks",
    "disappoint", "disappoints", "disappointed", "impress", "impresses", "impressed", "amaze", "amazes", "amazed",
    "rave", "raved", "regret", "regretted", "break", "breaks", "broke"})
# Adverbs and adjectives that say how something works ("works great", "runs smoothly", "priced right").
WORKING_ADVERBS = frozenset({
    "well", "great", "fine", "perfectly", "flawlessly", "beautifully", "nicely", "smoothly", "quickly", "fast",
    "slowly", "slow", "poorly", "badly", "terribly", "horribly", "wonderfully", "properly", "seamlessly", "reliably",
    "efficiently", "effortlessly", "quietly", "loudly", "brilliantly", "excellently", "superbly", "awesome",
    "amazing", "good", "right", "wrong", "awful", "terrible", "fantastic", "better", "worse", "best", "worst",
    "flawless", "perfect", "easily", "reasonably", "fairly", "cheaply", "generously", "promptly", "rudely",
    "warmly", "kindly", "graciously", "deliciously", "fresh", "hot", "cold", "quick", "ok", "okay"})
# Verbs of a device doing its job: negated or stopped, they are the opinion ("did not work", "stopped working").
FUNCTION_VERBS = frozenset({"work", "works", "worked", "working", "function", "functions", "functioned",
                            "functioning", "respond", "responds", "responded", "responding", "charge", "charges",
                            "charging", "boot", "boots", "booting", "load", "loads", "loading", "connect",
                            "connects", "connecting", "open", "opens", "opening", "last", "lasts", "lasted"})
STOP_VERBS = frozenset({"stop", "stops", "stopped", "quit", "quits", "ceased", "ceases"})
# Opinion phrases the lexicons cannot see word by word ("the webcam is top notch").
IDIOMS = tuple(tuple(p.split()) for p in (
    "top notch", "out of this world", "second to none", "in line", "up to par", "on point", "spot on", "so so", "top of the line", "first class", "first rate",
    "well worth it", "well worth", "a joke", "a rip off", "a ripoff", "a waste", "not bad", "not great"))
# Adjectives that take their object through "of" ("proud of the food"); other prepositions take any.
OF_ADJECTIVES = frozenset({"proud", "fond", "tired", "sick", "wary", "afraid", "ashamed", "worthy", "envious",
                           "jealous", "scared", "critical", "supportive", "full"})
# "great for gaming", "short on space", "good at ..." take any evaluative adjective; "with", "by", "about",
# "in" and "of" only one of feeling ("happy with the OS"): "is very good with each dish" is no opinion of the dish.
GOVERNING_PREPOSITIONS = frozenset({"for", "on", "at"})
EXPERIENCER_PREPOSITIONS = frozenset({"with", "by", "about", "in", "of"})
INFINITIVE_PREPOSITIONS = frozenset({"with", "through", "from", "on", "in", "around", "into"})
AMOUNT_NOUNS = frozenset({"plenty", "lots", "lack", "shortage", "abundance"})
# Nouns that judge what follows "with": "had a problem with the touchpad", "no issues with the battery".
TROUBLE_NOUNS = frozenset({"problem", "problems", "issue", "issues", "trouble", "troubles", "complaint",
                           "complaints", "difficulty", "difficulties"})
EXPERIENCERS = frozenset({"happy", "unhappy", "content", "fine", "ok", "okay", "glad", "sad", "upset", "mad",
                          "angry", "furious", "pleased", "satisfied", "impressed", "disappointed", "thrilled",
                          "delighted", "frustrated", "annoyed", "unimpressed", "dissatisfied", "displeased", "amazed",
                          "blown", "ecstatic", "excited", "enamored", "smitten", "hooked", "obsessed", "comfortable"})
SUBJECT_PREPOSITIONS = frozenset({"of", "in", "on", "for", "from", "at", "with", "inside", "under"})
INFERENCE_COORDINATORS = frozenset({"and", ",", "or", "&", "/"})
INFERENCE_SUBJECT_PRONOUNS = frozenset({"i", "we", "you", "they", "he", "she", "it", "who", "everyone", "everybody"})
INFERENCE_CLAUSE_STOPS = frozenset({".", ";", "!", "?", "(", ")", "--", "but", "although", "though", "while", "whereas",
                          "however", "yet", "because", "since", "unless", "except", "if", "when", "than"})

# Penn-style tokens with offsets, as the perturbations tokenize ("doesn't" -> "does" + "n't").
_TOKEN = re.compile(
    r"(?i)(?:ca|wo|sha|[a-z]+)(?=n't\b)|n't\b|'(?:s|m|re|ve|ll|d)\b|\d+(?:[.,]\d+)*(?!\w)"
    r"|\w+(?:[-.]\w+|'(?!(?:s|m|re|ve|ll|d)\b)\w+)*|[^\w\s]")
_ALPHA = re.compile(r"[A-Za-z][A-Za-z-]*")

Tagger = Callable[[Sequence[str]], list[str]]


@dataclass(frozen=True)
class Word:
    text: str
    lower: str
    start: int
    end: int
    tag: str
    aspect: int | None  # the index of the aspect whose span holds this word


@dataclass(frozen=True)
class Found:
    """An opinion of one aspect: words [first, last]; `rule` is the rule above that found it."""

    first: int
    last: int
    rule: int


# ---------------------------------------------------------------------------------------------- lexicons


@functools.lru_cache(maxsize=1)
def vader_lexicon() -> Mapping[str, float]:
    """word -> mean valence, read once from the vader_lexicon.txt that vaderSentiment ships."""
    try:
        text = resources.files("vaderSentiment").joinpath("vader_lexicon.txt").read_text(encoding="utf-8")
    except (ModuleNotFoundError, OSError) as err:
        raise DataError(f"opinion inference needs the VADER lexicon from the vaderSentiment package ({err}); "
                        "pip install vaderSentiment") from None
    lexicon: dict[str, float] = {}
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) < 2:
            continue
        try:
            lexicon.setdefault(fields[0], float(fields[1]))
        except ValueError:
            continue
    return MappingProxyType(lexicon)


@functools.lru_cache(maxsize=1)
def textblob_lexicon() -> Mapping[str, tuple[float, float]]:
    """word -> (polarity, subjectivity) averaged over its senses, from TextBlob's en-sentiment.xml."""
    try:
        from textblob.en import sentiment
    except ModuleNotFoundError as err:
        raise DataError(f"opinion inference needs TextBlob ({err}); pip install textblob") from None
    return MappingProxyType({word: (float(senses[None][0]), float(senses[None][1]))
                             for word, senses in sentiment.items() if None in senses})


@functools.lru_cache(maxsize=1)
def _tagger() -> Tagger:
    """TextBlob's pattern tagger, the perturbations' own (built once)."""
    from absa_checks.common.text import pattern_tagger

    return pattern_tagger()


def base_forms(word: str) -> tuple[str, ...]:
    """The word and the bases its inflection may hide ("fastest" -> "fast", "easier" -> "easy")."""
    forms = [word]
    for suffix, bases in (("iest", ("y",)), ("ier", ("y",)), ("est", ("", "e")), ("er", ("", "e"))):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            forms += [stem + b for b in bases]
            if stem[-1] == stem[-2]:  # "bigger" -> "big"
                forms.append(stem[:-1])
    return tuple(dict.fromkeys(forms))


def valence(word: str) -> float:
    """VADER's valence of the word; 0.0 when it has none."""
    return vader_lexicon().get(word, 0.0)


def evaluative(word: str, kind: str) -> bool:
    """Does `word` (lower case) judge what a rule attached it to, as an adjective, adverb, verb or noun?"""
    if kind == "verb" and word in VERBS or kind == "adverb" and word in WORKING_ADVERBS or word in DESCRIPTIVE:
        return True
    if word in NOT_EVALUATIVE or word in DEGREE or len(word) < 2:
        return False
    if kind == "noun":
        return abs(valence(word)) >= NOUN_VALENCE
    if kind == "verb":
        return abs(valence(word)) >= MIN_VALENCE
    forms = base_forms(word)
    if any(f in ADJECTIVES for f in forms) or any(abs(valence(f)) >= MIN_VALENCE for f in forms):
        return True
    blob = textblob_lexicon()
    return any(abs(blob[f][0]) >= MIN_POLARITY and blob[f][1] >= MIN_SUBJECTIVITY for f in forms if f in blob)


def clear_sentiment(word: str) -> bool:
    """A word that judges wherever it stands (rule 8): strongly valenced, and no degree or descriptive word."""
    return (word not in NOT_EVALUATIVE and word not in DESCRIPTIVE and word not in DEGREE
            and abs(valence(word)) >= FALLBACK_VALENCE)


# ---------------------------------------------------------------------------------------------- words


def tag_words(sentence: str, aspects: Sequence[Aspect]) -> tuple[Word, ...]:
    """The sentence's tokens with Penn tags and the aspect each belongs to."""
    tokens = list(_TOKEN.finditer(sentence))
    forms = []
    for i, m in enumerate(tokens):  # "Great food" and "GREAT food" are adjectives, not proper nouns
        text = m.group()
        shout = text.isupper() and len(text) > 1
        forms.append(text.lower() if shout or (i == 0 and text[:1].isupper() and text[1:].islower()) else text)
    tags = _tagger()(forms)
    words = []
    for m, tag in zip(tokens, tags):
        owner = next((k for k, a in enumerate(aspects) if m.start() < a.end and m.end() > a.start), None)
        words.append(Word(m.group(), m.group().lower().replace("\u2019", "'"), m.start(), m.end(), tag, owner))
    return tuple(words)


def _free(word: Word) -> bool:
    return word.aspect is None


def _opinion(word: Word, kind: str) -> bool:
    return _free(word) and _ALPHA.fullmatch(word.text) is not None and evaluative(word.lower, kind)


def _plain_adjective(word: Word) -> bool:
    """Tagged an adjective and not a word that never judges ("other", "new"), or a misspelled evaluative
    word ("accomodating", "sastifying": the tagger calls unknown words nouns)."""
    if not _free(word) or _ALPHA.fullmatch(word.text) is None or word.lower in NOT_EVALUATIVE or word.lower in DEGREE:
        return False
    return word.tag in ("JJ", "JJR", "JJS") and len(word.lower) > 2 or misspelled_evaluative(word.lower)


@functools.lru_cache(maxsize=4096)
def misspelled_evaluative(word: str) -> bool:
    """A long word no lexicon knows (nor the tagger's 94,000-word one) that is a letter or two off an
    evaluative adjective or participle."""
    from textblob.en import lexicon as known_words

    if len(word) < MISSPELLED_MIN_LENGTH or word in known_words or word in vader_lexicon() or evaluative(
            word, "adjective"):
        return False
    return bool(difflib.get_close_matches(word, _evaluative_vocabulary(), n=1, cutoff=MISSPELLED_SIMILARITY))


@functools.lru_cache(maxsize=1)
def _evaluative_vocabulary() -> tuple[str, ...]:
    words = set(ADJECTIVES) | {w for w, v in vader_lexicon().items() if abs(v) >= MIN_VALENCE and w.isalpha()}
    words |= {w for w, (p, subj) in textblob_lexicon().items() if abs(p) >= MIN_POLARITY and subj >= MIN_SUBJECTIVITY}
    return tuple(sorted(w for w in words if len(w) >= MISSPELLED_MIN_LENGTH - 1 and w not in NOT_EVALUATIVE))


def _modifier(word: Word) -> bool:
    """A degree word, or an adverb that judges nothing ("always", "clearly")."""
    return _free(word) and (word.lower in DEGREE or word.tag.startswith("RB") and not evaluative(word.lower, "adverb")
                             and not misspelled_evaluative(word.lower))


def _skip_modifiers(words: Sequence[Word], k: int) -> int:
    """Past degree words, unless one is itself the opinion at the end ("it works pretty well" keeps "well"),
    "kind of", and an "-ly" adverb grading an adjective ("unusually good", "wonderfully low")."""
    while k < len(words):
        if _modifier(words[k]) or _grading(words, k):
            k += 1
        elif words[k].lower in ("kind", "sort") and k + 1 < len(words) and words[k + 1].lower == "of":
            k += 2
        else:
            break
    return k


def _grading(words: Sequence[Word], k: int) -> bool:
    """An "-ly" adverb right before an adjective: it grades the opinion ("horribly cheap")."""
    return (_free(words[k]) and words[k].tag.startswith("RB") and words[k].lower.endswith("ly")
            and k + 1 < len(words) and words[k + 1].tag.startswith("JJ"))


def _aspect_precedes(words: Sequence[Word], j: int) -> bool:
    while j >= 0 and (words[j].lower in INFERENCE_DETERMINERS or words[j].lower in INFERENCE_COORDINATORS):
        j -= 1
    return j >= 0 and not _free(words[j])


# ---------------------------------------------------------------------------------------------- chains


def _chain_right(words: Sequence[Word], k: int, before_noun: bool = False, predicative: bool = False) -> list[int]:
    """Evaluative adjectives from k on, coordinated: "friendly and very attentive", "fast, light, and simple";
    one right before a noun describes that noun ("service fine, fun decor"), unless `before_noun`.
    After a linking verb (`predicative`) any adjective is what the aspect is said to be ("too slick")."""
    heads: list[int] = []
    while True:
        k = _skip_modifiers(words, k)
        plain = predicative and _plain_adjective(words[k]) and not _noun_follows(words, k) if k < len(words) else False
        if k >= len(words) or not (_opinion(words[k], "adjective") or plain) or (
                not before_noun and _noun_follows(words, k)):
            return heads
        heads.append(k)
        j = k + 1
        while j < len(words) and words[j].lower in INFERENCE_COORDINATORS:
            j += 1
        if predicative and j < len(words) and words[j].lower == "but" and _skip_modifiers(words, j + 1) > j + 1 \
                and "not" in {w.lower for w in words[j + 1:_skip_modifiers(words, j + 1)]}:
            j += 1  # "pretty good, but definitely not great": both are what the aspect is
        if j == k + 1:
            return heads
        while predicative and j < len(words) and words[j].lower in PREDICATE_FILLER:
            j += 1  # "excellent and one of the best"
        k = j


def _chain_left(words: Sequence[Word], k: int) -> list[int]:
    """Evaluative adjectives ending at k, leftwards, across degree words, descriptive adjectives that
    stand between ("great new features") and coordination ("fresh and tasty", "fast, light, and simple";
    a comma alone is no coordination: "lightweight, long battery life")."""
    heads: list[int] = []
    listing = False
    while k >= 0 and _free(words[k]):
        word = words[k]
        if word.lower in DEGREE and k + 1 in heads:
            pass  # "a little pricey", "pretty good"
        elif _opinion(word, "adjective") and _adjective_like(word) and (
                not heads or word.tag.startswith("JJ") or _listed(word)):
            heads.append(k)
        elif (word.lower in ("and", "&", "or") or word.lower == "," and (listing or _inside_phrase(words, k - 1))
              ) and heads:
            if k == 0 or not (_opinion(words[k - 1], "adjective") or words[k - 1].lower == ","):
                break
            listing = True
        elif _modifier(word) or word.tag.startswith("JJ") and not heads:
            pass
        else:
            break
        k -= 1
    return sorted(heads)


def _inside_phrase(words: Sequence[Word], k: int) -> bool:
    """Does the adjective at k open a noun phrase after a determiner, preposition or verb ("some really
    good, inexpensive ramen", "amid clean, chic decor")? Then a comma after it joins two adjectives of
    one noun; at the start of a clause it ends a list item ("lightweight, long battery life")."""
    j = k - 1
    while j >= 0 and _modifier(words[j]):
        j -= 1
    return j >= 0 and (words[j].lower in INFERENCE_DETERMINERS or words[j].tag in ("IN", "PRP$") or words[j].tag.startswith("VB"))


def _adjective_like(word: Word) -> bool:
    """Tagged or listed as an adjective; the tagger calls some adjectives adverbs ("fast"), never "-ly" ones."""
    return (word.tag.startswith(("JJ", "VBN", "VBG")) or _listed(word)
            or word.tag.startswith("RB") and not word.lower.endswith("ly"))


def _listed(word: Word) -> bool:
    return word.lower in DESCRIPTIVE or any(f in ADJECTIVES for f in base_forms(word.lower))


def _left_negator(words: Sequence[Word], k: int) -> int | None:
    """A negation governing word k ("not good", "did n't enjoy", "never really liked")."""
    j = k - 1
    while j >= 0 and k - j <= 3 and _free(words[j]):
        if words[j].lower in INFERENCE_NEGATORS:
            return j
        if not _modifier(words[j]):
            return None
        j -= 1
    return None


def _spans(heads: Sequence[int], negator: int | None, rule: int) -> list[Found]:
    """One opinion per head; a negation joins the heads it governs into one ("not light and slim")."""
    if not heads:
        return []
    if negator is not None and negator < heads[0]:
        return [Found(negator, heads[-1], rule)]
    return [Found(h, h, rule) for h in heads]


# ---------------------------------------------------------------------------------------------- rules


def _attributive(words: Sequence[Word], first: int) -> list[Found]:
    """Rule 1: "great food", "the freshest and most delicious sushi", "not great food"."""
    heads = [h for h in _chain_left(words, first - 1) if words[h].lower not in DISH_WORDS]
    if not heads and first >= 1 and words[first - 1].tag in ("JJR", "JJS") and _plain_adjective(words[first - 1]):
        heads = [first - 1]  # "a faster processor", "the largest screen": a comparison judges
    if not heads and first >= 1 and words[first].tag in ("VBN", "VBD") and _how(words, first - 1):
        heads = [first - 1]  # "reasonably priced", "well made"
    if not heads and first >= 3 and words[first - 1].lower in INFERENCE_DETERMINERS and words[first - 3].lower == "how" and (
            _opinion(words[first - 2], "adjective") or _plain_adjective(words[first - 2])):
        heads = [first - 2]  # "how small the desserts were"
    if not heads and first >= 1 and words[first - 1].lower == "no":
        return [Found(first - 1, first - 1, rule=1)]  # "no cd drive": a missing part is the complaint
    if (not heads and first >= 2 and words[first - 1].lower in INFERENCE_COORDINATORS and words[first - 2].aspect is not None
            and words[first].tag.startswith("NN")):
        # "the top-notch food and live entertainment": an adjective before the first aspect covers both
        j = first - 1
        while j >= 0 and (not _free(words[j]) or words[j].lower in INFERENCE_COORDINATORS or words[j].lower in INFERENCE_DETERMINERS):
            j -= 1
        heads = [h for h in _chain_left(words, j) if words[h].lower not in DISH_WORDS]
    return _spans(heads, _left_negator(words, heads[0]) if heads else None, rule=1)


def _subject_end(words: Sequence[Word], first: int, last: int) -> int:
    """The index after the noun phrase of the aspect at words[first..last]: past coordinated nouns ("the
    food and service", "price and purpose"), a possessive, a parenthesis, a prepositional phrase ("the
    battery life of this laptop") or a relative pronoun ("iPhoto, which is ..."). A coordinated phrase
    with its own determiner ("and the prices") joins only when the aspect starts its clause: in "great
    food and the prices are reasonable" the verb is the prices' alone."""
    starts_clause = _starts_clause(words, first)
    j, in_phrase = last + 1, False
    while j < len(words) and j - last <= 8:
        word = words[j]
        following = words[j + 1] if j + 1 < len(words) else None
        if not _free(word) or word.lower in ("'s", "'") or word.tag == "CD":
            pass
        elif word.text == "(":
            close = next((i for i in range(j, min(j + 8, len(words))) if words[i].text == ")"), None)
            if close is None:
                break
            j = close
        elif word.lower in INFERENCE_COORDINATORS and following is not None and not in_phrase and (
                not _free(following) or following.tag.startswith("NN") or following.lower in ("and", "or")
                or starts_clause and following.lower in INFERENCE_DETERMINERS):
            pass
        elif word.tag == "VBN" and following is not None and following.lower in LINKING_VERBS:
            pass  # "the games included are very good"
        elif word.lower in INFERENCE_DETERMINERS and (in_phrase or starts_clause and words[j - 1].lower in INFERENCE_COORDINATORS):
            pass
        elif word.lower in SUBJECT_PREPOSITIONS and (not in_phrase or words[j - 1].tag.startswith("NN")):
            in_phrase = True
        elif word.tag.startswith("NN") and (in_phrase or words[j - 1].lower in INFERENCE_COORDINATORS | INFERENCE_DETERMINERS):
            pass
        elif in_phrase and word.tag.startswith(("JJ", "PRP")):
            pass
        elif word.lower in ("which", "that", "who"):
            return j + 1  # the relative clause says what the aspect is or does
        elif word.lower == "," and following is not None and following.lower in ("which", "who"):
            pass
        else:
            break
        j += 1
    return j


def _starts_clause(words: Sequence[Word], first: int) -> bool:
    j = first - 1
    while j >= 0 and (words[j].lower in INFERENCE_DETERMINERS or words[j].tag in ("PRP$", "CD")):
        j -= 1
    return j < 0 or words[j].lower in INFERENCE_CLAUSE_STOPS or words[j].tag == ":"


def _predicate(words: Sequence[Word], start: int) -> list[Found]:
    """Rules 2 and 3: what the aspect's noun phrase (ending before `start`) is said to be or do."""
    k, linked, negator = start, False, None
    while k < len(words) and k - start < 7:
        word = words[k]
        if not linked and (word.lower in PARENTHETICALS or word.lower == "," and (
                k + 1 < len(words) and words[k + 1].lower in PARENTHETICALS or words[k - 1].lower in PARENTHETICALS)):
            k += 1  # "the dim sum, however, was very bad"
            continue
        if not _free(word) or word.lower in INFERENCE_CLAUSE_STOPS:
            return []
        if word.lower in INFERENCE_NEGATORS:
            negator = k if negator is None else negator
        elif word.lower in LINKING_VERBS:
            linked = True
        elif word.lower == "to" and (k > start and words[k - 1].lower not in INFERENCE_NEGATORS or k + 1 < len(words)
                                     and words[k + 1].lower == "be"):
            pass  # "seems to be", "found the food to be"; but "a place to relax": the aspect is no subject
        elif not (word.lower in INFERENCE_AUXILIARIES or _modifier(word) or linked and word.lower in PREDICATE_FILLER):
            break
        k += 1
    if k >= len(words) or negator is not None and negator >= k:
        return []
    if linked:
        phrase = _phrase_at(words, k)
        if phrase is not None:
            return [Found(k if negator is None else negator, phrase, rule=2)]
        heads = _chain_right(words, k, before_noun=True, predicative=True)
        if not heads and words[k].tag == "VBN":  # a passive and how it was done: "was cooked well"
            after = _skip_modifiers(words, k + 1)
            if after < len(words) and _how(words, after):
                return _spans([after], negator, rule=2)
        noun = next((j for j in range(k, min(k + 4, len(words))) if words[j].tag.startswith("NN")), None)
        if noun is not None and (not heads or noun == heads[-1] + 1) and _free(words[noun]):
            # "is a huge disappointment": the noun is the opinion, its adjectives only grade it;
            # "is a great machine": a plain noun, the adjective is the opinion
            if _opinion(words[noun], "noun") and all(words[j].tag.startswith(("JJ", "DT", "RB"))
                                                     for j in range(k, noun)):
                heads = [noun]
        return _spans(heads, negator, rule=2)
    verb = words[k]
    # the tagger reads many verbs after a noun as nouns ("the screen flickers", "it works great")
    if not _free(verb) or not _ALPHA.fullmatch(verb.text) or not verb.tag.startswith(("VB", "NN")):
        return []
    after = _skip_modifiers(words, k + 1)
    if after < len(words) and _how(words, after):
        return _spans([after], negator, rule=3)
    if negator is not None and verb.lower in FUNCTION_VERBS:
        return _spans([k], negator, rule=3)  # "the left hinge did not work"
    if verb.lower in STOP_VERBS and k + 1 < len(words) and words[k + 1].lower in FUNCTION_VERBS:
        return [Found(k, k + 1, rule=3)]  # "the charger stopped working"
    for j in range(k + 1, min(k + 6, len(words))):  # "the waitress remembers me and is very friendly"
        if not _free(words[j]) or words[j].lower in INFERENCE_CLAUSE_STOPS or words[j].lower == ",":
            break
        if words[j].lower == "and" and j + 1 < len(words) and (
                words[j + 1].lower in LINKING_VERBS or words[j + 1].lower in INFERENCE_AUXILIARIES):
            return _predicate(words, j + 1)
    # a verb is an opinion of its subject when it judges ("flickers", "sucks", "fails"), not when it only
    # sounds friendly ("the staff welcomes you", "the place attracts a crowd")
    if verb.lower in VERBS or verb.tag.startswith("VB") and _opinion(verb, "verb") and valence(verb.lower) <= -NOUN_VALENCE:
        return _spans([k], negator, rule=3)
    return []


def _how(words: Sequence[Word], k: int) -> bool:
    """Does word k say how something works ("works great", "runs smoothly")? Not "as well" (also), "right
    out of the box" (place) or an adjective of a following noun."""
    word = words[k]
    if not _free(word) or _noun_follows(words, k) or k > 0 and words[k - 1].lower == "as" and word.lower == "well":
        return False
    if word.lower == "right" and k + 1 < len(words) and words[k + 1].tag in ("IN", "TO", "RB", "RP"):
        return False
    return word.lower in WORKING_ADVERBS or word.tag.startswith("RB") and evaluative(word.lower, "adverb")


def _phrase_at(words: Sequence[Word], k: int) -> int | None:
    """The last word of an opinion phrase starting at k after a linking verb: an idiom ("top notch", "out
    of this world") or a manner adverb with its participle ("well prepared", "nicely done")."""
    for phrase in IDIOMS:
        if [w.lower for w in words[k:k + len(phrase)]] == list(phrase) and all(_free(w) for w in words[k:k + len(phrase)]):
            return k + len(phrase) - 1
    if (k + 1 < len(words) and words[k].lower in WORKING_ADVERBS and words[k].lower.endswith(("ly", "ll"))
            and words[k + 1].tag == "VBN" and _free(words[k + 1])):
        return k + 1
    return None


def _noun_follows(words: Sequence[Word], k: int) -> bool:
    return k + 1 < len(words) and (words[k + 1].tag.startswith("NN") or not _free(words[k + 1]))


def _object_of_verb(words: Sequence[Word], first: int) -> list[Found]:
    """Rule 4: "I love the keyboard", "did not enjoy the new Windows 8", "recommend the X, Y and Z"."""
    k = first - 1
    while k >= 0 and first - k <= 8 and (
            words[k].lower in INFERENCE_DETERMINERS or words[k].tag in ("CD", "PRP$") or words[k].lower == "of"
            or words[k].lower == "'s" and k > 0 and words[k - 1].tag.startswith("NN")
            or words[k].tag.startswith("JJ") and not _opinion(words[k], "adjective")
            or (not _free(words[k]) or words[k].lower in INFERENCE_COORDINATORS) and _aspect_precedes(words, k)):
        k -= 1
    if k < 0 or not _opinion(words[k], "verb") or k > 0 and words[k - 1].lower in INFERENCE_DETERMINERS:
        return []
    verb = words[k]
    if verb.lower.startswith("like") or not verb.tag.startswith("VB"):
        # "like" is mostly a preposition ("programs like iLife"), and a noun-tagged "love" a noun:
        # a verb only after a subject pronoun or an auxiliary ("I like", "don't like")
        if verb.lower not in VERBS or not _has_subject(words, k, pronoun_only=True):
            return []
    return _spans([k], _left_negator(words, k), rule=4)


def _has_subject(words: Sequence[Word], k: int, pronoun_only: bool = False) -> bool:
    """Is word k a finite verb after its subject (across adverbs, negations and auxiliaries)?"""
    j = k - 1
    while j >= 0 and (_modifier(words[j]) or words[j].lower in INFERENCE_NEGATORS or words[j].lower in INFERENCE_AUXILIARIES):
        j -= 1
    if j < k - 1 and words[j + 1].lower in INFERENCE_AUXILIARIES | INFERENCE_NEGATORS:
        return True  # "don't like", "would recommend"
    if j < 0:
        return True  # reviews drop the "I": "Love the keyboard", "Really like the textured surface"
    return (words[j].lower in INFERENCE_SUBJECT_PRONOUNS or not pronoun_only and words[j].tag.startswith("NN"))


def _governed(words: Sequence[Word], first: int) -> list[Found]:
    """Rule 5: "happy with the OS", "great for gaming", "proud of their food", "easy to use", "easy to
    use the keyboard", "had a problem with the touchpad"."""
    k = first - 1
    while k >= 0 and first - k <= 8 and (
            words[k].lower in INFERENCE_DETERMINERS or words[k].tag in ("CD", "PRP$", "POS")
            or words[k].tag.startswith("JJ") and not _opinion(words[k], "adjective")
            or (not _free(words[k]) or words[k].lower in INFERENCE_COORDINATORS) and _aspect_precedes(words, k)):
        k -= 1
    if k < 1 or not _free(words[k]):
        return []
    link = words[k].lower
    if link == "with" and words[k - 1].lower in TROUBLE_NOUNS:
        return [Found(k - 1, k - 1, rule=5)]  # the generator negates it: "a problem" -> "no problem"
    if link == "of" and words[k - 1].lower in AMOUNT_NOUNS and k == first - 1:
        return [Found(k - 1, k - 1, rule=5)]  # "plenty of storage", "lack of flavor"
    if link in INFINITIVE_PREPOSITIONS and k >= 3 and words[k - 1].tag.startswith("VB") and words[k - 2].lower == "to":
        link, k = "to", k - 2  # "easy to navigate through the menus"
    elif words[k].tag.startswith("VB") and k >= 2 and words[k - 1].lower == "to":
        link, k = "to", k - 1  # "easy to use the keyboard"
    elif link == "to" and k != first - 1:
        return []
    if link == "to":
        heads = _chain_left(words, k - 1)
    elif link in EXPERIENCER_PREPOSITIONS:
        heads = [h for h in _chain_left(words, k - 1) if _experiencer(words[h], link)]
    elif link in GOVERNING_PREPOSITIONS:
        heads = _chain_left(words, k - 1)
    else:
        return []
    return _spans(heads, _left_negator(words, heads[0]) if heads else None, rule=5)


def _experiencer(word: Word, preposition: str) -> bool:
    """An adjective of how someone feels about what follows ("pleased with", "disappointed in")."""
    if preposition == "of":
        return word.lower in OF_ADJECTIVES
    return word.lower in EXPERIENCERS or word.tag == "VBN" or word.lower.endswith("ed")


def _after_aspect(words: Sequence[Word], last: int) -> list[Found]:
    """Rule 6: an evaluative word right after the aspect: "Works well", "priced just right", "Service:
    slow"; not when a noun follows it (then it describes that noun)."""
    k = last + 1
    labelled = k < len(words) and words[k].text in (":", "-")  # "Features: Average": no tag to trust
    k = _skip_modifiers(words, k + labelled)
    if k >= len(words) or not _free(words[k]) or not _opinion(words[k], "adverb") or not (
            labelled or words[k].tag.startswith("JJ") or _how(words, k)):
        return []
    return _spans(_chain_right(words, k) or [k], None, rule=6)


def _pronoun_predicate(words: Sequence[Word], last: int) -> list[Found]:
    """Rule 7: a later "it" or "they" of the same sentence, with no aspect between, is the aspect as a
    subject: "I installed Linux via Parallels and it works flawlessly"."""
    for j in range(last + 1, min(last + 1 + PRONOUN_REACH, len(words))):
        if not _free(words[j]) or words[j].lower in (".", "!", "?", ";"):
            return []
        if words[j].lower in ("it", "they") and words[j - 1].lower in ("and", ",", "but", "so", "-"):
            return [replace(f, rule=7) for f in _predicate(words, j + 1)]
    return []


def _clause_fallback(sentence: str, words: Sequence[Word], aspect: Aspect, claimed: set[int]) -> list[Found]:
    """Rule 8: the nearest clear sentiment word of the aspect's own clause that no rule gave another aspect:
    strongly valenced (VADER), or an adjective the lexicons call evaluative that is not merely descriptive."""
    lo, hi = clause_bounds(sentence, aspect.start, aspect.end)
    found = []
    for k, word in enumerate(words):
        if (lo <= word.start and word.end <= hi and _free(word) and k not in claimed
                and (clear_sentiment(word.lower) or word.tag.startswith("JJ") and word.lower not in DESCRIPTIVE
                     and _opinion(word, "adjective"))):
            distance = aspect.start - word.end if word.end <= aspect.start else word.start - aspect.end
            found.append((distance, k))
    return [Found(k, k, rule=8) for _, k in sorted(found)[:1]]


# ---------------------------------------------------------------------------------------------- spans


def find_opinions(sentence: str, aspects: Sequence[Aspect]) -> tuple[tuple[Word, ...], list[list[Found]]]:
    """The tagged words and, for each aspect, the opinions the rules find (before spans are made)."""
    words = tag_words(sentence, aspects)
    places = []
    for index in range(len(aspects)):
        mine = [k for k, w in enumerate(words) if w.aspect == index]
        places.append((mine[0], mine[-1]) if mine else None)  # None: an empty span, or inside an earlier aspect
    by_aspect = [_attached(words, *place) if place else [] for place in places]
    for index, place in enumerate(places):  # "the anti-pasta was poor, especially the calamari"
        example_of = _example_of(words, place[0]) if place and not by_aspect[index] else None
        if example_of is not None:
            by_aspect[index] = [f for f in by_aspect[example_of] if f.rule == 2]
    claimed = {k for found in by_aspect for f in found for k in range(f.first, f.last + 1)}
    for index, place in enumerate(places):
        if place and not by_aspect[index]:
            by_aspect[index] = (_pronoun_predicate(words, place[1])
                                or _clause_fallback(sentence, words, aspects[index], claimed))
    return words, by_aspect


def _example_of(words: Sequence[Word], first: int) -> int | None:
    """The aspect that the aspect at `first` is singled out from ("..., especially the calamari"):
    it shares that aspect's predicate."""
    j = first - 1
    while j >= 0 and words[j].lower in INFERENCE_DETERMINERS:
        j -= 1
    if j < 1 or words[j].lower not in ("especially", "particularly", "including", "notably") or words[j - 1].text != ",":
        return None
    for k in range(j - 2, -1, -1):
        if words[k].lower in INFERENCE_CLAUSE_STOPS:
            return None
        if words[k].aspect is not None:
            return words[k].aspect
    return None


def _attached(words: Sequence[Word], first: int, last: int) -> list[Found]:
    """Rules 1-6 for the aspect at words[first..last]."""
    return (_attributive(words, first) + _predicate(words, _subject_end(words, first, last))
            + _object_of_verb(words, first) + _governed(words, first) + _after_aspect(words, last))


def _char_span(words: Sequence[Word], found: Found) -> tuple[int, int]:
    first = found.first
    negator = _left_negator(words, first)
    if found.first == found.last and negator is not None and first - negator == 1:
        first = negator  # "not good", "never disappoints"
    while first > 0 and _grading(words, first - 1) and evaluative(words[first - 1].lower, "adverb"):
        first -= 1  # "wonderfully low", "horribly cheap": the grading adverb judges too
    start = words[first].start
    if words[first].lower == "n't" and first > 0 and words[first - 1].end == start:
        start = words[first - 1].start  # "isn't bad", not "n't bad"
    return start, words[found.last].end


def infer_opinions(sentence: str, aspects: Sequence[Aspect]) -> tuple[Opinion, ...]:
    """Inferred opinions for every aspect; Opinion.aspect is the aspect's index in `aspects`."""
    if not aspects:
        return ()
    words, by_aspect = find_opinions(sentence, aspects)
    taken = [(a.start, a.end) for a in aspects]
    result: list[Opinion] = []
    for index, found in enumerate(by_aspect):
        kept: list[tuple[int, int]] = []
        for f in sorted(found, key=lambda f: (f.rule, f.first)):
            start, end = _char_span(words, f)
            if len(kept) < PER_ASPECT and not any(start < e and end > s for s, e in taken + kept):
                kept.append((start, end))
                result.append(Opinion(sentence[start:end], start, end, aspect=index, inferred=True))
    return tuple(result)


def with_inferred_opinions(example: Example) -> Example:
    """The example with opinions inferred for its target and other aspects, unless it has some."""
    if example.opinions:
        return example
    return replace(example, opinions=infer_opinions(example.sentence, [example.target, *example.others]))


def is_negator(word: str) -> bool:
    lower = word.lower().replace("\u2019", "'")
    return lower in INFERENCE_NEGATORS or lower.endswith("n't")


def clause_bounds(sentence: str, start: int, end: int) -> tuple[int, int]:
    """Character offsets of target_clause(sentence, start, end); the whole sentence if not found."""
    clause = target_clause(sentence, start, end)
    at = sentence.find(clause) if clause else -1
    while at != -1:
        if at <= start and at + len(clause) >= end:
            return at, at + len(clause)
        at = sentence.find(clause, at + 1)
    return 0, len(sentence)
