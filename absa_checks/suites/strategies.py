"""The perturbation strategies: one declaration each, read by the spec parser, the generator engine,
the CLI and the reports.

A strategy name is one of `registry()` or a chain of them joined by '+' (e.g. `revnon+adddiff`).
Variants come either from the source itself (ARTS ships them; inline examples write them) or,
for sources without them, from each strategy's generator.

Adding a strategy: write its generator (a module with a function `(example, StepContext) -> Step |
NotApplicable | Rejected`, see absa_checks/perturb/strategies.py) and declare one `Strategy(...)`: in
BUILTIN_STRATEGIES below, or in your own package registered under the entry-point group
`absa_checks.strategies`; docs/architecture.md walks through an example.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import Any

from absa_checks.common.errors import AbsaChecksError
from absa_checks.common.examples import Example
from absa_checks.common.extensions import merged
from absa_checks.common.labels import POLAR


@dataclass(frozen=True)
class Population:
    """The units a strategy applies to by definition, whatever its generator manages: coverage counts only these
    (judge.coverage), the rest apart. `why_outside` is pure: "" for a unit's original inside, else why not."""

    name: str                           # said in reports: "polar targets"
    why_outside: Callable[[Example], str]
    within: tuple[str, ...] = ()        # the populations it is part of (a chain's intersection names the narrowest)

    def applies(self, example: Example) -> bool:
        return not self.why_outside(example)


def _inside(example: Example) -> str:
    return ""


def _not_polar(example: Example) -> str:
    return "" if example.target.polarity in POLAR else f"{example.target.polarity or 'conflict'} target"


def _no_other_polar(example: Example) -> str:
    return _not_polar(example) or ("" if any(a.polarity in POLAR for a in example.others)
                                   else "no other polar aspect")


TARGETS = Population("targets", _inside)
POLAR_TARGETS = Population("polar targets", _not_polar, within=("targets",))
POLAR_WITH_OTHER = Population("polar targets with another polar aspect", _no_other_polar,
                              within=("targets", "polar targets"))
INSTANCES = Population("instances", _inside)  # a template test: every instance it filled


def _every_target(params: Mapping[str, Any]) -> Population:
    return TARGETS


@dataclass(frozen=True)
class Parameter:
    """A key a test may set for this strategy (`k: 3`), with its default and its check."""

    name: str
    default: Any
    parse: Callable[[Any], Any]  # the value as written -> the value used; ValueError(message) when wrong
    help: str
    in_label: bool = False       # reports name the strategy with it when set: adddiff(k=3)
    # the value as written, in JSON Schema, for editors (absa_checks/suites/schema.py); {} accepts any value and
    # leaves the check to `parse`, which stays the authority
    schema: dict[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True)
class Strategy:
    name: str
    default_expectation: str  # "flip" or "unchanged"
    flips_gold: bool          # whether the target's gold polarity is reversed
    summary: str
    allure_category: str      # the Allure category its failed cases fall in
    generator: str            # "module:function", imported on first use: parsing a suite never loads it
    edits_target: bool        # validity: the target's opinion words must change (True) or stay untouched
    context_checks: bool      # the reversal checks of perturb.context apply to its variants
    parameters: tuple[Parameter, ...] = ()
    # validity: its edits change only how words are written (spelling, case, punctuation, contractions), so
    # they may touch opinion words, the target's included, but never an aspect term (perturb.validity)
    surface: bool = False
    capability: str = ""      # the capability x type matrix's row of its tests; "" names the row after the strategy
    # the units it applies to, given the test's parameter values (defaults filled): coverage counts these only
    population: Callable[[Mapping[str, Any]], Population] = _every_target

    def generate(self, example, context):
        module, function = self.generator.split(":")
        return getattr(importlib.import_module(module), function)(example, context)


class UnknownStrategy(AbsaChecksError):
    pass


