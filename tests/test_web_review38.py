"""Round 38's review of the pages in headless Chromium, and one race's wording: a double tap on
End game only arms it (WEB-12: the second tap is a deliberate one), and the button is locked
while the end is sent; a keyboard Undo leaves the focus in the feed; the questions' heading
says who asks (the pads' are the referee's); Wash Dash, where everyone races at once, marks
nobody's turn during a round and says who reveals the next; an untimed Hit the Deck race is
timed from the first slap, and its reason says so (HTD-14)."""

from __future__ import annotations

from typing import Any

import pytest

from referee.races import Press, RaceRules, last_slapper
from tests.test_hitthedeck_review34 import _ann_to_play_a_hand_card
from tests.test_web_browser import Screen
from tests.test_web_review33 import console, referee_screen
from tests.test_web_routes import BOB_FINISHES, DEAL
from tests.test_web_taps34 import TABLET, HeldPosts

MS = 1_000_000
ANN, BOB, CAT = 0, 1, 2
FOCUSED = """(() => { const a = document.activeElement, li = a.closest('#feed li');
  return [a.tagName, a.id, a.dataset.action || '', li ? li.dataset.seq : ''].join('|'); })()"""


def ended(served: tuple[str, Any], game_id: int) -> bool:
    return served[1].extensions["tabletop"].games.record(game_id).ended_at is not None


# -- 1. End game: a double tap only arms it; locked while the end is sent ---------------------


@pytest.mark.browser
@pytest.mark.slow
def test_ruling_web12_a_double_tap_on_end_game_arms_it_and_a_later_tap_ends_it(
    served, tablet, browser
):
    """Before: a double tap ended the game at once; the note's "Tap the button again within
    4 seconds" had no time to be read."""
    from playwright.sync_api import expect

    game_id = tablet.new_game()
    assert tablet.send(game_id, DEAL).status_code == 201
    screen = referee_screen(browser, served, TABLET)
    page = console(screen, game_id)
    button = page.locator("#end-game")
    posts = HeldPosts(page, f"**/api/games/{game_id}/end")
    button.dblclick()
    expect(button).to_have_text("Tap again to end")
    expect(page.locator("#end-note")).to_contain_text(f"End game {game_id}?")
    page.wait_for_timeout(300)  # an end sent by the double tap would be held by now
    assert posts.held == [] and not ended(served, game_id)
    button.click()  # the considered second tap
    expect(button).to_have_attribute("aria-disabled", "true")  # locked while it is sent
    button.click(force=True)  # force: Playwright itself waits while aria-disabled
    button.click(force=True)
    page.wait_for_timeout(300)
    assert len(posts.held) == 1
    expect(button).not_to_have_class("armed")  # the taps meanwhile armed nothing
    with page.expect_navigation(url=f"**/history/{game_id}"):
        posts.release()
    assert ended(served, game_id)
    screen.close()


@pytest.mark.browser
@pytest.mark.slow
def test_ruling_web12_a_double_tap_on_setup_s_end_it_only_arms_it(served, tablet, browser):
    from playwright.sync_api import expect

    game_id = tablet.new_game()
    assert tablet.send(game_id, DEAL).status_code == 201
    screen = referee_screen(browser, served, TABLET)  # the armed button stays under the tap
    page = screen.go("/setup")
    running, end = page.locator("#running"), page.locator("#end-running")
    expect(running).to_contain_text(f"game {game_id}")
    end.dblclick()
    expect(end).to_have_text("Tap again to end")
    expect(page.locator("#end-running-note")).to_contain_text(f"End game {game_id}?")
    page.wait_for_timeout(300)
    assert not ended(served, game_id)
    end.click()
    expect(running).to_be_hidden()
    assert ended(served, game_id)
    screen.close()


@pytest.mark.browser
@pytest.mark.slow
def test_ruling_web12_enter_held_down_on_end_game_only_arms_it(served, tablet, browser):
    """Before: Enter's repeats were taps, the second of them ending the game."""
    from playwright.sync_api import expect

    game_id = tablet.new_game()
    assert tablet.send(game_id, DEAL).status_code == 201
    screen = referee_screen(browser, served, TABLET)
    page = console(screen, game_id)
    page.focus("#end-game")
    for _ in range(3):
        page.keyboard.down("Enter")  # held: the 2nd and 3rd are the key's repeats
    page.keyboard.up("Enter")
    expect(page.locator("#end-game")).to_have_text("Tap again to end")
    page.wait_for_timeout(300)
    assert not ended(served, game_id)
    with page.expect_navigation(url=f"**/history/{game_id}"):
        page.keyboard.press("Enter")
    assert ended(served, game_id)
    screen.close()


# -- 2. a keyboard Undo keeps the focus in the feed ------------------------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_a_keyboard_undo_moves_the_focus_to_the_undo_it_made(served, tablet, browser):
    """Before: the undone entry kept no button, and the focus fell to the page (BODY): the
    keyboard started again at the top."""
    from playwright.sync_api import expect

    game_id = tablet.new_game()
    for event in BOB_FINISHES[:3]:
        assert tablet.send(game_id, event).status_code == 201
    screen = referee_screen(browser, served, TABLET)
    page = console(screen, game_id)
    page.focus("#feed li[data-seq='2'] button[data-action='undo']")
    page.keyboard.press("Enter")
    expect(page.locator("#feed li[data-seq='2']")).to_have_class("undone")
    newest = page.locator("#feed li[data-seq]").first
    expect(newest).to_contain_text("undo #2")
    undo = newest.get_attribute("data-seq")
    expect(newest.locator("button[data-action='undo']")).to_be_focused()
    assert page.evaluate(FOCUSED) == f"BUTTON||undo|{undo}"
    page.keyboard.press("Enter")  # Enter again takes the undo back, and so on
    expect(page.locator("#feed li[data-seq]").first).to_contain_text(f"undo #{undo}")
    expect(page.locator("#feed li[data-seq]").first.locator("button")).to_be_focused()
    assert tablet.snapshot(game_id)["feed"][1]["status"] == "ok"  # #2 stands again
    screen.close()


