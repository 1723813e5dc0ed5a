""""A simpler model is not better": the same cases on a simple model, compared paired with the candidate.

`--absa-simple-baseline MODEL` (e.g. `lexicon-sentence`, or a sentence-only checkpoint) answers every
original and variant of the run's cases. Per source, two exact McNemar comparisons on the same units:
ARS (a unit is right when its original and every REVTGT, REVNON and ADDDIFF variant are) and accuracy on
the originals. The gate asks for evidence that the extra complexity pays, one-sided at alpha:

- pass: the candidate is significantly better on both;
- fail: the simple model is significantly better on either, or the candidate on neither;
- inconclusive: significantly better on one, no significant difference on the other.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from absa_checks.judge.comparison import Paired, pair, unit_correctness
from absa_checks.judge.gates import GateResult
from absa_checks.judge.outcomes import prediction_record
from absa_checks.judge.stats import mcnemar_worse
from absa_checks.models.predictions import Prediction
from absa_checks.models.protocol import Query, QueryError


@dataclass(frozen=True)
class SimpleRun:
    """The simple model's answers to the run's cases, or why there are none."""

    name: str
    cases: list[dict] | None = None
    error: str = ""


@dataclass(frozen=True)
class SimpleComparison:
    source: str
    units: Paired     # ARS units: before = the simple model, after = the candidate
    accuracy: Paired  # the units' originals

    def to_dict(self) -> dict[str, Any]:
        return {"ars_units": {**self.units.to_dict(), "p_candidate_better": p_better(self.units)},
                "original_accuracy": {**self.accuracy.to_dict(), "p_candidate_better": p_better(self.accuracy)}}


def p_better(paired: Paired) -> float:
    """One-sided exact McNemar p for "the candidate (after) is better than the simple model (before)"."""
    return mcnemar_worse(len(paired.fixed), len(paired.broken))


def query_of(example: dict) -> Query:
    return Query(example["sentence"], example["term"], example["from"], example["to"], example.get("record_id"))


def queries(cases: Iterable[dict]) -> list[Query]:
    """Every original and variant the cases ask about, once each."""
    return list(dict.fromkeys(query_of(c[side]) for c in cases for side in ("original", "variant")))


def answered(cases: Iterable[dict], answers: dict[Query, Prediction | QueryError]) -> list[dict]:
    """The cases with the simple model's predictions in place of the candidate's (status "error", with the
    model's message as the reason, when it could not answer one of the two; such units are left out of
    the comparison, as in the metrics)."""
    result = []
    for case in cases:
        original, variant = answers.get(query_of(case["original"])), answers.get(query_of(case["variant"]))
        records = ((prediction_record(original), prediction_record(variant))
                   if isinstance(original, Prediction) and isinstance(variant, Prediction) else (None, None))
        ok = records[0] is not None
        problem = next((a.message.splitlines()[0] for a in (original, variant) if isinstance(a, QueryError)),
                       "no answer")  # the first line: a model's traceback belongs to its own run, not to this gate
        result.append({**case, "status": case["status"] if ok else "error", "reason": case.get("reason", "")
                       if ok else problem, "original_prediction": records[0], "variant_prediction": records[1]})
    return result


def _original_correctness(cases: Iterable[dict]) -> dict[tuple[str, str], bool]:
    """(source, unit) -> the original predicted right; units with an errored case left out."""
    by_unit: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for case in cases:
        by_unit[(case["source"], case["unit"])].append(case)
    return {key: found[0]["original_prediction"]["label"] == found[0]["original"]["gold"]
            for key, found in by_unit.items() if all(c["status"] != "error" for c in found)}


def compare(candidate: list[dict], simple: list[dict]) -> dict[str, SimpleComparison]:
    """Per source: the candidate's units against the simple model's, paired."""
    units_now, units_simple = unit_correctness(candidate), unit_correctness(simple)
    right_now, right_simple = _original_correctness(candidate), _original_correctness(simple)
    result = {}
    for source in sorted({s for s, _ in right_now}):
        units = pair(_of(source, units_now), _of(source, units_simple), lambda k: k[1])
        originals = pair(_of(source, right_now), _of(source, right_simple), lambda k: k[1])
        result[source] = SimpleComparison(source, units, originals)
    return result


def _of(source: str, found: dict) -> dict:
    """The entries of one source (keys are (source, ...))."""
    return {k: v for k, v in found.items() if k[0] == source}


def verdict(found: SimpleComparison, alpha: float) -> tuple[str, str]:
    """("pass" | "fail" | "inconclusive" | "no-data", why): see the module docstring."""
    if found.units.matched == 0 and found.accuracy.matched == 0:
        return "fail", "no unit was answered by both models: nothing shows the candidate is better"

    def shown(name: str, p: Paired) -> str:
        return (f"{name} {100 * p.after / max(p.matched, 1):.2f}% vs {100 * p.before / max(p.matched, 1):.2f}% "
                f"({len(p.fixed)} units only the candidate gets right, {len(p.broken)} only the simple model; "
                f"one-sided p = {p_better(p):.3g})")

    facts = f"{shown('ARS', found.units)}; {shown('accuracy', found.accuracy)}"
    better = {name: p_better(p) < alpha for name, p in (("ARS", found.units), ("accuracy", found.accuracy))}
    simple_better = [name for name, p in (("ARS", found.units), ("accuracy", found.accuracy)) if p.p_worse < alpha]
    if simple_better:
        return "fail", f"{facts}: the simple model is significantly better on {' and '.join(simple_better)}"
    if all(better.values()):
        return "pass", f"{facts}: the candidate is significantly better on both (alpha {alpha:g})"
    if not any(better.values()):
        return "fail", f"{facts}: the candidate is not significantly better on either (alpha {alpha:g})"
    missing = next(name for name, ok in better.items() if not ok)
    return "inconclusive", f"{facts}: significantly better on one, not on {missing} (alpha {alpha:g})"


def against(per_model: dict[str, list[dict]], simple: SimpleRun, alpha: float
            ) -> tuple[dict[str, dict[str, SimpleComparison]], list[GateResult]]:
    """Each checkpoint against the simple model: checkpoint -> source -> comparison, and one gate each."""
    test = f"--absa-simple-baseline {simple.name}"
    if simple.cases is None:
        return {}, [GateResult("simpler_not_better", test, "all", alpha, None, "paired", "fail", simple.error)]
    errors = [c for c in simple.cases if c["status"] == "error"]
    if errors and len(errors) == len(simple.cases):
        return {}, [GateResult("simpler_not_better", test, "all", alpha, None, "paired", "fail",
                               f"the simple baseline {simple.name} answered none of the {len(errors)} cases: "
                               f"{errors[0]['reason']}")]
    note = (f" ({len(errors)} cases the simple model could not answer are left out, e.g.: {errors[0]['reason']})"
            if errors else "")
    several = len(per_model) > 1
    compared, gates = {}, []
    for model, cases in per_model.items():
        wanted = {c["case_id"] for c in cases}
        compared[model] = compare(cases, [c for c in simple.cases if c["case_id"] in wanted])
        for source, found in compared[model].items():
            decided, reason = verdict(found, alpha)
            gates.append(GateResult("simpler_not_better", test, source, alpha, None, "paired", decided,
                                    (f"{model}: {reason}" if several else reason) + note, model if several else ""))
    return compared, gates


def to_report(name: str, alpha: float, compared: dict[str, dict[str, SimpleComparison]]) -> dict[str, Any]:
    return {"model": name, "alpha": alpha,
            "checkpoints": {model: {source: c.to_dict() for source, c in found.items()}
                            for model, found in compared.items()}}


def rows(compared: dict[str, dict[str, SimpleComparison]], gates: list[GateResult]) -> list[tuple[str, ...]]:
    """Table rows: checkpoint, source, ARS and accuracy (candidate vs simple, p), gate."""
    several = len(compared) > 1
    result: list[tuple[str, ...]] = []
    for model, found in compared.items():
        for source, c in found.items():
            gate = next((g for g in gates if g.source == source and g.checkpoint == (model if several else "")), None)
            result.append(((f"{source}@{model}" if several else source),
                            _cell(c.units), _cell(c.accuracy), gate.verdict if gate else "-"))
    return result


def _cell(p: Paired) -> str:
    if not p.matched:
        return "-"
    return (f"{100 * p.after / p.matched:.2f} vs {100 * p.before / p.matched:.2f} "
            f"(+{len(p.fixed)}/-{len(p.broken)}, p={p_better(p):.2g})")