# REVTGT on a neutral target: "skip" it (default) or "keep" ARTS's behaviour (its words are reversed,
# the gold stays neutral). Blind readers found almost every kept one gains a polarity ("is OK" -> "is not OK").
NEUTRAL_MODES = ("skip", "keep")
DEFAULT_NEUTRAL = "skip"
MAX_K = 10


def _neutral(value: Any) -> str:
    if value not in NEUTRAL_MODES:
        hint = difflib.get_close_matches(str(value), NEUTRAL_MODES, n=1)
        raise ValueError(f"'neutral' is {value!r}; " + (f"did you mean '{hint[0]}'?" if hint else
                                                         f"use one of: {', '.join(NEUTRAL_MODES)}"))
    return value


def _revtgt_population(params: Mapping[str, Any]) -> Population:
    """Polar targets; with `neutral: keep` the neutral ones too, so every target."""
    return TARGETS if params.get("neutral") == "keep" else POLAR_TARGETS


def _revnon_population(params: Mapping[str, Any]) -> Population:
    return POLAR_WITH_OTHER


def _k(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"'k' must be a whole number of at least 1, got {value!r}")
    if value > MAX_K:
        raise ValueError(f"'k' is {value}; at most {MAX_K} aspects can be appended")
    return value


def _typos_k(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"'k' must be a whole number of at least 1, got {value!r}")
    if value > MAX_K:
        raise ValueError(f"'k' is {value}; at most {MAX_K} words can be misspelt")
    return value


GENERATORS = "absa_checks.perturb.strategies"
ARTS_CAPABILITY = "aspect robustness"  # ARTS's three strategies: does the sentiment stay bound to its aspect
ROBUSTNESS = "robustness"  # CheckList's: typos, contractions, punctuation, case (the surface strategies)
ENTRY_POINT_GROUP = "absa_checks.strategies"
BUILTIN_STRATEGIES = MappingProxyType({s.name: s for s in (
    Strategy("revtgt", "flip", True, "reverse the target's sentiment; the prediction must flip",
             "target reversal not followed", f"{GENERATORS}:revtgt_step", edits_target=True, context_checks=True,
             capability=ARTS_CAPABILITY, parameters=(Parameter("neutral", DEFAULT_NEUTRAL, _neutral,
                                   "neutral targets: skip them, or keep ARTS's reversal of their words",
                                   schema={"enum": list(NEUTRAL_MODES)}),), population=_revtgt_population),
    Strategy("revnon", "unchanged", False,
             "reverse or exaggerate the non-target aspects; the prediction must not change",
             "changed by a non-target edit", f"{GENERATORS}:revnon_step", edits_target=False, context_checks=True,
             capability=ARTS_CAPABILITY, population=_revnon_population),
    Strategy("adddiff", "unchanged", False, "append aspects of the opposite sentiment; the prediction must not change",
             "added aspects changed the prediction", f"{GENERATORS}:adddiff_step", edits_target=False,
             context_checks=False, capability=ARTS_CAPABILITY,
             parameters=(Parameter("k", None, _k, "aspects appended; unset draws 1-3 per unit, as ARTS did",
                                   in_label=True, schema={"type": "integer", "minimum": 1, "maximum": MAX_K}),)),
    Strategy("typos", "unchanged", False, "misspell k words outside the aspect terms and negations (a swapped, "
             "dropped or doubled letter); the prediction must not change", "typos changed the prediction",
             "absa_checks.perturb.typos:typos_step", edits_target=False, context_checks=False, surface=True,
             capability=ROBUSTNESS, parameters=(Parameter("k", None, _typos_k, "words misspelt, one slip each; unset: 1", in_label=True,
                                   schema={"type": "integer", "minimum": 1, "maximum": MAX_K}),)),
    Strategy("contractions", "unchanged", False, "expand the contractions and contract what contracts (\"it's\" <-> "
             "\"it is\", \"don't\" <-> \"do not\"); the prediction must not change",
             "contractions changed the prediction", "absa_checks.perturb.contractions:contractions_step",
             edits_target=False, context_checks=False, surface=True, capability=ROBUSTNESS),
    Strategy("punctuation", "unchanged", False, "remove or add the final punctuation, or remove a comma; the "
             "prediction must not change", "punctuation changed the prediction",
             "absa_checks.perturb.punctuation:punctuation_step", edits_target=False, context_checks=False, surface=True,
             capability=ROBUSTNESS),
    Strategy("case", "unchanged", False, "lower-, upper- or title-case the sentence but its aspect terms; the "
             "prediction must not change", "letter case changed the prediction", "absa_checks.perturb.casing:case_step",
             edits_target=False, context_checks=False, surface=True, capability=ROBUSTNESS),
)})


