"""Reports as a seam: one pure `conclude(outcomes, options, baseline, context) -> RunResult`, and
reporters that each take the RunResult (a new report is one object plus one registration, reporters.registry())."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from judge.test_metrics import OUTCOMES

from absa_checks.run import reporters
from absa_checks.run.conclusion import Baseline, RunContext, conclude
from absa_checks.run.run_state import RunOptions

OPTIONS = RunOptions(model="m", models_file=None, data_dir=None, sources=None, sample=None, seed=0, report=None,
                     markdown=None, strict=False, gate_basis="interval", batch_size=64)
CONTEXT = RunContext(models={"": {"kind": "test", "fingerprint": "f00d"}})


def test_conclude_is_pure_and_decides_once():
    first = conclude(list(OUTCOMES), OPTIONS, None, CONTEXT)
    again = conclude(list(OUTCOMES), OPTIONS, None, CONTEXT)
    assert first.verdict == again.verdict and first.gates == again.gates
    assert first.run["model"] == {"name": "", "kind": "test", "fingerprint": "f00d"}
    assert first.report["verdict"]["passed"] == first.verdict.passed
    assert {g.name for g in first.gates} == {"max_fail_rate", "min_ars"}


def test_an_unreadable_baseline_is_a_failed_gate_not_lost_results():
    result = conclude(list(OUTCOMES), OPTIONS, Baseline("gone.json", None, "baseline report gone.json cannot be read"),
                      CONTEXT)
    assert result.regression_gates[0].verdict == "fail" and not result.verdict.passed
    assert len(result.report["cases"]) == len(OUTCOMES)


def test_a_stopped_run_never_passes():
    result = conclude(list(OUTCOMES), replace(OPTIONS, strict=False), None, replace(CONTEXT, stopped="-x"))
    assert result.verdict.exit_status == 1 and "stopped early (-x)" in result.verdict.reason


class CsvReporter:
    """A report added the documented way (a reporters.Reporter: name, wanted, outputs, write), and one registration."""

    name = "csv_gates"

    def __init__(self, path: Path):
        self.path = path

    def wanted(self, options) -> bool:
        return True

    def outputs(self, options) -> list:
        return []

    def write(self, result, options) -> list[str]:
        self.path.write_text("\n".join(f"{g.source},{g.name},{g.verdict}" for g in result.gates))
        return [f"CSV gates: {self.path}"]


def test_a_new_reporter_is_one_object_and_one_registration(tmp_path, monkeypatch):
    monkeypatch.setattr(reporters, "registry", lambda: MappingProxyType({**reporters.BUILTIN_REPORTERS,
                                                                         "csv_gates": CsvReporter(tmp_path / "gates.csv")}))
    options = replace(OPTIONS, report=tmp_path / "r.json")
    lines = reporters.summary(conclude(list(OUTCOMES), options, None, CONTEXT), options)
    assert lines[-3:-1] == [f"JSON report: {tmp_path / 'r.json'}", f"CSV gates: {tmp_path / 'gates.csv'}"]
    assert lines[-1].startswith("absa-checks ")  # the verdict stays last
    assert (tmp_path / "gates.csv").read_text().count("\n") == len(json.loads((tmp_path / "r.json").read_text())["gates"]) - 1
