"""Generate a unit's variant for a strategy (or a chain such as revnon+adddiff), checked and seeded.

Every attempt ends as exactly one of: a Variant; NotApplicable (nothing to perturb, e.g. REVNON on a
single-aspect sentence); or Quarantined (a variant was attempted and failed a check), which the
reports count per strategy and reason.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from ..examples import Example, Unit, Variant
from .. import strategies as strategy_names
from .resources import Resources
from .strategies import NotApplicable, Rejected, Step, adddiff, apply_step, revnon, revtgt, tagged
from . import validity


@dataclass(frozen=True)
class Settings:
    seed: int = 0
    k: int | None = None        # ADDDIFF: how many aspects to append; None draws 1-3 per unit (as ARTS)
    neutral: str = "keep"       # REVTGT on neutral targets: "keep" (as ARTS: reverse, gold stays) or "skip"


@dataclass(frozen=True)
class Quarantined:
    source: str
    unit_id: str
    strategy: str
    reason: str    # a fixed category ("verb agreement", "double negation", ...), counted in reports
    detail: str    # the particulars
    sentence: str  # the attempted variant, or the original when nothing was produced

    def to_dict(self) -> dict:
        return dict(self.__dict__)


def generate(unit: Unit, strategy: str, settings: Settings, resources: Resources, domain: str
             ) -> Variant | NotApplicable | Quarantined:
    rng = random.Random(f"{settings.seed}:{unit.source}:{unit.unit_id}:{strategy}:{settings.k}")
    example, edits = unit.original, []
    for name in strategy_names.split_chain(strategy):
        outcome = _one_step(example, name, settings, resources, domain, rng)
        if isinstance(outcome, NotApplicable):
            return outcome
        if isinstance(outcome, Rejected):
            return Quarantined(unit.source, unit.unit_id, strategy, outcome.reason, outcome.detail, example.sentence)
        variant = apply_step(example, outcome)
        found = validity.problems(example, variant, outcome.edits, name,
                                  tagged(example, resources), tagged(variant, resources))
        if found:
            reason, detail = found[0]
            return Quarantined(unit.source, unit.unit_id, strategy, reason, detail, variant.sentence)
        edits.extend(outcome.edits)
        example = variant
    record_id = f"{unit.unit_id}:{strategy}"
    return Variant(strategy, _with_record_id(example, record_id), tuple(edits), origin="generated")


def _one_step(example: Example, name: str, settings: Settings, resources: Resources, domain: str,
              rng: random.Random) -> Step | NotApplicable | Rejected:
    if name == "revtgt":
        return revtgt(example, resources, settings.neutral)
    if name == "revnon":
        return revnon(example, resources, rng)
    k = settings.k if settings.k is not None else rng.randint(1, 3)
    return adddiff(example, resources, domain, k, rng)


def _with_record_id(example: Example, record_id: str) -> Example:
    return replace(example, record_id=record_id)
