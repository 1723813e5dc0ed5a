"""Interval maths for rates, kept tiny so the numbers can be checked by hand.

Plain Python, no library: a run pays no import for its statistics (scipy.stats alone cost 0.7-0.9 s of
every run's start-up; docs/architecture.md, "Statistics without scipy"). The exact interval inverts the
regularised incomplete beta (its continued fraction) by safeguarded Newton steps; the exact McNemar
p-values are binomial tails at p = 1/2 in integer arithmetic, so they are exact to the last bit. The
tests hold them to scipy.stats on a grid (tests/judge/test_stats_exact.py) and to the hand-written versions
of issue 26 (tests/reference_stats.py, tests/judge/test_stats_scipy.py).
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

    The bounds are Beta quantiles: low = Beta(k, n - k + 1) at (1 - level) / 2, high = Beta(k + 1, n - k)
    at (1 + level) / 2; low is 0 when k = 0 and high is 1 when k = n.
    """
    if n == 0:
        return Rate(0, 0, float("nan"), float("nan"), "clopper-pearson")
    tail = (1 - level) / 2
    low = 0.0 if k == 0 else beta_quantile(tail, k, n - k + 1)
    high = 1.0 if k == n else beta_quantile(1 - tail, k + 1, n - k)
    return Rate(k, n, low, high, "clopper-pearson")


def beta_quantile(q: float, a: int, b: int) -> float:
    """x with I_x(a, b) = q (0 < q < 1; a, b positive integers). With a or b equal to 1 the incomplete beta
    is a power and the quantile has a closed form; otherwise Newton steps on the incomplete beta, whose
    slope is the Beta density, kept inside a shrinking bracket (a step that leaves it halves the bracket
    instead), until a step moves x by no more than a few units in its last place."""
    if a == 1:  # I_x(1, b) = 1 - (1 - x)^b
        return -math.expm1(math.log1p(-q) / b)
    if b == 1:  # I_x(a, 1) = x^a
        return math.exp(math.log(q) / a)
    lo, hi = 0.0, 1.0
    x = _first_guess(q, a, b)
    for _ in range(400):
        f = _excess(a, b, x, q)
        if f == 0.0:
            return x
        if f < 0:
            lo = x
        else:
            hi = x
        density = binomial_pmf(a - 1, a + b - 2, x, 1.0 - x) * (a + b - 1)  # the Beta(a, b) density at x
        guess = x - f / density if density > 0 else math.nan
        if lo <= guess <= hi and abs(guess - x) <= 2 * math.ulp(x):
            return guess  # a step of at most two units in the last place: converged
        if not lo < guess < hi:  # (also nan) halve the bracket instead
            guess = (lo + hi) / 2
            if hi - lo <= 2 * math.ulp(x):
                return guess
        x = guess
    return x


def _first_guess(q: float, a: int, b: int) -> float:
    """A start for Newton: the normal approximation carried to the Beta (Abramowitz & Stegun 26.5.22,
    26.2.23 for the normal quantile), inside (0, 1)."""
    t = math.sqrt(-2.0 * math.log(min(q, 1.0 - q)))
    z = t - (2.30753 + 0.27061 * t) / (1.0 + t * (0.99229 + 0.04481 * t))
    z = z if q < 0.5 else -z  # the upper quantile of the normal for the lower one of the Beta
    lam = (z * z - 3.0) / 6.0
    h = 2.0 / (1.0 / (2 * a - 1) + 1.0 / (2 * b - 1))
    w = z * math.sqrt(h + lam) / h - (1.0 / (2 * b - 1) - 1.0 / (2 * a - 1)) * (lam + 5.0 / 6.0 - 2.0 / (3.0 * h))
    x = a / (a + b * math.exp(2.0 * w))
    return x if 0.0 < x < 1.0 else a / (a + b)


def _excess(a: int, b: int, x: float, q: float) -> float:
    """I_x(a, b) - q for 0 < x < 1, I the regularised incomplete beta (= P(Bin(a + b - 1, x) >= a) for
    integers), from the tail that is small where I = q: with a number near 1 in between, its rounding
    would swamp the difference (1 - q is exact for q >= 1/2)."""
    y = 1.0 - x
    if a <= b and a <= _SUMMED and q >= 0.5:  # 1 - I = P(Bin(a + b - 1, x) <= a - 1): a terms
        return (1.0 - q) - _lower_tail(a - 1, a + b - 1, x, y)
    if b < a and b <= _SUMMED and q < 0.5:  # I = P(Bin(a + b - 1, 1 - x) <= b - 1): b terms
        return _lower_tail(b - 1, a + b - 1, y, x) - q
    if x > (a + 1) / (a + b + 2):  # the continued fraction converges fast on this side of the symmetry
        return (1.0 - q) - _beta_fraction(b, a, y, x)
    return _beta_fraction(a, b, x, y) - q


# Below this many terms the tail with few terms is summed: the continued fraction cancels where a >> b
_SUMMED = 64


def _lower_tail(m: int, n: int, p: float, q: float) -> float:
    """P(Bin(n, p) <= m), q = 1 - p: the term at m, then each one below from the one above it."""
    term = binomial_pmf(m, n, p, q)
    terms = [term]
    ratio = q / p
    for j in range(m, 0, -1):
        term *= j / (n - j + 1) * ratio
        terms.append(term)
    return math.fsum(terms)


