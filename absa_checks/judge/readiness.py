"""The production-readiness table: one row per trait, its verdict and the evidence (numbers with intervals).

Traits (after Breck et al.'s ML test rubric, as the production-readiness study asks them of ABSA models):
- robustness: the ARS and per-strategy gates of the suites run;
- reproduced claims: the numbers models.yaml claims, inside the measured intervals;
- a simpler model is not better: --absa-simple-baseline, paired;
- slices: the gates set per slice (hard, multi-aspect, contrast);
- variance between and within splits: reported when the run is a splits x seeds group (no gate); "not decided"
  when a checkpoint the group names measured nothing (named, with why).
A trait with nothing to judge says "not assessed" and how to assess it. Verdicts are the gates'
(pass, fail, inconclusive); an inconclusive trait counts as `--absa-inconclusive` says, like its gates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from absa_checks.judge.claims import ClaimResult
from absa_checks.judge.gates import SEVERITY, UNDECIDED, GateResult
from absa_checks.judge.metrics import RunMetrics
from absa_checks.judge.splits import Decomposition

NOT_ASSESSED = "not assessed"
REPORTED = "reported"
NOT_DECIDED = "not decided"


@dataclass(frozen=True)
class Trait:
    name: str
    verdict: str    # pass, fail, inconclusive, "reported" (no gate), "not assessed" or "not decided" (partial)
    evidence: str
    numbers: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "evidence": self.evidence, "numbers": self.numbers}


def _worst(gates: list[GateResult]) -> str:
    decided = [g.verdict for g in gates if g.verdict not in UNDECIDED]
    return min(decided, key=SEVERITY.__getitem__) if decided else NOT_ASSESSED


def _pct(rate) -> str:
    return f"{100 * rate.value:.2f} [{100 * rate.low:.1f}, {100 * rate.high:.1f}]" if rate is not None and rate.n else "-"


def _count(gates: list[GateResult]) -> str:
    decided = [g for g in gates if g.verdict not in UNDECIDED]
    parts = [f"{sum(g.verdict == v for g in decided)} {v}" for v in ("pass", "fail", "inconclusive")
             if any(g.verdict == v for g in decided)]
    return f"{len(decided)} gates: " + ", ".join(parts)


def robustness(metrics: RunMetrics, gates: list[GateResult]) -> Trait:
    mine = [g for g in gates if not g.slice and g.name in ("min_ars", "max_fail_rate", "min_variant_accuracy")]
    ars = {name: s.ars for name, s in metrics.sources.items() if s.ars.n and not s.ars_partial}
    shown = "; ".join(f"ARS {name} {_pct(rate)}" for name, rate in ars.items()) or "no full ARS measured"
    verdict = _worst(mine)
    evidence = f"{_count(mine)}; {shown}" if verdict != NOT_ASSESSED else \
        f"no robustness gate in the suites run; {shown}"
    return Trait("robustness", verdict, evidence, {"ars": {name: rate.to_dict() for name, rate in ars.items()},
                                                   "gates": [g.to_dict() for g in mine]})


def claims_trait(results: list[ClaimResult], gated: bool) -> Trait:
    if not results:
        return Trait("reproduced claims", NOT_ASSESSED, "no claims: add claims: {source: ..., accuracy: ..., ars: ...} "
                                                        "to the model in models.yaml")
    bad = [r for r in results if r.verdict != "reproduced"]
    verdict = "pass" if not bad else "fail"
    shown = "; ".join(f"{r.claim.subject} {r.claim.metric} {100 * r.claim.value:.2f} on {r.claim.source}: "
                      f"{r.verdict}" + _measured(r) for r in results)
    note = "" if gated else " (reported; --absa-require-claims makes it a gate)"
    return Trait("reproduced claims", verdict, f"{len(results) - len(bad)}/{len(results)} reproduced{note}: {shown}",
                 {"claims": [r.to_dict() for r in results], "gated": gated})


def _measured(result: ClaimResult) -> str:
    if result.gap is None:
        return ""
    return f", measured {_pct(result.measured)}, gap {round(100 * result.gap, 2) + 0.0:+.2f}"  # + 0.0: no -0.00


def simpler_trait(gates: list[GateResult], report: dict[str, Any] | None) -> Trait:
    if report is None and not gates:
        return Trait("a simpler model is not better", NOT_ASSESSED,
                     "no simple baseline: give --absa-simple-baseline MODEL (e.g. lexicon-sentence)")
    if report and report.get("error"):
        return Trait("a simpler model is not better", "fail", report["error"], report)
    several = len((report or {}).get("checkpoints", {})) > 1
    shown = []
    for model, sources in (report or {}).get("checkpoints", {}).items():
        for source, found in sources.items():
            gate = next((g for g in gates if g.source == source and g.checkpoint in (model, "")), None)
            parts = [f"{name} {_paired(found[key])}" for name, key in (("ARS", "ars_units"),
                                                                      ("accuracy", "original_accuracy"))]
            shown.append(f"{source}{'@' + model if several else ''} {gate.verdict if gate else '-'} "
                         f"({'; '.join(parts)})")
    name = (report or {}).get("model", "")
    return Trait("a simpler model is not better", _worst(gates), f"vs {name}: " + "; ".join(shown), report or {})


def _paired(found: dict[str, Any]) -> str:
    """"82.14 vs 74.02, p=1e-06": the candidate's rate, the simple model's, one-sided p."""
    matched = max(found["matched"], 1)
    return (f"{100 * found['after'] / matched:.2f} vs {100 * found['before'] / matched:.2f}, "
            f"p={found['p_candidate_better']:.2g}")


def slices_trait(gates: list[GateResult]) -> Trait:
    mine = [g for g in gates if g.slice]
    if not mine:
        return Trait("slices", NOT_ASSESSED, "no gate on a slice: set gates: {slices: {hard=true: {min_accuracy: ...}}} "
                                             "in a suite")
    shown = "; ".join(f"{g.label}: {_pct(g.rate)} vs {100 * g.threshold:.2f}: {g.verdict}"
                      + (f" of {g.duplicate_of}" if g.duplicate_of else "") for g in mine)
    return Trait("slices", _worst(mine), f"{_count(mine)}; {shown}", {"gates": [g.to_dict() for g in mine]})


def splits_trait(found: dict[tuple[str, str], Decomposition] | None) -> Trait | None:
    if not found:
        return None
    shown = []
    for (source, metric), d in found.items():
        if metric in ("ARS", "original accuracy"):
            between = f"{100 * math.sqrt(d.between):.2f}" if d.between is not None else "-"
            within = f"{100 * math.sqrt(d.within):.2f}" if d.within is not None else "-"
            shown.append(f"{metric} {source} {100 * d.mean:.2f}: std between splits {between}, within {within}")
    splits = len(next(iter(found.values())).splits)
    missing = dict(pair for d in found.values() for pair in d.missing)
    if missing:  # a checkpoint the group names measured nothing: no variance is decided from fewer
        return Trait("variance between and within splits", NOT_DECIDED,
                     "partial: " + "; ".join(f"{model} measured nothing ({why})" for model, why in missing.items())
                     + "; the variance is not computed from fewer checkpoints than the group names",
                     {f"{source}: {metric}": d.to_dict() for (source, metric), d in found.items()})
    return Trait("variance between and within splits", REPORTED,
                 f"{splits} splits; " + "; ".join(shown) + " (points; per metric in the splits table)",
                 {f"{source}: {metric}": d.to_dict() for (source, metric), d in found.items()})


def assess(metrics: RunMetrics, gates: list[GateResult], claim_results: list[ClaimResult], claims_gated: bool,
           simple_report: dict[str, Any] | None, splits: dict[tuple[str, str], Decomposition] | None) -> list[Trait]:
    simple_gates = [g for g in gates if g.name == "simpler_not_better"]
    traits = [robustness(metrics, gates), claims_trait(claim_results, claims_gated),
              simpler_trait(simple_gates, simple_report), slices_trait(gates)]
    found = splits_trait(splits)
    return traits + ([found] if found else [])


def rows(traits: list[Trait]) -> list[tuple[str, ...]]:
    return [(t.name, t.verdict, t.evidence) for t in traits]
