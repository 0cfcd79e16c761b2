"""A tiny in-process publish/subscribe hub feeding the live streams (SSE, MJPEG).

Each subscriber owns a bounded queue; a slow tablet loses old messages rather than
slowing the referee down. A lost message may be one sent once only (a new game's
``created``, a list of questions), so a subscription that lost one is marked ``lost``: its
stream then sends the whole state again, as to a new connection, instead of the older
states still queued (``Subscription.take_lost``). Every live
stream is a subscriber (an MJPEG stream to no topic), so the hub is also where a stream is
told to end: at shutdown, when its slot is wanted by a newer tablet (``evict_oldest``), or
when its device opens more than ``STREAMS_PER_ADDRESS`` (``make_room``).
"""

from __future__ import annotations

import contextlib
import itertools
import queue
import secrets
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

QUEUE_SIZE = 64  # messages a subscriber may fall behind by before the oldest is dropped

# Live streams one network address may hold. Without a cap one device (a script, a tablet
# reloading in a loop) filled every slot with streams too young to evict, and the referee's
# console got 503. Eight covers a tablet's pages and the Pi's own kiosk screen.
STREAMS_PER_ADDRESS = 8

# The last message a subscriber gets: its stream must end (the server is shutting down, or
# its slot went to a newer tablet). Sticky: once ended, ``get`` returns it every time.
CLOSED = "closed"


@dataclass(eq=False)  # identity: two streams on the same topics are still two streams
class Subscription:
    topics: frozenset[str]
    queue: queue.Queue[tuple[str, Any]] = field(
        default_factory=lambda: queue.Queue(maxsize=QUEUE_SIZE)
    )
    ended: threading.Event = field(default_factory=threading.Event)
    since: float = field(default_factory=time.monotonic)  # when its stream started
    address: str | None = None  # the device it streams to (None: uncounted)
    lost: threading.Event = field(default_factory=threading.Event)  # a message was dropped

    def get(self, timeout: float) -> tuple[str, Any] | None:
        """The next message, None after ``timeout`` without one, ``(CLOSED, None)`` once
        ended (even when later messages pushed the wake-up out of the full queue)."""
        if self.ended.is_set():
            return (CLOSED, None)
        try:
            item = self.queue.get(timeout=timeout)
        except queue.Empty:
            return None
        return (CLOSED, None) if self.ended.is_set() else item

    def take_lost(self) -> list[tuple[str, Any]] | None:
        """None unless a message was dropped since the last call (or the stream is ending);
        else clear the mark and take out what is queued, oldest first. Everything taken was
        published before the stream reads the state again, so that read covers it: only
        what carries no state (a pad's press) is still worth sending."""
        if self.ended.is_set() or not self.lost.is_set():
            return None
        self.lost.clear()  # before emptying: a drop after this is caught next time
        taken: list[tuple[str, Any]] = []
        for _ in range(QUEUE_SIZE):  # bounded: a busy publisher cannot keep it here
            try:
                taken.append(self.queue.get_nowait())
            except queue.Empty:
                break
        return taken

    def end(self) -> None:
        """Make the stream finish at its next ``get`` (and wake it if it is waiting)."""
        self.ended.set()
        _put(self, (CLOSED, None))


class FeedVersions:
    """Which game feeds extend which: what lets a live stream send a tablet only the feed
    entries it lacks, and never a stale one.

    ``observe(game, feed)`` gives a feed its *version*: the version of the feed seen before
    it for that game when it only adds entries at the end (or is an older prefix of it, a
    snapshot that queued behind a newer one), else a new number, never handed out before.
    Any rewrite of history (an undo, an overrule, an accepted verdict, a replay under new
    rulings) changes an entry already shown, so it starts a new version. All feeds of one
    version are thus prefixes of one another: a tablet that holds a feed of version *v*
    ending at event *s* can be sent, with a feed of version *v* ending at or after *s*, just
    the entries after *s*. Entries are compared by value once per snapshot (at most about
    0.3 ms for 1 000 entries; consecutive feeds share their entry objects, which compare at
    once): every stream gets the same published snapshot object, so the streams after the
    first find its version by identity.

    ``token`` names this server run: an id a tablet kept from before a restart never matches.
    """

    GAMES = 16  # games whose newest feed is kept; a game forgotten starts a new version
    RECENT = 8  # snapshots' feeds recognised by identity

    def __init__(self) -> None:
        self.token = secrets.token_hex(4)
        self._lock = threading.Lock()
        self._numbers = itertools.count(1)
        self._games: OrderedDict[int, tuple[int, list[Any]]] = OrderedDict()
        self._recent: deque[tuple[list[Any], int, int]] = deque(maxlen=self.RECENT)

    def observe(self, game_id: int, feed: list[Any]) -> int:
        """The version of ``feed`` (a snapshot's feed of game ``game_id``)."""
        with self._lock:
            for seen, gid, version in self._recent:
                if seen is feed and gid == game_id:
                    return version
            known = self._games.get(game_id)
            if known is not None and feed == known[1][: len(feed)]:
                version = known[0]  # the same, or older: the newest seen stays the reference
            elif known is not None and _last_seq(feed) < _last_seq(known[1]):
                # an older snapshot of a history since rewritten (a slow tablet's, queued
                # before an undo): its own version, and the newest seen stays the reference,
                # so the tablets that are up to date go on getting deltas
                version = next(self._numbers)
            else:
                if known is not None and feed[: len(known[1])] == known[1]:
                    version = known[0]  # only new entries at the end
                else:
                    version = next(self._numbers)  # a new game, or history rewritten
                self._games[game_id] = (version, feed)
                self._games.move_to_end(game_id)
                while len(self._games) > self.GAMES:
                    self._games.popitem(last=False)
            self._recent.append((feed, game_id, version))
            return version


