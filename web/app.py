"""The Flask app factory: services are built (or injected) here and shared by blueprints."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, Response, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from referee.events import Event, Source
from web.config import WebConfig, coerce
from web.errors import BadInput
from web.security import Throttle, check_csrf, csrf_token, is_referee
from web.services.camera import Annotator, CameraFeed, FeedError, FileFeed, open_feed
from web.services.games import GameService, storage_error
from web.services.hub import Hub
from web.services.lights import TableLights, table_lights
from web.services.log_clock import LogClock
from web.services.pads import (
    PadPress,
    PadService,
    PendingPress,
    PendingPresses,
    RetryTimer,
    VirtualPads,
)
from web.services.prompts import (
    HeldPress,
    PromptBoard,
    held_presses,
    open_task_cards,
    press_source,
    which_card_prompt,
)
from web.services.race_timer import RaceTimer
from web.services.referee_camera import CameraReferee, ModelDetectors, feed_source
from web.services.settings import Settings
from web.services.zones import ZoneStore

log = logging.getLogger(__name__)


class StreamLimiter:
    """Caps concurrent live streams so page requests always find a free server thread."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._sem = threading.BoundedSemaphore(limit)
        self._lock = threading.Lock()
        self.active = 0

    def acquire(self) -> bool:
        if not self._sem.acquire(blocking=False):
            return False
        with self._lock:
            self.active += 1
        return True

    def release(self) -> None:
        with self._lock:
            self.active -= 1
        self._sem.release()


@dataclass
class Services:
    config: WebConfig
    settings: Settings
    games: GameService
    hub: Hub
    zones: ZoneStore
    pads: PadService
    camera: CameraFeed | None
    camera_error: str | None
    streams: StreamLimiter
    prompts: PromptBoard
    clock: LogClock = field(default_factory=LogClock)  # what the server stamps on (HW-10)
    annotator: Annotator = field(default_factory=Annotator)
    throttle: Throttle = field(default_factory=Throttle)
    pad_log: list[dict[str, Any]] = field(default_factory=list)
    referee: CameraReferee | None = None  # the camera refereeing the game (with a camera)
    race_timer: RaceTimer | None = None  # closes slap races when their window ends (HTD-13)
    press_questions: PressQuestions | None = None  # Wash Dash's "which task card?" (WD-22)
    lights: TableLights | None = None  # the table's LEDs and buzzer follow the game (HW-11)
    presses: PendingPresses | None = None  # pad presses on their way, kept through a 503

    def end_streams(self, timeout: float = 5.0) -> bool:
        """Ask every live stream to finish and wait (up to ``timeout``) until they have; call
        before closing the server. True when none is left. Pending race timers go too."""
        if self.race_timer is not None:
            self.race_timer.close()
        if self.press_questions is not None:
            self.press_questions.close()
        if self.presses is not None:
            self.presses.close()
        self.hub.close()
        deadline = time.monotonic() + timeout
        while self.streams.active and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.streams.active == 0


def _camera(cfg: WebConfig) -> tuple[CameraFeed | None, str | None]:
    if cfg.camera_feed is not None:
        return cfg.camera_feed, None
    if not cfg.camera:
        return None, None
    try:
        return open_feed(cfg.camera), None
    except FeedError as exc:
        log.warning("camera: %s", exc)
        return None, str(exc)


def _camera_referee(cfg: WebConfig, services: Services) -> CameraReferee | None:
    """Built whenever there is a camera; its thread starts with ``tabletop serve`` (or
    ``start()``), not here, so an app made for tests or benchmarks stays quiet."""
    source = cfg.referee_source
    if source is None and callable(getattr(services.camera, "subscribe", None)):
        source = feed_source(services.camera)  # the feed's frames (see FileFeed.subscribe)
    if source is None:
        return None
    detector = cfg.referee_detector or ModelDetectors(cfg.models_dir, cfg.card_scale)
    return CameraReferee(
        services.games,
        services.zones,
        services.prompts,
        source,
        detector,
        enabled=cfg.camera_referee,
    )


# A press stamped further than this from the server's clock is on another clock (a replayed
# recording): it goes to the latest game, not to the one started before its time.
PRESS_CLOCK_NS = 60_000_000_000


