"""Golden tests from the blind judgement of November 2026 (../shared/quality/judged_2026-11.jsonl).

Each row is a variant a blind reader rejected, with the cause the issue names; the generator must
never ship that text again, and says why (the quarantine reason) or ships the repaired text. The
rejected text is read from the judged file at test time (it quotes the shared data). The
units are the SemEval-2014 test units with their TOWE opinion spans, read from ../shared/data.
"""

from __future__ import annotations

import json

import pytest

from absa_checks.common.examples import Variant
from absa_checks.perturb.engine import Quarantined, Settings, generate
from absa_checks.perturb.resources import load_resources
from absa_checks.perturb.strategies import NotApplicable
from absa_checks.sources import load_dataset
from conftest import SHARED_DATA, needs_shared_data

LAP, RES = "semeval14-laptop", "semeval14-restaurant"

# (cause, source, unit, strategy, the quarantine reason now given); the rejected variant itself is read
# from the judged file (judged below), not copied here
QUARANTINED = [
    # 1. the edit contradicts the unchanged context
    ("context", RES, "11463275#424927#1_0", "revtgt", "a discourse word depends on the old polarity"),
    ("context", RES, "33070601#438491#1_0", "revtgt", "a discourse word depends on the old polarity"),
    ("context", RES, "11639814#570590#1_1", "revnon", "a general and a specific aspect now disagree"),
    ("context", LAP, "48:1_0", "revtgt", "a contrast joins an unannotated clause"),
    ("context", RES, "11432842#416795#4_0", "revtgt", "a discourse word depends on the old polarity"),
    ("context", RES, "11359619#487952#3_1", "revtgt", "a sentiment word outside the annotated opinions"),
    ("context", RES, "11359717#1138929#0_0", "revtgt", "a contrast joins an unannotated clause"),
    ("context", RES, "35509422#0#3_1", "revtgt", "a discourse word depends on the old polarity"),
    ("context", LAP, "57:1_0", "revnon", "the target has no evaluative word of its own"),
    # 2. wrong-sense or invented antonyms
    ("antonym", LAP, "363:27_0", "revtgt", "cannot reverse an opinion"),
    ("antonym", RES, "11482070#503858#0_0", "revtgt", "cannot reverse an opinion"),
    ("antonym", RES, "33069536#707145#3_0", "revnon", "a reversal falls in the target's clause"),
    # 3. "not" where English does not put it
    ("not placement", LAP, "959:1_0", "revtgt", "cannot reverse an opinion"),
    ("not placement", LAP, "709:1_0", "revtgt", "cannot reverse an opinion"),
    ("not placement", LAP, "293:3_0", "revtgt", "cannot reverse an opinion"),
    ("not placement", RES, "33068909#1189415#2_0", "revtgt", "cannot reverse an opinion"),
    # 4. negations that do not reverse
    ("non-reversing negation", LAP, "211:1_2", "revtgt", "a negation of a negative word does not reverse it"),
    ("non-reversing negation", RES, "35393632#1591698#7_0", "revtgt",
     "a discourse word depends on the old polarity"),
    ("non-reversing negation", LAP, "997:1_0", "revtgt",
     "neutral target (neutral: skip)"),  # a neutral target is skipped by default since blind round 5
    ("not placement", LAP, "758:1_0", "revtgt",
     "a clause names no aspect"),  # was repaired to "works poorly"; "It came in brand new" names no aspect
    # 5. REVNON: an aspect sharing the target's phrase keeps its sentiment, or the reversal leaks into the target
    ("revnon sharing", LAP, "952:1_1", "revnon", "an aspect with the target's sentiment keeps it"),
    ("revnon sharing", LAP, "706:1_1", "revnon", "an aspect with the target's sentiment keeps it"),
    ("revnon sharing", LAP, "16:1_2", "revnon", "an aspect with the target's sentiment keeps it"),
    ("revnon leak", LAP, "567:1_1", "revnon", "a reversal falls in the target's clause"),
    ("revnon leak", LAP, "786:237_0", "revnon", "no other aspect could be reversed or exaggerated"),
    ("revnon leak", RES, "32867472#663531#1_0", "revnon", "an aspect with the target's sentiment keeps it"),
]

# (cause, source, unit, strategy, the repaired variant shipped now)
REPAIRED = [
    ("antonym", LAP, "130:1_0", "revtgt", "Works poorly, but I am extremely happy to be back to an apple OS."),
    ("antonym", LAP, "87:1_0", "revnon", "It works fine, but all the software seems to run pretty poorly."),
]


@pytest.fixture(scope="module")
def judged():
    """(source, unit, strategy) -> the variant of ours a blind reader rejected, from the judged file."""
    rows = map(json.loads, (SHARED_DATA.parent / "quality" / "judged_2026-11.jsonl").read_text(encoding="utf-8")
               .splitlines())
    return {(r["source"], r["unit"], r["strategy"]): r["variant"] for r in rows if r["generator"] == "absa-checks"}


@pytest.fixture(scope="module")
def units():
    return {(name, u.unit_id): u for name in (LAP, RES) for u in load_dataset(name, SHARED_DATA).units}


@pytest.fixture(scope="module")
def resources():
    return {LAP: load_resources("laptop"), RES: load_resources("restaurant")}


def _generate(units, resources, source, unit, strategy):
    domain = "laptop" if source == LAP else "restaurant"
    return generate(units[(source, unit)], strategy, Settings(seed=0), resources[source], domain)


@needs_shared_data
@pytest.mark.parametrize("cause, source, unit, strategy, reason", QUARANTINED,
                         ids=[f"{row[0]}:{row[2]}:{row[3]}" for row in QUARANTINED])
def test_a_judged_failure_is_quarantined_with_its_reason(judged, units, resources, cause, source, unit, strategy,
                                                         reason):
    rejected = judged[(source, unit, strategy)]
    outcome = _generate(units, resources, source, unit, strategy)
    assert isinstance(outcome, (Quarantined, NotApplicable)), f"{cause}: shipped {getattr(outcome, 'example', outcome)}"
    assert outcome.reason.startswith(reason), (outcome.reason, outcome.detail, rejected)  # never shipped as rejected


@needs_shared_data
@pytest.mark.parametrize("cause, source, unit, strategy, repaired", REPAIRED,
                         ids=[f"{row[0]}:{row[2]}:{row[3]}" for row in REPAIRED])
def test_a_judged_failure_is_repaired(judged, units, resources, cause, source, unit, strategy, repaired):
    rejected = judged[(source, unit, strategy)]
    outcome = _generate(units, resources, source, unit, strategy)
    assert isinstance(outcome, Variant), outcome
    assert outcome.example.sentence == repaired != rejected
