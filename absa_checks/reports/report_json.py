"""The JSON report: schema-versioned, every rate a fraction in [0, 1] with k, n and a 95% interval."""

from __future__ import annotations

import hashlib
import json
import platform
from dataclasses import asdict
from importlib import metadata
from pathlib import Path
from typing import Any

from absa_checks.common import outputs
from absa_checks.common.examples import DataIssue
from absa_checks.judge.gates import GateResult
from absa_checks.judge.metrics import RunMetrics
from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.judge.verdict import Verdict

SCHEMA = "absa-checks/report"
SCHEMA_VERSION = 1
VERSIONED_PACKAGES = ("absa-checks", "pytest", "pytest-xdist", "vaderSentiment", "transformers", "torch", "nltk")


def versions() -> dict[str, str]:
    found = {"python": platform.python_version()}
    for package in VERSIONED_PACKAGES:
        try:
            found[package] = metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return found


def suite_hashes(outcomes: list[CaseOutcome]) -> tuple[dict[str, str], str]:
    suites = {o.test.split("::")[0]: o.suite_sha256 for o in outcomes}
    combined = hashlib.sha256(json.dumps(sorted(suites.items())).encode()).hexdigest()
    return dict(sorted(suites.items())), combined


def quarantine_counts(quarantined: list[dict]) -> dict[str, dict[str, dict[str, int]]]:
    """source -> strategy -> reason -> how many generated variants our checks rejected."""
    counts: dict[str, dict[str, dict[str, int]]] = {}
    for record in quarantined:
        by_reason = counts.setdefault(record["source"], {}).setdefault(record["strategy"], {})
        by_reason[record["reason"]] = by_reason.get(record["reason"], 0) + 1
    return counts


def build(metrics: RunMetrics, gates: list[GateResult], verdict: Verdict, outcomes: list[CaseOutcome],
          issues: list[DataIssue], run: dict[str, Any], timing: dict[str, Any],
          quarantined: list[dict] | None = None, per_model: dict[str, RunMetrics] | None = None) -> dict[str, Any]:
    """The report. With several checkpoints (`per_model`), `sources` and `tests` hold the mean across
    them (each rate with `std` and `per_checkpoint`), and `checkpoints` holds each one's full metrics."""
    suites, combined = suite_hashes(outcomes)
    missing = bool(metrics.not_found or metrics.ambiguous)  # an extraction model missed some targets
    report = {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "rates_are": "fractions in [0, 1]",
        "run": {**run, "suites": suites, "suite_sha256": combined, "versions": versions()},
        "verdict": verdict.to_dict(),
        "summary": {"cases": metrics.cases, "passed": metrics.passed, "failed": metrics.failed,
                    "errors": metrics.errors, **({"not_found": metrics.not_found, "ambiguous": metrics.ambiguous}
                                                 if metrics.not_found or metrics.ambiguous else {})},
        "sources": {name: source_dict(source, missing) for name, source in metrics.sources.items()},
        "tests": [_test(test, missing) for test in metrics.tests],
        "gates": [gate.to_dict() for gate in gates],
        "data_issues": [asdict(issue) for issue in issues],
        "quarantine": {"counts": quarantine_counts(quarantined or []), "variants": quarantined or []},
        "cases": [outcome.to_dict() for outcome in outcomes],
        "timing": timing,
    }
    if per_model:
        report["checkpoints"] = {model: {"sources": {name: source_dict(s, missing) for name, s in found.sources.items()},
                                         "tests": [_test(test, missing) for test in found.tests]}
                                 for model, found in per_model.items()}
    return report


def source_dict(source, missing: bool = False) -> dict[str, Any]:
    result = _metrics_dict(source, missing)
    result["slices"] = {key: _metrics_dict(found, missing) for key, found in source.slices.items()}
    return result


def _metrics_dict(source, missing: bool = False) -> dict[str, Any]:
    return {
        "units": source.units,
        "units_with_errors": source.units_with_errors,
        "original_accuracy": source.original_accuracy.to_dict(),
        "ars": source.ars.to_dict(),
        "ars_covers": list(source.ars_covers),  # ARTS's ARS covers revtgt, revnon and adddiff
        "ars_partial": source.ars_partial,
        # ARS over the units with a case of each of revtgt, revnon and adddiff: comparable with ARTS's ARS
        **({"ars_complete": source.ars_complete.to_dict(), "complete_units": source.complete_units}
           if source.ars_complete is not None else {}),
        **({"ars_lost_to_errors": list(source.ars_lost_to_errors)} if source.ars_lost_to_errors else {}),
        "strategies": {name: {"n": s.n, "errors": s.errors, "units": s.units, "original_accuracy": s.original_accuracy.to_dict(),
                              "variant_accuracy": s.variant_accuracy.to_dict(), "fail_rate": s.fail_rate.to_dict(),
                              **(_missing(s) if missing else {})}
                       for name, s in source.strategies.items()},
    }


def _test(test, missing: bool = False) -> dict[str, Any]:
    return {"test": test.test, "source": test.source, "strategy": test.strategy, "expect": test.expect,
            "n": test.n, "failed": test.failed, "errors": test.errors, "fail_rate": test.fail_rate.to_dict(),
            "variant_accuracy": test.variant_accuracy.to_dict(), "gates": test.gates,
            **(_missing(test) if missing else {})}


def _missing(found) -> dict[str, Any]:
    """An extraction model's not-found and ambiguous rates, when it had such cases."""
    rates = {"not_found_rate": found.not_found, "ambiguous_rate": found.ambiguous}
    return {key: rate.to_dict() for key, rate in rates.items() if rate is not None}


def write(report: dict[str, Any], path: Path | outputs.Named, option: str = "--absa-report",
          follow_symlinks: bool = False) -> Path:
    """The report, written atomically by absa_checks.common.outputs (never half a file; OutputError when it cannot be)."""
    named = path if isinstance(path, outputs.Named) else outputs.Named(option, path)
    return outputs.write_text(named, json.dumps(report, indent=1, ensure_ascii=False) + "\n", follow_symlinks)


class _JsonReporter:
    """--absa-report PATH: the whole run as JSON (the schema above)."""

    name = "json"

    def wanted(self, options) -> bool:
        return options.report is not None

    def outputs(self, options) -> list[outputs.Named]:
        """Every file this report may write (checked against the run's inputs before the run)."""
        return [outputs.Named("--absa-report", options.report),
                outputs.derived("--absa-report", options.report, "partial-run report", partial_path(options.report))]

    def write(self, result, options) -> list[str]:
        follow = getattr(options, "follow_symlinks", False)
        if not result.complete:  # never over a complete report: beside it, named as partial
            path = partial_path(options.report)
            write(result.report, outputs.derived("--absa-report", options.report, "partial-run report", path),
                  follow_symlinks=follow)
            return [f"JSON report of the partial run: {path} ({options.report} left as it was)"]
        write(result.report, options.report, follow_symlinks=follow)
        outputs.remove_stale(partial_path(options.report))  # an older partial one no longer applies
        return [f"JSON report: {options.report}"]


def partial_path(path: Path) -> Path:
    """Where a partial run's report goes: `report.json` -> `report.partial.json`."""
    return path.with_name(f"{path.stem}.partial{path.suffix}")


REPORTER = _JsonReporter()
