"""A Markdown summary fit for a pull-request comment."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from absa_checks.common import outputs
from absa_checks.judge import comparison as comparison_module
from absa_checks.judge.gates import GateResult
from absa_checks.judge.metrics import RunMetrics
from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.judge.verdict import Verdict
from absa_checks.reports import summary_table

MAX_CASES_SHOWN = 20


MAX_UNITS_SHOWN = 30


def render(metrics: RunMetrics, gates: list[GateResult], verdict: Verdict, outcomes: list[CaseOutcome],
           run: dict[str, Any], issue_count: int, pictures: dict[str, str] | None = None,
           comparison: dict[str, Any] | None = None, tables: list[summary_table.Table] | None = None) -> str:
    model = run["model"]
    status = verdict.heading
    tables = tables or summary_table.all_tables(metrics, gates)
    several = len(run.get("models", [])) > 1
    who = (f"{len(run['models'])} checkpoints `{model['name']}` (rates are mean±std across them; intervals are "
           f"for the mean; gates on the {model['gate_on']})" if several
           else f"Model `{model['name']}` (fingerprint `{model['fingerprint']}`)")
    lines = [f"## absa-checks: {status}", "",
             f"{verdict.reason}.", "",
             f"{who}, seed {run['seed']}, "
             f"{metrics.cases} cases: {metrics.passed} passed, {metrics.failed} failed, {metrics.errors} errors. "
             "Rates in percent with 95% intervals (Wilson for rates, exact Clopper-Pearson over units for ARS).", ""]
    lines += summary_table.render_markdown(tables[0])
    for name, file_name in (pictures or {}).items():
        lines += ["", f"![{name}]({file_name})"]
    for table in tables[1:]:
        if table.header == summary_table.SLICE_HEADER:  # long: folded away, a PR comment stays short
            lines += ["", f"<details><summary>Slices: {table.title.split(': ', 1)[-1]}</summary>", "",
                      *summary_table.render_markdown(table), "", "</details>"]
        else:
            lines += ["", f"### {table.title[0].upper()}{table.title[1:]}", "", *summary_table.render_markdown(table)]
    if gates:
        lines += ["", "### Gates", "", "| verdict | gate | source | test | detail |", "|---|---|---|---|---|"]
        for gate in sorted(gates, key=lambda g: (g.verdict != "fail", g.source, g.test, g.name)):
            measures = gate.test.split('::')[-1] if not gate.slice else gate.label.split(f"{gate.slice} ", 1)[-1]
            lines.append(f"| {gate.verdict} | {gate.name} {gate.threshold:.2%} | {gate.source}"
                         f"{f' [{gate.slice}]' if gate.slice else ''}{f' [{gate.cell}]' if gate.cell else ''} | "
                         f"{measures} | {gate.reason} |")
    if comparison:
        lines += _comparison(comparison)
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


def _ratio(paired: dict[str, Any]) -> tuple[float, float]:
    matched = paired["matched"]
    return (100 * paired["before"] / matched, 100 * paired["after"] / matched) if matched else (0.0, 0.0)


def _comparison(comparison: dict[str, Any]) -> list[str]:
    """ARS units and each strategy's cases, paired with the baseline; then the newly broken/fixed units."""
    entries = comparison_module.report_entries(comparison)
    lines = ["", f"### Compared with the baseline (`{comparison['baseline']}`)", "",
             "| checkpoint | source | what | shared | before -> now (%) | newly broken | newly fixed | exact McNemar p |",
             "|---|---|---|---|---|---|---|---|"]
    for model, source, found in entries:
        for what, paired in (("ARS units", found["units"]), *((f"{k} cases", v) for k, v in found["strategies"].items())):
            before, now = _ratio(paired)
            lines.append(f"| {model or '-'} | {source} | {what} | {paired['matched']} | {before:.2f} -> {now:.2f} | "
                         f"{len(paired['broken'])} | {len(paired['fixed'])} | {paired['p_value']:.3g} |")
    for model, source, found in entries:
        for kind in ("broken", "fixed"):
            ids = found["units"][kind]
            if ids:
                shown = ", ".join(f"`{i}`" for i in ids[:MAX_UNITS_SHOWN])
                more = f" and {len(ids) - MAX_UNITS_SHOWN} more" if len(ids) > MAX_UNITS_SHOWN else ""
                lines += ["", f"Newly {kind} on {source}{f' ({model})' if model else ''}: {shown}{more}."]
    return lines


