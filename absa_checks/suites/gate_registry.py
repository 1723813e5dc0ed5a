"""The gates: one declaration each (its spec key, its check, its report line), read by the spec parser
(absa_checks.suites.gates_spec), the schema (absa_checks.suites.schema) and the judge (absa_checks.judge.gates).

Adding a gate: one `Gate(...)`, in BUILTIN_GATES below or in your own package registered under the entry-point
group `absa_checks.gates` (docs/architecture.md, "Seams"). The judge then decides it by the interval rule
(or the point, `basis`), with the inconclusive verdict, the checkpoints' mean or worst, the reports and the
exit status, as every other gate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from types import MappingProxyType
from typing import Any

from absa_checks.common.extensions import merged

ENTRY_POINT_GROUP = "absa_checks.gates"
# the keys of a test's `gates:` that are not thresholds
GATE_SETTINGS = ("basis", "slices")

# measure(test, source) -> the rate the threshold is on (absa_checks.judge.metrics: `test` is the test's
# TestMetrics on a source, or on a slice of it; `source` the source's SourceMetrics, or the slice's; either may
# be None), or None when there is nothing to measure ("no-data")
Measure = Callable[[Any, Any], Any]


@dataclass(frozen=True)
class Gate:
    """A release threshold a suite may set: `max_...` fails above it, `min_...` below it."""

    key: str            # the spec key, `max_` or `min_` then what it measures: max_fail_rate
    label: str          # what it measures, in every report line: "fail rate 12.00% is above the 10.00% limit"
    help: str           # the schema's description for editors: what it measures
    measure: Measure | None = None  # None: decided elsewhere, `decided_by` says where
    per_test: bool = True       # allowed in a test's `gates:` (else on slices only)
    slice_label: str = ""       # allowed per slice (`slices: {hard=true: {...}}`), said so in its report line
    slice_help: str = ""        # the schema's description of it on a slice
    on_cases: bool = True       # measured on the test's own cases (else on the source's units, whatever the test)
    decided_by: str = ""        # measure None: the module that decides it

    @property
    def upper_limit(self) -> bool:
        """A `max_` gate fails when the rate is above the threshold, a `min_` one when it is below."""
        return self.key.startswith("max_")


def _fail_rate(test: Any, source: Any) -> Any:
    return test.fail_rate if test is not None else None


def _variant_accuracy(test: Any, source: Any) -> Any:
    return test.variant_accuracy if test is not None else None


def _not_found(test: Any, source: Any) -> Any:
    return test.not_found if test is not None else None


def _ars(test: Any, source: Any) -> Any:
    return source.ars if source is not None else None


def _accuracy(test: Any, source: Any) -> Any:
    return source.original_accuracy if source is not None else None


BUILTIN_GATES = MappingProxyType({g.key: g for g in (
    Gate("min_accuracy", "accuracy on the originals", "accuracy on the originals", _accuracy, per_test=False,
         on_cases=False, slice_label="accuracy (originals)",
         slice_help="accuracy on the originals of the source's units in the slice"),
    Gate("max_fail_rate", "fail rate", "the test's fail rate on a source (the share of its cases that failed their "
         "expectation)", _fail_rate, slice_label="fail rate",
         slice_help="this test's fail rate on its cases in the slice"),
    Gate("min_ars", "ARS", "the Aspect Robustness Score of the source (a unit counts when its original and every "
         "REVTGT, REVNON and ADDDIFF variant of it in the run are right)", _ars, on_cases=False,
         slice_label="ARS (all strategies)", slice_help="the ARS of the source's units in the slice (all strategies)"),
    Gate("min_variant_accuracy", "variant accuracy", "the test's variant accuracy on a source (the share of its "
         "variants predicted as their gold label)", _variant_accuracy, slice_label="variant accuracy",
         slice_help="this test's variant accuracy on its cases in the slice"),
    Gate("max_not_found_rate", "not-found rate", "an extraction model: the share of the test's cases on a source "
         "whose target it did not find", _not_found),
    Gate("min_validity", "validity", "a frozen test (variants: {frozen: FILE}): the lower bound of the exact 95% "
         "interval of its audited validity (fluent and the intended sentiment, `absa-checks audit`); not audited "
         "fails; with files per source, on the frozen and audited sources only", decided_by="absa_checks.judge.audit"),
)})


def _wrong(gate: Gate) -> str:
    if not gate.key.startswith(("max_", "min_")):
        return f"a gate's key says its side: max_... (fails above) or min_... (fails below), not '{gate.key}'"
    if gate.measure is None:
        return "a registered gate needs its measure(test, source)"
    return ""


@cache
def registry() -> MappingProxyType[str, Gate]:
    """Every gate: the built-in ones, then those registered under ENTRY_POINT_GROUP (read once per process)."""
    return merged(ENTRY_POINT_GROUP, Gate, BUILTIN_GATES, lambda g: g.key, _wrong)


def get(key: str) -> Gate:
    return registry()[key]


def per_test_keys() -> tuple[str, ...]:
    """The thresholds a test's `gates:` may set, then its settings (basis, slices)."""
    return (*(g.key for g in registry().values() if g.per_test), *GATE_SETTINGS)


def slice_keys() -> tuple[str, ...]:
    """The thresholds a test may set per slice: those on the source's units, then those on the test's cases."""
    return tuple(g.key for g in sorted(registry().values(), key=lambda g: g.on_cases) if g.slice_label)


def is_gate(key: str) -> bool:
    return key in registry()
