"""Correcting an overrule (WEB-11): an overrule sent with ``replaces`` undoes the overrule in
force and overrules in one transaction, or stores nothing; the console sends it so, and a
refused correction (a typo) leaves the earlier one in force. And an ended game's console
says who won (WEB-1)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from referee.eventlog import LogConflict
from referee.events import Event
from tests.serving import ServedApp
from tests.test_web_browser import Screen, unlock
from tests.test_web_routes import BOB_FINISHES, Tablet, make_app

# Ana draws, then discards green 7 (entry 3), which the referee corrects
EVENTS = [
    {"kind": "deal", "seat": 1, "payload": {"hands": [12, 12], "start": "G5"}},
    {"kind": "draw", "seat": 0, "payload": {"from": "draw"}},
    {"kind": "discard", "seat": 0, "payload": {"card": "G7"}},
]


def discard(card: str) -> dict[str, Any]:
    return {"kind": "discard", "seat": 0, "payload": {"card": card}}


def new_game(tablet: Tablet) -> int:
    """Entries 1-3 as ``EVENTS``, and entry 4 overruling the discard to green 8."""
    game_id = tablet.new_game("deck-dash", ("Ana", "Bea"))
    for event in EVENTS:
        assert tablet.send(game_id, event).status_code == 201
    r = tablet.post(f"/api/games/{game_id}/overrule", {"target": 3, "event": discard("G8")})
    assert (r.status_code, r.json["seq"]) == (201, 4)
    return game_id


def kinds(tablet: Tablet, game_id: int) -> list[str]:
    return [f["event"]["kind"] for f in tablet.snapshot(game_id)["feed"]]


def now_discarded(tablet: Tablet, game_id: int) -> str | None:
    """The card entry 3 stands for now (None: not overruled)."""
    item = next(f for f in tablet.snapshot(game_id)["feed"] if f["seq"] == 3)
    return item["replacement"]["payload"]["card"] if item["status"] == "overruled" else None


def test_ruling_web11_a_refused_correction_of_an_overrule_leaves_the_first_in_force(referee):
    """Before: the console undid the overrule in force, then the typo was refused (400): the
    game went back to the wrong green 7. Now the typo is refused, nothing stored."""
    game_id = new_game(referee)
    body = {"target": 3, "event": discard("G88"), "replaces": 4}
    r = referee.post(f"/api/games/{game_id}/overrule", body)
    assert r.status_code == 400
    assert "G88" in r.json["error"]
    assert kinds(referee, game_id) == ["deal", "draw", "discard", "overrule"]
    assert now_discarded(referee, game_id) == "G8"


def test_ruling_web11_a_correction_stores_the_undo_and_the_overrule_together(referee):
    game_id = new_game(referee)
    body = {"target": 3, "event": discard("G9"), "replaces": 4}
    r = referee.post(f"/api/games/{game_id}/overrule", body)
    assert r.status_code == 201, r.json
    assert (r.json["undo"], r.json["seq"]) == (5, 6)
    feed = referee.snapshot(game_id)["feed"]
    assert [(f["event"]["kind"], f["status"]) for f in feed[3:]] == [
        ("overrule", "meta-undone"),
        ("undo", "meta"),
        ("overrule", "meta"),
    ]
    assert feed[4]["event"]["payload"] == {"target": 4}
    assert now_discarded(referee, game_id) == "G9"
    # two entries, as the two steps stored: each is undone on its own
    assert referee.post(f"/api/games/{game_id}/undo", {"target": 6}).status_code == 201
    assert now_discarded(referee, game_id) is None
    assert referee.post(f"/api/games/{game_id}/undo", {"target": 5}).status_code == 201
    assert now_discarded(referee, game_id) == "G8"


def test_ruling_web11_a_replaces_that_is_not_the_overrule_in_force_is_refused(referee):
    """409, nothing stored: another tablet changed the entry since the console read it."""
    game_id = new_game(referee)
    url = f"/api/games/{game_id}/overrule"
    fix = {"target": 3, "event": discard("G9")}
    # another tablet corrected it first: entry 4 is no longer the overrule in force
    assert referee.post(url, {**fix, "replaces": 4}).status_code == 201
    r = referee.post(url, {**fix, "event": discard("G10"), "replaces": 4})
    assert r.status_code == 409
    assert "event 4 is not the overrule in force on event 3 (event 6 is)" in r.json["error"]
    assert now_discarded(referee, game_id) == "G9"
    # an entry not overruled (any more): nothing to replace
    assert referee.post(f"/api/games/{game_id}/undo", {"target": 6}).status_code == 201
    for replaces in (6, 4, 2):
        r = referee.post(url, {**fix, "replaces": replaces})
        assert r.status_code == 409, replaces
        assert "event 3 is not overruled now" in r.json["error"]
    r = referee.post(url, {"target": 2, "event": EVENTS[1], "replaces": 4})
    assert r.status_code == 409
    assert referee.post(url, {**fix, "replaces": "four"}).status_code == 400
    assert len(kinds(referee, game_id)) == 7
    assert now_discarded(referee, game_id) is None


def test_web11_an_undone_entry_is_not_overruled_with_replaces(referee):
    game_id = new_game(referee)
    assert referee.post(f"/api/games/{game_id}/undo", {"target": 4}).status_code == 201
    assert referee.post(f"/api/games/{game_id}/undo", {"target": 3}).status_code == 201
    body = {"target": 3, "event": discard("G9"), "replaces": 4}
    r = referee.post(f"/api/games/{game_id}/overrule", body)
    assert r.status_code == 409
    assert "event 3 is undone (event 6)" in r.json["error"]
    assert len(kinds(referee, game_id)) == 6


def test_the_two_steps_undo_then_overrule_still_work_for_other_clients(referee):
    game_id = new_game(referee)
    assert referee.post(f"/api/games/{game_id}/undo", {"target": 4}).status_code == 201
    body = {"target": 3, "event": discard("G9"), "replaces": None}
    r = referee.post(f"/api/games/{game_id}/overrule", body)
    assert (r.status_code, r.json["seq"]) == (201, 6)
    assert "undo" not in r.json
    assert now_discarded(referee, game_id) == "G9"


class Unwritable:
    """An event that cannot be written: the transaction fails after the first insert."""

    def to_json(self) -> str:
        raise OSError("the SD card went away")


def test_a_correction_is_stored_whole_or_not_at_all(referee):
    game_id = new_game(referee)
    log = referee.services.games.log
    undo = Event("undo", payload={"target": 4})
    with pytest.raises(OSError):
        log.append_many(game_id, [undo, Unwritable()], after=4)
    with pytest.raises(LogConflict):
        log.append_many(game_id, [undo, undo], after=3)
    assert log.head(game_id) == 4
    assert log.append_many(game_id, [undo], after=4) == [5]


def test_an_ended_games_snapshot_holds_its_recorded_winners(referee):
    """What the console's meta line reads (``snap.game.result.winners``, seats): a game ended
    early is won by whoever led then, which its scoreboard does not say (WEB-1)."""
    game_id = referee.new_game()
    for event in BOB_FINISHES:
        referee.send(game_id, event)
    assert referee.post(f"/api/games/{game_id}/end").status_code == 200
    game = referee.snapshot(game_id)["game"]
    assert game["ended_at"] is not None and game["players"] == ["Ann", "Bob"]
    assert game["result"]["winners"] == [1]
    assert referee.snapshot(game_id)["scoreboard"]["winners"] == []


# -- the console, in headless Chromium ------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: Any) -> Iterator[tuple[str, Any]]:
    app = make_app(tmp_path_factory.mktemp("overrule36"), race_timer=False)
    with ServedApp(app, threads=8) as server:
        yield server.url, app
        app.extensions["tabletop"].end_streams()


@pytest.fixture
def screens(served: tuple[str, Any], browser: Any) -> Iterator[tuple[Screen, Tablet]]:
    """The referee's console tablet, and another tablet (a test client on the same server)."""
    base, app = served
    screen = Screen(browser, base)
    unlock(screen, app)
    other = Tablet(app)
    assert other.login().status_code == 302
    yield screen, other
    screen.close()


