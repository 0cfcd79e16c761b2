"""Day 35's security review of the dashboard: names that hide characters, error answers that
lost their required headers, and one device filling the server's connections or streams."""

from __future__ import annotations

import contextlib
import io
import socket
import sys
import threading
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from referee.eventlog import EventLog
from tests.serving import ServedApp
from tests.test_web_routes import Tablet, make_app
from tests.test_web_soak import ended, eventually
from web import commands
from web.blueprints import live
from web.services import history as hist
from web.services.games import name_key
from web.services.hub import CLOSED, Hub

_SOCKETS: list[socket.socket] = []  # every connection a test opened, closed after it


@pytest.fixture(autouse=True)
def _close_sockets() -> Iterator[None]:
    yield
    while _SOCKETS:
        _SOCKETS.pop().close()


def _referee(tmp_path: Path) -> Tablet:
    t = Tablet(make_app(tmp_path, race_timer=False))
    assert t.set_pin().status_code == 302
    return t


# -- 3. names that hide characters ------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "said"),
    [
        (["\x1b[31mRED\x1b[0m", "Bob"], "player 1's name holds an invisible or control"),
        (["Bob", "\u202eAnn"], "player 2's name holds an invisible or control character (U+202E)"),
        (["A\x00B", "C\x07"], "player 1's name holds an invisible or control character (U+0000)"),
        (["Ann", "Ann\u200b"], "player 2's name holds an invisible or control character (U+200B)"),
        (["\u200b", "Bob"], "player 1's name holds an invisible or control character (U+200B)"),
        (["Ann", "Bo\u2028b"], "player 2's name holds an invisible or control character (U+2028)"),
    ],
)
def test_ruling_web14_a_new_name_holding_a_hidden_character_is_refused(tmp_path, players, said):
    """Before: each was stored (201); an escape recoloured ``tabletop log``'s terminal, "\\u200b"
    passed "every player needs a name", and "Ann" sat beside "Ann\\u200b"."""
    t = _referee(tmp_path)
    r = t.post("/api/games", {"game": "dos", "players": players, "options": {}})
    assert r.status_code == 400 and said in r.get_json()["error"], r.get_json()
    assert "\n" not in r.get_json()["error"]
    assert t.services.games.log.game_ids() == []


@pytest.mark.parametrize("blank", ["\u3164", "\u0301", "\u2800\u3164"])
def test_ruling_web14_a_new_name_that_shows_nothing_is_refused(tmp_path, blank):
    """A Hangul filler, an accent on nothing, a blank Braille pattern: no hidden category,
    yet the row on every screen is empty."""
    t = _referee(tmp_path)
    r = t.post("/api/games", {"game": "dos", "players": ["Ann", blank], "options": {}})
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["error"] == "player 2's name has no letter that shows: type a name"


def test_names_from_many_scripts_still_start_a_game(tmp_path):
    t = _referee(tmp_path)
    players = ["Zoë", "José", "محمد", "李雷", "Ann 🎲", "नमस्ते"]
    r = t.post("/api/games", {"game": "dos", "players": players, "options": {}})
    assert r.status_code == 201, r.get_json()
    # joiners that shape the characters either side: emoji sequences, a Persian non-joiner;
    # a flag spelt with tag characters (Scotland's)
    scotland = "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f"
    joined = ["👩\u200d🚀", "🏳\ufe0f\u200d🌈", "می\u200cخواهم", f"Isla {scotland}"]
    r = t.post("/api/games", {"game": "dos", "players": joined, "options": {}})
    assert r.status_code == 201, r.get_json()
    loose = ["Ann\u200d", "Bob"]  # a joiner with nothing to join is hidden
    assert t.post("/api/games", {"game": "dos", "players": loose, "options": {}}).status_code == 400


def test_ruling_web14_names_equal_but_for_hidden_characters_are_one_player():
    assert name_key("Ann") == name_key("An\u200bn") == name_key("\u2060ANN\u200d")
    assert name_key("\u200b") != name_key("\u2060")  # two blank old names stay two rows
    rows = hist.player_stats(
        [
            {"id": 2, "players": ["Ann", "Bob"], "winners": [0], "over": True},
            {"id": 1, "players": ["Ann\u200b", "Bob"], "winners": [0], "over": True},
        ]
    )
    assert [(r["player"], r["games"], r["wins"]) for r in rows] == [("Ann", 2, 2), ("Bob", 2, 0)]


def _stored_game(db: Path, players: list[str]) -> int:
    """A game stored before the check (the event log's own check lets these through)."""
    log = EventLog(db)
    try:
        return log.create_game("dos", players, {})
    finally:
        log.close()


