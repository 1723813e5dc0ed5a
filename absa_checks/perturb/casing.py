"""CASE: the sentence lower-cased, upper-cased or title-cased, the mode drawn by the unit's seeded random
generator among those that change it. The prediction must not change.

The aspect terms keep their letters exactly ("THE pizza WAS GREAT"): what the model is asked about is the
same term at its (moved, should the case change a length, "ß" -> "SS") span.
"""

from __future__ import annotations

from absa_checks.common.examples import Edit, Example
from absa_checks.perturb.strategies import NotApplicable, Rejected, Step, StepContext
from absa_checks.perturb.surface import words_outside_aspects

NOTHING = "no letter outside the aspect terms changes case"
MODES = {"lower": str.lower, "upper": str.upper, "title": lambda word: word[:1].upper() + word[1:].lower()}


def case_edits(example: Example, mode: str) -> tuple[Edit, ...]:
    """One edit per word outside the aspect terms whose form `mode` changes."""
    change = MODES[mode]
    return tuple(Edit(m.start(), m.end(), m.group(), change(m.group()), f"{mode}-case")
                 for m in words_outside_aspects(example) if change(m.group()) != m.group())


def case_step(example: Example, context: StepContext) -> Step | NotApplicable | Rejected:
    options = [edits for edits in (case_edits(example, mode) for mode in MODES) if edits]
    if not options:
        return NotApplicable(NOTHING)
    return Step("case", context.rng.choice(options))
