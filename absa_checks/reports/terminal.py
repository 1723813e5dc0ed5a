"""The terminal summary: who was tested, the tables, baseline and quarantine notes, and the verdict last."""

from __future__ import annotations

import difflib
import re
import textwrap
from typing import Any

from absa_checks.common.examples import DataIssue
from absa_checks.judge import audit
from absa_checks.judge.comparison import SourceComparison
from absa_checks.judge.gates import UNDECIDED, GateResult
from absa_checks.judge.verdict import Verdict
from absa_checks.models.predictions import SUM_TOLERANCE
from absa_checks.reports import summary_table
from absa_checks.suites import strategies
from absa_checks.suites.templates import SOURCE_PREFIX as TEMPLATE_SOURCE

LINE_LIMIT = 160  # a summary line longer than this is cut or folded (without -v): the reports hold the whole of it
SHOWN_FAILURES = 10  # failed cases listed one line each (without -v): -v and the reports list every one


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
        if table.header == summary_table.COVERAGE_HEADER and not show_slices:  # a line per source
            lines += coverage_lines(table)
            continue
        if table.header == summary_table.MATRIX_EXAMPLES_HEADER:  # the failing cases are listed above and in reports
            continue
        if table.header == summary_table.MATRIX_WORST_HEADER:  # a line a cell, under the matrix
            lines += worst_cell_lines(table)
            continue
        if table.title == summary_table.MATRIX_EACH_TITLE and not show_slices:  # the mean's table is shown
            lines.append("capability x test type on each checkpoint: in the reports, or here with -v")
            continue
        if table.title:
            lines += ["", table.title]
        if summary_table.VALIDITY in table.header:  # the main table: validity on a line of its own (short)
            column = table.header.index(summary_table.VALIDITY)
            shown, left = (table, 0) if show_slices else aspect_rows(table)
            shown, sweep = (shown, []) if show_slices else k_sweep(shown)
            lines += summary_table.render_text(summary_table.without_column(shown, column))
            lines += sweep
            if left:
                lines.append(f"{left} rows of other capabilities (templates, robustness, ...): the capability matrix "
                             "below sums them up; every row: -v or the reports")
            lines += validity_lines(table, column)
            continue
        lines += summary_table.render_text(table)
    if issues:
        lines.append(f"{len(issues)} data issues repaired or reported while loading"
                     + (" (listed in the JSON report)" if report_asked else " (--absa-report PATH lists them)"))
    lines += baseline_lines(regression_gates, compared)
    if quarantined:
        reasons = sorted({q["reason"] for q in quarantined})
        lines.append(f"{len(quarantined)} generated variants quarantined by our checks "
                     f"({'; '.join(reasons[:3])}{'; ...' if len(reasons) > 3 else ''})")
    if failed_cases:
        lines.append(f"the {failed_cases} failed cases are findings about the model, not errors of the run: "
                     "the gates decide the exit status (--absa-strict: every case)")
    lines.append(f"absa-checks {verdict.heading}: {verdict.reason}")
    return lines


WORST_SHOWN = 2  # the matrix's worst cells the terminal names (the reports: judge.matrix.WORST), within one screen


def worst_cell_lines(table: summary_table.Table, shown: int = WORST_SHOWN, limit: int = LINE_LIMIT) -> list[str]:
    """The matrix's first `shown` worst cells, one line each within `limit`, no heading (one screen): the cell,
    its fail rate, and one failing case's sentence (the variant, the one the model got wrong), target and why
    it failed; the sentence is shortened around its target to fit, not the why (the original beside it, and
    the other worst cells: the reports)."""
    lines = []
    for capability, kind, rate, _, sentence, variant, target, why in table.rows[:shown]:
        failed = sentence if variant == "-" else variant
        head, tail = f"worst cell: {capability} {kind} {rate}: ", f" [{target}]: {why}"
        start = failed.find(target) if target != "-" else -1
        example = {"sentence": failed, "from": start if start >= 0 else None, "to": start + len(target)}
        lines.append(cut(head + quoted(example, limit - len(head) - len(tail)) + tail, limit))
    return lines


