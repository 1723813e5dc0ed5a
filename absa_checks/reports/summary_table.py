"""The summary tables, built once and rendered as text (terminal), Markdown or HTML (Allure).

- the main table: source x strategy, with the gates' verdicts;
- several checkpoints: each checkpoint's numbers beside the mean ± std;
- slices: per source, units, accuracy on the originals and ARS per slice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from absa_checks.judge import audit
from absa_checks.judge import matrix as matrix_module
from absa_checks.judge.gates import UNDECIDED, GateResult, measured_on_cases
from absa_checks.judge.metrics import RunMetrics

HEADER = ("source", "strategy", "n", "accuracy ori -> new", "fail rate [95% CI]", "ARS [95% CI]", "gate")
VALIDITY = "validity (audited) [95% CI]"  # after the fail rate: judge.audit.cell
SLICE_HEADER = ("source", "slice", "units", "original accuracy", "ARS [95% CI]", "gate")
COVERAGE_HEADER = ("source", "strategy", "with a case / population", "without a case: why (units)",
                   "outside the population: why (units)", "accuracy with", "accuracy without", "difference [95% CI]")
COVERAGE_TITLE = ("coverage: units with a case of the drawn units the strategy applies to (its population, named), "
                  "why the rest have none, the units outside it counted apart, and the originals' accuracy on units "
                  "with a case vs without, within the population (%; difference in points, * when its interval "
                  "excludes 0)")


@dataclass(frozen=True)
class Table:
    title: str  # "" for the main table
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


def pct(rate) -> str:
    """A rate in percent; a mean over checkpoints (a Spread) as "mean±std"."""
    if not rate.n:
        return "-"
    shown = f"{100 * rate.value:.2f}"
    return shown + (f"±{100 * rate.std:.2f}" if getattr(rate, "std", None) is not None else "")


def with_ci(rate) -> str:
    return f"{pct(rate)} [{100 * rate.low:.1f}, {100 * rate.high:.1f}]" if rate.n else "-"


def _gate_cell(gates: list[GateResult]) -> str:
    decided = [g for g in gates if g.verdict not in UNDECIDED]
    if not decided:
        shown = sorted({f"duplicate of {g.duplicate_of}" if g.duplicate_of else g.verdict for g in gates
                        if g.verdict in ("report-only", "duplicate")})
        return "; ".join(shown) or "-"
    failed = sum(g.verdict == "fail" for g in decided)
    undecided = sum(g.verdict == "inconclusive" for g in decided)
    if failed:
        return f"FAIL ({failed}/{len(decided)})"
    return f"inconclusive ({undecided}/{len(decided)})" if undecided else "pass"


def missing_columns(metrics: RunMetrics) -> tuple[str, ...]:
    """An extraction model's own outcomes, shown when it had any: the target not found, or found twice."""
    return (*(("not found [95% CI]",) if metrics.not_found else ()),
            *(("ambiguous [95% CI]",) if metrics.ambiguous else ()))


def header(metrics: RunMetrics) -> tuple[str, ...]:
    return (*HEADER[:5], VALIDITY, *missing_columns(metrics), *HEADER[5:])


def rows(metrics: RunMetrics, gates: list[GateResult], validity=None) -> list[tuple[str, ...]]:
    """`validity`: source -> strategy -> judge.audit.Tally (none: "not audited" everywhere)."""
    test_strategy = {t.test: t.strategy for t in metrics.tests}
    extra = missing_columns(metrics)
    result = []
    for name, source in metrics.sources.items():
        for strategy, s in source.strategies.items():
            mine = [g for g in gates if g.source == name and g.name != "min_ars" and not g.slice
                    and test_strategy.get(g.test) == strategy]
            missing = [with_ci(rate) if rate is not None else "-" for rate, column in
                       ((s.not_found, "not found [95% CI]"), (s.ambiguous, "ambiguous [95% CI]")) if column in extra]
            n = f"{s.n} (+{s.errors} errors)" if s.errors else str(s.n)  # the errored cases are in no rate
            result.append((name, strategy, n, f"{pct(s.original_accuracy)} -> {pct(s.variant_accuracy)}",
                           with_ci(s.fail_rate), audit.cell((validity or {}).get(name, {}).get(strategy)), *missing,
                           "", _gate_cell(mine)))
        ars_gates = [g for g in gates if g.source == name and g.name == "min_ars" and not g.slice]
        label = "all (units)" if not source.ars_partial else f"all (ARS partial: {'+'.join(source.ars_covers) or '-'})"
        result.append((name, label, str(source.units), f"{pct(source.original_accuracy)} (originals)", "", "",
                       *([""] * len(extra)), with_ci(source.ars), _gate_cell(ars_gates)))
        complete = source.ars_complete
        if complete is not None and complete.n and complete.n != source.ars.n:  # comparable with ARTS's ARS
            result.append((name, "all (complete units)", str(source.complete_units), "", "", "",
                           *([""] * len(extra)), with_ci(complete), "-"))
    return result


