"""Tests for absa_checks/judge/stats.py: Wilson intervals and the exact (Clopper-Pearson) interval for ARS.

Expected numbers are worked out by hand in the comments (z = 1.959964, z^2 = 3.841459).
"""

from __future__ import annotations

import math
import random

import pytest

from absa_checks.judge.stats import Rate, clopper_pearson, wilson
from benchmarks.quality.statistics_tables import bootstrap_bounds  # what ARS used before

Z2 = 3.841459  # z^2 for z = 1.959964


# --- Wilson -------------------------------------------------------------------------------------

def test_wilson_8_of_10():
    # p = .8, z^2/n = .384146, denom = 1.384146
    # centre = (.8 + .192073) / 1.384146 = .716740
    # half = (1.959964 / 1.384146) * sqrt(.8*.2/10 + 3.841459/400)
    #      = 1.416009 * sqrt(.016 + .0096036) = 1.416009 * .160011 = .226577
    # -> [.490163, .943317]
    rate = wilson(8, 10)
    assert (rate.k, rate.n, rate.method) == (8, 10, "wilson")
    assert rate.value == pytest.approx(0.8)
    assert rate.low == pytest.approx(0.4902, abs=1e-4)
    assert rate.high == pytest.approx(0.9433, abs=1e-4)


def test_wilson_3_of_10():
    # p = .3: centre = (.3 + .192073) / 1.384146 = .355507
    # half = 1.416009 * sqrt(.021 + .0096036) = 1.416009 * .174939 = .247715
    # -> [.107792, .603222]
    rate = wilson(3, 10)
    assert rate.low == pytest.approx(0.1078, abs=1e-4)
    assert rate.high == pytest.approx(0.6032, abs=1e-4)


def test_wilson_0_of_10():
    # p = 0: centre = half = .192073 / 1.384146 = .138767, so low = 0;
    # high = 2 * .138767 = z^2 / (n + z^2) = 3.841459 / 13.841459 = .277533
    rate = wilson(0, 10)
    assert rate.value == 0.0
    assert rate.low == pytest.approx(0.0, abs=1e-12)
    assert rate.low >= 0.0
    assert rate.high == pytest.approx(0.2775, abs=1e-4)
    assert rate.high == pytest.approx(Z2 / (10 + Z2), abs=1e-6)


def test_wilson_10_of_10():
    # mirror image of 0/10: low = n / (n + z^2) = 10 / 13.841459 = .722467, high = 1
    rate = wilson(10, 10)
    assert rate.value == 1.0
    assert rate.low == pytest.approx(0.7225, abs=1e-4)
    assert rate.low == pytest.approx(10 / (10 + Z2), abs=1e-6)
    assert rate.high == pytest.approx(1.0, abs=1e-12)
    assert rate.high <= 1.0


def test_wilson_1_of_1():
    # low = 1 / (1 + 3.841459) = .206549, high = 1
    rate = wilson(1, 1)
    assert rate.low == pytest.approx(0.2065, abs=1e-4)
    assert rate.high == pytest.approx(1.0, abs=1e-12)


def test_wilson_0_of_1():
    # high = 3.841459 / 4.841459 = .793451
    rate = wilson(0, 1)
    assert rate.low == pytest.approx(0.0, abs=1e-12)
    assert rate.high == pytest.approx(0.7935, abs=1e-4)


def test_wilson_is_symmetric():
    # the interval of k/n mirrors the interval of (n-k)/n around 1/2
    for k, n in [(1, 7), (3, 10), (12, 40)]:
        a, b = wilson(k, n), wilson(n - k, n)
        assert a.low == pytest.approx(1 - b.high, abs=1e-12)
        assert a.high == pytest.approx(1 - b.low, abs=1e-12)


def test_wilson_n_0_is_nan():
    rate = wilson(0, 0)
    assert (rate.k, rate.n) == (0, 0)
    assert math.isnan(rate.value)
    assert math.isnan(rate.low) and math.isnan(rate.high)
    assert rate.to_dict() == {"value": None, "k": 0, "n": 0, "ci95": None, "ci_method": "wilson"}


# --- Rate.to_dict -------------------------------------------------------------------------------

def test_rate_to_dict_shape():
    rate = Rate(3, 4, 0.25, 0.95, "wilson")
    assert rate.to_dict() == {"value": 0.75, "k": 3, "n": 4, "ci95": [0.25, 0.95], "ci_method": "wilson"}


