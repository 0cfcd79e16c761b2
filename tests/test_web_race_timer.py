"""The pads' window timer (HTD-13): a slap race with a pad slap is judged when its window
ends, though a seat never slaps; a table without pads is left to its people."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.test_web_routes import Tablet, make_app
from web.services.race_timer import RaceTimer


def _hand_card_played(tablet: Tablet, window_ms: int, stamped: bool = True) -> int:
    body = {
        "game": "hit-the-deck",
        "players": ["Ann", "Bob", "Cy"],
        "options": {"race_window_ms": window_ms},
    }
    game_id = int(tablet.post("/api/games", body).json["id"])
    for event in (
        {"kind": "deal", "payload": {"hands": [7, 7, 7]}},
        {"kind": "turn_up", "payload": {"card": "R3"}},
        {"kind": "play", "seat": 1, "payload": {"card": "R4"}},
        {
            "kind": "play",
            "seat": 2,
            "payload": {"card": "HAND"},
            **({"t_ns": "now"} if stamped else {}),
        },
    ):
        assert tablet.send(game_id, event).status_code == 201, event
    race = tablet.snapshot(game_id)["view"]["race"]
    assert (race["deadline_ns"] is not None) is stamped  # untimed: the first slap stands in
    return game_id


def _wait_for_no_race(tablet: Tablet, game_id: int, seconds: float) -> dict[str, Any]:
    until = time.monotonic() + seconds
    while True:
        snap = tablet.snapshot(game_id)
        if snap["view"]["race"] is None or time.monotonic() > until:
            return snap
        time.sleep(0.05)


def test_ruling_htd13_the_pads_window_timer_judges_a_race_nobody_finishes(tmp_path: Path):
    """Ann slaps her pad; Bob and Cy never do. Before, the race stayed open until someone
    touched the tablet; now it is judged when the window ends: both count as last."""
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    game_id = _hand_card_played(tablet, window_ms=300)
    assert tablet.post("/api/pads/press", {"seat": 0, "device": "pad"}).status_code == 200
    snap = _wait_for_no_race(tablet, game_id, seconds=10)
    last = snap["feed"][-1]
    assert (last["event"]["kind"], last["event"]["source"]) == ("race_close", "pad")
    reasons = " ".join(v["reason"] for v in last["verdicts"])
    assert "Bob and Cy both count as last" in reasons, reasons


def test_ruling_htd13_a_race_without_slaps_waits_for_the_table(tmp_path: Path):
    """A table without pads judges its races itself (``race_close last=[…]``): a Hand card
    stamped on the tablet with no slap yet is never closed by a clock, nor one whose slaps
    the family types on the tablet, one by one, even stamped "now" (before, the first such
    slap started the timer: the race was judged 3 s later, before the family had entered the
    others, and their own ``race_close`` was refused). A pad's slap starts it."""
    scheduled: list[float] = []

    class Never:
        daemon = False

        def start(self) -> None:
            pass

        def cancel(self) -> None:
            pass

    app = make_app(tmp_path, race_timer=False)  # only this test's timer, with a fake clock
    games = app.extensions["tabletop"].games
    RaceTimer(games, schedule=lambda delay, fire: scheduled.append(delay) or Never())
    tablet = Tablet(app)
    tablet.set_pin()
    game_id = _hand_card_played(tablet, window_ms=300)
    assert scheduled == []  # no slap: nothing to time
    assert tablet.send(game_id, {"kind": "slap", "seat": 0, "t_ns": "now"}).status_code == 201
    assert scheduled == []  # typed on the tablet: the family closes it
    assert tablet.post("/api/pads/press", {"seat": 1, "device": "pad"}).status_code == 200
    assert len(scheduled) == 1 and 0 <= scheduled[0] <= 0.35
    assert tablet.snapshot(game_id)["view"]["race"] is not None


def test_ruling_htd13_a_race_timed_on_another_clock_is_left_to_the_table(tmp_path: Path):
    """Slaps stamped on another clock (a replayed recording, hand-written times, a Pi that
    rebooted mid-race) put the deadline far from the server's now: no timer closes such a
    race (before, it was closed at once, after its first slap, and the rest counted as
    missed)."""
    scheduled: list[float] = []
    app = make_app(tmp_path, race_timer=False)
    RaceTimer(app.extensions["tabletop"].games, schedule=lambda d, f: scheduled.append(d))
    tablet = Tablet(app)
    tablet.set_pin()
    game_id = _hand_card_played(tablet, window_ms=300, stamped=False)
    for seat, t_ns in ((0, 1_000_000_000), (1, 1_050_000_000)):
        assert tablet.send(game_id, {"kind": "slap", "seat": seat, "t_ns": t_ns}).status_code == 201
    assert scheduled == [] and tablet.snapshot(game_id)["view"]["race"] is not None


def test_ruling_htd13_a_pad_slap_the_referee_corrected_still_times_the_race(tmp_path: Path):
    """A pad wired to the wrong seat: the referee overrules its slap to the right seat. The
    slap is still a pad's press (it keeps its time, WEB-4), so the race is still timed;
    before, the overruled press no longer counted and the race waited for someone to close
    it by hand."""
    from web.services.race_timer import open_race

    app = make_app(tmp_path, race_timer=False)
    tablet = Tablet(app)
    tablet.set_pin()
    game_id = _hand_card_played(tablet, window_ms=300)
    assert tablet.post("/api/pads/press", {"seat": 0, "device": "pad"}).status_code == 200
    pressed = tablet.snapshot(game_id)["feed"][-1]
    assert (pressed["event"]["kind"], pressed["event"]["source"]) == ("slap", "pad")
    fixed = {"kind": "slap", "seat": 1, "t_ns": pressed["event"]["t_ns"]}
    r = tablet.post(f"/api/games/{game_id}/overrule", {"target": pressed["seq"], "event": fixed})
    assert r.status_code == 201, r.json
    snap = tablet.snapshot(game_id)
    assert snap["feed"][-2]["status"] == "overruled" and snap["view"]["race"] is not None
    assert open_race(snap) is not None
