"""A strategy from outside the package (docs/architecture.md, "Seams"): its generator and its declaration, one
module; registered under the entry-point group `absa_checks.strategies` (tests/extensions/registration.py).
It upper-cases the first word of the sentence that is not the target; the prediction must not change."""

from __future__ import annotations

import re

from absa_checks.common.examples import Edit
from absa_checks.perturb.strategies import NotApplicable, Step
from absa_checks.suites.strategies import Parameter, Strategy


def shout_step(example, context):
    target = example.target
    shortest = context.params["min_length"]
    for match in re.finditer(rf"[a-z]{{{shortest},}}", example.sentence):
        if match.end() <= target.start or match.start() >= target.end:
            return Step("shout", (Edit(match.start(), match.end(), match.group(), match.group().upper(), "shout"),))
    return NotApplicable("no word to shout")


def parse_min_length(value):
    if not isinstance(value, int) or value < 2:
        raise ValueError(f"'min_length' must be a whole number of at least 2, got {value!r}")
    return value


STRATEGY = Strategy("shout", "unchanged", False, "upper-case a word; the prediction must not change",
                    "shouting changed the prediction", "tests.extensions.shout:shout_step",
                    edits_target=False, context_checks=False,
                    parameters=(Parameter("min_length", 4, parse_min_length, "shortest word to shout"),))
