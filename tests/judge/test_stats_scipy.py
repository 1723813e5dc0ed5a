"""absa_checks/judge/stats.py checked against the hand-written statistics of issue 26 (tests/reference_stats.py),
against scipy (the statistics were scipy's from issue 26 to issue 37; plain Python again since, and
tests/judge/test_stats_exact.py holds them to exact values), and against R's values.

The hand-written versions defined the numbers in every report until issue 26, so these must give them back
to within 1e-12 (the reports print them to 0.01 point). Where a statistic stays hand-written (Wilson, the
t table), scipy is its cross-check here.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
import reference_stats as reference
from scipy import stats as scipy_stats

from absa_checks.judge import checkpoints, comparison, gates, metrics, simpler, stats
from absa_checks.judge.stats import Z95, clopper_pearson, mcnemar_exact, mcnemar_worse, t975, wilson
from absa_checks.run import conclusion
from conftest import REPO, run_pytest

SMALL = [(k, n) for n in range(1, 21) for k in range(n + 1)]
LARGE = [(k, n) for n in (25, 50, 100, 299, 300, 1000, 5000)
         for k in sorted({0, 1, 2, n // 10, n // 3, n // 2, n - 2, n - 1, n})]


# --- Clopper-Pearson -----------------------------------------------------------------------------

def test_clopper_pearson_equals_the_hand_written_beta_quantiles():
    differ = []
    for k, n in SMALL + LARGE:
        rate = clopper_pearson(k, n)
        low, high = reference.clopper_pearson_bounds(k, n)
        assert (rate.k, rate.n, rate.method) == (k, n, "clopper-pearson")
        assert type(rate.low) is float and type(rate.high) is float  # not numpy scalars: reports print floats
        assert (rate.low == 0.0) == (k == 0) and (rate.high == 1.0) == (k == n), rate
        if abs(rate.low - low) > 1e-12 or abs(rate.high - high) > 1e-12:
            differ.append((rate, low, high))
    assert not differ


@pytest.mark.parametrize("level", [0.8, 0.9, 0.99, 0.999])
@pytest.mark.parametrize("k, n", [(0, 7), (3, 17), (50, 100), (371, 1000), (12, 12)])
def test_clopper_pearson_at_other_levels_equals_the_hand_written_one(k, n, level):
    rate = clopper_pearson(k, n, level)
    low, high = reference.clopper_pearson_bounds(k, n, level)
    assert abs(rate.low - low) <= 1e-12 and abs(rate.high - high) <= 1e-12, (rate, low, high)


@pytest.mark.parametrize("k, n", [(0, 10), (1, 2), (2, 10), (5, 10), (37, 90), (299, 300), (371, 1000)])
def test_clopper_pearson_equals_binomtest_proportion_ci(k, n):
    # binomtest's exact interval inverts the binomial tails with a root finder (brentq, xtol 2e-12): the
    # same bounds by the other identity, to the solver's tolerance
    interval = scipy_stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="exact")
    rate = clopper_pearson(k, n)
    assert rate.low == pytest.approx(interval.low, abs=1e-11)
    assert rate.high == pytest.approx(interval.high, abs=1e-11)


def test_clopper_pearson_equals_r():
    # R: binom.test(k, n)$conf.int, as R prints it (to half a unit in its last digit)
    for k, n, low, high, digits in [(5, 10, 0.1870860, 0.8129140, 7), (2, 4, 0.06758599, 0.93241401, 8),
                                    (2, 10, 0.02521073, 0.55609546, 8), (0, 10, 0.0, 0.3084971, 7)]:
        rate = clopper_pearson(k, n)
        assert abs(rate.low - low) <= 0.5 * 10 ** -digits and abs(rate.high - high) <= 0.5 * 10 ** -digits, rate


# --- exact McNemar -------------------------------------------------------------------------------

PAIRS = [(b, n - b) for n in range(61) for b in range(n + 1)]  # every split of up to 60 discordant pairs
BIG_PAIRS = [(60, 10), (10, 60), (300, 250), (520, 480), (560, 440), (440, 560), (500, 500), (501, 500),
             (0, 2000), (2000, 0), (1200, 1000)]


def _same_p(found: float, expected: float) -> bool:
    """Equal to 1e-12, and to 1e-9 relative (so a p of 1e-20 is not "equal" to 0)."""
    return type(found) is float and abs(found - expected) <= 1e-12 and \
        abs(found - expected) <= 1e-9 * expected + 1e-300


def test_mcnemar_two_sided_equals_twice_the_exact_tail():
    # scipy's two-sided binomial p (outcomes no likelier than the one seen) is min(1, 2 * tail) at p = 1/2
    differ = []
    for broken, fixed in PAIRS + BIG_PAIRS:
        found, expected = mcnemar_exact(broken, fixed), reference.mcnemar_two_sided(broken, fixed)
        assert found == mcnemar_exact(fixed, broken)
        if not _same_p(found, expected):
            differ.append((broken, fixed, found, expected))
    assert not differ


def test_mcnemar_one_sided_equals_the_exact_upper_tail():
    differ = [(broken, fixed, found, expected) for broken, fixed in PAIRS + BIG_PAIRS
              if not _same_p(found := mcnemar_worse(broken, fixed),
                             expected := reference.mcnemar_one_sided_worse(broken, fixed))]
    assert not differ


def test_mcnemar_equals_r():
    # R: binom.test(2, 12)$p.value = 0.03857422; binom.test(10, 12, alternative = "greater")$p.value =
    # 0.01928711; binom.test(6, 6, alternative = "greater")$p.value = 0.015625
    assert mcnemar_exact(10, 2) == pytest.approx(0.03857422, abs=1e-8)
    assert mcnemar_worse(10, 2) == pytest.approx(0.01928711, abs=1e-8)
    assert mcnemar_worse(6, 0) == pytest.approx(0.015625, abs=1e-12)
    assert mcnemar_worse(30, 2) == pytest.approx((496 + 32 + 1) / 2 ** 32, rel=1e-12)  # C(32, 30..32) / 2^32
    assert mcnemar_exact(0, 0) == mcnemar_worse(0, 0) == 1.0


def test_the_cross_check_tells_the_one_sided_from_the_two_sided_p():
    # the grid comparison can fail: the two references differ wherever a tail is not the whole
    assert not _same_p(mcnemar_worse(10, 2), reference.mcnemar_two_sided(10, 2))
    assert not _same_p(mcnemar_worse(2, 10), reference.mcnemar_one_sided_worse(10, 2))


# --- what stays hand-written, checked against scipy ----------------------------------------------

@pytest.mark.parametrize("n", [1, 2, 3, 7, 10, 40, 100, 1000])
def test_wilson_equals_scipy(n):
    for k in range(n + 1) if n <= 100 else (0, 1, 371, 999, 1000):
        rate = wilson(k, n)
        interval = scipy_stats.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
        assert rate.low == pytest.approx(max(0.0, interval.low), abs=1e-12), (k, n)
        assert rate.high == pytest.approx(min(1.0, interval.high), abs=1e-12), (k, n)


def test_z95_is_the_normal_quantile():
    assert Z95 == scipy_stats.norm.ppf(0.975)


def test_the_t_table_equals_scipy():
    # the table holds six decimals (off by at most half a unit in the last); beyond it the Cornish-Fisher
    # expansion is within 1e-7 of the exact quantile
    for df in range(1, 31):
        assert abs(t975(df) - scipy_stats.t.ppf(0.975, df)) <= 5e-7, df
    for df in [*range(31, 201), 500, 1000, 10_000, 1_000_000]:
        assert abs(t975(df) - scipy_stats.t.ppf(0.975, df)) <= 1e-7, df


# --- no statistic loads scipy -------------------------------------------------------------------

def test_computing_the_statistics_loads_neither_scipy_nor_numpy():
    # scipy.stats alone cost 0.7-0.9 s of every run that decided a gate (issue 37)
    names = [module.__name__ for module in (stats, metrics, gates, comparison, simpler, checkpoints, conclusion)]
    probe = (f"import importlib, sys; [importlib.import_module(name) for name in {names!r}]; "
             f"s = sys.modules[{stats.__name__!r}]; s.clopper_pearson(3, 10); s.clopper_pearson(300, 1000); "
             "s.mcnemar_exact(10, 2); s.mcnemar_worse(300, 250); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'numpy')))")
    done = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]"], done.stdout


@pytest.mark.parametrize("imports_scipy", [False, True], ids=["plain", "probe-control"])
def test_a_run_without_suites_does_not_load_scipy(tmp_path, imports_scipy):
    # a project of ordinary tests with the plugin loaded: nothing is decided, so scipy.stats stays unloaded
    # (the control imports it in its test, showing the probe sees it when it is there)
    seen = tmp_path / "seen.txt"
    (tmp_path / "conftest.py").write_text(
        "import sys\n\n\ndef pytest_unconfigure(config):\n"
        f"    open({str(seen)!r}, 'w').write(str('scipy.stats' in sys.modules))\n")
    (tmp_path / "test_plain.py").write_text(
        ("import scipy.stats  # noqa: F401\n\n\n" if imports_scipy else "") + "def test_one():\n    assert 1 + 1 == 2\n")
    done = run_pytest(["-q", "test_plain.py"], cwd=tmp_path)
    assert done.code == 0, done.out
    assert seen.read_text() == str(imports_scipy)

