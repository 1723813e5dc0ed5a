"""Allure at scale: a run of 10,000+ cases, the single-file report built and opened in Chromium.

    python benchmarks/allure_scale.py [--data ../shared/data]

Runs `pytest suites/ -n 2 --alluredir` with the offline lexicon model over the built-in fixtures, the
ARTS and the SemEval sources (about 20,000 cases), times `npx allure generate`, reports the sizes of
the results and the HTML, and checks that the report opens (headless Chromium renders the summary).
"""

from __future__ import annotations

import argparse
import html
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="absa-allure-"))
    results, report = work / "allure-results", work / "allure-report"
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "suites/", "-q", "--tb=no", "-p", "no:cacheprovider", "-n", "2",
                    "--absa-data", args.data, "--alluredir", str(results), "--absa-report", str(work / "r.json")],
                   cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    run_s = time.perf_counter() - started
    cases = json.loads((work / "r.json").read_text())["summary"]["cases"]
    attachments = list(results.glob("*-attachment.*"))
    started = time.perf_counter()
    built = subprocess.run([str(ROOT / "node_modules" / ".bin" / "allure"), "generate", str(results),
                            "--output", str(report)], cwd=ROOT, capture_output=True, text=True)
    build_s = time.perf_counter() - started
    index = report / "index.html"
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    opened = None
    if chromium and index.is_file():
        started = time.perf_counter()
        dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                              "--disable-background-networking", f"--user-data-dir={work / 'chrome'}",
                              "--virtual-time-budget=30000", "--dump-dom", index.as_uri()],
                             capture_output=True, text=True, timeout=300).stdout
        opened = {"seconds": time.perf_counter() - started, "shows_tree": "absa-checks run" in html.unescape(dom)}
    print(f"{cases} cases; pytest -n 2 with --alluredir: {run_s:.1f} s")
    print(f"results: {len(list(results.glob('*-result.json')))} result files, {len(attachments)} attachments, "
          f"largest attachment {max(p.stat().st_size for p in attachments) / 1024:.1f} KiB (pictures included)")
    print(f"allure generate: {build_s:.1f} s (exit {built.returncode}); index.html "
          f"{index.stat().st_size / 1e6:.1f} MB" if index.is_file() else f"allure generate failed: {built.stderr[-500:]}")
    print(f"opened in Chromium: {opened}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
