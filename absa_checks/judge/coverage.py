"""Coverage: per source and strategy, how many units got a case, of how many, why the rest did not (by
reason), and whether the units with a case are easier than the rest.

Only the units the strategy applies to count (its population, suites.strategies.Population: polar targets for
REVTGT, polar targets with another polar aspect for REVNON, every target for ADDDIFF): a unit outside it is
neither in the denominator nor in the accuracy comparison, and is counted apart, by why (`outside`).

Planning writes one record per test and source (plain data, JSON-able, so it travels from xdist workers and
in shard reports): the units the test drew, why each unit without a variant has none, and, per checkpoint,
whether the model got the original of each such unit right. `coverage` then counts from the record and the
case outcomes (a unit has a case when an outcome of that source and strategy names it), and compares the
originals' accuracy on the units with a case and on those without: the difference with Newcombe's hybrid
score interval (judge.stats.newcombe_difference), significant when the interval excludes 0.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.judge.stats import Difference, Rate, newcombe_difference, spread, wilson

NOT_RUN = "case not run (deselected, or the run stopped)"
QUARANTINED = "quarantined"      # a variant was made and our checks rejected it: "quarantined: <reason>"
NOT_APPLICABLE = "no variant"    # the strategy had nothing to perturb: "no variant: <why>"


def quarantined_reason(reason: str) -> str:
    return f"{QUARANTINED}: {reason}"


def no_variant_reason(why: str) -> str:
    return f"{NOT_APPLICABLE}: {why}"


def record(test: str, source: str, strategy: str, units: Iterable[str], without_case: Mapping[str, str],
           originals: Mapping[str, Mapping[str, bool | None]] | None = None,
           audits: Mapping[str, list[bool]] | None = None, frozen: str = "", population: str = "",
           outside: Mapping[str, str] | None = None, ignored: str = "") -> dict[str, Any]:
    """A test's planned coverage on a source: every unit it drew, the reason of each unit without a
    variant, and per checkpoint whether each of those units' originals was predicted right (None: no answer);
    the strategy's population by name and the drawn units outside it, with why (a record without them, e.g.
    from an older shard report, counts every unit). A frozen test's record also carries its pool's audit
    verdicts (`audits`: candidate id -> [fluent, sentiment_ok], judge.audit.validity) and its file (`frozen`);
    a source whose file the run left aside (--absa-variants live) names it as `ignored`."""
    kept: dict[str, Any] = {
        "test": test, "source": source, "strategy": strategy, "units": sorted(units),
        "without_case": dict(sorted(without_case.items())),
        "originals": {model: dict(sorted(found.items())) for model, found in (originals or {}).items()},
        "population": population, "outside": dict(sorted((outside or {}).items()))}
    if audits is not None:
        kept["audits"] = {key: list(value) for key, value in sorted(audits.items())}
        kept["frozen"] = frozen
    if ignored:
        kept["ignored"] = ignored
    return kept


def merged(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records of one run from several places (xdist workers, shards), one per test and source; the answers
    on uncovered originals joined per checkpoint."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for one in records:
        key = (one["test"], one["source"])
        if key not in found:
            found[key] = {**one, "originals": {m: dict(v) for m, v in one.get("originals", {}).items()}}
            continue
        kept = found[key]["originals"]
        for model, answers in one.get("originals", {}).items():
            for unit, correct in answers.items():
                if kept.setdefault(model, {}).get(unit) is None:
                    kept[model][unit] = correct
    return [found[key] for key in sorted(found)]


@dataclass(frozen=True)
class Coverage:
    """One source and strategy on one checkpoint."""

    units: int
    with_case: int
    by_reason: dict[str, int] = field(default_factory=dict)  # why the units without a case have none
    accuracy_covered: Rate = field(default_factory=lambda: wilson(0, 0))
    accuracy_uncovered: Rate = field(default_factory=lambda: wilson(0, 0))
    difference: Difference = field(default_factory=lambda: newcombe_difference(0, 0, 0, 0))
    population: str = ""  # what `units` counts, as reports say it ("polar targets"); "" when not recorded
    outside: dict[str, int] = field(default_factory=dict)  # units drawn outside the population, by why

    @property
    def without_case(self) -> int:
        return self.units - self.with_case

    @property
    def outside_population(self) -> int:
        return sum(self.outside.values())

    def to_dict(self) -> dict[str, Any]:
        return {"units": self.units, "with_case": self.with_case, "without_case": self.without_case,
                "by_reason": dict(self.by_reason), "accuracy_covered": self.accuracy_covered.to_dict(),
                "accuracy_uncovered": self.accuracy_uncovered.to_dict(), "difference": self.difference.to_dict(),
                "population": self.population, "outside_population": self.outside_population,
                "outside_by_reason": dict(self.outside)}


def coverage(records: Iterable[dict[str, Any]], outcomes: Iterable[CaseOutcome], model: str = ""
             ) -> dict[str, dict[str, Coverage]]:
    """source -> strategy -> Coverage, for one checkpoint's outcomes (`model`: whose answers on the uncovered
    originals count; "" takes the only one recorded). A source and strategy with outcomes and no record
    counts only its units with a case."""
    by_group: dict[tuple[str, str], list[CaseOutcome]] = defaultdict(list)
    for outcome in outcomes:
        by_group[(outcome.source, outcome.strategy)].append(outcome)
    # a record is about the checkpoints that run its test on its source (domains: absa_checks.common.domains)
    planned = {(r["source"], r["strategy"]): r for r in records
               if not model or not r.get("originals") or model in r["originals"]}
    found: dict[str, dict[str, Coverage]] = defaultdict(dict)
    for source, strategy in sorted(set(planned) | set(by_group)):
        found[source][strategy] = _one(planned.get((source, strategy)), by_group.get((source, strategy), []), model)
    return dict(found)


def _one(planned: dict[str, Any] | None, cases: list[CaseOutcome], model: str) -> Coverage:
    outside: dict[str, str] = (planned or {}).get("outside") or {}  # not the strategy's population: apart
    first: dict[str, CaseOutcome] = {}
    for case in sorted(cases, key=lambda c: c.case_id):  # the unit's original, whichever case carries it
        if case.unit in outside:
            continue
        if case.unit not in first or (first[case.unit].original_prediction is None
                                      and case.original_prediction is not None):
            first[case.unit] = case
    units = (set(first) | set(planned["units"] if planned else ())) - set(outside)
    reasons = planned["without_case"] if planned else {}
    by_reason: dict[str, int] = defaultdict(int)
    for unit in units - set(first):
        by_reason[reasons.get(unit, NOT_RUN)] += 1
    answered = [c.original_correct for c in first.values() if c.original_prediction is not None]
    originals = (planned or {}).get("originals", {})
    if model:
        mine = originals.get(model, {})
    else:
        mine = next(iter(originals.values())) if len(originals) == 1 else {}
    uncovered = [correct for unit, correct in mine.items()
                 if unit not in first and unit in reasons and unit not in outside and correct is not None]
    covered_k, uncovered_k = sum(answered), sum(uncovered)
    apart: dict[str, int] = defaultdict(int)
    for why in outside.values():
        apart[why] += 1
    return Coverage(len(units), len(first), _most_first(by_reason),
                    wilson(covered_k, len(answered)), wilson(uncovered_k, len(uncovered)),
                    newcombe_difference(covered_k, len(answered), uncovered_k, len(uncovered)),
                    (planned or {}).get("population", ""), _most_first(apart))


def _most_first(counts: Mapping[str, int]) -> dict[str, int]:
    return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def to_report(found: Mapping[str, Mapping[str, Coverage]]) -> dict[str, dict[str, dict[str, Any]]]:
    """`coverage.<source>.<strategy>` of the JSON report."""
    return {source: {strategy: c.to_dict() for strategy, c in strategies.items()} for source, strategies in found.items()}


def run_report(per_model: Mapping[str, Mapping[str, Mapping[str, Coverage]]]) -> dict[str, dict[str, dict[str, Any]]]:
    """The JSON report's `coverage`: one checkpoint's as it is; with several, the counts of the first that runs
    the test on the source, the accuracies as the mean across checkpoints (stats.spread, as every rate of such
    a run) and the difference per checkpoint (`significant` when any checkpoint's is); each checkpoint's whole
    in `checkpoints.<name>.coverage`."""
    if len(per_model) <= 1:
        return to_report(next(iter(per_model.values()), {}))
    found: dict[str, dict[str, dict[str, Any]]] = {}
    keys = sorted({(source, strategy) for mine in per_model.values() for source, strategies in mine.items()
                   for strategy in strategies})
    for source, strategy in keys:
        have = {model: mine[source][strategy] for model, mine in per_model.items()
                if strategy in mine.get(source, {})}
        first = next(iter(have.values()))  # the counts of the first checkpoint that runs it (domains)
        differences = {model: one.difference.to_dict() for model, one in have.items()}
        found.setdefault(source, {})[strategy] = {
            **first.to_dict(),
            "accuracy_covered": spread([(m, one.accuracy_covered) for m, one in have.items()]).to_dict(),
            "accuracy_uncovered": spread([(m, one.accuracy_uncovered) for m, one in have.items()]).to_dict(),
            "difference": {"per_checkpoint": differences,
                           "significant": any(d["significant"] for d in differences.values())}}
    return found
