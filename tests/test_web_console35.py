"""Round 35 in headless Chromium: a deal's seat is its dealer (DOS-24), so the console's seat
of the last Send no longer rides along into the next deal, nor into another game; the
scoreboard says who plays a Deck Dash tie-break instead of listing seat numbers."""

from __future__ import annotations

import pytest

from tests.test_web_review33 import console, referee_screen
from tests.test_web_taps34 import TABLET

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


def test_the_scoreboard_marks_who_plays_the_tie_break_not_a_seat_number(served, tablet, browser):
    """A one-Dash game ended level: both play a tie-break Dash. Each card says "in tiebreak";
    before, the list of tied seats read as a score ("tiebreak: 0", "tiebreak: 1")."""
    from playwright.sync_api import expect

    table = {"game": "deck-dash", "players": ["Ann", "Bob"], "options": {"dash_count": 1}}
    made = tablet.post("/api/games", table)
    assert made.status_code == 201
    game_id = made.json["id"]
    deal = {"kind": "deal", "seat": 0, "payload": {"start": "R5", "hands": [12, 12]}}
    assert tablet.send(game_id, deal).status_code == 201
    assert tablet.send(game_id, {"kind": "end_dash"}).status_code == 201
    screen = referee_screen(browser, served, TABLET)
    page = screen.go("/scoreboard")
    for seat in (0, 1):
        sub = page.locator(f".player[data-seat='{seat}'] .sub")
        expect(sub).to_contain_text("in tiebreak")
        expect(sub).not_to_contain_text("tiebreak:")
    screen.close()
