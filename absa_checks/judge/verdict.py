"""The run's verdict and exit status: when the run has gates, the gates decide.

- an errored case (no prediction, the model raised) or a failed non-suite test -> exit 1;
- `--absa-strict`: any case that failed its expectation -> exit 1;
- otherwise, with gates: exit 1 iff a gate fails (failing cases show as failed items, but exit 0);
- without gates: exit 1 iff a case failed (plain pytest behaviour).
"""

from __future__ import annotations

from dataclasses import dataclass

from absa_checks.judge.gates import UNDECIDED, GateResult
from absa_checks.judge.metrics import RunMetrics


@dataclass(frozen=True)
class Verdict:
    exit_status: int
    passed: bool
    reason: str
    label: str = ""  # what the terminal says instead of PASSED/FAILED ("SHARD 2/4": nothing decided yet)

    @property
    def heading(self) -> str:
        return self.label or ("PASSED" if self.passed else "FAILED")

    def to_dict(self) -> dict:
        return {"exit_status": self.exit_status, "passed": self.passed, "reason": self.reason,
                **({"label": self.label} if self.label else {})}


def for_shard(shard: tuple[int, int], metrics: RunMetrics, other_failures: int) -> Verdict:
    """A shard decides no gate: the merged report does. Errors still fail it, so CI shows them early."""
    k, n = shard
    broken = metrics.errors or other_failures
    return Verdict(1 if broken else 0, False, f"shard {k}/{n} of the run, {metrics.cases} cases"
                   + (f", {metrics.errors} without a prediction" if metrics.errors else "")
                   + "; gates are decided on the merged report (absa-checks merge)", f"SHARD {k}/{n}")


def decide(metrics: RunMetrics, gates: list[GateResult], strict: bool, other_failures: int,
           inconclusive: str = "pass", report_only_failed: int = 0) -> Verdict:
    """`inconclusive`: what an inconclusive gate counts as, "pass" (default) or "fail".
    `report_only_failed`: failed cases on sources run report-only (--absa-cross-domain): --absa-strict
    does not count them."""
    failing = ("fail", "inconclusive") if inconclusive == "fail" else ("fail",)
    failed_gates = [g for g in gates if g.verdict in failing]
    undecided = [g for g in gates if g.verdict == "inconclusive"]
    decided = [g for g in gates if g.verdict not in UNDECIDED]
    case_note = f"{metrics.failed} of {metrics.cases} cases failed their expectation" if metrics.cases else \
        "no behavioural case ran"
    missed = metrics.not_found + metrics.ambiguous  # an extraction model: no single polarity for the target
    if missed:
        case_note += f", {metrics.not_found} did not find the target" + (
            f" and {metrics.ambiguous} found it ambiguously" if metrics.ambiguous else "")
    if metrics.errors:
        return Verdict(1, False, f"{metrics.errors} cases had no prediction (model or adapter error); "
                                 "fix the model and run again")
    if other_failures:
        return Verdict(1, False, f"{other_failures} other tests failed")
    findings = max(0, metrics.failed - report_only_failed)  # report-only cases are reported, never counted
    if strict and (findings or missed):
        return Verdict(1, False, f"{case_note} and --absa-strict counts every case")
    if failed_gates:
        names = "; ".join(f"{g.label}: {g.reason}" for g in failed_gates[:3])
        more = f" and {len(failed_gates) - 3} more" if len(failed_gates) > 3 else ""
        return Verdict(1, False, f"{len(failed_gates)} of {len(decided)} gates failed: {names}{more}")
    if decided:
        if len(decided) == 1:
            which, note = "the gate", " (inconclusive, counted as passed)" if undecided else ""
        else:
            which = f"all {len(decided)} gates"
            note = f", {len(undecided)} of them inconclusive, counted as passed" if undecided else ""
        counted = "; cases are not counted without --absa-strict" if metrics.cases else ""
        return Verdict(0, True, f"{which} passed{note} ({case_note}{counted})")
    if findings or missed:
        return Verdict(1, False, f"{case_note} and the run has no gates")
    if not metrics.cases:
        return Verdict(0, True, "no behavioural case ran; extraction quality is reported (no gates)")
    return Verdict(0, True, f"all {metrics.cases} cases met their expectation (no gates)")
