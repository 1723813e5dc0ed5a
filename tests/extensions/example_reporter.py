"""Add a report (docs/architecture.md, "Seams"): the gates as CSV beside the JSON report.

With `--absa-report r.json` it writes r.gates.csv. The registration is one entry in
absa_checks/run/reporters.py's BUILTIN_REPORTERS, or, from your own package, one line under
`[project.entry-points."absa_checks.reporters"]`: `gates_csv = "my_package.gates_csv:REPORTER"` (the entry point
named as the reporter); tests/extensions/test_docs_examples.py and tests/extensions/test_extensions.py register it so."""

from __future__ import annotations

import csv
import io

from absa_checks.common import outputs
from absa_checks.run.conclusion import RunResult
from absa_checks.run.run_state import RunOptions


class GatesCsv:
    name = "gates_csv"  # its registration's name

    def wanted(self, options: RunOptions) -> bool:
        """Whether this run asked for the report: here, whenever it asked for the JSON report."""
        return options.report is not None

    def outputs(self, options: RunOptions) -> list[outputs.Named]:
        """Every file it may write, checked against the run's inputs and other outputs before the run."""
        assert options.report is not None
        path = options.report.with_suffix(".gates.csv")
        return [outputs.derived("--absa-report", options.report, "gates CSV", path)]

    def write(self, result: RunResult, options: RunOptions) -> list[str]:
        """Write it (atomically, through common.outputs); the lines it adds to the terminal summary."""
        text = io.StringIO()
        rows = csv.writer(text, lineterminator="\n")
        rows.writerow(["gate", "test", "source", "verdict"])
        rows.writerows([gate.name, gate.test, gate.source, gate.verdict] for gate in result.gates)
        (out,) = self.outputs(options)
        outputs.write_text(out, text.getvalue(), options.follow_symlinks)
        return [f"gates CSV: {out.path}"]


REPORTER = GatesCsv()
