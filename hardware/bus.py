"""A tiny thread-safe publish/subscribe for pad events.

Edges arrive on the pin factory's thread (lgpio's alert thread) or on a web request's
thread (virtual pads); consumers — the referee loop, the dashboard, ``hw test`` — each
subscribe with a callback or take their own queue.

A subscriber that raises is logged and skipped: the publisher is the pin factory's edge
thread (or a press), and one consumer's failure (a locked database, a bug in a dashboard
listener) must neither stop the other consumers nor reach the device that saw the edge.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import deque
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

log = logging.getLogger(__name__)


class EventBus(Generic[T]):
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: list[Callable[[T], None]] = []

    def subscribe(self, callback: Callable[[T], None]) -> Callable[[], None]:
        """Call ``callback(item)`` for every later item; returns an unsubscribe function."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def queue(self, maxsize: int = 0) -> queue.Queue[T]:
        """A queue that receives every later item (drop it with ``unsubscribe_queue``)."""
        q: queue.Queue[T] = queue.Queue(maxsize)
        self.subscribe(q.put)
        return q

    def unsubscribe_queue(self, q: queue.Queue[T]) -> None:
        with self._lock:
            self._subscribers = [s for s in self._subscribers if s != q.put]

    def subscribers(self) -> tuple[Callable[[T], None], ...]:
        """The subscribers now: who hears an item published (or delivered) from this moment."""
        with self._lock:
            return tuple(self._subscribers)

    def publish(self, item: T) -> None:
        """Hand ``item`` to every subscriber; one that raises is logged, the rest still run."""
        self.deliver(self.subscribers(), item)

    @staticmethod
    def deliver(subscribers: tuple[Callable[[T], None], ...], item: T) -> None:
        """Hand ``item`` to ``subscribers`` (taken earlier with ``subscribers()``), logging
        and skipping one that raises."""
        for callback in subscribers:
            try:
                callback(item)
            except Exception:
                log.exception("pad event subscriber %r failed on %r", callback, item)


class Outbox:
    """Calls run one at a time, in the order they were posted, with no lock held.

    A producer posts under its own lock (so the order of posts is the order of what that
    lock serialises), releases it, then calls ``drain``. The first thread to drain runs the
    calls — its own and any posted meanwhile by other threads — until the box is empty; a
    thread that finds someone draining (another thread, or itself from inside a call, a
    listener calling back into the producer) returns at once, and its calls run after the
    one being run. So no call ever runs under the producer's lock, two calls never run at
    once, and every call runs in post order. A call that raises is logged and skipped."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: deque[Callable[[], None]] = deque()
        self._draining = False

    def post(self, call: Callable[[], None]) -> None:
        with self._lock:
            self._calls.append(call)

    def drain(self) -> None:
        with self._lock:
            if self._draining or not self._calls:
                return
            self._draining = True
        try:
            while True:
                with self._lock:
                    if not self._calls:
                        self._draining = False  # with the emptiness seen: none is left behind
                        return
                    call = self._calls.popleft()
                try:
                    call()
                except Exception:
                    log.exception("pad event delivery %r failed", call)
        except BaseException:  # KeyboardInterrupt, SystemExit: the next drain goes on
            with self._lock:
                self._draining = False
            raise
