"""Round 34's taps and narrow screens in headless Chromium: a button that changes something is
locked until its request answers (a double tap on Start game made two games, on Send logged
the event twice); the Live page's camera-referee switch comes back after a failed status
call; the scoreboard's turn tag covers no name on a tablet; History's tables fit a phone;
an ended game's console marks nobody's turn."""

from __future__ import annotations

from typing import Any

import pytest

from tests.serving import ServedApp
from tests.test_web_browser import LANDSCAPE, PHONE, Screen
from tests.test_web_review33 import console, referee_screen
from tests.test_web_routes import BOB_FINISHES, make_app, write_images

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABLET = {"width": 1024, "height": 768}
DOS_DEAL = {"kind": "deal", "payload": {"hands": [14, 14], "piles": ["R3", "B5"]}}


class HeldPosts:
    """POSTs to ``pattern`` held unanswered until ``release()``: a double tap then lands while
    the first request is surely in flight, whatever the machine's speed."""

    def __init__(self, page: Any, pattern: str) -> None:
        self.page, self.pattern, self.held = page, pattern, []
        page.route(pattern, self.hold)

    def hold(self, route: Any) -> None:
        if route.request.method == "POST":
            self.held.append(route)
        else:
            route.continue_()

    def release(self) -> None:
        for route in self.held:
            route.continue_()
        self.page.unroute(self.pattern)


# -- 1. a double tap sends once ----------------------------------------------------------------


def test_a_double_tap_on_start_game_starts_one_game(served, tablet, browser):
    """Before: both taps reached the server: two games, the family's names in each."""
    screen = referee_screen(browser, served, TABLET)
    page = screen.go("/setup")
    page.click("#game-choices button[data-game='dos']")
    page.fill("#player-list input[data-seat='0']", "Mum")
    page.fill("#player-list input[data-seat='1']", "Leo")
    posts = HeldPosts(page, "**/api/games")
    page.dblclick("#start")
    page.click("#start", force=True)  # force: Playwright itself waits while aria-disabled
    page.wait_for_timeout(300)  # a third request, were one sent, would be held by now
    assert len(posts.held) == 1
    with page.expect_navigation(url="**/console?game=*"):
        posts.release()
    screen.close()


def test_a_start_game_the_server_refuses_can_be_tapped_again(served, browser):
    from playwright.sync_api import expect

    screen = referee_screen(browser, served, TABLET)
    page = screen.go("/setup")
    page.click("#game-choices button[data-game='dos']")
    page.fill("#player-list input[data-seat='0']", "Mum")
    page.fill("#player-list input[data-seat='1']", "Leo")
    page.fill("#opt-rounds", "0")
    page.click("#start")
    expect(page.locator("#setup-error")).to_be_visible()
    expect(page.locator("#start")).not_to_have_attribute("aria-disabled", "true")
    page.fill("#opt-rounds", "1")
    with page.expect_navigation(url="**/console?game=*"):
        page.click("#start")
    screen.close()


def test_a_double_tap_on_send_logs_the_event_once(served, tablet, browser):
    """Before: the second tap's deal was logged too, refused ("already dealt"), for good."""
    from playwright.sync_api import expect

    game_id = tablet.new_game("dos", ("Ana", "Bob"))
    screen = referee_screen(browser, served, TABLET)
    page = console(screen, game_id)
    page.click("#kinds button[data-kind='deal']")
    page.fill("#f-hands", "14 14")
    page.fill("#f-piles", "R3 B5")
    posts = HeldPosts(page, f"**/api/games/{game_id}/events")
    page.dblclick("#send")
    page.focus("#f-piles")
    page.keyboard.press("Enter")  # Enter sends too: not while the first is unanswered
    page.wait_for_timeout(300)
    assert len(posts.held) == 1
    posts.release()
    expect(page.locator("#feed li[data-seq='1']")).to_be_visible()
    expect(page.locator("#send")).not_to_have_attribute("aria-disabled", "true")
    assert len(tablet.snapshot(game_id)["feed"]) == 1
    screen.close()


