"""What the review page costs a reviewer: opening a large file, and each decision from key to disk.

    python benchmarks/performance/review_page.py [--file CANDIDATES.jsonl] [--decisions 50]

Default file: the REVTGT and REVNON candidates of SemEval-2014 restaurant training (7,204 lines, written by
`absa-checks generate --candidates` into a temporary folder from ../shared/data). Starts the real `absa-checks
review`, opens the page in headless Chromium (playwright, the Debian browser) and measures:
- the time from navigation to the first card shown (the page fetches every candidate and renders a window);
- per decision, the time from the key press (`a`/`r`) to the server's answer (the line written on disk):
  median and 95th percentile over --decisions decisions made one after another.
Baseline, the fairest other way to record the same decisions: `absa-checks decide FILE --reject ID` once per
decision (a new process that reads, checks and rewrites the file each time), timed the same way.
A person reviewing 300 candidates an hour has 12 s for each: the tool's share of that is what is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

REPO = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("ABSA_SHARED_DIR", REPO.parent / "shared"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def _candidates(folder: Path) -> Path:
    path = folder / "train.jsonl"
    subprocess.run([sys.executable, "-m", "absa_checks.cli", "generate", "--input",
                    str(SHARED / "data" / "semeval2014" / "Restaurants_Train_v2.xml"), "--strategies", "revtgt,revnon",
                    "--candidates", "--out", str(path)], check=True, cwd=REPO, capture_output=True)
    return path


def _page(path: Path, decisions: int) -> tuple[float, list[float]]:
    server = subprocess.Popen([sys.executable, "-m", "absa_checks.cli", "review", str(path), "--reviewer", "bench"],
                              stdout=subprocess.PIPE, text=True, cwd=REPO)
    try:
        url = re.search(r"http://127\.0\.0\.1:\d+/", server.stdout.readline() if server.stdout else "")[0]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            start = time.perf_counter()
            page.goto(url)
            expect(page.locator("article.candidate.current")).to_have_count(1, timeout=120_000)
            opened = time.perf_counter() - start
            pending = page.locator("body")
            times = []
            for _ in range(decisions):
                start = time.perf_counter()
                page.keyboard.press("r")  # a rejection is never refused: every decision is written
                expect(pending).to_have_attribute("data-pending", "0", timeout=60_000)
                times.append(time.perf_counter() - start)
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=30)
    return opened, times


def _cli(path: Path, decisions: int) -> list[float]:
    ids = [r["id"] for r in map(json.loads, path.read_text(encoding="utf-8").splitlines())
           if r["status"] != "not_applicable" and r["decision"] is None][:decisions]
    times = []
    for candidate in ids:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "absa_checks.cli", "decide", str(path), "--reject", candidate,
                        "--reviewer", "bench"], check=True, cwd=REPO, capture_output=True)
        times.append(time.perf_counter() - start)
    return times


def _summary(times: list[float]) -> str:
    ordered = sorted(times)
    return (f"median {1000 * statistics.median(ordered):.0f} ms, p95 {1000 * ordered[int(0.95 * (len(ordered) - 1))]:.0f} "
            f"ms, max {1000 * ordered[-1]:.0f} ms (n {len(ordered)})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", default=None)
    parser.add_argument("--decisions", type=int, default=50)
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as folder:
        source = Path(args.file) if args.file else _candidates(Path(folder))
        lines = sum(1 for line in source.read_text(encoding="utf-8").splitlines() if line.strip())
        page_copy, cli_copy = Path(folder) / "page.jsonl", Path(folder) / "cli.jsonl"
        shutil.copy(source, page_copy)
        shutil.copy(source, cli_copy)
        opened, page_times = _page(page_copy, args.decisions)
        cli_times = _cli(cli_copy, args.decisions)
    print(f"{lines} candidates; page opened on its first card in {opened:.2f} s")
    print(f"a decision on the page, key to disk:     {_summary(page_times)}")
    print(f"baseline, `absa-checks decide` per id:   {_summary(cli_times)}")
    print(f"at 300 an hour (12 s each) the page takes {100 * statistics.median(page_times) / 12:.1f}% of a decision's time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
