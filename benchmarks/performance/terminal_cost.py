"""What printing failed cases costs: a warm run with thousands of failing cases, default output (compact:
each failed case's `F`, the first 10 one line each) against the same run with `--tb=no` (pytest's cheapest), whole processes,
interleaved, best of N.

    python benchmarks/performance/terminal_cost.py [--data ../shared/data] [--repeat 3]

The model is `lexicon-sentence` (aspect-blind: it fails about 4,200 of 7,600 cases) on ARTS laptop and
restaurant and SemEval laptop; the terminal is a file, as in CI. Also times `-v` (every case explained).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def timed(command: list[str]) -> tuple[float, int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    return time.perf_counter() - started, done.stdout.count("\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    run = [sys.executable, "-m", "pytest", "suites/", "-p", "no:cacheprovider", "--absa-data", args.data,
           "--absa-sources", "arts-laptop,arts-restaurant,semeval14-laptop", "--absa-model", "lexicon-sentence"]
    variants = {"default (compact)": [], "--tb=no": ["--tb=no"], "-v (full explanation)": ["-v"]}
    times: dict[str, list[float]] = {name: [] for name in variants}
    lines: dict[str, int] = {}
    for _ in range(args.repeat):
        for name, extra in variants.items():
            seconds, count = timed(run + extra)
            times[name].append(seconds)
            lines[name] = count
    base = min(times["--tb=no"])
    for name in variants:
        best = min(times[name])
        print(f"{name:24s} best {best:5.2f} s  ({best / base:.2f}x --tb=no)  {lines[name]:6d} lines of output")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
