"""The terminal summary: who was tested, the tables, baseline and quarantine notes, and the verdict last."""

from __future__ import annotations

import difflib
from typing import Any

from . import summary_table
from .comparison import SourceComparison
from .examples import DataIssue
from .gates import UNDECIDED, GateResult
from .verdict import Verdict


def summary_lines(run: dict[str, Any], tables: list[summary_table.Table], issues: list[DataIssue],
                  compared: dict[str, dict[str, SourceComparison]], regression_gates: list[GateResult],
                  quarantined: list[dict], verdict: Verdict, show_slices: bool, report_asked: bool = False,
                  failed_cases: int = 0) -> list[str]:
    """`failed_cases`: cases that failed their expectation while gates decide the run (explained once)."""
    model = run["model"]
    if len(run["models"]) == 1:
        lines = [f"model {model['name']} (fingerprint {model['fingerprint']}), seed {run['seed']}; "
                 "rates in %, 95% intervals"]
    else:
        lines = [f"{len(run['models'])} checkpoints: {model['name']}; seed {run['seed']}; rates in %, "
                 f"mean ± std across checkpoints, 95% intervals for the mean; gates on the {model['gate_on']}"]
    for table in tables:
        if not table.rows:  # e.g. only extraction tests ran: no behavioural table
            continue
        if table.header == summary_table.SLICE_HEADER and not show_slices:  # long: the reports have it
            lines.append(f"slices: {len(table.rows)} rows in the reports, or here with -v")
            continue
        if table.title:
            lines += ["", table.title]
        lines += summary_table.render_text(table)
    if issues:
        lines.append(f"{len(issues)} data issues repaired or reported while loading"
                     + (" (listed in the JSON report)" if report_asked else " (--absa-report PATH lists them)"))
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
    if failed_cases:
        lines.append(f"the {failed_cases} failed cases are findings about the model, not errors of the run: "
                     "the gates decide the exit status (-v shows each case in full; --absa-strict makes every "
                     "failed case fail the run)")
    lines.append(f"absa-checks {verdict.heading}: {verdict.reason}")
    return lines


def summary(result, options) -> list[str]:
    """The lines for a RunResult (absa_checks.conclusion), the run's notes first."""
    context = result.context
    failures = failure_lines(result.outcomes) if options.compact_failures else []
    lines = [*context.notes, *failures, *summary_lines(result.run, result.tables, context.issues, result.compared,
                                            result.regression_gates, context.quarantined, result.verdict,
                                            show_slices=options.verbose, report_asked=options.report is not None,
                                            failed_cases=_failed_cases_not_deciding(result, options))]
    lines[-1:-1] = manifest_lines(result.manifest)  # the verdict stays the last line
    return lines


def manifest_lines(manifest) -> list[str]:
    """What was not measured without being asked for, and how much of the run a baseline covers."""
    if manifest is None:
        return []
    lines = [*manifest.skipped, *(f"also not measured: {problem}" for problem in manifest.problems[1:])]
    found = manifest.baseline
    if found and found["shared"] and found["shared"] < found["run_units"]:
        lines.append(f"vs baseline: {found['shared']} of this run's {found['run_units']} units are in the baseline "
                     f"({found['baseline_units']} units there); the other {found['run_units'] - found['shared']} "
                     "are not compared")
    return lines


def _failed_cases_not_deciding(result, options) -> int:
    """Failed cases, when the run has decided gates and no --absa-strict: they show red but decide nothing."""
    decided = [g for g in result.gates if g.verdict not in UNDECIDED]
    found = result.metrics.failed + result.metrics.not_found + result.metrics.ambiguous
    return found if decided and not options.strict else 0


def failure_lines(outcomes) -> list[str]:
    """One line per case that failed its expectation: where, what changed, gold and predicted."""
    failed = [o for o in outcomes if o.status in FINDINGS]
    if not failed:
        return []
    lines = [f"{len(failed)} failed cases, one line each (-v or --tb=short for the full explanation):"]
    for o in failed:
        changed = _changed_words(o.original["sentence"], o.variant["sentence"])
        if o.status != "failed":  # an extraction model: the target itself was not found (or twice)
            lines.append(f"  {o.nodeid}: {changed}; target {o.status}: {o.reason}")
            continue
        lines.append(f"  {o.nodeid}: {changed}; gold {o.original['gold']}->{o.variant['gold']}, predicted "
                     f"{o.original_prediction['label']}->{o.variant_prediction['label']}")
    return lines + [""]


FINDINGS = ("failed", "not-found", "ambiguous")  # what a case finds out about the model (errors are not)


def _changed_words(original: str, variant: str) -> str:
    """The changed stretches of words (two at most), e.g. "'lasts' -> 'does not last'"; "+ '...'" for added ones."""
    a, b = original.split(), variant.split()
    changes = [(" ".join(a[i1:i2]), " ".join(b[j1:j2])) for op, i1, i2, j1, j2
               in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes() if op != "equal"]
    shown = [f"+ {new!r}" if not old else f"{old!r} -> {new!r}" for old, new in changes[:2]]
    return ", ".join(shown) + (" ..." if len(changes) > 2 else "") if shown else "same words"
