"""Golden tests from the blind judgement of November 2026 (../shared/quality/judged_2026-11.jsonl).

Each row is a variant a blind reader rejected, with the cause the issue names; the generator must
never ship that text again, and says why (the quarantine reason) or ships the repaired text. The
units are the SemEval-2014 test units with their TOWE opinion spans, read from ../shared/data.
"""

from __future__ import annotations

import pytest

from absa_checks.examples import Variant
from absa_checks.perturb.engine import Quarantined, Settings, generate
from absa_checks.perturb.resources import load_resources
from absa_checks.perturb.strategies import NotApplicable
from absa_checks.sources import load_dataset
from conftest import SHARED_DATA, needs_shared_data

LAP, RES = "semeval14-laptop", "semeval14-restaurant"

# (cause, source, unit, strategy, the rejected variant, the quarantine reason now given)
QUARANTINED = [
    # 1. the edit contradicts the unchanged context
    ("context", RES, "11463275#424927#1_0", "revtgt",
     "Not only do they have the worst escargot in town,they always try to accomodate our toddler.",
     "a discourse word depends on the old polarity"),
    ("context", RES, "33070601#438491#1_0", "revtgt",
     "I would only go for the coffee which is way worse than Starbucks or the like.",
     "a discourse word depends on the old polarity"),
    ("context", RES, "11639814#570590#1_1", "revnon",
     "The food was poor - authentic Italian cuisine made absolutely fresh.",
     "a general and a specific aspect now disagree"),
    ("context", LAP, "48:1_0", "revtgt",
     "It's not inexpensive but the Hardware performance is unimpressive for a computer this small.",
     "a contrast joins an unannotated clause"),
    ("context", RES, "11432842#416795#4_0", "revtgt", "Prices even outside of restaurant week were terrible.",
     "a discourse word depends on the old polarity"),
    ("context", RES, "11359619#487952#3_1", "revtgt", "it is a hidden delight complete with a quaint bar and bad food.",
     "a sentiment word outside the annotated opinions"),
    ("context", RES, "11359717#1138929#0_0", "revtgt", "Warm atmosphere but such a let down.",
     "a contrast joins an unannotated clause"),
    ("context", RES, "35509422#0#3_1", "revtgt",
     "Generously garnished, organic grilled burgers are the most unpopular dish, but the Jerusalem market-style "
     "falafel wraps and Mediterranean salads--layered with beets, goat cheese and walnuts--are equally scrumptious.",
     "a discourse word depends on the old polarity"),
    ("context", LAP, "57:1_0", "revnon",
     "This thing is awesome, everything always works, everything is always difficult to set up, everything is "
     "compatible, its literally everything I could ask for.",
     "the target has no evaluative word of its own"),
    # 2. wrong-sense or invented antonyms
    ("antonym", LAP, "363:27_0", "revtgt", "The durability of the laptop will make it worthless the money.",
     "cannot reverse an opinion"),
    ("antonym", RES, "11482070#503858#0_0", "revtgt",
     "This place has the most familiar menu and the restaurants tries too hard to make fancy food.",
     "cannot reverse an opinion"),
    ("antonym", RES, "33069536#707145#3_0", "revnon",
     "My husband and I have been there at least 6 times and we've always been given the highest service and "
     "often unfree desserts.", "a reversal falls in the target's clause"),
    # 3. "not" where English does not put it
    ("not placement", LAP, "959:1_0", "revtgt", "which performed not admirably", "cannot reverse an opinion"),
    ("not placement", LAP, "709:1_0", "revtgt", "so much more not pleasurable", "cannot reverse an opinion"),
    ("not placement", LAP, "293:3_0", "revtgt", "The 2.9ghz dual-core i7 chip not really out does itself.",
     "cannot reverse an opinion"),
    ("not placement", RES, "33068909#1189415#2_0", "revtgt",
     "After waiting for almost an hour, the waiter not brusquely told us he'd forgotten to give the kitchen our "
     "order.", "cannot reverse an opinion"),
    # 4. negations that do not reverse
    ("non-reversing negation", LAP, "211:1_2", "revtgt",
     "Apple is not unmatched in product quality,aesthetics,craftmanship, and customer service.",
     "a negation of a negative word does not reverse it"),
    ("non-reversing negation", RES, "35393632#1591698#7_0", "revtgt",
     "Only suggestion is that you skip the dessert, it was not overpriced but fell short on taste.",
     "a discourse word depends on the old polarity"),
    ("non-reversing negation", LAP, "997:1_0", "revtgt", "This newer netbook has hard drive or network lights.",
     "neutral target (neutral: skip)"),  # a neutral target is skipped by default since blind round 5
    ("not placement", LAP, "758:1_0", "revtgt", "It came in brand new and works not perfectly.",
     "a clause names no aspect"),  # was repaired to "works poorly"; "It came in brand new" names no aspect
    # 5. REVNON: an aspect sharing the target's phrase keeps its sentiment, or the reversal leaks into the target
    ("revnon sharing", LAP, "952:1_1", "revnon", "This item is a beautiful piece, it works ill, it is easy to carry and handle.",
     "an aspect with the target's sentiment keeps it"),
    ("revnon sharing", LAP, "706:1_1", "revnon", "It looks and feels solid, with a disappointing finish.",
     "an aspect with the target's sentiment keeps it"),
    ("revnon sharing", LAP, "16:1_2", "revnon",
     "The performance seems quite bad, but built-in applications like iPhoto work great with my phone and camera.",
     "an aspect with the target's sentiment keeps it"),
    ("revnon leak", LAP, "567:1_1", "revnon",
     "I dislike the design and its features but there are somethings I think needs to be improved.",
     "a reversal falls in the target's clause"),
    ("revnon leak", LAP, "786:237_0", "revnon",
     "Now that I have upgraded to Lion I am much more unhappy about MAC OS and have just bought an iMac for office.",
     "no other aspect could be reversed or exaggerated"),
    ("revnon leak", RES, "32867472#663531#1_0", "revnon",
     "The food is great, I hate their dumplings, cold sesame noodles, chicken and shrimp dishs.",
     "an aspect with the target's sentiment keeps it"),
]

