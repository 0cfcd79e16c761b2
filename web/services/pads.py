"""Slap pads and call buttons as the dashboard sees them.

The hardware package owns the real devices; the dashboard only needs to list seats and
devices, press a virtual pad, and hear about every press. ``PadService`` is that small
surface; ``VirtualPads`` implements it for a machine with no GPIO, and ``HardwarePads``
adapts the hardware package's service when it is available. ``PendingPresses`` keeps the
presses the storage refused for now, to store them once it takes writes again.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from hardware.bus import EventBus
from web.errors import BadInput

log = logging.getLogger(__name__)

DEVICES = ("pad", "button")


@dataclass(frozen=True)
class PadPress:
    seat: int
    device: str  # "pad" (slap) or "button" (call / done)
    t_ns: int  # monotonic ns at the source, same clock as camera frames
    virtual: bool = True

    def kind(self, game: str | None = None) -> str | None:
        """The referee event kind this press means in ``game`` (as hardware.padevents)."""
        if self.device == "pad":
            return "slap"
        if self.device == "button":
            return {"dos": "call", "wash-dash": "done"}.get(game or "", "call")
        return None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


Listener = Callable[[PadPress], None]


class PadService(Protocol):
    virtual: bool

    def seats(self) -> Sequence[int]: ...

    def devices(self) -> Sequence[str]: ...

    def wired(self) -> dict[int, list[str]]: ...

    def press(self, seat: int, device: str) -> PadPress:
        """Press a pad from the dashboard (virtual pads only)."""
        ...

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener`` on every press (from any thread); returns an unsubscribe."""
        ...

    def recent(self) -> list[PadPress]: ...


class VirtualPads:
    """Pads pressed by tapping the dashboard. Thread-safe; listeners run on the caller."""

    virtual = True

    def __init__(self, seats: int = 6, devices: Sequence[str] = DEVICES) -> None:
        self._seats = tuple(range(seats))
        self._devices = tuple(devices)
        self._lock = threading.Lock()  # guards the history; the bus guards its listeners
        self._presses: EventBus[PadPress] = EventBus()
        self._recent: deque[PadPress] = deque(maxlen=50)

    def seats(self) -> Sequence[int]:
        return self._seats

    def devices(self) -> Sequence[str]:
        return self._devices

    def wired(self) -> dict[int, list[str]]:
        """Every virtual seat has every device."""
        return {seat: list(self._devices) for seat in self._seats}

    def press(self, seat: int, device: str) -> PadPress:
        if seat not in self._seats:
            raise ValueError(f"there is no seat {seat} (seats 0–{len(self._seats) - 1})")
        if device not in self._devices:
            raise ValueError(f"unknown device {device!r}; known: {', '.join(self._devices)}")
        event = PadPress(seat, device, time.monotonic_ns(), True)
        self.emit(event)
        return event

    def emit(self, event: PadPress) -> None:
        with self._lock:
            self._recent.append(event)
        self._presses.publish(event)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        return self._presses.subscribe(listener)

    def recent(self) -> list[PadPress]:
        with self._lock:
            return list(self._recent)


# A press the storage refused is tried again this much later, then twice as late each time
# up to RETRY_MAX_S (as the race timer's close); at most PENDING_MAX presses wait at once.
RETRY_FIRST_S = 1.0
RETRY_MAX_S = 30.0
PENDING_MAX = 200
SERVER_ERROR = "not recorded: server error (see the log)"
STOPPED_WHY = "the server stopped while the storage refused it"
STOPPED = f"not recorded: {STOPPED_WHY}"
# How ``referee.eventlog.storage_problem`` says another program holds the database's write
# lock. Such a refusal came only after SQLite waited 10 s for it: a stop this soon after
# one does not wait that long again (``PendingPresses.close``).
BUSY = "the database is busy"
BUSY_RECENT_S = 10.0
# How long a stop waits for a store already in flight (a retry SQLite holds up to 10 s on a
# busy database) before it leaves what waits to that store to lose.
CLOSE_WAIT_S = 1.0


@dataclass
class PendingPress:
    """A press on its way into a game's log."""

    game_id: int
    press: PadPress
    t_ns: int  # on the log's time line: the time it is stored with, however late
    note: dict[str, Any]  # its line in the pad log, updated as it is stored or refused


class Timer(Protocol):
    daemon: bool

    def start(self) -> None: ...

    def cancel(self) -> None: ...


