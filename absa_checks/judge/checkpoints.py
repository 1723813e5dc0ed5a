"""Several checkpoints in one run (e.g. three training seeds): every metric across them.

`mean_metrics` returns a RunMetrics of the same shape as one checkpoint's, with every rate replaced
by a `Spread` (mean, sample std, per-checkpoint values, a 95% interval for the mean), so tables,
gates, pictures and the JSON report read it as they read one checkpoint. In that view `n` and
`units` are per checkpoint (the largest); `failed`, `errors` and `units_with_errors` are totals.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from typing import TypeVar

from absa_checks.judge.metrics import (
    ARS_STRATEGIES,
    RateLike,
    RunMetrics,
    SourceMetrics,
    StrategyMetrics,
    TestMetrics,
)
from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.judge.stats import Rate, Spread, spread


def by_model(outcomes: Iterable[CaseOutcome], models: list[str]) -> dict[str, list[CaseOutcome]]:
    """Outcomes per checkpoint, in the order the checkpoints were given."""
    found: dict[str, list[CaseOutcome]] = {model: [] for model in models}
    for outcome in outcomes:
        found.setdefault(outcome.model, []).append(outcome)
    return found


M = TypeVar("M")  # one checkpoint's metrics of a source, strategy or test


def _spread_of(items: Mapping[str, M], get: Callable[[M], RateLike | None]) -> Spread:
    return spread([(model, _own_rate(get(item))) for model, item in items.items()])


def _own_rate(found: RateLike | None) -> Rate:
    """One checkpoint's own metrics hold Rates (only their mean holds Spreads)."""
    if not isinstance(found, Rate):
        raise TypeError(f"a checkpoint's metrics hold Rates, not {found!r}")
    return found


def _mean_source(per_model: dict[str, SourceMetrics], with_slices: bool = True) -> SourceMetrics:
    first = next(iter(per_model.values()))
    strategies: dict[str, StrategyMetrics] = {}
    for name in sorted({s for found in per_model.values() for s in found.strategies}):
        have = {model: found.strategies[name] for model, found in per_model.items() if name in found.strategies}
        strategies[name] = StrategyMetrics(
            n=max(s.n for s in have.values()), units=max(s.units for s in have.values()),
            original_accuracy=_spread_of(have, lambda s: s.original_accuracy),
            variant_accuracy=_spread_of(have, lambda s: s.variant_accuracy),
            fail_rate=_spread_of(have, lambda s: s.fail_rate),
            not_found=_spread_of(have, lambda s: s.not_found) if all_have(have, "not_found") else None,
            ambiguous=_spread_of(have, lambda s: s.ambiguous) if all_have(have, "ambiguous") else None,
            errors=sum(s.errors for s in have.values()))
    slices: dict[str, SourceMetrics] = {}
    if with_slices:
        for key in sorted({k for found in per_model.values() for k in found.slices}):
            in_slice = {model: found.slices[key] for model, found in per_model.items() if key in found.slices}
            slices[key] = _mean_source(in_slice, with_slices=False)
    return SourceMetrics(first.source, max(s.units for s in per_model.values()),
                         sum(s.units_with_errors for s in per_model.values()),
                         _spread_of(per_model, lambda s: s.original_accuracy), _spread_of(per_model, lambda s: s.ars),
                         strategies, slices, tuple(s for s in first.ars_covers
                                                   if all(s in found.ars_covers for found in per_model.values())),
                         _spread_of(per_model, lambda s: s.ars_complete) if all_have(per_model, "ars_complete") else None,
                         max(s.complete_units for s in per_model.values()),
                         tuple(s for s in ARS_STRATEGIES if any(s in found.ars_lost_to_errors
                                                                for found in per_model.values())))


def mean_metrics(per_model: dict[str, RunMetrics]) -> RunMetrics:
    """The run's metrics as mean +- std across the checkpoints (see the module docstring)."""
    sources = {}
    for name in sorted({s for metrics in per_model.values() for s in metrics.sources}):
        sources[name] = _mean_source({model: metrics.sources[name] for model, metrics in per_model.items()
                                      if name in metrics.sources})
    tests: dict[tuple[str, str], dict[str, TestMetrics]] = defaultdict(dict)
    for model, metrics in per_model.items():
        for test in metrics.tests:
            tests[(test.test, test.source)][model] = test
    mean_tests = [_mean_test(tests[key]) for key in sorted(tests)]
    sliced: dict[tuple[str, str, str], dict[str, TestMetrics]] = defaultdict(dict)
    for model, metrics in per_model.items():
        for key, test in metrics.slice_tests.items():
            sliced[key][model] = test
    runs = per_model.values()
    return RunMetrics(sources, mean_tests, sum(m.cases for m in runs), sum(m.passed for m in runs),
                      sum(m.failed for m in runs), sum(m.errors for m in runs), sum(m.not_found for m in runs),
                      sum(m.ambiguous for m in runs), {key: _mean_test(sliced[key]) for key in sorted(sliced)})


def _mean_test(have: dict[str, TestMetrics]) -> TestMetrics:
    first = next(iter(have.values()))
    return TestMetrics(first.test, first.source, first.strategy, first.expect,
                       max(t.n for t in have.values()), sum(t.failed for t in have.values()),
                       sum(t.errors for t in have.values()), _spread_of(have, lambda t: t.fail_rate),
                       _spread_of(have, lambda t: t.variant_accuracy), first.gates,
                       _spread_of(have, lambda t: t.not_found) if all_have(have, "not_found") else None,
                       _spread_of(have, lambda t: t.ambiguous) if all_have(have, "ambiguous") else None)


def all_have(items: Mapping[str, object], name: str) -> bool:
    """Whether every checkpoint's metrics carry the rate `name` (they do when it was computed)."""
    return all(getattr(item, name) is not None for item in items.values())
