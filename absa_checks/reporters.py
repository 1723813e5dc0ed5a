"""The reports a run writes: each takes the RunResult (absa_checks.conclusion) and the options, and
returns the lines it adds to the terminal summary. The plugin calls REPORTERS in order.

Adding a report: a module with an object that has `wanted(options)` and `write(result, options)`,
and one line in REPORTERS (docs/architecture.md).
"""

from __future__ import annotations

from typing import Protocol

from . import allure_support, report_json, report_markdown, terminal
from .conclusion import RunResult
from .run_state import RunOptions


class Reporter(Protocol):
    def wanted(self, options: RunOptions) -> bool:
        """Whether this run asked for the report."""

    def write(self, result: RunResult, options: RunOptions) -> list[str]:
        """Write the report; the lines to show in the terminal summary (e.g. where it was written)."""


REPORTERS: tuple[Reporter, ...] = (report_json.REPORTER, report_markdown.REPORTER, allure_support.REPORTER)


def summary(result: RunResult, options: RunOptions) -> list[str]:
    """The terminal's absa-checks section: the tables and facts, every report's lines, the verdict last."""
    lines = terminal.summary(result, options)
    written = [line for reporter in REPORTERS if reporter.wanted(options) for line in reporter.write(result, options)]
    return lines[:-1] + written + lines[-1:]
