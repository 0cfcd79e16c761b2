"""The pages in real headless Chromium (day 36's review): a game ended early shows the
winners it was recorded with (WEB-1), and long words (a deal's hands, code named in a
ruling) wrap instead of pushing a phone's page sideways."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.serving import ServedApp
from tests.test_web_browser import LANDSCAPE, PHONE, Screen, unlock
from tests.test_web_routes import BOB_FINISHES
from web import create_app
from web.config import WebConfig

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[tuple[str, Any]]:
    app = create_app(WebConfig(db_path=tmp_path_factory.mktemp("web36") / "tabletop.db"))
    served = ServedApp(app, threads=16)
    yield served.url, app
    app.extensions["tabletop"].end_streams()
    served.stop()


def sideways(page: Any) -> int:
    """How far the page is wider than the screen (0: nothing to scroll sideways)."""
    return page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


def test_ruling_web1_a_game_ended_early_shows_its_winners_on_the_scoreboard(server, browser):
    from playwright.sync_api import expect

    base, app = server
    referee = Screen(browser, base)
    unlock(referee, app)
    created = referee.api("POST", "/api/games", {"game": "deck-dash", "players": ["Ann", "Bob"]})
    game_id = created["data"]["id"]
    for event in BOB_FINISHES:  # Bob wins Dash 1 and leads; the game goes on
        assert referee.api("POST", f"/api/games/{game_id}/events", event)["ok"]
    ended = referee.api("POST", f"/api/games/{game_id}/end")
    assert ended["ok"], ended
    viewer = Screen(browser, base, LANDSCAPE)
    board = viewer.go(f"/scoreboard?game={game_id}")
    expect(board.locator("#sb-status")).to_have_text("· ended · Bob wins")
    expect(board.locator("#players .player.winner")).to_have_attribute("data-seat", "1")
    expect(board.locator("#players .win-tag")).to_have_count(1)
    viewer.close()
    referee.close()


def test_a_deal_in_the_feed_and_a_ruling_naming_code_fit_a_phone(server, browser):
    from playwright.sync_api import expect

    base, app = server
    phone = Screen(browser, base, PHONE)
    unlock(phone, app)
    hands = [["R1", "G5", "R7", "B2", "Y9", "G1", "B3"], ["R2", "B5", "Y3", "G7", "R9", "Y1", "G4"]]
    created = phone.api("POST", "/api/games", {"game": "dos", "players": ["Ann", "Bob"]})
    game_id = created["data"]["id"]
    deal = {"kind": "deal", "seat": 0, "payload": {"hands": hands, "piles": ["R10", "G2"]}}
    answer = phone.api("POST", f"/api/games/{game_id}/events", deal)
    assert answer["ok"], answer
    console = phone.go("/console")
    expect(console.locator("#feed li")).to_have_count(1)
    assert sideways(console) == 0
    clipped = (
        "() => [...document.querySelectorAll('#feed li')]"
        ".map((li) => li.scrollWidth - li.clientWidth)"
    )
    assert console.evaluate(clipped) == [0]  # the hands wrap inside their entry
    ruling = phone.go("/rulings/WD-22")
    expect(ruling.locator(".ruling")).to_contain_text("PRESS_WAIT_NS")
    assert sideways(ruling) == 0
    phone.close()