VALIDITY_HEAD = "validity of the variants"  # its lines are folded, never cut: what is audited and what is not
NOT_AUDITED_LINE = "  not audited:"


def validity_lines(table: summary_table.Table, column: int) -> list[str]:
    """The main table's validity column in brief, per source x strategy: a line with the audited ones (both
    fluent and the intended sentiment, exact 95% interval, n) by source, and a line naming what is not audited
    (strategies with the same sources together); one short line when nothing is audited. The summary folds
    them within LINE_LIMIT, never cuts them."""
    audited: dict[str, list[str]] = {}
    missing: dict[str, list[str]] = {}
    for row in table.rows:
        if not row[column]:  # the ARS rows
            continue
        if row[column].endswith(audit.NOT_AUDITED):
            missing.setdefault(row[1], []).append(row[0])
        else:
            audited.setdefault(row[0], []).append(f"{row[1]} {row[column].removeprefix('valid ')}")
    hint = "(frozen variants are audited with `absa-checks audit draw`)"
    if not audited:
        pairs = sum(len(sources) for sources in missing.values())
        return [f"{VALIDITY_HEAD}: not audited, all {pairs} source x strategy pairs of the run {hint}"] if pairs else []
    lines = [f"{VALIDITY_HEAD} (audited: fluent and the intended sentiment, exact 95% CI): "
             + "; ".join(f"{source} {', '.join(found)}" for source, found in audited.items())]
    if missing:
        together: dict[tuple[str, ...], list[str]] = {}
        for strategy, sources in sorted(missing.items()):
            together.setdefault(tuple(sorted(sources)), []).append(strategy)
        named = "; ".join(f"{', '.join(strategies)} on {', '.join(sources)}" for sources, strategies in together.items())
        lines.append(f"{NOT_AUDITED_LINE} {named} {hint}")
    return lines


def aspect_rows(table: summary_table.Table) -> tuple[summary_table.Table, int]:
    """The main table without -v: the rows of ARTS's strategies (and each source's ARS rows), the others left to
    the capability matrix (a template source's or a robustness strategy's rows); and how many were left out."""
    strategy = table.header.index("strategy")
    kept = [row for row in table.rows if _aspect_row(row[0], row[strategy])]
    return summary_table.Table(table.title, table.header, tuple(kept)), len(table.rows) - len(kept)


def k_sweep(table: summary_table.Table) -> tuple[summary_table.Table, list[str]]:
    """Without -v, ADDDIFF's sweep over k (rows `adddiff(k=1)` ... of the suite that draws ARTS's figure) in one line
    per source: its fail rates in the order of k (their intervals: -v, the reports and the figure)."""
    strategy, rate = table.header.index("strategy"), table.header.index("fail rate [95% CI]")
    sweep: dict[str, list[tuple[int, str]]] = {}
    kept = []
    for row in table.rows:
        found = re.fullmatch(r"adddiff\(k=(\d+)\)", row[strategy])
        if found:
            sweep.setdefault(row[0], []).append((int(found[1]), row[rate].split(" [")[0]))
        else:
            kept.append(row)
    if not sweep:
        return table, []
    lines = ["adddiff by k, fail rate % (k = " + ", ".join(str(k) for k, _ in sorted(next(iter(sweep.values()))))
             + "; intervals: -v or the reports):"]
    lines += [f"  {source} by k: " + " / ".join(value for _, value in sorted(found)) for source, found in sweep.items()]
    return summary_table.Table(table.title, table.header, tuple(kept)), lines


def _aspect_row(source: str, label: str) -> bool:
    if source.startswith(TEMPLATE_SOURCE) or label.startswith("template:"):
        return False
    if label.startswith("all"):
        return True
    name = "+".join(part.split("(")[0] for part in label.split("+"))
    try:
        return strategies.capability(name) == strategies.ARTS_CAPABILITY
    except strategies.UnknownStrategy:  # a label this run's registry does not know (a merged report): shown
        return True