def difference_cell(difference) -> str:
    """A difference of two rates in points with its interval, "*" when the interval excludes 0."""
    if not difference.defined:
        return "-"
    return (f"{100 * difference.value:+.1f} [{100 * difference.low:.1f}, {100 * difference.high:.1f}]"
            + ("*" if difference.significant else ""))


SHOWN_REASONS = 4  # the most frequent reasons in a table cell; the JSON report has every one


def reasons_cell(by_reason: dict[str, int]) -> str:
    """The most frequent reasons with their units, the rest counted."""
    shown = [f"{reason} ({n})" for reason, n in list(by_reason.items())[:SHOWN_REASONS]]
    rest = list(by_reason.values())[SHOWN_REASONS:]
    if rest:
        shown.append(f"{len(rest)} more reasons ({sum(rest)}; the JSON report lists them)")
    return "; ".join(shown) or "-"


def counted_cell(coverage) -> str:
    """Units with a case of the units in the population, named: "431/469 polar targets"."""
    return f"{coverage.with_case}/{coverage.units}" + (f" {coverage.population}" if coverage.population else "")


def outside_cell(coverage) -> str:
    """The drawn units outside the population, then their reasons: "169: neutral target (169)"; "-" when none."""
    return f"{coverage.outside_population}: {reasons_cell(coverage.outside)}" if coverage.outside else "-"


def coverage_rows(per_model: dict) -> list[tuple[str, ...]]:
    """Per source and strategy (and checkpoint, when several): units with a case of the units drawn that the
    strategy applies to, the reasons of the rest, the units outside its population, the originals' accuracy
    with and without a case (within the population) and their difference."""
    several = len(per_model) > 1
    return [(f"{source}@{model}" if several else source, strategy, counted_cell(c), reasons_cell(c.by_reason),
             outside_cell(c), pct(c.accuracy_covered), pct(c.accuracy_uncovered), difference_cell(c.difference))
            for model, found in per_model.items() for source, strategies in found.items()
            for strategy, c in strategies.items()]


def checkpoint_rows(per_model: dict[str, RunMetrics], mean: RunMetrics) -> list[tuple[str, ...]]:
    """Per source: accuracy on the originals, ARS and each strategy's fail rate, for every checkpoint."""

    def cells(get) -> tuple[str, ...]:
        values = []
        for metrics in per_model.values():
            try:
                values.append(pct(get(metrics)))
            except KeyError:  # this checkpoint ran no such case (deselected)
                values.append("-")
        return (*values, pct(get(mean)))

    result = []
    for name, source in mean.sources.items():
        result.append((name, "original accuracy", *cells(lambda m, name=name: m.sources[name].original_accuracy)))
        result.append((name, "ARS", *cells(lambda m, name=name: m.sources[name].ars)))
        for strategy in source.strategies:
            result.append((name, f"{strategy} fail rate", *cells(
                lambda m, name=name, strategy=strategy: m.sources[name].strategies[strategy].fail_rate)))
    return result


def slice_rows(metrics: RunMetrics, gates: Sequence[GateResult] = ()) -> list[tuple[str, ...]]:
    """Per source and slice: units, accuracy, ARS, and the verdict of the gates set on that slice."""
    return [(name, key, str(found.units), pct(found.original_accuracy), with_ci(found.ars),
             _gate_cell([g for g in gates if g.source == name and g.slice == key]))
            for name, source in metrics.sources.items() for key, found in source.slices.items()]


