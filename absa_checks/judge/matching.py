"""Whether an extracted term (or opinion) is the gold one: strict; expanded, exact match against the gold and
its accepted alternatives as in "Single Ground Truth Is Not Enough" (Yang et al., NAACL 2025, Zoom In-N-Out);
and flexible, rules standing in for an expansion without an LLM.

Strict: the same character span when both have one, else the same string up to case, spacing and
tokenisation ("do n't" = "don't").

Expanded: strict, or the same string (up to case, spacing and tokenisation) as one of the alternatives an
expanded ground truth accepted for that gold tuple (`absa-checks expand`, absa_checks.sources.expanded_gold);
where both spans are known, the prediction must also overlap or touch the gold span (the same place).

Flexible accepts, besides:
- zoom-in: the same words once contractions are resolved ("n't worth" = "not worth") and leading
  determiners and possessives dropped ("the pizza" = "pizza", "our waiter's" = "waiter"), or a
  contiguous part of the gold that keeps its head ("guacamole" for "guacamole at pacifico",
  "fries" for "french fries"; not "battery" for "battery charger", whose head is "charger");
- zoom-out: a longer stretch of the same sentence that contains the gold, keeps its head and does not
  reach another gold term ("guacamole at pacifico" for "guacamole"; not "battery charger" for
  "battery");
(flexible matching does not read the alternatives: each of the two is scored on its own, side by side).

The heads of a term (`heads`): split at its first preposition; the head is the last word before it
("life" in "battery life of this laptop", "guacamole" in "guacamole at pacifico"), else the last word
-- except "X of Y" where X ends in a partitive noun (a container, a piece, a part or a kind: "bottle of
wine", "glass of wine", "front of house staff", "kind of pasta"), whose head is Y's ("wine", "staff",
"pasta"): the thing named is Y ("selection of wines" and "portions of the food" keep "selection"
and "portions": those are rated themselves). A coordination ("fried oysters and clams") has one head
per conjunct ("oysters", "clams"), and a flexible match keeps all of them: one conjunct alone names
one thing of two. A flexible match must have the same heads as the gold term.

A predicted term that begins or ends with a function word (preposition, determiner, conjunction,
pronoun: "meal of", "pizza and", "of the pizza", "it") or a clitic or word fragment ("s", "'s", "n't",
"t") is not the gold term unless it is the same text (leading determiners are dropped first: "the
pizza" is "pizza"). For an opinion the same holds, with pronouns allowed at the edges ("worth it"),
and an opinion's head is its last word before a preposition and before trailing pronouns ("worth" in
"worth it"; no partitive or coordination rule); an opinion grown or cut over a negation ("not good"
for "good", "good" for "not good", "hardly edible" for "edible", "anything but cheap" for "cheap") is another
opinion. A generic attribute noun alone ("life", "time", "size", "quality": GENERIC_HEADS) is not the
compound whose first word names the thing it belongs to ("battery life", "boot time", "screen size", "food
quality"), in either direction: the head rule would keep it, but the modifier is what names the aspect (the
laptop's battery, not its screen); a modifier that only qualifies ("build quality", "great price") may still
be dropped. Closed-class word lists, not a POS tagger: the edges
of a 1-4 word span have no sentence context for a tagger to use, and a list is deterministic and
costs nothing.

A match is one-to-one: one prediction never counts for two gold tuples (a maximum bipartite matching
over the accepted pairs).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from absa_checks.common.tuples import IMPLICIT, LEVELS, AnnotatedSentence, AspectTuple

MATCH_MODES = ("strict", "expanded", "flexible")
DETERMINERS = frozenset("the a an this that these those my our your their his her its some any".split())
# Closed word classes, lower case. A term's head is the last word before the first of PREPOSITIONS ("next"
# as in "table next to the window"); a predicted term may not begin or end with an EDGE_ word or a FRAGMENT.
PREPOSITIONS = frozenset("of for with at in on from to by about into onto near next beside behind under above below "
                         "inside outside across along around among without within during".split())
EDGE_PREPOSITIONS = PREPOSITIONS | frozenset(
    "upon after before through between besides than via per toward towards against like except despite until "
    "till".split())
CONJUNCTIONS = frozenset("and or nor but & yet so because while although though if whereas".split())
COORDINATORS = frozenset("and or nor &".split())
PRONOUNS = frozenset("i me mine we us ours you yours he him she hers it they them theirs myself ourselves "
                     "yourself yourselves himself herself itself themselves who whom whose which what whatever "
                     "something anything everything nothing someone anyone everyone one ones".split())
EDGE_DETERMINERS = DETERMINERS | frozenset("all both each every either neither no another such much many "
                                           "few several".split())
# an opinion and its negation are not one opinion: "not good", "hardly edible", "anything but cheap"
OPINION_NEGATORS = frozenset("not no never hardly barely scarcely seldom rarely nowhere neither nor without nothing "
                     "lacking less".split())
NEGATING_PAIRS = frozenset({("anything", "but"), ("far", "from"), ("all", "but"), ("short", "of"), ("no", "longer")})
# Attribute nouns that name a property of something else ("life" of the battery, "size" of the screen): alone,
# such a head is not the compound whose first word names the thing ("battery life", "screen size", "boot
# time", "food quality"), which a reader would not take for "life", "size", "time" or "quality"
GENERIC_HEADS = frozenset(
    "life time times size sizes quality speed speeds price prices cost costs value level levels rate rates range "
    "type capacity temperature noise volume resolution weight length performance options settings amount".split())
# (only attributes: a part or a device named by its head, "card" for "WLAN card", stays that part)
# modifiers that only qualify (what remains is the same thing): "build quality" is the quality, "great price" the price
QUALIFIERS = frozenset(
    "build built overall general total whole entire actual real average high low good great bad poor fast slow "
    "long short nice decent cheap big small large huge fair top best better worse worst new old own same "
    "excellent amazing awesome terrible awful perfect fine reasonable".split())
_ADJECTIVE_ENDINGS = ("al", "ful", "ous", "ive", "able", "ible", "ic", "ed", "est", "less", "ish")
# a clitic or a piece of a word left by tokenisation ("pizza ' s" -> "s", "do n't" -> "n't", "don ' t" -> "t")
FRAGMENTS = frozenset("s t re ve ll d m n nt n't 's 're 've 'll 'd 'm".split())
# "X of Y" names Y when X is one of these (a container, a portion, a part, a kind or a number of Y)
PARTITIVES = frozenset(
    "bottle glass cup pint carafe pitcher jug mug pot bowl plate platter basket tray box bucket can jar "
    "piece slice bite order side scoop spoonful dash splash sprinkle drizzle "
    "front back top bottom rest middle end edge "
    "kind type sort lot number amount couple pair handful bunch dozen plenty".split())
CONTRACTIONS = ((r"\bwon't\b", "will not"), (r"\bcan't\b", "can not"), (r"\bcannot\b", "can not"),
                (r"\bshan't\b", "shall not"), (r"n't\b", " not"), (r"'re\b", " are"), (r"'ve\b", " have"),
                (r"'ll\b", " will"), (r"'m\b", " am"), (r"'d\b", " would"), (r"'s\b", ""))


def surface(text: str) -> str:
    """Case, spacing and tokenisation undone: what strict matching compares when there is no span."""
    text = text.casefold().replace("\u2019", "'").replace("`", "'")
    text = re.sub(r"\s+(n't|'s|'re|'ve|'ll|'m|'d)\b", r"\1", text)    # "do n't" -> "don't"
    text = re.sub(r"\s+([.,!?;:%)\]])", r"\1", text)                   # "great ." -> "great."
    text = re.sub(r"([$(\[])\s+", r"\1", text)                          # "$ 15" -> "$15"
    return " ".join(text.split())


def content_words(text: str) -> tuple[str, ...]:
    """The words that carry meaning: contractions resolved, punctuation, leading determiners and
    possessive endings dropped ("&" is kept: it coordinates)."""
    text = surface(text)
    for pattern, replacement in CONTRACTIONS:
        text = re.sub(pattern, replacement, text)
    words = re.findall(r"[\w$%]+(?:[.\-'][\w]+)*|&", text)
    while words and words[0] in DETERMINERS:
        words = words[1:]
    return tuple(words)


def _plural_stem(word: str) -> str:
    return word[:-2] if word.endswith(("ches", "shes", "sses", "xes")) else word[:-1] if word.endswith("s") else word


def head(words: Sequence[str]) -> str:
    """The head word of a phrase: the last word before its first preposition, else the last word (an
    opinion's head, and an aspect term's when it has one head)."""
    for i, word in enumerate(words):
        if i and word in PREPOSITIONS:
            return words[i - 1]
    return words[-1] if words else ""


def heads(words: Sequence[str]) -> tuple[str, ...]:
    """The heads of an aspect term (module docstring): one per conjunct of a coordination, Y's for a
    partitive "X of Y" ("bottle of wine" -> "wine"), else the last word before the first preposition."""
    words = tuple(w for w in words if w not in FRAGMENTS)  # "pizza ' s" -> pizza
    for i, word in enumerate(words):
        if i and word in PREPOSITIONS:
            partitive = words[i - 1] in PARTITIVES or _plural_stem(words[i - 1]) in PARTITIVES
            if word == "of" and partitive and i + 1 < len(words):
                rest = words[i + 1:]
                while rest and rest[0] in DETERMINERS:
                    rest = rest[1:]
                return heads(rest) if rest else (words[i - 1],)
            words = words[:i]
            break
    found: list[str] = []
    conjunct: list[str] = []
    for word in (*words, "and"):
        if word in COORDINATORS:
            if conjunct:
                found.append(conjunct[-1])
            conjunct = []
        else:
            conjunct.append(word)
    return tuple(found)


def _untail(words: Sequence[str]) -> Sequence[str]:
    """An opinion without its trailing pronouns ("worth it" -> "worth"): its head is before them."""
    while len(words) > 1 and words[-1] in PRONOUNS:
        words = words[:-1]
    return words


def bad_edge(words: Sequence[str], aspect: bool = True) -> bool:
    """Whether a term's first or last word is a function word (a pronoun only for an aspect) or a
    fragment: no term a reader would write begins or ends so."""
    closed = EDGE_PREPOSITIONS | EDGE_DETERMINERS | CONJUNCTIONS | FRAGMENTS | (PRONOUNS if aspect else frozenset())
    return bool(words) and (words[0] in closed or words[-1] in closed)


def negations(words: Sequence[str]) -> int:
    """How many negators and negating pairs ("anything but", "far from") a phrase holds."""
    pairs = sum((a, b) in NEGATING_PAIRS for a, b in zip(words, words[1:]))
    return pairs + sum(w in OPINION_NEGATORS for w in words) - sum(b in OPINION_NEGATORS for a, b in zip(words, words[1:])
                                                           if (a, b) in NEGATING_PAIRS)


def _names_a_thing(modifier: str) -> bool:
    """Whether a word before a head names a thing ("battery", "screen", "boot"), not a quality ("build", "great",
    "external", "wireless"): no tagger, so a list of qualifiers and the common adjective endings."""
    return modifier.isalpha() and modifier not in QUALIFIERS and not modifier.endswith(_ADJECTIVE_ENDINGS)


def generic_head_alone(shorter: Sequence[str], longer: Sequence[str]) -> bool:
    """`shorter` is a generic attribute noun alone ("life") and `longer` puts before it a word that names the
    thing it is a property of ("battery life", "food quality"): a near miss (GENERIC_HEADS)."""
    if len(shorter) != 1 or not (shorter[0] in GENERIC_HEADS or _plural_stem(shorter[0]) in GENERIC_HEADS):
        return False
    at = [i for i, word in enumerate(longer) if word == shorter[0]]
    return bool(at) and at[0] > 0 and _names_a_thing(longer[at[0] - 1])


def _contains(longer: Sequence[str], shorter: Sequence[str]) -> bool:
    n = len(shorter)
    return n > 0 and any(tuple(longer[i:i + n]) == tuple(shorter) for i in range(len(longer) - n + 1))


def strict_match(predicted: AspectTuple, gold: AspectTuple) -> bool:
    if predicted.has_span and gold.has_span:
        return (predicted.start, predicted.end) == (gold.start, gold.end)
    return surface(predicted.aspect) == surface(gold.aspect)


def raw_words(text: str) -> tuple[str, ...]:
    """The words of a term as written (contractions and possessives kept, leading determiners dropped):
    what its edges are judged on ("pizza 's" ends in a clitic, "pizza's" in "pizza's")."""
    words = re.findall(r"[\w$%]+(?:[.\-'][\w]+)*|'\w+|&", surface(text))
    while words and words[0] in DETERMINERS:
        words = words[1:]
    return tuple(words)


def flexible_text_match(predicted: str, gold: str, sentence: str, others: Sequence[str] = (),
                        alternatives: Sequence[str] = (), aspect: bool = True) -> bool:
    """Whether `predicted` (an aspect term, or an opinion when `aspect` is false) is `gold` under the
    flexible rules (spans aside)."""
    if surface(predicted) == surface(gold):
        return True
    if IMPLICIT in (predicted, gold):
        return False
    p, g = content_words(predicted), content_words(gold)
    if not p or not g:
        return False
    if p == g or any(p == content_words(a) or surface(predicted) == surface(a) for a in alternatives):
        return True
    if bad_edge(raw_words(predicted), aspect) or bad_edge(p, aspect):
        return False
    if not aspect and negations(p) % 2 != negations(g) % 2:
        return False  # "not good" (or "hardly good") is not the opinion "good", nor the reverse
    if aspect and (generic_head_alone(p, g) or generic_head_alone(g, p)):
        return False  # "life" is not "battery life", nor the reverse
    if (heads(p) != heads(g)) if aspect else (head(_untail(p)) != head(_untail(g))):
        return False
    if _contains(g, p):  # zoom-in: a part of the gold that keeps its head
        return True
    if _contains(p, g):  # zoom-out: within the sentence, and reaching no other gold term
        in_sentence = _contains(content_words(sentence), p)
        return in_sentence and not any(_contains(p, content_words(o)) for o in others if content_words(o) != g)
    return False


def _overlap(a: AspectTuple, b: AspectTuple) -> bool:
    """Whether the two spans overlap (never when one has no span)."""
    return (a.start is not None and a.end is not None and b.start is not None and b.end is not None
            and a.start < b.end and b.start < a.end)


def _touches(a: AspectTuple, b: AspectTuple) -> bool:
    """Whether two spans overlap or touch; true when either has no span (the place cannot be told)."""
    if not (a.has_span and b.has_span):
        return True
    return a.start <= b.end and b.start <= a.end  # type: ignore[operator]


def expanded_match(predicted: str, gold: str, alternatives: Sequence[str]) -> bool:
    """Exact match against the gold term and its accepted alternatives (up to case, spacing, tokenisation)."""
    said = surface(predicted)
    return said == surface(gold) or any(said == surface(a) for a in alternatives)


def aspect_match(predicted: AspectTuple, gold: AspectTuple, mode: str, sentence: str,
                 others: Sequence[AspectTuple] = (), alternatives: Sequence[str] = ()) -> bool:
    if strict_match(predicted, gold):
        return True
    if mode == "strict":
        return False
    if mode == "expanded":
        return _touches(predicted, gold) and expanded_match(predicted.aspect, gold.aspect, alternatives)
    if predicted.has_span and gold.has_span and others:
        # a longer span must not overlap another gold term's span
        for other in others:
            if other.has_span and other != gold and _overlap(predicted, other):
                return False
    return flexible_text_match(predicted.aspect, gold.aspect, sentence, [o.aspect for o in others if o != gold],
                               alternatives)


def level_available(level: str, gold: Sequence[AspectTuple]) -> bool:
    """Whether the gold annotates what `level` needs (opinions for triplets, categories for quads)."""
    if level == "triplet":
        return bool(gold) and all(g.opinion is not None for g in gold)
    if level == "quad":
        return bool(gold) and all(g.opinion is not None and g.category is not None for g in gold)
    return True


def compatible(predicted: AspectTuple, index: int, annotated: AnnotatedSentence, level: str, mode: str) -> bool:
    """Whether `predicted` counts as gold tuple `index` at `level` ("aspect" ... "quad") under `mode`."""
    gold = annotated.gold[index]
    if not aspect_match(predicted, gold, mode, annotated.sentence, annotated.gold,
                        annotated.alternatives(index, "aspect") if mode == "expanded" else ()):
        return False
    depth = LEVELS.index(level)
    if depth >= 1 and predicted.polarity != gold.polarity:
        return False
    if depth >= 2:
        if predicted.opinion is None or gold.opinion is None:
            return False
        if mode == "strict" and surface(predicted.opinion) != surface(gold.opinion):
            return False
        if mode == "expanded" and not expanded_match(predicted.opinion, gold.opinion,
                                                     annotated.alternatives(index, "opinion")):
            return False
        # a longer opinion must not reach another gold opinion, nor swallow an aspect term
        others = [g.opinion for g in annotated.gold if g.opinion is not None and g is not gold]
        others += [g.aspect for g in annotated.gold if g.aspect != IMPLICIT]
        if mode == "flexible" and not flexible_text_match(predicted.opinion, gold.opinion, annotated.sentence,
                                                          others, aspect=False):
            return False
    if depth >= 3 and " ".join((predicted.category or "").casefold().split()) != " ".join(
            (gold.category or "").casefold().split()):
        return False
    return True


def assign(n_predicted: int, n_gold: int, accepts: Callable[[int, int], bool]) -> dict[int, int]:
    """A maximum one-to-one assignment gold index -> predicted index over the accepted pairs (augmenting
    paths; sentences have a handful of tuples)."""
    edges = {g: [p for p in range(n_predicted) if accepts(p, g)] for g in range(n_gold)}
    owner: dict[int, int] = {}  # predicted -> gold

    def augment(g: int, seen: set[int]) -> bool:
        for p in edges[g]:
            if p in seen:
                continue
            seen.add(p)
            if p not in owner or augment(owner[p], seen):
                owner[p] = g
                return True
        return False

    for g in range(n_gold):
        augment(g, set())
    return {g: p for p, g in owner.items()}


def matched(predicted: Sequence[AspectTuple], annotated: AnnotatedSentence, level: str, mode: str) -> dict[int, int]:
    """Gold index -> predicted index, one-to-one, at `level` under `mode`."""
    return assign(len(predicted), len(annotated.gold),
                  lambda p, g: compatible(predicted[p], g, annotated, level, mode))