def _last_seq(feed: list[Any]) -> int:
    """The number of a feed's last event (its log head), 0 for an empty feed."""
    return int(feed[-1]["seq"]) if feed else 0


class Hub:
    def __init__(self, per_address: int = STREAMS_PER_ADDRESS) -> None:
        self._lock = threading.Lock()
        self._subs: list[Subscription] = []  # oldest first
        self.closed = False
        self.feeds = FeedVersions()  # the game feeds' versions, for the streams' deltas
        self.per_address = per_address

    def subscribe(self, *topics: str, address: str | None = None) -> Subscription:
        """A new subscriber; ``address``'s oldest streams end when it would hold more than
        ``per_address`` (two opened at once from one device are both counted)."""
        sub = Subscription(frozenset(topics), address=address)
        with self._lock:
            self._make_room(address)
            self._subs.append(sub)
            closed = self.closed
        if closed:
            sub.end()
        return sub

    def make_room(self, address: str | None) -> bool:
        """End ``address``'s oldest live stream when it holds ``per_address`` already, so a
        new one from it fits, whatever that stream's age: a device reloading its page opens
        a new stream before the old connection is noticed closed, and must never lock itself
        out. True when one was ended (its slot frees up at once)."""
        with self._lock:
            return self._make_room(address)

    def _make_room(self, address: str | None) -> bool:
        if address is None:
            return False
        live = [s for s in self._subs if s.address == address and not s.ended.is_set()]
        extra = len(live) - self.per_address + 1
        for sub in live[: max(0, extra)]:
            sub.end()
        return extra > 0

    def close(self) -> None:
        """Tell every stream to end (server shutdown): a stream still open when the server's
        sockets close would otherwise write its next heartbeat into a closed server."""
        with self._lock:
            self.closed = True
            subs = list(self._subs)
        for sub in subs:
            sub.end()

    def evict_oldest(self, older_than_s: float = 0.0) -> bool:
        """End the oldest stream not already ending, if it has run ``older_than_s``, so that
        its slot frees up for a new tablet; False when there is none. A tablet that lost
        Wi-Fi or went to sleep without closing its connection holds its slot until TCP gives
        up (many minutes): the newest tablet is the one somebody is looking at. A live tablet
        that is evicted reconnects by itself (EventSource) within a second and starts again
        from the full state; the age spares young streams, so that more live screens than
        slots do not evict each other every second."""
        with self._lock:  # held while ending it: two new tablets never pick the same one
            victim = next((s for s in self._subs if not s.ended.is_set()), None)
            if victim is None or time.monotonic() - victim.since < older_than_s:
                return False
            victim.end()
        return True

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subs)

    def publish(self, topic: str, data: Any) -> None:
        """Queue ``data`` for every subscriber to ``topic``. Never blocks and takes no lock
        but the hub's own: a publisher may call it holding its lock, so that its messages
        are queued in the order of its changes (``GameService``, ``PromptBoard``)."""
        with self._lock:
            subs = [s for s in self._subs if topic in s.topics]
        for sub in subs:
            _put(sub, (topic, data))


def _put(sub: Subscription, item: tuple[str, Any]) -> None:
    """Queue ``item``, dropping the oldest messages when the subscriber is behind (and
    marking it ``lost``): a tablet that never reads must not make the queue (or the
    referee) wait. Never blocks: publishers call it holding their own locks."""
    while True:
        try:
            sub.queue.put_nowait(item)
            return
        except queue.Full:
            with contextlib.suppress(queue.Empty):
                sub.queue.get_nowait()  # drop the oldest
            sub.lost.set()
