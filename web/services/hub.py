"""A tiny in-process publish/subscribe hub feeding the live streams (SSE).

Each subscriber owns a bounded queue; a slow tablet loses old messages rather than
slowing the referee down (the next message carries the full state anyway).
"""

from __future__ import annotations

import contextlib
import queue
import threading
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Subscription:
    topics: frozenset[str]
    queue: queue.Queue[tuple[str, Any]] = field(default_factory=lambda: queue.Queue(maxsize=64))

    def get(self, timeout: float) -> tuple[str, Any] | None:
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None


CLOSED = "closed"  # the last message a subscriber gets: the server is shutting down


class Hub:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs: list[Subscription] = []
        self.closed = False

    def subscribe(self, *topics: str) -> Subscription:
        sub = Subscription(frozenset(topics))
        with self._lock:
            self._subs.append(sub)
            closed = self.closed
        if closed:
            self._put(sub, (CLOSED, None))
        return sub

    def close(self) -> None:
        """Tell every stream to end (server shutdown): a stream still open when the server's
        sockets close would otherwise write its next heartbeat into a closed server."""
        with self._lock:
            self.closed = True
            subs = list(self._subs)
        for sub in subs:
            self._put(sub, (CLOSED, None))

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subs)

    def publish(self, topic: str, data: Any) -> None:
        with self._lock:
            subs = [s for s in self._subs if topic in s.topics]
        for sub in subs:
            self._put(sub, (topic, data))

    @staticmethod
    def _put(sub: Subscription, item: tuple[str, Any]) -> None:
        while True:
            try:
                sub.queue.put_nowait(item)
                return
            except queue.Full:
                with contextlib.suppress(queue.Empty):
                    sub.queue.get_nowait()  # drop the oldest
