"""A whole offline run: the README's `pytest suites/` (default `lexicon` model, built-in sources, no data).

    python benchmarks/performance/offline_run.py [--repeat 3]

Times the whole process (best of N, medians too) and collection alone (`--collect-only`), each cold (a new,
empty cache folder: WordNet loaded, every variant generated) and warm (the cache folder of a run before: the
variants read from it), and counts the pytest items, the cases, the output lines and the longest summary line
of a default run and of `-q --tb=no`.
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

ROOT = Path(__file__).resolve().parents[2]


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
        runs, collects, warm_runs, warm_collects = [], [], [], []
        warm = ["--absa-cache", str(Path(work) / "warm")]
        timed([*warm, "--collect-only", "-q"])  # fills the warm cache folder
        for n in range(args.repeat):
            seconds, out = timed(["--absa-report", str(report), "--absa-cache", str(Path(work) / f"cold-run-{n}")])
            runs.append(seconds)
            collects.append(timed(["--collect-only", "-q", "--absa-cache", str(Path(work) / f"cold-{n}")])[0])
            warm_runs.append(timed([*warm, "--absa-report", str(report)])[0])
            warm_collects.append(timed([*warm, "--collect-only", "-q"])[0])
        quiet = timed(["-q", "--tb=no", *warm])[1]
        data = json.loads(report.read_text())
    summary = out[out.find("= absa-checks ="):].splitlines()
    print(f"items: {out.splitlines()[-1].strip('= ')}")
    print(f"cases: {data['summary']['cases']:,} (JSON report summary: {data['summary']})")
    for what, cold_times, warm_times in (("wall, whole process", runs, warm_runs),
                                         ("collection alone (--collect-only)", collects, warm_collects)):
        print(f"{what}: cold best {min(cold_times):.1f} s, median {statistics.median(cold_times):.1f} s; "
              f"warm best {min(warm_times):.1f} s, median {statistics.median(warm_times):.1f} s (of {args.repeat})")
    print(f"output lines: default {len(out.splitlines())}, -q --tb=no {len(quiet.splitlines())}; "
          f"longest absa-checks line {max(len(line) for line in summary)} characters")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
