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
from collections.abc import Callable, Sequence
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
    keeps them; what it still refuses is lost, and the log names each seat and time.

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

    def send(self, item: PendingPress) -> None:
        """Store ``item`` after its game's presses still waiting, or keep it with them."""
        with self._lock:
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
        with self._lock:
            if not any(p.game_id == game_id for p in self._waiting):
                return
            try:
                self._flush(game_id)
            except BadInput:
                return

    def _store(self, item: PendingPress) -> bool:
        self._local.storing = True
        try:
            return self._store_press(item)
        finally:
            self._local.storing = False

    def flush(self, game_id: int) -> None:
        """Store the presses of ``game_id`` still waiting, oldest first; ``BadInput`` (503)
        when the storage still refuses (the race timer tries again later)."""
        with self._lock:
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
        still refuses is lost: each is logged, its note says so."""
        super().close()
        with self._lock:
            for game_id in dict.fromkeys(p.game_id for p in self._waiting):
                with contextlib.suppress(BadInput):  # still refused (503): lost below
                    self._flush(game_id)
            lost, self._waiting = self._waiting, []
            for item in lost:
                self._lose(item, item.note.get("message", ""))
                self._tell(item.note, False)

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
        with self._lock:
            self._timer = None
            refused = False
            for game_id in dict.fromkeys(p.game_id for p in self._waiting):
                try:
                    self._flush(game_id)
                except BadInput:  # still refused (503): the next retry
                    refused = True
            self._arm(min(delay * 2, RETRY_MAX_S) if refused else RETRY_FIRST_S)


def _waiting_message(why: str) -> str:
    return f"waiting to be stored: {why}"
