"""The review page over an audit sheet (`absa-checks audit draw` writes one), in headless Chromium: `y`/`n`
answer fluent then the intended sentiment, a "no" asks why (Enter saves), `u` clears; the answers are
written on the item's line, every other key and line kept byte for byte."""

from __future__ import annotations

import json

import pytest
from review_server import records, start, stop

ITEMS = [
    {"item": "a1b2c3d4e5f6", "strategy": "revtgt", "target": "burgers", "question": "Is the sentiment toward "
     "'burgers' negative?", "original": "The burgers were great.", "variant": "The burgers were awful.",
     "fluent": None, "sentiment_ok": None, "reason": "", "extra": {"kept": [1, 2]}},
    {"item": "0f9e8d7c6b5a", "strategy": "revnon", "target": "wine", "question": "Is the sentiment toward 'wine' "
     "still positive?", "original": "Good wine, rude staff.", "variant": "Good wine, kind staff.",
     "fluent": None, "sentiment_ok": None, "reason": ""},
    {"item": "112233445566", "strategy": "adddiff", "target": "pasta", "question": "Is the sentiment toward "
     "'pasta' still positive?", "original": "The pasta was fine.", "variant": "The pasta was fine, but the bread "
     "was stale.", "fluent": True, "sentiment_ok": True, "reason": ""},
    {"item": "665544332211", "strategy": "revtgt", "target": "music", "question": "Is the sentiment toward 'music' "
     "negative?", "original": "Loved the music.", "variant": "Loved not the music.",
     "fluent": None, "sentiment_ok": None, "reason": ""},
]


@pytest.fixture(scope="module")
def sheet_page(browser, tmp_path_factory):
    from playwright.sync_api import expect

    path = tmp_path_factory.mktemp("audit") / "sheet.jsonl"
    path.write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in ITEMS), encoding="utf-8")
    proc, url = start(path, "--reviewer", "judge1")
    try:
        assert "3 items to answer; every answer is saved at once" in proc.start_line
        page = browser.new_page()
        page.goto(url)
        expect(page.locator("article.candidate.current")).to_have_count(1)
        yield page, path
        page.close()
    finally:
        assert stop(proc) == (0, "")


def test_audit_mode_answers_a_sheet_by_keys(sheet_page):
    page, path = sheet_page
    from playwright.sync_api import expect

    def settled():
        expect(page.locator("body")).to_have_attribute("data-pending", "0")

    before = path.read_text(encoding="utf-8").split("\n")
    expect(page.locator("#progress")).to_have_text("1 of 4 answered")
    current = page.locator("article.candidate.current")
    assert current.get_attribute("data-id") == "a1b2c3d4e5f6"  # the first unanswered
    assert "negative?" in current.locator(".question").inner_text()
    assert current.locator(".variant .target").inner_text() == "burgers"
    page.keyboard.press("y")
    page.keyboard.press("y")  # both yes: saved at once, on to the next unanswered
    settled()
    expect(page.locator("#message")).to_have_text("saved")
    assert page.locator("article.candidate.current").get_attribute("data-id") == "0f9e8d7c6b5a"
    page.keyboard.press("y")
    page.keyboard.press("n")  # a "no": why?
    reason = page.locator("input#reason")
    expect(reason).to_be_focused()
    reason.fill("the staff changed, the wine did not")
    reason.press("Enter")
    settled()
    assert page.locator("article.candidate.current").get_attribute("data-id") == "665544332211"  # answered one skipped
    page.keyboard.press("n")
    page.keyboard.press("n")
    page.locator("input#reason").press("Enter")  # an empty reason is allowed
    settled()
    expect(page.locator("#progress")).to_have_text("4 of 4 answered")
    page.locator('article.candidate[data-id="665544332211"]').click()
    page.keyboard.press("u")  # cleared
    settled()
    expect(page.locator("#progress")).to_have_text("3 of 4 answered")

    after = path.read_text(encoding="utf-8").split("\n")
    assert [a == b for a, b in zip(before, after)] == [False, False, True, True, True]  # the others byte for byte
    found = {r["item"]: r for r in records(path)}
    assert found["a1b2c3d4e5f6"] == {**ITEMS[0], "fluent": True, "sentiment_ok": True, "reason": ""}
    assert found["0f9e8d7c6b5a"] == {**ITEMS[1], "fluent": True, "sentiment_ok": False,
                                     "reason": "the staff changed, the wine did not"}
    assert found["665544332211"] == ITEMS[3]
    assert list(found["a1b2c3d4e5f6"]) == list(ITEMS[0])  # key order kept