class RetryTimer:
    """One timer at a time, set and taken under the owner's ``_lock``, and a ``close`` that
    stops it for good (the server is stopping): shared by ``PendingPresses`` (which then
    tries what waits once more) and the app's ``PressQuestions`` (no more re-checks)."""

    _lock: Any  # a Lock or an RLock
    _timer: Timer | None
    _closed: bool

    def close(self) -> None:
        with self._lock:
            self._closed = True
            timer, self._timer = self._timer, None
        if timer is not None:
            timer.cancel()


class PendingPresses(RetryTimer):
    """Stores the pads' presses in order, keeping those the storage refuses for now.

    A press the card refuses (503: full, read-only, locked, LOG-2) is kept, with its own
    time, and stored again in time order before anything else the pads send to its game,
    before the race timer's ``race_close`` (``flush``, its hook) and on a retry of its own
    (1 s, 2 s, 4 s … at most ``RETRY_MAX_S`` apart): a slap made in time during an outage
    counts as made in time, not as no slap (HTD-13). A refusal of the rules (4xx) is final.
    Kept in memory only, at most ``PENDING_MAX`` (the oldest go first). ``close`` (the
    server stopping) tries them once more, so a storage that recovered since the last retry
    keeps them, unless the database was busy just now (see ``BUSY``) or a store in flight
    holds it past ``CLOSE_WAIT_S``; what it still refuses is lost, and the log names each
    seat and time.

    ``store(item)`` records one press (raises ``BadInput``) and says whether its note is
    news for the pad log; ``tell(note, new)`` logs a new note or announces a changed one.
    """

    def __init__(
        self,
        store: Callable[[PendingPress], bool],
        tell: Callable[[dict[str, Any], bool], None],
        schedule: Callable[[float, Callable[[], None]], Timer] = threading.Timer,
    ) -> None:
        self._store_press, self._tell, self._schedule = store, tell, schedule
        self._local = threading.local()  # .storing: this thread is storing a press now
        # held across a store, so presses reach the log in order; re-entrant in case a
        # game listener, run by the store, sends a press on this thread
        self._lock = threading.RLock()
        self._waiting: list[PendingPress] = []
        self._timer: Timer | None = None
        self._closed = False
        self._busy_at: float | None = None  # monotonic time of the last refusal, if "busy"
        self._given_up = False  # the stop did not wait for a store in flight (``close``)

    @contextlib.contextmanager
    def _storing(self) -> Iterator[None]:
        """The lock, held across stores (presses reach the log in order). Once a stop gave
        up waiting for it, what still waits is lost as the holder lets go: no retry comes."""
        with self._lock:
            try:
                yield
            finally:
                if self._given_up:
                    self._lose_waiting()

    def send(self, item: PendingPress) -> None:
        """Store ``item`` after its game's presses still waiting, or keep it with them."""
        with self._storing():
            try:
                self._flush(item.game_id)
                news = self._store(item)
            except BadInput as exc:
                if exc.status != 503:
                    item.note.update(accepted=False, message=exc.message)
                elif self._closed:  # no retry is coming: held now, it would be lost unsaid
                    self._lose(item, exc.message)
                else:
                    self._hold(item, exc.message)
                news = True
            except Exception:  # a bug: log it, keep the pads working (an edge thread)
                log.exception("pad press %s could not be recorded", item.press)
                item.note.update(accepted=False, message=SERVER_ERROR)
                news = True
            if news:
                self._tell(item.note, True)

    def store_first(self, game_id: int) -> None:
        """``GameService.before_store``: what waits for ``game_id`` is stored before anything
        else is (an event typed on the tablet after an outage would otherwise judge a race
        without the slaps made in it). Still refused: left waiting, and the caller's own
        store says why. Nothing when this thread is storing a press already."""
        if getattr(self._local, "storing", False):
            return
        with self._storing():
            if not any(p.game_id == game_id for p in self._waiting):
                return
            try:
                self._flush(game_id)
            except BadInput:
                return

    def _store(self, item: PendingPress) -> bool:
        self._local.storing = True
        try:
            stored = self._store_press(item)
        except BadInput as exc:
            if exc.status == 503:  # the storage's answer now: busy, or another trouble
                self._busy_at = time.monotonic() if BUSY in exc.message else None
            raise
        finally:
            self._local.storing = False
        self._busy_at = None
        return stored

    def flush(self, game_id: int) -> None:
        """Store the presses of ``game_id`` still waiting, oldest first; ``BadInput`` (503)
        when the storage still refuses (the race timer tries again later)."""
        with self._storing():
            self._flush(game_id)

    def waiting(self) -> list[PendingPress]:
        with self._lock:
            return list(self._waiting)

    def _flush(self, game_id: int) -> None:
        mine = sorted((p for p in self._waiting if p.game_id == game_id), key=lambda p: p.t_ns)
        for item in mine:
            try:
                if self._store(item):
                    item.note.update(waiting=False)
                    if item.note.get("accepted"):
                        item.note["message"] += " (stored once the storage took writes again)"
            except BadInput as exc:
                if exc.status == 503:
                    item.note["message"] = _waiting_message(exc.message)
                    raise
                item.note.update(accepted=False, waiting=False, message=exc.message)
            except Exception:
                log.exception("pad press %s could not be recorded", item.press)
                item.note.update(accepted=False, waiting=False, message=SERVER_ERROR)
            self._waiting.remove(item)
            self._tell(item.note, False)

    def close(self) -> None:
        """Stop retrying, then store what waits one last time: the storage may have taken
        writes again since the last retry (up to ``RETRY_MAX_S`` ago), and a slap made in
        time must not be judged as no slap after the restart (HTD-13). What the storage
        still refuses is lost: each is logged, its note says so. The stop waits neither long
        for a store in flight (``CLOSE_WAIT_S``: it loses what waits when it ends) nor again
        on a database busy just now."""
        self._closed = True  # at once: a store in flight arms no retry after it
        if not self._lock.acquire(timeout=CLOSE_WAIT_S):
            self._give_up()
            return
        try:
            super().close()  # the lock is re-entrant
            if self._waiting:
                self._last_try()
            self._lose_waiting()
        finally:
            self._lock.release()

    def _give_up(self) -> None:
        """A store in flight holds the lock (SQLite waiting on a busy database): the stop
        does not wait for it; that store loses what still waits as it ends (``_storing``),
        or this does, when it ended meanwhile."""
        log.warning(
            "not storing %d waiting pad presses before stopping: a store is still waiting"
            " for the database (they are lost unless it gets it)",
            len(self._waiting),
        )
        self._given_up = True
        if self._lock.acquire(blocking=False):
            try:
                self._lose_waiting()
            finally:
                self._lock.release()

    def _lose_waiting(self) -> None:
        """What waits, lost as the server stops (the lock is held)."""
        lost, self._waiting = self._waiting, []
        for item in lost:
            self._lose(item, item.note.get("message", ""))
            self._tell(item.note, False)

    def _last_try(self) -> None:
        """Store what waits once more, as the server stops (the lock is held); not when the
        database was busy less than ``BUSY_RECENT_S`` ago: another program held its write
        lock through SQLite's whole wait then, and would hold the stop as long again."""
        count = len(self._waiting)
        ago = time.monotonic() - self._busy_at if self._busy_at is not None else None
        if ago is not None and ago < BUSY_RECENT_S:
            log.warning(
                "not storing %d waiting pad presses before stopping: the database was busy"
                " %.0f s ago",
                count,
                ago,
            )
            return
        log.warning("storing %d waiting pad presses before stopping", count)
        for game_id in dict.fromkeys(p.game_id for p in self._waiting):
            with contextlib.suppress(BadInput):  # still refused (503): lost by close
                self._flush(game_id)

    def _lose(self, item: PendingPress, why: str) -> None:
        """A press the storage refuses once the server is stopping: no retry will store it."""
        why = why.removeprefix(_waiting_message(""))
        log.warning(
            "pad press not recorded: seat %s's %s at t_ns=%s (game %s): %s (%s)",
            *(item.press.seat, item.press.device, item.t_ns, item.game_id, STOPPED_WHY, why),
        )
        item.note.update(accepted=False, waiting=False, message=STOPPED)

    def _hold(self, item: PendingPress, why: str) -> None:
        item.note.update(accepted=False, waiting=True, message=_waiting_message(why))
        self._waiting.append(item)
        while len(self._waiting) > PENDING_MAX:
            lost = self._waiting.pop(0)
            lost.note.update(waiting=False, message="not recorded: too many presses waited")
            self._tell(lost.note, False)
        self._arm(RETRY_FIRST_S)

    def _arm(self, delay: float) -> None:
        """One retry at a time, while presses wait (the lock is held)."""
        if self._timer is not None or self._closed or not self._waiting:
            return
        timer = self._timer = self._schedule(delay, lambda: self._retry(delay))
        timer.daemon = True
        timer.start()

    def _retry(self, delay: float) -> None:
        with self._storing():
            self._timer = None
            if self._closed:  # fired as the server stops: its stop settles what waits
                return
            refused = False
            for game_id in dict.fromkeys(p.game_id for p in self._waiting):
                try:
                    self._flush(game_id)
                except BadInput:  # still refused (503): the next retry
                    refused = True
            self._arm(min(delay * 2, RETRY_MAX_S) if refused else RETRY_FIRST_S)


def _waiting_message(why: str) -> str:
    return f"waiting to be stored: {why}"
