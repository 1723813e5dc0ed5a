"""Paired comparison with a baseline run (the released model's JSON report).

Units are matched by their stable ids (source + unit id), cases by their content-derived case ids, so
suites that changed between the runs still compare on what they share; the unmatched are counted.
Per source: exact McNemar on ARS units (a unit is right when its original and every REVTGT, REVNON and
ADDDIFF variant are, as in the metrics), and on each strategy's cases (a case is right when it met its
expectation). The regression gate is one-sided: it asks only whether the model got worse (see
`regression_verdict`; its error rates are simulated in tests/judge/test_comparison.py and docs/statistics.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from absa_checks.judge.gates import GateResult
from absa_checks.judge.metrics import ARS_STRATEGIES
from absa_checks.judge.stats import mcnemar_exact, mcnemar_worse


@dataclass(frozen=True)
class Paired:
    matched: int
    before: int            # right in the baseline
    after: int             # right now
    broken: tuple[str, ...]  # right before, wrong now
    fixed: tuple[str, ...]   # wrong before, right now
    p_value: float

    @property
    def p_worse(self) -> float:
        """One-sided exact McNemar p for "worse now" (more broken than fixed)."""
        return mcnemar_worse(len(self.broken), len(self.fixed))

    @property
    def change(self) -> float:
        """After minus before, as a fraction of the matched ones (negative: worse now)."""
        return (self.after - self.before) / self.matched if self.matched else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"matched": self.matched, "before": self.before, "after": self.after, "change": self.change,
                "p_value": self.p_value, "p_worse": self.p_worse, "broken": list(self.broken), "fixed": list(self.fixed)}


@dataclass(frozen=True)
class SourceComparison:
    source: str
    units: Paired
    strategies: dict[str, Paired] = field(default_factory=dict)
    unmatched_now: int = 0
    unmatched_baseline: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"units": self.units.to_dict(), "strategies": {k: v.to_dict() for k, v in self.strategies.items()},
                "unmatched_now": self.unmatched_now, "unmatched_baseline": self.unmatched_baseline}


def unit_correctness(cases: Iterable[dict]) -> dict[tuple[str, str], bool]:
    """(source, unit) -> ARS-correct; units with an errored case are left out (as in the metrics)."""
    by_unit: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for case in cases:
        if case["strategy"] in ARS_STRATEGIES:
            by_unit[(case["source"], case["unit"])].append(case)
    result = {}
    for key, found in by_unit.items():
        if any(c["status"] == "error" for c in found):
            continue
        result[key] = all(_right(c["original_prediction"], c["original"]) and
                          _right(c["variant_prediction"], c["variant"]) for c in found)
    return result


def _right(prediction: dict | None, example: dict) -> bool:
    return prediction is not None and prediction["label"] == example["gold"]


def pair(now: dict[Any, bool], before: dict[Any, bool], name: Callable[[Any], Any]) -> Paired:
    shared = sorted(set(now) & set(before), key=str)
    broken = tuple(name(k) for k in shared if before[k] and not now[k])
    fixed = tuple(name(k) for k in shared if now[k] and not before[k])
    return Paired(len(shared), sum(before[k] for k in shared), sum(now[k] for k in shared), broken, fixed,
                  mcnemar_exact(len(broken), len(fixed)))


def compare(current: list[dict], baseline: list[dict]) -> dict[str, SourceComparison]:
    """Current and baseline cases (as in the JSON report's `cases`) -> per-source paired comparison."""
    units_now, units_before = unit_correctness(current), unit_correctness(baseline)
    cases_now = {(c["source"], c["strategy"], c["case_id"]): c["status"] == "passed"
                 for c in current if c["status"] != "error"}
    cases_before = {(c["source"], c["strategy"], c["case_id"]): c["status"] == "passed"
                    for c in baseline if c["status"] != "error"}
    result = {}
    for source in sorted({s for s, _ in units_now} | {s for s, _ in units_before}):
        now = {k: v for k, v in units_now.items() if k[0] == source}
        before = {k: v for k, v in units_before.items() if k[0] == source}
        strategies = {}
        for strategy in sorted({k[1] for k in cases_now if k[0] == source} & {k[1] for k in cases_before if k[0] == source}):
            strategies[strategy] = pair({k: v for k, v in cases_now.items() if k[:2] == (source, strategy)},
                                         {k: v for k, v in cases_before.items() if k[:2] == (source, strategy)},
                                         lambda k: k[2])
        result[source] = SourceComparison(source, pair(now, before, lambda k: k[1]), strategies,
                                          len(set(now) - set(before)), len(set(before) - set(now)))
    return result


def against_baseline(per_model: dict[str, list[dict]], baseline: list[dict], alpha: float, min_effect: float
                     ) -> tuple[dict[str, dict[str, SourceComparison]], list[GateResult]]:
    """Each checkpoint's cases (as in the JSON report) against the baseline's: checkpoint -> source ->
    comparison, and a "no significant regression" gate per checkpoint and source. Checkpoints are
    compared one by one: pooling seeds into one McNemar test would not be a paired test."""
    several = len(per_model) > 1
    compared: dict[str, dict[str, SourceComparison]] = {}
    gates = []
    for model, cases in per_model.items():
        checkpoint = model if several else ""
        try:
            theirs = baseline_cases_for(model, baseline)
        except ValueError as err:
            gates.append(GateResult("no_regression", "--absa-baseline", "all", min_effect, None, "paired", "fail",
                                    str(err), checkpoint))
            continue
        compared[model] = compare(cases, theirs)
        shared = sum(found.units.matched + sum(p.matched for p in found.strategies.values())
                     for found in compared[model].values())
        if not shared and cases:  # nothing to pair: "no regression" would be decided on nothing
            units_now = len({(c["source"], c["unit"]) for c in cases})
            units_before = len({(c.get("source"), c.get("unit")) for c in theirs})
            gates.append(GateResult("no_regression", "--absa-baseline", "all", min_effect, None, "paired", "fail",
                                    f"{model + ': ' if several else ''}the baseline shares no unit or case with "
                                    f"this run ({units_now} units now, {units_before} in the baseline); compare "
                                    "like with like: the same suites, sources, --absa-sample and --absa-seed",
                                    checkpoint))
            continue
        for source, found in compared[model].items():
            verdict, reason = regression_verdict(found.units, alpha, min_effect)
            gates.append(GateResult("no_regression", "--absa-baseline", source, min_effect, None, "paired", verdict,
                                    f"{model}: {reason}" if several else reason, checkpoint))
    return compared, gates


def baseline_cases_for(model: str, baseline: list[dict]) -> list[dict]:
    """The baseline's cases to pair with checkpoint `model`: those of the same name, or all of them when
    the baseline ran one model. ValueError when the baseline ran several and none has this name."""
    models = sorted({case.get("model", "") for case in baseline})
    if model in models:
        return [case for case in baseline if case.get("model", "") == model]
    if len(models) <= 1:
        return baseline
    raise ValueError(f"the baseline ran the checkpoints {', '.join(models)} and none is named '{model}'; "
                     "name the checkpoints alike in both runs, or compare with a one-model baseline")


def to_report(baseline: str, compared: dict[str, dict[str, SourceComparison]]) -> dict[str, Any]:
    """The JSON report's `comparison`: per source for one checkpoint, per checkpoint and source for several."""
    if len(compared) == 1:
        return {"baseline": baseline, "sources": {s: c.to_dict() for s, c in next(iter(compared.values())).items()}}
    return {"baseline": baseline, "checkpoints": {model: {"sources": {s: c.to_dict() for s, c in found.items()}}
                                                  for model, found in compared.items()}}


def report_entries(comparison: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    """(checkpoint, source, comparison) from a report's `comparison` (checkpoint "" for a one-model run)."""
    if "checkpoints" in comparison:
        return [(model, source, found) for model, per in comparison["checkpoints"].items()
                for source, found in per["sources"].items()]
    return [("", source, found) for source, found in comparison.get("sources", {}).items()]


def regression_verdict(units: Paired, alpha: float, min_effect: float) -> tuple[str, str]:
    """("pass" | "fail" | "inconclusive", why) for the gate "no significant regression" on ARS units.

    Fails when ARS dropped by at least `min_effect` AND the one-sided exact McNemar test for "worse now"
    is significant at `alpha` (default 0.01). One-sided because only a drop gates a release; at 0.01
    because equal models whose errors churn (every unit re-drawn) then fail at most 1% of the time,
    where the two-sided 0.05 test failed them 2%. The cost, measured: a 5-point drop on 1,000 units is
    caught 100% at low churn, 78% at 30% broken / 20% fixed, 45% at 55/45 (docs/statistics.md).
    """
    drop = -units.change
    shown = (f"ARS {100 * units.before / max(units.matched, 1):.2f}% -> {100 * units.after / max(units.matched, 1):.2f}% "
             f"on {units.matched} shared units ({len(units.broken)} newly broken, {len(units.fixed)} newly fixed, "
             f"one-sided exact McNemar p = {units.p_worse:.3g})")
    if units.matched == 0:
        return "no-data", "no units shared with the baseline"
    if drop >= min_effect and units.p_worse < alpha:
        return "fail", f"{shown}: a significant drop of at least {min_effect:.2%}"
    if drop >= min_effect:
        return "inconclusive", f"{shown}: a drop of {drop:.2%}, but not significant at alpha {alpha:g}"
    better = mcnemar_worse(len(units.fixed), len(units.broken))  # one-sided: better now
    if units.change > 0 and better < alpha:
        return "pass", f"{shown}: a significant improvement (one-sided exact McNemar p = {better:.3g} for better now)"
    return "pass", f"{shown}: no significant regression"
