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


class Hub:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs: list[Subscription] = []

    def subscribe(self, *topics: str) -> Subscription:
        sub = Subscription(frozenset(topics))
        with self._lock:
            self._subs.append(sub)
        return sub

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
            while True:
                try:
                    sub.queue.put_nowait((topic, data))
                    break
                except queue.Full:
                    with contextlib.suppress(queue.Empty):
                        sub.queue.get_nowait()  # drop the oldest
