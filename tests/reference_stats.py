"""The statistics absa-checks computed by hand until issue 26, kept as the cross-checks of the scipy-based
ones in absa_checks/judge/stats.py (tests/judge/test_stats_scipy.py). Plain Python, no library: each is written from
its definition, so a difference between the two points at one of them.

- clopper_pearson_bounds: the exact interval as Beta quantiles, the regularised incomplete beta by its
  continued fraction (modified Lentz) and the quantile by bisection to 1e-14;
- mcnemar_two_sided / mcnemar_one_sided_worse: exact binomial tails at p = 1/2 in integer arithmetic
  (math.comb; one correctly rounded division), so they are exact to the last bit.
"""

from __future__ import annotations

import math


def clopper_pearson_bounds(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """low = Beta(k, n - k + 1) at (1 - level) / 2 (0 when k = 0), high = Beta(k + 1, n - k) at (1 + level) / 2
    (1 when k = n); n > 0."""
    tail = (1 - level) / 2
    low = 0.0 if k == 0 else beta_quantile(tail, k, n - k + 1)
    high = 1.0 if k == n else beta_quantile(1 - tail, k + 1, n - k)
    return low, high


def beta_quantile(q: float, a: float, b: float) -> float:
    """x with I_x(a, b) = q, by bisection (the regularised incomplete beta rises with x)."""
    lo, hi = 0.0, 1.0
    while hi - lo > 1e-14:  # ~47 halvings
        mid = (lo + hi) / 2
        if betainc(a, b, mid) < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta I_x(a, b), by its continued fraction (modified Lentz)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x > (a + 1) / (a + b + 2):  # the fraction converges fast only below this point: use the symmetry
        return 1.0 - betainc(b, a, 1.0 - x)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 10_000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return math.exp(log_front) * fraction / a


def mcnemar_two_sided(broken: int, fixed: int) -> float:
    """min(1, 2 * P(X <= min(broken, fixed))), X ~ Bin(broken + fixed, 1/2); 1 with no discordant pair."""
    n = broken + fixed
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(broken, fixed) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def mcnemar_one_sided_worse(broken: int, fixed: int) -> float:
    """P(X >= broken), X ~ Bin(broken + fixed, 1/2); 1 with no discordant pair."""
    n = broken + fixed
    if n == 0:
        return 1.0
    return sum(math.comb(n, i) for i in range(broken, n + 1)) / 2 ** n
