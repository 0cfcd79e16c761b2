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


@pytest.fixture(scope="module")
def served(tmp_path_factory: Any) -> Iterator[tuple[str, Any]]:
    """A dashboard (no camera, the virtual pads, no race timer) under a real server: its URL
    and app, one per test module. Modules that need another set-up define their own."""
    from tests.serving import ServedApp
    from tests.test_web_routes import make_app

    app = make_app(tmp_path_factory.mktemp("served"), race_timer=False)
    with ServedApp(app, threads=16) as server:
        yield server.url, app
        app.extensions["tabletop"].end_streams()


@pytest.fixture(scope="module")
def tablet(served: tuple[str, Any]) -> Any:
    """Another tablet (a test client on the same server), the referee's."""
    from tests.test_web_routes import Tablet

    t = Tablet(served[1])
    assert t.set_pin().status_code == 302
    return t


@pytest.fixture
def decks(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """An empty deck-profile folder in place of models/decks, for the family's profiles."""
    import vision.decks as vd

    folder = tmp_path / "decks"
    folder.mkdir()
    monkeypatch.setattr(vd, "DECKS_DIR", folder)
    return folder


@pytest.fixture
def referee(tmp_path: Any) -> Any:
    """The referee's tablet (its PIN set) on a fresh dashboard (no race timer), a test client.
    Modules that need another set-up define their own."""
    from tests.test_web_routes import Tablet, make_app

    t = Tablet(make_app(tmp_path, race_timer=False))
    assert t.set_pin().status_code == 302
    return t
