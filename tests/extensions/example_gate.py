"""Add a gate (docs/architecture.md, "Seams"): its spec key, its measure and its report line in one declaration.

`min_source_accuracy: 0.6` in a test's `gates:` fails when the model's accuracy on the originals of the test's
source is below 60%, by the interval rule like every gate. The registration is one entry in
absa_checks/suites/gate_registry.py's BUILTIN_GATES, or, from your own package, one line under
`[project.entry-points."absa_checks.gates"]`: `min_source_accuracy = "my_package.source_accuracy:GATE"`;
tests/extensions/test_docs_examples.py and tests/extensions/test_extensions.py register it so and run a suite that sets it."""

from __future__ import annotations

from typing import Any

from absa_checks.suites.gate_registry import Gate


def source_accuracy(test: Any, source: Any) -> Any:
    """The rate the threshold is on: the source's accuracy on its originals (None: no data)."""
    return source.original_accuracy if source is not None else None


GATE = Gate("min_source_accuracy", "accuracy on the source's originals",
            "the model's accuracy on the originals of the test's source", source_accuracy, on_cases=False)
