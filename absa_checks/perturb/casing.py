"""CASE: the sentence lower-cased, upper-cased or title-cased, the mode drawn by the unit's seeded random
generator among those that change it. The prediction must not change.

The aspect terms are cased like the rest of the sentence ("THE PIZZA WAS GREAT", never "THE pizza WAS
GREAT", which reviewers judged unrealistic): each term changes in one edit that spans it exactly and changes
its case only, so what the model is asked about is the same term, recased, at its (moved, should the case
change a length, "ß" -> "SS") span. `common.text.apply_edits` gives the aspect the recased term, and the
validity check allows exactly this edit of a term and no other.
"""

from __future__ import annotations

from absa_checks.common.examples import Edit, Example
from absa_checks.perturb.strategies import NotApplicable, Rejected, Step, StepContext
from absa_checks.perturb.surface import WORD, aspect_spans

NO_CASE_CHANGE = "no letter changes case"
CASE_MODES = ("lower", "upper", "title")


def recased(mode: str, text: str, at_word_start: bool) -> str:
    """`text`, a word or the part of one that starts at its first letter (`at_word_start`) or later, in `mode`:
    title case capitalises a word's first letter and lower-cases the rest ("Didn't", not "Didn'T")."""
    if mode == "lower":
        return text.lower()
    if mode == "upper":
        return text.upper()
    return text[:1].upper() + text[1:].lower() if at_word_start else text.lower()


def case_edits(example: Example, mode: str) -> tuple[Edit, ...]:
    """One edit per word outside the aspect terms whose form `mode` changes, and one per aspect term (the
    whole term, recased; a term overlapping another aspect's is left as it is). A word that runs across a
    term's edge ("pizzas" with the term "pizza") is cut there: each part is recased where it lies."""
    sentence, why = example.sentence, f"{mode}-case"
    spans = sorted(set(aspect_spans(example)))
    alone = [s for s in spans if not any(o != s and o[0] < s[1] and s[0] < o[1] for o in spans)]
    pieces: list[tuple[int, int, str]] = []  # every word's parts, cut at the aspect edges, recased
    for word in WORD.finditer(sentence):
        cuts = sorted({word.start(), word.end(), *(p for span in spans for p in span if word.start() < p < word.end())})
        pieces.extend((s, e, recased(mode, sentence[s:e], s == word.start())) for s, e in zip(cuts, cuts[1:]))
    edits = [Edit(s, e, sentence[s:e], new, why) for s, e, new in pieces
             if new != sentence[s:e] and not any(s < a_end and a_start < e for a_start, a_end in spans)]
    for a_start, a_end in alone:
        term = sentence[a_start:a_end]
        new = term
        for s, e, piece in sorted((p for p in pieces if a_start <= p[0] and p[1] <= a_end), reverse=True):
            new = new[:s - a_start] + piece + new[e - a_start:]
        if new != term:
            edits.append(Edit(a_start, a_end, term, new, why))
    return tuple(sorted(edits, key=lambda e: (e.start, e.end)))


def case_step(example: Example, context: StepContext) -> Step | NotApplicable | Rejected:
    options = [edits for edits in (case_edits(example, mode) for mode in CASE_MODES) if edits]
    if not options:
        return NotApplicable(NO_CASE_CHANGE)
    return Step("case", context.rng.choice(options))
