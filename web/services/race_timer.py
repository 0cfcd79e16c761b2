"""The pads' window timer: a slap race is judged when its window ends (HTD-13).

The rules read no clock, so a race closes when every seat has slapped, at a ``race_close``
event, or at the first later event stamped past the window. With pads, a seat that never
slaps would otherwise leave the race open until someone touched the tablet. So once a race
has a deadline and at least one slap (pads or camera: a tablet-only table, whose people
judge with ``race_close last=[…]``, is never overruled by a clock), this timer sends
``race_close`` when the window has passed, if the same race is still open then. Only races
timed on this server's clock (``time.monotonic_ns``, as pads, camera and tablet stamp them)
are timed: a deadline a minute or more away from now comes from another clock.

A race whose window had already ended when the timer first saw it, and whose start is a
slap standing in for a Hand card entered with no time, gets a window from then: that slap
was seen before the card, and the slaps at the card, still to come, may show it was a
fake-out and move the start (HTD-14). Closing at once would judge everyone who slaps at the
card as missing it. A race left open when the server stopped (``resume``) is judged at once.

A race whose ``race_close`` was undone is the family's from then on, at a start too: they
undid it on purpose (a pad missed a slap), and the clock would close it again at once, its
window long past. Their ``race_close`` (``last`` naming who was last, HTD-14) judges it, or
else the next event timed after its window does (HTD-13); an untimed turn action waits.

A ``race_close`` the database refuses for now (503: a full or read-only card, a lock held by
another program, LOG-2) is sent again, after 1 s, 2 s, 4 s … (at most ``RETRY_MAX_S``
apart) for as long as the same race is open in a running game: once the card takes writes
again the race is judged with no one touching the tablet, as it would have been. The pads'
slaps that storage refused meanwhile are stored first (``before_close``, the app's
``PendingPresses.flush``): a seat that slapped in time counts as slapping then, not as last.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from referee.events import Event, Source
from web.errors import BadInput

log = logging.getLogger(__name__)

MARGIN_NS = 50_000_000  # after the deadline, so a slap stamped at its last instant is in
# A deadline this far from the server's clock is not on it: times from another clock (a
# replayed recording, hand-written times) are left to the table. A race left open when the
# server stopped is the exception (``resume``): a reboot's offset puts it in the past (HW-10).
FOREIGN_NS = 60_000_000_000
RETRY_FIRST_S = 1.0  # a close the storage refused is tried again this much later, then
RETRY_MAX_S = 30.0  # twice as late each time, up to this


class Timer(Protocol):
    daemon: bool

    def start(self) -> None: ...

    def cancel(self) -> None: ...


Schedule = Callable[[float, Callable[[], None]], Timer]


class Record(Protocol):
    id: int
    ended_at: float | None


class Games(Protocol):
    listeners: list[Callable[[int, dict[str, Any]], None]]

    def records(self) -> Sequence[Record]: ...

    def snapshot(self, game_id: int) -> dict[str, Any]: ...

    def append(self, game_id: int, event: Event) -> dict[str, Any]: ...


TIMED_SOURCES = frozenset({Source.PAD.value, Source.CAMERA.value})


def open_race(snap: Mapping[str, Any]) -> tuple[int, int] | None:
    """(trigger, deadline) of the game's open race that a pad's or the camera's slap has
    joined, else None. Slaps typed on the tablet, even stamped "now", are a family entering
    the race one by one: the clock must not close it after the first (HTD-13). Nor is a race
    whose ``race_close`` was undone (the family reopened it) the clock's any more."""
    if (snap.get("game") or {}).get("ended_at"):
        return None
    race = (snap.get("view") or {}).get("race")
    if not isinstance(race, Mapping) or not race.get("slaps"):
        return None
    trigger, deadline = race.get("trigger_ns"), race.get("deadline_ns")
    if not isinstance(trigger, int) or not isinstance(deadline, int):
        return None
    feed = snap.get("feed") or []
    if not _timed_slap(feed, trigger) or _close_undone(feed, trigger):
        return None
    return trigger, deadline


def _races(game: str) -> bool:
    """Whether a game of these rules can hold a slap race (takes ``slap`` events): a restart
    replays only those (a family's Deck Dash and DOS games left running cost it nothing)."""
    from referee.registry import UnknownGameError, find_game

    try:
        return "slap" in find_game(game).event_kinds()
    except UnknownGameError:
        return False


def _stand_in(snap: Mapping[str, Any], trigger: int) -> bool:
    """Whether the race's start is one of its slaps, standing in for a Hand card entered
    with no time (HTD-14), rather than the card's own time."""
    race = (snap.get("view") or {}).get("race") or {}
    return any(slap.get("t_ns") == trigger for slap in race.get("slaps") or [])


def _timed_slap(feed: Sequence[Mapping[str, Any]], trigger: int) -> bool:
    """Whether a slap in force from a pad or the camera came at or after ``trigger``: as
    pressed, or as the referee corrected it (an overrule keeps the press's time, WEB-4)."""
    return any(_pressed_slap(item) and item["event"]["t_ns"] >= trigger for item in feed)


def _close_undone(feed: Sequence[Mapping[str, Any]], trigger: int) -> bool:
    """Whether a ``race_close`` of the race started at ``trigger`` (logged after the feed's
    first event at that time: its Hand card, or the slap standing in for it) was undone."""
    start = next((i for i, item in enumerate(feed) if _at(item, trigger)), None)
    if start is None:
        return False
    return any(
        (item.get("event") or {}).get("kind") == "race_close" and item.get("status") == "undone"
        for item in feed[start + 1 :]
    )


