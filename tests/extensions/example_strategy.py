"""Add a strategy (docs/architecture.md, "Seams"): its generator and its declaration in one module.

`shout` upper-cases the first word of at least `min_length` letters outside the target; the prediction must
not change. The registration is one entry in absa_checks/suites/strategies.py's BUILTIN_STRATEGIES, or, from
your own package, one line under `[project.entry-points."absa_checks.strategies"]`:
`shout = "my_package.shout:STRATEGY"`; tests/extensions/test_docs_examples.py and tests/extensions/test_extensions.py register it so."""

from __future__ import annotations

import re

from absa_checks.common.examples import Edit, Example
from absa_checks.perturb.strategies import NotApplicable, Step, StepContext
from absa_checks.suites.strategies import Parameter, Strategy


def parse_min_length(value: object) -> int:
    """The value as written in a suite; a ValueError becomes `file:line: message`."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 2:
        raise ValueError(f"'min_length' must be a whole number of at least 2, got {value!r}")
    return value


def shout_step(example: Example, context: StepContext) -> Step | NotApplicable:
    """The generator: `context.params` holds the test's parameters, defaults filled in."""
    target = example.target
    for match in re.finditer(rf"[a-z]{{{context.params['min_length']},}}", example.sentence):
        if match.end() <= target.start or match.start() >= target.end:
            word = match.group()
            return Step("shout", (Edit(match.start(), match.end(), word, word.upper(), "shout"),))
    return NotApplicable("no word to shout")


STRATEGY = Strategy("shout", "unchanged", False, "upper-case a word; the prediction must not change",
                    "shouting changed the prediction", "tests.extensions.example_strategy:shout_step",
                    edits_target=False, context_checks=False,
                    parameters=(Parameter("min_length", 4, parse_min_length, "shortest word to shout",
                                          schema={"type": "integer", "minimum": 2}),))