EVERY_UNIT = ("", "targets", "instances")  # populations of every unit drawn: not named on the per-source line


def coverage_lines(table: summary_table.Table) -> list[str]:
    """The coverage table in brief: per source, each strategy that left units without a case, with its units
    with a case of the units drawn and the originals' accuracy with a case minus without; the strategies with
    a case for every unit counted together (the reasons: -v and the reports). A strategy that applies to part
    of the units only (REVTGT: polar targets) names its population and counts the units outside it, first on its
    source's line: `  src: revtgt 197/359 polar targets, 23 outside (+8.4); ...` (strategies saying the same, e.g.
    revnon and revnon+adddiff, share it); a source's line wraps at 160 characters, never cut."""
    partial: dict[str, list[str]] = {}
    whole: dict[str, list[str]] = {}
    narrow: dict[str, dict[str, list[str]]] = {}  # source -> what is said -> the strategies that say it
    for source, strategy, counted, _, outside, _, _, difference in table.rows:
        fraction, _, population = counted.partition(" ")
        got, units = fraction.split("/")
        shown = difference.split(" [")[0] + ("*" if difference.endswith("*") else "")  # the interval: -v, reports
        if outside != "-" or population not in EVERY_UNIT:
            apart = f", {outside.split(':')[0]} outside" if outside != "-" else ""
            said = f"{counted}{apart}" + (f" ({shown})" if difference != "-" else "")
            narrow.setdefault(source, {}).setdefault(said, []).append(strategy)  # revnon and revnon+adddiff alike
            partial.setdefault(source, [])
            continue
        if got == units:
            whole.setdefault(source, []).append(strategy)
            partial.setdefault(source, [])
            continue
        partial.setdefault(source, []).append(f"{strategy} {fraction}" + (f" ({shown})" if difference != "-" else ""))
    lines = ["", "coverage: units with a case / units the strategy applies to (originals' accuracy with minus without "
                 "a case, points, * significant; the rest: -v or the reports)"]
    for source, found in partial.items():
        every = whole.get(source, [])
        if every:
            found = [*found, f"{every[0]}: every unit" if len(every) == 1 else f"{len(every)} others: every unit"]
        found = [f"{', '.join(named)} {said}" for said, named in narrow.get(source, {}).items()] + found
        if found and not (source.startswith(TEMPLATE_SOURCE) and not partial[source]):  # templates: made by
            lines += fold(f"  {source}: {'; '.join(found)}")  # construction, every unit has its case
    return lines


def baseline_lines(regression_gates: list[GateResult], compared: dict[str, dict[str, SourceComparison]]
                   ) -> list[str]:
    """A line per source compared with the baseline; sources with the same verdict and reason and no newly
    broken unit share one line (a partial run against a full baseline: "no units shared" once, not 9 times)."""
    broken: list[str] = []
    alike: dict[tuple[str, str], list[str]] = {}
    for gate in regression_gates:
        found = compared.get(gate.checkpoint or next(iter(compared), ""), {}).get(gate.source)
        units = found.units.broken if found else ()
        if units:
            broken += [f"vs baseline, {gate.source}: {gate.verdict}: {gate.reason}",  # a line each: both stay in view
                       f"  {gate.source}: newly broken units: " + ", ".join(units[:5]) + (" ..." if len(units) > 5 else "")]
        else:
            alike.setdefault((gate.verdict, gate.reason), []).append(gate.source)
    lines = broken
    for (verdict, reason), sources in alike.items():
        named = sources[0] if len(sources) == 1 else \
            f"{len(sources)} sources ({', '.join(sources[:3])}{', ...' if len(sources) > 3 else ''})"
        lines.append(f"vs baseline, {named}: {verdict}: {reason}")
    return lines


