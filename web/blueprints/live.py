"""Live streams: Server-Sent Events for game/pad updates, camera JPEG/MJPEG, the QR code.

Each stream holds a server thread, so the number of streams is capped (``max_streams``);
the rest of the thread pool stays free for page loads. Streams send a heartbeat so a
tablet that closed its connection is noticed, and end after ``stream_max_age_s``
(EventSource reconnects). A tablet that sleeps or loses Wi-Fi without closing is not
noticed for many minutes, so when every slot is taken a new stream ends the oldest one and
takes its slot (a live tablet that was evicted reconnects within a second): a refused
EventSource is never retried by the browser, so refusing would stop the newest screen.
One device (network address) holds at most ``STREAMS_PER_ADDRESS`` streams: its next one ends
its own oldest, whatever its age, so one device cannot fill every slot with young streams,
nor a tablet reloading faster than heartbeats notice lock itself out.

A game's feed grows by an entry per event (a long evening: 1 000 entries, 200-300 KB), so
a stream asked with ``?delta=1`` (the pages' own, common.js) sends it once: each message
has an SSE ``id`` naming the feed it leaves the tablet with (``FeedVersions``), and a
``delta`` message carries the small state (scores, turn, table, view) with only the feed's
new entries. The whole ``state`` goes instead when the tablet holds nothing (a page load),
another game, a feed that was rewritten (undo, overrule, accept: an entry it shows
changed), or is more than ``DELTA_MAX`` entries behind; a reconnecting EventSource sends
its last id (``Last-Event-ID``), so a routine reconnect gets only what it missed; a page that
opens a fresh EventSource itself (after a silent drop, or when its tab is shown again) cannot
set that header and gives the id as ``?last=`` instead. Without ``?delta=1`` every message is
the whole ``state``, as before, with no id.

The heartbeat is a message the page sees (``data: {"heartbeat_s": …}``, no ``event`` name, so
no id either), sent at once and whenever the stream is idle for ``stream_heartbeat_s``: a
connection that dropped without a FIN (Wi-Fi gone, a half-open TCP connection) never errors in
the browser, so the page counts the silence itself and reconnects (common.js). An SSE comment
(``: ping``) would keep the socket checked but is invisible to the page.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from flask import Blueprint, Response, jsonify, request

from web.blueprints.common import game_arg, json_body, services
from web.errors import BadInput
from web.security import referee_required
from web.services.games import GameService
from web.services.hub import CLOSED, FeedVersions, Subscription

bp = Blueprint("live", __name__)

SLOT_WAIT_S = 2.0  # how long a new stream waits for the slot of the stream it evicted

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}

DELTA_MAX = 200  # feed entries a delta may carry: a tablet further behind gets the whole state

# an event id: "<this server run>.<game>.<feed version>.<its last event>"
_EVENT_ID = re.compile(r"([0-9a-f]{8})\.([0-9]{1,12})\.([0-9]{1,12})\.([0-9]{1,12})")


def _heartbeat(every_s: float) -> bytes:
    """A nameless message (an EventSource "message"): the page resets its watchdog on it and
    learns how often to expect one; it carries no id, so the page's last id stays."""
    return f"data: {json.dumps({'heartbeat_s': every_s})}\n\n".encode()


def _sse(event: str, data: Any, event_id: str | None = None) -> bytes:
    """An SSE message; with ``event_id`` (``""`` clears the browser's) an ``id`` line too."""
    head = "" if event_id is None else f"id: {event_id}\n"
    return f"{head}event: {event}\ndata: {json.dumps(data, default=str)}\n\n".encode()


@dataclass
class Held:
    """What a tablet on a delta stream holds: a game's feed of one version, up to event
    ``last`` (0: none yet); ``game`` None when it holds no feed."""

    game: int | None = None
    version: int | None = None
    last: int = 0

    @classmethod
    def from_id(cls, raw: str | None, token: str) -> Held:
        """From the browser's ``Last-Event-ID``: nothing unless an id of this server run."""
        m = _EVENT_ID.fullmatch(raw or "")
        if m is None or m.group(1) != token:
            return cls()
        return cls(int(m.group(2)), int(m.group(3)), int(m.group(4)))

    def clear(self) -> None:
        self.game, self.version, self.last = None, None, 0


