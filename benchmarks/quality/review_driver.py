"""A reviewer's hands on the review page, for a reviewer that reads text: what the page shows, and its keys.

    python benchmarks/quality/review_driver.py show URL [--count N]      # the next N undecided candidates, as shown
    python benchmarks/quality/review_driver.py do URL ACTIONS.json       # decisions made with the page's keys

It drives `absa-checks review FILE` (its URL is the first line the command prints) in headless Chromium:
`show` prints the text of each undecided card (what a person sees on it, with the marked aspects'
labels and the changed words), `do` takes a JSON list of
{"id": ID, "action": "accept" | "reject" | "edit", "text": EDITED SENTENCE} and, for each, makes that card
the current one and presses `a`, `r`, or `e` + the text + Ctrl+Enter, then prints the page's message. The
review round of docs/perturbations.md ("What reviewing adds") was made with it; the page does the saving.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def _open(playwright, url: str):
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    page.goto(url)
    page.wait_for_selector("article.candidate.current")
    return browser, page


def _current(page) -> tuple[str, str]:
    card = page.locator("article.candidate.current")
    return card.get_attribute("data-id") or "", card.get_attribute("data-decision") or ""


def _settled(page, card, before: str) -> None:
    """Until the page has the server's answer: polled from here (the page's content security policy forbids
    the evaluated scripts of playwright's wait_for_function)."""
    for _ in range(200):
        message = page.locator("#message").inner_text()
        if not message.startswith("saving") and (card.get_attribute("data-decision") or message != before):
            return
        page.wait_for_timeout(50)
    raise SystemExit(f"no answer from the page after 10 s (message: {message!r})")


def show(url: str, count: int) -> None:
    with sync_playwright() as p:
        browser, page = _open(p, url)
        print(page.locator("#progress").inner_text())
        if _current(page)[1]:
            page.keyboard.press("n")
        seen = set()
        for _ in range(count):
            card_id, decision = _current(page)
            if decision or card_id in seen:
                break
            seen.add(card_id)
            print(f"=== candidate {card_id}")
            card = page.locator("article.candidate.current")
            print(card.inner_text().strip())
            # what the eye sees besides the text: the marked target and aspects (their labels show on hover),
            # the struck-out and the highlighted words
            marked = [m.get_attribute("title") for m in card.locator(".variant .target, .variant .aspect").all()]
            print("marked in the variant: " + "; ".join(m for m in marked if m))
            print("struck out: " + " | ".join(d.inner_text() for d in card.locator(".original del").all())
                  + "   highlighted: " + " | ".join(m.inner_text() for m in card.locator(".variant mark").all()))
            page.keyboard.press("n")
        browser.close()


def do(url: str, actions: list[dict]) -> None:
    keys = {"accept": "a", "reject": "r"}
    with sync_playwright() as p:
        browser, page = _open(p, url)
        for action in actions:
            card = page.locator(f'article.candidate[data-id="{action["id"]}"]')
            if card.count() == 0:
                page.keyboard.press("n")  # the page may show only a window of cards around the current one
            if card.count() == 0:
                print(f"{action['id']}: not on the page (decided already, or not undecided in this view)")
                continue
            card.first.click()
            before = page.locator("#message").inner_text()
            if action["action"] == "edit":
                page.keyboard.press("e")
                box = page.locator("textarea#edit")
                box.fill(action["text"])
                box.press("Control+Enter")
            else:
                page.keyboard.press(keys[action["action"]])
            _settled(page, card.first, before)
            print(f"{action['id']}: {action['action']} -> {page.locator('#message').inner_text()}")
        page.reload()  # the count as the file on disk has it
        page.wait_for_selector("article.candidate.current")
        print(page.locator("#progress").inner_text())
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    s = commands.add_parser("show")
    s.add_argument("url")
    s.add_argument("--count", type=int, default=10)
    d = commands.add_parser("do")
    d.add_argument("url")
    d.add_argument("actions")
    args = parser.parse_args()
    if args.command == "show":
        show(args.url, args.count)
    else:
        do(args.url, json.loads(Path(args.actions).read_text(encoding="utf-8")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