@cache
def registry() -> MappingProxyType[str, Strategy]:
    """Every strategy by name: the built-in ones, then those registered under ENTRY_POINT_GROUP (read once
    per process)."""
    return merged(ENTRY_POINT_GROUP, Strategy, BUILTIN_STRATEGIES, lambda s: s.name,
                  lambda s: "" if ":" in s.generator else f"its generator is {s.generator!r}; write 'module:function'")


def get(name: str) -> Strategy:
    """The strategy `name`; a clear error (with the nearest name) when there is none."""
    known = registry()
    if name not in known:
        hint = difflib.get_close_matches(name, tuple(known), n=1)
        raise UnknownStrategy(f"unknown strategy {name!r}; " + (f"did you mean '{hint[0]}'?" if hint else
                                                                 f"use one of: {', '.join(known)}"))
    return known[name]


def split_chain(name: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in name.split("+"))


def is_known(name: str) -> bool:
    return all(part in registry() for part in split_chain(name))


def default_expectation(name: str) -> str:
    """A chain flips the prediction iff an odd number of its steps flip the gold."""
    flips = sum(get(part).flips_gold for part in split_chain(name))
    return "flip" if flips % 2 else "unchanged"


def capability(name: str) -> str:
    """The capability of a strategy's or chain's tests when they name none: the one its steps share (ARTS's
    three: "aspect robustness"), else the chain's name (a step without one counts as its own name)."""
    found = {get(part).capability or part for part in split_chain(name)}
    return found.pop() if len(found) == 1 else name


def population(name: str, params: tuple[tuple[str, Any], ...] = ()) -> Population:
    """The units a strategy or chain applies to (its parameters as a test sets them): a chain's is the
    intersection of its steps' (the units every step applies to), which is the narrowest of them when they nest."""
    values = with_defaults(name, params)
    found = tuple(dict.fromkeys(get(part).population(values) for part in split_chain(name)))
    kept = [p for p in found if not any(p.name in other.within for other in found)]  # the narrowest
    if len(kept) == 1:
        return kept[0]

    def why_outside(example: Example) -> str:
        return next((why for why in (p.why_outside(example) for p in found) if why), "")

    return Population(" and ".join(p.name for p in kept), why_outside,
                      tuple(dict.fromkeys(w for p in found for w in p.within)))


def parameters(name: str) -> dict[str, Parameter]:
    """The parameters a strategy or chain accepts, by name."""
    return {p.name: p for part in split_chain(name) for p in get(part).parameters}


def all_parameter_names() -> tuple[str, ...]:
    return tuple(dict.fromkeys(p.name for s in registry().values() for p in s.parameters))


def with_defaults(name: str, params: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """Every parameter of the strategy or chain: the values set, else the declared defaults."""
    values = {p.name: p.default for p in parameters(name).values()}
    values.update(params)
    return values


def label(name: str, params: tuple[tuple[str, Any], ...]) -> str:
    """How reports name a test's strategy: a set parameter marked `in_label` is its own row (adddiff(k=3))."""
    shown = [f"{key}={value}" for key, value in params
             if value is not None and key in parameters(name) and parameters(name)[key].in_label]
    return f"{name}({','.join(shown)})" if shown else name


def marker_name(name: str) -> str:
    """A pytest marker for the strategy: `revnon+adddiff` -> `revnon_adddiff`."""
    return name.replace("+", "_")