def push(
    feeds: FeedVersions, snap: dict[str, Any], held: Held, *, live: bool = False
) -> bytes | None:
    """The message that brings a tablet holding ``held`` to ``snap`` (a game snapshot):
    ``delta`` (``snap`` less its feed, the feed's entries after event ``after``) when it
    holds the same game's feed of the same version up to at most ``snap``'s last event and
    lacks at most ``DELTA_MAX`` entries, else the whole ``state``. ``held`` then says what
    the tablet holds. ``live`` (a change the stream heard, not the snapshot it opens with):
    None (send nothing) for an older snapshot of the feed the tablet holds, one queued for
    the stream before the snapshot it opened with, which would take the tablet back an
    event until the next change. (An id claiming more than the opening snapshot holds gets
    the whole state.)"""
    feed = snap.get("feed")
    game = snap.get("game")
    gid = game.get("id") if isinstance(game, dict) else None
    if not isinstance(feed, list) or not isinstance(gid, int) or isinstance(gid, bool):
        held.clear()  # a game that cannot be read: no feed to build on
        return _sse("state", snap, "")
    version = feeds.observe(gid, feed)
    last = feed[-1]["seq"] if feed else 0
    after, same = held.last, held.game == gid and held.version == version
    if live and same and last < after:
        return None
    held.game, held.version, held.last = gid, version, last
    event_id = f"{feeds.token}.{gid}.{version}.{last}"
    start = len(feed)
    if same and after <= last:
        while start and feed[start - 1]["seq"] > after:
            start -= 1
            if len(feed) - start > DELTA_MAX:
                return _sse("state", snap, event_id)
        body = {k: v for k, v in snap.items() if k != "feed"}
        body["after"] = after
        body["feed"] = feed[start:]
        return _sse("delta", body, event_id)
    return _sse("state", snap, event_id)


class _Slot:
    """A stream body holding one stream slot and its hub subscription; the server's
    ``close()`` gives both back, even when the stream never started (a generator's
    ``finally`` would not run then)."""

    def __init__(self, gen: Iterator[bytes], sub: Subscription) -> None:
        s = services()
        self._gen = gen
        self._sub = sub
        self._hub = s.hub
        self._limiter = s.streams
        self._closed = False

    def __iter__(self) -> _Slot:
        return self

    def __next__(self) -> bytes:
        return next(self._gen)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self._gen.close()
            finally:
                self._hub.unsubscribe(self._sub)
                self._limiter.release()


def _open(*topics: str) -> Subscription:
    """Take a stream slot and subscribe to ``topics`` (none: only told when to end). A device
    at its cap ends its own oldest stream first (``Hub.make_room``); with every slot taken,
    that stream's slot, else the oldest stream's (older than ``stream_evict_after_s``), is
    waited for."""
    s = services()
    address = request.remote_addr
    own = s.hub.make_room(address)
    if not s.streams.acquire() and not (
        (own or s.hub.evict_oldest(s.config.stream_evict_after_s)) and _wait_for_slot(SLOT_WAIT_S)
    ):
        raise BadInput("too many live screens are open; close one and reload", 503)
    return s.hub.subscribe(*topics, address=address)


def _wait_for_slot(seconds: float) -> bool:
    """Poll for a free slot: the evicted stream gives its slot back as soon as its server
    thread sees the end message (at once, unless it is stuck writing to a dead socket)."""
    streams = services().streams
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(0.01)
        if streams.acquire():
            return True
    return False


