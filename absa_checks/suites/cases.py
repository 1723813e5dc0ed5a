"""Expanding a test over a source's units into cases, with stable content-derived ids."""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from dataclasses import dataclass

from absa_checks.common.examples import Example, Unit, Variant
from absa_checks.suites import strategies
from absa_checks.suites.expectations import Expectation
from absa_checks.suites.spec import TestSpec


@dataclass(frozen=True)
class Case:
    case_id: str      # hash of the content: same inputs, same id, whatever the order or worker
    name: str         # readable: "arts-laptop:0:14_0"
    test: TestSpec
    source: str
    unit_id: str
    original: Example
    variant: Variant

    @property
    def strategy(self) -> str:
        return strategy_label(self.test)

    @property
    def expectation(self) -> Expectation:
        return self.test.expectation


def sample_units(units: tuple[Unit, ...], size: int | None, seed: int, source: str) -> tuple[Unit, ...]:
    """`size` units drawn without replacement, the same for every test over this source and seed."""
    if size is None or size >= len(units):
        return units
    ordered = sorted(units, key=lambda unit: unit.unit_id)
    chosen = random.Random(f"{seed}:{source}").sample(range(len(ordered)), size)
    return tuple(ordered[i] for i in sorted(chosen))


def expand(test: TestSpec, source: str, units: tuple[Unit, ...],
           variants_of: Mapping[str, tuple[Variant, ...]]) -> list[Case]:
    """One case per (unit, variant); units without a variant give none."""
    cases = []
    for unit in units:
        variants = variants_of.get(unit.unit_id, ())
        for index, variant in enumerate(variants):
            # "#" never occurs in the ids absa-checks makes; ":" does ("0:14_0"), so "x:0" cannot collide with
            # the first of two variants of unit "x"
            name = f"{source}:{unit.unit_id}" + (f"#{index}" if len(variants) > 1 else "")
            cases.append(Case(case_id(source, test, unit.original, variant), name, test, source,
                              unit.unit_id, unit.original, variant))
    return cases


def strategy_label(test: TestSpec) -> str:
    """How reports name the strategy: ADDDIFF with a fixed k is its own row ("adddiff(k=3)"); a template test is
    template:<type> (template:mft, template:inv, template:dir)."""
    if test.template is not None:
        return f"{test.strategy}:{test.template.type}"
    return strategies.label(test.strategy, test.params)


def case_id(source: str, test: TestSpec, original: Example, variant: Variant) -> str:
    content = [source, strategy_label(test), test.expectation.kind, test.expectation.tolerance,
               _example_content(original), _example_content(variant.example)]
    if test.template is not None:  # two template tests may fill the same sentence: the test name tells them apart
        content.append(test.name)
    return hashlib.sha1(json.dumps(content, ensure_ascii=False).encode()).hexdigest()[:16]


def _example_content(example: Example) -> list:
    t = example.target
    return [example.sentence, t.term, t.start, t.end, t.polarity]
