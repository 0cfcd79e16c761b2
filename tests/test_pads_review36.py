"""Review 36: pad slaps through a storage outage, and a race judged as the server starts.

1. A slap the card refused for now (503: full, read-only, locked; LOG-2) was noted "not
   recorded" and dropped, while the race timer sent its own ``race_close`` again: once the
   card took writes, everyone who slapped in time during the outage was judged as never
   slapping and drew 4. Now the press waits, with its own time, and is stored in time order
   before anything else the pads send to that game and before the race timer's close.
2. ``create_app`` judged a race left open at a restart before the table's lights listened:
   the losers' LEDs flashed and the buzzer beeped about one start in ten (HW-11). Now the
   race timer resumes after the pads' bridge and the lights are set up.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

import web.app
from hardware.config import default_config
from hardware.service import PadsService
from hardware.table import Table
from referee.events import Event, Source
from tests.test_snapshot_consistency import Manual  # a timer run when the test says
from tests.test_web_routes import Tablet, make_app
from web.errors import BadInput
from web.services.pads import PadPress, PendingPress, PendingPresses
from web.services.race_timer import RaceTimer

PLAYERS = ("Ann", "Bob", "Cat")
DEAL = {"kind": "deal", "payload": {"hands": [7, 7, 7], "dealer": 2}}  # Ann plays first
MS = 1_000_000
WAIT_S = 6.0  # at most, for a thread (a pad's delivery, a retry 1 s later) to do its part
FULL = "database or disk is full"


def gpio_pads() -> PadsService:
    """Hardware pads, LEDs and buzzer on gpiozero's mock pins."""
    return PadsService(Table(default_config("gpio"), MockFactory(), mode="gpio", own_factory=True))


@pytest.fixture
def pads() -> Iterator[PadsService]:
    service = gpio_pads()
    yield service
    service.close()


def slap(pads: PadsService, seat: int) -> None:
    """A pad slapped at the table: a bouncing contact, held, released."""
    pin = pads.table.inputs[(seat, "pad")].pin
    for _ in range(3):
        pin.drive_low()
        pin.drive_high()
    pin.drive_low()
    time.sleep(0.05)
    pin.drive_high()


def wait_for(check: Callable[[], Any], timeout: float = WAIT_S) -> bool:
    deadline = time.monotonic() + timeout
    while not check() and time.monotonic() < deadline:
        time.sleep(0.01)
    return bool(check())


def switched_on(pin: Any) -> int:
    return sum(1 for s in pin.states[1:] if s.state)


def hand_card_race(t: Tablet, window_ms: int) -> tuple[int, int]:
    """A Hit the Deck game where Ann has just played a Hand card: (game id, card's time)."""
    t.set_pin()
    r = t.post(
        "/api/games",
        {
            "game": "hit-the-deck",
            "players": list(PLAYERS),
            "options": {"race_window_ms": window_ms},
        },
    )
    game_id = int(r.json["id"])
    t.send(game_id, DEAL)
    t.send(game_id, {"kind": "turn_up", "payload": {"card": "G3"}})
    card = t.services.clock.now_ns()
    hand = {"kind": "play", "seat": 0, "t_ns": card, "payload": {"card": "HAND"}}
    assert t.send(game_id, hand).status_code == 201
    return game_id, card


def outage(t: Tablet) -> dict[str, bool]:
    """The card refuses every write while ``["on"]``, as a full card does (SQLITE_FULL)."""
    log = t.services.games.log
    store, state = log.append, {"on": False}

    def append(*args: Any, **kw: Any) -> Any:
        if state["on"]:
            raise sqlite3.OperationalError(FULL)
        return store(*args, **kw)

    log.append = append
    return state


def note_of(t: Tablet, seat: int) -> dict[str, Any] | None:
    return next((n for n in reversed(t.services.pad_log) if n["seat"] == seat), None)


def pad_slaps(snap: dict[str, Any]) -> dict[int, int]:
    """Seat -> the time of its pad slap in force."""
    return {
        i["event"]["seat"]: i["event"]["t_ns"]
        for i in snap["feed"]
        if i["event"]["kind"] == "slap" and i["event"]["source"] == "pad" and i["status"] == "ok"
    }


def penalised(snap: dict[str, Any]) -> dict[int, int]:
    """Seat -> the cards the race's verdicts make it draw."""
    return {
        v["seat"]: v["data"]["draw"]
        for i in snap["feed"]
        for v in i["verdicts"]
        if (v.get("data") or {}).get("penalty") == "last_slap"
    }


def slaps_all_waiting(tmp_path: Path, pads: PadsService, window_ms: int) -> tuple[Tablet, int]:
    """A Hand card's race whose three slaps the card refused (they wait), then writes are
    taken again: (tablet, game id)."""
    t = Tablet(make_app(tmp_path, pads=pads))
    game_id, _card = hand_card_race(t, window_ms=window_ms)
    full = outage(t)
    full["on"] = True
    for seat in (1, 0, 2):
        slap(pads, seat)
    assert wait_for(lambda: all((note_of(t, s) or {}).get("waiting") for s in (0, 1, 2)))
    full["on"] = False
    return t, game_id


