"""A Markdown summary fit for a pull-request comment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import summary_table
from .gates import GateResult
from .metrics import RunMetrics
from .outcomes import CaseOutcome
from .verdict import Verdict

MAX_CASES_SHOWN = 20


MAX_UNITS_SHOWN = 30


def render(metrics: RunMetrics, gates: list[GateResult], verdict: Verdict, outcomes: list[CaseOutcome],
           run: dict[str, Any], issue_count: int, pictures: dict[str, str] | None = None,
           comparison: dict[str, Any] | None = None) -> str:
    model = run["model"]
    status = "PASSED" if verdict.passed else "FAILED"
    lines = [f"## absa-checks: {status}", "",
             f"{verdict.reason}.", "",
             f"Model `{model['name']}` (fingerprint `{model['fingerprint']}`), seed {run['seed']}, "
             f"{metrics.cases} cases: {metrics.passed} passed, {metrics.failed} failed, {metrics.errors} errors. "
             "Rates in percent with 95% intervals (Wilson for rates, exact bootstrap over units for ARS).", ""]
    lines += summary_table.render_markdown(summary_table.rows(metrics, gates))
    for name, file_name in (pictures or {}).items():
        lines += ["", f"![{name}]({file_name})"]
    lines += _slices(metrics)
    if gates:
        lines += ["", "### Gates", "", "| verdict | gate | source | test | detail |", "|---|---|---|---|---|"]
        for gate in sorted(gates, key=lambda g: (g.verdict != "fail", g.source, g.test, g.name)):
            lines.append(f"| {gate.verdict} | {gate.name} {gate.threshold:.2%} | {gate.source} | "
                         f"{gate.test.split('::')[-1]} | {gate.reason} |")
    if comparison:
        lines += ["", f"### Compared with the baseline (`{comparison['baseline']}`)", "",
                  "| source | shared units | ARS before -> now | newly broken | newly fixed | exact McNemar p |",
                  "|---|---|---|---|---|---|"]
        for source, found in comparison["sources"].items():
            u = found["units"]
            before, now = (100 * u["before"] / u["matched"], 100 * u["after"] / u["matched"]) if u["matched"] else (0, 0)
            lines.append(f"| {source} | {u['matched']} | {before:.2f} -> {now:.2f} | {len(u['broken'])} | "
                         f"{len(u['fixed'])} | {u['p_value']:.3g} |")
        for source, found in comparison["sources"].items():
            for kind in ("broken", "fixed"):
                ids = found["units"][kind]
                if ids:
                    shown = ", ".join(f"`{i}`" for i in ids[:MAX_UNITS_SHOWN])
                    more = f" and {len(ids) - MAX_UNITS_SHOWN} more" if len(ids) > MAX_UNITS_SHOWN else ""
                    lines += ["", f"Newly {kind} on {source}: {shown}{more}."]
    failing = [o for o in outcomes if o.status != "passed"]
    if failing:
        lines += ["", f"<details><summary>{len(failing)} failing or errored cases "
                      f"(first {min(MAX_CASES_SHOWN, len(failing))})</summary>", ""]
        for o in failing[:MAX_CASES_SHOWN]:
            predicted = o.variant_prediction["label"] if o.variant_prediction else "error"
            lines.append(f"- `{o.nodeid}`: {o.reason}  \n  variant: {o.variant['sentence']} "
                         f"(term *{o.variant['term']}*, predicted {predicted})")
        lines += ["", "</details>"]
    if issue_count:
        lines += ["", f"{issue_count} data issues were repaired or reported while loading; see the JSON report."]
    return "\n".join(lines) + "\n"


def _slices(metrics: RunMetrics) -> list[str]:
    """Per source and slice: units, accuracy on the originals, ARS (folded away: a PR comment stays short)."""
    rows = [f"| {name} | {key} | {found.units} | {summary_table.pct(found.original_accuracy)} | "
            f"{summary_table.with_ci(found.ars)} |"
            for name, source in metrics.sources.items() for key, found in source.slices.items()]
    if not rows:
        return []
    return ["", "<details><summary>Slices: multi-aspect, hard, opposite aspects, gold polarity</summary>", "",
            "| source | slice | units | original accuracy | ARS [95% CI] |", "|---|---|---|---|---|",
            *rows, "", "</details>"]


def write_pictures(pictures: dict[str, bytes], path: Path) -> dict[str, str]:
    """PNG files beside the Markdown file (`summary-accuracy.png`, ...); name -> relative file name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    names = {}
    for name, png in pictures.items():
        file_name = f"{path.stem}-{name}.png"
        (path.parent / file_name).write_bytes(png)
        names[name] = file_name
    return names


def write(text: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
