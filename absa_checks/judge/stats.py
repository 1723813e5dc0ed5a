"""Interval maths for rates, kept tiny so the numbers can be checked by hand.

The exact tests and intervals are scipy's (imported inside the functions: a run that decides nothing
does not pay for loading scipy.stats); the closed forms (Wilson, the mean across checkpoints) and the
t table stay here. The hand-written versions they replaced are the tests' cross-checks
(tests/reference_stats.py, tests/test_stats_scipy.py); docs/architecture.md, "Statistics on scipy".
"""

from __future__ import annotations

import math
import statistics
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


def clopper_pearson(k: int, n: int, level: float = 0.95) -> Rate:
    """The exact (Clopper-Pearson) interval for k of n: its coverage is at least `level` for every true
    rate and every n, also when none or all of the units are right (where a bootstrap collapses to
    [0, 0] or [1, 1], and a gate on ten units could "fail with certainty"). Used for ARS.

    The bounds are Beta quantiles (scipy.stats.beta.ppf): low = Beta(k, n - k + 1) at (1 - level) / 2,
    high = Beta(k + 1, n - k) at (1 + level) / 2; low is 0 when k = 0 and high is 1 when k = n.
    """
    if n == 0:
        return Rate(0, 0, float("nan"), float("nan"), "clopper-pearson")
    from scipy.stats import beta  # here, not at import: a run that decides nothing does not load scipy
    tail = (1 - level) / 2
    low = 0.0 if k == 0 else float(beta.ppf(tail, k, n - k + 1))
    high = 1.0 if k == n else float(beta.ppf(1 - tail, k + 1, n - k))
    return Rate(k, n, low, high, "clopper-pearson")


def mcnemar_exact(broken: int, fixed: int) -> float:
    """Two-sided exact McNemar p-value for paired binary outcomes.

    Only discordant pairs count: `broken` (right before, wrong now) and `fixed` (wrong before, right
    now). Under no change each discordant pair is a fair coin, so the p-value is the exact binomial
    test of min(broken, fixed) out of broken + fixed at p = 1/2 (scipy.stats.binomtest). At p = 1/2 the
    distribution is symmetric, so scipy's two-sided rule (every outcome no likelier than the one seen)
    is twice the lower tail, capped at 1: the conventional exact McNemar p-value.
    """
    n = broken + fixed
    if n == 0:
        return 1.0
    from scipy.stats import binomtest
    return float(binomtest(min(broken, fixed), n, 0.5).pvalue)


def mcnemar_worse(broken: int, fixed: int) -> float:
    """One-sided exact McNemar p-value for "worse now": P(at least `broken` of the broken + fixed
    discordant pairs are broken) when each is a fair coin. The regression gate asks only this side."""
    n = broken + fixed
    if n == 0:
        return 1.0
    from scipy.stats import binomtest
    return float(binomtest(broken, n, 0.5, alternative="greater").pvalue)


# t quantiles at 97.5% for 1..30 degrees of freedom (to 6 decimals); beyond 30 the Cornish-Fisher
# expansion below agrees with the exact quantile to better than 1e-7. Kept rather than scipy.stats.t.ppf:
# the reports' intervals across checkpoints are defined on these values (up to 5e-7 from the exact
# quantile); tests/test_stats_scipy.py checks them against scipy.
_T975 = (12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
         2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
         2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272)


def t975(df: int) -> float:
    """The 97.5% quantile of Student's t with `df` degrees of freedom."""
    if df < 1:
        raise ValueError("t975 needs at least one degree of freedom")
    if df <= len(_T975):
        return _T975[df - 1]
    z, v = Z95, float(df)
    return (z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v ** 2)
            + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * v ** 3)
            + (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / (92160 * v ** 4))


@dataclass(frozen=True)
class Spread:
    """One rate over several checkpoints (seeds): each checkpoint's value, their mean and sample std
    (n - 1), and a 95% interval for the mean. Quacks like a Rate (value, n, low, high), so gates,
    tables and pictures take either."""

    per_checkpoint: tuple[tuple[str, float], ...]
    n: int          # items (cases or units) per checkpoint: the largest count among them
    mean: float
    std: float
    low: float
    high: float
    method: str = "checkpoints"
    k = None        # a mean of rates has no single count

    @property
    def value(self) -> float:
        return self.mean

    def to_dict(self) -> dict[str, object]:
        return {"value": self.mean if self.n else None, "k": None, "n": self.n,
                "ci95": [self.low, self.high] if self.n else None, "ci_method": self.method,
                "std": self.std if self.n else None, "per_checkpoint": dict(self.per_checkpoint)}


def spread(named: list[tuple[str, Rate]]) -> Spread:
    """Mean and sample std of the checkpoints' rates, with a 95% interval for the mean.

    The interval widens the checkpoints' average interval (test-set noise; each checkpoint's own
    Wilson or bootstrap bounds) by the spread between checkpoints (seed noise, a t interval with
    m - 1 degrees of freedom), added in quadrature on each side. Averaging the bounds treats the
    checkpoints as fully correlated over the shared test items, which errs wide, never narrow.
    With identical checkpoints it is exactly their own interval.
    """
    scored = [(name, rate) for name, rate in named if rate.n]
    if not scored:
        nan = float("nan")
        return Spread(tuple((name, nan) for name, _ in named), 0, nan, nan, nan, nan)
    m = len(scored)
    values = [rate.value for _, rate in scored]
    mean = math.fsum(values) / m
    std = statistics.stdev(values) if m > 1 else 0.0  # exact arithmetic: identical values give 0.0
    between = t975(m - 1) * std / math.sqrt(m) if m > 1 else 0.0
    below = mean - math.fsum(rate.low for _, rate in scored) / m
    above = math.fsum(rate.high for _, rate in scored) / m - mean
    return Spread(tuple((name, rate.value) for name, rate in scored), max(rate.n for _, rate in scored), mean, std,
                  max(0.0, mean - math.hypot(below, between)), min(1.0, mean + math.hypot(above, between)))


@dataclass(frozen=True)
class Difference:
    """p1 - p2 of two independent proportions (k1 of n1, k2 of n2) with Newcombe's hybrid score interval
    (his method 10, 1998): each side built from the two Wilson intervals. `significant` when the 95%
    interval excludes 0. Undefined (nan, not significant) when either group is empty."""

    value: float
    low: float
    high: float
    method: str = "newcombe-wilson"

    @property
    def defined(self) -> bool:
        return not math.isnan(self.value)

    @property
    def significant(self) -> bool:
        return self.defined and (self.low > 0 or self.high < 0)

    def to_dict(self) -> dict[str, object]:
        return {"value": self.value if self.defined else None,
                "ci95": [self.low, self.high] if self.defined else None, "ci_method": self.method,
                "significant": self.significant}


def newcombe_difference(k1: int, n1: int, k2: int, n2: int, z: float = Z95) -> Difference:
    """The difference p1 - p2 with Newcombe's hybrid score interval: with (l1, u1), (l2, u2) the Wilson
    intervals, low = d - sqrt((p1 - l1)^2 + (u2 - p2)^2), high = d + sqrt((u1 - p1)^2 + (p2 - l2)^2)."""
    if not n1 or not n2:
        nan = float("nan")
        return Difference(nan, nan, nan)
    first, second = wilson(k1, n1, z), wilson(k2, n2, z)
    p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    return Difference(d, max(-1.0, d - math.hypot(p1 - first.low, second.high - p2)),
                      min(1.0, d + math.hypot(first.high - p1, p2 - second.low)))
