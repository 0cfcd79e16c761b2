"""Two items earlier reviews left open.

1. The table's listeners (bus subscribers, edge hooks) ran under the table's locks: a slow
   one (the server storing to SQLite, pushing to tablets) held every other pad's edge
   behind it, and the press was stamped only after it; one that called back into the table
   deadlocked. Now edges are stamped and debounced under the lock and delivered outside it,
   one at a time, in the order the table accepted them (HW-7).
2. At a server start only the latest game's open race was judged: a race left open in an
   older game still running stayed open for ever. Now every running game's is (HW-10).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from hardware.config import parse_hardware
from hardware.hwtest import play_script
from hardware.mockpins import NsMockFactory
from hardware.padevents import PadEvent
from hardware.padlog import PadRecorder
from hardware.service import PadsService
from hardware.table import Table
from referee.events import Event
from tests.test_web_routes import Tablet, make_app
from web.services.race_timer import RaceTimer

MS = 1_000_000
T0 = 10_000 * MS
WAIT_S = 5.0  # how long a thread may take to do what it was started for, at most
CONFIG = parse_hardware(
    {"seats": {str(s): {"pad": pin} for s, pin in enumerate((4, 22, 11, 13))}, "debounce_ms": 5}
)


class Worker:
    """Runs ``fn`` on a daemon thread; ``finished(...)`` says whether it returned in time (a
    thread stuck on a lock stays stuck, but the test goes on and fails instead of hanging)."""

    def __init__(self, fn: Callable[[], Any]) -> None:
        self.result: Any = None
        self.error: BaseException | None = None
        self._done = threading.Event()

        def run() -> None:
            try:
                self.result = fn()
            except BaseException as exc:  # handed to the test
                self.error = exc
            finally:
                self._done.set()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def finished(self, timeout: float = WAIT_S) -> bool:
        done = self._done.wait(timeout)
        if self.error is not None:
            raise self.error
        return done


class Blocker:
    """A subscriber that stops on seat 0's press until released (a slow database)."""

    def __init__(self) -> None:
        self.got: list[PadEvent] = []
        self.entered = threading.Event()
        self.release = threading.Event()
        self.inside = 0
        self.overlapped = False

    def __call__(self, event: PadEvent) -> None:
        self.inside += 1
        self.overlapped |= self.inside > 1
        try:
            self.got.append(event)
            if event.seat == 0:
                self.entered.set()
                self.release.wait(30)  # only a safety net: the test releases it
        finally:
            self.inside -= 1


# -- 1. listeners outside the table's lock ------------------------------------------------
def test_ruling_hw7_a_press_during_a_slow_subscriber_is_stamped_at_its_edge():
    """Seat 0's press is being stored (slowly) when seat 1 slaps. Before, seat 1's press
    waited for the store to finish and was stamped only then; now it is stamped and
    accepted at once, and delivered after seat 0's, in that order."""
    with Table(CONFIG, NsMockFactory()) as table:
        slow = Blocker()
        table.bus.subscribe(slow)
        first = Worker(lambda: table.press(0))
        assert slow.entered.wait(WAIT_S)
        second = Worker(lambda: table.press(1))
        returned = second.finished()
        released_at = time.monotonic_ns()
        slow.release.set()
        assert returned, "seat 1's press waited for seat 0's subscriber"
        assert first.finished() and second.finished()
        assert second.result is not None and second.result.t_ns < released_at
        assert [e.seat for e in slow.got] == [0, 1]
        assert slow.got[1] == second.result and not slow.overlapped


def test_ruling_hw7_an_edge_from_the_pin_thread_is_debounced_while_a_subscriber_is_slow():
    """Real pads: edges come from the pin factory's thread with their kernel stamp. Before,
    the next edge waited for the table's lock held by a slow subscriber; now it is taken,
    debounced and counted at once."""
    with Table(CONFIG, NsMockFactory()) as table:
        slow = Blocker()
        table.bus.subscribe(slow)
        first = Worker(lambda: table.drive(0, "pad", True, T0))
        assert slow.entered.wait(WAIT_S)
        edge = Worker(lambda: table.drive(1, "pad", True, T0 + 2 * MS))
        returned = edge.finished()
        accepted_meanwhile = table.debouncers[(1, "pad")].accepted
        slow.release.set()
        assert returned and accepted_meanwhile == 1
        assert first.finished()
        assert [(e.seat, e.t_ns) for e in slow.got] == [(0, T0), (1, T0 + 2 * MS)]


