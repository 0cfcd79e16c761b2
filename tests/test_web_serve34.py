"""Round 34's serve findings: stopping ``tabletop serve`` with a tablet open ends at once (and
a restart right after starts); every player of an 8-seat game has a virtual pad and a seat
zone to draw; names equal but for capitals are one player (refused at creation, one row in
History's Players table)."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from referee.eventlog import EventLog
from referee.registry import find_game, game_names
from tests.test_web_routes import Tablet, make_app
from web.config import WebConfig
from web.services import history as hist

ROOT = Path(__file__).resolve().parents[1]
EIGHT = ["Ann", "Bob", "Cat", "Dan", "Eve", "Fin", "Gus", "Hal"]

# -- A. a stop with a tablet open ---------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(tmp_path: Path, port: int) -> subprocess.Popen[str]:
    """``tabletop serve`` on the test's database, its Ctrl-C as a terminal's (not ignored)."""
    env = {k: v for k, v in os.environ.items() if k not in ("TABLETOP_CONFIG", "TABLETOP_DB")}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "serve", "--db", str(tmp_path / "t.db")]
        + ["--port", str(port)],
        cwd=tmp_path,  # no tabletop.toml: the default (virtual) pads
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def _wait_until_serving(server: subprocess.Popen[str]) -> None:
    assert server.stdout is not None
    line = server.stdout.readline()
    assert "dashboard on http://" in line, (line, server.poll())


def _open_stream(port: int) -> Any:
    """A tablet's live stream, open (its first chunk read); read on by a thread until the
    server ends it."""
    url = f"http://127.0.0.1:{port}/api/stream?game=current&delta=1"
    resp = urllib.request.urlopen(url, timeout=60)
    assert resp.read(5) == b"retry"

    def drain() -> None:
        try:
            while resp.read(100):
                pass
        except (OSError, http.client.HTTPException):  # cut off by a server that hung on
            pass
        finally:
            resp.close()

    threading.Thread(target=drain, daemon=True).start()
    return resp


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stop_with_a_tablet_open_ends_at_once_and_a_restart_starts(tmp_path, signum):
    """Before: waitress waited 5 s for the thread the open stream held, then serve 2 s more,
    and only then were the streams told to end: 8 s or more, "1 thread(s) still running"
    twice, and a restart meanwhile was refused (the database still held). The bound (4 s)
    is generous: the stop takes well under a second."""
    port = _free_port()
    server = _serve(tmp_path, port)
    try:
        _wait_until_serving(server)
        _open_stream(port)
        started = time.monotonic()
        server.send_signal(signum)
        _, err = server.communicate(timeout=60)
        took = time.monotonic() - started
    finally:
        if server.poll() is None:
            server.kill()
            server.communicate()
    assert took < 4.0, (took, err)
    assert server.returncode == 0 and "still running" not in err, err
    again = _serve(tmp_path, _free_port())
    try:
        _wait_until_serving(again)  # the database is free: no "another `tabletop serve`"
    finally:
        again.send_signal(signal.SIGTERM)
        again.communicate(timeout=60)


# -- B. eight players, eight pads ----------------------------------------------------------


def test_virtual_seats_cover_every_game(tmp_path):
    """``[web] seats`` (virtual pads, calibration seat zones) defaults to the most players
    any game seats; it was 6, below DOS's and Deck Dash's 8."""
    most = max(find_game(name).max_players for name in game_names())
    assert WebConfig().seats >= most == 8


def test_virtual_pads_seat_an_eight_player_game(tmp_path):
    """Before: the dashboard's pads stopped at seat 5, so Gus and Hal had no DOS button
    (seat 7: 400 "there is no seat 7") and Calibrate offered no zone for them."""
    t = Tablet(make_app(tmp_path, race_timer=False))
    assert t.set_pin().status_code == 302
    r = t.post("/api/games", {"game": "dos", "players": EIGHT, "options": {}})
    assert r.status_code == 201, r.get_json()
    assert t.client.get("/api/pads").get_json()["seats"] == list(range(8))
    r = t.post("/api/pads/press", {"seat": 7, "device": "button"})
    assert r.status_code == 200, r.get_json()
    page = t.client.get("/calibration").get_data(as_text=True)
    assert 'value="seat_7_area"' in page


def test_serve_virtual_pads_get_the_seats(tmp_path):
    """``tabletop serve``'s pads are the hardware package's: on a machine without GPIO its
    virtual table had the pin map's 6 seats only (POST /api/pads/press seat 7: 400 "seat 7
    has no 'button'; seats [0..5]"). The map's own seats keep their pins."""
    from hardware.config import DEFAULT_MAP
    from web.commands import _hardware_pads, _seat_every_player

    config = tmp_path / "tabletop.toml"  # the default map's six seats, never real GPIO
    seats = "\n".join(
        f"{seat} = {{ pad = {pins['pad']}, call = {pins['call']}, led = {pins['led']} }}"
        for seat, pins in DEFAULT_MAP["seats"].items()
    )
    config.write_text(f'[hardware]\nmode = "virtual"\n[hardware.seats]\n{seats}\n')
    pads: Any = _hardware_pads(str(config))
    try:
        heard: list[Any] = []
        pads.subscribe(heard.append)
        _seat_every_player(pads, WebConfig().seats)
        assert list(pads.seats()) == list(range(8))
        assert pads.press(7, "button").seat == 7 and pads.press(6, "pad").seat == 6
        assert [(p.seat, p.device) for p in heard] == [(7, "button"), (6, "pad")]
        first = pads.table.config.seat(0)
        assert (first.pad, first.call, first.led) == (4, 17, 27)
    finally:
        pads.close()


