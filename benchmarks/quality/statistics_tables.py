"""The tables of docs/statistics.md, by simulation (seeded; numpy):

(a) coverage of the ARS interval (Clopper-Pearson) against the percentile bootstrap it replaced, at
    small n and true ARS near 0 and 1;
(b) the regression gate's false-fail rate (equal models) and detection rate (a 5-point ARS drop) on
    1,000 units, for the shipped rule and the alternatives considered.

    python benchmarks/quality/statistics_tables.py [--runs 20000]
"""

from __future__ import annotations

import argparse
import functools
import math
import sys
from pathlib import Path

import numpy

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from absa_checks.judge.stats import clopper_pearson, mcnemar_exact, mcnemar_worse, wilson  # noqa: E402


def bootstrap_bounds(k: int, n: int) -> tuple[float, float]:
    """The exact percentile bootstrap over units (what ARS used before): binomial quantiles at k/n."""
    def quantile(q: float) -> int:
        total = 0.0
        for x in range(n + 1):
            total += math.comb(n, x) * (k / n) ** x * (1 - k / n) ** (n - x)
            if total >= q - 1e-12:
                return x
        return n
    return quantile(0.025) / n, quantile(0.975) / n


def coverage(bounds, n: int, p: float, runs: int, rng) -> float:
    ks = rng.binomial(n, p, runs)
    table = {k: bounds(k, n) for k in set(ks.tolist())}
    return float(numpy.mean([table[k][0] <= p <= table[k][1] for k in ks.tolist()]))


def coverage_table(runs: int) -> list[str]:
    rng = numpy.random.default_rng(2026)
    exact = lambda k, n: (clopper_pearson(k, n).low, clopper_pearson(k, n).high)  # noqa: E731
    lines = ["| n | true ARS | Clopper-Pearson | bootstrap (before) |", "|---|---|---|---|"]
    for n in (5, 10, 20, 50):
        for p in (0.02, 0.1, 0.5, 0.9, 0.97):
            lines.append(f"| {n} | {p:.2f} | {coverage(exact, n, p, runs, rng):.1%} | "
                         f"{coverage(bootstrap_bounds, n, p, runs, rng):.1%} |")
    return lines


@functools.cache
def midp_worse(b: int, f: int) -> float:
    n = b + f
    return 1.0 if n == 0 else (sum(math.comb(n, i) for i in range(b + 1, n + 1)) + math.comb(n, b) / 2) / 2 ** n


RULES = {
    "shipped: one-sided exact, alpha 0.01": lambda b, f, n: (b - f) / n >= 0.02 and mcnemar_worse(b, f) < 0.01,
    "before: two-sided exact, alpha 0.05": lambda b, f, n: (b - f) / n >= 0.02 and mcnemar_exact(b, f) < 0.05,
    "one-sided exact, alpha 0.05": lambda b, f, n: (b - f) / n >= 0.02 and mcnemar_worse(b, f) < 0.05,
    "one-sided exact, alpha 0.0125": lambda b, f, n: (b - f) / n >= 0.02 and mcnemar_worse(b, f) < 0.0125,
    "one-sided mid-p, alpha 0.01": lambda b, f, n: (b - f) / n >= 0.02 and midp_worse(b, f) < 0.01,
}
REGIMES = {"equal, low churn 5/5": (0.05, 0.05), "equal 30/30": (0.3, 0.3),
           "equal, independent 50/50": (0.5, 0.5), "equal 70/70": (0.7, 0.7),
           "5-pt drop, low churn 10/0": (0.1, 0.0), "5-pt drop 30/20": (0.3, 0.2), "5-pt drop 55/45": (0.55, 0.45)}


def gate_table(runs: int, n: int = 1000, base: float = 0.5) -> list[str]:
    lines = ["| rule | " + " | ".join(REGIMES) + " |", "|---" * (len(REGIMES) + 1) + "|"]
    for name, rule in RULES.items():
        decide = functools.lru_cache(maxsize=None)(lambda b, f, rule=rule: rule(b, f, n))
        cells = []
        for broken, fixed in REGIMES.values():
            rng = numpy.random.default_rng(round(broken * 100) * 1000 + round(fixed * 100))
            counts = rng.multinomial(n, [base * broken, (1 - base) * fixed, 1 - base * broken - (1 - base) * fixed],
                                     runs)
            rate = wilson(sum(decide(int(b), int(f)) for b, f, _ in counts), runs)
            cells.append(f"{rate.value:.1%} [{rate.low:.1%}, {rate.high:.1%}]")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20000)
    args = parser.parse_args()
    print(f"(a) coverage of the 95% ARS interval, {args.runs} simulated runs each\n")
    print("\n".join(coverage_table(args.runs)))
    print(f"\n(b) the regression gate on 1,000 units, baseline ARS 50%, {args.runs} simulated comparisons each\n")
    print("\n".join(gate_table(args.runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
