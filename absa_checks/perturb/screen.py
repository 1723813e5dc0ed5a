"""Screen variants made elsewhere (ARTS's published ones) with the checks our own variants pass.

The edits are recovered by a token diff of the original and the variant; the new polarities are what
the strategy says (REVTGT flips the target, REVNON flips the other aspects that shared the target's
polarity). Then the same validity and context checks run as for a generated variant.
"""

from __future__ import annotations

import difflib
import re

from absa_checks.common.examples import Aspect, Edit, Example
from absa_checks.common.labels import POLAR, opposite
from absa_checks.perturb.engine import reversal_problems
from absa_checks.perturb.resources import Resources
from absa_checks.perturb.strategies import tagged
from absa_checks.perturb.validity import language_problems

_TOKEN = re.compile(r"\w+(?:['\u2019-]\w+)*|[^\w\s]")


def edits_between(original: str, variant: str) -> tuple[Edit, ...]:
    """The token-level edits that turn `original` into `variant`, in the original's coordinates."""
    a, b = list(_TOKEN.finditer(original)), list(_TOKEN.finditer(variant))
    matcher = difflib.SequenceMatcher(a=[m.group(0) for m in a], b=[m.group(0) for m in b], autojunk=False)
    edits = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        start = a[i1].start() if i1 < len(a) else len(original)
        end = a[i2 - 1].end() if i2 > i1 else start
        new = variant[b[j1].start():b[j2 - 1].end()] if j2 > j1 else ""
        if i2 == i1:  # an insertion: give it its own space
            new = new + " " if start < len(original) else " " + new
        edits.append(Edit(start, end, original[start:end], new, "published edit"))
    return tuple(edits)


def screen(original: Example, variant_sentence: str, strategy: str, resources: Resources) -> list[tuple[str, str]]:
    """(reason, detail) for every check the published variant fails; empty when it would ship."""
    if strategy not in ("revtgt", "revnon"):
        return []
    edits = edits_between(original.sentence, variant_sentence)
    if not edits:
        return [("nothing changed", "")]
    if strategy == "revtgt":
        polarities = {0: opposite(original.polarity)} if original.polarity in POLAR else {}
    else:
        polarities = {i: opposite(a.polarity) for i, a in enumerate(original.others, 1)
                      if a.polarity == original.polarity and a.polarity in POLAR}
    before = tagged(original, resources)
    # the variant's spans are unknown: no token of it is protected as an aspect
    after = tagged(Example(variant_sentence, Aspect(original.target.term, 0, 0)), resources)
    variant = Example(variant_sentence, original.target)
    return language_problems(before, after) + reversal_problems(before, original, variant, edits, polarities,
                                                                strategy, resources)