def summary(result, options) -> list[str]:
    """The lines for a RunResult (absa_checks.run.conclusion), the run's notes first. Without -v it fits one screen:
    repeated lines folded, the first failed cases, the gates that failed and a short verdict, the lines cut
    at LINE_LIMIT characters (not the notes, what was not measured, nor the sources left out for their domain:
    they say what to do)."""
    context = result.context
    failures = failure_lines(result.outcomes) if options.compact_failures else []
    lines = summary_lines(result.run, result.tables, context.issues, result.compared, result.regression_gates,
                          context.quarantined, result.verdict, show_slices=options.verbose,
                          report_asked=options.report is not None,
                          failed_cases=_failed_cases_not_deciding(result, options))
    lines[-1:-1] = [*renormalised_lines(context.timing.get("predictions") or {}),
                    *manifest_lines(result.manifest)]  # the verdict stays the last line
    # the failed cases are not folded: two cases' second lines may be alike (failure_line)
    lines = [*fold_repeated(list(context.notes)), *failures, *fold_repeated(lines)]
    if options.verbose:
        return lines
    failed = failed_gate_lines(result.gates, options.inconclusive)
    whole = set(context.notes) | {line for line in lines if line.startswith(("also not measured: ", "domains: "))}
    whole |= {line for line in failed if line.startswith(WHOLE_GATES)}
    verdict = verdict_line(result.verdict, len(failed), result.metrics)
    # the run's notes and what it failed to measure keep their fix; the rest is in the reports; a failed gate's
    # reason is folded on to indented lines, never cut
    return [part for line in lines[:-1] for part in ((line,) if line in whole else fold(line)
                                                     if line.startswith((VALIDITY_HEAD, NOT_AUDITED_LINE)) else
                                                     (cut(line),))] \
        + [part for line in failed for part in ((line,) if line in whole else fold(line))] + [verdict]


def fold(line: str, limit: int = LINE_LIMIT) -> tuple[str, ...]:
    """A long line as lines within `limit` characters, the second and later indented (FOLDED), broken between
    words (a word longer than a line is broken too): nothing of it is lost."""
    if len(line) <= limit:
        return (line,)
    return tuple(textwrap.wrap(line, width=limit, subsequent_indent=FOLDED, break_on_hyphens=False))


# failed gates whose reason is the fix (a frozen file out of date: its units and the update command), never cut
WHOLE_GATES = ("gate failed: frozen_up_to_date ",)


def cut(line: str, limit: int = LINE_LIMIT) -> str:
    return line if len(line) <= limit else line[:limit - 4].rstrip() + " ..."


def fold_repeated(lines: list[str]) -> list[str]:
    """Every repeated non-blank line once, where it first appears, with how many times it came. A line folded
    over several (its continuations indented by FOLDED) counts as one: two lines that end alike keep their ends."""
    entries: list[list[str]] = []
    for line in lines:
        if line.startswith(FOLDED) and entries and entries[-1][0].strip():
            entries[-1].append(line)
        else:
            entries.append([line])
    counts: dict[tuple[str, ...], int] = {}
    for entry in entries:
        counts[tuple(entry)] = counts.get(tuple(entry), 0) + 1
    seen: set[tuple[str, ...]] = set()
    folded: list[str] = []
    for entry in entries:
        key = tuple(entry)
        if not entry[0].strip() or counts[key] == 1:
            folded += entry
        elif key not in seen:
            seen.add(key)
            folded += [*entry[:-1], f"{entry[-1]} ({counts[key]} times)"]
    return folded


def failed_gate_lines(gates, inconclusive: str = "pass") -> list[str]:
    """One line per gate that failed (an inconclusive one too under --absa-inconclusive fail)."""
    failing = ("fail", "inconclusive") if inconclusive == "fail" else ("fail",)
    return [f"gate failed: {g.name if g.slice else g.label}" + (f" on {g.label}" if g.slice else "")
            + (f" ({g.checkpoint})" if g.checkpoint else "") + f": {g.reason}" for g in gates if g.verdict in failing]


