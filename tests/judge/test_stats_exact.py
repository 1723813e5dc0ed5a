"""The exact statistics in absa_checks/judge/stats.py (plain Python since issue 37): each bound checked against
the exact root in rational arithmetic, and against scipy.stats (imported here, as the independent reference;
the package never imports it) on a grid of (k, n).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
import reference_stats as reference
from scipy import stats as scipy_stats

from absa_checks.judge.stats import beta_quantile, binomial_pmf, clopper_pearson, mcnemar_exact, mcnemar_worse

GRID = [(k, n) for n in range(1, 61) for k in range(n + 1)] + \
    [(k, n) for n in (99, 100, 299, 1000, 5000, 20_000)
     for k in sorted({0, 1, 2, 3, 7, n // 10, n // 3, n // 2, n - 7, n - 3, n - 2, n - 1, n})]


def _upper_tail(k: int, n: int, x: float) -> Fraction:
    """P(Bin(n, x) >= k) exactly, x taken as the exact binary fraction it is."""
    p = Fraction(x)
    return sum((math.comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(k, n + 1)), Fraction(0))


def _within_ulps_of_the_root(q: float, a: int, b: int, x: float, ulps: int) -> bool:
    """The exact root of I_x(a, b) = q lies within `ulps` units in the last place of x (I rises with x)."""
    below, above = x - ulps * math.ulp(x), x + ulps * math.ulp(x)
    target = Fraction(q)
    return _upper_tail(a, a + b - 1, max(below, 0.0)) <= target <= _upper_tail(a, a + b - 1, min(above, 1.0))


@pytest.mark.parametrize("n", [2, 3, 5, 10, 17, 40, 111])
def test_the_bounds_are_the_exact_roots_to_a_few_units_in_the_last_place(n):
    ks = range(n + 1) if n <= 40 else sorted({0, 1, 2, 5, n // 3, n // 2 + 1, n - 5, n - 2, n - 1, n})
    for level in (0.95, 0.999):
        tail = (1 - level) / 2
        for k in ks:
            rate = clopper_pearson(k, n, level)
            assert (rate.low == 0.0) == (k == 0) and (rate.high == 1.0) == (k == n), rate
            assert k == 0 or _within_ulps_of_the_root(tail, k, n - k + 1, rate.low, 4), (k, n, level, rate)
            assert k == n or _within_ulps_of_the_root(1 - tail, k + 1, n - k, rate.high, 4), (k, n, level, rate)


def test_the_exact_check_tells_a_bound_a_little_off():
    # the check above can fail: scipy's beta.ppf is 80 units in the last place off this root
    rate = clopper_pearson(45, 111)
    assert _within_ulps_of_the_root(0.975, 46, 66, rate.high, 4)
    assert not _within_ulps_of_the_root(0.975, 46, 66, rate.high + 20 * math.ulp(rate.high), 4)


def test_clopper_pearson_equals_scipy_on_the_grid():
    differ = []
    for k, n in GRID:
        rate = clopper_pearson(k, n)
        assert type(rate.low) is float and type(rate.high) is float
        low = 0.0 if k == 0 else float(scipy_stats.beta.ppf(0.025, k, n - k + 1))
        high = 1.0 if k == n else float(scipy_stats.beta.ppf(0.975, k + 1, n - k))
        for found, expected in ((rate.low, low), (rate.high, high)):
            if abs(found - expected) > 2e-14 or abs(found - expected) > 1e-12 * expected:
                differ.append((k, n, found, expected))
    assert not differ


@pytest.mark.parametrize("q, a, b", [(0.025, 3, 999_998), (0.975, 999_998, 3), (0.975, 2, 20_000),
                                     (0.0005, 2, 2), (0.9995, 4, 14), (0.025, 2500, 2501), (0.3, 7, 9)])
def test_beta_quantile_in_the_corners_equals_scipy(q, a, b):
    # a >> b, tiny and huge bounds, tails near 0 and 1: where a continued fraction alone loses digits
    # (scipy is itself a few thousand units in the last place off at b = 20,000, hence the relative 1e-9)
    assert beta_quantile(q, a, b) == pytest.approx(float(scipy_stats.beta.ppf(q, a, b)), rel=1e-9, abs=1e-15)


@pytest.mark.parametrize("k, n, p", [(0, 10, 0.3), (10, 10, 0.3), (3, 17, 0.2), (5000, 10_000, 0.5),
                                     (999_998, 1_000_000, 0.999_993), (40, 50, 0.01)])
def test_binomial_pmf_equals_scipy(k, n, p):
    assert binomial_pmf(k, n, p, 1 - p) == pytest.approx(float(scipy_stats.binom.pmf(k, n, p)), rel=1e-13)


PAIRS = [(b, n - b) for n in range(41) for b in range(n + 1)] + [(60, 10), (300, 250), (520, 480), (2000, 0), (1100, 900)]


def test_mcnemar_is_the_exact_binomial_tail_bit_for_bit():
    for broken, fixed in PAIRS:
        assert mcnemar_exact(broken, fixed) == reference.mcnemar_two_sided(broken, fixed), (broken, fixed)
        assert mcnemar_worse(broken, fixed) == reference.mcnemar_one_sided_worse(broken, fixed), (broken, fixed)


def test_mcnemar_equals_scipy_binomtest():
    for broken, fixed in PAIRS:
        if broken + fixed == 0:
            continue
        two = scipy_stats.binomtest(min(broken, fixed), broken + fixed, 0.5).pvalue
        one = scipy_stats.binomtest(broken, broken + fixed, 0.5, alternative="greater").pvalue
        assert mcnemar_exact(broken, fixed) == pytest.approx(two, rel=1e-12, abs=1e-300), (broken, fixed)
        assert mcnemar_worse(broken, fixed) == pytest.approx(one, rel=1e-12, abs=1e-300), (broken, fixed)
