"""Template tests: `template:` strings whose `{slots}` are filled from lexicons, with gold by construction
(docs/suites.md, "Templates"; the format: issue 28).

Two pure halves:
- `parse_template` reads a test's template keys into a `TemplateSpec` and checks everything that can be
  checked without a seed against the lexicon (every error one line naming file and line, with the fix);
- `expand` fills it: seeded draws (`random.Random(f"{seed}:{test name}")`), agreement, gold per target
  aspect with spans computed in the filled sentence, INV/DIR pairs; it returns units and their variants,
  which `absa_checks.suites.cases.expand` turns into cases like any other source's.
"""

from __future__ import annotations

import difflib
import hashlib
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from absa_checks.common.examples import Aspect, Example, Unit, Variant
from absa_checks.common.labels import POLARITIES, opposite
from absa_checks.suites.lexicons import Lexicon

TYPES = ("mft", "inv", "dir")
TYPE_EXPECTATIONS = {"mft": ("gold",), "inv": ("unchanged", "gold"), "dir": ("flip", "unchanged", "gold")}
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
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
_SLOT_NAME = re.compile(r"[A-Za-z_]\w*")


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


# ---------------------------------------------------------------------------------------------------- parsing

def parse_template(check: Any, test: dict, at: tuple, name: str, domain: str, lexicon: Lexicon,
                   kind: str, expect: str) -> TemplateSpec:
    """A template test's keys (already checked to be among TEMPLATE_KEYS) into a TemplateSpec; `check` is the
    suite's checker (its `fail(at, message)` names file and line)."""

    def fail(key_at: tuple, message: str):
        return check.fail(key_at, f"test '{name}': {message}")

    template = _string(check, test["template"], at + ("template",), name)
    parts = _parts(fail, template, at + ("template",))
    raw_slots = test.get("slots")
    if not isinstance(raw_slots, dict) or not raw_slots:
        raise fail(at + ("slots",), "'slots' must be a mapping of the template's slots, e.g. "
                                    "slots: {a1: {aspect: any}, o1: {opinion: positive, for: a1}}")
    slots = {str(slot): _slot(fail, str(slot), body, at + ("slots", slot), lexicon) for slot, body in raw_slots.items()}
    variant = None
    variant_parts: tuple = ()
    if "variant" in test:
        variant = _string(check, test["variant"], at + ("variant",), name)
        variant_parts = _parts(fail, variant, at + ("variant",))
    for parts_now, key in ((parts, "template"), (variant_parts, "variant")):
        for _, slot, attribute in parts_now:
            if slot and slot not in slots:
                hint = difflib.get_close_matches(slot, tuple(slots), n=1)
                fix = f"did you mean '{{{hint[0]}}}'?" if hint else f"define it under 'slots' ({', '.join(slots)})"
                raise fail(at + (key,), f"the {key} uses the slot '{{{slot}}}', which 'slots' does not define; {fix}")
            if attribute in AGREEMENT and slot and slots[slot].kind != "aspect":
                raise fail(at + (key,), f"'{{{slot}.{attribute}}}' agrees with an aspect's number, and '{slot}' is a "
                                        f"{slots[slot].kind} slot; use an aspect slot ({{a1.{attribute}}})")
    for one in slots.values():
        s_at = at + ("slots", one.name)
        for other in (one.for_slot, *one.other_than, *[s for s in one.same if s != "*"]):
            if other is not None and other not in slots:
                raise fail(s_at, f"slot '{one.name}' refers to '{other}', which is not a slot "
                                 f"({', '.join(slots)})")
        if one.for_slot is not None and slots[one.for_slot].kind != "aspect":
            raise fail(s_at + ("for",), f"opinion slot '{one.name}' is 'for' '{one.for_slot}', a "
                                        f"{slots[one.for_slot].kind} slot; 'for' names an aspect slot")
        if one.name in one.other_than or one.for_slot == one.name:
            raise fail(s_at, f"slot '{one.name}' refers to itself")
    used = {slot for _, slot, _ in parts + variant_parts if slot}
    for slot in slots:
        if slot not in used:
            raise fail(at + ("slots", slot), f"slot '{slot}' is not used in the template"
                                             + (" or the variant" if variant else "") + f"; use {{{slot}}} or remove it")
    ordered = _order(fail, slots, at)
    bare = [slot for _, slot, attribute in parts if slot and not attribute]
    gold = _gold(fail, test.get("gold"), at + ("gold",), slots, bare, "template")
    variant_gold = None
    if "variant_gold" in test:
        if not (variant or test.get("vary")):
            raise fail(at + ("variant_gold",), "'variant_gold' is the gold of a pair's variant; this test has no "
                                               "'variant:' or 'vary:'")
        variant_gold = _gold(fail, test["variant_gold"], at + ("variant_gold",), slots,
                             [s for _, s, a in variant_parts if s and not a] if variant else bare, "variant")
        if {k for k, _ in variant_gold} != {k for k, _ in gold}:
            raise fail(at + ("variant_gold",), "'variant_gold' must name the same aspect slots as 'gold' "
                                               f"({', '.join(k for k, _ in gold)})")
    if variant is not None:
        variant_bare = {s for _, s, a in variant_parts if s and not a}
        for key, _ in gold:
            if key not in variant_bare:
                raise fail(at + ("variant",), f"the variant must contain every gold aspect ({{{key}}} is missing)")
    vary = None
    if "vary" in test:
        vary = str(test["vary"])
        if vary not in slots:
            raise fail(at + ("vary",), f"'vary: {vary}' is not a slot ({', '.join(slots)})")
        if variant is not None:
            raise fail(at + ("vary",), "give 'vary:' (one slot changed) or 'variant:' (a second template), not both")
    paired = vary is not None or variant is not None
    if kind == "mft" and paired:
        raise fail(at + ("type",), "an mft test checks single sentences against their gold; a pair ('vary:' or "
                                   "'variant:') is an inv or dir test: set type: inv or type: dir")
    if kind != "mft" and not paired:
        raise fail(at + ("type",), f"a {kind} test compares pairs: add 'vary: SLOT' (the same template with one slot "
                                   "changed) or 'variant: \"...\"' (a second template), or make it type: mft")
    flip_vary = False
    if expect == "flip":
        if vary is not None and slots[vary].kind == "opinion" and variant_gold is None:
            flip_vary = True  # the variant takes a word of the opposite polarity: its gold flips with it
            if slots[vary].value == "neutral":
                raise fail(at + ("vary",), f"'{vary}' is a neutral opinion: it has no opposite polarity to flip to")
            if not any(value[1] == vary and value[0] != "label" for _, value in gold):
                raise fail(at + ("gold",), f"expect: flip varies '{vary}', but no gold label comes from it, so no "
                                           f"label would flip: give a target its label from it ({{a1: {vary}}})")
        elif variant_gold is None:
            raise fail(at + ("expect",), "expect: flip needs the variant's gold to differ: vary an opinion slot, or "
                                         "say the variant's labels with 'variant_gold: {a1: {opposite: o1}}'")
    n = _n(fail, test.get("n", DEFAULT_N), at + ("n",))
    spec = TemplateSpec(template, parts, ordered, gold, n, domain, kind, variant, variant_parts, variant_gold,
                        vary, flip_vary, lexicon)
    _check_lexicon(fail, spec, at)
    return spec