@bp.get("/api/stream")
def stream() -> Response:
    """SSE: ``state`` (the whole game snapshot) on every change, ``pad`` on presses; with
    ``?delta=1`` mostly ``delta`` instead of ``state`` (see the module's docstring).

    ``prompts`` (the game's whole list of open questions) follows the opening state when
    there are any, and always, even empty, on a reopened stream and on a switch of game: a
    tablet that missed a question's answer (Wi-Fi down, a server restart: the board is not
    stored) still shows it, and only this list clears it. A page's first stream has nothing
    to clear and gets no empty list. A stream too slow to take every message (its queue in
    the hub overflowed) is sent the whole state and list again, as a reopened one."""
    s = services()
    want_pads = request.args.get("pads") == "1"
    feeds = s.hub.feeds
    held = (
        Held.from_id(request.headers.get("Last-Event-ID") or request.args.get("last"), feeds.token)
        if request.args.get("delta") == "1"
        else None
    )
    follow = request.args.get("game") in (None, "", "current")
    # a tablet reconnecting gives the id it last had (even none: ``?last=``)
    reopened = "Last-Event-ID" in request.headers or "last" in request.args
    game_id = game_arg()
    topics = ("game", "prompts", "pads") if want_pads else ("game", "prompts")
    heartbeat = s.config.stream_heartbeat_s
    max_age = s.config.stream_max_age_s
    sub = _open(*topics)

    def state(snap: dict[str, Any], live: bool = True) -> bytes | None:
        """The message for ``snap``; None for an older snapshot than the tablet holds."""
        return _sse("state", snap) if held is None else push(feeds, snap, held, live=live)

    def feedless(event: str, data: Any) -> bytes:
        """A message that leaves the tablet with no feed (its id, if any, is cleared)."""
        if held is None:
            return _sse(event, data)
        held.clear()
        return _sse(event, data, "")

    def whole(all_prompts: bool) -> Iterator[bytes]:
        """What a new connection gets: the game's state (or why not), then its questions."""
        if game_id is None:
            yield feedless("nogame", {})
            return
        try:
            snap = s.games.snapshot(game_id)
        except BadInput as exc:
            yield feedless("problem", {"error": exc.message})
        else:
            if message := state(snap, live=False):
                yield message
        if all_prompts or s.prompts.open(game_id):  # see ``stream``'s docstring
            yield _sse("prompts", s.prompts.payload(game_id))

    def resync(queued: list[tuple[str, Any]]) -> Iterator[bytes]:
        """After the hub dropped messages for this stream: the whole state again (of the
        current game when following: the lost one may be the new game's ``created``) and
        the list of questions, even empty, as on a reopened stream. The game and question
        messages still queued are older than that and are skipped; pad presses are sent."""
        nonlocal game_id
        if follow:
            game_id = _current_or(s.games, game_id)
        yield from whole(all_prompts=True)
        for topic, data in queued:
            if topic == "pads":
                yield _sse("pad", data)

    def gen() -> Iterator[bytes]:
        nonlocal game_id
        # the page learns the heartbeat's interval before anything else (one chunk, as before)
        yield b"retry: 1000\n\n" + _heartbeat(heartbeat)
        yield from whole(all_prompts=reopened)
        start = time.monotonic()
        while time.monotonic() - start < max_age:
            if (queued := sub.take_lost()) is not None:
                yield from resync(queued)
            item = sub.get(timeout=heartbeat)
            if item is None:
                yield _heartbeat(heartbeat)
                continue
            topic, data = item
            if topic == CLOSED:
                return
            if topic == "pads":
                yield _sse("pad", data)
                continue
            if topic == "prompts":
                if data.get("game_id") == game_id:
                    yield _sse("prompts", data)
                continue
            gid = data.get("game", {}).get("id")
            if gid == game_id or (follow and data.get("why") == "created"):
                switched = gid != game_id
                game_id = gid
                if message := state(data):
                    yield message
                if switched:  # the new game's list, even empty (as on opening)
                    yield _sse("prompts", s.prompts.payload(gid))

    return Response(_Slot(gen(), sub), mimetype="text/event-stream", headers=SSE_HEADERS)


def _current_or(games: GameService, shown: int | None) -> int | None:
    """The current game, or ``shown`` when the database cannot say now (the stream goes on
    with the game it shows rather than ending in a traceback). ``games`` is passed in: a
    stream runs outside the request's context."""
    try:
        return games.current_id()
    except (sqlite3.Error, BadInput):  # ``storage_guarded`` words a database error as a 503
        return shown


def _frame_or_404() -> Any:
    s = services()
    if s.camera is None:
        raise BadInput("no camera is configured", 404)
    frame = s.camera.latest()
    if frame is None:  # lost or never found: the feed says why ("camera lost: …")
        why = getattr(s.camera, "error", None)
        raise BadInput(str(why) if why else "the camera has not delivered a frame yet", 503)
    return frame


NO_STORE = {"Cache-Control": "no-store"}


@bp.get("/api/camera/status")
def camera_status() -> Response:
    s = services()
    frame = s.camera.latest() if s.camera else None
    return jsonify(
        configured=s.camera is not None,
        source=s.camera.describe() if s.camera else None,
        error=s.camera_error or getattr(s.camera, "error", None),
        t_ns=frame.t_ns if frame else None,
        width=frame.width if frame else None,
        height=frame.height if frame else None,
        detections=[
            {"label": d.label, "confidence": d.confidence, "box": list(d.box), "zone": d.zone}
            for d in (frame.detections if frame else ())
        ],
        referee=s.referee.status() if s.referee else None,
    )


