"""Round 35, the console in headless Chromium: a deal's seat is its dealer (DOS-24), so the
seat of the last Send no longer rides along into the next deal, nor into another game."""

from __future__ import annotations

import pytest

from tests import test_web_taps34
from tests.test_web_review33 import console, referee_screen

served, tablet = test_web_taps34.served, test_web_taps34.tablet  # the same fixtures
TABLET = test_web_taps34.TABLET

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLAYERS = ("Ann", "Bea", "Cal")


def _no_seat_pressed(page) -> None:
    from playwright.sync_api import expect

    expect(page.locator("#seats button[data-seat='']")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#seats button[data-seat='1']")).to_have_attribute("aria-pressed", "false")


def test_ruling_dos24_a_deal_entered_after_a_play_names_no_dealer(served, tablet, browser):
    """Bea's seat stays chosen after her Send; choosing "deal" next starts from no seat, so
    the deal follows the rotation. Before, the deal went out with seat 1: Bea dealt (and the
    "no seat" button never showed as chosen)."""
    from playwright.sync_api import expect

    game_id = tablet.new_game("dos", PLAYERS)
    screen = referee_screen(browser, served, TABLET)
    page = console(screen, game_id)
    page.click("#seats button[data-seat='1']")
    page.click("#kinds button[data-kind='deal']")
    _no_seat_pressed(page)
    page.fill("#f-hands", "7 7 7")
    page.fill("#f-piles", "R3 B5")
    page.click("#send")
    expect(page.locator("#feed li[data-seq='1']")).to_be_visible()
    assert "seat" not in tablet.snapshot(game_id)["feed"][0]["event"]
    screen.close()


def test_another_game_starts_the_console_from_no_seat(served, tablet, browser):
    """The console follows a game another tablet starts: the old game's seat is dropped."""
    from playwright.sync_api import expect

    first = tablet.new_game("dos", PLAYERS)
    screen = referee_screen(browser, served, TABLET)
    page = screen.go("/console")
    expect(page.locator("#c-title")).to_contain_text(f"game {first}")
    page.wait_for_selector("#kinds button")
    page.click("#kinds button[data-kind='play']")
    page.click("#seats button[data-seat='1']")
    started = tablet.new_game("dos", PLAYERS)
    expect(page.locator("#c-title")).to_contain_text(f"game {started}")
    expect(page.locator("#kinds button[data-kind='play']")).to_be_visible()
    _no_seat_pressed(page)
    screen.close()
