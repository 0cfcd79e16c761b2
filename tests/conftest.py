"""Fixtures shared by the test files: one headless Debian chromium per browser test module."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    from tests.test_web_browser import ARGS, CHROMIUM

    assert CHROMIUM.exists(), "needs Debian chromium at /usr/bin/chromium: run `make chromium`"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()
