"""Review 38: the pads' presses and races at a stop, an undo and a replay.

1. A slap the storage refused waited in memory for its next retry (up to 30 s away); a server
   stopped meanwhile dropped it, even once the storage took writes again: after the restart
   the slapper was judged as never slapping. Now ``PendingPresses.close`` stores what waits
   one last time, and says in the log (and the press's note) what it still cannot store;
   not when another program held the database just now, nor after waiting long for a store
   in flight (SQLite waits 10 s on a busy database: the stop took up to 20 s).
2. ``tabletop hw replay`` called a slap after a race's window a fake-out (2 cards), where the
   Hit the Deck referee ignores it as a late slap at the judged race when no turn action
   came between (HTD-17): a pad log holds no turn actions, so it is now reported as late.
3. Undoing the pads' timed ``race_close`` (to type in a slap a pad missed) was redone within
   milliseconds: the reopened race's window was long past, so the timer closed it again.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import web.services.pads
from hardware.config import parse_hardware
from hardware.mockpins import NsMockFactory
from hardware.padlog import PadRecorder, RaceMark, read_pad_log, replay_pad_log
from hardware.table import Table
from referee.cli import main
from referee.eventlog import EventLog
from referee.events import Event, Source
from referee.replay_cli import read_jsonl
from tests.test_pads_review36 import (
    gpio_pads,
    hand_card_race,
    note_of,
    outage,
    pad_slaps,
    penalised,
    slap,
    wait_for,
)
from tests.test_snapshot_consistency import Manual
from tests.test_web_race_timer import _hand_card_played
from tests.test_web_routes import Tablet, make_app
from web.errors import BadInput
from web.services.games import storage_error
from web.services.pads import STOPPED, PadPress, PendingPress, PendingPresses
from web.services.race_timer import RaceTimer

MS = 1_000_000
HTD = Path(__file__).parent / "data" / "htd" / "rule_hand_race.jsonl"


# -- 1. presses waiting for the storage when the server stops ------------------------------------
class Storage:
    """A store that refuses (503) while ``full``; what it stored, by the press's time."""

    def __init__(self, refusal: BadInput | None = None) -> None:
        self.full = True
        self.refusal = refusal or BadInput("the disk is full", 503)
        self.stored: list[int] = []
        self.tries = 0

    def __call__(self, item: PendingPress) -> bool:
        self.tries += 1
        if self.full:
            raise self.refusal
        self.stored.append(item.t_ns)
        item.note.update(accepted=True, message=f"event #{len(self.stored)}")
        return True


def queue(storage: Storage) -> tuple[PendingPresses, list[Manual], list[dict[str, Any]]]:
    """A press queue on ``storage`` with timers run only when the test says: (queue, the
    timers it set, the notes it told)."""
    timers: list[Manual] = []
    told: list[dict[str, Any]] = []

    def schedule(delay: float, fire: Callable[[], None]) -> Manual:
        timers.append(Manual(delay, fire))
        return timers[-1]

    presses = PendingPresses(storage, lambda note, _new: told.append(dict(note)), schedule)
    return presses, timers, told


def press(seat: int, t_ns: int) -> PendingPress:
    return PendingPress(1, PadPress(seat, "pad", t_ns), t_ns, {"seat": seat, "accepted": None})


def test_ruling_log2_a_stop_stores_the_presses_waiting_once_the_storage_takes_writes() -> None:
    storage = Storage()
    presses, timers, told = queue(storage)
    presses.send(press(2, 30))
    presses.send(press(0, 20))
    assert len(presses.waiting()) == 2 and len(timers) == 1
    storage.full = False  # space freed before the next retry, then the server stops
    presses.close()
    assert storage.stored == [20, 30] and presses.waiting() == []
    assert [n["accepted"] for n in told[-2:]] == [True, True]