def test_ruling_hw7_a_subscriber_may_press_another_pad_without_a_deadlock():
    """A subscriber that presses a pad (a dashboard listener echoing a press, a test rig).
    Before, the table's press lock was held around its own subscribers: a deadlock."""
    with Table(CONFIG, NsMockFactory()) as table:
        got: list[PadEvent] = []
        inner: list[PadEvent | None] = []

        def echo(event: PadEvent) -> None:
            got.append(event)
            if event.seat == 0:
                inner.append(table.press(1))
                table.add_edge_hook(lambda *edge: None)()  # and the edge-hook list too

        table.bus.subscribe(echo)
        outer = Worker(lambda: table.press(0))
        assert outer.finished(), "a subscriber pressing a pad deadlocked the table"
        assert outer.result is not None and outer.result.seat == 0
        assert inner[0] is not None and inner[0].seat == 1  # its own press, stamped
        assert [e.seat for e in got] == [0, 1]  # delivered after the one being handled


def test_ruling_hw7_every_listener_hears_the_table_in_the_order_it_accepted_presses():
    """While seat 0's press is being delivered, seats 1, 2 and 3 press from other threads.
    Every subscriber and the recorder's edge hook hear 0, 1, 2, 3, one at a time; a
    subscriber that joins meanwhile hears only presses accepted after it joined."""
    with Table(CONFIG, NsMockFactory()) as table:
        slow, other, late = Blocker(), Blocker(), Blocker()
        other.release.set()  # only ``slow`` stops
        late.release.set()
        hooked: list[int] = []
        table.add_edge_hook(lambda seat, _d, _t, active, ok: hooked.append(seat) if ok else None)
        table.bus.subscribe(slow)
        table.bus.subscribe(other)
        first = Worker(lambda: table.press(0, at_ns=T0))
        assert slow.entered.wait(WAIT_S)
        for seat in (1, 2):
            assert Worker(lambda s=seat: table.press(s, at_ns=T0 + s * MS)).finished()
        table.bus.subscribe(late)
        assert Worker(lambda: table.press(3, at_ns=T0 + 3 * MS)).finished()
        slow.release.set()
        assert first.finished()
        assert [e.seat for e in slow.got] == [0, 1, 2, 3] == [e.seat for e in other.got]
        assert hooked == [0, 1, 2, 3]
        assert [e.seat for e in late.got] == [3]
        assert not (slow.overlapped or other.overlapped)


def test_ruling_hw7_a_recorder_closed_while_presses_wait_to_be_delivered(tmp_path, caplog):
    """The recorder closes while a press is still waiting to be delivered to it: the press
    is not written to the closed file, and nothing fails."""
    path = tmp_path / "pads.jsonl"
    with Table(CONFIG, NsMockFactory()) as table:
        slow = Blocker()
        table.bus.subscribe(slow)
        recorder = PadRecorder(table, path)
        first = Worker(lambda: table.press(0, at_ns=T0))
        assert slow.entered.wait(WAIT_S)
        assert Worker(lambda: table.press(1, at_ns=T0 + MS)).finished()
        recorder.close()
        with caplog.at_level(logging.ERROR):
            slow.release.set()
            assert first.finished()
        assert [e.seat for e in slow.got] == [0, 1]
        assert "failed" not in caplog.text
    assert '"seat":0' in path.read_text(encoding="utf-8")


def test_ruling_hw7_the_dashboard_press_returns_its_event_while_another_is_delivered():
    with Table(CONFIG, NsMockFactory()) as table:
        pads = PadsService(table)
        slow = Blocker()
        pads.subscribe(lambda p: slow(PadEvent(p.seat, p.input, p.t_ns)))
        first = Worker(lambda: pads.press(0, "pad"))
        assert slow.entered.wait(WAIT_S)
        second = Worker(lambda: pads.press(1, "pad"))
        returned = second.finished()
        slow.release.set()
        assert returned and second.result.seat == 1  # not "pressed again too quickly"
        assert first.finished()
        assert [p.seat for p in pads.recent()] == [0, 1]


def test_a_scripted_press_after_many_bounce_pairs_is_stamped_after_them(tmp_path):
    """``hw record --script 0:pad,0:pad --bounce 1000``: a press's bounces are stamped up to
    0.2 s ahead of the clock. Before, the next press was stamped "now", before the previous
    release: dropped as its bounce, and the recording's times ran backwards."""
    path = tmp_path / "script.jsonl"
    with Table(CONFIG, NsMockFactory()) as table, PadRecorder(table, path):
        got: list[PadEvent] = []
        table.bus.subscribe(got.append)
        play_script(table, [(0, "pad"), (0, "pad")], bounces=1000)
    assert len(got) == 2 and got[0].t_ns < got[1].t_ns
    edges = [json.loads(line)["edge"]["t_ns"] for line in path.read_text().splitlines()[1:]]
    assert edges == sorted(edges)