def _string(check: Any, value: Any, at: tuple, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise check.fail(at, f"test '{name}': '{at[-1]}' must be a sentence with {{slots}}, got {value!r}")
    return value


def _parts(fail, template: str, at: tuple) -> tuple[tuple[str, str, str], ...]:
    """The template split into literals and (slot, attribute); `{{` and `}}` are literal braces."""
    parts: list[tuple[str, str, str]] = []
    pos = 0
    for match in _PLACEHOLDER.finditer(template):
        if match.start() > pos:
            parts.append((template[pos:match.start()], "", ""))
        token = match.group()
        pos = match.end()
        if token in ("{{", "}}"):
            parts.append((token[0], "", ""))
            continue
        if match.group(1) is None:
            raise fail(at, f"unbalanced '{token}' at character {match.start()} of {template!r}; write "
                           "{{ or }} for a literal brace")
        slot, _, attribute = match.group(1).strip().partition(".")
        if not _SLOT_NAME.fullmatch(slot):
            raise fail(at, f"'{token}' is not a slot: write {{name}} or {{name.was}} (letters, digits, '_')")
        if attribute and attribute not in ATTRIBUTES:
            hint = difflib.get_close_matches(attribute, ATTRIBUTES, n=1)
            fix = f"did you mean '{{{slot}.{hint[0]}}}'?" if hint else f"use one of: {', '.join(ATTRIBUTES)}"
            raise fail(at, f"'{token}': unknown agreement '.{attribute}'; {fix}")
        parts.append(("", slot, attribute))
    if pos < len(template):
        parts.append((template[pos:], "", ""))
    if not any(slot for _, slot, _ in parts):
        raise fail(at, f"{template!r} has no {{slot}}; a template fills slots such as {{a1}} and {{o1}}")
    return tuple(parts)


def _slot(fail, name: str, body: Any, at: tuple, lexicon: Lexicon) -> SlotSpec:
    if not _SLOT_NAME.fullmatch(name):
        raise fail(at, f"slot name {name!r} may only use letters, digits and '_' (and not start with a digit)")
    if name in POLARITIES:
        raise fail(at, f"slot name '{name}' is a polarity, so 'gold: {{a1: {name}}}' could not name it: rename it")
    if not isinstance(body, dict):
        raise fail(at, f"slot '{name}' must be a mapping: {{aspect: food}}, {{opinion: positive, for: a1}} or "
                       f"{{word: intensifier}}, got {body!r}")
    for key in body:
        if key not in SLOT_KEYS:
            hint = difflib.get_close_matches(str(key), SLOT_KEYS, n=1)
            fix = f"did you mean '{hint[0]}'?" if hint else f"allowed keys: {', '.join(SLOT_KEYS)}"
            raise fail(at + (key,), f"unknown key '{key}' in slot '{name}'; {fix}")
    kinds = [k for k in SLOT_KINDS if k in body]
    if len(kinds) != 1:
        raise fail(at, f"slot '{name}' needs exactly one of 'aspect', 'opinion', 'word'")
    kind = kinds[0]
    value = body[kind]
    if not isinstance(value, str) or not value.strip():
        raise fail(at + (kind,), f"slot '{name}': '{kind}' must be a name, got {value!r}")
    if kind == "aspect" and not lexicon.categories():
        raise fail(at + (kind,), f"slot '{name}': the {lexicon.domain} lexicon has no aspect terms (no built-in one "
                                 "for this domain, and the suite adds none): add them under 'lexicons: {aspects: "
                                 "{CATEGORY: [terms]}}'")
    if kind == "aspect" and value != ANY and value not in lexicon.categories():
        raise fail(at + (kind,), _unknown(f"aspect category '{value}'", value, lexicon.categories(), ANY,
                                          lexicon, "aspects"))
    if kind == "opinion" and value not in (*POLARITIES, ANY):
        hint = difflib.get_close_matches(value, (*POLARITIES, ANY), n=1)
        raise fail(at + (kind,), f"slot '{name}': opinion '{value}' is not a polarity; "
                                 + (f"did you mean '{hint[0]}'?" if hint else f"use {', '.join(POLARITIES)} or any"))
    if kind == "word" and not lexicon.word_list(value):
        names = tuple(n for n, _ in lexicon.words)
        raise fail(at + (kind,), _unknown(f"word list '{value}'", value, names, None, lexicon, "words"))
    if "for" in body and kind != "opinion":
        raise fail(at + ("for",), f"slot '{name}': 'for' is for opinion slots (the aspect an opinion describes)")
    for_slot = str(body["for"]) if "for" in body else None
    other_than = _names(fail, body.get("other_than"), at + ("other_than",), name)
    same_raw = body.get("same")
    same = ("*",) if same_raw is True else () if same_raw in (None, False) else _names(fail, same_raw, at + ("same",), name)
    return SlotSpec(name, kind, value, for_slot, other_than, same)


def _unknown(what: str, value: str, known: tuple[str, ...], extra: str | None, lexicon: Lexicon, key: str) -> str:
    options = (*known, extra) if extra else known
    hint = difflib.get_close_matches(value, options, n=1)
    where = f"the {lexicon.domain or 'suite'} lexicon"
    fix = f"did you mean '{hint[0]}'?" if hint else f"known: {', '.join(options) or 'none'}"
    return f"{what} is not in {where}; {fix} (or add it under the suite's 'lexicons: {{{key}: ...}}')"


def _names(fail, raw: Any, at: tuple, slot: str) -> tuple[str, ...]:
    if raw is None:
        return ()
    values = [raw] if isinstance(raw, str) else raw
    if not isinstance(values, list) or not all(isinstance(v, str) and v for v in values):
        raise fail(at, f"slot '{slot}': '{at[-1]}' must be a slot name or a list of them, got {raw!r}")
    return tuple(values)


def _order(fail, slots: dict[str, SlotSpec], at: tuple) -> tuple[SlotSpec, ...]:
    """Slots in the order they are filled: each after the slots its `for` and `other_than` name."""
    done: list[str] = []
    pending = list(slots)
    while pending:
        ready = [s for s in pending if all(d in done for d in _depends(slots[s]))]
        if not ready:
            raise fail(at + ("slots",), f"slots {', '.join(pending)} depend on each other in a circle "
                                        "('for' / 'other_than'); break the circle")
        done.append(ready[0])
        pending.remove(ready[0])
    return tuple(slots[s] for s in done)


def _depends(slot: SlotSpec) -> tuple[str, ...]:
    return ((slot.for_slot,) if slot.for_slot else ()) + slot.other_than


def _gold(fail, raw: Any, at: tuple, slots: dict[str, SlotSpec], bare: list[str], where: str
          ) -> tuple[tuple[str, tuple[str, str]], ...]:
    if not isinstance(raw, dict) or not raw:
        raise fail(at, f"'{at[-1]}' must map each target aspect slot to its label: an opinion slot (its polarity), "
                       "a polarity, or {opposite: o1}; e.g. gold: {a1: o1}")
    found = []
    for key, value in raw.items():
        key = str(key)
        k_at = at + (key,)
        if key not in slots or slots[key].kind != "aspect":
            aspects = [s for s, spec in slots.items() if spec.kind == "aspect"]
            what = "not a slot" if key not in slots else f"a {slots[key].kind} slot"
            raise fail(k_at, f"gold key '{key}' is {what}; gold keys are the aspect slots that are targets "
                             f"({', '.join(aspects) or 'none defined'})")
        if key not in bare:
            raise fail(k_at, f"gold aspect '{key}' does not appear as {{{key}}} in the {where}, so it has no span")
        found.append((key, _gold_value(fail, value, k_at, slots)))
    return tuple(found)


def _gold_value(fail, value: Any, at: tuple, slots: dict[str, SlotSpec]) -> tuple[str, str]:
    if isinstance(value, str) and value in POLARITIES:
        return ("label", value)
    if isinstance(value, dict) and list(value) == ["opposite"]:
        slot = value["opposite"]
        kind = "opposite"
    elif isinstance(value, str):
        slot, kind = value, "slot"
    else:
        raise fail(at, f"gold value {value!r} must be an opinion slot, a polarity ({', '.join(POLARITIES)}) or "
                       "{opposite: o1}")
    if not isinstance(slot, str) or slot not in slots or slots[slot].kind != "opinion":
        opinions = [s for s, spec in slots.items() if spec.kind == "opinion"]
        raise fail(at, f"gold value {value!r}: '{slot}' is not an opinion slot ({', '.join(opinions) or 'none'}) nor "
                       f"a polarity ({', '.join(POLARITIES)})")
    if kind == "opposite" and slots[slot].value == "neutral":
        raise fail(at, f"{{opposite: {slot}}}: '{slot}' is a neutral opinion and has no opposite; write the label "
                       "(e.g. neutral) instead")
    return (kind, slot)


def _n(fail, raw: Any, at: tuple) -> int | None:
    if raw == "all":
        return None
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        raise fail(at, f"'n' must be a whole number of at least 1 (draws) or 'all', got {raw!r}")
    if raw > MAX_INSTANCES:
        raise fail(at, f"n: {raw} is more than {MAX_INSTANCES:,} instances for one test; a behavioural test needs "
                       "hundreds: lower n")
    return raw


def _check_lexicon(fail, spec: TemplateSpec, at: tuple) -> None:
    """What the lexicon must give whatever the seed: opinion words of each needed polarity for every category
    an aspect slot can take, and at least `n` distinct fillings."""
    lexicon = spec.lexicon
    by_name = {s.name: s for s in spec.slots}
    for slot in spec.slots:
        if slot.kind != "opinion":
            continue
        polarities = DRAWN_POLARITIES if slot.value == ANY else (slot.value,)
        if spec.flip_vary and slot.name == spec.vary:
            polarities = tuple(dict.fromkeys((*polarities, *(opposite(p) for p in polarities))))
        aspect = by_name[slot.for_slot] if slot.for_slot else None
        categories: tuple[str | None, ...] = (None,)
        if aspect is not None:
            categories = lexicon.categories() if aspect.value == ANY else (aspect.value,)
        for category in categories:
            for polarity in polarities:
                if not lexicon.opinion_words(polarity, category):
                    where = f"category '{category}'" if category else "the 'all' list"
                    raise fail(at + ("slots", slot.name),
                               f"opinion slot '{slot.name}' ({polarity}{', for ' + slot.for_slot if slot.for_slot else ''}"
                               f"): {where} has no {polarity} words in the {lexicon.domain} lexicon; add some under "
                               f"'lexicons: {{opinions: {{{polarity}: {{{category or 'all'}: [...]}}}}}}'"
                               + (f", or give '{aspect.name}' a category that has them" if aspect else ""))
    wanted = MAX_INSTANCES + 1 if spec.n is None else spec.n
    count = sum(1 for _ in islice(_fillings(spec, _Pools(spec)), wanted))
    if spec.n is None and count > MAX_INSTANCES:
        raise fail(at + ("n",), f"n: all would fill more than {MAX_INSTANCES:,} instances; give a number of draws "
                                "(n: 200)")
    if count == 0:
        raise fail(at + ("slots",), "no filling of the slots fits the lexicon (other_than, distinct words"
                                    + (", a second word for the varied slot" if spec.vary else "")
                                    + "): widen the categories or add words")
    if spec.n is not None and count < wanted:
        raise fail(at + ("n",), f"n: {spec.n} but the slots have only {count} distinct fillings in the "
                                f"{lexicon.domain} lexicon; write n: {count} or n: all (or add words)")


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
