"""The summary table (source x strategy), built once and rendered as text or Markdown."""

from __future__ import annotations

from .gates import GateResult
from .metrics import RunMetrics
from .stats import Rate

HEADER = ("source", "strategy", "n", "accuracy ori -> new", "fail rate [95% CI]", "ARS [95% CI]", "gate")


def pct(rate: Rate) -> str:
    return f"{100 * rate.value:.2f}" if rate.n else "-"


def with_ci(rate: Rate) -> str:
    return f"{pct(rate)} [{100 * rate.low:.1f}, {100 * rate.high:.1f}]" if rate.n else "-"


def _gate_cell(gates: list[GateResult]) -> str:
    decided = [g for g in gates if g.verdict != "no-data"]
    if not decided:
        return "-"
    failed = sum(g.verdict == "fail" for g in decided)
    undecided = sum(g.verdict == "inconclusive" for g in decided)
    if failed:
        return f"FAIL ({failed}/{len(decided)})"
    return f"inconclusive ({undecided}/{len(decided)})" if undecided else "pass"


def rows(metrics: RunMetrics, gates: list[GateResult]) -> list[tuple[str, ...]]:
    test_strategy = {t.test: t.strategy for t in metrics.tests}
    result = []
    for name, source in metrics.sources.items():
        for strategy, s in source.strategies.items():
            mine = [g for g in gates if g.source == name and g.name != "min_ars"
                    and test_strategy.get(g.test) == strategy]
            result.append((name, strategy, str(s.n), f"{pct(s.original_accuracy)} -> {pct(s.variant_accuracy)}",
                           with_ci(s.fail_rate), "", _gate_cell(mine)))
        ars_gates = [g for g in gates if g.source == name and g.name == "min_ars"]
        result.append((name, "all (units)", str(source.units), f"{pct(source.original_accuracy)} (originals)", "",
                       with_ci(source.ars), _gate_cell(ars_gates)))
    return result


def render_text(table: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in [HEADER, *table]) for i in range(len(HEADER))]
    line = lambda r: "  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip()
    return [line(HEADER), *(line(r) for r in table)]


def render_markdown(table: list[tuple[str, ...]]) -> list[str]:
    return ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER),
            *("| " + " | ".join(cell or " " for cell in r) + " |" for r in table)]
