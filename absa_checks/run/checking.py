"""Checking: what each plan gives when run, as plain records (no pytest).

The pytest items and `absa_checks.evaluate` both call these, so a case's outcome, its record and its
message are the same through either front door.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from absa_checks.common.errors import AdapterError
from absa_checks.judge.outcomes import (
    EXTRACTION_KEY,
    NO_CASES_KEY,
    NO_VARIANT_KEY,
    PROPERTY_KEY,
    QUARANTINE_KEY,
    CaseOutcome,
    outcome_for,
)
from absa_checks.judge.scoring import extraction_counts
from absa_checks.judge.targets import Missing
from absa_checks.models.predictions import Prediction
from absa_checks.run.plans import CasePlan, Extraction, NoCases, NoVariant, QuarantinedCase
from absa_checks.suites.expectations import check


@dataclass(frozen=True)
class Checked:
    """A case's outcome; `failure` says why it failed ("" when it passed); `missing` that an extraction
    model found no single polarity for the target (TargetNotFound)."""

    outcome: CaseOutcome
    failure: str = ""
    missing: bool = False


def record(outcome: CaseOutcome) -> tuple[str, str]:
    """A case's record as a pytest user property: JSON, so JUnit XML (which writes str(value)) carries a
    record other tools can read, and pytest-xdist carries it to the controller."""
    return PROPERTY_KEY, json.dumps(outcome.to_dict(), ensure_ascii=False)


def answers(plan: CasePlan, predictor) -> tuple:
    """The original's and the variant's predictions; AdapterError (its traceback once per run) otherwise."""
    try:
        return predictor.predictions(plan.case)
    except AdapterError as err:
        message = str(err)
        if predictor.failure_shown and "\n" in message:  # the traceback once, not once per case
            message = message.splitlines()[0] + " (traceback shown with the first errored case)"
        predictor.failure_shown = True
        raise AdapterError(message) from None


def errored(plan: CasePlan, nodeid: str, message: str) -> CaseOutcome:
    """The outcome of a case the model could not answer: an error, never a pass."""
    return outcome_for(plan.case, nodeid, plan.suite_sha256, "error", message, None, None, plan.model)


def check_case(plan: CasePlan, nodeid: str, original, variant) -> Checked:
    """The case's expectation checked on its predictions."""
    case = plan.case
    for which, found in (("original", original), ("variant", variant)):
        if isinstance(found, Missing):  # an extraction model: no single polarity for the target
            outcome = outcome_for(case, nodeid, plan.suite_sha256, found.kind, f"{which}: {found.detail}",
                                  original if isinstance(original, Prediction) else None,
                                  variant if isinstance(variant, Prediction) else None, plan.model)
            return Checked(outcome, f"{case.strategy}: target {found.kind.replace('-', ' ')} in the {which}: "
                                    f"{found.detail}", missing=True)
    verdict = check(case.expectation, case.original.polarity, case.variant.example.polarity,
                    original.probs, variant.probs)
    outcome = outcome_for(case, nodeid, plan.suite_sha256, "passed" if verdict.passed else "failed", verdict.reason,
                          original, variant, plan.model)
    if verdict.passed:
        return Checked(outcome)
    # the strategy leads the message: Allure's categories match on it
    return Checked(outcome, f"{case.strategy}: {verdict.reason}; {changed(plan)}; gold {case.original.polarity}->"
                            f"{case.variant.example.polarity}, predicted {original.label}->{variant.label}")


def changed(plan: CasePlan) -> str:
    """The words the variant changed, e.g. "'lasts' -> 'does not last'" (the first two edits)."""
    edits = [e for e in plan.case.variant.edits if e.old != e.new][:2]
    if not edits:
        return "given variant"
    more = " ..." if len(plan.case.variant.edits) > 2 else ""
    return ", ".join(f"{e.old.strip()!r} -> {e.new.strip()!r}" for e in edits) + more


def plan_record(plan: NoCases | QuarantinedCase | NoVariant) -> tuple[str, str]:
    """The record a gated test with no case, a quarantined variant or an example with no variant leaves."""
    if isinstance(plan, NoCases):
        return NO_CASES_KEY, json.dumps({"test": plan.test.key, "source": plan.source, "reason": plan.reason,
                                         "gate": plan.gate})
    if isinstance(plan, QuarantinedCase):
        return QUARANTINE_KEY, json.dumps({**plan.rejected.to_dict(), "test": plan.test.key})
    return NO_VARIANT_KEY, json.dumps({"test": plan.test.key, "source": plan.source, "example": plan.unit_id,
                                       "why": plan.why})


def not_extracting(plan: Extraction, predictor) -> str:
    """Why an extraction test does not run (skipped) on this plan's checkpoint; "" when it does."""
    if plan.missing:
        return plan.missing
    if not predictor.extracting:
        return (f"model '{plan.model}' answers the polarity of a given aspect; an extraction test needs a model that "
                "finds the aspects itself (kind transformers-tagger or extraction-replay; docs/extraction.md)")
    return ""


def extraction_record(plan: Extraction, predictor) -> tuple[str, str]:
    """The model's tuples for every sentence, counted against the gold per sentence (the conclusion adds the
    intervals and decides the gates); AdapterError when no sentence got an answer."""
    found, errors = [], []
    for sentence in plan.sentences:
        try:
            found.append(predictor.extractions(sentence.sentence))
        except AdapterError as err:
            found.append(None)
            errors.append(str(err))
    if errors and len(errors) == len(plan.sentences):
        raise AdapterError(errors[0])
    scored = [(s, f) for s, f in zip(plan.sentences, found) if f is not None]
    counted = {"test": plan.test.key, "test_name": plan.test.name, "source": plan.source, "model": plan.model,
               "gates": plan.test.gates, "sentences": len(scored), "errors": len(errors),
               "first_error": errors[0].splitlines()[0] if errors else "",
               "counts": extraction_counts([s for s, _ in scored], [f for _, f in scored])}
    return EXTRACTION_KEY, json.dumps(counted)