def _at(item: Mapping[str, Any], t_ns: int) -> bool:
    """Whether a feed entry is timed at ``t_ns``, as logged or as the referee corrected it."""
    times = ((item.get("event") or {}).get("t_ns"), (item.get("replacement") or {}).get("t_ns"))
    return t_ns in times


def _pressed_slap(item: Mapping[str, Any]) -> bool:
    event = item.get("event") or {}
    if event.get("source") not in TIMED_SOURCES or not isinstance(event.get("t_ns"), int):
        return False
    if item.get("status") == "ok":
        return event.get("kind") == "slap"
    in_force = item.get("replacement") or {}
    return item.get("status") == "overruled" and in_force.get("kind") == "slap"


class RaceTimer:
    """Listens to a ``GameService``; one pending close per (game, race)."""

    def __init__(
        self,
        games: Games,
        clock: Callable[[], int] = time.monotonic_ns,
        schedule: Schedule = threading.Timer,
        before_close: Callable[[int], None] | None = None,
    ) -> None:
        self.games = games
        self.clock = clock
        self.schedule = schedule
        # run before a close with the game's id: stores what waits to be stored for it,
        # raising ``BadInput`` (503) while the storage still refuses (the retry covers it)
        self.before_close = before_close
        self._lock = threading.Lock()
        self._pending: dict[tuple[int, int], Timer] = {}
        # set by ``close`` (the server stopping): the pads and the camera referee are closed
        # after the streams, and a slap meanwhile must not start a timer nobody cancels
        self._closed = False
        games.listeners.append(self.changed)

    def changed(self, game_id: int, snap: dict[str, Any], *, resumed: bool = False) -> None:
        race = open_race(snap)
        if race is None:
            return
        trigger, deadline = race
        now = self.clock()
        # ``resumed``: a race left open when the server stopped ended while it was off, however
        # long ago (a reboot's offset keeps it in the past, HW-10)
        if deadline - now > FOREIGN_NS or (now - deadline > FOREIGN_NS and not resumed):
            return
        if deadline < now and not resumed and _stand_in(snap, trigger):
            deadline = now + (deadline - trigger)  # its window ended unseen: one from now
        key = (game_id, trigger)
        with self._lock:
            if self._closed or key in self._pending:
                return
            delay = max(0.0, (deadline + MARGIN_NS - now) / 1e9)
            timer = self.schedule(delay, lambda: self._fire(game_id, trigger))
            timer.daemon = True
            self._pending[key] = timer
        timer.start()

    def resume(self, current: int | None = None) -> None:
        """Time the races left open when the server stopped (a restart, a reboot), in every
        game still running: no event would otherwise come to start their timers, and the
        tablet's turns would wait. Not only the game the pads play in (``current``, the
        latest): an older game's race left open would never be judged, as its timer would
        have judged it had the server stayed up (HW-10). Judging it appends its
        ``race_close`` to that game alone; the pads still press into the latest. The older
        games come first, ``current`` last, so that its replay is the one left cached."""
        try:
            running = [r.id for r in self.games.records() if r.ended_at is None and _races(r.game)]
        except Exception:  # a locked database: at least the pads' game
            log.exception("race timer: could not list the running games")
            running = []
        order = [g for g in running if g != current] + ([] if current is None else [current])
        for game_id in order:
            try:
                self.changed(game_id, self.games.snapshot(game_id), resumed=True)
            except Exception:  # a log that no longer replays: the dashboard says so, not this
                log.exception("race timer, game %s: could not resume", game_id)

    def _fire(self, game_id: int, trigger: int, retry_s: float = RETRY_FIRST_S) -> None:
        with self._lock:
            self._pending.pop((game_id, trigger), None)
        try:
            if self.before_close is not None:  # the slaps refused meanwhile count first
                self.before_close(game_id)
            race = open_race(self.games.snapshot(game_id))
            if race is None or race[0] != trigger:
                return  # closed meanwhile (everyone slapped, a later event, the tablet)
            self.games.append(game_id, Event("race_close", source=Source.PAD))
        except BadInput as exc:
            if exc.status == 503:  # the storage, for now (LOG-2): the race is still open
                log.warning("race timer, game %s: %s; trying again", game_id, exc.message)
                self._again(game_id, trigger, retry_s)
            else:  # the game ended or moved on meanwhile
                log.info("race timer, game %s: %s", game_id, exc.message)
        except Exception:  # a timer thread has no caller to tell: say it in the log
            log.exception("race timer, game %s: could not close the race", game_id)

    def _again(self, game_id: int, trigger: int, delay: float) -> None:
        """Fire again in ``delay`` seconds, unless another timer of that race is pending (a
        change meanwhile started one) or the server is stopping."""
        key = (game_id, trigger)
        later = min(delay * 2, RETRY_MAX_S)
        with self._lock:
            if self._closed or key in self._pending:
                return
            timer = self.schedule(delay, lambda: self._fire(game_id, trigger, later))
            timer.daemon = True
            self._pending[key] = timer
        timer.start()

    def close(self) -> None:
        """Cancel the pending closes and start no more (the server is stopping)."""
        with self._lock:
            self._closed = True
            timers, self._pending = list(self._pending.values()), {}
        for timer in timers:
            timer.cancel()
