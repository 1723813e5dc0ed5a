"""A page opened in headless Chromium with the network blocked, and every request the page made, read from
Chromium's own record of its network traffic (its NetLog): for the tests that say no page of the tool
contacts a host the user did not configure (tests/e2e/test_offline_pages.py).

Every host name but 127.0.0.1 resolves to nothing (--host-resolver-rules), so nothing can leave the machine
while the test runs; the NetLog still lists each request the page tried. The browser's own background
requests (update checks, clock sync: no page asked for them, the NetLog gives them no initiator) are left out.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from conftest import REQUIRE_EXTRAS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
OFFLINE_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--window-size=1280,1000"]
LOCAL_SCHEMES = ("file", "data", "blob", "about")
NOT_A_PAGE = "not an origin"  # the NetLog's initiator of a request the browser made for itself


def require(found: bool, reason: str) -> None:
    """Skip naming what is missing, unless ABSA_REQUIRE_EXTRAS=1 (CI, which installs Chromium and Allure):
    then the check fails instead of passing unseen."""
    if found:
        return
    if os.environ.get(REQUIRE_EXTRAS) == "1":
        pytest.fail(f"{reason} ({REQUIRE_EXTRAS}=1: CI installs it, so this check must run)", pytrace=False)
    pytest.skip(reason)


def page_requests(netlog: dict) -> list[str]:
    """The URL of every request a page made (the start of each URL_REQUEST_START_JOB with an initiator), in order."""
    kinds = {number: name for name, number in netlog["constants"]["logEventTypes"].items()}
    found = []
    for event in netlog["events"]:
        params = event.get("params") or {}
        if kinds.get(event["type"]) == "URL_REQUEST_START_JOB" and "url" in params \
                and params.get("initiator") != NOT_A_PAGE:
            found.append(params["url"])
    return found


def leaving(urls: list[str], origin: str | None = None) -> list[str]:
    """The URLs that are neither local (file:, data:, blob:, about:) nor on `origin` (scheme://127.0.0.1:port)."""
    allowed = urlsplit(origin) if origin else None

    def local(url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme in LOCAL_SCHEMES:
            return True
        return allowed is not None and parts.hostname == "127.0.0.1" and parts.port == allowed.port

    return [url for url in urls if not local(url)]


def open_offline(url: str, profile: Path, budget_ms: int = 20_000) -> tuple[str, list[str]]:
    """Open `url` with the network blocked (a fresh profile, every flag that quiets the browser's own traffic):
    the page's DOM once it has run for `budget_ms` of virtual time, and every request it made."""
    assert CHROMIUM is not None, "call require(CHROMIUM is not None, ...) first"
    netlog = profile.with_suffix(".netlog.json")
    command = [CHROMIUM, *OFFLINE_FLAGS, f"--user-data-dir={profile}", f"--log-net-log={netlog}",
               f"--virtual-time-budget={budget_ms}", "--allow-file-access-from-files", "--dump-dom", url]
    done = subprocess.run(command, capture_output=True, text=True, timeout=180)
    try:
        record = json.loads(netlog.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise AssertionError(f"Chromium wrote no readable NetLog for {url} ({err}); stderr: {done.stderr[-2000:]}") from None
    return done.stdout, page_requests(record)
