"""Published or promised numbers of a model, checked against what the run measured.

A models.yaml entry (a model, or a group for the mean of its checkpoints) may say

    claims: {source: arts-restaurant, accuracy: 0.867, ars: 0.5929}

(or a list of such mappings, one per source). A claim is *reproduced* when it lies inside the measured
95% interval: the metric's own interval for one checkpoint, the interval of the mean for a group. The
gap is claimed minus measured. `--absa-require-claims` turns every claim into a gate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from absa_checks.judge.gates import GateResult
from absa_checks.judge.metrics import RunMetrics, SourceMetrics
from absa_checks.models.claims import Claim


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    measured: Any | None  # a Rate (one checkpoint) or a Spread (the mean of a group); None: not measured
    verdict: str          # "reproduced", "not reproduced", "no-data"
    reason: str

    @property
    def gap(self) -> float | None:
        """Claimed minus measured, as a fraction (positive: the claim is higher than measured)."""
        return self.claim.value - self.measured.value if self.measured is not None and self.measured.n else None

    def to_dict(self) -> dict[str, Any]:
        return {"subject": self.claim.subject, "source": self.claim.source, "metric": self.claim.metric,
                "claimed": self.claim.value, "verdict": self.verdict, "gap": self.gap, "reason": self.reason,
                "measured": self.measured.to_dict() if self.measured is not None else None}


def measured(source: SourceMetrics, metric: str):
    """The measured rate a claim on `metric` is checked against (None when the run has none)."""
    if metric == "accuracy":
        return source.original_accuracy
    if metric == "ars":
        return None if source.ars_partial else source.ars
    for suffix, field_name in (("_fail_rate", "fail_rate"), ("_accuracy", "variant_accuracy")):
        if metric.endswith(suffix):
            strategy = source.strategies.get(metric[: -len(suffix)])
            return getattr(strategy, field_name) if strategy is not None else None
    return None


def check(claim: Claim, metrics: RunMetrics) -> ClaimResult:
    """Reproduced when the claim is inside the measured 95% interval (bounds included)."""
    source = metrics.sources.get(claim.source)
    rate = measured(source, claim.metric) if source is not None else None
    if rate is None or not rate.n:
        why = f"the run has no {claim.metric} on {claim.source}" if source is not None else \
            f"the run did not test {claim.source}"
        return ClaimResult(claim, rate, "no-data", why)
    inside = rate.low <= claim.value <= rate.high
    shown = (f"{claim.subject} claims {claim.metric} {100 * claim.value:.2f}% on {claim.source}; measured "
             f"{100 * rate.value:.2f}% [95% CI {100 * rate.low:.2f}, {100 * rate.high:.2f}]")
    gap = round(100 * (claim.value - rate.value), 2) + 0.0  # + 0.0: no "-0.00"
    if inside:
        return ClaimResult(claim, rate, "reproduced", f"{shown}: inside the interval (gap {gap:+.2f} points)")
    return ClaimResult(claim, rate, "not reproduced", f"{shown}: outside the interval, the claim is "
                                                      f"{abs(gap):.2f} points {'higher' if gap > 0 else 'lower'}")


def check_all(claims: dict[str, tuple[Claim, ...]], metrics: RunMetrics,
              per_model: dict[str, RunMetrics] | None, group: str = "") -> list[ClaimResult]:
    """Each subject's claims against its metrics: a checkpoint's own, or (the group) the mean's."""
    results: list[ClaimResult] = []
    for subject, found in claims.items():
        target = metrics if per_model is None or subject == group else per_model.get(subject)
        if target is None:  # a checkpoint deselected entirely
            continue
        results.extend(check(claim, target) for claim in found)
    return results


def gates(results: list[ClaimResult]) -> list[GateResult]:
    """--absa-require-claims: one gate per claim; a claim the run could not measure fails it."""
    verdicts = {"reproduced": "pass", "not reproduced": "fail", "no-data": "fail"}
    return [GateResult("claim_reproduced", f"claims of {r.claim.subject}", r.claim.source, r.claim.value, r.measured,
                       "interval", verdicts[r.verdict], r.reason, r.claim.subject) for r in results]
