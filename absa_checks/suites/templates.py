"""Template tests: `template:` strings whose `{slots}` are filled from lexicons, with gold by construction
(docs/suites.md, "Templates"; the format: issue 28).

Two pure halves: `absa_checks.suites.template_parse.parse_template` reads a test's template keys into the
`TemplateSpec` defined here and checks everything that can be checked without a seed against the lexicon (every
error one line naming file and line, with the fix); this module's `expand` fills it: seeded draws (`random.Random(f"{seed}:{test name}")`), agreement, gold per target
  aspect with spans computed in the filled sentence, INV/DIR pairs; it returns units and their variants,
  which `absa_checks.suites.cases.expand` turns into cases like any other source's.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice

from absa_checks.common.examples import Aspect, Example, Unit, Variant
from absa_checks.common.labels import opposite
from absa_checks.suites.lexicons import Lexicon

TYPES = ("mft", "inv", "dir")
DEFAULT_EXPECTATION = {"mft": "gold", "inv": "unchanged", "dir": "flip"}
TEMPLATE_KEYS = ("name", "description", "capability", "type", "domain", "template", "variant", "slots", "gold",
                 "variant_gold", "n", "vary", "expect", "tolerance", "tags", "gates")
SLOT_KINDS = ("aspect", "opinion", "word")
SLOT_KEYS = SLOT_KINDS + ("for", "other_than", "same")
ANY = "any"
DRAWN_POLARITIES = ("positive", "negative")  # `opinion: any` draws one of these
DEFAULT_N = 20
MAX_INSTANCES = 20_000  # per test: `n` and `n: all` above it are refused (a suite runs hundreds; 10,000 cost 0.5 s)
STRATEGY = "template"  # TestSpec.strategy of a template test; reports name it template:<type>
SOURCE_PREFIX = "templates-"  # a template test's source in reports: templates-<domain>

# {X.was} and friends agree with aspect slot X's number; {X.a} is a/an for X's word
AGREEMENT = {"was": ("was", "were"), "is": ("is", "are"), "has": ("has", "have"), "does": ("does", "do"),
             "it": ("it", "they"), "its": ("its", "their")}
ATTRIBUTES = (*AGREEMENT, "a")


@dataclass(frozen=True)
class SlotSpec:
    name: str
    kind: str              # aspect | opinion | word
    value: str             # aspect: a category or "any"; opinion: a polarity or "any"; word: a list name
    for_slot: str | None = None         # opinion: the aspect slot it describes
    other_than: tuple[str, ...] = ()    # aspect "any": another category than these aspect slots'; else another word
    same: tuple[str, ...] = ()          # slots whose word this one may repeat ("*": any)


@dataclass(frozen=True)
class TemplateSpec:
    template: str
    parts: tuple[tuple[str, str, str], ...]   # (literal, "", "") or ("", slot, attribute or "")
    slots: tuple[SlotSpec, ...]               # in filling order (a slot after those it depends on)
    gold: tuple[tuple[str, tuple[str, str]], ...]  # aspect slot -> ("slot" | "label" | "opposite", value)
    n: int | None                             # None: every filling (`n: all`)
    domain: str
    type: str
    variant: str | None = None
    variant_parts: tuple[tuple[str, str, str], ...] = ()
    variant_gold: tuple[tuple[str, tuple[str, str]], ...] | None = None
    vary: str | None = None
    flip_vary: bool = False                   # vary an opinion slot to the opposite polarity (expect: flip)
    lexicon: Lexicon = field(default=Lexicon(None), compare=False, hash=False, repr=False)

    @property
    def source(self) -> str:
        return SOURCE_PREFIX + self.domain

    @property
    def paired(self) -> bool:
        return self.vary is not None or self.variant is not None


# ---------------------------------------------------------------------------------------------------- filling

@dataclass(frozen=True)
class Fill:
    word: str
    polarity: str | None = None   # an opinion slot's polarity
    category: str | None = None   # an aspect slot's category
    plural: bool = False
    low: str = field(default="", compare=False, repr=False)  # the word in lower case: distinct words compare it

    def __post_init__(self):
        object.__setattr__(self, "low", self.word.lower())


@dataclass(frozen=True)
class Expansion:
    """A template test filled: one unit per (instance, gold aspect), the variant each unit's case compares."""

    units: tuple[Unit, ...]
    by_unit: dict[str, tuple[Variant, ...]]
    instances: int


