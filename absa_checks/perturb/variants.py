"""Which variants a test gets from a source: the source's own ("given"), or generated here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from absa_checks.common.examples import Unit, Variant
from absa_checks.perturb.engine import Quarantined, Settings, generate
from absa_checks.perturb.resources import Resources
from absa_checks.perturb.strategies import NotApplicable
from absa_checks.sources.base import LoadedSource
from absa_checks.suites.spec import TestSpec

DEFAULT_SEED = 0  # pytest's --absa-seed and `absa-checks generate --seed`: one default, the same variants


@dataclass(frozen=True)
class VariantRequest:
    """What variant_set reads from a test; `absa-checks generate` asks with one of these."""

    strategy: str
    variants: str = "auto"
    params: tuple[tuple[str, object], ...] = ()  # as TestSpec.params


@dataclass(frozen=True)
class VariantSet:
    mode: str                                # "given" or "generated"
    by_unit: dict[str, tuple[Variant, ...]]
    quarantined: tuple[Quarantined, ...] = ()
    not_applicable: tuple[NotApplicable, ...] = ()  # one per unit with nothing to perturb
    without_variant: tuple[tuple[str, str], ...] = ()  # (unit id, why) for each unit with no variant, not quarantined


def mode_for(test: TestSpec | VariantRequest, loaded: LoadedSource) -> str:
    if test.variants != "auto":
        return test.variants
    has_given = any(test.strategy in unit.given for unit in loaded.units)
    return "given" if has_given else "generated"


def variant_set(test: TestSpec | VariantRequest, loaded: LoadedSource, units: tuple[Unit, ...], seed: int,
                resources: Callable[[str], Resources], memo: dict | None = None) -> VariantSet:
    """The variants of `test` for `units`; `resources(domain)` is only called when generating.

    `memo` keeps generated outcomes per (source, unit, strategy, parameters) across tests of a run.
    """
    mode = mode_for(test, loaded)
    if mode == "frozen":  # never generated: absa_checks.run.plans reads the reviewed file (perturb.frozen)
        raise ValueError(f"test '{getattr(test, 'name', test.strategy)}' runs frozen variants; they are read from "
                         "its candidates file, not made here")
    if mode == "given":
        given = {u.unit_id: u.given.get(test.strategy, ()) for u in units}
        return VariantSet(mode, given, without_variant=tuple(
            (unit_id, f"the source gives no {test.strategy} variant for it") for unit_id, found in given.items()
            if not found))
    domain = loaded.domain or "restaurant"
    settings = Settings(seed, test.params)
    found = resources(domain)
    by_unit: dict[str, tuple[Variant, ...]] = {}
    quarantined, not_applicable, without_variant = [], [], []
    memo = {} if memo is None else memo
    for unit in units:
        key = (id(loaded), unit.unit_id, test.strategy, test.params, seed)
        if key not in memo:
            memo[key] = generate(unit, test.strategy, settings, found, domain)
        outcome = memo[key]
        if isinstance(outcome, Variant):
            by_unit[unit.unit_id] = (outcome,)
        elif isinstance(outcome, Quarantined):
            quarantined.append(outcome)
        elif isinstance(outcome, NotApplicable):
            not_applicable.append(outcome)
            without_variant.append((unit.unit_id, outcome.reason))
    return VariantSet(mode, by_unit, tuple(quarantined), tuple(not_applicable), tuple(without_variant))