def test_rate_to_dict_from_wilson():
    data = wilson(8, 10).to_dict()
    assert set(data) == {"value", "k", "n", "ci95", "ci_method"}
    assert data["value"] == pytest.approx(0.8)
    assert (data["k"], data["n"], data["ci_method"]) == (8, 10, "wilson")
    low, high = data["ci95"]
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)


# --- Clopper-Pearson (exact) interval, used for ARS ---------------------------------------------

@pytest.mark.parametrize("n", [1, 7, 10, 60])
def test_clopper_pearson_at_the_extremes_has_width(n):
    # k = 0: [0, 1 - .025^(1/n)]; k = n: [.025^(1/n), 1] (closed forms of the Beta quantiles)
    none = clopper_pearson(0, n)
    assert (none.low, none.value) == (0.0, 0.0)
    assert none.high == pytest.approx(1 - 0.025 ** (1 / n), abs=1e-12)
    every = clopper_pearson(n, n)
    assert (every.high, every.value) == (1.0, 1.0)
    assert every.low == pytest.approx(0.025 ** (1 / n), abs=1e-12)


def _binomial_tail_bound(k: int, n: int, upper: bool) -> float:
    """An independent computation: bisect p until the exact binomial tail (math.comb) is 2.5%."""
    def tail(p: float) -> float:
        span = range(0, k + 1) if upper else range(k, n + 1)
        return math.fsum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in span)
    lo, hi = 0.0, 1.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if (tail(mid) > 0.025) == upper:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@pytest.mark.parametrize("k, n", [(1, 2), (2, 4), (5, 10), (3, 17), (60, 100), (299, 300), (371, 1000)])
def test_clopper_pearson_matches_binomial_tails(k, n):
    rate = clopper_pearson(k, n)
    assert (rate.k, rate.n, rate.method) == (k, n, "clopper-pearson")
    assert rate.low == pytest.approx(_binomial_tail_bound(k, n, upper=False), abs=1e-9)
    assert rate.high == pytest.approx(_binomial_tail_bound(k, n, upper=True), abs=1e-9)
    mirror = clopper_pearson(n - k, n)
    assert rate.low == pytest.approx(1 - mirror.high, abs=1e-12)


def test_clopper_pearson_published_values():
    # R: binom.test(5, 10)$conf.int = 0.1870860 0.8129140; binom.test(2, 4) = 0.06758599 0.93241401
    assert clopper_pearson(5, 10).low == pytest.approx(0.1870860, abs=1e-7)
    assert clopper_pearson(5, 10).high == pytest.approx(0.8129140, abs=1e-7)
    assert clopper_pearson(2, 4).low == pytest.approx(0.06758599, abs=1e-8)


def test_clopper_pearson_n_0():
    rate = clopper_pearson(0, 0)
    assert math.isnan(rate.value) and math.isnan(rate.low) and math.isnan(rate.high)
    assert rate.to_dict() == {"value": None, "k": 0, "n": 0, "ci95": None, "ci_method": "clopper-pearson"}


def _coverage(interval, n: int, p: float, draws: int, rng: random.Random) -> float:
    hits = 0
    for _ in range(draws):
        k = sum(rng.random() < p for _ in range(n))
        low, high = interval(k, n)
        hits += low <= p <= high
    return hits / draws


@pytest.mark.parametrize("n", [5, 10, 20])
@pytest.mark.parametrize("p", [0.02, 0.1, 0.5, 0.9, 0.97])
def test_clopper_pearson_keeps_its_coverage_at_small_n(n, p):
    # 2,000 simulated runs of n units with a true ARS p (seeded): the 95% interval must contain p in at
    # least 95% of them, less three standard errors of the simulation (.0049 at 2,000 draws).
    def exact(k, n):
        rate = clopper_pearson(k, n)
        return rate.low, rate.high
    coverage = _coverage(exact, n, p, 2000, random.Random(n * 1000 + round(p * 100)))
    assert coverage >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / 2000)


def test_the_coverage_check_catches_a_zero_width_interval():
    # the same check on the percentile bootstrap: at n = 10 and ARS .97, three runs in four get all
    # ten units right, and the bootstrap's [1, 1] then misses the true .97
    coverage = _coverage(bootstrap_bounds, 10, 0.97, 2000, random.Random(7))
    assert coverage < 0.5

