"""Everything the perturbations read: WordNet, the tagger, the project's word lists and banks."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from absa_checks.common.domains import DOMAINS
from absa_checks.common.text import Tagger, pattern_tagger
from absa_checks.perturb.antonyms import AntonymFinder
from absa_checks.perturb.polarity import Polarity
from absa_checks.perturb.wordlists import BankEntry, WordLists, load_aspect_bank, load_wordlists
from absa_checks.perturb.wordnet import load_wordnet
from absa_checks.sources.infer import vader_lexicon

BASE_INTENSIFIERS = frozenset({"very", "so", "too", "really", "quite", "extremely", "super", "incredibly",
                               "absolutely", "totally", "completely", "highly", "truly", "most", "more"})


@dataclass(frozen=True)
class Resources:
    finder: AntonymFinder
    tagger: Tagger
    degree_adverbs: tuple[str, ...]
    intensifiers: frozenset[str]
    weakeners: frozenset[str]
    banks: Mapping[str, tuple[BankEntry, ...]]
    polarity: Polarity  # the lexicon's second opinion on a reversal

    def bank(self, domain: str) -> tuple[BankEntry, ...]:
        return self.banks[domain if domain in self.banks else "restaurant"]


def domain_vocabulary(domain: str, wordlists: WordLists) -> frozenset[str]:
    """Lower-case words of the domain's built-in sentences and aspect bank."""
    from absa_checks.sources.builtin import fixture_sentences

    words: set[str] = set()
    for sentence in fixture_sentences(domain):
        words.update(re.findall(r"[a-z]+", sentence.sentence.lower()))
    for entry in load_aspect_bank(domain):
        words.update(re.findall(r"[a-z]+", entry.expression.lower()))
    return frozenset(words)


def load_resources(domain: str) -> Resources:
    """Loads WordNet (a few seconds, once per process) and the word lists for `domain`."""
    wordlists = load_wordlists()
    polarity = Polarity()
    finder = AntonymFinder(load_wordnet(), wordlists.antonyms, domain_vocabulary(domain, wordlists),
                           frozenset(vader_lexicon()), polarity.valence)
    return Resources(finder=finder, tagger=pattern_tagger(), degree_adverbs=tuple(wordlists.degree_adverbs),
                     intensifiers=BASE_INTENSIFIERS | frozenset(wordlists.degree_adverbs),
                     weakeners=frozenset(wordlists.weakeners),
                     banks={d: load_aspect_bank(d) for d in DOMAINS}, polarity=polarity)
