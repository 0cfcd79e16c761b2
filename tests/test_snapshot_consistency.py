"""A game's snapshot is of one log head, published in head order, and cheap per event.

1. ``GameService.snapshot`` read the feed, then replayed the log again for the view: an
   event appended in between (the pads' race timer, another tablet, a second server on the
   file) gave a snapshot whose view had the race closed while its feed lacked the
   ``race_close`` (a test waiting on ``race is None`` then flaked). And snapshots were
   handed to the hub and the listeners after the lock: an older one could come last and
   put a tablet back (a stream sends a whole ``state`` to a tablet that is ahead).
2. Every event rebuilt the whole feed from the database (about 20 ms at 1 000 events):
   now the feed entries are cached per game, and an event builds its own; the cached
   snapshot equals one built from scratch after every kind of change.
3. A ``race_close`` the card refused (503, LOG-2) was logged and never sent again.
4. A pad press went to the game current when it was *delivered*: a game started while it
   waited behind slower listeners got a press made before it existed.

Interleavings are forced with events and a lock that says when a thread had to wait for it,
never with sleeps.
"""

from __future__ import annotations

import copy
import itertools
import json
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from referee.events import Event, Source
from tests.test_web_routes import make_app
from web.blueprints.live import Held, push
from web.errors import BadInput
from web.services.games import GameService
from web.services.hub import FeedVersions, Hub
from web.services.pads import PadPress
from web.services.race_timer import RaceTimer
from web.services.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "tests" / "data" / "hit-the-deck-example.jsonl"
WAIT_S = 10.0  # only against a hang: every wait below is for an event that must come


def service(db: Path) -> GameService:
    return GameService(db, Settings(db), Hub())


def race_game(games: GameService, now_ns: int | None = None) -> int:
    """A Hit the Deck game whose Hand card (window 300 ms) Ann has slapped on her pad; Bob
    and Cy have not: the race is open, and the pads' timer would close it."""
    now = time.monotonic_ns() if now_ns is None else now_ns
    game_id = games.create("hit-the-deck", ["Ann", "Bob", "Cy"], {"race_window_ms": 300})
    for event in (
        Event("deal", payload={"hands": [7, 7, 7]}),
        Event("turn_up", payload={"card": "R3"}),
        Event("play", seat=1, payload={"card": "R4"}),
        Event("play", seat=2, payload={"card": "HAND"}, t_ns=now),
        Event("slap", seat=0, t_ns=now + 100_000_000, source=Source.PAD),
    ):
        games.append(game_id, event)
    assert games.snapshot(game_id)["view"]["race"] is not None
    return game_id


def race_close() -> Event:
    return Event("race_close", source=Source.PAD)


def one_head(snap: dict[str, Any]) -> None:
    """The view and the feed of ``snap`` are of the same log head."""
    closed = snap["view"]["race"] is None
    last = snap["feed"][-1]
    assert snap["head"] == last["seq"]
    assert closed == (last["event"]["kind"] == "race_close"), (closed, last["event"])


class WatchedLock:
    """An RLock that calls ``waited`` when a thread finds it held by another and waits."""

    def __init__(self, waited: Callable[[], None]) -> None:
        self._lock = threading.RLock()
        self._waited = waited

    def acquire(self, blocking: bool = True, timeout: float = -1) -> bool:
        if self._lock.acquire(blocking=False):
            return True
        self._waited()
        return self._lock.acquire(blocking, timeout)

    def release(self) -> None:
        self._lock.release()

    def __enter__(self) -> WatchedLock:
        self.acquire()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()


