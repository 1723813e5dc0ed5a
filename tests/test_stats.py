"""Tests for absa_checks/stats.py: Wilson intervals and the exact percentile bootstrap over units.

Expected numbers are worked out by hand in the comments (z = 1.959964, z^2 = 3.841459).
"""

from __future__ import annotations

import math
import random

import pytest

from absa_checks.stats import Rate, bootstrap_units, wilson

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


# --- exact percentile bootstrap over units ------------------------------------------------------

def test_bootstrap_5_of_10():
    # X ~ Binomial(10, .5), pmf * 1024 = 1, 10, 45, 120, 210, 252, 210, 120, 45, 10, 1
    # CDF(1) = 11/1024 = .0107 < .025, CDF(2) = 56/1024 = .0547 >= .025 -> low = 2/10
    # CDF(7) = 968/1024 = .9453 < .975, CDF(8) = 1013/1024 = .9893 >= .975 -> high = 8/10
    rate = bootstrap_units(5, 10)
    assert (rate.k, rate.n, rate.method) == (5, 10, "bootstrap-exact")
    assert rate.value == pytest.approx(0.5)
    assert rate.low == pytest.approx(0.2)
    assert rate.high == pytest.approx(0.8)


def test_bootstrap_1_of_5():
    # X ~ Binomial(5, .2): P0 = .8^5 = .32768 >= .025 -> low = 0
    # P1 = 5*.2*.8^4 = .4096 (CDF .73728), P2 = 10*.04*.512 = .2048 (CDF .94208 < .975),
    # P3 = 10*.008*.64 = .0512 (CDF .99328 >= .975) -> high = 3/5
    rate = bootstrap_units(1, 5)
    assert rate.low == pytest.approx(0.0)
    assert rate.high == pytest.approx(0.6)


def test_bootstrap_2_of_10():
    # X ~ Binomial(10, .2): P0 = .8^10 = .1074 >= .025 -> low = 0
    # CDF: P0 .1074, +P1 .2684 = .3758, +P2 .3020 = .6778, +P3 .2013 = .8791,
    #      +P4 .0881 = .9672 (< .975), +P5 .0264 = .9936 -> high = 5/10
    rate = bootstrap_units(2, 10)
    assert rate.low == pytest.approx(0.0)
    assert rate.high == pytest.approx(0.5)


def test_bootstrap_2_of_4():
    # X ~ Binomial(4, .5): pmf * 16 = 1, 4, 6, 4, 1; CDF(0) = .0625 >= .025 -> 0;
    # CDF(3) = 15/16 = .9375 < .975 -> high = 4/4
    rate = bootstrap_units(2, 4)
    assert (rate.low, rate.high) == (pytest.approx(0.0), pytest.approx(1.0))


@pytest.mark.parametrize("n", [1, 7, 60])
def test_bootstrap_degenerate(n):
    # every resample of all-wrong units is all wrong, of all-right units all right
    none = bootstrap_units(0, n)
    assert (none.low, none.high) == (0.0, 0.0)
    assert none.value == 0.0
    every = bootstrap_units(n, n)
    assert (every.low, every.high) == (1.0, 1.0)
    assert every.value == 1.0


def test_bootstrap_n_0():
    rate = bootstrap_units(0, 0)
    assert math.isnan(rate.value) and math.isnan(rate.low) and math.isnan(rate.high)
    assert rate.to_dict() == {"value": None, "k": 0, "n": 0, "ci95": None, "ci_method": "bootstrap-exact"}


def test_bootstrap_matches_monte_carlo():
    # A real percentile bootstrap: resample the 60 units with replacement 20000 times, take each
    # resample's mean, sort, and read the 2.5% and 97.5% order statistics. The exact method must
    # agree within one unit (1/n). Normal approximation for reference: 37/60 = .617,
    # sd = sqrt(.617 * .383 / 60) = .0628, so roughly [.49, .74].
    n, k, resamples = 60, 37, 20000
    units = [1] * k + [0] * (n - k)
    rng = random.Random(1234)
    means = sorted(sum(rng.choices(units, k=n)) / n for _ in range(resamples))
    mc_low = means[int(0.025 * resamples)]          # order statistic 500 (0-based)
    mc_high = means[int(0.975 * resamples) - 1]     # order statistic 19500 (1-based)
    rate = bootstrap_units(k, n)
    assert abs(rate.low - mc_low) <= 1 / n + 1e-12
    assert abs(rate.high - mc_high) <= 1 / n + 1e-12
    assert 0.45 < rate.low < 0.55 and 0.68 < rate.high < 0.78
    # the bounds are whole units
    assert rate.low * n == pytest.approx(round(rate.low * n))
    assert rate.high * n == pytest.approx(round(rate.high * n))
