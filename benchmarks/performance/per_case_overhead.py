"""The plugin's cost per case against a plain parametrised pytest test with the same cases.

    python benchmarks/performance/per_case_overhead.py [--data ../shared/data]

The suite replays the published BERT-PT predictions on ARTS laptop + restaurant (3,649 cases, no model
cost). The plain test is one parametrised function with one case per suite case that passes or fails
exactly as the suite's case did (so both pay pytest's failure reporting alike). Each is also run with
a handful of cases; the per-case cost is the slope (full - small) / (cases - small cases), so start-up,
imports and loading the data cancel out. Both: `-q --tb=line -p no:cacheprovider`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FLAGS = ["-q", "--tb=line", "-p", "no:cacheprovider"]

PLAIN_TEST = '''
import json
from pathlib import Path

import pytest

CASES = json.loads(Path(__file__).with_name("cases.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case):
    assert case["passed"], case["reason"]
'''


def run(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, env={**os.environ}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def best(command: list[str], cwd: Path, repeat: int) -> float:
    return min(run(command, cwd) for _ in range(repeat))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    data, work = Path(args.data), Path(tempfile.mkdtemp(prefix="absa-overhead-"))
    lines = []
    for name in ("laptop_results.csv", "rest_results.csv"):  # one replay file for both sources
        text = (data / "arts" / "output" / name).read_text(encoding="utf-8").splitlines()
        lines += text if not lines else text[1:]
    (work / "both.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    suite = [sys.executable, "-m", "pytest", "suites/", *FLAGS, "--absa-data", str(data),
             "--absa-sources", "arts-laptop,arts-restaurant", "--model", f"replay:{work / 'both.csv'}#bert_pt"]
    subprocess.run(suite + ["--absa-report", str(work / "report.json")], cwd=ROOT, stdout=subprocess.DEVNULL)
    report = json.loads((work / "report.json").read_text())
    cases = [{"id": c["name"], "passed": c["status"] == "passed", "reason": c["reason"]} for c in report["cases"]]
    small_report = work / "small.json"
    subprocess.run(suite + ["--absa-sample", "3", "--absa-report", str(small_report)], cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    small_n = len(json.loads(small_report.read_text())["cases"])
    plain_dir, plain_small_dir = work / "plain", work / "plain_small"
    for folder, chosen in ((plain_dir, cases), (plain_small_dir, cases[:small_n])):
        folder.mkdir()
        (folder / "test_plain.py").write_text(PLAIN_TEST)
        (folder / "cases.json").write_text(json.dumps(chosen))
    plain = [sys.executable, "-m", "pytest", "test_plain.py", *FLAGS]
    t_suite, t_suite_small = best(suite, ROOT, args.repeat), best(suite + ["--absa-sample", "3"], ROOT, args.repeat)
    t_plain, t_plain_small = best(plain, plain_dir, args.repeat), best(plain, plain_small_dir, args.repeat)
    n = len(cases)
    per_suite = (t_suite - t_suite_small) / (n - small_n)
    per_plain = (t_plain - t_plain_small) / (n - small_n)
    result = {"cases": n, "failed": sum(not c["passed"] for c in cases), "small_cases": small_n,
              "suite_s": t_suite, "suite_small_s": t_suite_small, "plain_s": t_plain, "plain_small_s": t_plain_small,
              "per_case_suite_ms": 1000 * per_suite, "per_case_plain_ms": 1000 * per_plain,
              "ratio": per_suite / per_plain}
    print(f"{n} cases ({result['failed']} failing); small runs: {small_n} cases")
    print(f"plugin: {t_suite:.2f} s (small {t_suite_small:.2f} s) -> {result['per_case_suite_ms']:.3f} ms per case")
    print(f"plain:  {t_plain:.2f} s (small {t_plain_small:.2f} s) -> {result['per_case_plain_ms']:.3f} ms per case")
    print(f"ratio plugin / plain per case: {result['ratio']:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
