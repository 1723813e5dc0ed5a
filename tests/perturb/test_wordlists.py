"""The word lists behind ARTS perturbations: every file loads, meets its minimum size, and says what it claims."""

from __future__ import annotations

import dataclasses

import pytest

from absa_checks.common.errors import AbsaChecksError, DataError
from absa_checks.perturb import wordlists
from absa_checks.perturb.wordlists import (
    BankEntry,
    count_whole_words,
    load_antonyms,
    load_aspect_bank,
    load_conjunctions,
    load_degree_adverbs,
    load_negators,
    load_weakeners,
    load_wordlists,
)

DOMAINS = ("restaurant", "laptop")


@pytest.fixture(scope="module")
def wn():
    try:
        from absa_checks.perturb.wordnet import load_wordnet

        return load_wordnet()
    except (ImportError, LookupError, OSError, AbsaChecksError) as error:
        pytest.skip(f"WordNet 3.0 cannot be loaded here ({error}); the antonym check needs it")


def test_everything_loads():
    lists = load_wordlists()
    assert set(lists.aspect_banks) == set(DOMAINS)
    assert lists.aspect_bank("laptop") == load_aspect_bank("laptop")
    assert dataclasses.is_dataclass(lists) and isinstance(lists.aspect_banks["restaurant"][0], BankEntry)
    with pytest.raises(dataclasses.FrozenInstanceError):
        lists.weakeners = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        lists.negators["not"] = "adverb"  # type: ignore[index]


@pytest.mark.parametrize("domain", DOMAINS)
def test_aspect_bank_sizes(domain):
    bank = load_aspect_bank(domain)
    polarities = [entry.polarity for entry in bank]
    assert polarities.count("positive") >= 90
    assert polarities.count("negative") >= 90
    assert set(polarities) == {"positive", "negative"}
    assert len({entry.aspect for entry in bank}) >= 45


@pytest.mark.parametrize("domain", DOMAINS)
def test_aspect_bank_expressions(domain):
    for entry in load_aspect_bank(domain):
        assert count_whole_words(entry.aspect, entry.expression) == 1, entry
        assert entry.expression == entry.expression.strip() and entry.expression[-1] not in ".!?,;:", entry
        assert entry.expression[0].islower(), entry


@pytest.mark.parametrize("domain", DOMAINS)
def test_aspect_bank_clauses_name_only_their_own_aspect(domain):
    """An added clause must not talk about another bank aspect too (ADDDIFF picks clauses by aspect)."""
    bank = load_aspect_bank(domain)
    aspects = {entry.aspect for entry in bank}
    for entry in bank:
        others = {a for a in aspects if a != entry.aspect and count_whole_words(a, entry.aspect) == 0
                  and count_whole_words(a, entry.expression)}
        assert not others, (entry, others)


def test_whole_words():
    assert count_whole_words("fan", "the fan is loud") == 1
    assert count_whole_words("fan", "the fans are fantastic") == 0
    assert count_whole_words("wine list", "the Wine List is long") == 1
    assert count_whole_words("menu", "the dessert menu and the menu") == 2


def test_degree_adverbs_and_weakeners():
    adverbs, weak = load_degree_adverbs(), load_weakeners()
    # kept to the intensifiers that read naturally with praise and complaint alike
    assert len(adverbs) >= 8 and len(weak) >= 10
    assert {"extremely", "really", "incredibly"} <= set(adverbs)
    assert not set(adverbs) & set(weak)
    assert {"extremely", "really", "incredibly", "truly"} <= set(adverbs)
    assert {"barely", "slightly", "somewhat", "a bit", "fairly", "rather", "kind of"} <= set(weak)


def test_negators():
    negators = load_negators()
    assert set(negators.values()) <= {"particle", "contraction", "determiner", "adverb", "preposition"}
    for word in ("not", "n't", "never", "no", "none", "nothing", "neither", "nor", "hardly", "cannot", "without"):
        assert word in negators, word
    assert negators["not"] == "particle" and negators["n't"] == "contraction" and negators["without"] == "preposition"
    negators["not"] = "changed"
    assert load_negators()["not"] == "particle"  # callers get a copy, not the cached dict


def test_conjunctions():
    conjunctions = load_conjunctions()
    assert set(conjunctions.values()) == {"contrast", "addition"}
    for word in ("but", "although", "though", "however", "yet", "while", "whereas", "except", "still"):
        assert conjunctions[word] == "contrast", word
    for word in ("and", "also", "plus", "as well as", "moreover"):
        assert conjunctions[word] == "addition", word


def test_antonyms_shape():
    antonyms = load_antonyms()
    assert len(antonyms) >= 120
    assert {pos for _, pos in antonyms} <= {"a", "v", "r", "n"}
    for (word, pos), antonym in antonyms.items():
        assert word != antonym and word.islower() and antonym.islower(), (word, pos, antonym)


def _direct_antonyms(wn, word: str, pos: str) -> list[str]:
    """WordNet's direct antonyms of `word` (or its base form: impressed -> impress) as that part of speech."""
    forms = {word, wn.morphy(word, pos) or word}
    return [a.name() for s in wn.synsets(word, pos) for lemma in s.lemmas() if lemma.name() in forms
            for a in lemma.antonyms()]


def test_antonyms_are_needed(wn):
    """The curated list is consulted first, so an entry earns its place only where the generator
    without it would find no antonym or a different one (WordNet's first sense of "incredible" gives
    "credible"; "fast" -> "slow" fails the lexicon sense check, as neither word has a valence)."""
    from absa_checks.perturb.antonyms import AntonymFinder
    from absa_checks.perturb.polarity import Polarity

    uncurated = AntonymFinder(wn, {}, frozenset(), frozenset(), Polarity().valence)
    pointless = {(word, pos): antonym for (word, pos), antonym in load_antonyms().items()
                 if antonym in _direct_antonyms(wn, word, pos)[:1]
                 and (found := uncurated._lookup(word, pos)) is not None and found[0] == antonym}
    assert not pointless, pointless


def test_antonym_check_works(wn):
    assert _direct_antonyms(wn, "tasty", "a") == ["tasteless"]
    assert _direct_antonyms(wn, "quickly", "r")
    assert not _direct_antonyms(wn, "soggy", "a")


def test_bad_files_name_file_and_line(tmp_path, monkeypatch):
    monkeypatch.setattr(wordlists, "FIXTURES", tmp_path)
    (tmp_path / "laptop.aspect_bank.tsv").write_text(
        "# bank\npositive\tfan\tthe fan is quiet\nnegative\tfan\tthe fans are loud\n", encoding="utf-8")
    (tmp_path / "restaurant.aspect_bank.tsv").write_text("# bank\nneutral\tfood\tthe food is food\n", encoding="utf-8")
    (tmp_path / "antonyms.tsv").write_text("soggy\ta\n", encoding="utf-8")
    for function, args, expected in [
        (load_aspect_bank.__wrapped__, ("laptop",), "laptop.aspect_bank.tsv:3: aspect 'fan' occurs 0 times"),
        (load_aspect_bank.__wrapped__, ("restaurant",), "restaurant.aspect_bank.tsv:2: polarity 'neutral'"),
        (load_aspect_bank.__wrapped__, ("hotel",), "unknown domain 'hotel'"),
        (wordlists._antonyms.__wrapped__, (), "antonyms.tsv:1: expected 3"),
        (load_weakeners.__wrapped__, (), "weakeners.txt: word list missing"),
    ]:
        with pytest.raises(DataError, match=expected):
            function(*args)