@pytest.mark.browser
@pytest.mark.slow
def test_ruling_web11_the_console_corrects_an_overrule_in_one_step_a_typo_loses_nothing(screens):
    from playwright.sync_api import expect

    screen, other = screens
    game_id = new_game(other)
    page = screen.go(f"/console?game={game_id}")
    entry = page.locator("#feed li[data-seq='3']")
    expect(entry).to_have_class("overruled")
    entry.locator("button[data-action='overrule']").click()
    expect(page.locator("#f-card")).to_have_value("G8")
    page.fill("#f-card", "G88")
    page.click("#send")
    expect(page.locator("#toast")).to_contain_text("G88")
    expect(page.locator("#entry-title")).to_have_text("Overrule event #3")  # still open
    assert kinds(other, game_id) == ["deal", "draw", "discard", "overrule"]
    assert now_discarded(other, game_id) == "G8"

    page.fill("#f-card", "G9")  # the typo fixed: the correction replaces the one in force
    page.click("#send")
    expect(page.locator("#toast")).to_contain_text("overruled #3")
    expect(page.locator("#entry-title")).to_have_text("Enter an event")
    assert kinds(other, game_id)[3:] == ["overrule", "undo", "overrule"]
    assert now_discarded(other, game_id) == "G9"


@pytest.mark.browser
@pytest.mark.slow
def test_an_ended_games_console_says_who_won(screens):
    """Before: "(ended)" and "Round 1", never the winner recorded when it was ended."""
    from playwright.sync_api import expect

    screen, other = screens
    game_id = other.new_game()
    for event in BOB_FINISHES:
        other.send(game_id, event)
    assert other.post(f"/api/games/{game_id}/end").status_code == 200
    page = screen.go(f"/console?game={game_id}")
    expect(page.locator("#c-meta")).to_have_text("Ended: Bob wins · Round 1")
    level = other.new_game("deck-dash", ("Cy", "Dee"))
    assert other.post(f"/api/games/{level}/end").status_code == 200
    page = screen.go(f"/console?game={level}")
    expect(page.locator("#c-meta")).to_contain_text("Ended: no winner")
