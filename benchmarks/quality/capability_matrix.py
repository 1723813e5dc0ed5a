"""The capability x test-type matrix of several models, side by side (docs/capabilities.md, "Measured").

    python benchmarks/quality/capability_matrix.py [--models lexicon lexicon-sentence pair sent] [--out DIR]

Runs the default suites (`pytest suites/`, offline: the built-in sentences and the capability templates) once
per model with `--absa-report`, and prints one Markdown table: each capability and test type a row, each model
a column with its fail rate, 95% interval and cases. `pair` and `sent` are the shared MiniLM checkpoints
(aspect-first and sentence-only, ../shared/models; they need the transformers extra). The reports stay in
--out.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("ABSA_SHARED_DIR", REPO.parent / "shared"))
MODELS = {"pair": f"transformers:{SHARED / 'models' / 'minilm-absa-pair-rest'}",
          "sent": f"transformers:{SHARED / 'models' / 'minilm-absa-sent-rest'}"}
TYPES = ("mft", "inv", "dir")


def run(name: str, out: Path) -> dict:
    report = out / f"{name}.json"
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "suites/", "-p", "no:cacheprovider", "-q", "--tb=no",
                           "--model", MODELS.get(name, name), "--absa-report", str(report)],
                          cwd=REPO, capture_output=True, text=True)
    said = (done.stdout.strip() or done.stderr.strip() or "(nothing printed)").splitlines()[-1]
    print(f"{name}: exit {done.returncode} in {time.perf_counter() - start:.0f} s; {said}", file=sys.stderr)
    if not report.is_file():
        raise SystemExit(f"{name}: no report written")
    return json.loads(report.read_text())


def cell(found: dict | None) -> str:
    if not found or not found.get("n"):
        return "-"
    rate = found["fail_rate"]
    low, high = rate["ci95"]
    return f"{100 * rate['value']:.1f} [{100 * low:.1f}, {100 * high:.1f}] n={found['n']}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["lexicon", "lexicon-sentence", "pair", "sent"])
    parser.add_argument("--out", default="matrix-reports")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    reports = {name: run(name, out) for name in args.models}
    rows = sorted({(cap, kind) for r in reports.values() for cap, cells in r["capabilities"].items() for kind in cells},
                  key=lambda row: (row[0], TYPES.index(row[1])))
    print("| capability | type | " + " | ".join(args.models) + " |")
    print("|---|---|" + "---|" * len(args.models))
    for cap, kind in rows:
        print(f"| {cap} | {kind} | " + " | ".join(cell(r["capabilities"].get(cap, {}).get(kind)) for r in reports.values())
              + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