# -- 3. the questions' heading says who asks ---------------------------------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_the_questions_heading_says_who_asks(served, tablet, browser):
    """Before: a question the pads raised (Wash Dash "done", no camera) was headed "The
    camera asks"."""
    from playwright.sync_api import expect

    prompts = served[1].extensions["tabletop"].prompts
    game_id = tablet.new_game("wash-dash", ("Ann", "Bob"))
    for event in (
        {"kind": "setup"},
        {"kind": "reveal", "seat": 0, "payload": {"cards": ["T01", "T03"]}},
    ):
        assert tablet.send(game_id, event).status_code == 201
    screen = referee_screen(browser, served, TABLET)
    page = console(screen, game_id)
    live = Screen(browser, served[0], TABLET).go("/live")
    headings = [page.locator("#prompt-panel h2"), live.locator("#prompt-panel h2")]
    camera = prompts.add(game_id, {"prompt": "who_played", "message": "Who hung the dress?"})
    for heading in headings:
        expect(heading).to_have_text("The camera asks")
    r = tablet.post("/api/pads/press", {"seat": BOB, "device": "button"})  # Bob's "done"
    assert r.status_code == 200, r.json
    for heading in headings:
        expect(heading).to_have_text("Questions")  # both ask
    assert tablet.post(f"/api/games/{game_id}/prompts/{camera.id}/dismiss").status_code == 200
    for heading in headings:
        expect(heading).to_have_text("The referee asks")
    expect(page.locator("#prompts")).to_contain_text("Bob pressed done")
    screen.close()


# -- 4. Wash Dash has no turns -----------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.slow
def test_wash_dash_marks_nobody_s_turn_in_a_round_and_says_who_reveals(served, tablet, browser):
    """Before: "turn" on Ann's card and "Ann to play" while everyone raced, then "Bob to
    play" when Bob was to reveal the next round's cards."""
    from playwright.sync_api import expect

    game_id = tablet.new_game("wash-dash", ("Ann", "Bob"))
    screen = referee_screen(browser, served, TABLET)
    page = console(screen, game_id)
    board = Screen(browser, served[0], TABLET).go(f"/scoreboard?game={game_id}")
    meta, status = page.locator("#c-meta"), board.locator("#sb-status")
    marked = (page.locator("#c-score .player.turn"), board.locator("#players .player.turn"))

    assert tablet.send(game_id, {"kind": "setup"}).status_code == 201
    expect(status).to_have_text("· Ann reveals round 1")
    expect(board.locator("#players .player.turn .turn-tag")).to_have_text("reveals")
    expect(meta).to_contain_text("Ann reveals round 1")

    reveal = {"kind": "reveal", "seat": ANN, "payload": {"cards": ["T01", "T03"]}}
    assert tablet.send(game_id, reveal).status_code == 201
    expect(status).to_have_text("· everyone races")
    expect(meta).to_have_text("Round 1 · everyone races")
    for turn in marked:
        expect(turn).to_have_count(0)
    expect(board.locator("#players .turn-tag")).to_have_count(0)

    done = {"kind": "done", "seat": BOB, "t_ns": "now", "payload": {"card": "T01"}}
    assert tablet.send(game_id, done).status_code == 201  # two players: the round is over
    expect(status).to_have_text("· Bob reveals the next round")
    expect(meta).to_have_text("Round 1 · Bob reveals the next round")
    for turn in marked:
        expect(turn).to_have_attribute("data-seat", str(BOB))
    expect(board.locator("#players .player.turn .turn-tag")).to_have_text("reveals")
    screen.close()


# -- 5. an untimed Hand card's race is timed from the first slap -------------------------------


def test_an_untimed_race_s_reason_counts_from_the_first_slap() -> None:
    """Before: "Cy slapped last, 299 ms after the card", though the card had no time and the
    first slap stood in for it (HTD-14)."""
    presses = [Press(ANN, 10_000 * MS), Press(BOB, 10_100 * MS), Press(CAT, 10_299 * MS)]
    names = ["Ann", "Bob", "Cy"]
    untimed = last_slapper(10_000 * MS, range(3), presses, RaceRules(), names, timed=False)
    assert untimed.reason == "Cy slapped last, 299 ms after the first slap — 199 ms after Bob."
    timed = last_slapper(9_900 * MS, range(3), presses, RaceRules(), names)
    assert timed.reason == "Cy slapped last, 399 ms after the card — 199 ms after Bob."
    tie = [Press(ANN, 10_000 * MS), Press(BOB, 10_300 * MS), Press(CAT, 10_300 * MS)]
    both = last_slapper(10_000 * MS, range(3), tie, RaceRules(), names, timed=False).reason
    assert both.startswith("Bob and Cy slapped 300 ms after the first slap, closer together")


def test_an_untimed_hand_card_s_race_is_said_from_the_first_slap() -> None:
    t = _ann_to_play_a_hand_card()
    t.ok("play", ANN, card="HAND")  # typed on the tablet: no time
    for seat, t_ns in ((ANN, 205_200), (BOB, 205_300), (CAT, 205_499)):
        t.ok("slap", seat, t_ns=t_ns * MS)
    assert t.state.race is None  # every seat slapped: judged at the last slap
    reasons = [v.reason for v in t.last]
    assert "Cat slapped last, 299 ms after the first slap — 199 ms after Bob." in reasons
