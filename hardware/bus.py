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

    def publish(self, item: T) -> None:
        """Hand ``item`` to every subscriber; one that raises is logged, the rest still run."""
        with self._lock:
            subscribers = list(self._subscribers)
        for callback in subscribers:
            try:
                callback(item)
            except Exception:
                log.exception("pad event subscriber %r failed on %r", callback, item)
