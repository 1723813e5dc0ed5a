"""What several checkpoints in one run cost: one checkpoint against three, same suites and data.

    python benchmarks/performance/checkpoints.py [--data ../shared/data] [--repeat 3]

The three published ARTS laptop models (BERT-PT, BERT-Sent, TD-LSTM) are replayed as three checkpoints
of a models.yaml group, so the model costs nothing and what is measured is the plugin: three times the
cases, one aggregation per checkpoint, and the mean ± std across them. Each run also writes the JSON
report (`-q --tb=no -p no:cacheprovider`); best of `--repeat`. It prints the wall times, the cases, the
cost per case, and the mean ± std of ARS it found.
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
FLAGS = ["-q", "--tb=no", "-p", "no:cacheprovider"]


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env={**os.environ}, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        raise SystemExit(f"pytest exited {done.returncode}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    data, work = Path(args.data).resolve(), Path(tempfile.mkdtemp(prefix="absa-checkpoints-"))
    csv = data / "arts" / "output" / "laptop_results.csv"
    models = work / "models.yaml"
    models.write_text("models:\n" + "".join(f"  {name}: {{kind: replay, path: '{csv}', column: {column}}}\n"
                                            for name, column in (("bert-pt", "bert_pt"), ("bert-sent", "bert_sent"),
                                                                 ("td-lstm", "TD_LSTM")))
                      + "groups:\n  published: [bert-pt, bert-sent, td-lstm]\n")
    base = [sys.executable, "-m", "pytest", "suites/", *FLAGS, "--absa-data", str(data),
            "--absa-sources", "arts-laptop", "--absa-models", str(models)]
    rows = []
    for model in ("bert-pt", "published"):
        report = work / f"{model}.json"
        seconds = min(timed(base + ["--model", model, "--absa-report", str(report)]) for _ in range(args.repeat))
        found = json.loads(report.read_text())
        ars = found["sources"]["arts-laptop"]["ars"]
        shown = (f"{100 * ars['value']:.2f} ± {100 * ars['std']:.2f}" if ars.get("std") is not None
                 else f"{100 * ars['value']:.2f}")
        rows.append((model, len(found["run"]["models"]), found["summary"]["cases"], seconds, shown))
    print(f"| --model | checkpoints | cases | wall (best of {args.repeat}) | per case | ARS (%) |")
    print("|---|---|---|---|---|---|")
    for model, count, cases, seconds, shown in rows:
        print(f"| {model} | {count} | {cases:,} | {seconds:.2f} s | {1000 * seconds / cases:.2f} ms | {shown} |")
    one, three = rows[0][3], rows[1][3]
    print(f"\nthree checkpoints / one: {three / one:.2f}x the wall time for {rows[1][2] / rows[0][2]:.0f}x the cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