def test_ruling_log2_a_press_still_refused_at_a_stop_is_logged_with_its_seat_and_time(
    caplog: pytest.LogCaptureFixture,
) -> None:
    storage = Storage()
    presses, _timers, told = queue(storage)
    presses.send(press(2, 123_456_789))
    with caplog.at_level(logging.WARNING, logger="web.services.pads"):
        presses.close()
    assert presses.waiting() == [] and storage.stored == []
    lines = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert lines[0] == "storing 1 waiting pad presses before stopping"
    (line,) = [line for line in lines if "not recorded" in line]
    assert "seat 2's pad at t_ns=123456789" in line and "the server stopped" in line, line
    assert told[-1]["message"] == STOPPED and told[-1]["waiting"] is False


def locked_database(tmp_path: Path) -> BadInput:
    """The storage's refusal while another program holds the database's write lock, as the
    server words it (``storage_error``), got without SQLite's 10 s wait."""
    db = tmp_path / "locked.db"
    other = sqlite3.connect(db, isolation_level=None)
    other.execute("CREATE TABLE t (x)")
    other.execute("BEGIN IMMEDIATE")
    mine = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        mine.execute("INSERT INTO t VALUES (1)")
    except sqlite3.OperationalError as exc:
        return storage_error(exc, db)
    finally:
        mine.close()
        other.close()
    raise AssertionError("the database was not locked")