def _bridge_pads(services: Services) -> None:
    """A pad press becomes an event of the running game, when the game has that kind: the
    game the pads played in when it was pressed, not when it was delivered (a press waits
    behind the presses and the listeners before it, and a game started meanwhile is not
    its game). One the storage refuses for now waits, and is stored later in time order
    (``PendingPresses``; the race timer stores them before it closes a race)."""

    def tell(note: dict[str, Any], new: bool) -> None:
        if new:
            services.pad_log.append(note)
            del services.pad_log[:-50]
        services.hub.publish("pads", dict(note))  # a copy: a waiting note changes later

    presses = services.presses = PendingPresses(lambda item: _store_press(services, item), tell)
    if services.race_timer is not None:
        services.race_timer.before_close = presses.flush
    services.games.before_store.append(presses.store_first)  # a tablet's event waits too

    def on_press(press: PadPress) -> None:
        # on the log's time line from the first note on (HW-10): the pads page shows the
        # time the event is logged with, not the boot's raw clock
        t_ns = services.clock.from_monotonic(press.t_ns)
        note: dict[str, Any] = {**press.to_dict(), "t_ns": t_ns, "accepted": None, "message": ""}
        services.hub.publish("pads", dict(note))  # a copy: ``note`` is updated below
        late_ns = services.games.monotonic_ns() - press.t_ns
        pressed = press.t_ns if 0 <= late_ns <= PRESS_CLOCK_NS else None
        try:
            game_id = services.games.current_id(pressed)
        except BadInput as exc:  # the database, for now: no game to keep the press for
            log.warning("pad press %s not recorded: %s", press, exc.message)
            return
        if game_id is not None:
            presses.send(PendingPress(game_id, press, t_ns, note))

    services.pads.subscribe(on_press)
    questions = services.press_questions = PressQuestions(services)
    # a press held when the server stopped is asked about now, not at the game's next change
    # (as ``RaceTimer.resume`` times the race it was left in)
    _listen_from_now(services, questions.changed, "held presses of the current game")


def _store_press(services: Services, item: PendingPress) -> bool:
    """Store a press as its game's event; raises ``BadInput`` (503: the storage, for now).
    Updates its note; False when the press is no news for the pad log (its game has ended,
    or has no event for that device)."""
    press, note = item.press, item.note
    record = services.games.record(item.game_id)
    if record.ended_at is not None:
        note.update(accepted=False, message="not recorded: its game has ended")
        return False
    # The hardware package knows what a press means per game (slap/call/done).
    # A [web] pad_events entry overrides it.
    kind = services.config.pad_events.get(press.device)
    kind_of = getattr(press, "kind", None)
    if kind is None and callable(kind_of):
        kind = kind_of(record.game)
    if kind is None:
        note.update(accepted=False, message=f"not recorded: no {record.game} event")
        return False
    rules = services.games.rules(record.game)
    if kind not in rules.event_kinds():  # a pad_events kind of another game
        # said on the Hardware page: a bare return left the family slapping a dead pad
        why = f"{kind!r} is not a {rules.title} event"
        if press.device in services.config.pad_events:
            why += " ([web] pad_events)"
        note.update(accepted=False, message=why)
        return True
    event = Event(kind, seat=press.seat, t_ns=item.t_ns, source=Source.PAD)
    out = services.games.append(item.game_id, event)
    note.update(accepted=True, message=f"event #{out['seq']}", seq=out["seq"])
    return True


def _light_table(services: Services) -> None:
    """The table's LEDs and buzzer follow the current game (hardware pads only): its turn
    is lit now, not at its next change."""
    lights = services.lights = table_lights(services.games, services.pads)
    if lights is not None:
        _listen_from_now(services, lights.changed, "the table's lights")


def _listen_from_now(
    services: Services, listener: Callable[[int, dict[str, Any]], None], what: str
) -> None:
    """Add a ``GameService`` listener and tell it the current game now, not at its next
    change (a server start mid-game)."""
    services.games.listeners.append(listener)
    try:
        game_id = services.games.current_id()
        if game_id is not None:
            listener(game_id, services.games.snapshot(game_id))
    except Exception:  # a locked database, a log that no longer replays: the next change tells
        log.exception("%s could not be given the current game", what)


