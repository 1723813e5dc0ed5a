"""The capability x test-type matrix (CheckList's view of a run): per capability and type (mft | inv | dir), the
cases, their fail rate with its 95% interval, a few failing examples; and the gates suites set on its cells.

A case's cell is its test's `capability` and `type` (suites.matrix_spec.capability_and_type: as written, else the
strategy's capability and the type its expectation implies). A cell counts the cases with a verdict (passed or
failed: `n`), the failed ones, and apart the cases without one (`unscored`: no prediction, or an extraction model
that did not find the target or found it twice). The fail rate is failed / n with Wilson's interval, as every
fail rate of the run (judge.stats). Pure: outcomes in, plain data out; the same for one process, -n 2 or merged
shards, since the outcomes are the same and every order here is by name or case id.

Several checkpoints: one matrix per checkpoint, and their mean (each cell's fail rate a stats.Spread, `n` the
largest per checkpoint, `failed` the total), on which gates decide as the run's `--absa-gate-on` says.
"""

from __future__ import annotations

import difflib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from absa_checks.judge.gates import SEVERITY, GateResult, decide
from absa_checks.judge.metrics import RateLike
from absa_checks.judge.outcomes import CaseOutcome, default_cell
from absa_checks.judge.stats import Rate, spread, wilson
from absa_checks.suites.templates import TYPES  # the columns, in CheckList's order

EXAMPLES = 3                   # failing examples kept per cell (the lowest case ids; the JSON report's cases hold all)
WORST = 3                      # the worst cells the summaries name, with a failing example each
GATE_TEST = "gates.capabilities"  # a cell gate's "test": the suite file's `gates: {capabilities: ...}`


@dataclass(frozen=True)
class Cell:
    n: int              # cases with a verdict (passed or failed); per checkpoint, the largest, in a mean
    failed: int         # of them failed (a mean: the total over the checkpoints)
    unscored: int       # cases without a verdict: no prediction (error), target not found or ambiguous
    fail_rate: RateLike
    examples: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"n": self.n, "failed": self.failed, "unscored": self.unscored, "fail_rate": self.fail_rate.to_dict(),
                "examples": [dict(e) for e in self.examples]}


Matrix = dict[str, dict[str, Cell]]  # capability -> type -> cell, both sorted (types in TYPES order)


def cell_of(outcome: CaseOutcome) -> tuple[str, str]:
    """(capability, type) of a case; a record from before the matrix gets the parser's defaults."""
    if outcome.capability and outcome.type:
        return outcome.capability, outcome.type
    capability, kind = default_cell(outcome.strategy, outcome.expect)
    return outcome.capability or capability, outcome.type or kind


def example(outcome: CaseOutcome) -> dict[str, Any]:
    """A failing case as the reports list it: which case, its sentences and why it failed."""
    found = {"case": outcome.case_id, "nodeid": outcome.nodeid, "test": outcome.test_name, "source": outcome.source,
             "term": outcome.original.get("term"), "sentence": outcome.original.get("sentence"),
             "variant": outcome.variant.get("sentence"), "reason": outcome.reason}
    if outcome.model:
        found["model"] = outcome.model
    return found


def build(outcomes: Iterable[CaseOutcome]) -> Matrix:
    """One checkpoint's matrix from its outcomes."""
    groups: dict[tuple[str, str], list[CaseOutcome]] = defaultdict(list)
    for outcome in outcomes:
        groups[cell_of(outcome)].append(outcome)
    found: Matrix = {}
    for (capability, kind), cases in sorted(groups.items(), key=lambda kv: (kv[0][0], _order(kv[0][1]))):
        scored = [c for c in cases if c.status in ("passed", "failed")]
        failing = sorted((c for c in scored if c.status == "failed"), key=lambda c: (c.case_id, c.model))
        found.setdefault(capability, {})[kind] = Cell(len(scored), len(failing), len(cases) - len(scored),
                                                      wilson(len(failing), len(scored)),
                                                      tuple(example(c) for c in failing[:EXAMPLES]))
    return found


def worst(found: Matrix, count: int = WORST) -> list[tuple[str, str, Cell]]:
    """What to fix first: the `count` cells with a failing example, the highest low end of the fail rate's 95%
    interval first (a cell surely bad before one bad by chance: 1 of 1 failed is not the worst), then the
    higher fail rate, then by capability and type."""
    failing = [(capability, kind, cell) for capability, kinds in found.items() for kind, cell in kinds.items()
               if cell.failed and cell.examples]
    return sorted(failing, key=lambda c: (-c[2].fail_rate.low, -c[2].fail_rate.value, c[0], _order(c[1])))[:count]


def _order(kind: str) -> tuple[int, str]:
    return (TYPES.index(kind) if kind in TYPES else len(TYPES), kind)