def test_the_loop_draw_answer_on_the_page_score_and_the_run_reports_the_validity(browser, tmp_path):
    """The review -> freeze -> audit loop end to end, each step the real command: candidates decided, a
    sheet drawn by `audit draw`, answered on the page by keys, scored by `audit score` into the file, and a
    frozen run's JSON report shows the validity of exactly those answers."""
    import subprocess
    import sys

    from playwright.sync_api import expect

    from absa_checks.cli import main
    from conftest import run_pytest

    examples = tmp_path / "mine.yaml"
    examples.write_text("examples:\n" + "".join(
        f"  - {{id: u{i}, sentence: 'The {dish} was {word}.', aspect: {dish}, polarity: positive}}\n"
        for i, (dish, word) in enumerate([("soup", "delicious"), ("bread", "fresh"), ("pasta", "tasty"),
                                          ("cake", "delicious"), ("salad", "fresh")])))
    file = tmp_path / "reviewed.jsonl"
    assert main(["generate", "--input", str(examples), "--strategies", "revtgt", "--candidates", "--out", str(file)]) == 0
    shipped = [r["id"] for r in records(file) if r["status"] == "shipped"]
    assert len(shipped) == 5, "every sentence should give a REVTGT variant"
    assert main(["decide", str(file), "--accept", *shipped, "--reviewer", "ann"]) == 0
    sheet = tmp_path / "sheet.jsonl"
    assert main(["audit", "draw", str(file), "--sample", "5", "--seed", "1", "--out", str(sheet)]) == 0
    proc, url = start(sheet, "--reviewer", "judge1")
    try:
        page = browser.new_page()
        page.goto(url)
        expect(page.locator("#progress")).to_have_text("0 of 5 answered")
        answers = {}
        for i in range(5):  # four valid, one whose sentiment is not the intended one
            item = page.locator("article.candidate.current").get_attribute("data-id")
            page.keyboard.press("y")
            page.keyboard.press("n" if i == 2 else "y")
            if i == 2:
                page.locator("input#reason").press("Enter")
            answers[item] = i != 2
            expect(page.locator("body")).to_have_attribute("data-pending", "0")
        expect(page.locator("#progress")).to_have_text("5 of 5 answered")
        page.close()
    finally:
        assert stop(proc) == (0, "")
    scored = subprocess.run([sys.executable, "-m", "absa_checks.cli", "audit", "score", str(file), str(sheet)],
                            capture_output=True, text=True, cwd=tmp_path)
    assert scored.returncode == 0, scored.stderr
    audits = {r["id"]: r["audit"] for r in records(file) if "audit" in r}
    assert {key: value["sentiment_ok"] for key, value in audits.items()} == answers
    (tmp_path / "suite.yaml").write_text("suite: loop\nsources:\n  mine: {file: mine.yaml}\ntests:\n"
                                         "  - {name: reviewed, strategy: revtgt, sources: mine, "
                                         "variants: {frozen: reviewed.jsonl}}\n")
    done = run_pytest(["suite.yaml", "--model", "lexicon"], cwd=tmp_path, report=tmp_path / "r.json")
    found = done.report["validity"]["mine"]["revtgt"]
    assert found["audited"] == 5 and (found["both"]["k"], found["both"]["n"]) == (4, 5), done.out