# -- 1. slaps the storage refused for now ------------------------------------------------


def test_ruling_htd13_slaps_the_storage_refused_are_judged_by_their_time(tmp_path, pads):
    """The reviewer's s7: Bob's slap is stored, then the card refuses writes; Ann slaps
    then Cat, both inside the window. Before, both were judged
    as never slapping (4 cards each); now Cat, the last, draws 4 and Ann nothing."""
    t = Tablet(make_app(tmp_path, pads=pads))
    game_id, card = hand_card_race(t, window_ms=1500)
    slap(pads, 1)
    assert wait_for(lambda: (note_of(t, 1) or {}).get("accepted") is True)
    full = outage(t)
    full["on"] = True
    slap(pads, 0)
    time.sleep(0.05)
    slap(pads, 2)
    waiting = lambda seat: (note_of(t, seat) or {}).get("waiting") is True  # noqa: E731
    assert wait_for(lambda: waiting(0) and waiting(2))
    assert note_of(t, 0)["message"].startswith("waiting to be stored: the ")
    # the window ends while the card still refuses: the race timer's close waits too
    assert wait_for(lambda: t.services.clock.now_ns() > card + 1800 * MS)
    assert t.snapshot(game_id)["view"]["race"] is not None
    full["on"] = False  # space freed

    assert wait_for(lambda: t.snapshot(game_id)["view"]["race"] is None)
    snap = t.snapshot(game_id)
    times = {seat: note_of(t, seat)["t_ns"] for seat in (0, 1, 2)}
    assert pad_slaps(snap) == times  # each stored with the time it was slapped
    assert times[1] < times[0] < times[2] < card + 1500 * MS
    assert penalised(snap) == {2: 4}  # Cat slapped last; Ann slapped in time
    assert snap["view"]["hand_sizes"] == [6, 7, 11]
    # the pad log says so (the note is updated once its store has returned)
    assert wait_for(lambda: all(note_of(t, s)["waiting"] is False for s in (0, 2)))
    for seat in (0, 2):
        note = note_of(t, seat)
        assert note["accepted"] is True and note["message"].startswith("event #"), note


def test_ruling_log2_slaps_refused_before_any_was_stored_are_stored_without_a_touch(tmp_path, pads):
    """Every slap of the race refused: no race timer runs for it (no slap is in the log),
    so before, the race stayed open until someone used the tablet, and then judged all
    three as never slapping. The presses' own retry stores them once the card takes
    writes again, and the race is judged from their times."""
    t, game_id = slaps_all_waiting(tmp_path, pads, window_ms=1500)
    assert wait_for(lambda: t.snapshot(game_id)["view"]["race"] is None)
    snap = t.snapshot(game_id)
    assert sorted(pad_slaps(snap)) == [0, 1, 2]
    assert penalised(snap) == {2: 4}


def test_ruling_log2_an_event_typed_after_the_outage_stores_the_waiting_slaps_first(tmp_path, pads):
    """Every slap refused; the card takes writes again and the referee closes the race on
    the tablet before the presses' own retry: the slaps are stored first, so the close
    judges them (before, it judged all three as never slapping, 4 cards each)."""
    t, game_id = slaps_all_waiting(tmp_path, pads, window_ms=60_000)  # no timer
    closed = t.send(game_id, {"kind": "race_close"})
    assert closed.status_code == 201, closed.json
    snap = t.snapshot(game_id)
    assert sorted(pad_slaps(snap)) == [0, 1, 2]
    assert [i["event"]["kind"] for i in snap["feed"][-4:]] == ["slap"] * 3 + ["race_close"]
    assert penalised(snap) == {2: 4}


def test_waiting_presses_are_stored_in_time_order_and_a_rules_refusal_is_final() -> None:
    """The queue alone: a 503 keeps the press (and those after it), a 4xx is final, the
    retry doubles its delay while the storage refuses, and the oldest go past the limit."""
    stored: list[int] = []
    told: list[tuple[str, bool]] = []
    refuse = {"status": 503}
    timers: list[Manual] = []

    def store(item: PendingPress) -> bool:
        if refuse["status"]:
            raise BadInput("the disk is full", refuse["status"])
        stored.append(item.t_ns)
        item.note.update(accepted=True, message=f"event #{len(stored)}")
        return True

    def schedule(delay: float, fire: Callable[[], None]) -> Manual:
        timers.append(Manual(delay, fire))
        return timers[-1]

    queue = PendingPresses(store, lambda note, new: told.append((note["message"], new)), schedule)

    def press(t_ns: int) -> PendingPress:
        return PendingPress(1, PadPress(0, "pad", t_ns), t_ns, {"accepted": None})

    queue.send(press(30))
    queue.send(press(10))  # delivered later, pressed earlier
    assert [p.t_ns for p in queue.waiting()] == [30, 10] and len(timers) == 1
    timers[0].fire()  # still full
    assert [t.delay for t in timers] == [1.0, 2.0]
    refuse["status"] = 0
    queue.send(press(40))  # the waiting ones first, oldest press first
    assert stored == [10, 30, 40] and queue.waiting() == []
    assert told[-1] == ("event #3", True)
    assert "(stored once the storage took writes again)" in told[-2][0]

    refuse["status"] = 409  # the rules' answer: not kept
    queue.send(press(50))
    assert queue.waiting() == [] and told[-1] == ("the disk is full", True)

    refuse["status"] = 503
    for t_ns in range(60, 60 + 201):
        queue.send(press(t_ns))
    assert len(queue.waiting()) == 200 and queue.waiting()[0].t_ns == 61
    assert ("not recorded: too many presses waited", False) in told


