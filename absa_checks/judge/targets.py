"""A behavioural case on an extraction model: find the case's target among what the model extracted
from the (original or variant) sentence, and read its polarity.

The target is matched one-to-one against all the sentence's annotated aspects (so a prediction taken
by another aspect is not the target's), flexibly by default (matching.py). Two outcomes are not a
polarity: the target was not found, or it was found more than once with different polarities
(ambiguous); each is counted on its own, and either breaks the unit's ARS.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from absa_checks.common.examples import Example
from absa_checks.common.tuples import AnnotatedSentence, AspectTuple
from absa_checks.judge.matching import compatible, matched

NOT_FOUND = "not-found"
AMBIGUOUS = "ambiguous"


@dataclass(frozen=True)
class Missing:
    """No single polarity for the target: `kind` NOT_FOUND or AMBIGUOUS, and what the model found instead."""

    kind: str
    detail: str


def find_target(example: Example, found: Sequence[AspectTuple], mode: str = "flexible") -> AspectTuple | Missing:
    aspects = (example.target, *example.others)
    annotated = AnnotatedSentence("", example.sentence,
                                  tuple(AspectTuple(a.term, a.polarity, a.start, a.end) for a in aspects))
    assignment = matched(found, annotated, "aspect", mode)
    names = ", ".join(f"'{t.aspect}' ({t.polarity})" for t in found) or "no aspect"
    if 0 not in assignment:
        return Missing(NOT_FOUND, f"'{example.target.term}' not among the aspects found: {names}")
    chosen = found[assignment[0]]
    taken = set(assignment.values())
    rivals = [t for i, t in enumerate(found) if i not in taken and t.polarity != chosen.polarity
              and compatible(t, 0, annotated, "aspect", mode)]
    if rivals:
        return Missing(AMBIGUOUS, f"'{example.target.term}' found as '{chosen.aspect}' ({chosen.polarity}) and as "
                                  + ", ".join(f"'{t.aspect}' ({t.polarity})" for t in rivals))
    return chosen