SLICE_GATE_HEADER = ("source", "slice", "test", "gate", "threshold", "measured [95% CI]", "verdict")


def slice_gate_rows(gates: list[GateResult]) -> list[tuple[str, ...]]:
    return [(g.source, g.slice, g.test.split("::")[-1] if measured_on_cases(g.name) else "(originals)"
             if g.name == "min_accuracy" else "(all strategies)", g.name, f"{100 * g.threshold:.2f}",
             with_ci(g.rate) if g.rate is not None else "-",
             f"duplicate of {g.duplicate_of}" if g.duplicate_of else g.verdict) for g in gates if g.slice]


EXTRACTION_HEADER = ("source", "level", "sentences", "strict F1 [95% CI]", "expanded F1 [95% CI]",
                     "flexible F1 [95% CI]", "strict P / R", "gate")
NO_EXPANDED = "- (no expanded gold)"


def extraction_rows(results, gates: list[GateResult]) -> list[tuple[str, ...]]:
    """Extraction quality per source and level: strict (exact), expanded (exact against the expanded gold, when
    the test gives one) and flexible matching side by side."""
    several = len({r.model for r in results}) > 1
    found: list[tuple[str, ...]] = []
    for r in results:
        name = f"{r.source}@{r.model}" if several else r.source
        for level, modes in r.levels.items():
            mine = [g for g in gates if g.test == r.test and g.source == r.source and g.name.startswith(f"min_{level}_f1")
                    and (not several or g.checkpoint == r.model)]
            strict = modes["strict"]
            found.append((name, level, f"{r.sentences}" + (f" ({r.errors} errors)" if r.errors else ""),
                          with_ci(strict["f1"]),
                          with_ci(modes["expanded"]["f1"]) if "expanded" in modes else NO_EXPANDED,
                          with_ci(modes["flexible"]["f1"]),
                          f"{pct(strict['precision'])} / {pct(strict['recall'])}", _gate_cell(mine)))
    return found


def all_tables(metrics: RunMetrics, gates: list[GateResult],
               per_model: dict[str, RunMetrics] | None = None, extraction=(), coverage=None,
               validity=None) -> list[Table]:
    tables = [Table("", header(metrics), tuple(rows(metrics, gates, validity)))]
    covered = coverage_rows(coverage or {})
    if covered:
        tables.append(Table(COVERAGE_TITLE, COVERAGE_HEADER, tuple(covered)))
    if extraction:
        tables.append(Table("extraction: F1 in %, strict (exact) vs expanded gold vs flexible matching (docs/extraction.md)",
                            EXTRACTION_HEADER, tuple(extraction_rows(extraction, gates))))
    if per_model:
        tables.append(Table("each checkpoint (%)", ("source", "metric", *per_model, "mean±std"),
                            tuple(checkpoint_rows(per_model, metrics))))
    sliced = slice_rows(metrics, gates)
    if sliced:
        tables.append(Table("slices: multi-aspect, hard, opposite aspects, gold polarity", SLICE_HEADER,
                            tuple(sliced)))
    slice_gates = slice_gate_rows(gates)
    if slice_gates:
        tables.append(Table("gates on slices (%)", SLICE_GATE_HEADER, tuple(slice_gates)))
    return tables


MATRIX_TYPES = ("mft", "inv", "dir")
MATRIX_HEADER = ("capability", "mft", "inv", "dir", "gate")
MATRIX_TITLE = ("capability x test type: fail rate % [95% CI] and cases with a verdict "
                "(mft: labels known; inv: invariance; dir: directional)")
MATRIX_EACH_TITLE = "capability x test type on each checkpoint (capability@checkpoint; fail rate % [95% CI])"
MATRIX_EXAMPLES_HEADER = ("capability", "type", "case", "original -> variant", "target", "why it failed")
MATRIX_EXAMPLES_TITLE = "capability x test type: a few failing cases per cell (the JSON report lists every case)"
MATRIX_WORST_HEADER = ("capability", "type", "fail rate [95% CI]", "case", "sentence", "variant", "target",
                       "why it failed")
