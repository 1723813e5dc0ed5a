"""`absa-checks generate`: write generated variants of any annotated ABSA file (JSONL or ARTS JSON).

Also builds adversarial training data, as in the ARTS paper's section 5.4.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Iterable, TextIO

from .examples import Example, Unit, Variant
from .perturb.engine import Quarantined, Settings, generate
from .perturb.resources import load_resources
from .perturb.strategies import NotApplicable
from .sources.base import LoadedSource

ARTS_SUFFIX = {"revtgt": "_adv1", "revnon": "_adv2", "adddiff": "_adv3"}


@dataclass
class Tally:
    made: Counter = field(default_factory=Counter)
    not_applicable: Counter = field(default_factory=Counter)
    quarantined: Counter = field(default_factory=Counter)  # (strategy, reason)

    def lines(self) -> list[str]:
        out = []
        for strategy in sorted(set(self.made) | set(self.not_applicable) | {s for s, _ in self.quarantined}):
            rejected = {r: n for (s, r), n in self.quarantined.items() if s == strategy}
            out.append(f"{strategy}: {self.made[strategy]} variants, {sum(rejected.values())} quarantined, "
                       f"{self.not_applicable[strategy]} not applicable")
            out += [f"    quarantined: {n} x {reason}" for reason, n in sorted(rejected.items(), key=lambda x: -x[1])]
        return out


def run(loaded: LoadedSource, strategies: list[str], settings: Settings
        ) -> tuple[list[tuple[Unit, Variant]], list[Quarantined], Tally]:
    resources = load_resources(loaded.domain or "restaurant")
    made, rejected, tally = [], [], Tally()
    for unit in loaded.units:
        for strategy in strategies:
            outcome = generate(unit, strategy, settings, resources, loaded.domain or "restaurant")
            if isinstance(outcome, Variant):
                made.append((unit, outcome))
                tally.made[strategy] += 1
            elif isinstance(outcome, Quarantined):
                rejected.append(outcome)
                tally.quarantined[(strategy, outcome.reason)] += 1
            elif isinstance(outcome, NotApplicable):
                tally.not_applicable[strategy] += 1
    return made, rejected, tally


def _aspects(example: Example) -> list[dict]:
    return [{"term": a.term, "from": a.start, "to": a.end, "polarity": a.polarity} for a in example.others]


def jsonl_record(unit: Unit, variant: Variant) -> dict:
    v, o = variant.example, unit.original
    return {"strategy": variant.strategy, "unit": unit.unit_id, "source": unit.source,
            "sentence": v.sentence, "term": v.target.term, "from": v.target.start, "to": v.target.end,
            "polarity": v.polarity, "other_aspects": _aspects(v),
            "original": {"sentence": o.sentence, "term": o.target.term, "from": o.target.start,
                         "to": o.target.end, "polarity": o.polarity},
            "edits": [asdict(e) for e in variant.edits]}


def write_jsonl(made: Iterable[tuple[Unit, Variant]], out: TextIO) -> None:
    for unit, variant in made:
        out.write(json.dumps(jsonl_record(unit, variant), ensure_ascii=False) + "\n")


def write_arts(made: list[tuple[Unit, Variant]], out: TextIO) -> None:
    """The ARTS test-set layout: `<unit>` originals and `<unit>_adv1/2/3` variants, grouped by `id`."""
    records: dict[str, dict] = {}

    def record(example: Example, unit_id: str) -> dict:
        t = example.target
        return {"sentence": example.sentence, "term": t.term, "polarity": t.polarity, "id": unit_id,
                "from": t.start, "to": t.end}

    for unit, variant in made:
        records.setdefault(unit.unit_id, record(unit.original, unit.unit_id))
        suffix = ARTS_SUFFIX.get(variant.strategy, "_" + variant.strategy.replace("+", "_"))
        records[unit.unit_id + suffix] = record(variant.example, unit.unit_id)
    json.dump(records, out, ensure_ascii=False, indent=1)
    out.write("\n")


def write_quarantine(rejected: list[Quarantined], path: Path) -> None:
    with path.open("w", encoding="utf-8") as out:
        for q in rejected:
            out.write(json.dumps(q.to_dict(), ensure_ascii=False) + "\n")