class _Pools:
    """The words a slot may take given what is filled (computed once per slot, category and polarity)."""

    def __init__(self, spec: TemplateSpec):
        self.spec = spec
        self.lexicon = spec.lexicon
        self.cache: dict[tuple, tuple[Fill, ...]] = {}
        self.by_name = {s.name: s for s in spec.slots}
        # the slots whose word each slot's must differ from (either may say `same`), and the aspect slots
        # whose category an aspect "any" with other_than must avoid
        self.differ = {s.name: tuple(t.name for t in spec.slots if t.name != s.name and not (
            "*" in s.same or "*" in t.same or t.name in s.same or s.name in t.same)) for s in spec.slots}
        self.apart = {s.name: tuple(t for t in s.other_than if s.kind == "aspect" and s.value == ANY
                                    and self.by_name[t].kind == "aspect") for s in spec.slots}

    def base(self, slot: SlotSpec, filled: dict[str, Fill], polarity: str | None, category: str | None = None
             ) -> tuple[Fill, ...]:
        """Before distinctness: an aspect's terms (of `category` when given), an opinion's words of `polarity`
        for its aspect's category, a word list."""
        if slot.kind == "opinion":
            category = filled[slot.for_slot].category if slot.for_slot else None
        key = (slot.name, polarity, category)
        found = self.cache.get(key)
        if found is None:
            if slot.kind == "aspect":
                cats = (category,) if category else self.lexicon.categories() if slot.value == ANY else (slot.value,)
                found = tuple(Fill(t.text, None, c, t.plural) for c in cats for t in self.lexicon.terms(c))
            elif slot.kind == "opinion":
                assert polarity is not None
                found = tuple(Fill(w, polarity) for w in self.lexicon.opinion_words(polarity, category))
            else:
                found = tuple(Fill(w) for w in self.lexicon.word_list(slot.value))
            self.cache[key] = found
        return found

    def allowed(self, slot: SlotSpec, fill: Fill, filled: dict[str, Fill]) -> bool:
        """Distinct words in one instance (unless `same`), and `other_than`."""
        low = fill.low
        for name in self.differ[slot.name]:
            other = filled.get(name)
            if other is not None and other.low == low:
                return False
        for name in self.apart[slot.name]:
            if filled[name].category == fill.category:
                return False
        return True

    def polarities(self, slot: SlotSpec) -> tuple[str | None, ...]:
        if slot.kind != "opinion":
            return (None,)
        return DRAWN_POLARITIES if slot.value == ANY else (slot.value,)

    def can_vary(self, filled: dict[str, Fill]) -> bool:
        return self.spec.vary is None or any(True for _ in self._variations(filled))

    def variations(self, filled: dict[str, Fill]) -> tuple[Fill, ...]:
        return tuple(self._variations(filled))

    def _variations(self, filled: dict[str, Fill]) -> Iterator[Fill]:
        """The words the varied slot may take in the variant: same lexicon entry (category, polarity or its
        opposite for expect: flip, list), not the original's word, distinct from the others."""
        if self.spec.vary is None:
            return
        slot = self.by_name[self.spec.vary]
        now = filled[slot.name]
        polarity = now.polarity
        if polarity is not None and self.spec.flip_vary:
            polarity = opposite(polarity)
        pool = self.base(slot, filled, polarity, now.category if slot.kind == "aspect" else None)
        yield from (f for f in pool if f.word != now.word and self.allowed(slot, f, filled))