def test_ruling_log2_a_stop_does_not_wait_again_on_a_database_busy_just_now(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Another program holds the database: the press was refused after SQLite waited 10 s.
    The stop tried it again (10 s more, 20 s with a retry running). Now it does not try;
    the press is lost and said to be, as one the storage still refused."""
    storage = Storage(locked_database(tmp_path))
    presses, _timers, told = queue(storage)
    presses.send(press(2, 77))
    assert storage.tries == 1 and len(presses.waiting()) == 1
    with caplog.at_level(logging.WARNING, logger="web.services.pads"):
        presses.close()
    assert storage.tries == 1 and presses.waiting() == []
    assert "not storing 1 waiting pad presses before stopping: the database was busy" in (
        caplog.text
    )
    assert "seat 2's pad at t_ns=77" in caplog.text and told[-1]["message"] == STOPPED


def test_ruling_log2_a_stop_tries_again_a_database_busy_a_while_ago(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other program may have let go since the last busy refusal: stored at the stop."""
    monkeypatch.setattr(web.services.pads, "BUSY_RECENT_S", 0.0)
    storage = Storage(locked_database(tmp_path))
    presses, _timers, told = queue(storage)
    presses.send(press(0, 88))
    storage.full = False
    presses.close()
    assert storage.stored == [88] and told[-1]["accepted"] is True


class Stuck(Storage):
    """A busy database: the store held ``inside`` (SQLite's wait) until ``go`` is set."""

    def __init__(self, refusal: BadInput) -> None:
        super().__init__(refusal)
        self.inside, self.go = threading.Event(), threading.Event()

    def __call__(self, item: PendingPress) -> bool:
        if self.tries:  # the first refusal comes at once; the next ones wait
            self.inside.set()
            self.go.wait(10)
            self.inside.clear()
        return super().__call__(item)


def test_ruling_log2_a_stop_does_not_wait_for_a_store_in_flight_on_a_busy_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Ann's press waits; Bob's is being stored (Ann's first) while another program holds the
    database. The stop waited for that store, then tried once more itself. Now it returns
    while the store still waits; as that store is refused, both presses are said lost."""
    monkeypatch.setattr(web.services.pads, "CLOSE_WAIT_S", 0.05)
    storage = Stuck(locked_database(tmp_path))
    presses, _timers, told = queue(storage)
    presses.send(press(0, 11))
    in_flight = threading.Thread(target=presses.send, args=(press(1, 22),))
    in_flight.start()
    assert storage.inside.wait(5)
    threading.Timer(2.0, storage.go.set).start()  # the old stop waited for it: no hang
    with caplog.at_level(logging.WARNING, logger="web.services.pads"):
        presses.close()
        returned_in_flight = storage.inside.is_set()
        storage.go.set()
        in_flight.join(5)
    assert returned_in_flight, "the stop waited for the store in flight"
    assert storage.tries == 2 and presses.waiting() == []
    assert "a store is still waiting for the database" in caplog.text
    assert "seat 0's pad at t_ns=11" in caplog.text and "seat 1's pad at t_ns=22" in caplog.text
    assert [n["message"] for n in told[-2:]] == [STOPPED, STOPPED]


def test_a_press_sent_after_the_stop_is_stored_once_or_said_never_held(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The pads are closed after the press queue: a slap in between is tried once."""
    storage = Storage()
    presses, timers, told = queue(storage)
    presses.close()
    with caplog.at_level(logging.WARNING, logger="web.services.pads"):
        presses.send(press(1, 40))  # still refused: said, not kept with no retry coming
    assert presses.waiting() == [] and timers == []
    assert told[-1]["message"] == STOPPED
    assert "seat 1's pad at t_ns=40" in caplog.text
    storage.full = False
    presses.send(press(0, 50))
    assert storage.stored == [50]


def test_ruling_log2_slaps_waiting_at_a_stop_are_judged_after_the_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reviewer's case: Bob's slap is stored, the card fills, Ann and Cat slap in time,
    space is freed and the server stops before the presses' next retry. Before, the restarted
    server judged Ann and Cat as never slapping (4 cards each); now only Cat, the last."""
    monkeypatch.setattr(web.services.pads, "RETRY_FIRST_S", 60.0)  # no retry before the stop
    pads = gpio_pads()
    try:
        t = Tablet(make_app(tmp_path, pads=pads))
        game_id, _card = hand_card_race(t, window_ms=60_000)  # open until everyone slapped
        slap(pads, 1)
        assert wait_for(lambda: (note_of(t, 1) or {}).get("accepted") is True)
        full = outage(t)
        full["on"] = True
        slap(pads, 0)
        slap(pads, 2)
        assert wait_for(lambda: all((note_of(t, s) or {}).get("waiting") for s in (0, 2)))
        full["on"] = False
        t.services.end_streams(timeout=0.1)  # what `tabletop serve` does as it stops
    finally:
        pads.close()
    t.services.games.log.close()
    snap = Tablet(make_app(tmp_path)).snapshot(game_id)
    assert sorted(pad_slaps(snap)) == [0, 1, 2]
    assert penalised(snap) == {2: 4}


# -- 2. hw replay: a slap after a race's window ----------------------------------------------------
CARD = 10_000 * MS
CONFIG = {"seats": {"0": {"pad": 4}, "1": {"pad": 22}, "2": {"pad": 11}}, "buzzer": False}


def late_slap_log(path: Path) -> list[Any]:
    """A Hand card at CARD: Cat and Ann slap in time, Bob 200 ms after the 3 s window, and
    Cat once before the card (a fake-out). Returns the presses the table accepted."""
    live: list[Any] = []
    slaps = ((2, CARD - 2_000 * MS), (2, CARD + 150 * MS), (0, CARD + 200 * MS))
    with Table(parse_hardware(CONFIG), NsMockFactory()) as table, PadRecorder(table, path) as rec:
        table.bus.subscribe(live.append)
        for seat, t in (*slaps, (1, CARD + 3_200 * MS)):
            table.drive(seat, "pad", True, t)
            table.drive(seat, "pad", False, t + 80 * MS)
        rec.mark(RaceMark("last_slapper", CARD, (0, 1, 2)))
    return live


def referee_penalties(tmp_path: Path, live: list[Any]) -> list[tuple[int, str, int]]:
    """The Hit the Deck referee's penalties for the same slaps, Cat's next card after them."""
    _, players, options, events = read_jsonl(HTD, None)
    upto = next(i for i, e in enumerate(events) if e.kind == "play" and e.t_ns == CARD)
    db = EventLog(tmp_path / "late.db")
    game_id = db.create_game("hit-the-deck", players, options)
    for event in events[: upto + 1]:
        db.append(game_id, event)
    for p in live:
        db.append(game_id, p.to_event("hit-the-deck"))
    card = {"card": "Y4"}
    db.append(
        game_id, Event("play", seat=2, payload=card, t_ns=CARD + 5_000 * MS, source=Source.CAMERA)
    )
    verdicts = db.rebuild(game_id).verdicts
    db.close()
    return sorted(
        (v.seat, v.data["penalty"], v.data["draw"]) for _, v in verdicts if v.data.get("penalty")
    )


def test_ruling_hw5_a_slap_after_a_race_window_is_late_not_a_fake_out(tmp_path: Path) -> None:
    live = late_slap_log(tmp_path / "late.jsonl")
    outcome = replay_pad_log(read_pad_log(tmp_path / "late.jsonl"))
    assert [(e.seat, e.t_ns) for e in outcome.fake_outs] == [(2, CARD - 2_000 * MS)]
    assert [(s.press.seat, s.press.t_ns, s.race_t_ns) for s in outcome.late_slaps] == [
        (1, CARD + 3_200 * MS, CARD)
    ]
    (decision,) = outcome.decisions
    assert decision.seats == (1,)  # Bob missed the window: last, charged once
    # what the replay charges is what the referee charges for the same slaps
    charged = [(s, "fake_out", 2) for s in (e.seat for e in outcome.fake_outs)]
    charged += [(s, "last_slap", 4) for s in decision.seats]
    assert referee_penalties(tmp_path, live) == sorted(charged)


def test_hw_replay_says_a_late_slap_is_late(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = tmp_path / "late.jsonl"
    late_slap_log(path)
    assert main(["hw", "replay", "--fast", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 races, 1 fake-outs, 1 late slap\n" in out
    assert "fake-out: seat 1" not in out and "fake-out: seat 2 slapped with no card" in out
    assert (
        f"late slap: seat 1 at t={CARD + 3_200 * MS}, after the window of the race at t={CARD}: "
        "the referee ignores it, unless a turn action came between (then it is a fake-out, "
        "HTD-17)"
    ) in out
    assert main(["hw", "replay", "--fast", "--json", str(path)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [e["seat"] for e in data["fake_outs"]] == [2]
    assert data["late_slaps"] == [
        {"seat": 1, "device": "pad", "t_ns": CARD + 3_200 * MS, "race_t_ns": CARD}
    ]


# -- 3. an undone race_close of the pads' timer ----------------------------------------------------
def test_ruling_htd13_an_undone_timed_race_close_is_not_timed_again(tmp_path: Path) -> None:
    """Cy's pad missed her slap, so the timer's close made her last: the family undoes it.
    The race stays open (before, a new close followed at once, Cy last again), at a server
    start too, until their own ``race_close`` names who was last."""
    timers: list[Manual] = []

    def schedule(delay: float, fire: Callable[[], None]) -> Manual:
        timers.append(Manual(delay, fire))
        return timers[-1]

    t = Tablet(make_app(tmp_path, race_timer=False))
    t.set_pin()
    games = t.services.games
    timer = RaceTimer(games, clock=games.monotonic_ns, schedule=schedule)
    game_id = _hand_card_played(t, window_ms=300)
    assert t.post("/api/pads/press", {"seat": 0, "device": "pad"}).status_code == 200
    assert t.post("/api/pads/press", {"seat": 1, "device": "pad"}).status_code == 200
    assert wait_for(lambda: len(timers) == 1)
    assert wait_for(
        lambda: games.monotonic_ns() > games.snapshot(game_id)["view"]["race"]["deadline_ns"]
    )
    timers[0].fire()
    close = t.snapshot(game_id)["feed"][-1]
    assert (close["event"]["kind"], close["event"]["source"]) == ("race_close", "pad")

    assert t.post(f"/api/games/{game_id}/undo", {"target": close["seq"]}).status_code == 201
    for later in timers[1:]:  # before: one more timer, due at once, closing it again
        later.fire()
    assert t.snapshot(game_id)["view"]["race"] is not None
    timer.resume(game_id)  # nor is it judged at a server start
    for later in timers[1:]:
        later.fire()
    assert t.snapshot(game_id)["view"]["race"] is not None

    judged = t.send(game_id, {"kind": "race_close", "payload": {"last": [1]}})
    assert judged.status_code == 201, judged.json
    snap = t.snapshot(game_id)
    assert snap["view"]["race"] is None and penalised(snap) == {1: 4}
    timer.close()
