"""What scipy.stats would cost the statistics, and how far ours are from it (docs/architecture.md, "Statistics
without scipy").

    python benchmarks/performance/scipy_stats_cost.py [--repeat 5]

(a) import time of scipy.stats (and of scipy.special alone), cumulative, from `python -X importtime`, best and
    median of N fresh processes; (b) the installed size of scipy, scipy.libs, numpy and numpy.libs; (c) the
    time per call of absa_checks.judge.stats (plain Python since issue 37), of scipy.stats computing the same
    number, and of issue 26's hand-written versions (tests/reference_stats.py); (d) the largest difference
    between ours and those over the tests' grid, and how often the floats differ at all.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import subprocess
import sys
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

import reference_stats as reference  # noqa: E402

from absa_checks.judge.stats import clopper_pearson, mcnemar_exact, mcnemar_worse, wilson  # noqa: E402


def import_ms(module: str, repeat: int) -> tuple[float, float]:
    """Best and median cumulative import time of `module` in fresh processes, in ms."""
    found = []
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-X", "importtime", "-c", f"import {module}"],
                              capture_output=True, text=True, check=True)
        line = next(row for row in reversed(done.stderr.splitlines()) if row.rstrip().endswith(f"| {module}"))
        found.append(int(line.split("|")[1]) / 1000)
    return min(found), statistics.median(found)


def size_mb(name: str) -> float:
    site = Path(importlib.util.find_spec("scipy").origin).parents[1]
    folder = site / name
    if not folder.is_dir():
        return 0.0
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink()) / 1e6


def per_call_us(call, number: int = 200) -> float:
    return min(timeit.repeat(call, number=number, repeat=5)) / number * 1e6


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    import scipy
    from scipy import stats as scipy_stats

    print(f"scipy {scipy.__version__}, Python {sys.version.split()[0]}\n")
    print("(a) import time, cumulative (best / median of", args.repeat, "processes)")
    for module in ("scipy.stats", "scipy.special", "numpy"):
        best, median = import_ms(module, args.repeat)
        print(f"  {module:14} {best:7.1f} ms / {median:7.1f} ms")
    print("\n(b) installed size")
    for name in ("scipy", "scipy.libs", "numpy", "numpy.libs"):
        print(f"  {name:14} {size_mb(name):7.1f} MB")

    print("\n(c) time per call: ours / scipy.stats / issue 26's hand-written")
    beta = scipy_stats.beta

    def cp_scipy(k: int, n: int) -> tuple[float, float]:
        return (0.0 if k == 0 else float(beta.ppf(0.025, k, n - k + 1)),
                1.0 if k == n else float(beta.ppf(0.975, k + 1, n - k)))

    for label, ours, theirs, old in [
        ("clopper_pearson(7, 10)", lambda: clopper_pearson(7, 10), lambda: cp_scipy(7, 10),
         lambda: reference.clopper_pearson_bounds(7, 10)),
        ("clopper_pearson(371, 1000)", lambda: clopper_pearson(371, 1000), lambda: cp_scipy(371, 1000),
         lambda: reference.clopper_pearson_bounds(371, 1000)),
        ("mcnemar_exact(10, 2)", lambda: mcnemar_exact(10, 2), lambda: scipy_stats.binomtest(2, 12, 0.5).pvalue,
         lambda: reference.mcnemar_two_sided(10, 2)),
        ("mcnemar_exact(300, 250)", lambda: mcnemar_exact(300, 250),
         lambda: scipy_stats.binomtest(250, 550, 0.5).pvalue, lambda: reference.mcnemar_two_sided(300, 250)),
        ("mcnemar_worse(300, 250)", lambda: mcnemar_worse(300, 250),
         lambda: scipy_stats.binomtest(300, 550, 0.5, alternative="greater").pvalue,
         lambda: reference.mcnemar_one_sided_worse(300, 250)),
        ("wilson(37, 90)", lambda: wilson(37, 90),
         lambda: scipy_stats.binomtest(37, 90).proportion_ci(method="wilson"), lambda: wilson(37, 90)),
    ]:
        print(f"  {label:28} {per_call_us(ours):9.1f} us / {per_call_us(theirs):9.1f} us / {per_call_us(old):9.1f} us")

    print("\n(d) differences over the tests' grid")
    grid = [(k, n) for n in range(1, 61) for k in range(n + 1)] + \
        [(k, n) for n in (100, 300, 1000, 5000) for k in sorted({0, 1, 2, n // 10, n // 3, n // 2, n - 2, n - 1, n})]
    cp = [(clopper_pearson(k, n), reference.clopper_pearson_bounds(k, n)) for k, n in grid]
    cp_diff = max(max(abs(r.low - lo), abs(r.high - hi)) for r, (lo, hi) in cp)
    cp_bits = sum((r.low, r.high) != bounds for r, bounds in cp)
    exact = [(scipy_stats.binomtest(k, n).proportion_ci(method="exact"), reference.clopper_pearson_bounds(k, n))
             for k, n in grid]
    exact_diff = max(max(abs(i.low - lo), abs(i.high - hi)) for i, (lo, hi) in exact)
    print(f"  Clopper-Pearson, ours against issue 26's: max |diff| {cp_diff:.1e}, floats differ in {cp_bits} of {2 * len(grid)} bounds")
    print(f"  Clopper-Pearson, binomtest(...).proportion_ci('exact'): max |diff| {exact_diff:.1e}")
    pairs = [(b, n - b) for n in range(201) for b in range(n + 1)] + [(300, 250), (520, 480), (560, 440), (1200, 1000)]
    for label, new, old in [("McNemar two-sided", mcnemar_exact, reference.mcnemar_two_sided),
                            ("McNemar one-sided", mcnemar_worse, reference.mcnemar_one_sided_worse)]:
        found = [(new(b, f), old(b, f)) for b, f in pairs]
        absolute = max(abs(x - y) for x, y in found)
        relative = max(abs(x - y) / y for x, y in found if y > 0)
        print(f"  {label}: max |diff| {absolute:.1e}, max relative {relative:.1e}, floats differ in "
              f"{sum(x != y for x, y in found)} of {len(found)} (every split of up to 200 discordant pairs)")
    wil = [(wilson(k, n), scipy_stats.binomtest(k, n).proportion_ci(method="wilson")) for k, n in grid]
    wil_diff = max(max(abs(r.low - max(0.0, i.low)), abs(r.high - min(1.0, i.high))) for r, i in wil)
    wil_bits = sum((r.low, r.high) != (max(0.0, float(i.low)), min(1.0, float(i.high))) for r, i in wil)
    print(f"  Wilson, scipy against ours: max |diff| {wil_diff:.1e}, floats differ in {wil_bits} of {len(grid)} intervals")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