def test_ruling_web14_a_stored_name_with_hidden_characters_still_opens_and_exports(tmp_path):
    players = ["\x1b[31mRED\x1b[0m", "Ann\u200b", "\u202eAnn", "Ann"]
    old = _stored_game(tmp_path / "tabletop.db", players)
    t = Tablet(make_app(tmp_path, race_timer=False))
    snap = t.services.games.snapshot(old)
    assert snap.get("error") is None and snap["scoreboard"]["players"] == players
    for url in ("/history", f"/history/{old}", "/api/history.csv", "/api/history.json"):
        assert t.client.get(url).status_code == 200, url
    exported = t.client.get(f"/api/games/{old}/log.jsonl")
    assert exported.status_code == 200 and len(exported.get_data().splitlines()) == 1


def test_ruling_cli5_the_game_list_escapes_control_characters_of_stored_names(tmp_path):
    """Before: ``tabletop log`` wrote the escape raw, and the terminal turned red."""
    db = tmp_path / "tabletop.db"
    _stored_game(db, ["\x1b[31mRED\x1b[0m", "\u202eAnn", "A\x07\u2028B"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["log", "--db", str(db)]) == 0
    line = out.getvalue().rstrip("\n")
    assert line.endswith("running  \\x1b[31mRED\\x1b[0m, \\u202eAnn, A\\x07\\u2028B"), line
    assert all(c == "\n" or c.isprintable() for c in out.getvalue())


def test_ruling_cli5_the_game_list_keeps_joiners_inside_a_name_the_dashboard_took(tmp_path):
    db = tmp_path / "tabletop.db"
    _stored_game(db, ["می\u200cنا", "Zoe 👩\u200d🚀"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["log", "--db", str(db)]) == 0
    assert out.getvalue().rstrip("\n").endswith("running  می\u200cنا, Zoe 👩\u200d🚀")


# -- 4. error answers keep their required headers ----------------------------------------


def test_a_405_says_which_methods_are_allowed(tmp_path):
    """Before: no ``Allow`` header (RFC 9110 requires one on a 405), in JSON and in HTML."""
    t = Tablet(make_app(tmp_path, race_timer=False))
    api = t.client.put("/api/games/1", headers={"X-CSRF-Token": t.token})
    page = t.client.post("/scoreboard", headers={"Accept": "text/html"}, data={})
    for r, kind in ((api, "application/json"), (page, "text/html")):
        assert r.status_code == 405 and r.mimetype == kind
        assert "GET" in {m.strip() for m in r.headers["Allow"].split(",")}


def test_a_416_says_how_long_the_file_is(tmp_path):
    """Before: a range past a static file's end was a 416 with no ``Content-Range``."""
    t = Tablet(make_app(tmp_path, race_timer=False))
    size = (Path(commands.__file__).parent / "static" / "css" / "app.css").stat().st_size
    r = t.client.get("/static/css/app.css", headers={"Range": "bytes=999999-"})
    assert r.status_code == 416 and r.headers["Content-Range"] == f"bytes */{size}"
    assert r.mimetype == "text/html"  # the error page's own type, not the exception's


# -- 7. one device filling the connections or the streams --------------------------------


class _Tuned(ServedApp):
    """``ServedApp`` with waitress set up as ``tabletop serve`` sets it up."""

    def __init__(self, app: Any, **settings: Any) -> None:
        import waitress

        self.server = waitress.create_server(app, host="127.0.0.1", port=0, **settings)
        self._stopping = threading.Event()
        self._loop = threading.Thread(target=self._serve, name="waitress-loop", daemon=True)
        self._loop.start()


def _serve_settings(app: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """The waitress settings ``tabletop serve``'s ``_listen`` passes (not its socket)."""
    import waitress

    seen: dict[str, Any] = {}
    real = waitress.create_server

    def spy(application: Any, **settings: Any) -> Any:
        seen.update(settings)
        return real(application, **settings)

    monkeypatch.setattr(waitress, "create_server", spy)
    cfg = app.extensions["tabletop"].config
    cfg.host, cfg.port = "127.0.0.1", 0
    with contextlib.ExitStack() as taken:
        assert commands._listen(app, cfg, taken) is not None
    skip = {"map", "_dispatcher", "host", "port"}
    return {k: v for k, v in seen.items() if k not in skip} | {"threads": 6}


def test_two_hundred_half_open_requests_leave_the_dashboard_served(tmp_path, monkeypatch):
    """Before: one device's 200 half-sent requests took all 192 connections waitress would
    keep, and every tablet's page waited until they timed out."""
    app = make_app(tmp_path, race_timer=False)
    server = _Tuned(app, **_serve_settings(app, monkeypatch))
    try:
        for _ in range(200):
            sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
            _SOCKETS.append(sock)
            sock.sendall(b"GET /scoreboard HTTP/1.1\r\nHost: x\r\n")
        with urllib.request.urlopen(server.url + "/scoreboard", timeout=8) as page:
            assert page.status == 200
    finally:
        while _SOCKETS:
            _SOCKETS.pop().close()
        server.stop()


def test_the_connection_limit_keeps_within_the_open_files_allowed(monkeypatch):
    """A service's soft limit of 1 024 open files is raised toward its hard limit; where it
    cannot be, waitress is kept to what is left beside the database's and camera's files
    (at a full file table it would fail every accept in a loop)."""
    import resource

    asked: list[tuple[int, int]] = []
    monkeypatch.setattr(resource, "setrlimit", lambda _what, limits: asked.append(limits))
    monkeypatch.setattr(resource, "getrlimit", lambda _what: (1024, 1 << 20))
    assert commands._connection_limit(48) == commands.CONNECTION_LIMIT == 1000
    assert asked == [(1000 + 64 + 4 * 48, 1 << 20)]
    monkeypatch.setattr(resource, "getrlimit", lambda _what: (1024, 1024))
    assert commands._connection_limit(48) == 1024 - 64 - 4 * 48
    monkeypatch.setattr(resource, "getrlimit", lambda _what: (256, 256))
    assert commands._connection_limit(48) == 192  # never below the limit before


def _stream(port: int, source: str = "127.0.0.1") -> tuple[socket.socket, str]:
    """A raw SSE connection from ``source`` (any 127.x address is this machine); (socket,
    its status line). Nothing more is read, as from a tablet gone to sleep."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    _SOCKETS.append(sock)
    sock.sendall(b"GET /api/stream HTTP/1.1\r\nHost: x\r\n\r\n")
    head = b""
    while b"\r\n" not in head:
        head += sock.recv(1)
    return sock, head.decode().strip()


@pytest.mark.skipif(sys.platform != "linux", reason="127.0.0.2 is this machine only on Linux")
def test_ruling_web15_one_device_cannot_take_every_stream_slot(tmp_path, monkeypatch):
    """Before: one device's young streams (under 30 s, so never evicted) took every slot and
    the referee's console got 503. Now a device holds at most 8: its 9th ends its own
    oldest, young or not, and another device finds a slot."""
    monkeypatch.setattr(live, "SLOT_WAIT_S", 10.0)  # a loaded machine ends streams slowly
    app = make_app(tmp_path, race_timer=False, max_streams=9, stream_heartbeat_s=60)
    services = app.extensions["tabletop"]
    server = ServedApp(app, threads=16)
    try:
        opened = [_stream(server.port) for _ in range(10)]
        assert [status for _, status in opened] == ["HTTP/1.1 200 OK"] * 10
        assert ended(opened[0][0], 10.0) and ended(opened[1][0], 10.0), "its own oldest ended"
        assert eventually(lambda: services.streams.active == 8)
        _, status = _stream(server.port, source="127.0.0.2")  # the referee's console
        assert status == "HTTP/1.1 200 OK"
        assert not ended(opened[2][0], seconds=0.3), "the young streams kept"
    finally:
        while _SOCKETS:
            _SOCKETS.pop().close()
        services.end_streams(timeout=5)
        server.stop()


def test_the_hub_ends_an_address_own_oldest_streams_past_its_cap():
    hub = Hub(per_address=2)
    first, second = (hub.subscribe("game", address="10.0.0.5") for _ in range(2))
    other = hub.subscribe("game", address="10.0.0.6")
    unnamed = [hub.subscribe("game") for _ in range(3)]  # no address: not counted
    assert not hub.make_room("10.0.0.6")
    assert hub.make_room("10.0.0.5") and first.get(timeout=0) == (CLOSED, None)
    third = hub.subscribe("game", address="10.0.0.5")
    fourth = hub.subscribe("game", address="10.0.0.5")  # opened at once: counted all the same
    assert second.get(timeout=0) == (CLOSED, None)
    assert all(s.get(timeout=0) is None for s in (third, fourth, other, *unnamed))


def test_a_streams_address_never_changes_the_age_rule_for_the_others():
    """The 30 s rule stays: a full server ends the oldest stream only once it is 30 s old."""
    hub = Hub()
    young = hub.subscribe("game", address="10.0.0.5")
    assert not hub.evict_oldest(older_than_s=30) and young.get(timeout=0) is None
    young.since -= 31
    assert hub.evict_oldest(older_than_s=30) and young.get(timeout=0) == (CLOSED, None)
