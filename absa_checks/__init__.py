"""absa-checks: behavioural tests for aspect-based sentiment analysis models.

`absa_checks.evaluate(model=..., suites=..., data=..., **options)` runs suites from Python (absa_checks.api);
a mistake raises `absa_checks.AbsaChecksError`. Both are imported on first use: the pytest11 entry point imports this package in every pytest run of every
project, which must stay cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["AbsaChecksError", "evaluate", "__version__"]

if TYPE_CHECKING:
    from absa_checks.api import evaluate
    from absa_checks.common.errors import AbsaChecksError


def __getattr__(name: str) -> Any:
    if name == "evaluate":
        from absa_checks.api import evaluate

        return evaluate
    if name == "AbsaChecksError":  # what evaluate() raises for a mistake: one line, never a traceback
        from absa_checks.common.errors import AbsaChecksError

        return AbsaChecksError
    raise AttributeError(f"module 'absa_checks' has no attribute {name!r}")
