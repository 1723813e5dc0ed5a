"""PUNCTUATION: one change to the sentence's punctuation, drawn by the unit's seeded random generator
among those it allows: its final punctuation removed ("." "!" "?" "..."), or a full stop added after a
final word; or one comma removed. The prediction must not change.

Commas are removed, never added: an added comma can change the reading ("anything but good"). A comma
between two aspect terms of a list stays ("the pizza, pasta and salad": removing it would join two
aspects), as does a comma inside a number ("1,000") or inside an aspect term ("Greek yogurt (with
cucumber, dill, and garlic)"), and any mark of an emoticon (":)").
"""

from __future__ import annotations

import re

from absa_checks.common.examples import Edit, Example
from absa_checks.perturb.strategies import NotApplicable, Rejected, Step, StepContext
from absa_checks.perturb.surface import aspect_spans, clear_of_aspects

NO_PUNCTUATION_CHANGE = "no final punctuation or comma to change"
_FINAL = re.compile(r"(\s*[.!?…]+)\s*$")  # with the space before it: "back for dessert ...." -> "back for dessert"
_COMMA = re.compile(r",(?=\s)")


def punctuation_step(example: Example, context: StepContext) -> Step | NotApplicable | Rejected:
    options = [edit for edit in (_final(example.sentence), *_commas(example))
               if edit is not None and clear_of_aspects(example, edit.start, edit.end)]
    if not options:
        return NotApplicable(NO_PUNCTUATION_CHANGE)
    return Step("punctuation", (context.rng.choice(options),))


def _final(sentence: str) -> Edit | None:
    found = _FINAL.search(sentence)
    if found:
        return Edit(found.start(1), found.end(1), found.group(1), "", "remove the final punctuation")
    body = sentence.rstrip()
    if body and body[-1].isalnum():
        return Edit(len(body), len(body), "", ".", "add a full stop")
    return None


def _commas(example: Example) -> list[Edit]:
    spans = aspect_spans(example)
    sentence = example.sentence
    found = []
    for comma in _COMMA.finditer(sentence):
        at = comma.start()
        before = any(end == at for _, end in spans)
        after = any(re.fullmatch(r"\s*(?:and\s+|or\s+)?(?:the\s+|a\s+|an\s+|its\s+|their\s+)?", sentence[at + 1:start])
                    for start, _ in spans if start > at)
        if before and after:
            continue  # "the pizza, pasta and salad": a list of aspects stays a list
        found.append(Edit(at, at + 1, ",", "", "remove a comma"))
    return found