def _beta_fraction(a: int, b: int, x: float, y: float) -> float:
    """I_x(a, b) with y = 1 - x given exactly (1.0 - x would lose x's last digits when x is tiny): the
    front factor C(a + b - 1, a) x^a y^b times the continued fraction (modified Lentz)."""
    front = binomial_pmf(a, a + b - 1, x, y) * y
    tiny = 1e-300
    # 1 - (a + b) x / (a + 1), written so that the rounded product is the smaller one
    first = ((a + 1) - (a + b) * x) / (a + 1) if a <= b else ((1 - b) + (a + b) * y) / (a + 1)
    c, d = 1.0, first
    d = 1.0 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 100_000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            fraction *= c * d
        if abs(c * d - 1.0) < 1e-16:
            break
    return front * fraction


def binomial_pmf(k: int, n: int, p: float, q: float) -> float:
    """P(X = k) for X ~ Bin(n, p), q = 1 - p, to about 1e-15 relative also when n is large: Loader's
    saddle-point form (Loader 2000, "Fast and accurate computation of binomial probabilities"; R's dbinom),
    which never subtracts the large logarithms of C(n, k) and p^k q^(n - k) from each other."""
    if n == 0:
        return 1.0
    if k == 0:
        return math.exp(-_deviance(n, n * q) - n * p if p < 0.1 else n * math.log(q))
    if k == n:
        return math.exp(-_deviance(n, n * p) - n * q if q < 0.1 else n * math.log(p))
    log_c = (_stirling_error(n) - _stirling_error(k) - _stirling_error(n - k)
             - _deviance(k, n * p) - _deviance(n - k, n * q))
    return math.exp(log_c) * math.sqrt(n / (2 * math.pi * k * (n - k)))


# log(n!) - log(sqrt(2 pi n) (n / e)^n) for n = 0..15, to double precision (from 50-digit decimals)
_STIRLING_ERROR = (0.0, 0.08106146679532726, 0.0413406959554093, 0.02767792568499834, 0.020790672103765093,
                   0.016644691189821193, 0.013876128823070748, 0.01189670994589177, 0.010411265261972096,
                   0.009255462182712733, 0.00833056343336287, 0.007573675487951841, 0.00694284010720953,
                   0.006408994188004207, 0.0059513701127588475, 0.005554733551962801)


def _stirling_error(n: int) -> float:
    """log(n!) - log(sqrt(2 pi n) (n / e)^n): the table, then its asymptotic series."""
    if n < len(_STIRLING_ERROR):
        return _STIRLING_ERROR[n]
    nn = float(n) * n
    s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
    if n > 500:
        return (s0 - s1 / nn) / n
    if n > 80:
        return (s0 - (s1 - s2 / nn) / nn) / n
    if n > 35:
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


def _deviance(x: float, mean: float) -> float:
    """x log(x / mean) + mean - x, by its series when x is near the mean (where the closed form cancels)."""
    if abs(x - mean) < 0.1 * (x + mean):
        v = (x - mean) / (x + mean)
        total = (x - mean) * v
        power = 2 * x * v
        v *= v
        for j in range(1, 1000):
            power *= v
            following = total + power / (2 * j + 1)
            if following == total:
                return following
            total = following
        return total
    return x * math.log(x / mean) + mean - x


def fair_coin_tail(n: int, m: int) -> float:
    """P(X <= m) for X ~ Bin(n, 1/2), exactly: the sum of C(n, i) for i <= m over 2^n in integers, one
    correctly rounded division. The shorter side is summed (C(n, i) = C(n, n - i))."""
    if m < 0:
        return 0.0
    if m >= n:
        return 1.0
    if 2 * m >= n:
        return (2 ** n - _binomial_sum(n, n - m - 1)) / 2 ** n
    return _binomial_sum(n, m) / 2 ** n


def _binomial_sum(n: int, m: int) -> int:
    """C(n, 0) + ... + C(n, m), each term from the one before."""
    term = total = 1
    for i in range(m):
        term = term * (n - i) // (i + 1)
        total += term
    return total


def mcnemar_exact(broken: int, fixed: int) -> float:
    """Two-sided exact McNemar p-value for paired binary outcomes.

    Only discordant pairs count: `broken` (right before, wrong now) and `fixed` (wrong before, right
    now). Under no change each discordant pair is a fair coin, so the p-value is the exact binomial
    test of min(broken, fixed) out of broken + fixed at p = 1/2: twice the smaller tail, capped at 1
    (the distribution is symmetric, so this is also "every outcome no likelier than the one seen").
    """
    n = broken + fixed
    if n == 0:
        return 1.0
    return min(1.0, 2 * fair_coin_tail(n, min(broken, fixed)))


def mcnemar_worse(broken: int, fixed: int) -> float:
    """One-sided exact McNemar p-value for "worse now": P(at least `broken` of the broken + fixed
    discordant pairs are broken) when each is a fair coin, which is P(at most `fixed` are fixed).
    The regression gate asks only this side."""
    n = broken + fixed
    if n == 0:
        return 1.0
    return fair_coin_tail(n, fixed)


# t quantiles at 97.5% for 1..30 degrees of freedom (to 6 decimals); beyond 30 the Cornish-Fisher
# expansion below agrees with the exact quantile to better than 1e-7. The reports' intervals across
# checkpoints are defined on these values (up to 5e-7 from the exact quantile); tests/judge/test_stats_scipy.py
# checks them against scipy.stats.t.ppf.
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
