"""A whole offline run: the README's `pytest suites/` (default `lexicon` model, built-in sources, no data).

    python benchmarks/offline_run.py [--repeat 3]

Times the whole process (best of N, medians too) and collection alone (`--collect-only`), and counts the
pytest items, the cases, the output lines and the longest summary line of a default run and of `-q --tb=no`.
The numbers in docs/performance.md ("A whole offline run") come from this script.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(args: list[str]) -> tuple[float, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("ABSA_DATA_DIR", "PYTEST_ADDOPTS", "CI")}
    env.update(PYTHONPATH=str(ROOT), COLUMNS="80")
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "suites/", "-p", "no:cacheprovider", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True)
    return time.perf_counter() - started, done.stdout + done.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        report = Path(work) / "report.json"
        runs, collects = [], []
        for _ in range(args.repeat):
            seconds, out = timed(["--absa-report", str(report)])
            runs.append(seconds)
            collects.append(timed(["--collect-only", "-q"])[0])
        quiet = timed(["-q", "--tb=no"])[1]
        data = json.loads(report.read_text())
    summary = out[out.find("= absa-checks ="):].splitlines()
    print(f"items: {out.splitlines()[-1].strip('= ')}")
    print(f"cases: {data['summary']['cases']:,} (JSON report summary: {data['summary']})")
    print(f"wall, whole process: best {min(runs):.1f} s, median {statistics.median(runs):.1f} s (of {args.repeat})")
    print(f"collection alone (--collect-only): best {min(collects):.1f} s, median {statistics.median(collects):.1f} s")
    print(f"output lines: default {len(out.splitlines())}, -q --tb=no {len(quiet.splitlines())}; "
          f"longest absa-checks line {max(len(line) for line in summary)} characters")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