@pytest.mark.parametrize("action", ["accept", "undo"])
def test_a_double_tap_on_accept_or_undo_sends_once(served, tablet, browser, action):
    """Before: a double tap on Undo sent two undos of the same entry (the second refused)."""
    from playwright.sync_api import expect

    game_id = tablet.new_game("deck-dash", ("Ann", "Bob"))
    for event in BOB_FINISHES[:3]:
        assert tablet.send(game_id, event).status_code == 201
    seq = next(f["seq"] for f in tablet.snapshot(game_id)["feed"] if f["verdicts"])
    screen = referee_screen(browser, served, TABLET)
    page = console(screen, game_id)
    button = page.locator(f"#feed li[data-seq='{seq}'] button[data-action='{action}']")
    posts = HeldPosts(page, f"**/api/games/{game_id}/{action}")
    button.dblclick()
    page.wait_for_timeout(300)
    assert len(posts.held) == 1
    expect(button).to_be_focused()  # locked, not disabled: the keyboard's place stays
    posts.release()
    entry = page.locator(f"#feed li[data-seq='{seq}']")
    expect(entry).to_contain_text("accepted" if action == "accept" else "undone")
    screen.close()


# -- 2. the Live page's switch comes back ---------------------------------------------------


def test_the_camera_referee_switch_comes_back_after_a_failed_status_call(browser, tmp_path):
    """Before: one status call that failed (a restart, a Wi-Fi blip) greyed the switch out
    until the page was reloaded."""
    from playwright.sync_api import expect

    app = make_app(tmp_path, camera=str(write_images(tmp_path / "frames", 3)), race_timer=False)
    with ServedApp(app, threads=16) as server:
        screen = referee_screen(browser, (server.url, app), TABLET)
        page = screen.go("/live")
        switch = page.locator("#ref-toggle")
        expect(page.locator("#ref-status")).not_to_have_text("Camera referee: …")
        expect(switch).to_be_enabled()
        page.route("**/api/camera/status", lambda route: route.abort())
        expect(page.locator("#ref-status")).to_have_text("Camera referee: not available")
        expect(switch).to_be_disabled()
        page.unroute("**/api/camera/status")
        expect(switch).to_be_enabled(timeout=10000)
        screen.close()
        app.extensions["tabletop"].end_streams()


def test_a_double_tap_on_the_camera_referee_switch_sends_once(browser, tmp_path):
    """Before: each tap sent its own request; the second could be answered first, leaving the
    camera referee off while the switch said on."""
    from playwright.sync_api import expect

    app = make_app(tmp_path, camera=str(write_images(tmp_path / "frames", 3)), race_timer=False)
    with ServedApp(app, threads=16) as server:
        screen = referee_screen(browser, (server.url, app), TABLET)
        page = screen.go("/live")
        switch = page.locator("#ref-toggle")
        expect(page.locator("#ref-status")).to_contain_text("events")
        was = switch.is_checked()
        posts = HeldPosts(page, "**/api/camera/referee")
        switch.click()
        switch.click(force=True)  # force: Playwright itself waits while aria-disabled
        page.wait_for_timeout(300)
        assert len(posts.held) == 1
        expect(switch).to_be_checked(checked=not was)
        posts.release()
        expect(switch).not_to_have_attribute("aria-disabled", "true")
        status = server_status(app)
        assert status["enabled"] is (not was)
        expect(switch).to_be_checked(checked=not was)
        screen.close()
        app.extensions["tabletop"].end_streams()


def server_status(app: Any) -> dict[str, Any]:
    return dict(app.test_client().get("/api/camera/status").json["referee"])


def test_a_viewer_s_switch_stays_greyed_out(browser, tmp_path):
    """The switch is the referee's: a status call that succeeds does not hand it to a viewer."""
    from playwright.sync_api import expect

    app = make_app(tmp_path, camera=str(write_images(tmp_path / "frames", 3)), race_timer=False)
    with ServedApp(app, threads=16) as server:
        screen = Screen(browser, server.url, TABLET)
        page = screen.go("/live")
        expect(page.locator("#ref-status")).to_contain_text("events")
        expect(page.locator("#ref-toggle")).to_be_disabled()
        screen.close()
        app.extensions["tabletop"].end_streams()


# -- 3. the turn tag covers no name -------------------------------------------------------------

