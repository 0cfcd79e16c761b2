"""Review round 31, the dashboard through Flask's test client: an undo or overrule of an entry
another one already acts on (WEB-8), a huge zone coordinate, zone names with other scripts'
digits, and the join QR code of a long Host: each a 4xx with a reason, never a 500."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from referee.events import Event, Source
from tests.test_web_routes import DEAL, Tablet, make_app

DRAW = {"kind": "draw", "seat": 1, "payload": {"from": "discard"}}
DRAW_PILE = {"kind": "draw", "seat": 1, "payload": {"from": "draw"}}


@pytest.fixture
def app(tmp_path: Path) -> Any:
    return make_app(tmp_path, race_timer=False)


@pytest.fixture
def referee(app: Any) -> Tablet:
    t = Tablet(app)
    assert t.set_pin().status_code == 302
    return t


@pytest.fixture
def second(app: Any, referee: Tablet) -> Tablet:
    """Another tablet, unlocked with the same PIN."""
    t = Tablet(app)
    assert t.login().status_code == 302
    return t


def dealt_and_drawn(referee: Tablet) -> int:
    """A game whose log is #1 deal, #2 draw."""
    game_id = referee.new_game()
    assert referee.send(game_id, DEAL).status_code == 201
    assert referee.send(game_id, DRAW).status_code == 201
    return game_id


def statuses(referee: Tablet, game_id: int) -> list[tuple[int, str, str]]:
    return [(f["seq"], f["event"]["kind"], f["status"]) for f in referee.snapshot(game_id)["feed"]]


# -- WEB-8: an undo or overrule acts on an entry as it stands ------------------------------


def test_ruling_web11_a_second_undo_of_one_event_is_refused_and_undo_the_undo_restores_it(
    referee: Tablet, second: Tablet
) -> None:
    """Before: both undos were stored (201, 201), and undoing one of them left #2 undone."""
    game_id = dealt_and_drawn(referee)
    url = f"/api/games/{game_id}/undo"
    assert referee.post(url, {"target": 2}).status_code == 201
    again = second.post(url, {"target": 2})
    assert again.status_code == 409, again.json
    assert again.json["error"] == "undo: event 2 is already undone (event 3)"
    assert statuses(referee, game_id) == [
        (1, "deal", "ok"),
        (2, "draw", "undone"),
        (3, "undo", "meta"),
    ]
    assert referee.post(url, {"target": 3}).status_code == 201  # undo the undo: #2 is back
    assert statuses(referee, game_id)[1] == (2, "draw", "ok")
    # an undo undone already is not undone twice either (that changed nothing)
    r = second.post(url, {"target": 3})
    assert r.status_code == 409 and r.json["error"] == "undo: event 3 is already undone (event 4)"


