"""Allure results: each case titled, labelled and illustrated; the run's summary and gates as results.

Only active with allure-pytest and `--alluredir DIR`. Per-case results are written by allure-pytest in
each process (safe under xdist); the summary, gates, environment.properties and categories.json are
written once, by the controller.
"""

from __future__ import annotations

import base64
import difflib
import html
import json
import re
import uuid
from itertools import zip_longest
from pathlib import Path
from typing import Any

from absa_checks.common import outputs
from absa_checks.judge.comparison import report_entries
from absa_checks.judge.outcomes import CaseOutcome
from absa_checks.suites import strategies


def categories() -> list[dict]:
    """Allure's failure categories: one per strategy, from its declaration; then errors and gates."""
    return [*({"name": s.allure_category, "matchedStatuses": ["failed"],
               "messageRegex": rf"(?s).*{s.name}.*expected the prediction to "
                               rf"{'flip' if s.default_expectation == 'flip' else 'stay'}.*"}
              for s in strategies.registry().values()),
            {"name": "adapter error", "matchedStatuses": ["broken"]},
            {"name": "release gate failed", "matchedStatuses": ["failed"], "messageRegex": r"(?s).*gate.*"}]
STYLE = ("<style>body{font-family:system-ui,sans-serif;font-size:14px}mark{background:#ffe08a}"
         "del{background:#f6c6c6}b{color:#1f4e9c}table{border-collapse:collapse}"
         "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}</style>")
# Allure's description pane is about 870 px wide in a 1,280 px window; its own cell style (13 px padding,
# no wrapping) pushes the summary's gate column out of sight, so the summary's cells carry their own.
SUMMARY_CELL = "padding:3px 6px;white-space:normal;font-size:13px"


# ---------------------------------------------------------------- one case

def case_title(outcome: CaseOutcome) -> str:
    sentence = outcome.variant["sentence"]
    short = sentence if len(sentence) <= 70 else sentence[:67] + "..."
    return f"{outcome.strategy}: '{outcome.variant['term']}' in \"{short}\""


def _words(text: str) -> list[str]:
    return re.findall(r"\w+(?:'\w+)?|[^\w\s]|\s+", text)


def _marked(sentence: str, term: str, start: int, end: int) -> str:
    return html.escape(sentence[:start]) + f"<b>{html.escape(term)}</b>" + html.escape(sentence[end:])


def diff_html(original: str, variant: str) -> tuple[str, str]:
    """The two sentences with removed words struck out and new words highlighted (a word diff)."""
    a, b = _words(original), _words(variant)
    left, right = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        old, new = html.escape("".join(a[i1:i2])), html.escape("".join(b[j1:j2]))
        left.append(old if op == "equal" else (f"<del>{old}</del>" if old.strip() else old))
        right.append(new if op == "equal" else (f"<mark>{new}</mark>" if new.strip() else new))
    return "".join(left), "".join(right)


def case_html(outcome: CaseOutcome) -> str:
    o, v = outcome.original, outcome.variant
    left, right = diff_html(o["sentence"], v["sentence"])
    rows = []
    for title, example, prediction, text in (("original", o, outcome.original_prediction, left),
                                             ("variant", v, outcome.variant_prediction, right)):
        probs = prediction["probs"] if prediction else {}
        shown = ", ".join(f"{k} {p:.2f}" for k, p in probs.items()) or "no prediction"
        label = prediction["label"] if prediction else "-"
        rows.append(f"<tr><th>{title}</th><td>{text}</td><td>target <b>{html.escape(example['term'])}</b>, "
                    f"gold {example['gold']}</td><td><b>{label}</b> ({shown})</td></tr>")
    verdict = html.escape(outcome.reason)
    return (f"<!doctype html><html><head><meta charset='utf-8'>{STYLE}</head><body>"
            f"<p><b>{outcome.strategy}</b>, expectation <b>{outcome.expect}</b>: {verdict}</p>"
            f"<table><tr><th></th><th>sentence (changed words highlighted)</th><th>gold</th><th>prediction</th></tr>"
            f"{''.join(rows)}</table></body></html>")


# ---------------------------------------------------------------- the run (controller only)

