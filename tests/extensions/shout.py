"""A toy strategy for tests/extensions/test_seams.py: one module, registered with one line. It upper-cases the
first word of the sentence that is not the target; the prediction must not change."""

from __future__ import annotations

import re

from absa_checks.common.examples import Edit
from absa_checks.perturb.strategies import NotApplicable, Step


def shout_step(example, context):
    target = example.target
    shortest = context.params["min_length"]
    for match in re.finditer(rf"[a-z]{{{shortest},}}", example.sentence):
        if match.end() <= target.start or match.start() >= target.end:
            return Step("shout", (Edit(match.start(), match.end(), match.group(), match.group().upper(), "shout"),))
    return NotApplicable("no word to shout")
