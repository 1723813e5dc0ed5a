"""The three ARTS perturbations as pure functions: example in, variant (or a reason) out.

Each returns a `Step`: the edits in the input's coordinates, the new polarities of the aspects
it changed, and aspects it appended (ADDDIFF). `apply_step` turns that into the variant example.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from absa_checks.common.examples import Aspect, Edit, Example
from absa_checks.common.labels import POLAR, opposite
from absa_checks.common.text import apply_edits, tag_tokens
from absa_checks.perturb import conjunctions
from absa_checks.perturb.aspect_groups import covered_groups, groups_of
from absa_checks.perturb.resources import Resources
from absa_checks.perturb.reverse import Change, exaggerate_opinion, reverse_opinion
from absa_checks.perturb.sentence import TaggedSentence
from absa_checks.sources.infer import clause_bounds
from absa_checks.suites.strategies import DEFAULT_NEUTRAL


@dataclass(frozen=True)
class Step:
    strategy: str
    edits: tuple[Edit, ...]
    polarities: dict[int, str] = field(default_factory=dict)  # aspect index -> new polarity
    appended: tuple[Aspect, ...] = ()
    methods: frozenset[str] = frozenset()  # how opinions were reversed (Change.how): a retry avoids them


@dataclass(frozen=True)
class NotApplicable:
    reason: str  # e.g. the target has no opinion words: no variant to make, nothing wrong


@dataclass(frozen=True)
class Rejected:
    """A variant was attempted but could not be made well."""

    reason: str       # a fixed category, counted in reports ("cannot reverse the opinion: ...")
    detail: str = ""  # the particulars (which words)


@dataclass(frozen=True)
class StepContext:
    """What a strategy's generator may use: the test's parameters (defaults filled in), the domain's
    resources, a random generator seeded per unit and strategy, and the reversal methods to avoid
    (a retry after a check rejected the first attempt)."""

    params: dict
    resources: Resources
    domain: str
    rng: random.Random
    avoid: frozenset[str] = frozenset()


def revtgt_step(example: Example, context: StepContext) -> Step | NotApplicable | Rejected:
    return revtgt(example, context.resources, context.params["neutral"], context.avoid)


def revnon_step(example: Example, context: StepContext) -> Step | NotApplicable | Rejected:
    return revnon(example, context.resources, context.rng)


def adddiff_step(example: Example, context: StepContext) -> Step | NotApplicable | Rejected:
    k = context.params["k"] if context.params.get("k") is not None else context.rng.randint(1, 3)
    return adddiff(example, context.resources, context.domain, k, context.rng)


def tagged(example: Example, resources: Resources) -> TaggedSentence:
    spans = tuple((a.start, a.end) for a in (example.target, *example.others))
    tokens = tag_tokens(example.sentence, resources.tagger, resources.finder.is_verb, [end for _, end in spans])
    return TaggedSentence(example.sentence, tuple(tokens), spans)


def apply_step(example: Example, step: Step) -> Example:
    # an appended clause never joins the opinion it follows ("... was great" + ", but the wine is sour")
    return apply_edits(example, step.edits, step.polarities, extra_aspects=step.appended,
                       grow_opinions=not step.appended)


def _overlaps(edit: Edit, start: int, end: int) -> bool:
    return edit.start < end and edit.end > start or (edit.start == edit.end and start < edit.start < end)


def revtgt(example: Example, resources: Resources, neutral: str = DEFAULT_NEUTRAL, avoid: frozenset[str] = frozenset()
           ) -> Step | NotApplicable | Rejected:
    """Reverse every opinion of the target; fix the conjunctions; the gold flips (neutral stays).

    `avoid`: ways of reversing (Change.how) whose result a check rejected; the next way is tried.
    """
    mine = [o for o in example.opinions if o.aspect == 0]
    if not mine:
        return NotApplicable("the target has no opinion words")
    if example.polarity == "neutral" and neutral == "skip":
        return NotApplicable("neutral target (neutral: skip)")
    sentence = tagged(example, resources)
    edits: list[Edit] = []
    methods: set[str] = set()
    for opinion in mine:
        change = reverse_opinion(sentence, opinion, resources.finder, example.polarity, avoid)
        if isinstance(change, str):
            return Rejected(f"cannot reverse an opinion: {change}", opinion.text)
        methods.add(change.how)
        if all(edit in edits for edit in change.edits):
            continue  # two opinions negated at one copula: one "not" covers both
        if _clashes(list(change.edits), edits):
            return Rejected("two opinions of the target need overlapping edits", opinion.text)
        edits.extend(change.edits)
    new_polarity = opposite(example.polarity)
    changed = {0: new_polarity}
    partly = _reached_in_part(example, edits, range(1, len(example.others) + 1))
    if partly:
        # "not pleased with the slow log on, speedy WiFi": the WiFi is now both praised and not
        return Rejected("an edit reverses only part of another aspect's opinions", partly)
    for index, other in enumerate(example.others, 1):  # an opinion shared with another aspect flips it too
        if _reached(example, edits, index) and other.polarity in POLAR:
            changed[index] = opposite(other.polarity)
    fixes = conjunctions.adjust(example, sentence, changed)
    if isinstance(fixes, str):
        return Rejected("a contrastive conjunction no longer fits", fixes)
    return Step("revtgt", tuple(edits) + tuple(fixes), changed, methods=frozenset(methods))


def revnon(example: Example, resources: Resources, rng: random.Random) -> Step | NotApplicable | Rejected:
    """Reverse the other aspects that share the target's polarity; exaggerate the opposite ones."""
    if example.polarity not in POLAR:
        return NotApplicable("a neutral target has no sentiment to share or oppose")
    candidates = [i for i, a in enumerate(example.others, 1) if a.polarity in POLAR
                  and any(o.aspect == i for o in example.opinions)]
    if not candidates:
        return NotApplicable("no other aspect with sentiment and opinion words")
    sentence = tagged(example, resources)
    target_spans = [(example.target.start, example.target.end)] + [
        (o.start, o.end) for o in example.opinions if o.aspect == 0]
    edits: list[Edit] = []
    changed: dict[int, str] = {}
    skipped: list[str] = []
    intensifiers, weakeners = resources.intensifiers, resources.weakeners
    for index in candidates:
        other = example.others[index - 1]
        assert other.polarity is not None  # a candidate is polar
        same = other.polarity == example.polarity
        steps: list[Edit] = []
        theirs = [o for o in example.opinions if o.aspect == index]
        own = [o for o in theirs if not any(o.start < e and o.end > s for s, e in target_spans)]
        if not own:  # every opinion of theirs is also the target's: touching it would touch the target
            skipped.append(f"'{other.term}' shares the target's opinion words")
            continue
        for opinion in own:
            change: Change | str = (reverse_opinion(sentence, opinion, resources.finder, other.polarity) if same else
                                    exaggerate_opinion(sentence, opinion, rng.choice(resources.degree_adverbs),
                                                       intensifiers, weakeners))
            if isinstance(change, str):
                skipped.append(f"'{other.term}': {change}")
                continue
            steps.extend(change.edits)
        if steps and not _clashes(steps, edits):
            edits.extend(steps)
            if same:
                changed[index] = opposite(other.polarity)
    if not edits:
        return Rejected("no other aspect could be reversed or exaggerated", "; ".join(skipped))
    partly = _reached_in_part(example, edits, range(len(example.others) + 1))
    if partly:
        # "The host (owner) and servers are cold and caring": half of a shared pair reversed
        return Rejected("an edit reverses only part of another aspect's opinions", partly)
    kept = [a.term for i, a in enumerate(example.others, 1) if a.polarity == example.polarity and i not in changed
            and any(o.aspect == i for o in example.opinions)]
    if kept:
        # the rubric: every aspect that shared the target's sentiment now has the opposite one
        return Rejected("an aspect with the target's sentiment keeps it", ", ".join(kept))
    voiced = [o for o in example.opinions if o.aspect == 0 and not any(_overlaps(e, o.start, o.end) for e in edits)
              and _evaluates(sentence, o, example.polarity, resources)]
    if not voiced:
        # "the replacements for Microsoft office", "Fan vents to the side": with no evaluative word of
        # its own, the target's sentiment comes from the others' and turns with them
        return Rejected("the target has no evaluative word of its own", example.target.term)
    if _in_parentheses(example.sentence, example.target.start):
        # "Best dishes come from the oven (Lasagna and Focaccia)": the bracket restates its head
        return Rejected("the target is inside parentheses", example.target.term)
    lo, hi = clause_bounds(example.sentence, example.target.start, example.target.end)
    inside = [e for e in edits if e.start < hi and e.end > lo]
    if inside:
        # "I dislike the design and its features": a reversal in the target's clause reaches the target
        return Rejected("a reversal falls in the target's clause", inside[0].old or inside[0].new)
    fixes = conjunctions.adjust(example, sentence, changed)
    if isinstance(fixes, str):
        return Rejected("a contrastive conjunction no longer fits", fixes)
    return Step("revnon", tuple(edits) + tuple(fixes), changed)