def _table(header: list[str], rows: list[list[str]], cell_style: str = "") -> str:
    """An HTML table; `cell_style` goes on every cell (Allure keeps inline styles, not <style> blocks)."""
    style = f" style='{cell_style}'" if cell_style else ""
    head = "".join(f"<th{style}>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td{style}>{html.escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>"


def _metric_cell(metric: dict[str, Any]) -> str:
    """"61.20% (306/500)" for one checkpoint; "61.20% ± 1.30 (mean of 3 checkpoints, n = 500)" for several."""
    value = metric.get("value") or 0.0
    if metric.get("per_checkpoint") is not None:
        return (f"{value:.2%} ± {100 * (metric.get('std') or 0):.2f} (mean of {len(metric['per_checkpoint'])} "
                f"checkpoints, n = {metric.get('n')})")
    return f"{value:.2%} ({metric.get('k')}/{metric.get('n')})"


def write_run_results(directory: Path, report: dict[str, Any], tables: list, pictures: dict[str, bytes],
                      inconclusive: str = "pass", option: str = "--alluredir", follow_symlinks: bool = False) -> None:
    """As _write_run_results; a file the Allure library cannot write is an OutputError (one line)."""
    try:
        _write_run_results(directory, report, tables, pictures, inconclusive, option, follow_symlinks)
    except outputs.OutputError:
        raise
    except OSError as err:
        raise outputs.OutputError(f"{option} {directory}: not written: {outputs.describe(err)}") from None


def _write_run_results(directory: Path, report: dict[str, Any], tables: list, pictures: dict[str, bytes],
                       inconclusive: str, option: str, follow_symlinks: bool) -> None:
    """The summary (tables + pictures) and one result per gate, with environment and categories.
    `tables`: summary_table.Table objects, the main one first. An inconclusive gate is passed or failed
    as the run counted it (`inconclusive`, from --absa-inconclusive), and says it was inconclusive.
    The summary and gates start when the run started, so Allure lists them before every case."""
    from allure_commons.logger import AllureFileLogger
    from allure_commons.model2 import Attachment, Label, Parameter, Status, StatusDetails, TestResult

    directory.mkdir(parents=True, exist_ok=True)
    logger = AllureFileLogger(str(directory), clean=False)
    now = int(__import__("time").time() * 1000)
    started = int(1000 * report.get("timing", {}).get("started", now / 1000)) - 1

    def attach(result: TestResult, name: str, body: bytes | str, mime: str, extension: str) -> None:
        file_name = f"{uuid.uuid4()}-attachment.{extension}"
        logger.report_attached_data(body=body if isinstance(body, bytes) else body.encode(), file_name=file_name)
        result.attachments.append(Attachment(name=name, source=file_name, type=mime))

    statuses = {"pass": Status.PASSED, "fail": Status.FAILED, "inconclusive": Status.PASSED if inconclusive == "pass"
                else Status.FAILED, "report-only": Status.SKIPPED, "duplicate": Status.SKIPPED}  # decide nothing

    def result(name: str, verdict: str, message: str, history: str, when: int) -> TestResult:
        return TestResult(uuid=str(uuid.uuid4()), historyId=history, testCaseId=history, name=name,
                          fullName=f"absa-checks::{name}", status=statuses[verdict],
                          statusDetails=StatusDetails(message=message), stage="finished", start=when, stop=when,
                          labels=[Label("epic", "absa-checks run"), Label("feature", "release gates"),
                                  Label("suite", "absa-checks")])

    verdict = report["verdict"]
    summary = result("absa-checks summary", "pass" if verdict["passed"] else "fail", verdict["reason"],
                     "absa-checks-summary", started - 1)
    def all_tables(cell_style: str = "") -> tuple[str, str]:
        main = _table(list(tables[0].header), [list(r) for r in tables[0].rows], cell_style)
        others = "".join(f"<h4>{html.escape(t.title)}</h4>" + _table(list(t.header), [list(r) for r in t.rows],
                                                                     cell_style) for t in tables[1:])
        return main, others

    main, others = all_tables(SUMMARY_CELL)
    images = "".join(f"<p><img alt='{name}' style='max-width:100%' "
                     f"src='data:image/png;base64,{base64.b64encode(png).decode()}'></p>" for name, png in pictures.items())
    summary.descriptionHtml = (f"<p><b>{'PASSED' if verdict['passed'] else 'FAILED'}</b>: "
                               f"{html.escape(verdict['reason'])}</p>{main}{images}{others}")
    attach(summary, "summary tables", f"<html><head><meta charset='utf-8'>{STYLE}</head><body>"
           + "".join(all_tables()) + "</body></html>", "text/html", "html")
    for name, png in pictures.items():
        attach(summary, name, png, "image/png", "png")
    logger.report_result(summary)
    comparison_entries = report_entries(report["comparison"]) if "comparison" in report else []
    for gate in report["gates"]:
        if gate["verdict"] == "no-data":
            continue
        checkpoint = gate.get("checkpoint", "")
        what = gate.get("label") if gate.get("slice") else \
            f"{gate['capability']} {gate['type']} (capability x type)" if gate.get("capability") else \
            f"{gate['source']} ({gate['test'].split('::')[-1]})"  # a slice gate: what it measures, not the test
        name = (f"gate {gate['gate']} {gate['threshold']:.0%} on {what}"
                + (f" [{checkpoint}]" if checkpoint else ""))
        message = f"gate: {gate['reason']}"
        if gate["verdict"] == "inconclusive":
            counted = "passed" if inconclusive == "pass" else "failed"
            name += f" (inconclusive, counted as {counted})"
            message = f"gate inconclusive, counted as {counted} (--absa-inconclusive {inconclusive}): {gate['reason']}"
        elif gate["verdict"] in ("report-only", "duplicate"):
            name += f" ({gate['verdict']}{' of ' + gate['duplicate_of'] if gate.get('duplicate_of') else ''})"
        item = result(name, gate["verdict"], message,
                      f"gate::{gate['gate']}::{gate['source']}::{gate['test']}" + (f"::{checkpoint}" if checkpoint else "")
                      + (f"::slice::{gate['slice']}" if gate.get("slice") else "")
                      + (f"::cell::{gate['capability']}::{gate['type']}" if gate.get("capability") else ""),
                      started)
        item.parameters.append(Parameter(name="threshold", value=str(gate["threshold"])))
        metric = gate["metric"] or {}
        compared = next((found for model, source, found in comparison_entries
                         if source == gate["source"] and model in (checkpoint, "")), None)
        if gate["gate"] == "no_regression" and compared:
            u = compared["units"]
            attach(item, "newly broken and fixed units", f"<html><head><meta charset='utf-8'>{STYLE}</head><body>"
                   f"<p>{html.escape(gate['reason'])}</p>" + _table(
                       ["newly broken", "newly fixed"],
                       [list(pair) for pair in zip_longest(u["broken"], u["fixed"], fillvalue="")])
                   + "</body></html>", "text/html", "html")
            logger.report_result(item)
            continue
        attach(item, "gate", f"<html><head><meta charset='utf-8'>{STYLE}</head><body>" + _table(
            ["gate", "threshold", "value", "95% interval", "basis", "verdict"],
            [[gate["gate"], f"{gate['threshold']:.2%}", _metric_cell(metric),
              f"{metric['ci95'][0]:.2%} - {metric['ci95'][1]:.2%}" if metric.get("ci95") else "-",
              gate["basis"], gate["verdict"]]]) + "</body></html>", "text/html", "html")
        logger.report_result(item)
    run = report["run"]
    environment = {"model": run["model"]["name"], "model.fingerprint": run["model"]["fingerprint"],
                   **{f"checkpoint.{m['name']}": m["fingerprint"] for m in run.get("models", []) if len(run["models"]) > 1},
                   "suite.sha256": run["suite_sha256"], "seed": run["seed"],
                   **{f"version.{k}": v for k, v in run["versions"].items()}}
    outputs.write_text(outputs.Named(option, directory / "environment.properties"),
                       "".join(f"{k}={v}\n" for k, v in environment.items()), follow_symlinks)
    outputs.write_text(outputs.Named(option, directory / "categories.json"), json.dumps(categories(), indent=1),
                       follow_symlinks)


def summary_files(directory: Path, option: str = "--alluredir") -> list[outputs.Named]:
    """The files of the run's summary with fixed names (the results and attachments have fresh uuids)."""
    return [outputs.Named(option, directory / name) for name in ("environment.properties", "categories.json")]


class _AllureReporter:
    """With allure-pytest and --alluredir: the run's summary, gates and pictures as Allure results (the
    cases are decorated while they run, in items.py)."""

    name = "allure"

    def wanted(self, options) -> bool:
        return options.allure_dir is not None and options.shard is None  # a shard decides nothing: the merge does

    def outputs(self, options) -> list[outputs.Named]:
        return summary_files(options.allure_dir)

    def write(self, result, options) -> list[str]:
        write_run_results(options.allure_dir, result.report, result.tables, result.pictures, options.inconclusive,
                          follow_symlinks=getattr(options, "follow_symlinks", False))
        return [f"Allure results: {options.allure_dir} (summary, {len(result.report['gates'])} gates, pictures); "
                f"the report: npx allure generate {options.allure_dir}"]


REPORTER = _AllureReporter()


# ---------------------------------------------------------------- allure-pytest's own writes
