"""A long family evening, compressed: tablets and phones that sleep, reload and lose Wi-Fi,
dozens of games, a camera that keeps asking. Nothing may pile up: stream slots, hub
subscribers, timer threads, open camera questions."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.serving import ServedApp
from tests.test_web_routes import Tablet, make_app, write_images
from web.blueprints import live
from web.services.hub import CLOSED, Hub
from web.services.prompts import MAX_GAMES, MAX_OPEN, PromptBoard
from web.services.race_timer import RaceTimer

QUESTION = {"prompt": "which", "message": "a card?", "suggestion": None, "t_ns": 0}


_SOCKETS: list[socket.socket] = []  # every connection a test opened, closed after it


@pytest.fixture(autouse=True)
def _patient_slots(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A loaded CI machine may take a while to run the evicted stream's thread; a test that
    fails half-way still closes its connections (an unclosed socket is an error here)."""
    monkeypatch.setattr(live, "SLOT_WAIT_S", 10.0)
    yield
    while _SOCKETS:
        _SOCKETS.pop().close()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., tuple[Any, ServedApp]]]:
    """``serve(**settings)``: an app made by ``make_app`` under waitress, stopped after."""
    started: list[tuple[Any, ServedApp]] = []

    def start(**settings: Any) -> tuple[Any, ServedApp]:
        app = make_app(tmp_path, **settings)
        started.append((app, ServedApp(app, threads=12)))
        return started[-1]

    yield start
    for app, server in started:
        app.extensions["tabletop"].end_streams(timeout=5)
        server.stop()