def run(target: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    """``target`` on a thread; what it returned (or raised) lands in the list."""
    out: list[Any] = []

    def body() -> None:
        try:
            out.append(target())
        except BaseException as exc:  # handed to the test
            out.append(exc)

    thread = threading.Thread(target=body, daemon=True)
    thread.start()
    return thread, out


# -- 1. one head per snapshot -------------------------------------------------------------


def test_a_snapshot_is_of_one_head_though_another_server_appends_while_it_is_read(tmp_path):
    """Server B closes the race while server A reads the feed: before, A's view (replayed
    after) had the race closed and its feed had no race_close. Now A's reads are one read
    transaction: the whole snapshot is from before B's event, and the next one has both."""
    db = tmp_path / "tabletop.db"
    game_id = race_game(service(db))
    a, b = service(db), service(db)  # A just started: its first snapshot reads every entry
    entries = a.log.entries
    once = [True]

    def b_closes_meanwhile(gid: int) -> Iterator[Any]:
        read = list(entries(gid))
        if once.pop() if once else False:
            b.append(gid, race_close())
        return iter(read)

    a.log.entries = b_closes_meanwhile  # type: ignore[method-assign]
    snap = a.snapshot(game_id)
    one_head(snap)
    assert snap["view"]["race"] is not None and snap["head"] == 5
    later = a.snapshot(game_id)
    one_head(later)
    assert later["view"]["race"] is None and later["head"] == 6


def test_an_append_on_another_thread_waits_for_a_snapshot_being_built(tmp_path):
    """The race timer's thread appends race_close while a tablet's snapshot is between its
    feed and its view: before, the append went through there. Now it waits for the
    snapshot (the service's lock), which is then all of one head."""
    db = tmp_path / "tabletop.db"
    game_id = race_game(service(db))
    games = service(db)
    settled = threading.Event()  # the append either went through or waits for the lock
    games._lock = WatchedLock(settled.set)  # type: ignore[assignment]
    paused, go = threading.Event(), threading.Event()
    entries = games.log.entries
    first = [True]

    def pause_after_the_feed(gid: int) -> Iterator[Any]:
        read = list(entries(gid))
        if first[0] and threading.current_thread() is not threading.main_thread():
            first[0] = False
            paused.set()
            assert go.wait(WAIT_S)
        return iter(read)

    games.log.entries = pause_after_the_feed  # type: ignore[method-assign]
    tablet, snaps = run(lambda: games.snapshot(game_id))
    assert paused.wait(WAIT_S)

    def timer_closes() -> dict[str, Any]:
        try:
            return games.append(game_id, race_close())
        finally:
            settled.set()

    timer, closed = run(timer_closes)
    assert settled.wait(WAIT_S)
    go.set()
    tablet.join(WAIT_S)
    timer.join(WAIT_S)
    assert not tablet.is_alive() and not timer.is_alive()
    assert isinstance(closed[0], dict), closed
    one_head(snaps[0])
    after = games.snapshot(game_id)
    one_head(after)
    assert after["view"]["race"] is None


def test_the_hub_and_the_listeners_get_snapshots_in_head_order(tmp_path):
    """Bob's slap is published while Cy's is stored: before, Bob's snapshot (older) could
    reach the hub and the race timer after Cy's, and a tablet on a delta stream was sent
    the older whole state (it is ahead) and stayed behind. Now they come in head order."""
    db = tmp_path / "tabletop.db"
    games = service(db)
    game_id = race_game(games)
    settled = threading.Event()
    games._lock = WatchedLock(settled.set)  # type: ignore[assignment]
    paused, go = threading.Event(), threading.Event()
    hub_heads: list[int] = []
    told_heads: list[int] = []
    published: list[dict[str, Any]] = []
    publish = games.hub.publish

    def paused_publish(topic: str, snap: Any) -> None:
        if snap["head"] == 6 and not paused.is_set():  # Bob's, on its way to the hub
            paused.set()
            assert go.wait(WAIT_S)
        hub_heads.append(snap["head"])
        published.append(snap)
        publish(topic, snap)

    games.hub.publish = paused_publish  # type: ignore[method-assign]
    games.listeners.append(lambda gid, snap: told_heads.append(snap["head"]))
    now = time.monotonic_ns()
    bob, _ = run(lambda: games.append(game_id, Event("slap", seat=1, t_ns=now, source=Source.PAD)))
    assert paused.wait(WAIT_S)

    def cy_slaps() -> Any:
        try:
            return games.append(game_id, Event("slap", seat=2, t_ns=now, source=Source.PAD))
        finally:
            settled.set()

    cy, _ = run(cy_slaps)
    assert settled.wait(WAIT_S)
    go.set()
    bob.join(WAIT_S)
    cy.join(WAIT_S)
    assert not bob.is_alive() and not cy.is_alive()
    assert hub_heads == sorted(hub_heads) and hub_heads[-1] == 7, hub_heads
    assert told_heads == sorted(told_heads) and told_heads[-1] == 7, told_heads
    # a tablet on a delta stream that heard them in that order holds the newest feed
    feeds, held = FeedVersions(), Held()
    for snap in published:
        push(feeds, snap, held)
    assert held.last == 7


# -- 2. the feed cache --------------------------------------------------------------------


def example_events() -> list[Event]:
    lines = EXAMPLE.read_text().splitlines()
    return [Event.from_dict(json.loads(line)) for line in lines[1:]]


def test_the_cached_snapshot_equals_one_built_from_scratch_after_every_kind_of_change(tmp_path):
    """After events, an illegal one, undo, undo of the undo, overrule, accept, another
    server's event, end, a restart and an entry that no longer decodes: the snapshot the
    service publishes (and returns) is the one a service just started builds. A snapshot
    handed out is never changed afterwards (tablets' feeds are compared with it)."""
    db = tmp_path / "tabletop.db"
    games = service(db)
    sub = games.hub.subscribe("game")
    handed: list[tuple[list[Any], list[Any]]] = []  # (a feed handed out, a copy then)

    def check(game_id: int) -> None:
        fresh = service(db).snapshot(game_id)
        while (item := sub.get(timeout=0)) is not None:
            snap = dict(item[1])
            del snap["why"]
            handed.append((snap["feed"], copy.deepcopy(snap["feed"])))
            last = snap
        assert last == fresh
        now = games.snapshot(game_id)
        handed.append((now["feed"], copy.deepcopy(now["feed"])))
        assert now == fresh

    game_id = games.create("hit-the-deck", ["Ann", "Bob", "Cat"], {"target_score": 10**9})
    check(game_id)
    for event in example_events()[:40]:
        games.append(game_id, event)
        check(game_id)
    out = games.append(game_id, Event("play", seat=2, payload={"card": "R1"}))
    assert any(v["outcome"] == "illegal" for v in out["verdicts"]), out  # stored, illegal
    check(game_id)
    undo = games.undo(game_id, 10)["seq"]
    check(game_id)
    games.undo(game_id, undo)  # the undo undone: event 10 counts again
    check(game_id)
    assert games.snapshot(game_id)["feed"][undo - 1]["status"] == "meta-undone"
    games.overrule(game_id, 4, {"kind": "play", "seat": 1, "payload": {"card": "B2"}})
    check(game_id)
    assert games.snapshot(game_id)["feed"][3]["status"] == "overruled"
    games.append(game_id, example_events()[40])
    check(game_id)
    games.accept(game_id, 12)
    check(game_id)
    games.accept(game_id, 12)  # again: no change
    games.accept(game_id, 30)
    check(game_id)
    service(db).append(game_id, example_events()[41])  # a second server on the file
    games.append(game_id, example_events()[42])
    check(game_id)
    games.end(game_id)
    check(game_id)
    restarted = service(db)
    assert restarted.snapshot(game_id) == games.snapshot(game_id)
    conn = sqlite3.connect(db)  # an entry that no longer decodes (a damaged card)
    with conn:
        conn.execute(
            "INSERT INTO events (game_id, seq, body, recorded_at) VALUES (?, ?, ?, ?)",
            (game_id, 999, "{not json", time.time()),
        )
    conn.close()
    broken = games.snapshot(game_id)
    assert broken["error"] and broken["feed"][-1]["status"] == "corrupt"
    assert broken == service(db).snapshot(game_id)
    for feed, then in handed:
        assert feed == then


def test_an_event_builds_its_own_feed_entry_not_the_whole_feed(tmp_path, monkeypatch):
    """Before, every event read and decoded every stored entry and built every feed entry
    again (about 20 ms at 1 000 events, bench/feed_push.py). Now an event decodes and
    builds its own; the snapshot it publishes is still the whole one."""
    db = tmp_path / "tabletop.db"
    games = service(db)
    game_id = games.create("hit-the-deck", ["Ann", "Bob", "Cat"], {"target_score": 10**9})
    events = example_events()
    for event in events[:100]:
        games.append(game_id, event)
    counts = {"to_dict": 0, "from_json": 0}
    to_dict, from_json = Event.to_dict, Event.from_json

    def counting_to_dict(self: Event) -> dict[str, Any]:
        counts["to_dict"] += 1
        return to_dict(self)

    def counting_from_json(text: str) -> Event:
        counts["from_json"] += 1
        return from_json(text)

    monkeypatch.setattr(Event, "to_dict", counting_to_dict)
    monkeypatch.setattr(Event, "from_json", staticmethod(counting_from_json))
    published: list[dict[str, Any]] = []
    games.listeners.append(lambda gid, snap: published.append(snap))
    games.append(game_id, events[100])
    assert counts["from_json"] <= 2 and counts["to_dict"] <= 4, counts
    assert len(published[-1]["feed"]) == 101
    monkeypatch.undo()
    assert published[-1] == {**service(db).snapshot(game_id), "why": "event"}


# -- 3. a race close the card refused -----------------------------------------------------


class Manual:
    """A timer that runs only when the test says so."""

    daemon = False

    def __init__(self, delay: float, fire: Callable[[], None]) -> None:
        self.delay, self.fire = delay, fire

    def start(self) -> None:
        pass

    def cancel(self) -> None:
        pass


def full_card(games: GameService, times: int = 1) -> list[int]:
    """The next ``times`` stores fail as a full card does (SQLITE_FULL); returns a counter."""
    store = games.log.append
    failed = [0]

    def append(game_id: int, event: Event, **kw: Any) -> int:
        if failed[0] < times:
            failed[0] += 1
            raise sqlite3.OperationalError("database or disk is full")
        return store(game_id, event, **kw)

    games.log.append = append  # type: ignore[method-assign]
    return failed


def timed_race(tmp_path: Path) -> tuple[GameService, int, list[Manual]]:
    games = service(tmp_path / "tabletop.db")
    now = time.monotonic_ns()
    timers: list[Manual] = []

    def schedule(delay: float, fire: Callable[[], None]) -> Manual:
        timers.append(Manual(delay, fire))
        return timers[-1]

    RaceTimer(games, clock=lambda: now + 10**9, schedule=schedule)  # the window is over
    game_id = race_game(games, now)
    assert len(timers) == 1  # Ann's pad slap started the window timer
    return games, game_id, timers


def test_ruling_web6_a_race_close_the_full_card_refused_is_sent_again(tmp_path):
    """Before, the timer's race_close refused by a full card was only logged: the race
    stayed open (the tablet's turns refused) until someone closed it by hand. Now it is
    sent again 1 s, then 2 s, 4 s … later while the race is open, and the race is judged
    once the card takes writes again."""
    games, game_id, timers = timed_race(tmp_path)
    failed = full_card(games, times=2)
    timers[0].fire()  # refused: the disk is full
    assert failed[0] == 1 and games.snapshot(game_id)["view"]["race"] is not None
    assert len(timers) == 2 and timers[1].delay == 1.0
    timers[1].fire()  # still full
    assert len(timers) == 3 and timers[2].delay == 2.0
    timers[2].fire()  # space freed
    snap = games.snapshot(game_id)
    one_head(snap)
    assert snap["view"]["race"] is None and snap["feed"][-1]["event"]["source"] == "pad"
    assert len(timers) == 3  # judged: nothing more to try


def test_ruling_web6_a_retry_stops_when_the_race_was_closed_otherwise(tmp_path):
    """The card takes writes again and the family closes the race on the tablet before
    the retry: the retry sends nothing (one race_close in the log)."""
    games, game_id, timers = timed_race(tmp_path)
    full_card(games)
    timers[0].fire()
    games.append(game_id, Event("race_close", source=Source.MANUAL))
    timers[-1].fire()
    feed = games.snapshot(game_id)["feed"]
    assert [i["event"]["kind"] for i in feed].count("race_close") == 1
    # and an ended game's race is not tried again
    games2, game2, timers2 = timed_race(tmp_path / "two")
    full_card(games2)
    timers2[0].fire()
    games2.end(game2)
    timers2[-1].fire()
    assert [i["event"]["kind"] for i in games2.snapshot(game2)["feed"]][-1] == "slap"


def test_a_refusal_that_is_not_the_storage_is_not_tried_again(tmp_path):
    """A 409 (the game moved on) is the table's answer, not the storage's: no retry."""
    games, game_id, timers = timed_race(tmp_path)
    tried: list[Event] = []

    def refuse(gid: int, event: Event) -> Any:
        tried.append(event)
        raise BadInput("this game has ended; start a new one on the Setup page", 409)

    games.append = refuse  # type: ignore[method-assign]
    timers[0].fire()
    assert [e.kind for e in tried] == ["race_close"] and len(timers) == 1
    assert games.snapshot(game_id)["view"]["race"] is not None


# -- 4. a pad press goes to the game it was pressed in ------------------------------------


def test_ruling_web7_a_press_delivered_after_a_new_game_started_counts_in_its_own_game(
    tmp_path,
):
    """A press waits behind the presses and listeners before it; meanwhile the family
    starts a new game. Before, the press became the new game's first event (a slap in a
    game that did not exist when it was made). Now it counts in the game it was pressed in;
    a press made after the new game started goes to the new game."""
    app = make_app(tmp_path, race_timer=False)
    services = app.extensions["tabletop"]
    games = services.games
    ticks = itertools.count(time.monotonic_ns(), 1_000)  # the pads' clock, one tick a read
    games.monotonic_ns = lambda: next(ticks)
    players = ["Ann", "Bob", "Cy"]
    old = games.create("hit-the-deck", players, {})
    pressed = PadPress(1, "pad", next(ticks), True)  # a slap, then...
    new = games.create("hit-the-deck", players, {})  # ...the new game, then its delivery
    services.pads.emit(pressed)
    assert [i["event"]["seat"] for i in games.snapshot(old)["feed"]] == [1]
    assert games.snapshot(new)["feed"] == []
    services.pads.emit(PadPress(2, "pad", next(ticks), True))  # pressed now: the new game's
    assert [i["event"]["seat"] for i in games.snapshot(new)["feed"]] == [2]
    assert services.pad_log[-2]["accepted"] is True  # the late one was recorded, in `old`


def test_ruling_web7_a_press_read_while_a_game_is_being_created_is_not_given_to_it(tmp_path):
    """The game and its start are recorded together: a press made before the new game,
    delivered between the game's insert and its start's note (found by review: it went to
    the new game), waits for both and counts in the game it was pressed in."""
    db = tmp_path / "t.db"
    games = GameService(db, Settings(db), Hub())
    players = ["Ann", "Bob", "Cy"]
    old = games.create("hit-the-deck", players, {})
    pressed = games.monotonic_ns()
    time.sleep(0.001)  # the new game starts on a later tick of the pads' clock
    got: list[int | None] = []
    delivery = threading.Thread(target=lambda: got.append(games.current_id(pressed)))
    inserted = games.log.create_game

    def create_game(*args: Any, **kwargs: Any) -> int:
        game_id = inserted(*args, **kwargs)  # committed: listed by log.games()
        delivery.start()  # the pads' delivery asks which game the press was made in now
        delivery.join(0.3)  # it waits for the game's start (before: it answered at once)
        return game_id

    games.log.create_game = create_game  # type: ignore[method-assign]
    new = games.create("hit-the-deck", players, {})
    delivery.join(10)
    assert got == [old] and new != old
    assert games.current_id(games.monotonic_ns()) == new
