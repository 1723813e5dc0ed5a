"""Helpers of the review page tests: a candidates file written by the real `generate`, the real
`absa-checks review` started as a subprocess (its one start line read for the URL), Chromium found as
tests/reports/test_allure_support.py finds it."""

from __future__ import annotations

import json
import re
import shutil
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from absa_checks.cli import main
from conftest import start_server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
START = re.compile(r"^absa-checks review: (?P<file>.+) at (?P<url>http://127\.0\.0\.1:(?P<port>\d+)/) "
                   r"\((?P<left>\d+) (candidates to decide; every decision|items to answer; every answer) is saved "
                   r"at once; Ctrl-C stops\)$")
LINES = 240  # the first lines of the generated file: enough for every test, small enough to stay fast


def make_candidates(folder: Path) -> Path:
    """REVTGT and REVNON candidates of the built-in restaurant source (no shared data needed), written by
    `absa-checks generate --candidates`, cut to its first LINES lines (each line stands alone)."""
    full = folder / "all.jsonl"
    assert main(["generate", "--source", "builtin-restaurant", "--strategies", "revtgt,revnon", "--candidates",
                 "--out", str(full)]) == 0
    path = folder / "reviewed.jsonl"
    path.write_text("".join(full.read_text(encoding="utf-8").splitlines(keepends=True)[:LINES]), encoding="utf-8")
    return path


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def start(path: Path, *args: str, env: dict | None = None) -> tuple[subprocess.Popen, str]:
    """The real command on `path`; its URL, read from the one line it prints before serving."""
    proc, found, line = start_server(["review", str(path), "--port", "0", *args], START, path.parent, env)
    proc.start_line = line  # type: ignore[attr-defined]  # read back by the start-line test
    return proc, found["url"]


def stop(proc: subprocess.Popen) -> tuple[int, str]:
    """SIGTERM, as a service manager stops it: its exit status and what it wrote on stderr."""
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=30)  # a generous liveness bound, not a timing assertion
    return proc.returncode, err


def token_of(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as answer:
        page = answer.read().decode("utf-8")
    return re.search(r'"token": "([^"]+)"', page)[1]


def post(url: str, body: object, content_type: str = "application/json", host: str | None = None,
         raw: bytes | None = None) -> tuple[int, dict]:
    """POST /api/decide; the status and the JSON answer (an error's too)."""
    data = raw if raw is not None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url + "api/decide", data=data, method="POST",
                                     headers={"Content-Type": content_type, **({"Host": host} if host else {})})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"{}")


def launch_browser(playwright):
    """Headless Debian Chromium (the tests never download a browser)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])


def sync_playwright():
    """playwright's sync API, or a skip naming the missing piece."""
    if CHROMIUM is None:
        pytest.skip("no Chromium for the review page tests: apt-get install chromium")
    try:
        from playwright.sync_api import sync_playwright as found
    except ImportError:
        pytest.skip("playwright is not installed: pip install -e '.[test]' (the test extra)")
    return found()
