"""Setup's option tags ("HTD-16") open the ruling they stand for, read from docs/RULINGS.md
(day 34: a family saw engine terms and tags leading nowhere)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.page_wait import wait_until
from tests.serving import ServedApp
from tests.test_web_browser import LANDSCAPE, Screen
from tests.test_web_routes import Tablet, make_app
from web.services.rulings import RULINGS_FILE, paragraphs, rulings


def test_a_ruling_page_shows_the_rule_quoted_and_the_ruling_without_the_tests(tmp_path):
    tablet = Tablet(make_app(tmp_path))
    r = tablet.client.get("/rulings/htd-16")
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert "HTD-16 · A tie for last" in page
    assert "<blockquote>The last player to slap the discard pile draws four cards" in page
    assert "race_tie" in page and "test_ruling_" not in page


def test_an_unknown_ruling_is_a_404_that_says_so(tmp_path):
    tablet = Tablet(make_app(tmp_path))
    r = tablet.client.get("/rulings/HTD-999")
    page = r.get_data(as_text=True)
    assert r.status_code == 404 and "there is no ruling &#39;HTD-999&#39;" in page


def test_every_option_of_every_game_names_a_ruling_that_exists(tmp_path):
    tablet = Tablet(make_app(tmp_path))
    known = rulings(RULINGS_FILE)
    for game in tablet.client.get("/api/catalogue").json["games"]:
        for option in game["options"]:
            if option.get("ruling"):
                assert option["ruling"] in known, (game["name"], option["name"])
                assert paragraphs(known[option["ruling"]])


@pytest.fixture(scope="module")
def served(tmp_path_factory: Any) -> Iterator[tuple[str, Any]]:
    app = make_app(tmp_path_factory.mktemp("rulings34"), race_timer=False)
    with ServedApp(app, threads=8) as server:
        yield server.url, app
        app.extensions["tabletop"].end_streams()


@pytest.mark.browser
def test_an_options_tag_on_setup_opens_its_ruling(served, browser):
    screen = Screen(browser, served[0], LANDSCAPE)
    page = screen.go("/setup")
    page.click("#game-choices button:has-text('Hit the Deck')")
    tag = page.locator("#options a.tag", has_text="HTD-16").first
    assert tag.get_attribute("href") == "/rulings/HTD-16"
    with screen.ctx.expect_page() as opened:
        tag.click()
    ruling = opened.value
    ruling.wait_for_load_state()
    assert "A tie for last" in ruling.locator("h1").inner_text()
    screen.close()


@pytest.mark.browser
def test_an_ended_games_scoreboard_marks_nobodys_turn(served, browser):
    tablet = Tablet(served[1])
    tablet.set_pin()
    game_id = tablet.new_game("dos", ("Ana", "Bob"))
    deal = {"kind": "deal", "payload": {"hands": [14, 14], "piles": ["R3", "B5"]}}
    assert tablet.send(game_id, deal).status_code == 201
    screen = Screen(browser, served[0], LANDSCAPE)
    page = screen.go(f"/scoreboard?game={game_id}")
    page.wait_for_selector("#players .player.turn")  # a running game: someone's turn
    assert tablet.post(f"/api/games/{game_id}/end", {}).status_code == 200
    wait_until(page, "document.getElementById('sb-status').textContent.includes('ended')")
    assert page.locator("#players .player.turn, #players .turn-tag").count() == 0
    screen.close()


def test_a_ruling_whose_file_lists_tests_shows_none_of_them(tmp_path):
    """DASH-10 says "**Tests:**": its test names were shown to the family."""
    page = Tablet(make_app(tmp_path)).client.get("/rulings/DASH-10").get_data(as_text=True)
    assert "DASH-10" in page and "test_" not in page


@pytest.mark.browser
def test_start_game_goes_on_when_the_browser_cannot_store_the_names(served, browser):
    """Private mode or a full quota: localStorage.setItem throws; Start game stayed locked."""
    screen = Screen(browser, served[0], LANDSCAPE)
    from tests.test_web_browser import unlock

    unlock(screen, served[1])
    page = screen.go("/setup")
    page.evaluate("() => { Storage.prototype.setItem = () => { throw new Error('quota'); }; }")
    page.click("#game-choices button:has-text('DOS')")
    for box, name in zip(page.locator("#player-list input").all(), ("Ana", "Bob"), strict=False):
        box.fill(name)
    page.click("#start")
    page.wait_for_url("**/console?game=*")
    screen.close()
