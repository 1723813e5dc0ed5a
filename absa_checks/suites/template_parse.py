"""Template tests read: `parse_template` turns a test's template keys (`template:`, `slots:`, `gold:`, `variant:`,
`vary:`, `n:`) into an `absa_checks.suites.templates.TemplateSpec` and checks everything that can be checked
without a seed against the lexicon, every error one line naming file and line, with the fix (docs/suites.md,
"Templates"). Pure; filling it is absa_checks.suites.templates' job.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from absa_checks.common.labels import POLARITIES, opposite
from absa_checks.suites.lexicons import Lexicon
from absa_checks.suites.templates import (
    AGREEMENT,
    ANY,
    ATTRIBUTES,
    DEFAULT_N,
    DRAWN_POLARITIES,
    MAX_INSTANCES,
    SLOT_KEYS,
    SLOT_KINDS,
    SlotSpec,
    TemplateSpec,
    count_fillings,
)

_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
_SLOT_NAME = re.compile(r"[A-Za-z_]\w*")


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
    count = count_fillings(spec, wanted)
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