# (cause, source, unit, strategy, the rejected variant, the repaired variant shipped now)
REPAIRED = [
    ("antonym", LAP, "130:1_0", "revtgt", "Works ill, but I am extremely happy to be back to an apple OS.",
     "Works poorly, but I am extremely happy to be back to an apple OS."),
    ("antonym", LAP, "87:1_0", "revnon", "It works fine, but all the software seems to run pretty ill.",
     "It works fine, but all the software seems to run pretty poorly."),
]


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
@pytest.mark.parametrize("cause, source, unit, strategy, rejected, reason", QUARANTINED,
                         ids=[f"{row[0]}:{row[2]}:{row[3]}" for row in QUARANTINED])
def test_a_judged_failure_is_quarantined_with_its_reason(units, resources, cause, source, unit, strategy,
                                                         rejected, reason):
    outcome = _generate(units, resources, source, unit, strategy)
    assert isinstance(outcome, (Quarantined, NotApplicable)), f"{cause}: shipped {getattr(outcome, 'example', outcome)}"
    assert outcome.reason.startswith(reason), (outcome.reason, outcome.detail)  # never shipped as `rejected`


@needs_shared_data
@pytest.mark.parametrize("cause, source, unit, strategy, rejected, repaired", REPAIRED,
                         ids=[f"{row[0]}:{row[2]}:{row[3]}" for row in REPAIRED])
def test_a_judged_failure_is_repaired(units, resources, cause, source, unit, strategy, rejected, repaired):
    outcome = _generate(units, resources, source, unit, strategy)
    assert isinstance(outcome, Variant), outcome
    assert outcome.example.sentence == repaired != rejected
