"""The README's picture of the review page: docs/images/review-page.png.

    python scripts/review_screenshot.py

Writes the REVTGT and REVNON candidates of the built-in restaurant source with the real command
(`absa-checks generate --candidates`), starts the real `absa-checks review` on them, makes three decisions with
the page's keys (reject, reject, accept) in headless Chromium (playwright, the Debian browser) and saves
the page as a reader sees it, 1,280 px wide. Offline; nothing of ../shared is used.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "docs" / "images" / "review-page.png"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def main() -> int:
    if CHROMIUM is None:
        print("no Chromium: apt-get install chromium", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "reviewed.jsonl"
        subprocess.run([sys.executable, "-m", "absa_checks.cli", "generate", "--source", "builtin-restaurant",
                        "--strategies", "revtgt,revnon", "--candidates", "--out", str(path)], check=True, cwd=REPO)
        server = subprocess.Popen([sys.executable, "-m", "absa_checks.cli", "review", path.name, "--reviewer", "ann"],
                                  stdout=subprocess.PIPE, text=True, cwd=folder,
                                  env={**os.environ, "PYTHONPATH": str(REPO)})
        try:
            url = re.search(r"http://127\.0\.0\.1:\d+/", server.stdout.readline() if server.stdout else "")[0]
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                page = browser.new_page(viewport={"width": 1280, "height": 760})
                page.goto(url)
                expect(page.locator("article.candidate.current")).to_have_count(1)
                page.select_option("#filter-status", "quarantined")
                for key in "rra":  # two variants the context contradicts, one that reads right
                    page.keyboard.press(key)
                expect(page.locator("body")).to_have_attribute("data-pending", "0")
                page.keyboard.press("k")  # back to the last decision: it stays on the screen, saved
                page.screenshot(path=str(OUT))
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(f"wrote {OUT.relative_to(REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
