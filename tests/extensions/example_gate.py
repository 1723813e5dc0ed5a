"""Add a gate (docs/architecture.md, "Seams"): `max_ambiguous_rate`, with an extraction model the share of a
test's cases whose target it found twice with different polarities (metrics.TestMetrics.ambiguous holds it).

A gate is a rate the metrics already compute, its spec key, its check and its words in reasons and tables.
There is no gate registry yet, so these parts are three edits in the package: KEY as a field of
absa_checks/suites/gates_spec.py's GateSpec and in its GATE_KEYS; `check` called in absa_checks/judge/gates.py's
`evaluate` beside max_not_found_rate; LABEL in that module's _LABELS. This module holds them side by side;
tests/test_docs_examples.py puts LABEL in _LABELS and decides the gate on real metrics with `check`."""

from __future__ import annotations

from absa_checks.judge.gates import GateResult, decide
from absa_checks.judge.metrics import TestMetrics

KEY = "max_ambiguous_rate"  # what a suite writes under `gates:`: a fraction
LABEL = "ambiguous rate"    # its words in every reason and table


def check(test: TestMetrics, gates: dict, basis: str) -> list[GateResult]:
    """The gate on one test's metrics when the test sets it: the interval rule (or the point) decides."""
    if KEY not in gates:
        return []
    return [decide(KEY, test.test, test.source, gates[KEY], test.ambiguous, basis, upper_limit=True)]