def _fillings(spec: TemplateSpec, pools: _Pools) -> Iterator[dict[str, Fill]]:
    """Every filling, in lexicon order (for `n: all`, counting, and small spaces)."""
    slots = spec.slots

    def fill(i: int, filled: dict[str, Fill]) -> Iterator[dict[str, Fill]]:
        if i == len(slots):
            if pools.can_vary(filled):
                yield dict(filled)
            return
        slot = slots[i]
        for polarity in pools.polarities(slot):
            for option in pools.base(slot, filled, polarity):
                if pools.allowed(slot, option, filled):
                    filled[slot.name] = option
                    yield from fill(i + 1, filled)
                    del filled[slot.name]

    yield from fill(0, {})


def _draw(spec: TemplateSpec, pools: _Pools, rng: random.Random) -> dict[str, Fill] | None:
    filled: dict[str, Fill] = {}
    for slot in spec.slots:
        polarities = pools.polarities(slot)
        pool = pools.base(slot, filled, polarities[0] if len(polarities) == 1 else rng.choice(polarities))
        pick = rng.choice(pool)
        if not pools.allowed(slot, pick, filled):
            options = [f for f in pool if pools.allowed(slot, f, filled)]
            if not options:
                return None
            pick = rng.choice(options)
        filled[slot.name] = pick
    if not pools.can_vary(filled):
        return None
    return filled


def _key(spec: TemplateSpec, filled: dict[str, Fill]) -> tuple:
    return tuple((s.name, filled[s.name].word, filled[s.name].polarity) for s in spec.slots)


def count_fillings(spec: TemplateSpec, limit: int) -> int:
    """How many distinct fillings the slots have in the lexicon, counted up to limit."""
    return sum(1 for _ in islice(_fillings(spec, _Pools(spec)), limit))


def draw(spec: TemplateSpec, seed: int | str, test_name: str, limit: int | None = None) -> list[dict[str, Fill]]:
    """The fillings of a run: `n` distinct ones drawn with `random.Random(f"{seed}:{test_name}")` (all of them
    for `n: all`); `limit` (--absa-sample) caps the count."""
    rng = random.Random(f"{seed}:{test_name}")
    pools = _Pools(spec)
    n = spec.n
    if n is None:
        found = list(_fillings(spec, pools))
        return found if limit is None else [found[i] for i in sorted(rng.sample(range(len(found)),
                                                                                min(limit, len(found))))]
    n = n if limit is None else min(n, limit)
    chosen: dict[tuple, dict[str, Fill]] = {}
    for _ in range(3 * n + 100):  # draws, duplicates dropped: enough unless the space is barely larger than n
        filled = _draw(spec, pools, rng)
        if filled is not None:
            chosen.setdefault(_key(spec, filled), filled)
            if len(chosen) == n:
                return list(chosen.values())
    everything = list(_fillings(spec, pools))  # a small space: a uniform sample of all its fillings
    return [everything[i] for i in sorted(rng.sample(range(len(everything)), min(n, len(everything))))]


def a_or_an(word: str) -> str:
    """"an" before a vowel sound: an apple, an hour, an SSD, an HDMI port; a unit, a USB port, a one-off."""
    first = word.split()[0] if word.split() else word
    lower = first.lower()
    if len(first) > 1 and first.isupper():  # an initialism, read letter by letter
        return "an" if first[0] in "AEFHILMNORSX" else "a"
    if lower.startswith(("hour", "honest", "honor", "honour", "heir")):
        return "an"
    if lower.startswith(("uni", "use", "usu", "uti", "ure", "uro", "eu", "ewe", "one", "once", "ubi")):
        return "a"
    return "an" if lower[:1] in "aeiou" else "a"