def test_ruling_web11_two_tablets_undoing_one_event_at_once_store_one_undo(
    referee: Tablet, second: Tablet
) -> None:
    game_id = dealt_and_drawn(referee)
    url = f"/api/games/{game_id}/undo"
    barrier = threading.Barrier(2)
    codes: list[int] = []

    def tap(tablet: Tablet) -> None:
        barrier.wait()
        codes.append(tablet.post(url, {"target": 2}).status_code)

    threads = [threading.Thread(target=tap, args=(t,)) for t in (referee, second)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(codes) == [201, 409]
    assert [s for _, kind, s in statuses(referee, game_id) if kind == "undo"] == ["meta"]


def test_ruling_web11_an_overrule_of_an_event_overruled_meanwhile_is_refused(
    referee: Tablet, second: Tablet
) -> None:
    """Before: the second overrule was stored too and silently replaced the first tablet's."""
    game_id = dealt_and_drawn(referee)
    url = f"/api/games/{game_id}/overrule"
    assert referee.post(url, {"target": 2, "event": DRAW_PILE}).status_code == 201
    late = second.post(url, {"target": 2, "event": DRAW})
    assert late.status_code == 409, late.json
    assert late.json["error"] == (
        "overrule: event 2 is overruled (event 3): undo event 3 first, then overrule event 2 again"
    )
    feed = referee.snapshot(game_id)["feed"]
    assert feed[1]["status"] == "overruled" and feed[1]["replacement"] == DRAW_PILE
    assert len(feed) == 3
    # the way to correct a correction: undo the overrule, then overrule again
    assert second.post(f"/api/games/{game_id}/undo", {"target": 3}).status_code == 201
    assert second.post(url, {"target": 2, "event": DRAW}).status_code == 201


def test_ruling_web11_an_undo_of_an_overruled_event_is_refused_not_stored_doing_nothing(
    referee: Tablet,
) -> None:
    """Replay keeps an overrule's event over an undo of its target: the undo was stored and
    answered 201 while the game did not change."""
    game_id = dealt_and_drawn(referee)
    assert (
        referee.post(
            f"/api/games/{game_id}/overrule", {"target": 2, "event": DRAW_PILE}
        ).status_code
        == 201
    )
    r = referee.post(f"/api/games/{game_id}/undo", {"target": 2})
    assert r.status_code == 409, r.json
    assert r.json["error"] == (
        "undo: event 2 is overruled (event 3): undo event 3 first, then undo event 2"
    )
    assert len(referee.snapshot(game_id)["feed"]) == 3


def test_ruling_web11_an_overrule_of_an_undone_event_is_refused(
    referee: Tablet, second: Tablet
) -> None:
    """One tablet undid #2 while another overruled it: the overrule brought it back."""
    game_id = dealt_and_drawn(referee)
    assert referee.post(f"/api/games/{game_id}/undo", {"target": 2}).status_code == 201
    r = second.post(f"/api/games/{game_id}/overrule", {"target": 2, "event": DRAW_PILE})
    assert r.status_code == 409, r.json
    assert r.json["error"] == (
        "overrule: event 2 is undone (event 3): undo event 3 first, then overrule event 2"
    )
    assert statuses(referee, game_id)[1] == (2, "draw", "undone")


def test_ruling_web11_a_log_already_holding_two_undos_of_one_event_still_reads(
    referee: Tablet, tmp_path: Path
) -> None:
    """Logs stored before the refusal may hold a double undo: they replay as before, and
    each undo can still be undone (both: the event is back)."""
    game_id = dealt_and_drawn(referee)
    log = referee.services.games.log
    for after in (2, 3):
        undo = Event("undo", payload={"target": 2}, source=Source.MANUAL)
        log.append(game_id, undo, after=after)
    assert statuses(referee, game_id)[1:] == [
        (2, "draw", "undone"),
        (3, "undo", "meta"),
        (4, "undo", "meta"),
    ]
    fresh = Tablet(make_app(tmp_path, race_timer=False))  # a restarted server replays it
    assert fresh.snapshot(game_id)["feed"] == referee.snapshot(game_id)["feed"]
    url = f"/api/games/{game_id}/undo"
    assert referee.post(url, {"target": 2}).status_code == 409
    assert referee.post(url, {"target": 4}).status_code == 201
    assert statuses(referee, game_id)[1] == (2, "draw", "undone")  # #3 still undoes it
    assert referee.post(url, {"target": 3}).status_code == 201
    assert statuses(referee, game_id)[1] == (2, "draw", "ok")


# -- zones ---------------------------------------------------------------------------------


def zone(name: str, first: list[Any]) -> dict[str, Any]:
    return {"name": name, "points": [first, [0.5, 0.1], [0.5, 0.5]]}


@pytest.mark.parametrize("x", [10**400, -(10**400), 2**1024], ids=["1e400", "-1e400", "2**1024"])
def test_a_huge_integer_zone_coordinate_is_a_400_with_a_short_reason(referee: Tablet, x: int):
    """float() of an integer past the largest float raised OverflowError: a 500."""
    r = referee.post("/api/zones", {"zones": [zone("draw_pile", [x, 0.1])]})
    assert r.status_code == 400, r.get_data(as_text=True)[:200]
    error = r.json["error"]
    assert error.startswith("a zone point must be [x, y] with 0 ≤ x, y ≤ 1, got [")
    assert len(error) < 160  # the number is not echoed whole
    # whole numbers in range still count, and a plain bad point is still named
    ok = referee.post("/api/zones", {"zones": [zone("draw_pile", [0, 1])]})
    assert ok.status_code == 200 and ok.json["zones"][0]["points"][0] == [0.0, 1.0]
    bad = referee.post("/api/zones", {"zones": [zone("draw_pile", [2, 0.1])]})
    assert bad.status_code == 400 and bad.json["error"].endswith("got [2, 0.1]")


@pytest.mark.parametrize("digit", ["\u0663", "\uff13", "\u09e9", "\U0001d7db"])
@pytest.mark.parametrize("pattern", ["seat_{}_area", "seat_{}_dryer", "seat_{}_dryer_bar_1"])
def test_a_zone_name_with_another_scripts_digit_is_refused(
    referee: Tablet, digit: str, pattern: str
) -> None:
    """\\d took "seat_٣_area" as a second name for seat 3 beside "seat_3_area"."""
    assert int(digit) == 3  # Python reads it as 3: it would have been seat 3
    zones = [zone(pattern.format(3), [0.1, 0.1]), zone(pattern.format(digit), [0.2, 0.2])]
    r = referee.post("/api/zones", {"zones": zones})
    assert r.status_code == 400, r.json
    assert r.json["error"].startswith("unknown zone name ")
    ok = referee.post("/api/zones", {"zones": zones[:1]})
    assert ok.status_code == 200 and ok.json["zones"][0]["seat"] == 3


# -- the join QR code ----------------------------------------------------------------------


def test_a_long_host_gets_a_400_saying_why_not_a_500_from_the_qr_code(referee: Tablet) -> None:
    host = ".".join(["a" * 60] * 40)  # IDNA-valid labels, 2439 characters
    r = referee.client.get("/qr.svg", headers={"Host": host, "Accept": "application/json"})
    assert r.status_code == 400, r.get_data(as_text=True)[:200]
    assert "too long for a QR code" in r.json["error"]
    longest = ".".join(["a" * 63] * 3 + ["a" * 61])  # a DNS name's 253 characters, and a port
    ok = referee.client.get("/qr.svg", headers={"Host": longest + ":65535"})
    assert ok.status_code == 200 and ok.mimetype == "image/svg+xml" and b"<svg" in ok.data
