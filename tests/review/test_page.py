"""The review page in a real browser (headless Chromium driven by playwright) against the real
`absa-checks review` server: keyboard review, an edit, a reload, two tabs, a refused edit, filters.

One browser and one server for the module; each test works on the candidates still undecided and judges
the file against a copy taken at its start, so the tests hold in any order."""

from __future__ import annotations

import datetime
import json
from collections import Counter

import pytest
from review_server import make_candidates, records, start, stop

from absa_checks.common.examples import term_starts
from conftest import REPO, needs_extra

MARKS = {"accepted": "a", "rejected": "r"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    path = make_candidates(tmp_path_factory.mktemp("review"))
    proc, url = start(path, "--reviewer", "ann")
    try:
        yield url, path
    finally:
        assert stop(proc) == (0, "")  # SIGTERM: exit 0, nothing on stderr (no traceback)


@pytest.fixture
def page(browser, served):
    from playwright.sync_api import expect

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    found = context.new_page()
    found.goto(served[0])
    expect(found.locator("article.candidate.current")).to_have_count(1)
    yield found
    context.close()


def settled(page) -> None:
    """Every decision sent has been answered (the page counts them in body[data-pending])."""
    from playwright.sync_api import expect

    expect(page.locator("body")).to_have_attribute("data-pending", "0", timeout=60_000)


def current(page) -> str:
    return page.locator("article.candidate.current").get_attribute("data-id")


def changed_lines(before: str, after: str) -> dict[str, dict]:
    """The lines that differ (the file keeps its lines in place), as {id: record now}."""
    old, new = before.split("\n"), after.split("\n")
    assert len(old) == len(new)
    return {json.loads(b)["id"]: json.loads(b) for a, b in zip(old, new) if a != b}


def decidable(path) -> list[dict]:
    return [r for r in records(path) if r["status"] != "not_applicable"]


def test_keyboard_review_of_50_candidates_writes_exactly_those_decisions(page, served):
    _, path = served
    before = path.read_text(encoding="utf-8")
    done_before = sum(1 for r in decidable(path) if r["decision"])
    made = {}
    for i in range(50):
        now = current(page)
        decision = "rejected" if i % 4 == 3 else "accepted"
        page.keyboard.press(MARKS[decision])
        made[now] = decision
        assert current(page) != now  # moved on to the next undecided candidate
    settled(page)
    assert page.locator("#message").inner_text() == "saved"
    changed = changed_lines(before, path.read_text(encoding="utf-8"))
    assert {i: r["decision"] for i, r in changed.items()} == made  # exactly those 50, every other line byte for byte
    for record in changed.values():
        assert record["reviewer"] == "ann"
        assert datetime.datetime.fromisoformat(record["decided_at"]).tzinfo is not None
    total = len(decidable(path))
    assert page.locator("#progress").inner_text() == f"{done_before + 50} of {total} decided"
    # only a window of cards around the current one is in the page (7,000 candidates stay fast)
    assert page.locator("article.candidate").count() <= 16 < total


def test_an_edit_by_keyboard_is_saved_with_its_text_and_span(page, served):
    _, path = served
    from playwright.sync_api import expect

    page.keyboard.press("n")  # to an undecided candidate
    now = current(page)
    record = next(r for r in records(path) if r["id"] == now)
    page.keyboard.press("e")
    editor = page.locator("textarea#edit")
    expect(editor).to_be_focused()
    assert editor.input_value() == (record["sentence"] or record["original"]["sentence"])
    text = editor.input_value().rstrip(".!? ") + ", as I said."
    editor.fill(text)
    editor.press("Control+Enter")
    settled(page)
    expect(page.locator("#message")).to_have_text("saved")
    expect(page.locator("textarea#edit")).to_have_count(0)
    assert current(page) != now  # on to the next undecided
    saved = next(r for r in records(path) if r["id"] == now)
    assert saved["decision"] == "edited" and saved["reviewer"] == "ann"
    term = record["term"]
    assert saved["edited"]["sentence"] == text
    assert text[saved["edited"]["from"]:saved["edited"]["to"]] == term
    assert [saved["edited"]["from"]] == [s for s in term_starts(text, term) if s == saved["edited"]["from"]]
    expect(page.locator(f'article.candidate[data-id="{now}"]')).to_have_attribute("data-decision", "edited")


def test_an_edit_that_removes_the_target_is_refused_with_the_message_and_nothing_written(page, served):
    _, path = served
    from playwright.sync_api import expect

    page.keyboard.press("n")
    now = current(page)
    term = next(r for r in records(path) if r["id"] == now)["term"]
    before = path.read_bytes()
    page.keyboard.press("e")
    page.locator("textarea#edit").fill("Nothing of it is left in this sentence.")
    page.locator("textarea#edit").press("Control+Enter")
    settled(page)
    expect(page.locator("#message")).to_contain_text(f"the edit removes the target '{term}'")
    assert path.read_bytes() == before  # nothing written
    assert current(page) == now  # the reviewer stays on it, the editor still open with the text
    assert page.locator("textarea#edit").input_value() == "Nothing of it is left in this sentence."
    assert page.locator("article.candidate.current").get_attribute("data-decision") == ""
    page.locator("textarea#edit").press("Escape")
    expect(page.locator("textarea#edit")).to_have_count(0)
    page.keyboard.press("u")  # undo of an undecided candidate: stays undecided, written as such
    settled(page)
    assert next(r for r in records(path) if r["id"] == now)["decision"] is None


def narrowest_reason(path) -> tuple[str, int]:
    """A quarantine reason (the check before ': ') shared by a few decidable candidates."""
    counts = Counter(r["reason"].split(": ")[0] for r in decidable(path) if r["status"] == "quarantined")
    return min(((n, reason) for reason, n in counts.items() if n >= 2), default=(0, ""))[::-1]


def test_a_reload_shows_every_decision_from_disk_and_the_progress(page, served):
    _, path = served
    from playwright.sync_api import expect

    reason, n = narrowest_reason(path)
    assert 2 <= n <= 10, "the file should hold a quarantine reason shared by a few candidates"
    page.select_option("#filter-reason", reason)
    expect(page.locator("article.candidate")).to_have_count(n)  # the filter narrows the list
    made = {}
    for i in range(n):
        card = page.locator("article.candidate").nth(i)
        card.click()
        decision = "rejected" if i % 2 else "accepted"
        page.keyboard.press(MARKS[decision])
        made[card.get_attribute("data-id")] = decision
    settled(page)
    expect(page.locator("#progress")).to_have_text(f"{n} of {n} decided")
    page.reload()
    expect(page.locator("article.candidate.current")).to_have_count(1)
    on_disk = [r for r in decidable(path)]
    assert page.locator("#progress").inner_text() == \
        f"{sum(1 for r in on_disk if r['decision'])} of {len(on_disk)} decided"
    page.select_option("#filter-reason", reason)
    expect(page.locator("#progress")).to_have_text(f"{n} of {n} decided")
    shown = {card.get_attribute("data-id"): card.get_attribute("data-decision")
             for card in page.locator("article.candidate").all()}
    assert shown == made


def test_a_second_tab_does_not_lose_the_first_tabs_work(page, browser, served):
    url, path = served
    from playwright.sync_api import expect

    other = browser.new_context().new_page()
    other.goto(url)  # both tabs loaded before either decides: each shows the other's candidates undecided
    expect(other.locator("article.candidate.current")).to_have_count(1)
    first = current(page)
    assert current(other) == first
    page.keyboard.press("a")
    settled(page)
    written = path.read_bytes()
    other.keyboard.press("r")  # the second tab still shows it undecided: refused, the first tab's decision kept
    settled(other)
    expect(other.locator("#message")).to_contain_text(f"candidate {first} was accepted by ann at")
    assert path.read_bytes() == written
    expect(other.locator(f'article.candidate[data-id="{first}"]')).to_have_attribute("data-decision", "accepted")
    for _ in range(3):
        other.keyboard.press("j")
    second = current(other)
    assert second != first
    other.keyboard.press("r")
    settled(other)
    third = current(page)
    page.keyboard.press("r")  # the first tab again, after the second wrote
    settled(page)
    fourth = current(other)
    other.keyboard.press("a")
    settled(other)
    found = {r["id"]: r["decision"] for r in records(path)}
    assert found[first] == "accepted" and found[second] == "rejected" and found[third] == "rejected"
    assert found[fourth] == "accepted"
    other.context.close()


def test_filters_narrow_the_list_and_the_progress_count(page, served):
    _, path = served
    from playwright.sync_api import expect

    rows = decidable(path)
    for select, value, key in (("#filter-strategy", "revnon", "strategy"), ("#filter-status", "quarantined", "status")):
        page.select_option(select, value)
        wanted = [r for r in rows if r[key] == value]
        expect(page.locator("#progress")).to_have_text(
            f"{sum(1 for r in wanted if r['decision'])} of {len(wanted)} decided")
        for card in page.locator("article.candidate").all():
            assert card.locator(f".{key}").first.inner_text() == value
        page.select_option(select, "")
    page.select_option("#filter-decision", "accepted")
    accepted = [r for r in rows if r["decision"] == "accepted"]
    expect(page.locator("#progress")).to_have_text(f"{len(accepted)} of {len(accepted)} decided")
    assert all(c.get_attribute("data-decision") == "accepted" for c in page.locator("article.candidate").all())
    page.select_option("#filter-decision", "")
    # units with no candidate are never offered a decision: shown only under their status, counted as 0 of 0
    page.select_option("#filter-status", "not_applicable")
    expect(page.locator("#progress")).to_have_text("0 of 0 decided")
    before = path.read_bytes()
    page.keyboard.press("a")
    expect(page.locator("#message")).to_contain_text("not_applicable")
    settled(page)
    assert path.read_bytes() == before


def test_the_page_marks_the_target_other_aspects_and_the_edit(page, served):
    _, path = served
    page.select_option("#filter-strategy", "revnon")
    page.select_option("#filter-status", "shipped")
    card = page.locator("article.candidate.current")
    record = next(r for r in records(path) if r["id"] == card.get_attribute("data-id"))
    assert card.locator(".variant .target").inner_text() == record["term"]
    assert card.locator(".original .target").inner_text() == record["original"]["term"]
    assert {a.inner_text() for a in card.locator(".variant .aspect").all()} == \
        {a["term"] for a in record["other_aspects"]}
    marked = " ".join(m.inner_text() for m in card.locator(".variant mark").all())
    struck = " ".join(d.inner_text() for d in card.locator(".original del").all())
    for edit in record["edits"]:  # the generator's edits are what the diff shows
        assert edit["new"].strip() in marked and edit["old"].strip() in struck
    assert card.locator(".strategy").inner_text() == "revnon" and card.locator(".source").inner_text() == record["source"]
    (REPO / "test-artifacts").mkdir(exist_ok=True)
    page.screenshot(path=str(REPO / "test-artifacts" / "review-page.png"))  # for the docs; looked at by people


def test_the_moving_keys_and_the_help(page):
    from playwright.sync_api import expect

    first = current(page)
    page.keyboard.press("j")
    second = current(page)
    page.keyboard.press("ArrowDown")
    assert len({first, second, current(page)}) == 3
    page.keyboard.press("ArrowUp")
    assert current(page) == second
    page.keyboard.press("k")
    assert current(page) == first
    page.locator(f'article.candidate[data-id="{second}"]').click()
    assert current(page) == second
    page.keyboard.press("?")
    expect(page.locator("#help")).to_be_visible()
    expect(page.locator("#help")).to_contain_text("accept")
    page.keyboard.press("?")
    expect(page.locator("#help")).to_be_hidden()


def test_the_page_opens_on_the_first_candidate_that_needs_a_decision_and_says_how_many(browser, tmp_path):
    """A file whose first candidates are decided (a review resumed): the page opens on the first undecided one,
    in view, and says how many need a decision (the start line's count); deciding it moves on and counts down."""
    from playwright.sync_api import expect
    from review_server import START

    from absa_checks.cli import main

    path = make_candidates(tmp_path)
    ids = [r["id"] for r in decidable(path)]
    assert main(["decide", str(path), "--accept", *ids[:7], "--reviewer", "ann"]) == 0
    proc, url = start(path, "--reviewer", "ann")
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(url)
        expect(page.locator("article.candidate.current")).to_have_count(1)
        assert current(page) == ids[7]
        expect(page.locator("article.candidate.current")).to_be_in_viewport()
        left = len(ids) - 7
        assert int(START.match(proc.start_line.rstrip("\n"))["left"]) == left
        expect(page.locator("#left")).to_have_text(f"{left} need a decision")
        page.keyboard.press("a")
        settled(page)
        assert current(page) == ids[8]
        expect(page.locator("#left")).to_have_text(f"{left - 1} need a decision")
    finally:
        context.close()
        assert stop(proc) == (0, "")


def test_closing_the_tab_while_a_decision_is_on_its_way_asks_first_and_the_decision_lands(browser, tmp_path):
    """The page shows a decision at once and saves it in the background: with the server held (SIGSTOP),
    closing the tab raises the browser's "leave page?" question; staying, the decision is on disk once the
    server runs again."""
    import os
    import signal

    from playwright.sync_api import expect

    path = make_candidates(tmp_path)
    proc, url = start(path, "--reviewer", "ann")
    context = browser.new_context()
    try:
        tab = context.new_page()
        tab.goto(url)
        expect(tab.locator("article.candidate.current")).to_have_count(1)
        wanted = current(tab)
        asked = []
        tab.on("dialog", lambda dialog: (asked.append(dialog.type), dialog.dismiss()))
        os.kill(proc.pid, signal.SIGSTOP)
        try:
            tab.keyboard.press("a")
            expect(tab.locator("body")).not_to_have_attribute("data-pending", "0")
            tab.close(run_before_unload=True)
            expect(tab.locator("body")).to_have_attribute("data-pending", "1")  # still open: the tab stayed
        finally:
            os.kill(proc.pid, signal.SIGCONT)
        assert asked == ["beforeunload"]
        settled(tab)
        assert next(r for r in records(path) if r["id"] == wanted)["decision"] == "accepted"
    finally:
        context.close()
        assert stop(proc) == (0, "")


@needs_extra("openai")
def test_the_page_shows_which_candidates_the_rewriter_wrote(browser, tmp_path):
    """Issue 29: an LLM's candidates beside the rules', labelled with the rewriter and its model."""
    from openai_server import FakeOpenAI
    from playwright.sync_api import expect
    from workflows.test_rewrite import EVEN, GOOD_EVEN, _setup

    from absa_checks.cli import main

    with FakeOpenAI() as server:
        args = _setup(tmp_path, server)
        server.rewrites[EVEN] = GOOD_EVEN
        assert main([*args, "--candidates", "--out", str(tmp_path / "cand.jsonl")]) == 0
    proc, url = start(tmp_path / "cand.jsonl", "--reviewer", "ann")
    try:
        page = browser.new_page()
        page.goto(url)
        expect(page.locator("article.candidate.current")).to_have_count(1)
        origins = page.locator("article.candidate .origin")
        expect(origins.filter(has_text="by the rewriter rw (rewriter)")).not_to_have_count(0)
        assert "" in [o.inner_text() for o in origins.all()]  # the rules' candidates: empty, so hidden
        page.close()
    finally:
        assert stop(proc) == (0, "")