def test_real_pads_keep_their_pin_map():
    """Only virtual pads grow: real GPIO pads are the seats that are wired."""
    from hardware.bus import EventBus
    from hardware.config import default_config
    from hardware.service import PadsService, with_virtual_seats

    class RealTable:  # what the service reads of a GPIO table (real pins open nowhere here)
        is_virtual = False
        config = default_config("gpio")
        bus: EventBus[Any] = EventBus()

    pads = PadsService(RealTable())  # type: ignore[arg-type]
    pads.grow(8)
    assert pads.table.config.seat_numbers == tuple(range(6))
    grown = with_virtual_seats(default_config("virtual"), 8)
    assert grown.seat_numbers == tuple(range(8))
    assert with_virtual_seats(grown, 8) is grown


# -- C. one name, one player ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "said"),
    [
        (["Ann", "ann"], "'Ann' and 'ann' are the same name: tell them apart, e.g. 'Ann B'"),
        (["Bob", "Ａｎｎ", "ANN"], "'Ａｎｎ' and 'ANN' are the same name"),
        (["Straße", "STRASSE"], "'Straße' and 'STRASSE' are the same name"),
    ],
)
def test_ruling_web14_names_equal_but_for_capitals_are_refused(tmp_path, players, said):
    """Before: "Ann" and "ann" started a game together, and History counted two people."""
    t = Tablet(make_app(tmp_path, race_timer=False))
    assert t.set_pin().status_code == 302
    r = t.post("/api/games", {"game": "dos", "players": players, "options": {}})
    assert r.status_code == 400 and said in r.get_json()["error"], r.get_json()
    assert t.services.games.log.game_ids() == []


def test_exact_and_empty_names_keep_their_message(tmp_path):
    t = Tablet(make_app(tmp_path, race_timer=False))
    assert t.set_pin().status_code == 302
    for players, said in ((["Ann", "Ann"], "must be different"), (["", " "], "needs a name")):
        r = t.post("/api/games", {"game": "dos", "players": players, "options": {}})
        assert r.status_code == 400 and said in r.get_json()["error"], r.get_json()


def test_ruling_web14_a_stored_game_with_both_spellings_still_replays(tmp_path):
    """The check is the dashboard's, at creation: a log that holds "Ann" and "ann" (made
    before it) replays, and History shows it."""
    log = EventLog(tmp_path / "tabletop.db")
    old = log.create_game("dos", ["Ann", "ann"], {})
    log.close()
    t = Tablet(make_app(tmp_path, race_timer=False))
    snap = t.services.games.snapshot(old)
    assert snap.get("error") is None and snap["scoreboard"]["players"] == ["Ann", "ann"]
    assert t.client.get("/history").status_code == 200


def _summary(game_id: int, players: list[str], winners: list[int]) -> dict[str, Any]:
    return {"id": game_id, "players": players, "winners": winners, "over": True}


def test_ruling_web14_player_stats_count_one_player_per_name_key():
    """Before: "mum" one night and "Mum" the next were two rows, each with half her
    record. The row shows the latest game's spelling."""
    newest_first = [
        _summary(3, ["Mum", "Dad"], [0]),
        _summary(2, ["Dad", "mum"], [1]),
        _summary(1, ["ＭＵＭ", "dad"], [1]),
    ]
    rows = {r["player"]: r for r in hist.player_stats(newest_first)}
    assert set(rows) == {"Mum", "Dad"}
    assert rows["Mum"] == {"player": "Mum", "games": 3, "wins": 2, "ended": 3}
    assert rows["Dad"]["games"] == 3 and rows["Dad"]["wins"] == 1
    oldest_first = {r["player"] for r in hist.player_stats(newest_first[::-1])}
    assert oldest_first == {"Mum", "Dad"}


def test_a_stored_game_seating_one_name_twice_counts_once():
    rows = hist.player_stats([_summary(1, ["Ann", "ann", "Bob"], [1])])
    assert [(r["player"], r["games"], r["wins"]) for r in rows] == [("Ann", 1, 1), ("Bob", 1, 0)]


def test_name_key():
    from web.services.games import name_key

    assert name_key("Ann") == name_key(" ann ") == name_key("ＡＮＮ")
    assert name_key("Ann") != name_key("Anne")
