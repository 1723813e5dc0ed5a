"""Antonyms in context: WordNet's, of the same part of speech, preferring words of the domain.

Order of preference for a word tagged in its sentence:
Senses are tried most frequent first (WordNet's order), so "fresh" gives "stale", not "preserved".
Order: the project's curated list (fixtures/antonyms.tsv: review senses, and words WordNet cannot
flip); WordNet's direct antonyms (for verbs only sentiment words: love -> hate, not ignore -> know;
none for nouns, which read better negated: "is not a joy"); then, for
adjective satellites ("rude" ~ "discourteous"), the head adjective's antonyms when the domain uses
them. Among one sense's candidates, domain words come first, then WordNet's usage counts.
When nothing fits, the caller negates instead. Only single words; the antonym is inflected like the original
("loved" -> "hated", "faster" -> "slower").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from absa_checks.perturb.inflect import adjective_form, verb_form

TAG_TO_WORDNET = {"J": "a", "V": "v", "R": "r", "N": "n"}
# Review spellings of verbs that WordNet does not know, so "I reccomend the dumplings" still reads as a verb
MISSPELLED_VERBS = frozenset({"reccomend", "recomend", "recommed", "reccommend", "reccomended", "recomended"})
SATELLITE_SENSES = 2  # a satellite's head is a fair stand-in only for the word's main senses
MIN_SENSE_VALENCE = 1.2  # both words clearly evaluative: "huge" 1.3 -> "small" -1.0 is size, not praise


def wordnet_pos(tag: str) -> str | None:
    return TAG_TO_WORDNET.get(tag[:1]) if tag else None


@dataclass(frozen=True)
class Antonym:
    word: str     # inflected like the original
    lemma: str
    source: str   # "wordnet", "wordnet-satellite" or "curated"


class AntonymFinder:
    """Looks antonyms up once per (lemma, pos); an instance per run, no global cache."""

    def __init__(self, wordnet: Any, curated: Mapping[tuple[str, str], str], domain_vocabulary: frozenset[str],
                 sentiment_words: frozenset[str] = frozenset(), valence: Callable[[str], float] | None = None):
        self.wordnet = wordnet
        self.curated = curated
        self.domain_vocabulary = domain_vocabulary  # lower-case words of the domain's reviews
        self.sentiment_words = sentiment_words      # a sentiment lexicon's entries (VADER's)
        self.valence = valence                      # word -> lexicon valence; None: no sense check
        self._cache: dict[tuple[str, str], tuple[str, str] | None] = {}

    def lemma(self, word: str, pos: str, tag: str = "") -> str:
        word = word.lower()
        if tag in ("JJR", "JJS", "RBR", "RBS"):
            # WordNet lists some comparatives as lemmas of their own ("smaller"): take the base form
            bases = [b for b in self.wordnet._morphy(word, pos) if b != word]
            if bases:
                return bases[0]
        return self.wordnet.morphy(word, pos) or word

    def is_verb(self, word: str) -> bool:
        word = word.lower()
        return word in MISSPELLED_VERBS or bool(self.wordnet.morphy(word, "v"))

    def find(self, word: str, tag: str) -> Antonym | None:
        pos = wordnet_pos(tag)
        if pos is None:
            return None
        lemma = self.lemma(word, pos, tag)
        key = (lemma, pos)
        if key not in self._cache:
            self._cache[key] = self._lookup(lemma, pos)
        found = self._cache[key]
        if found is None:
            return None
        antonym, source = found
        if pos == "v":
            return Antonym(verb_form(antonym, tag), antonym, source)
        if pos == "a" and tag in ("JJR", "JJS") and lemma != word.lower():
            return Antonym(adjective_form(antonym, tag), antonym, source)
        if pos == "n" and tag in ("NNS", "NNPS") and word.lower() != lemma:
            return Antonym(antonym + ("es" if antonym.endswith(("s", "x", "ch", "sh")) else "s"), antonym, source)
        return Antonym(antonym, antonym, source)

    def _lookup(self, lemma: str, pos: str) -> tuple[str, str] | None:
        # WordNet lists a word's senses most frequent first: take the first sense that has an antonym.
        # Verb and noun antonyms are semantic opposites more often than fluent swaps ("enjoy" ->
        # "suffer"), so those must be words the domain's reviews use; otherwise we negate instead.
        curated = self.curated.get((lemma, pos))
        if curated:  # the project's review-sense choice wins ("great" -> "terrible", not "small")
            return curated, "curated"
        synsets = self.wordnet.synsets(lemma, pos)
        for rank, synset in enumerate(synsets):
            direct = {a.name() for lem in synset.lemmas() if lem.name().lower() == lemma for a in lem.antonyms()}
            if pos == "n":
                return None  # "is a joy" -> "is a sorrow" reads badly: nouns are negated ("is not a joy")
            if pos == "v":
                # a verb's opposite swaps the opinion only when it carries sentiment itself:
                # love -> hate, but not ignore -> know ("Our waiter known us")
                direct = {d for d in direct if d.lower() in self.sentiment_words}
            # a rarer sense's antonym ("flat" -> "contrasty") only when the domain uses it
            best = self._best(direct, pos, domain_only=rank > 0, lemma=lemma)
            if best:
                return best, "wordnet"
        for synset in synsets[:SATELLITE_SENSES]:
            if synset.pos() != "s":
                continue
            via_head = {a.name() for head in synset.similar_tos() for lem in head.lemmas() for a in lem.antonyms()}
            best = self._best(via_head, pos, domain_only=True, lemma=lemma)  # a head's antonym is a loose fit
            if best:
                return best, "wordnet-satellite"
        return None

    def _opposite_sense(self, lemma: str, candidate: str) -> bool:
        """The lexicon reads the two words as of opposite sentiment: WordNet's antonym is the review
        sense's ("cool" -> "warm" are both praise, "heavy" -> "light" judge nothing, "free" -> "unfree")."""
        if self.valence is None:
            return True
        a, b = self.valence(lemma), self.valence(candidate)
        return a * b < 0 and min(abs(a), abs(b)) >= MIN_SENSE_VALENCE

    def _best(self, candidates: set[str], pos: str, domain_only: bool = False, lemma: str = "") -> str | None:
        single = [c for c in candidates if "_" not in c
                  and (not domain_only or c.lower() in self.domain_vocabulary)
                  and (not lemma or self._opposite_sense(lemma, c))]
        if not single:
            return None

        def usage(word: str) -> int:
            return sum(lem.count() for s in self.wordnet.synsets(word, pos) for lem in s.lemmas() if lem.name() == word)

        return min(single, key=lambda w: (w.lower() not in self.domain_vocabulary, -usage(w), w))
