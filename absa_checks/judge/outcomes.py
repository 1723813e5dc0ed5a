"""A case's outcome as plain data: built on the worker, carried in the test report, read on the controller."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any

from absa_checks.common.examples import Example, Variant
from absa_checks.models.predictions import Prediction
from absa_checks.suites import matrix_spec, strategies
from absa_checks.suites.cases import Case

PROPERTY_KEY = "absa_case"  # the name under which the outcome travels in report.user_properties
QUARANTINE_KEY = "absa_quarantined"  # a generated variant that failed our own checks
NO_CASES_KEY = "absa_no_cases"  # a gated test that got no case on a source
EXTRACTION_KEY = "absa_extraction"  # an extraction test's per-sentence counts on one source
NO_VARIANT_KEY = "absa_no_variant"  # an example written in a suite that got no variant for a test


@dataclass(frozen=True)
class CaseOutcome:
    case_id: str
    nodeid: str
    name: str
    test: str          # "<suite path>::<test name>"
    test_name: str
    source: str
    unit: str
    strategy: str
    expect: str
    tolerance: float
    original: dict[str, Any]
    variant: dict[str, Any]
    status: str        # "passed", "failed" (expectation not met), "error" (no prediction), or for an
    #                    extraction model "not-found" / "ambiguous" (no single polarity for the target)
    reason: str
    gates: dict[str, Any] = field(default_factory=dict)
    suite_sha256: str = ""
    slices: dict[str, Any] = field(default_factory=dict)
    original_prediction: dict[str, Any] | None = None
    variant_prediction: dict[str, Any] | None = None
    model: str = ""    # the checkpoint that answered (several in one run: --model a,b,c)
    capability: str = ""  # the capability x type matrix's row and column (judge.matrix); "" in a record written
    type: str = ""        # before they existed: from_dict fills the defaults (matrix.default_cell)

    @property
    def original_correct(self) -> bool:
        return self.original_prediction is not None and self.original_prediction["label"] == self.original["gold"]

    @property
    def variant_correct(self) -> bool:
        return self.variant_prediction is not None and self.variant_prediction["label"] == self.variant["gold"]

    def to_dict(self) -> dict[str, Any]:
        # shallow on purpose: the nested dicts are built fresh for each outcome (asdict would deep-copy)
        return {name: getattr(self, name) for name in _FIELDS}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CaseOutcome:
        outcome = cls(**data)
        if outcome.capability and outcome.type:
            return outcome
        capability, kind = default_cell(outcome.strategy, outcome.expect)
        return replace(outcome, capability=outcome.capability or capability, type=outcome.type or kind)


def default_cell(strategy: str, expect: str) -> tuple[str, str]:
    """The matrix cell of a case whose record names none (a report written before the matrix): the strategy's
    capability and the type its expectation implies, as the suite parser defaults them."""
    capability = strategies.capability(strategy) if strategies.is_known(strategy) else strategy
    return capability, matrix_spec.TYPE_OF_EXPECTATION.get(expect, "dir")


_FIELDS = tuple(f.name for f in fields(CaseOutcome))


def slices_of(example: Example) -> dict[str, Any]:
    """Which slices the unit's original belongs to (production-readiness slices)."""
    target = example.polarity
    labelled = [a.polarity for a in example.others if a.polarity is not None]
    opposite = {"positive": "negative", "negative": "positive"}.get(target)
    return {"aspects": "multi" if example.others else "single",
            "hard": any(p != target for p in labelled),
            "opposite_others": sum(p == opposite for p in labelled),
            "gold": target}


def variant_record(variant: Variant) -> dict[str, Any]:
    """The variant as the reports show it; a frozen one also carries its provenance (candidate id, decision,
    reviewer, time, generator)."""
    record = example_record(variant.example, variant.edits)
    if variant.provenance is not None:
        record["provenance"] = variant.provenance
    return record


def example_record(example: Example, edits: tuple = ()) -> dict[str, Any]:
    t = example.target
    record: dict[str, Any] = {"sentence": example.sentence, "term": t.term, "from": t.start, "to": t.end,
                              "gold": t.polarity, "record_id": example.record_id}
    if edits:
        record["edits"] = [asdict(edit) for edit in edits]
    return record


def prediction_record(prediction: Prediction) -> dict[str, Any]:
    return {"label": prediction.label, "probs": prediction.as_dict()}


def outcome_for(case: Case, nodeid: str, suite_sha256: str, status: str, reason: str,
                original: Prediction | None = None, variant: Prediction | None = None, model: str = "") -> CaseOutcome:
    return CaseOutcome(
        case_id=case.case_id, nodeid=nodeid, name=case.name, test=case.test.key, test_name=case.test.name,
        source=case.source, unit=case.unit_id, strategy=case.strategy, expect=case.expectation.kind,
        tolerance=case.expectation.tolerance, original=example_record(case.original),
        variant=variant_record(case.variant), status=status, reason=reason,
        gates=case.test.gates.to_dict(), suite_sha256=suite_sha256, slices=slices_of(case.original),
        original_prediction=prediction_record(original) if original else None,
        variant_prediction=prediction_record(variant) if variant else None, model=model,
        capability=case.test.capability, type=case.test.type)
