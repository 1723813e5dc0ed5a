"""Interval maths for rates, kept tiny and exact so the numbers can be checked by hand."""

from __future__ import annotations

import math
from dataclasses import dataclass

Z95 = 1.959963984540054  # the 97.5% quantile of the standard normal


@dataclass(frozen=True)
class Rate:
    """k of n, as a fraction, with a 95% interval and the method that produced it."""

    k: int
    n: int
    low: float
    high: float
    method: str

    @property
    def value(self) -> float:
        return self.k / self.n if self.n else float("nan")

    def to_dict(self) -> dict[str, object]:
        return {"value": self.value if self.n else None, "k": self.k, "n": self.n,
                "ci95": [self.low, self.high] if self.n else None, "ci_method": self.method}


def wilson(k: int, n: int, z: float = Z95) -> Rate:
    """Wilson score interval for a binomial proportion (good at small n and near 0 or 1)."""
    if n == 0:
        return Rate(0, 0, float("nan"), float("nan"), "wilson")
    p = k / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return Rate(k, n, max(0.0, centre - half), min(1.0, centre + half), "wilson")


def bootstrap_units(k: int, n: int, level: float = 0.95) -> Rate:
    """Percentile bootstrap over units for a rate such as ARS, computed exactly.

    Resampling n units with replacement, each correct with probability k/n, gives a count of
    correct units distributed Binomial(n, k/n). So the bootstrap percentiles are that binomial's
    quantiles: what infinitely many random resamples would converge to, with no seed and no
    Monte Carlo noise.
    """
    if n == 0:
        return Rate(0, 0, float("nan"), float("nan"), "bootstrap-exact")
    tail = (1 - level) / 2
    return Rate(k, n, _binomial_quantile(n, k / n, tail) / n, _binomial_quantile(n, k / n, 1 - tail) / n,
                "bootstrap-exact")


def _binomial_quantile(n: int, p: float, q: float) -> int:
    """The smallest x with P(X <= x) >= q for X ~ Binomial(n, p)."""
    if p <= 0:
        return 0
    if p >= 1:
        return n
    log_p, log_q = math.log(p), math.log1p(-p)
    cumulative = 0.0
    for x in range(n + 1):
        log_pmf = math.lgamma(n + 1) - math.lgamma(x + 1) - math.lgamma(n - x + 1) + x * log_p + (n - x) * log_q
        cumulative += math.exp(log_pmf)
        if cumulative >= q - 1e-12:
            return x
    return n


def mcnemar_exact(broken: int, fixed: int) -> float:
    """Two-sided exact McNemar p-value for paired binary outcomes.

    Only discordant pairs count: `broken` (right before, wrong now) and `fixed` (wrong before, right
    now). Under no change each discordant pair is a fair coin, so the p-value is the two-sided
    binomial tail of min(broken, fixed) out of broken + fixed at p = 1/2 (capped at 1).
    """
    n = broken + fixed
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(broken, fixed) + 1)) / 2 ** n
    return min(1.0, 2 * tail)
