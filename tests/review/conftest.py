"""What the review page's tests share: one headless Chromium per test module."""

from __future__ import annotations

import pytest
from review_server import launch_browser, sync_playwright


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:  # skipped, naming what is missing, before any server starts
        found = launch_browser(playwright)
        yield found
        found.close()
