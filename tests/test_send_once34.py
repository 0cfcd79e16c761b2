"""Round 34: a Send whose answer was lost (the server killed mid-request, the Wi-Fi dropped,
no answer in time) and is sent again is stored once (LOG-4). Each Send carries a key; the
log keeps the keys it stored, per game, in the event's own transaction, and a key already
stored stores nothing again: the answer is the entry it was stored as, ``duplicate``."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from referee.eventlog import AlreadyStored, EventLog
from referee.events import Event
from tests.page_wait import wait_until
from tests.serving import ServedApp
from tests.test_web_browser import LANDSCAPE, Screen, choose, unlock
from tests.test_web_routes import BOB_FINISHES, DEAL, Tablet, make_app


@pytest.fixture
def tablet(tmp_path: Any) -> Tablet:
    t = Tablet(make_app(tmp_path, race_timer=False))
    assert t.set_pin().status_code == 302
    return t


def head(t: Tablet, game_id: int) -> int:
    return int(t.services.games.log.head(game_id))


def feed_item(t: Tablet, game_id: int, seq: int) -> dict[str, Any]:
    feed = t.client.get(f"/api/games/{game_id}").json["feed"]
    return next(item for item in feed if item["seq"] == seq)


# -- the API ------------------------------------------------------------------------------


def test_ruling_log4_a_send_sent_again_with_its_key_is_stored_once(tablet):
    """Before: the second Send stored the deal again (refused by then: a second deal)."""
    game_id = tablet.new_game()
    first = tablet.send(game_id, {**DEAL, "send_key": "k-1"})
    assert first.status_code == 201, first.json
    assert "duplicate" not in first.json
    again = tablet.send(game_id, {**DEAL, "send_key": "k-1"})
    assert again.status_code == 200, again.json
    assert again.json["duplicate"] is True
    assert again.json["seq"] == first.json["seq"] == 1
    assert again.json["verdicts"] == feed_item(tablet, game_id, 1)["verdicts"]
    assert head(tablet, game_id) == 1
    assert len(tablet.client.get(f"/api/games/{game_id}").json["feed"]) == 1


def test_the_key_may_come_as_an_idempotency_key_header(tablet):
    game_id = tablet.new_game()
    headers = {"X-CSRF-Token": tablet.token, "Idempotency-Key": "abc 123"}
    url = f"/api/games/{game_id}/events"
    first = tablet.client.post(url, json=DEAL, headers=headers)
    assert first.status_code == 201, first.json
    again = tablet.client.post(url, json=DEAL, headers=headers)
    assert (again.status_code, again.json["seq"], again.json["duplicate"]) == (200, 1, True)
    # the same key in the body is the same send
    body = tablet.send(game_id, {**DEAL, "send_key": "abc 123"})
    assert (body.status_code, body.json["seq"]) == (200, 1)
    assert head(tablet, game_id) == 1


def test_different_keys_are_different_sends(tablet):
    game_id = tablet.new_game()
    assert tablet.send(game_id, {**DEAL, "send_key": "one"}).status_code == 201
    draw = {"kind": "draw", "seat": 1, "payload": {"from": "discard"}}
    assert tablet.send(game_id, {**draw, "send_key": "two"}).status_code == 201
    assert tablet.send(game_id, {**draw, "send_key": "three"}).status_code == 201
    assert head(tablet, game_id) == 3


def test_without_a_key_nothing_changes(tablet):
    game_id = tablet.new_game()
    assert tablet.send(game_id, DEAL).status_code == 201
    again = tablet.send(game_id, DEAL)  # a second deal: stored, with its verdict, as before
    assert again.status_code == 201 and again.json["seq"] == 2
    assert "duplicate" not in again.json


def test_a_key_belongs_to_its_game(tablet):
    one, two = tablet.new_game(), tablet.new_game()
    assert tablet.send(one, {**DEAL, "send_key": "same"}).status_code == 201
    other = tablet.send(two, {**DEAL, "send_key": "same"})
    assert other.status_code == 201 and other.json["seq"] == 1
    assert head(tablet, one) == head(tablet, two) == 1


@pytest.mark.parametrize("key", ["", "x" * 101, "é", "tab\there", "line\n", 7, None, ["k"]])
def test_a_key_that_is_no_key_is_refused_and_nothing_is_stored(tablet, key):
    game_id = tablet.new_game()
    r = tablet.send(game_id, {**DEAL, "send_key": key})
    if key is None:  # JSON null: no key
        assert r.status_code == 201
        return
    assert r.status_code == 400, r.json
    assert "send key" in r.json["error"]
    assert head(tablet, game_id) == 0


def test_a_bad_header_key_is_refused(tablet):
    game_id = tablet.new_game()
    headers = {"X-CSRF-Token": tablet.token, "Idempotency-Key": "x" * 101}
    r = tablet.client.post(f"/api/games/{game_id}/events", json=DEAL, headers=headers)
    assert r.status_code == 400
    assert head(tablet, game_id) == 0


def test_a_send_stored_before_its_game_ended_is_still_already_recorded(tablet):
    game_id = tablet.new_game()
    assert tablet.send(game_id, {**DEAL, "send_key": "late"}).status_code == 201
    assert tablet.post(f"/api/games/{game_id}/end").status_code == 200
    again = tablet.send(game_id, {**DEAL, "send_key": "late"})
    assert (again.status_code, again.json["seq"], again.json["duplicate"]) == (200, 1, True)
    fresh = tablet.send(game_id, {**DEAL, "send_key": "new"})
    assert fresh.status_code == 409


def test_a_send_stored_meanwhile_by_its_first_request_is_answered_as_recorded(tablet):
    """The key is checked again in the append's own transaction: two requests of one send
    racing (or another server on the file) store it once."""
    game_id = tablet.new_game()
    log = tablet.services.games.log
    log.append(game_id, Event.from_dict(DEAL), key="race")
    real = log.sent
    log.sent = lambda game, key: None  # the first request had not stored it when asked
    try:
        again = tablet.send(game_id, {**DEAL, "send_key": "race"})
    finally:
        log.sent = real
    assert (again.status_code, again.json["seq"], again.json["duplicate"]) == (200, 1, True)
    assert head(tablet, game_id) == 1


# -- the log ------------------------------------------------------------------------------


def test_the_log_stores_a_key_once(tmp_path):
    log = EventLog(tmp_path / "t.db")
    game_id = log.create_game("deck-dash", ["Ann", "Bob"])
    assert log.append(game_id, Event.from_dict(DEAL), key="k") == 1
    with pytest.raises(AlreadyStored) as caught:
        log.append(game_id, Event.from_dict(DEAL), key="k", after=1)
    assert caught.value.seq == 1
    assert log.head(game_id) == 1
    assert log.sent(game_id, "k") == 1 and log.sent(game_id, "other") is None
    log.close()


def test_ruling_log4_a_log_from_before_the_sends_table_gets_it_when_opened(tmp_path):
    db = tmp_path / "old.db"
    log = EventLog(db)
    game_id = log.create_game("deck-dash", ["Ann", "Bob"])
    assert log.append(game_id, Event.from_dict(DEAL)) == 1
    log.close()
    with sqlite3.connect(db) as conn:  # as the referee before this round left it
        conn.execute("DROP TABLE sends")
    log = EventLog(db)
    assert log.head(game_id) == 1
    draw = Event.from_dict({"kind": "draw", "seat": 1, "payload": {"from": "discard"}})
    assert log.append(game_id, draw, key="k") == 2
    with pytest.raises(AlreadyStored):
        log.append(game_id, draw, key="k")
    log.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT game_id, key, seq FROM sends").fetchall() == [(1, "k", 2)]


def test_a_sends_table_without_the_log_s_columns_is_refused(tmp_path):
    db = tmp_path / "other.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE sends (id INTEGER PRIMARY KEY, what TEXT)")
    with pytest.raises(sqlite3.DatabaseError, match="its sends table has no"):
        EventLog(db)


# -- in the browser -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def served(tmp_path_factory: Any) -> Iterator[tuple[str, Any]]:
    app = make_app(tmp_path_factory.mktemp("once34"), stream_heartbeat_s=0.5, race_timer=False)
    with ServedApp(app, threads=16) as server:
        yield server.url, app
        app.extensions["tabletop"].end_streams()


@pytest.mark.browser
@pytest.mark.slow
def test_ruling_log4_a_send_whose_answer_was_lost_sent_again_is_recorded_once(served, browser):
    """The server stores the Send, the page never hears back ("it may have been recorded");
    the family taps Send again. Before: the event was logged twice."""
    from playwright.sync_api import expect

    base, app = served
    screen = Screen(browser, base, LANDSCAPE)
    unlock(screen, app)
    created = screen.api("POST", "/api/games", {"game": "deck-dash", "players": ["Ann", "Bob"]})
    game_id = created["data"]["id"]
    for event in BOB_FINISHES[:-1]:
        assert screen.api("POST", f"/api/games/{game_id}/events", event)["ok"]
    stored = len(BOB_FINISHES) - 1
    page = screen.go(f"/console?game={game_id}")
    page.wait_for_selector("body[data-live='1']")
    expect(page.locator("#feed li")).to_have_count(stored)

    keys: list[Any] = []
    page.on(
        "request",
        lambda r: (
            r.method == "POST"
            and r.url.endswith("/events")
            and keys.append((r.post_data_json or {}).get("send_key"))
        ),
    )

    def lose_the_answer(route: Any) -> None:
        route.fetch()  # the server stores it ...
        route.abort("connectionreset")  # ... and the tablet never hears back

    url = f"**/api/games/{game_id}/events"
    page.route(url, lose_the_answer)
    choose(page, "discard", 1)
    page.fill("#f-card", "R5")
    page.click("#send")
    expect(page.locator("#toast")).to_contain_text("it may have been recorded", timeout=5000)
    page.unroute(url)
    expect(page.locator("#feed li")).to_have_count(stored + 1, timeout=5000)

    page.click("#send")  # the same event again
    wait_until(page, "!document.querySelector('#send[aria-disabled]')")
    page.wait_for_timeout(300)  # a second entry would be in the feed by now
    expect(page.locator("#feed li")).to_have_count(stored + 1)
    expect(page.locator("#toast")).to_contain_text(f"already recorded as #{stored + 1}")
    assert app.extensions["tabletop"].games.log.head(game_id) == stored + 1
    assert len(keys) == 2 and keys[0] and keys[0] == keys[1], keys

    # an answered Send is forgotten: the next Send is a new one
    page.click("#send")
    expect(page.locator("#toast")).not_to_contain_text("already recorded", timeout=5000)
    assert len(keys) == 3 and keys[2] != keys[0], keys
    screen.close()


def test_ruling_log4_an_undo_overrule_or_accept_sent_again_stores_nothing_more(tablet):
    """They need no key: the same undo or overrule again is refused (409, nothing stored) and
    an accept again changes nothing, so a tap repeated after a lost answer is harmless."""
    game_id = tablet.new_game()
    assert tablet.send(game_id, DEAL).status_code == 201
    redeal = {**DEAL, "payload": {**DEAL["payload"], "hands": [11, 11]}}
    overrule = {"target": 1, "event": redeal}
    assert tablet.post(f"/api/games/{game_id}/overrule", overrule).status_code == 201
    again = tablet.post(f"/api/games/{game_id}/overrule", overrule)
    assert again.status_code == 409 and "overruled (event 2)" in again.json["error"]
    assert tablet.post(f"/api/games/{game_id}/undo", {"target": 2}).status_code == 201
    again = tablet.post(f"/api/games/{game_id}/undo", {"target": 2})
    assert again.status_code == 409 and "already undone (event 3)" in again.json["error"]
    for _ in range(2):
        assert tablet.post(f"/api/games/{game_id}/accept", {"seq": 1}).json == {
            "ok": True,
            "seq": 1,
        }
    assert head(tablet, game_id) == 3