def mean(per_model: Mapping[str, Matrix]) -> Matrix:
    """Several checkpoints' matrices as one: each cell's fail rate the mean across the checkpoints that have it
    (stats.spread), `n` the largest per checkpoint, `failed` and `unscored` totals, the examples of all of them."""
    keys = sorted({(c, k) for mine in per_model.values() for c, kinds in mine.items() for k in kinds},
                  key=lambda ck: (ck[0], _order(ck[1])))
    found: Matrix = {}
    for capability, kind in keys:
        have = {model: mine[capability][kind] for model, mine in per_model.items() if kind in mine.get(capability, {})}
        rates = [(model, cell.fail_rate) for model, cell in have.items() if isinstance(cell.fail_rate, Rate)]
        examples = sorted((e for cell in have.values() for e in cell.examples),
                          key=lambda e: (e["case"], e.get("model", "")))
        found.setdefault(capability, {})[kind] = Cell(
            max(cell.n for cell in have.values()), sum(cell.failed for cell in have.values()),
            sum(cell.unscored for cell in have.values()), spread(rates), tuple(examples[:EXAMPLES]))
    return found


def to_report(found: Matrix) -> dict[str, dict[str, dict[str, Any]]]:
    """The JSON report's `capabilities.<capability>.<type>`."""
    return {capability: {kind: cell.to_dict() for kind, cell in kinds.items()} for capability, kinds in found.items()}


@dataclass(frozen=True)
class CellGate:
    """A gate a suite sets on a cell: `gates: {capabilities: {negation: {mft: {max_fail_rate: 0.2}}}}`."""

    suite: str
    capability: str
    type: str
    name: str
    threshold: float
    basis: str  # "" for the run's --absa-gate-basis


def declared(outcomes: Iterable[CaseOutcome]) -> list[CellGate]:
    """The cell gates of the suites whose cases ran (they travel in each case's `gates`), once each."""
    found = set()
    for outcome in outcomes:
        for capability, kinds in (outcome.gates.get("capabilities") or {}).items():
            for kind, thresholds in kinds.items():
                for name, threshold in thresholds.items():
                    if name != "basis":
                        found.add(CellGate(outcome.test.split("::")[0], capability, kind, name, threshold,
                                           thresholds.get("basis", "")))
    return sorted(found, key=lambda g: (g.capability, _order(g.type), g.suite, g.name, g.threshold, g.basis))


def evaluate(found: Matrix, gates: Iterable[CellGate], default_basis: str) -> list[GateResult]:
    """Each cell gate decided on its cell's fail rate with the interval rules of every gate (judge.gates.decide):
    inconclusive while the interval straddles the limit. A cell without a scored case fails: the gate asked for
    something the run did not measure (a misspelt capability, its tests deselected)."""
    results = []
    for gate in gates:
        cell = found.get(gate.capability, {}).get(gate.type)
        basis = gate.basis or default_basis
        result = replace(decide(gate.name, f"{gate.suite}::{GATE_TEST}", "all", gate.threshold,
                                cell.fail_rate if cell else None, basis, upper_limit=True),
                         cell=f"{gate.capability} {gate.type}")
        if result.verdict == "no-data":
            result = replace(result, verdict="fail", reason=_unmeasured(found, gate))
        results.append(replace(result, reason=f"{gate.capability} {gate.type}: {result.reason}"))
    return results


def _unmeasured(found: Matrix, gate: CellGate) -> str:
    """Why a cell gate has nothing to decide on, and the fix."""
    if gate.capability in found:
        have = ", ".join(f"{k} ({c.n} cases)" for k, c in found[gate.capability].items())
        return (f"no scored {gate.type} case of capability '{gate.capability}' ran (it has {have}); give it a "
                f"test of type {gate.type}, or remove the gate")
    hint = difflib.get_close_matches(gate.capability, tuple(found), n=1)
    fix = f"did you mean '{hint[0]}'?" if hint else f"the run's capabilities: {', '.join(found) or 'none'}"
    return (f"no case of capability '{gate.capability}' ran (deselected, or no test names it); {fix}; "
            f"the gate is set in {gate.suite}")


def evaluate_checkpoints(per_model: Mapping[str, Matrix], gates: list[CellGate], default_basis: str,
                         rule: str) -> list[GateResult]:
    """Several checkpoints: on the mean matrix, or each checkpoint's cell with the worst verdict counting."""
    count = len(per_model)
    if rule == "mean":
        return [replace(g, checkpoint=f"mean of {count}", reason=f"mean of {count} checkpoints: {g.reason}")
                for g in evaluate(mean(per_model), gates, default_basis)]
    results = []
    for i in range(len(gates)):
        found = [(model, evaluate(mine, gates[i:i + 1], default_basis)[0]) for model, mine in per_model.items()]

        def badness(pair: tuple[str, GateResult]) -> tuple[int, float]:
            rate = pair[1].rate
            return SEVERITY[pair[1].verdict], -(rate.value if rate is not None and rate.n else 0.0)

        model, worst = min(found, key=badness)
        results.append(replace(worst, checkpoint=model, reason=f"worst of {count} checkpoints, {model}: {worst.reason}"))
    return results