def verdict_line(verdict: Verdict, failed_gates: int, metrics) -> str:
    """`absa-checks PASSED|FAILED: why` within LINE_LIMIT: a reason too long for it gives way to the counts
    (the failed gates are the lines above; the reports have the whole reason). A run that failed for another
    reason than its gates (nothing measured, a refused suite, errors) keeps the whole reason: it says the fix."""
    line = f"absa-checks {verdict.heading}: {verdict.reason}"
    if len(line) <= LINE_LIMIT:
        return line
    cases = f"{metrics.failed} of {metrics.cases} cases failed their expectation" if metrics.cases else ""
    if failed_gates and verdict.reason.startswith(f"{failed_gates} of "):
        counted = verdict.reason.split(":")[0]  # "2 of 54 gates failed"
        return cut(f"absa-checks {verdict.heading}: {counted} (listed above)" + (f"; {cases}" if cases else ""))
    if not verdict.passed:  # not measured, refused, errors: the whole reason, for it says what to fix
        return line
    return cut(line.split(" (")[0] + (f" ({cases})" if cases and cases not in line.split(" (")[0] else ""))


def renormalised_lines(predictions: dict[str, Any]) -> list[str]:
    """One warning line when answers' probabilities did not sum to 1 (beyond SUM_TOLERANCE) and were divided by
    their sum: counted per checkpoint in the report's timing.predictions.renormalised."""
    per = predictions.get("per_checkpoint") or {}
    counts = {name: found.get("renormalised", 0) for name, found in per.items()} if per else \
        {"": predictions.get("renormalised", 0)}
    total = sum(counts.values())
    if not total:
        return []
    who = f" ({', '.join(f'{name} {n}' for name, n in counts.items() if n)})" if per else ""
    return [f"warning: {total} answers{who} gave probabilities that do not sum to 1 (off by more than "
            f"{SUM_TOLERANCE}); they were divided by their sum: scores or logits are not probabilities"]


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


def failure_lines(outcomes, shown: int = SHOWN_FAILURES, limit: int = LINE_LIMIT) -> list[str]:
    """The first `shown` cases that failed their expectation, one line each within `limit` characters: where,
    the target, what changed (a case on one sentence, as a template's MFT: the sentence) and expected against
    predicted; a long sentence or change is shortened, never the labels (-v explains every one in full; the
    JSON and Markdown reports list them all)."""
    failed = [o for o in outcomes if o.status in FINDINGS]
    if not failed:
        return []
    first = f"the first {shown}, " if len(failed) > shown else ""
    lines = [f"{len(failed)} failed cases, {first}one line each (-v explains every case in full):"]
    lines += [part for o in failed[:shown] for part in failure_line(o, limit)]
    if len(failed) > shown:
        lines.append(f"  ... and {len(failed) - shown} more (-v, or --absa-report PATH / --absa-markdown PATH "
                     "lists every one)")
    return lines + [""]


def failure_line(o, limit: int = LINE_LIMIT) -> tuple[str, ...]:
    """A failed case within `limit` characters: `nodeid: "sentence" [target] expected X, predicted Y` for a case
    judged on its gold label (an MFT: the sentence the model got wrong), `nodeid: [target] 'old' -> 'new'; gold
    a->b, predicted c->d` for one that compares the variant with its original (INV, DIR, ARTS's strategies). The
    sentence or change is shortened to fit, never the labels; when the node id leaves it too little room, the
    case goes on to a second, indented line."""
    head = f"  {o.nodeid}: "
    line = _described(o, head, limit)
    if len(line) <= limit:
        return (line,)
    return head.rstrip(), _described(o, FOLDED, limit)


FOLDED = "      "  # the indent of a failed case's or gate's second line