class PressQuestions(RetryTimer):
    """Wash Dash: a press held for its card (WD-17) is asked about on the tablets with one
    tap per open task card (``prompts.which_card_prompt``: each answer the seat's ``done``
    with that card at the press's time and source: ``pad``, ``manual`` for a card-less
    ``done`` typed in the console, ``press_source``), and the question goes when the
    press does (named, undone, the round over).

    One owner per press, so it is never asked twice: the camera's dryer referee owns the
    presses of a seat whose dryer it reads now (``DryerReferee.watches``): it names the card
    from the dryer, or asks with what it read (WD-21). This bridge owns every other held
    press: a table without a camera, a seat with no calibrated dryer, a camera turned off or
    lost. Both post under the press's key, one open question per key on the board, so a
    camera that reads the seat only later replaces this question with its own. Each press
    is asked about once: a question the family dismissed stays dismissed; while it is open,
    its answers follow the cards still open (another player took one meanwhile).

    A press left to the camera is checked again every ``RECHECK_S`` until the camera takes
    it up (names it or asks), not only at the game's next change: a camera lost, a dryer
    covered, or a press the camera left unnamed for ``referee_dryer.PRESS_WAIT_NS``
    (``DryerReferee.owns``) gets the plain question within about a second (with 2 players
    a held press holds the round, WD-18).

    A ``GameService`` listener: it runs after each change of a game (on the thread that
    made it, or on the thread telling the listeners then), from the change's snapshot.
    The service tells its listeners in the order it built the snapshots; an older one
    coming after a newer one would still be ignored (by its log head, and whether the game
    had ended, which is published at the same head)."""

    RECHECK_S = 1.0

    def __init__(self, services: Services) -> None:
        self.services = services
        self._lock = threading.Lock()
        # game id -> presses left to the camera, not yet taken up by it: checked again
        self._pending: dict[int, set[HeldPress]] = {}
        self._armed = False  # a re-check is scheduled
        self._timer: threading.Timer | None = None
        self._closed = False
        # game id -> its presses asked about -> (the question's id, the cards it offers)
        self._asked: dict[int, dict[HeldPress, tuple[int, list[Any]]]] = {}
        self._latest: dict[int, tuple[int, bool]] = {}  # game id -> (head, ended) last seen

    def changed(self, game_id: int, snap: dict[str, Any]) -> None:
        game = snap.get("game") or {}
        if game.get("name") != "wash-dash":
            return
        prompts, view = self.services.prompts, snap.get("view") or {}
        held = [] if game.get("ended_at") else held_presses(view)
        players = game.get("players") or []
        cards = open_task_cards(view)
        head = snap.get("head")
        with self._lock:
            if isinstance(head, int) and not isinstance(head, bool):
                mark = (head, bool(game.get("ended_at")))
                if mark < self._latest.get(game_id, mark):
                    return  # an older snapshot, published late by another writer's thread
                self._latest[game_id] = mark
            gone = [k for k in prompts.keys(game_id) if isinstance(k, HeldPress) and k not in held]
            prompts.dismiss_keys(game_id, gone)
            asked = self._asked.setdefault(game_id, {})
            for press in [p for p in asked if p not in held]:
                del asked[press]
            for press in held:
                who = players[press.seat] if press.seat < len(players) else f"seat {press.seat}"
                source = press_source(snap.get("feed") or [], press)  # a pad, the console
                question = which_card_prompt(press, who, cards, source=source)
                if press in asked:
                    pid, choices = asked[press]
                    if choices != question["choices"] and prompts.update(game_id, pid, question):
                        asked[press] = (pid, question["choices"])
                elif not self._watched(game_id, press):
                    item = prompts.add(game_id, question, key=press, keep=True)
                    if item.prompt == question:  # not the camera's, asked before it stopped
                        asked[press] = (item.id, question["choices"])
            waiting = {p for p in held if p not in asked and not self._taken_up(game_id, p)}
            if waiting:
                self._pending[game_id] = waiting
            else:
                self._pending.pop(game_id, None)
            for old in sorted(self._pending)[:-8]:
                if old != game_id:
                    del self._pending[old]
            self._arm()
            for old in sorted(self._asked)[:-8]:  # games left unended: the latest ones matter
                if old != game_id:
                    del self._asked[old]
            for old in sorted(self._latest)[:-8]:
                if old != game_id:
                    del self._latest[old]

    def _watched(self, game_id: int, press: HeldPress) -> bool:
        referee = self.services.referee
        return referee is not None and referee.enabled and referee.dryers.owns(game_id, press)

    def _taken_up(self, game_id: int, press: HeldPress) -> bool:
        referee = self.services.referee
        return referee is not None and referee.dryers.took_up(game_id, press)

    def schedule(self, delay: float, check: Callable[[], None]) -> None:
        """Run ``check`` in ``delay`` seconds (a daemon timer; tests replace it)."""
        timer = self._timer = threading.Timer(delay, check)
        timer.daemon = True
        timer.start()

    def _arm(self) -> None:
        """One re-check at a time, while a press waits on the camera (the lock is held)."""
        if self._pending and not self._armed and not self._closed:
            self._armed = True
            self.schedule(self.RECHECK_S, self.recheck)

    def recheck(self) -> None:
        """Ask again about the presses left to the camera, from each game's snapshot now:
        those it no longer owns get the plain question (``changed``)."""
        with self._lock:
            self._armed = False
            games = list(self._pending)
        for game_id in games:
            try:
                self.changed(game_id, self.services.games.snapshot(game_id))
            except Exception:  # a locked database, a game gone: its next change asks
                log.exception("held presses of game %s could not be checked again", game_id)
                with self._lock:
                    self._pending.pop(game_id, None)