MATRIX_WORST_TITLE = ("capability x test type: what to fix first, the worst cells (highest low end of the 95% CI) "
                      "with a failing case each")


def matrix_cell(cell) -> str:
    """A cell: "12.50 [5.1, 20.3] n=40" (a mean across checkpoints as mean±std), "-" without a scored case."""
    if cell is None or not cell.n:
        return "-"
    return f"{with_ci(cell.fail_rate)} n={cell.n}"


def matrix_rows(matrix: dict, gates: Sequence[GateResult] = (), suffix: str = "") -> list[tuple[str, ...]]:
    """One row per capability (`suffix`: "@checkpoint"): each type's fail rate, and its cell gates' verdict; a
    gated capability no case has (misspelt, deselected) gets its row too, with its failed gate."""
    gated = sorted({g.cell.rsplit(" ", 1)[0] for g in gates if g.cell} - set(matrix)) if not suffix else []
    return [(capability + suffix, *(matrix_cell(matrix.get(capability, {}).get(kind)) for kind in MATRIX_TYPES),
             _gate_cell([g for g in gates if g.cell.rsplit(" ", 1)[0] == capability]) if not suffix else "")
            for capability in [*matrix, *gated]]


def matrix_tables(matrix: dict, per_model: dict, gates: Sequence[GateResult] = ()) -> list[Table]:
    """The matrix (the run's; with several checkpoints, the mean, and a table of each checkpoint's rows as
    capability@checkpoint), its worst cells with a failing case each (judge.matrix.worst) and its failing
    examples, each naming its target; none when no case ran and no cell is gated."""
    if not matrix and not any(g.cell for g in gates):
        return []
    rows = matrix_rows(matrix, gates)
    each = [row for model, mine in per_model.items() for row in matrix_rows(mine, suffix=f"@{model}")] \
        if len(per_model) > 1 else []
    def case(e: dict) -> str:
        return e["case"] + (f" @{e['model']}" if len(per_model) > 1 and "model" in e else "")

    examples = [(capability, kind, case(e),
                 f"{e['sentence']} -> {e['variant']}" if e["variant"] != e["sentence"] else e["sentence"],
                 e.get("term") or "-", e["reason"])
                for capability, kinds in matrix.items() for kind, cell in kinds.items() for e in cell.examples]
    worst = [(capability, kind, with_ci(cell.fail_rate), case(e), e["sentence"],
              e["variant"] if e["variant"] != e["sentence"] else "-", e.get("term") or "-", e["reason"])
             for capability, kind, cell in matrix_module.worst(matrix) for e in cell.examples[:1]]
    tables = [Table(MATRIX_TITLE, MATRIX_HEADER, tuple(rows))]
    if each:
        tables.append(Table(MATRIX_EACH_TITLE, MATRIX_HEADER[:-1], tuple(row[:-1] for row in each)))
    if worst:  # what to fix first, before the examples of every cell
        tables.append(Table(MATRIX_WORST_TITLE, MATRIX_WORST_HEADER, tuple(worst)))
    if examples:
        tables.append(Table(MATRIX_EXAMPLES_TITLE, MATRIX_EXAMPLES_HEADER, tuple(examples)))
    return tables


def without_column(table: Table, column: int) -> Table:
    return Table(table.title, table.header[:column] + table.header[column + 1:],
                 tuple(r[:column] + r[column + 1:] for r in table.rows))


def render_text(table: Table) -> list[str]:
    widths = [max(len(r[i]) for r in [table.header, *table.rows]) for i in range(len(table.header))]
    def line(r: tuple[str, ...]) -> str:
        return "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip()

    return [line(table.header), *(line(r) for r in table.rows)]


def render_markdown(table: Table) -> list[str]:
    return ["| " + " | ".join(table.header) + " |", "|" + "---|" * len(table.header),
            *("| " + " | ".join(cell.replace("|", "\\|") or " " for cell in r) + " |" for r in table.rows)]