def _described(o, head: str, limit: int) -> str:
    target = _target(o.original.get("term"), o.variant.get("term"))
    if o.status != "failed":  # an extraction model: the target itself was not found (or twice)
        changed = _changed_words(o.original["sentence"], o.variant["sentence"])
        return cut(f"{head}{target} {changed}; target {o.status}: {o.reason}", limit)
    if o.expect == "gold":
        tail = f" {target} expected {o.variant['gold']}, predicted {o.variant_prediction['label']}"
        return head + quoted(o.variant, limit - len(head) - len(tail)) + tail
    tail = (f"; gold {o.original['gold']}->{o.variant['gold']}, predicted "
            f"{o.original_prediction['label']}->{o.variant_prediction['label']}")
    if o.original["sentence"] == o.variant["sentence"]:
        return head + quoted(o.variant, limit - len(head) - len(target) - len(tail) - 1) + f" {target}{tail}"
    changed = _changed_words(o.original["sentence"], o.variant["sentence"])
    return head + target + " " + shorten(changed, limit - len(head) - len(target) - len(tail) - 1) + tail


def _target(original: str | None, variant: str | None) -> str:
    """The target as the failure lines show it: `[screen]`, `[screen -> display]` when the variant renamed it."""
    return f"[{original}]" if variant in (None, original) else f"[{original} -> {variant}]"


MIN_SHOWN = 20  # a sentence or change shortened to fit a line keeps at least this many characters


def shorten(text: str, width: int) -> str:
    """`text` within `width` characters (at least MIN_SHOWN), cut at the end with "..."."""
    width = max(width, MIN_SHOWN)
    if len(text) <= width:
        return text
    space = text.rfind(" ", width // 2, width - 2)  # cut between words where one ends late enough
    return text[:space if space != -1 else width - 3].rstrip() + "..."


def quoted(example: dict, width: int) -> str:
    """An example's sentence in double quotes within `width` characters, quotes included: a long one keeps the
    words around its target (marked "..." where cut), for the target is what the line is about."""
    return f'"{around(example["sentence"], example.get("from"), example.get("to"), width - 2)}"'


def around(text: str, start: int | None, end: int | None, width: int) -> str:
    """`text` within `width` characters (at least MIN_SHOWN): whole if it fits, else the stretch centred on
    text[start:end] with "..." where it was cut (cut at its end when the span is unknown or too long)."""
    width = max(width, MIN_SHOWN)
    if len(text) <= width:
        return text
    if start is None or end is None or not 0 <= start < end <= len(text) or end - start > width - 6:
        return shorten(text, width)
    room = width - 6  # both ends cut: "..." each
    low = max(0, (start + end) // 2 - room // 2)
    high = min(len(text), low + room)
    if low == 0:
        high = width - 3
    elif high == len(text):
        low = len(text) - (width - 3)
    else:
        low = max(0, min(low, start))
        high = low + room
    low, high = _whole_words(text, low, high, start, end)
    return ("..." if low else "") + text[low:high].strip() + ("..." if high < len(text) else "")


def _whole_words(text: str, low: int, high: int, start: int, end: int) -> tuple[int, int]:
    """[low, high) narrowed to whole words ("...better than the keys", never "...s better"), never into the
    target's span text[start:end]."""
    if 0 < low < start and not text[low - 1].isspace():
        space = text.find(" ", low, start)
        low = space + 1 if space != -1 else low
    if end < high < len(text) and not text[high].isspace():
        space = text.rfind(" ", end, high)
        high = space if space != -1 else high
    return low, high


FINDINGS = ("failed", "not-found", "ambiguous")  # what a case finds out about the model (errors are not)


def _changed_words(original: str, variant: str) -> str:
    """The changed stretches of words (two at most), e.g. "'lasts' -> 'does not last'"; "+ '...'" for added ones."""
    a, b = original.split(), variant.split()
    changes = [(" ".join(a[i1:i2]), " ".join(b[j1:j2])) for op, i1, i2, j1, j2
               in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes() if op != "equal"]
    shown = [f"+ {new!r}" if not old else f"{old!r} -> {new!r}" for old, new in changes[:2]]
    return ", ".join(shown) + (" ..." if len(changes) > 2 else "") if shown else "same words"
