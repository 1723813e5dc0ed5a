"""The terminal summary: who was tested, the tables, baseline and quarantine notes, and the verdict last."""

from __future__ import annotations

from typing import Any

from . import summary_table
from .comparison import SourceComparison
from .examples import DataIssue
from .gates import GateResult
from .verdict import Verdict


def summary_lines(run: dict[str, Any], tables: list[summary_table.Table], issues: list[DataIssue],
                  compared: dict[str, dict[str, SourceComparison]], regression_gates: list[GateResult],
                  quarantined: list[dict], verdict: Verdict, show_slices: bool) -> list[str]:
    model = run["model"]
    if len(run["models"]) == 1:
        lines = [f"model {model['name']} (fingerprint {model['fingerprint']}), seed {run['seed']}; "
                 "rates in %, 95% intervals"]
    else:
        lines = [f"{len(run['models'])} checkpoints: {model['name']}; seed {run['seed']}; rates in %, "
                 f"mean ± std across checkpoints, 95% intervals for the mean; gates on the {model['gate_on']}"]
    for table in tables:
        if table.header == summary_table.SLICE_HEADER and not show_slices:  # long: the reports have it
            lines.append(f"slices: {len(table.rows)} rows in the reports, or here with -v")
            continue
        if table.title:
            lines += ["", table.title]
        lines += summary_table.render_text(table)
    if issues:
        lines.append(f"{len(issues)} data issues repaired or reported while loading (see the JSON report)")
    for gate in regression_gates:
        found = compared.get(gate.checkpoint or next(iter(compared), ""), {}).get(gate.source)
        units = found.units.broken if found else ()
        broken = ", ".join(units[:5]) + (" ..." if len(units) > 5 else "")
        lines.append(f"vs baseline, {gate.source}: {gate.verdict}: {gate.reason}"
                     + (f"; newly broken units: {broken}" if broken else ""))
    if quarantined:
        reasons = sorted({q["reason"] for q in quarantined})
        lines.append(f"{len(quarantined)} generated variants quarantined by our checks "
                     f"({'; '.join(reasons[:3])}{'; ...' if len(reasons) > 3 else ''})")
    lines.append(f"absa-checks {'PASSED' if verdict.passed else 'FAILED'}: {verdict.reason}")
    return lines


def summary(result, options) -> list[str]:
    """The lines for a RunResult (absa_checks.conclusion), the run's notes first."""
    context = result.context
    return [*context.notes, *summary_lines(result.run, result.tables, context.issues, result.compared,
                                           result.regression_gates, context.quarantined, result.verdict,
                                           show_slices=options.verbose)]
