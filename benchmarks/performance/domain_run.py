"""Issue 25's acceptance run: the shared restaurant checkpoint, declared `domains: [restaurant]`, on the full data.

    python benchmarks/performance/domain_run.py [--data ../shared/data] [--checkpoint ../shared/models/minilm-absa-pair-rest]

Writes a models file holding one entry (`kind: transformers`, aspect-first, `domains: [restaurant]`) to a
temporary folder and runs `pytest suites/ --model rest --absa-data DATA -n 2` as a user would (default
output, the cache off), then the same with `-q --tb=no`. Prints the exit status, the wall time, the lines
printed, the line that says which sources were left out, the gates that ran with their verdicts and the
sources the JSON report measured, so the acceptance ("gates only restaurant sources and says what it left
out") is read off the run itself.
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--checkpoint", default=str(ROOT.parent / "shared" / "models" / "minilm-absa-pair-rest"))
    args = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("ABSA_DATA_DIR", "PYTEST_ADDOPTS", "CI")}
    env.update(PYTHONPATH=str(ROOT), COLUMNS="160")
    with tempfile.TemporaryDirectory() as work:
        models = Path(work) / "models.yaml"
        models.write_text("models:\n  rest:\n    kind: transformers\n"
                          f"    path: {Path(args.checkpoint).resolve()}\n"
                          "    input: aspect-first\n    domains: [restaurant]\n")
        report = Path(work) / "report.json"
        base = [sys.executable, "-m", "pytest", "suites/", "-p", "no:cacheprovider", "--model", "rest",
                "--absa-models", str(models), "--absa-data", args.data, "-n", "2", "--absa-no-cache"]
        started = time.perf_counter()
        done = subprocess.run([*base, "--absa-report", str(report)], cwd=ROOT, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
        quiet = subprocess.run([*base, "-q", "--tb=no"], cwd=ROOT, env=env, capture_output=True, text=True)
        data = json.loads(report.read_text())
    out = (done.stdout + done.stderr).splitlines()
    print(f"exit status {done.returncode}; wall {wall:.1f} s; lines: default {len(out)}, "
          f"-q --tb=no {len((quiet.stdout + quiet.stderr).splitlines())} (exit {quiet.returncode})")
    for line in out:
        if "cross-domain" in line or "other domain" in line or "left out" in line:
            print(f"said: {line.strip()}")
    print(f"sources measured (JSON report): {', '.join(sorted(data['sources']))}")
    for gate in data["gates"]:
        print(f"gate: {gate['label'] or gate['gate']} [{gate['source']}]: {gate['verdict']}")
    print(f"verdict line: {out[-1].strip()}")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} (1 min) on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