def _wants_json() -> bool:
    return request.path.startswith("/api/") or (
        request.accept_mimetypes.best_match(["application/json", "text/html"]) == "application/json"
    )


def _error(status: int, message: str) -> tuple[Response | str, int]:
    if _wants_json():
        return jsonify(error=message, status=status), status
    try:
        return render_template("error.html", status=status, message=message), status
    except Exception:  # the page's links need URL building, which a bad request can break
        log.exception("error page for %s could not be drawn", request.path)
        return Response(f"{status}: {message}\n", mimetype="text/plain"), status


def _required_headers(exc: HTTPException) -> list[tuple[str, str]]:
    """The headers an error carries besides its body's type: a 405's ``Allow`` and a 416's
    ``Content-Range`` (RFC 9110 requires them), a 429's ``Retry-After``. The page or JSON
    drawn in its place says its own type."""
    return [(k, v) for k, v in exc.get_headers() if k.lower() != "content-type"]


def create_app(config: Any = None) -> Flask:
    cfg = coerce(config)
    app = Flask(__name__)
    settings = Settings(cfg.db_path)
    app.config.update(
        SECRET_KEY=cfg.secret_key or settings.secret_key(),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",  # CSRF is the token; Lax keeps QR-code links working
        SESSION_COOKIE_NAME="tabletop_session",
        MAX_CONTENT_LENGTH=256 * 1024,
        MAX_FORM_MEMORY_SIZE=64 * 1024,
        MAX_FORM_PARTS=200,
        TESTING=cfg.testing,
        JSON_SORT_KEYS=False,
    )
    app.json.sort_keys = False  # type: ignore[attr-defined]
    hub = Hub()
    games = GameService(cfg.db_path, settings, hub)
    clock = LogClock.for_log(games.log, cfg.boot_id)
    camera, camera_error = _camera(cfg)
    if isinstance(camera, FileFeed):
        camera.stamp = clock.from_monotonic
    services = Services(
        config=cfg,
        settings=settings,
        games=games,
        hub=hub,
        zones=ZoneStore(cfg.zones_file),
        pads=cfg.pads if cfg.pads is not None else VirtualPads(cfg.seats),
        camera=camera,
        camera_error=camera_error,
        streams=StreamLimiter(cfg.max_streams),
        prompts=PromptBoard(hub),
        clock=clock,
    )
    services.referee = _camera_referee(cfg, services)
    services.games.listeners.append(services.prompts.changed)  # an ended game's questions go
    if cfg.race_timer:
        services.race_timer = RaceTimer(services.games, clock=clock.now_ns)
    app.extensions["tabletop"] = services
    _bridge_pads(services)
    _light_table(services)
    if services.race_timer is not None:
        # last: a race it judges at once is news the lights flash (HW-11), and the pads'
        # presses waiting to be stored are stored before its close
        services.race_timer.resume(games.current_id())  # every running game, the pads' last

    from web.blueprints import api, auth, live, pages

    for bp in (pages.bp, auth.bp, api.bp, live.bp):
        app.register_blueprint(bp)

    app.before_request(check_csrf)

    @app.context_processor
    def _globals() -> dict[str, Any]:
        return {
            "csrf_token": csrf_token,
            "is_referee": is_referee(),
            "pin_is_set": settings.pin_is_set,
            "nav": pages.NAV,
        }

    @app.after_request
    def _headers(resp: Response) -> Response:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault("Referrer-Policy", "same-origin")
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; "
            "script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
        )
        return resp

    @app.errorhandler(BadInput)
    def _bad_input(exc: BadInput) -> Any:
        return _error(exc.status, exc.message)

    @app.errorhandler(HTTPException)
    def _http(exc: HTTPException) -> Any:
        body, status = _error(exc.code or 500, exc.description or exc.name)
        return body, status, _required_headers(exc)

    @app.errorhandler(sqlite3.Error)
    def _storage(exc: sqlite3.Error) -> Any:  # a locked, full or read-only file (LOG-1)
        log.warning("database error on %s %s: %s", request.method, request.path, exc)
        error = storage_error(exc, cfg.db_path)  # an I/O error names its cause (LOG-2)
        return _error(error.status, error.message)

    @app.errorhandler(Exception)
    def _unexpected(exc: Exception) -> Any:
        log.exception("unexpected error on %s %s", request.method, request.path)
        return _error(
            500, "something went wrong inside the dashboard; the request was not completed"
        )

    return app
