"""Which variants a test gets from a source: the source's own ("given"), or generated here."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Protocol

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


Outcome = Variant | Quarantined | NotApplicable


class OutcomeStore(Protocol):
    """Generated outcomes kept between runs (absa_checks.run.run_state.StoredOutcomes), by `stored_key`."""

    generator: str  # the generator's fingerprint (absa_checks.common.fingerprint.generator_sha256)

    def get(self, keys: list[str]) -> dict[str, Outcome]: ...

    def put(self, outcomes: dict[str, Outcome]) -> None: ...


def stored_key(generator: str, unit: Unit, strategy: str, settings: Settings, domain: str) -> str:
    """What decides a generated outcome: the generator (its code, word lists and libraries), the unit as
    read (its source, id and whole annotated original), the strategy, its parameters, the seed and the domain."""
    whole = {"generator": generator, "source": unit.source, "unit": unit.unit_id, "original": asdict(unit.original),
             "strategy": strategy, "params": [list(p) for p in settings.params], "seed": settings.seed,
             "domain": domain}
    return hashlib.sha256(json.dumps(whole, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()


def mode_for(test: TestSpec | VariantRequest, loaded: LoadedSource) -> str:
    if test.variants != "auto":
        return test.variants
    has_given = any(test.strategy in unit.given for unit in loaded.units)
    return "given" if has_given else "generated"


def variant_set(test: TestSpec | VariantRequest, loaded: LoadedSource, units: tuple[Unit, ...], seed: int,
                resources: Callable[[str], Resources], memo: dict | None = None, store: OutcomeStore | None = None
                ) -> VariantSet:
    """The variants of `test` for `units`; `resources(domain)` is only called when generating.

    `memo` keeps generated outcomes per (source, unit, strategy, parameters) across tests of a run; `store`
    keeps them between runs: what it holds is read, not generated again, and what is generated is added.
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
    memo = {} if memo is None else memo
    key = lambda unit: (id(loaded), unit.unit_id, test.strategy, test.params, seed)  # noqa: E731
    missing = [unit for unit in units if key(unit) not in memo]
    if missing:
        memo.update(_made(missing, key, test.strategy, settings, domain, resources, store))
    by_unit: dict[str, tuple[Variant, ...]] = {}
    quarantined, not_applicable, without_variant = [], [], []
    for unit in units:
        outcome = memo[key(unit)]
        if isinstance(outcome, Variant):
            by_unit[unit.unit_id] = (outcome,)
        elif isinstance(outcome, Quarantined):
            quarantined.append(outcome)
        elif isinstance(outcome, NotApplicable):
            not_applicable.append(outcome)
            without_variant.append((unit.unit_id, outcome.reason))
    return VariantSet(mode, by_unit, tuple(quarantined), tuple(not_applicable), tuple(without_variant))


def _made(units: list[Unit], key: Callable[[Unit], tuple], strategy: str, settings: Settings, domain: str,
          resources: Callable[[str], Resources], store: OutcomeStore | None) -> dict[tuple, Outcome]:
    """Each unit's outcome: from the store where it holds one, else generated (and then stored)."""
    if store is None:
        found = resources(domain)
        return {key(unit): generate(unit, strategy, settings, found, domain) for unit in units}
    keys = {unit.unit_id: stored_key(store.generator, unit, strategy, settings, domain) for unit in units}
    outcomes = store.get(list(dict.fromkeys(keys.values())))
    made = {keys[unit.unit_id]: generate(unit, strategy, settings, resources(domain), domain)
            for unit in units if keys[unit.unit_id] not in outcomes}
    if made:
        store.put(made)
        outcomes.update(made)
    return {key(unit): outcomes[keys[unit.unit_id]] for unit in units}