# -- 2. a start judges every running game's open race ---------------------------------------
class FakeGames:
    """Three games: 1 running with an open race, 2 ended, 3 (the latest) running with one."""

    def __init__(self, now: int) -> None:
        self.listeners: list[Any] = []
        self.appended: list[tuple[int, str]] = []
        self.open = {1: True, 3: True}
        self.now = now

    def records(self) -> list[Any]:
        return [
            SimpleNamespace(id=1, game="hit-the-deck", ended_at=None),
            SimpleNamespace(id=2, game="hit-the-deck", ended_at=1.0),
            SimpleNamespace(id=3, game="hit-the-deck", ended_at=None),
        ]

    def snapshot(self, game_id: int) -> dict[str, Any]:
        trigger = self.now - 10 * 1_000 * MS  # ten seconds ago, a 300 ms window
        race = {
            "slaps": {"0": trigger + MS},
            "trigger_ns": trigger,
            "deadline_ns": trigger + 300 * MS,
        }
        feed = [{"status": "ok", "event": {"kind": "slap", "source": "pad", "t_ns": trigger + MS}}]
        ended = 1.0 if game_id == 2 else None
        return {
            "game": {"id": game_id, "ended_at": ended},
            "view": {"race": race if self.open.get(game_id) or game_id == 2 else None},
            "feed": feed,
        }

    def append(self, game_id: int, event: Event) -> dict[str, Any]:
        self.appended.append((game_id, event.kind))
        self.open[game_id] = False
        return {"seq": 1}


class RunNow:
    """A ``threading.Timer`` stand-in that runs when the test says so."""

    def __init__(self) -> None:
        self.due: list[Callable[[], None]] = []

    def __call__(self, delay: float, fn: Callable[[], None]) -> Any:
        due = self.due
        return SimpleNamespace(daemon=False, start=lambda: due.append(fn), cancel=lambda: None)

    def run(self) -> None:
        while self.due:
            self.due.pop(0)()


def test_ruling_hw10_a_start_judges_the_open_race_of_every_running_game():
    now = 50_000 * 1_000 * MS
    games, timers = FakeGames(now), RunNow()
    timer = RaceTimer(games, clock=lambda: now, schedule=timers)
    timer.resume(3)  # as the server starts: the game the pads play in
    timers.run()
    assert sorted(games.appended) == [(1, "race_close"), (3, "race_close")]  # not 2: ended


def _race_left_open(tablet: Tablet, slap_at: int) -> int:
    """A Hand card (300 ms window) and Ann's pad slap; Bob and Cy never slap."""
    body = {"game": "hit-the-deck", "players": ["Ann", "Bob", "Cy"]}
    game_id = int(
        tablet.post("/api/games", {**body, "options": {"race_window_ms": 300}}).json["id"]
    )
    for event in (
        {"kind": "deal", "payload": {"hands": [7, 7, 7]}},
        {"kind": "turn_up", "payload": {"card": "R3"}},
        {"kind": "play", "seat": 1, "payload": {"card": "R4"}},
        {"kind": "play", "seat": 2, "payload": {"card": "HAND"}, "t_ns": slap_at - 50 * MS},
        {"kind": "slap", "seat": 0, "t_ns": slap_at, "source": "pad"},
    ):
        assert tablet.send(game_id, event).status_code == 201, event
    assert tablet.snapshot(game_id)["view"]["race"] is not None
    return game_id


def _wait_until_judged(tablet: Tablet, game_id: int) -> dict[str, Any]:
    """The game once its feed ends with a ``race_close`` (or after 10 s). Not "once the view
    has no race": a snapshot's view may be replayed a head past its feed (GameService)."""
    until = time.monotonic() + 10
    while True:
        snap = tablet.snapshot(game_id)
        if snap["feed"][-1]["event"]["kind"] == "race_close" or time.monotonic() > until:
            return tablet.snapshot(game_id)
        time.sleep(0.05)  # polling the server's timer thread; the assertions follow


def test_ruling_hw10_an_older_running_game_s_race_is_judged_at_a_start(tmp_path: Path):
    """Game 1's race was open when the family started game 2 and the server stopped in its
    window. Before, the restarted server judged only game 2's race: game 1's stayed open for
    ever. Now it is judged as left open (Bob and Cy last), and the pads still press into
    game 2, the latest."""
    tablet = Tablet(make_app(tmp_path, race_timer=False))
    tablet.set_pin()
    older = _race_left_open(tablet, slap_at=time.monotonic_ns())
    latest = _race_left_open(tablet, slap_at=time.monotonic_ns())
    back = Tablet(make_app(tmp_path))
    back.login()
    for game_id in (older, latest):
        snap = _wait_until_judged(back, game_id)
        last = snap["feed"][-1]
        assert (last["event"]["kind"], last["event"]["source"]) == ("race_close", "pad"), game_id
        assert "Bob and Cy both count as last" in " ".join(v["reason"] for v in last["verdicts"])
    heads = {g: back.snapshot(g)["head"] for g in (older, latest)}
    assert back.post("/api/pads/press", {"seat": 1, "device": "pad"}).status_code == 200
    assert back.snapshot(older)["head"] == heads[older]
    assert back.snapshot(latest)["feed"][-1]["event"]["kind"] == "slap"
