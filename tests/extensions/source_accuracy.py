"""A gate from outside the package (docs/architecture.md, "Seams"): its spec key, its measure and its report
line in one declaration, registered under the entry-point group `absa_checks.gates`
(tests/extensions/registration.py). `min_source_accuracy: 0.6` in a test's `gates:` fails when the model's
accuracy on the originals of the test's source is below 60%, by the interval rule like every gate."""

from __future__ import annotations

from absa_checks.suites.gate_registry import Gate


def source_accuracy(test, source):
    """The rate the threshold is on: the source's accuracy on its originals (None: no data)."""
    return source.original_accuracy if source is not None else None


GATE = Gate("min_source_accuracy", "accuracy on the source's originals",
            "the model's accuracy on the originals of the test's source", source_accuracy, on_cases=False)