COVERED = """() => { const card = document.querySelector('#players .player.turn');
  const name = card.querySelector('.name'), tag = card.querySelector('.turn-tag');
  const range = document.createRange(); range.selectNodeContents(name);
  const g = tag.getBoundingClientRect(), c = card.getBoundingClientRect();
  const lines = [...range.getClientRects()];
  return { covered: lines.some((t) => t.right > g.left && t.left < g.right && t.bottom > g.top && t.top < g.bottom),
    outside: lines.some((t) => t.right > c.right + 1) }; }"""  # noqa: E501


@pytest.mark.parametrize("viewport", [TABLET, {"width": 768, "height": 1024}, LANDSCAPE, PHONE])
def test_the_turn_tag_covers_no_name_and_a_long_name_stays_in_its_card(
    served, tablet, browser, viewport
):
    """Before: at 1024 px the tag sat over "Charlotte"'s last letters, and a name of one long
    word ran out of its card."""
    screen = Screen(browser, served[0], viewport)
    for first in ("Charlotte", "Wolfeschlegelsteinhausenberger"):
        game_id = tablet.new_game("dos", (first, "Bob"))
        assert tablet.send(game_id, DOS_DEAL).status_code == 201
        page = screen.go(f"/scoreboard?game={game_id}")
        page.wait_for_selector("#players .player.turn .turn-tag")
        assert page.locator("#players .player.turn .name").inner_text() == first
        assert page.evaluate(COVERED) == {"covered": False, "outside": False}, (viewport, first)
    screen.close()


# -- 4. History on a phone ------------------------------------------------------------------

OFF_SCREEN = """() => { const width = document.documentElement.clientWidth;
  return [...document.querySelectorAll('#games-table td, #stats-table td')]
    .filter((td) => { const r = td.getBoundingClientRect();
      return r.left < 0 || r.right > width + 1; })
    .map((td) => td.textContent.trim()); }"""


def test_history_on_a_phone_shows_every_column_labelled(served, tablet, browser):
    """Before: "Played" and "Win rate" sat off the screen in a panel scrolled sideways."""
    from playwright.sync_api import expect

    game_id = tablet.new_game("deck-dash", ("Annabelle", "Bartholomew", "Cleo", "Dmitri"))
    tablet.post(f"/api/games/{game_id}/end")
    screen = Screen(browser, served[0], PHONE)
    page = screen.go("/history")
    expect(page.locator("#games-table td").first).to_be_visible()
    assert page.evaluate(OFF_SCREEN) == []
    for panel in page.locator("section.scroll-x").all():
        assert panel.evaluate("(p) => p.scrollWidth <= p.clientWidth")
    row = page.locator("#stats-table tr", has_text="Bartholomew")
    rate = row.locator("td[data-label='Win rate']")
    expect(rate).to_be_visible()
    label = rate.evaluate("(td) => getComputedStyle(td, '::before').content")
    assert label == '"Win rate"'
    screen.close()


def test_history_on_a_tablet_is_still_a_table(served, tablet, browser):
    from playwright.sync_api import expect

    tablet.new_game("dos", ("Ana", "Bob"))
    screen = Screen(browser, served[0], TABLET)
    page = screen.go("/history")
    expect(page.locator("#stats-table th").first).to_be_visible()
    display = page.locator("#stats-table td").first.evaluate("(td) => getComputedStyle(td).display")
    assert display == "table-cell"
    screen.close()


# -- 5. an ended game's console ---------------------------------------------------------------


def test_an_ended_game_s_console_marks_nobody_s_turn(served, tablet, browser):
    """Before: the console still outlined the player on turn, and said "… to play"."""
    from playwright.sync_api import expect

    game_id = tablet.new_game("dos", ("Ana", "Bob"))
    assert tablet.send(game_id, DOS_DEAL).status_code == 201
    assert tablet.post(f"/api/games/{game_id}/end").status_code == 200
    screen = referee_screen(browser, served, TABLET)
    page = console(screen, game_id)
    expect(page.locator("#c-title")).to_contain_text("(ended)")
    expect(page.locator("#c-score .player")).to_have_count(2)
    expect(page.locator("#c-score .player.turn")).to_have_count(0)
    expect(page.locator("#c-meta")).not_to_contain_text("to play")
    screen.close()
