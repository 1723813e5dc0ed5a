"""Allure at scale: the report for the default suites and for the full data, built and opened in Chromium.

    python benchmarks/performance/allure_scale.py [--data ../shared/data]

Two runs of `pytest suites/ -n 2 --alluredir` with the offline lexicon model: the default sources (the
built-in fixtures) and every source (the fixtures, ARTS and SemEval, about 23,000 items). For each it
times `npx allure generate` as one HTML file and as a folder (allure/multi-file.mjs), reports their
sizes, counts Allure's results against pytest's, and opens the single file in headless Chromium to see
that it lands on the absa-checks summary.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALLURE = ROOT / "node_modules" / ".bin" / "allure"


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def measure(work: Path, label: str, data: list[str]) -> None:
    results = work / f"{label}-results"
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pytest", "suites/", "-q", "--tb=no", "-p", "no:cacheprovider",
                           "-n", "2", *data, "--alluredir", str(results)], cwd=ROOT, capture_output=True, text=True)
    run_s = time.perf_counter() - started
    counted = {w: int(n) for n, w in re.findall(r"(\d+) (passed|failed|skipped)", done.stdout.splitlines()[-1])}
    items = sum(counted.values())
    attachments = list(results.glob("*-attachment.*"))
    print(f"\n## {label}: {items:,} pytest items {counted}; pytest -n 2 --alluredir {run_s:.1f} s")
    print(f"results: {len(list(results.glob('*-result.json'))):,} result files, {len(attachments):,} attachments "
          f"({folder_bytes(results) / 1e6:.1f} MB in all)")
    for config, name in (([], "one file"), (["--config", str(ROOT / "allure" / "multi-file.mjs")], "a folder")):
        report = work / f"{label}-{name.replace(' ', '-')}"
        started = time.perf_counter()
        built = subprocess.run([str(ALLURE), "generate", str(results), "--output", str(report), *config],
                               cwd=ROOT, capture_output=True, text=True)
        build_s = time.perf_counter() - started
        index = report / "index.html"
        if not index.is_file():
            print(f"allure generate ({name}) failed: {built.stderr[-500:]}")
            continue
        stats = json.loads((report / "summary.json").read_text())["stats"]
        print(f"allure generate, {name}: {build_s:.1f} s; index.html {index.stat().st_size / 1e6:.1f} MB, "
              f"{folder_bytes(report) / 1e6:.1f} MB in all; Allure counts {stats}")
        if name == "one file":
            chromium = shutil.which("chromium") or shutil.which("chromium-browser")
            if chromium:
                started = time.perf_counter()
                dom = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                                      "--disable-background-networking", f"--user-data-dir={work / label / 'chrome'}",
                                      "--window-size=1280,1000", "--virtual-time-budget=30000", "--dump-dom",
                                      index.as_uri()], capture_output=True, text=True, timeout=600).stdout
                dom = html.unescape(dom)
                print(f"opened in Chromium in {time.perf_counter() - started:.1f} s; lands on the summary: "
                      f"{'absa-checks summary' in dom and 'fail rate [95% CI]' in dom}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="absa-allure-"))
    measure(work, "default suites", [])
    measure(work, "full data", ["--absa-data", args.data])
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