def _evaluates(sentence: TaggedSentence, opinion, polarity: str | None, resources: Resources) -> bool:
    """The opinion words judge: an adjective ("tasty", which no lexicon knows), or words the lexicon
    reads as `polarity`; "the replacements for", "vents to the side" only describe."""
    if any(sentence.tokens[i].tag.startswith("JJ") for i in sentence.covering(opinion.start, opinion.end)):
        return True
    score = resources.polarity.compound(opinion.text)
    return score > 0 if polarity == "positive" else score < 0


def _reached(example: Example, edits: list[Edit], index: int) -> list:
    """The opinions of aspect `index` (0 = target) that an edit touches."""
    return [o for o in example.opinions if o.aspect == index and any(_overlaps(e, o.start, o.end) for e in edits)]


def _reached_in_part(example: Example, edits: list[Edit], indices) -> str | None:
    """The term of the first of these aspects some but not all of whose opinions an edit touches."""
    aspects = (example.target, *example.others)
    for index in indices:
        reached = _reached(example, edits, index)
        if reached and len(reached) < sum(o.aspect == index for o in example.opinions):
            return aspects[index].term
    return None


def _in_parentheses(sentence: str, position: int) -> bool:
    return sentence.rfind("(", 0, position) > sentence.rfind(")", 0, position)