def test_the_race_timer_stores_the_waiting_presses_before_its_close(tmp_path) -> None:
    """``before_close`` runs first; while it is refused, the close waits and is retried."""
    app = make_app(tmp_path, race_timer=False)
    games = app.extensions["tabletop"].games
    calls: list[str] = []
    refuse = {"on": True}

    def flush(game_id: int) -> None:
        calls.append("flush")
        if refuse["on"]:
            raise BadInput("the disk is full", 503)

    timers: list[Manual] = []

    def schedule(delay: float, fire: Callable[[], None]) -> Manual:
        timers.append(Manual(delay, fire))
        return timers[-1]

    game_id = games.create("hit-the-deck", list(PLAYERS), {"race_window_ms": 300})
    timer = RaceTimer(games, clock=games.monotonic_ns, schedule=schedule, before_close=flush)
    games.append(game_id, Event.from_dict(DEAL))
    games.append(game_id, Event("turn_up", payload={"card": "G3"}))
    now = games.monotonic_ns()
    games.append(game_id, Event("play", seat=0, t_ns=now, payload={"card": "HAND"}))
    games.append(game_id, Event("slap", seat=1, t_ns=now + 10 * MS, source=Source.PAD))
    assert len(timers) == 1
    timers[0].fire()
    assert calls == ["flush"] and games.snapshot(game_id)["view"]["race"] is not None
    assert len(timers) == 2  # tried again later
    refuse["on"] = False
    timers[1].fire()
    assert calls == ["flush", "flush"]
    assert games.snapshot(game_id)["view"]["race"] is None
    timer.close()


# -- 2. a race judged as the server starts flashes its losers ---------------------------


class AtOnce:
    """A timer whose zero delay runs before ``start`` returns: the worst case of the race
    between the resumed close and the lights' setup."""

    daemon = False

    def __init__(self, delay: float, fire: Callable[[], None]) -> None:
        self.fire = fire

    def start(self) -> None:
        self.fire()

    def cancel(self) -> None:
        pass


def left_open_at_a_restart(tmp_path: Path) -> tuple[int, Path]:
    """A first server logs Ann's Hand card and Bob's pad slap and stops before judging the
    race (no race timer); its window ends while the server is down."""
    first = gpio_pads()
    t = Tablet(make_app(tmp_path, pads=first, race_timer=False))
    game_id, card = hand_card_race(t, window_ms=1000)
    slap(first, 1)
    assert wait_for(lambda: (note_of(t, 1) or {}).get("accepted") is True)
    first.close()
    assert wait_for(lambda: t.services.clock.now_ns() > card + 1100 * MS)
    assert t.snapshot(game_id)["view"]["race"] is not None
    return game_id, tmp_path


@pytest.mark.parametrize("timer", ["at once", "threading"])
def test_ruling_hw11_a_race_judged_as_the_server_starts_flashes_its_losers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, timer: str
) -> None:
    """Ann and Cat never slapped: as the second server starts, the race is judged, their
    LEDs flash three times and the buzzer beeps once, however soon the close comes."""
    game_id, _ = left_open_at_a_restart(tmp_path)
    if timer == "at once":

        def race_timer(games: Any, clock: Callable[[], int]) -> RaceTimer:
            return RaceTimer(games, clock=clock, schedule=AtOnce)

        monkeypatch.setattr(web.app, "RaceTimer", race_timer)
    pads = gpio_pads()
    try:
        t = Tablet(make_app(tmp_path, pads=pads))
        assert wait_for(lambda: t.snapshot(game_id)["view"]["race"] is None)
        assert penalised(t.snapshot(game_id)) == {0: 4, 2: 4}
        leds, buzzer = pads.table.leds, pads.table.buzzer.pin
        assert wait_for(lambda: switched_on(leds[0].pin) == 3 and switched_on(leds[2].pin) == 3)
        assert wait_for(lambda: not leds[0].pin.state and not leds[2].pin.state)
        assert switched_on(buzzer) == 1
        assert switched_on(leds[1].pin) <= 1  # Bob's turn lit, no flash
    finally:
        t.services.end_streams(0.1)
        pads.close()