PICTURE_NAMES = ("accuracy", "fail-rates", "adddiff-k")  # absa_checks.reports.pictures.all_pictures


def picture_path(path: Path, name: str) -> Path:
    """A picture beside the Markdown file: `summary.md` -> `summary-accuracy.png`."""
    return path.parent / f"{path.stem}-{name}.png"


def files(given: Path, path: Path, option: str = "--absa-markdown") -> tuple[outputs.Named, dict[str, outputs.Named]]:
    """The Markdown file at `path` (the `given` one, or its partial-run file) and its pictures, as outputs."""
    from absa_checks.reports.report_json import partial_path

    markdown = (outputs.Named(option, path) if path == given
                else outputs.derived(option, given, "partial-run summary", partial_path(given)))
    return markdown, {name: outputs.derived(option, given, "picture", picture_path(path, name)) for name in PICTURE_NAMES}


def write_pictures(pictures: dict[str, bytes], targets: dict[str, outputs.Named],
                   follow_symlinks: bool = False) -> tuple[dict[str, str], dict[str, outputs.OutputError]]:
    """PNG files beside the Markdown file; (name -> relative file name of those written, name -> why not)."""
    names, failed = {}, {}
    for name, png in pictures.items():
        try:
            outputs.write_bytes(targets[name], png, follow_symlinks)
        except outputs.OutputError as err:
            failed[name] = err
            continue
        names[name] = targets[name].path.name
    return names, failed


class _MarkdownReporter:
    """--absa-markdown PATH: a summary for a pull request or a CI page, pictures beside it."""

    name = "markdown"

    def wanted(self, options) -> bool:
        return options.markdown is not None

    def outputs(self, options) -> list[outputs.Named]:
        """Every file this report may write (checked against the run's inputs before the run)."""
        from absa_checks.reports.report_json import partial_path

        found = []
        for path in (options.markdown, partial_path(options.markdown)):
            markdown, pictures = files(options.markdown, path, _option(options))
            found += [markdown, *pictures.values()]
        return found

    def write(self, result, options) -> list[str]:
        from absa_checks.reports.report_json import partial_path

        follow = getattr(options, "follow_symlinks", False)
        markdown, pictures = files(options.markdown, options.markdown if result.complete else partial_path(options.markdown),
                                   _option(options))
        names, failed = write_pictures(result.pictures, pictures, follow)
        text = render(result.metrics, result.gates, result.verdict, result.outcomes, result.run,
                      len(result.context.issues), names, result.report.get("comparison"), result.tables)
        if not result.complete:
            text = f"> **Partial run** ({result.context.stopped}): these numbers cover only the cases that ran.\n\n" + text
        try:
            outputs.write_text(markdown, text, follow)
        except outputs.OutputError as err:  # one line for the summary and its pictures
            more = f" (nor its {len(failed)} picture{'s' if len(failed) > 1 else ''})" if failed else ""
            raise outputs.OutputError(f"{markdown}: not written{more}: {err.reason}", err.reason) from None
        if failed:  # the summary is written, without the pictures that could not be
            first = next(iter(failed.values()))
            raise outputs.OutputError(f"{markdown}: written without its picture{'s' if len(failed) > 1 else ''} "
                                      f"{', '.join(failed)}: {first.reason}", first.reason)
        return [f"Markdown summary: {markdown.path}"
                + ("" if result.complete else f" (partial; {options.markdown} left as it was)")]


def _option(options) -> str:
    """The option that named the file: --absa-markdown, or the `absa-checks merge` command's --markdown."""
    return getattr(options, "markdown_option", "--absa-markdown")


REPORTER = _MarkdownReporter()