def _clashes(new: list[Edit], existing: list[Edit]) -> bool:
    return any(a.start < b.end and b.start < a.end or (a.start == b.start) for a in new for b in existing)


_FINAL = re.compile(r"\s*([.!?]*)\s*$")


def adddiff(example: Example, resources: Resources, domain: str, k: int, rng: random.Random
            ) -> Step | NotApplicable | Rejected:
    """Append k clauses about aspects not in the sentence, of the opposite polarity to the target's."""
    bank = resources.bank(domain)
    present = example.sentence.lower()
    mentioned = {a.term.lower() for a in (example.target, *example.others)}
    # an appended clause must not be about the target or an aspect standing for it ("ambiance" for
    # "atmosphere"); other aspects of the sentence may share a group with the bank's aspects
    taken = covered_groups([a.term for a in (example.target, *example.others)], example.sentence)
    clear = {aspect for aspect in {e.aspect for e in bank} if not groups_of(aspect) & taken}

    def usable(entry) -> bool:
        term = entry.aspect.lower()
        return (entry.aspect in clear and term not in mentioned
                and not re.search(rf"\b{re.escape(term)}\b", present))

    chosen, used_aspects = [], set()
    for _ in range(k):
        polarity = opposite(example.polarity) if example.polarity in POLAR else rng.choice(POLAR)
        pool = [e for e in bank if e.polarity == polarity and usable(e) and e.aspect.lower() not in used_aspects]
        if not pool:
            return Rejected("the aspect bank has too few unused aspects", f"{domain}, {polarity}, k={k}")
        entry = rng.choice(pool)
        chosen.append(entry)
        used_aspects.add(entry.aspect.lower())
    phrases = [e.expression for e in chosen]
    joined = phrases[0] if k == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]
    final = _FINAL.search(example.sentence)
    assert final is not None  # the pattern matches at the end of any sentence
    body_end = final.start()
    if example.polarity not in POLAR:
        link = "; "
    elif re.search(r"\b(but|though|although|while|whereas|yet)\b", example.sentence, re.IGNORECASE):
        # a second contrast ("..., though X, but Y") would stutter
        link = "; however, "
    else:
        link = ", but "
    addition = link + joined + (final.group(1) or "")
    insert = Edit(body_end, len(example.sentence), example.sentence[body_end:], addition, f"append {k} aspects")
    appended = _locate(example.sentence[:body_end] + addition, chosen, body_end + len(link))
    return Step("adddiff", (insert,), {}, tuple(appended))


def _locate(sentence: str, entries, from_position: int) -> list[Aspect]:
    """Spans of the appended aspect terms, searched left to right after `from_position`."""
    aspects, cursor = [], from_position
    for entry in entries:
        start = sentence.lower().index(entry.expression.lower(), cursor)
        term_start = start + entry.expression.lower().index(entry.aspect.lower())
        aspects.append(Aspect(sentence[term_start:term_start + len(entry.aspect)], term_start,
                              term_start + len(entry.aspect), entry.polarity))
        cursor = start + len(entry.expression)
    return aspects