def open_stream(port: int, path: str = "/api/stream") -> tuple[socket.socket, str]:
    """A raw connection that asked for ``path``; (socket, its status line). Nothing more is
    read: a tablet that went to sleep or out of Wi-Fi reads nothing and closes nothing."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    _SOCKETS.append(sock)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    head = b""
    while b"\r\n" not in head:
        head += sock.recv(1)
    return sock, head.decode().strip()


def ended(sock: socket.socket, seconds: float | None = None) -> bool:
    """Whether the server finished this chunked response (its last, empty chunk came),
    waiting ``seconds`` for it (None: the socket's 10 s)."""
    got = b""
    if seconds is not None:
        sock.settimeout(seconds)
    try:
        while not got.endswith(b"\r\n0\r\n\r\n"):
            chunk = sock.recv(65536)
            if not chunk:
                return False
            got += chunk
    except TimeoutError:
        return False
    return True


def eventually(check: Callable[[], bool], seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_full_server_gives_the_oldest_streams_slot_to_a_new_tablet(serve):
    """Three phones lost Wi-Fi with their live page open: the server cannot tell (no FIN,
    and a heartbeat into a dead connection succeeds for many minutes). Before, the fourth
    tablet got 503 and its EventSource stopped for good; now the oldest stream is ended and
    the new tablet takes its slot."""
    app, server = serve(max_streams=3, stream_heartbeat_s=60, stream_evict_after_s=0)
    services = app.extensions["tabletop"]
    vanished = [open_stream(server.port)[0] for _ in range(3)]
    assert services.streams.active == 3
    sock, status = open_stream(server.port)
    assert status == "HTTP/1.1 200 OK"
    assert ended(vanished[0]), "the oldest stream is the one ended"
    assert services.streams.active == 3 and services.hub.subscribers == 3
    for s in [*vanished, sock]:
        s.close()


def test_two_hundred_reloads_are_all_served_and_leave_nothing_behind(serve):
    """A tablet reloading, sleeping, waking: 200 streams opened and dropped at once, faster
    than heartbeats notice them. Before, every stream after the fourth was refused until a
    heartbeat freed a slot (164 of 200 in the soak); now each gets one, and once the
    dropped connections are noticed no slot or hub subscriber is left."""
    app, server = serve(max_streams=4, stream_heartbeat_s=0.2, stream_evict_after_s=0)
    services = app.extensions["tabletop"]
    threads = threading.active_count()
    statuses = []
    for _ in range(200):
        sock, status = open_stream(server.port)
        statuses.append(status)
        sock.close()
    assert statuses.count("HTTP/1.1 200 OK") == 200, set(statuses)
    assert eventually(lambda: services.streams.active == 0)
    assert services.hub.subscribers == 0
    assert threading.active_count() == threads


def test_a_camera_stream_left_open_gives_its_slot_to_a_new_tablet(serve, tmp_path):
    """The MJPEG picture of a phone that went to sleep holds a slot too; it is ended for a
    newer screen like any stream (before: it only checked for shutdown, and the new tablet
    got 503)."""
    from web.services.camera import FileFeed

    app, server = serve(max_streams=1, stream_heartbeat_s=60, stream_evict_after_s=0)
    services = app.extensions["tabletop"]
    services.camera = FileFeed(write_images(tmp_path / "frames"), fps=20)
    try:
        picture, status = open_stream(server.port, "/api/camera/stream.mjpg")
        assert status == "HTTP/1.1 200 OK"
        sock, status = open_stream(server.port)
        assert status == "HTTP/1.1 200 OK"
        assert ended(picture)
        assert services.streams.active == 1
        picture.close()
        sock.close()
    finally:
        services.camera.close()


def test_young_streams_are_spared_so_live_screens_do_not_take_turns(serve):
    """More live screens than slots, all in use: had the newest evicted the oldest at once,
    the two would evict each other every second. Only a stream that has run a while (30 s by
    default: a tablet asleep holds its slot for minutes) gives its slot up; else the new
    screen is refused and says so (its page asks for a reload)."""
    app, server = serve(max_streams=1, stream_heartbeat_s=60)
    services = app.extensions["tabletop"]
    first, status = open_stream(server.port)
    assert status == "HTTP/1.1 200 OK"
    second, status = open_stream(server.port)
    assert status.startswith("HTTP/1.1 503")
    assert not ended(first, seconds=0.5) and services.streams.active == 1
    hub = Hub()
    young = hub.subscribe("game")
    assert not hub.evict_oldest(older_than_s=30) and young.get(timeout=0) is None
    young.since -= 31
    assert hub.evict_oldest(older_than_s=30) and young.get(timeout=0) == (CLOSED, None)
    for sock in (first, second):
        sock.close()


def test_a_stream_told_to_end_stays_ended_however_many_messages_follow():
    """At shutdown (or eviction) a stream's end message went into its bounded queue like any
    other; a stream busy writing to a slow tablet while 64 more updates were published lost
    it and never ended. The end is now sticky."""
    hub = Hub()
    sub = hub.subscribe("game")
    hub.close()
    for n in range(200):
        hub.publish("game", {"n": n})
    assert sub.get(timeout=1) == (CLOSED, None)
    assert sub.queue.qsize() <= 64  # a subscriber that never reads stays bounded


def test_evicting_picks_the_oldest_stream_not_already_ending():
    hub = Hub()
    first, second, third = (hub.subscribe("game") for _ in range(3))
    assert hub.evict_oldest() and hub.evict_oldest()
    assert first.get(timeout=0) == (CLOSED, None) == second.get(timeout=0)
    assert third.get(timeout=0) is None
    hub.unsubscribe(first)
    assert hub.subscribers == 2


def test_an_ended_game_takes_its_camera_questions_with_it(tmp_path):
    """Before, the questions the camera asked in a game stayed on the board all evening
    after the game ended (none can be answered: the game takes no more events)."""
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    services = tablet.services
    game_id = tablet.new_game()
    for _ in range(3):
        services.prompts.add(game_id, QUESTION)
    heard = services.hub.subscribe("prompts")
    assert tablet.post(f"/api/games/{game_id}/end").status_code == 200
    assert services.prompts.count() == 0
    assert heard.get(timeout=1) == ("prompts", {"game_id": game_id, "prompts": []})
    services.hub.unsubscribe(heard)


def test_the_board_keeps_the_questions_of_the_last_few_games_only():
    """Games the family left without ending them kept their questions for ever: 50 games of
    an evening, 5 questions each, left 250 on the board."""
    board = PromptBoard(Hub())
    for game_id in range(1, 51):
        for _ in range(5):
            board.add(game_id, QUESTION)
    assert board.count() == MAX_GAMES * 5 <= MAX_GAMES * MAX_OPEN
    assert len(board.open(50)) == 5 and board.open(1) == []


def test_a_closed_race_timer_starts_no_more_timers():
    """The server stops: ``end_streams`` closes the race timer, the pads are closed after
    it. A slap in between started a timer nobody would cancel."""
    scheduled: list[float] = []

    class Timer:
        daemon = False

        def start(self) -> None:
            pass

        def cancel(self) -> None:
            pass

    class Games:
        listeners: list[Any] = []

    timer = RaceTimer(
        Games(), clock=lambda: 10**12, schedule=lambda d, f: scheduled.append(d) or Timer()
    )
    race = {"slaps": [0], "trigger_ns": 10**12, "deadline_ns": 10**12 + 300_000_000}
    slap = {"kind": "slap", "seat": 0, "t_ns": 10**12 + 1, "source": "pad"}
    snap = {
        "game": {"id": 1, "ended_at": None},
        "view": {"race": race},
        "feed": [{"event": slap, "status": "ok"}],
    }
    timer.changed(1, snap)
    assert len(scheduled) == 1
    timer.close()
    timer.changed(2, snap)
    assert len(scheduled) == 1


def _slap_race(tablet: Tablet) -> int:
    body = {
        "game": "hit-the-deck",
        "players": ["Ann", "Bob", "Cy"],
        "options": {"race_window_ms": 50},
    }
    game_id = int(tablet.post("/api/games", body).json["id"])
    for event in (
        {"kind": "deal", "payload": {"hands": [7, 7, 7]}},
        {"kind": "turn_up", "payload": {"card": "R3"}},
        {"kind": "play", "seat": 1, "payload": {"card": "R4"}},
        {"kind": "play", "seat": 2, "payload": {"card": "HAND"}, "t_ns": "now"},
    ):
        assert tablet.send(game_id, event).status_code == 201, event
    assert tablet.post("/api/pads/press", {"seat": 0, "device": "pad"}).status_code == 200
    return game_id


def test_an_evening_of_games_leaves_the_server_as_it_found_it(serve):
    """Eight slap-race games (each timed by a race timer thread), a camera question or two
    in each, a tablet that reloads during each: afterwards no timer thread, stream slot,
    hub subscriber or camera question is left."""
    app, server = serve(max_streams=4, stream_heartbeat_s=0.2, stream_evict_after_s=0)
    services = app.extensions["tabletop"]
    tablet = Tablet(app)
    tablet.set_pin()
    threads = threading.active_count()
    for _ in range(8):
        sock, status = open_stream(server.port)
        assert status == "HTTP/1.1 200 OK"
        game_id = _slap_race(tablet)
        services.prompts.add(game_id, QUESTION)
        assert eventually(lambda gid=game_id: tablet.snapshot(gid)["view"]["race"] is None)
        assert tablet.post(f"/api/games/{game_id}/end").status_code == 200
        sock.close()
    assert eventually(lambda: threading.active_count() == threads), threading.enumerate()
    assert eventually(lambda: services.streams.active == 0)
    assert services.hub.subscribers == 0
    assert services.prompts.count() == 0
    assert services.race_timer is not None and not services.race_timer._pending


def test_the_server_keeps_the_replays_of_the_last_few_games_only(tmp_path):
    """Before, every game looked at during the evening kept its replayed state in memory
    (50 after 50 games in the soak). Now the last 8 are kept; an older one is replayed from
    the log again when someone opens it, with the same snapshot."""
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    games = tablet.services.games
    ids = [tablet.new_game() for _ in range(12)]
    first = tablet.snapshot(ids[0])
    for game_id in ids[1:]:
        tablet.snapshot(game_id)
    assert len(games._cache) == 8 and games._cache.get(ids[0]) is None
    assert tablet.snapshot(ids[0]) == first