def render(parts: tuple[tuple[str, str, str], ...], filled: dict[str, Fill]) -> tuple[str, dict[str, int]]:
    """The sentence and where each slot's word first stands in it; the first letter capitalised."""
    pieces: list[str] = []
    starts: dict[str, int] = {}
    pos = 0
    for literal, slot, attribute in parts:
        if not slot:
            text = literal
        elif not attribute:
            text = filled[slot].word
            starts.setdefault(slot, pos)
        elif attribute == "a":
            text = a_or_an(filled[slot].word)
        else:
            text = AGREEMENT[attribute][filled[slot].plural]
        pieces.append(text)
        pos += len(text)
    sentence = "".join(pieces)
    for i, char in enumerate(sentence):
        if char.isalpha():
            if char.islower():
                sentence = sentence[:i] + char.upper() + sentence[i + 1:]
            break
    return sentence, starts


def _label(value: tuple[str, str], filled: dict[str, Fill]) -> str:
    kind, name = value
    if kind == "label":
        return name
    polarity = filled[name].polarity
    assert polarity is not None
    return opposite(polarity) if kind == "opposite" else polarity


def _aspect_order(parts: tuple[tuple[str, str, str], ...], aspect_slots: frozenset[str]) -> tuple[str, ...]:
    """The aspect slots written bare in a template, in the order they first appear: the sentence's aspects."""
    return tuple(dict.fromkeys(slot for _, slot, attribute in parts if slot in aspect_slots and not attribute))


def _examples(order: tuple[str, ...], parts, gold, filled: dict[str, Fill], unit_ids: dict[str, str]
              ) -> dict[str, Example]:
    """One example per gold aspect of one filled sentence: that aspect the target, the others beside it."""
    sentence, starts = render(parts, filled)
    labels = {key: _label(value, filled) for key, value in gold}
    aspects = []
    for slot in order:
        start = starts[slot]
        end = start + len(filled[slot].word)
        aspects.append((slot, Aspect(sentence[start:end], start, end, labels.get(slot))))
    if len(aspects) == 1:
        slot, aspect = aspects[0]
        return {slot: Example(sentence, aspect, (), record_id=unit_ids[slot])}
    return {key: Example(sentence, target, tuple(a for s, a in aspects if s != key), record_id=unit_ids[key])
            for key, target in aspects if key in labels}


def expand(spec: TemplateSpec, test_name: str, seed: int | str, limit: int | None = None) -> Expansion:
    """Units (one per filled instance and gold aspect) and each unit's variant: the instance itself for mft
    (the model is asked once: queries are deduplicated), the varied instance for inv/dir."""
    rng = random.Random(f"{seed}:{test_name}:variants")
    pools = _Pools(spec)
    units: list[Unit] = []
    by_unit: dict[str, tuple[Variant, ...]] = {}
    fillings = draw(spec, seed, test_name, limit)
    aspect_slots = frozenset(s.name for s in spec.slots if s.kind == "aspect")
    order = _aspect_order(spec.parts, aspect_slots)
    v_parts = spec.variant_parts if spec.variant is not None else spec.parts
    v_order = _aspect_order(v_parts, aspect_slots)
    v_gold = spec.variant_gold or spec.gold
    for filled in fillings:
        changed = None
        words = [test_name, *(f"{s.name}={filled[s.name].word}" for s in spec.slots)]
        if spec.vary is not None:
            changed = {**filled, spec.vary: rng.choice(pools.variations(filled))}
            words.append(f"~{spec.vary}={changed[spec.vary].word}")
        digest = hashlib.sha1("\x1f".join(words).encode()).hexdigest()[:10]  # the test name and the words
        ids = {key: f"{digest}:{key}" for key, _ in spec.gold}
        originals = _examples(order, spec.parts, spec.gold, filled, ids)
        variants = originals
        if spec.paired:
            variants = _examples(v_order, v_parts, v_gold, changed or filled, ids)
        for key, _ in spec.gold:
            unit = Unit(spec.source, ids[key], originals[key])
            units.append(unit)
            by_unit[unit.unit_id] = (Variant(STRATEGY, variants[key], origin="template"),)
    return Expansion(tuple(units), by_unit, len(fillings))
