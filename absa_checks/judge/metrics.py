"""Aggregate case outcomes into rates and the Aspect Robustness Score (ARS), per source, strategy and test.

- original_accuracy: units whose original prediction equals the gold label.
- ARS (as ARTS defines it): units whose original AND every REVTGT, REVNON and ADDDIFF variant are
  predicted correctly. Other tests (ADDDIFF(k), chains) are reported beside it, never folded into it.
  When a source has no case of one of the three (deselected with -m/-k, or not in the suites run),
  its ARS is partial: `ars_covers` says which strategies it covers, and ARS gates say so.
- ARS over complete units (`ars_complete`): the same, over only the units that have a case of each of the
  three (generated sources give REVTGT and REVNON to a part of the units only), comparable with ARTS's ARS.
- per strategy: n cases; original_accuracy on the units that have that strategy's variant;
  variant_accuracy on its variants; fail_rate, the share of cases failing their (label-free) expectation.
- an extraction model: not_found, the share of cases whose target it did not find (in the original or
  the variant), and ambiguous, found twice with different polarities; fail_rate is then over the cases
  whose target was found, and a not-found or ambiguous case breaks its unit's ARS.
A case without a prediction (status "error") is left out of the rates, which count the cases that have one;
each strategy and test says how many errored (`errors`). A unit with an errored case is left out of the
source's original accuracy and ARS (it cannot be called robust or not) and counted in `units_with_errors`;
an ARS strategy whose every case is in such units is named in `ars_lost_to_errors` (ARS partial for that
reason, not because the strategy was not run).
All rates are fractions in [0, 1].
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.judge.stats import Rate, Spread, clopper_pearson, wilson
from absa_checks.suites import slices as slices_module

# a rate: one checkpoint's Rate, or a Spread across checkpoints (absa_checks.judge.checkpoints), which quacks like one
RateLike = Rate | Spread
MISSING = ("not-found", "ambiguous")  # an extraction model's cases without one polarity for the target


@dataclass(frozen=True)
class StrategyMetrics:
    n: int
    units: int
    original_accuracy: RateLike
    variant_accuracy: RateLike
    fail_rate: RateLike
    not_found: RateLike | None = None
    ambiguous: RateLike | None = None
    errors: int = 0  # cases of the strategy without a prediction: not in n, nor in any rate


@dataclass(frozen=True)
class TestMetrics:
    test: str
    source: str
    strategy: str
    expect: str
    n: int
    failed: int
    errors: int
    fail_rate: RateLike
    variant_accuracy: RateLike
    gates: dict
    not_found: RateLike | None = None
    ambiguous: RateLike | None = None


ARS_STRATEGIES = ("revtgt", "revnon", "adddiff")  # the unit of ARTS's Aspect Robustness Score


@dataclass(frozen=True)
class SourceMetrics:
    source: str
    units: int
    units_with_errors: int
    original_accuracy: RateLike
    ars: RateLike
    strategies: dict[str, StrategyMetrics] = field(default_factory=dict)
    slices: dict[str, SourceMetrics] = field(default_factory=dict)
    ars_covers: tuple[str, ...] = ARS_STRATEGIES  # the ARS strategies with cases here
    ars_complete: RateLike | None = None  # ARS over the units with a case of each ARS strategy (None: no such unit)
    complete_units: int = 0               # how many units that is (the largest across checkpoints)
    # ARS strategies that ran here but whose every case is in a unit with an errored case (so not in ars_covers)
    ars_lost_to_errors: tuple[str, ...] = ()

    @property
    def ars_partial(self) -> bool:
        return self.ars_covers != ARS_STRATEGIES


@dataclass(frozen=True)
class RunMetrics:
    sources: dict[str, SourceMetrics]
    tests: list[TestMetrics]
    cases: int
    passed: int
    failed: int
    errors: int
    not_found: int = 0
    ambiguous: int = 0
    # a test's metrics on a slice its gates name: (test, source, selector) -> metrics on those cases
    slice_tests: dict[tuple[str, str, str], TestMetrics] = field(default_factory=dict)


def _missing_rates(cases: list[CaseOutcome]) -> tuple[Rate, Rate, Rate]:
    """(fail rate over the cases whose target was found, not-found rate, ambiguous rate)."""
    not_found = sum(c.status == "not-found" for c in cases)
    ambiguous = sum(c.status == "ambiguous" for c in cases)
    failed = sum(c.status == "failed" for c in cases)
    return (wilson(failed, len(cases) - not_found - ambiguous), wilson(not_found, len(cases)),
            wilson(ambiguous, len(cases)))


def aggregate(outcomes: Iterable[CaseOutcome]) -> RunMetrics:
    outcomes = sorted(outcomes, key=lambda o: (o.source, o.unit, o.test, o.case_id))
    by_source: dict[str, list[CaseOutcome]] = defaultdict(list)
    for outcome in outcomes:
        by_source[outcome.source].append(outcome)
    gated = sorted({selector for o in outcomes for selector in (o.gates.get("slices") or {})})
    sources = {name: _with_slices(name, cases, gated) for name, cases in sorted(by_source.items())}
    tests, slice_tests = _test_metrics(outcomes)
    return RunMetrics(sources, tests, len(outcomes),
                      sum(o.status == "passed" for o in outcomes), sum(o.status == "failed" for o in outcomes),
                      sum(o.status == "error" for o in outcomes), sum(o.status == "not-found" for o in outcomes),
                      sum(o.status == "ambiguous" for o in outcomes), slice_tests)


SLICE_KINDS = ("aspects", "hard", "opposite_others", "gold")


def slice_key(kind: str, value: object) -> str:
    return f"{kind}={str(value).lower()}"


def _with_slices(source: str, cases: list[CaseOutcome], gated: Iterable[str] = ()) -> SourceMetrics:
    """The source's metrics, and the same metrics per slice ("aspects=multi", "hard=true", ...), including
    the slices that gates name ("opposite_others>=1")."""
    groups: dict[str, list[CaseOutcome]] = defaultdict(list)
    for case in cases:
        for kind in SLICE_KINDS:
            if kind in case.slices:
                groups[slice_key(kind, case.slices[kind])].append(case)
    for selector in gated:
        if selector not in groups:
            conditions = slices_module.parse(selector)
            found = [c for c in cases if all(condition.holds(c.slices) for condition in conditions)]
            if found:
                groups[selector] = found
    whole = _source_metrics(source, cases)
    return SourceMetrics(whole.source, whole.units, whole.units_with_errors, whole.original_accuracy, whole.ars,
                         whole.strategies, {key: _source_metrics(source, found) for key, found in sorted(groups.items())},
                         whole.ars_covers, whole.ars_complete, whole.complete_units, whole.ars_lost_to_errors)


def _source_metrics(source: str, cases: list[CaseOutcome]) -> SourceMetrics:
    units: dict[str, list[CaseOutcome]] = defaultdict(list)
    for case in cases:
        units[case.unit].append(case)
    errored = {unit for unit, found in units.items() if any(c.status == "error" for c in found)}
    scored = {unit: found for unit, found in units.items() if unit not in errored}
    original_ok = sum(found[0].original_correct for found in scored.values())
    in_ars = {unit: [c for c in found if c.strategy in ARS_STRATEGIES] for unit, found in scored.items()}
    in_ars = {unit: found for unit, found in in_ars.items() if found}  # a unit with only extra tests: not in ARS
    robust = sum(found[0].original_correct and all(c.variant_correct for c in found) for found in in_ars.values())
    covers = tuple(s for s in ARS_STRATEGIES if any(c.strategy == s for found in in_ars.values() for c in found))
    complete = [found for found in in_ars.values() if {c.strategy for c in found} >= set(ARS_STRATEGIES)]
    robust_complete = sum(found[0].original_correct and all(c.variant_correct for c in found) for found in complete)

    run = {c.strategy for c in cases}
    lost = tuple(s for s in ARS_STRATEGIES if s in run and s not in covers)

    # a strategy's rates: every case of it that has a prediction, whatever became of the unit's other cases
    per_strategy: dict[str, list[CaseOutcome]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    for case in cases:
        if case.status == "error":
            errors[case.strategy] += 1
            per_strategy.setdefault(case.strategy, [])
        else:
            per_strategy[case.strategy].append(case)
    strategies = {}
    for strategy, found in sorted(per_strategy.items()):
        first_per_unit = {c.unit: c for c in reversed(found)}
        fail_rate, not_found, ambiguous = _missing_rates(found)
        strategies[strategy] = StrategyMetrics(
            n=len(found), units=len(first_per_unit),
            original_accuracy=wilson(sum(c.original_correct for c in first_per_unit.values()), len(first_per_unit)),
            variant_accuracy=wilson(sum(c.variant_correct for c in found), len(found)),
            fail_rate=fail_rate, not_found=not_found, ambiguous=ambiguous, errors=errors[strategy])
    return SourceMetrics(source, len(scored), len(errored), wilson(original_ok, len(scored)),
                         clopper_pearson(robust, len(in_ars)), strategies, ars_covers=covers,
                         ars_complete=clopper_pearson(robust_complete, len(complete)) if complete else None,
                         complete_units=len(complete), ars_lost_to_errors=lost)


def _test_metrics(outcomes: list[CaseOutcome]
                  ) -> tuple[list[TestMetrics], dict[tuple[str, str, str], TestMetrics]]:
    """Each test's metrics per source, and on each slice its gates name."""
    groups: dict[tuple[str, str], list[CaseOutcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[(outcome.test, outcome.source)].append(outcome)
    result, sliced = [], {}
    for (test, source), found in sorted(groups.items()):
        result.append(_one_test(test, source, found))
        for selector in found[0].gates.get("slices") or {}:
            conditions = slices_module.parse(selector)
            mine = [c for c in found if all(condition.holds(c.slices) for condition in conditions)]
            if mine:
                sliced[(test, source, selector)] = _one_test(test, source, mine)
    return result, sliced


def _one_test(test: str, source: str, found: list[CaseOutcome]) -> TestMetrics:
    """A test's rates over its cases that have a prediction (as the strategy's); the errored ones counted."""
    scored = [c for c in found if c.status != "error"]
    failed = sum(c.status == "failed" for c in scored)
    fail_rate, not_found, ambiguous = _missing_rates(scored)
    return TestMetrics(test, source, found[0].strategy, found[0].expect, len(scored), failed,
                       sum(c.status == "error" for c in found), fail_rate,
                       wilson(sum(c.variant_correct for c in scored), len(scored)), found[0].gates,
                       not_found, ambiguous)