@bp.post("/api/camera/referee")
@referee_required
def camera_referee() -> Response:
    """Turn camera refereeing on or off for this run (``--no-camera-referee`` at start)."""
    s = services()
    if s.referee is None:
        raise BadInput("no camera is configured, so there is nothing to referee with", 409)
    enabled = json_body().get("enabled")
    if not isinstance(enabled, bool):
        raise BadInput("'enabled' must be true or false")
    s.referee.set_enabled(enabled)
    return jsonify(s.referee.status())


@bp.post("/api/camera/dryers/empty")
@referee_required
def dryers_empty() -> Response:
    """Wash Dash: "the dryers are empty now" — the camera's next still look at each
    calibrated dryer becomes the empty picture it compares with."""
    s = services()
    if s.referee is None:
        raise BadInput("no camera is configured, so there is no dryer to look at", 409)
    if not any(z["kind"] == "dryer" for z in s.zones.load()["zones"]):
        raise BadInput("no dryer is calibrated: draw seat_S_dryer and its bars first", 409)
    s.referee.empty_dryers()
    return jsonify(s.referee.status())


@bp.get("/api/camera/snapshot.jpg")
def snapshot() -> Response:
    """The raw frame (for drawing zones on)."""
    frame = _frame_or_404()
    headers = {**NO_STORE, "X-Frame-T-Ns": str(frame.t_ns)}
    return Response(frame.jpeg, mimetype="image/jpeg", headers=headers)


def _annotated(frame: Any, s: Any = None) -> bytes:
    s = s or services()
    zones = s.zones.load()["zones"]
    return s.annotator.get(frame, zones, s.zones.version)


@bp.get("/api/camera/frame.jpg")
def frame_jpg() -> Response:
    """The newest frame with zones and detections drawn (the Live page polls it)."""
    frame = _frame_or_404()
    headers = {**NO_STORE, "X-Frame-T-Ns": str(frame.t_ns)}
    return Response(_annotated(frame), mimetype="image/jpeg", headers=headers)


@bp.get("/api/camera/stream.mjpg")
def mjpeg() -> Response:
    """MJPEG (multipart/x-mixed-replace) of the annotated frames, at most ``mjpeg_fps``."""
    s = services()
    _frame_or_404()
    period = 1.0 / s.config.mjpeg_fps
    max_age = s.config.stream_max_age_s
    camera = s.camera
    assert camera is not None
    sub = _open()  # no topic: the hub only tells it when to end (shutdown, evicted)

    def gen() -> Iterator[bytes]:
        start = time.monotonic()
        last_seq = -1
        while time.monotonic() - start < max_age and not sub.ended.is_set():
            frame = camera.latest()
            if frame is not None and frame.seq != last_seq:
                last_seq = frame.seq
                jpeg = _annotated(frame, s)  # no request context inside a stream
                yield (
                    b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                    + str(len(jpeg)).encode()
                    + b"\r\n\r\n"
                    + jpeg
                    + b"\r\n"
                )
            if sub.get(timeout=period) is not None:  # only ever (CLOSED, None)
                return

    return Response(
        _Slot(gen(), sub),
        mimetype="multipart/x-mixed-replace; boundary=frame",
        headers=NO_STORE,
    )


# A host name has at most 253 characters (DNS); with the scheme, a port and "/j" a real join
# address is well under this. A longer Host is refused before segno is asked: its biggest QR
# code holds about 2 300 characters (more raised DataOverflowError, a 500), and one near that
# takes the Pi long to draw for nobody.
MAX_JOIN_URL = 300


@bp.get("/qr.svg")
def qr() -> Response:
    """A QR code of the join URL, made locally with segno."""
    import segno

    url = join_url()
    too_long = BadInput(
        f"the join address is too long for a QR code ({len(url)} characters, at most"
        f" {MAX_JOIN_URL}); open the dashboard by a shorter address"
    )
    if len(url) > MAX_JOIN_URL:
        raise too_long
    svg = io.BytesIO()
    try:
        segno.make(url, error="m").save(svg, kind="svg", scale=8, border=2, dark="#111")
    except segno.DataOverflowError:  # never under the cap; kept so a change of it stays a 400
        raise too_long from None
    return Response(svg.getvalue(), mimetype="image/svg+xml", headers={"Cache-Control": "no-cache"})


def join_url() -> str:
    base = services().config.public_url or request.host_url
    return base.rstrip("/") + "/j"
