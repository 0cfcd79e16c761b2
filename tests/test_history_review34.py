"""History review 34: History's "Export JSON" keeps every entry and each game's options, an
event body that is not UTF-8 is named as such, and a `serve` kept out by `tabletop restore`
is told so.

Damage is made by hand on a closed database, as in tests/test_storage_review34.py:
``CAST(X'..' AS TEXT)`` stores bytes that are not UTF-8 as text."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from referee.eventlog import EventLog
from referee.events import Event, EventError
from referee.registry import register_game
from web import create_app
from web.config import WebConfig
from web.server_lock import ServerRunning, hold, lock_path

register_game("tally", "tests.tally_game")


def add(seat: int, n: int) -> Event:
    return Event("add", seat=seat, payload={"n": n})


def insert(db: Path, seq: int, body_sql: str) -> None:
    """Store an entry whose body is ``body_sql`` (an SQL expression), as a hand edit would."""
    conn = sqlite3.connect(db)
    with conn:
        conn.execute(f"INSERT INTO events VALUES (1, {seq}, {body_sql}, 1.7e9)")
    conn.close()


def game_with_options(db: Path) -> None:
    """Game 1: tally to 30 (not its default 100), one good entry."""
    log = EventLog(db)
    log.append(log.create_game("tally", ["Ann", "Bob"], {"limit": 30}), add(0, 1))
    log.close()


def exported(db: Path) -> dict:
    client = create_app(WebConfig(db_path=db, testing=True)).test_client()
    r = client.get("/api/history.json")
    assert r.status_code == 200
    (game,) = r.get_json()["games"]
    return game


# -- 1. History's "Export JSON" ----------------------------------------------------------------
def test_history_json_lists_a_corrupt_entry_marked_with_its_stored_body(tmp_path):
    """Before: the export left the entry out without a trace (events [1, 3])."""
    db = tmp_path / "tabletop.db"
    game_with_options(db)
    insert(db, 2, """'{"kind": "add", "seat": 1'""")  # cut short: a flipped bit, a bad edit
    EventLog(db).append(1, add(1, 2))
    game = exported(db)
    assert [e["seq"] for e in game["events"]] == [1, 2, 3]
    good, bad, last = game["events"]
    assert good["event"] == add(0, 1).to_dict() and "error" not in good
    assert bad["event"] is None and bad["error"].startswith("event 2: not JSON")
    assert bad["body"] == '{"kind": "add", "seat": 1'  # as the log.jsonl download writes it
    assert last["event"] == add(1, 2).to_dict()


def test_history_json_carries_each_games_options(tmp_path):
    """Before: no options, so a game played with any could not be rebuilt from the export."""
    db = tmp_path / "tabletop.db"
    game_with_options(db)
    assert exported(db)["options"] == {"limit": 30}


def test_history_json_writes_a_body_not_utf8_as_the_log_download_does(tmp_path):
    db = tmp_path / "tabletop.db"
    game_with_options(db)
    insert(db, 2, "CAST(X'7B22' || X'EB' || X'227D' AS TEXT)")  # {"\xeb"}
    (_, bad) = exported(db)["events"]
    assert bad["error"] == "event 2: not text (not UTF-8)"
    assert bad["body"] == '{"\\xeb"}'
    client = create_app(WebConfig(db_path=db, testing=True)).test_client()
    lines = client.get("/api/games/1/log.jsonl").get_data(as_text=True).splitlines()
    assert lines[2] == bad["body"]


# -- 2. an event body that is not UTF-8 --------------------------------------------------------
def test_an_event_body_not_utf8_is_not_text_not_a_codec_message():
    """Before: "not JSON: 'utf-8' codec can't decode byte 0xeb in position 2: …"."""
    with pytest.raises(EventError) as refused:
        Event.from_json(b'{"\xeb"}')
    assert str(refused.value) == "not text (not UTF-8)"


# -- 3. the database's lock names its holder ---------------------------------------------------
def test_a_serve_kept_out_by_a_restore_is_told_it_is_the_restore(tmp_path):
    """Before: "another `tabletop serve` (process N)", N being the restore's."""
    db = tmp_path / "t.db"
    restore = hold(db, holder="restore")
    assert restore is not None
    try:
        with pytest.raises(ServerRunning) as refused:
            hold(db)
    finally:
        restore.close()
    assert str(refused.value).startswith(
        f"`tabletop restore` (process {os.getpid()}) is using the database {db}: "
    )
    assert (refused.value.pid, refused.value.holder) == (str(os.getpid()), "restore")


def test_a_lock_file_with_the_number_alone_is_a_servers(tmp_path):
    """What every version wrote, and a server still writes."""
    db = tmp_path / "t.db"
    server = hold(db)
    assert server is not None
    try:
        assert lock_path(db).read_text() == f"{os.getpid()}\n"
        with pytest.raises(ServerRunning, match=r"^another `tabletop serve` \(process \d+\)"):
            hold(db, holder="restore")
    finally:
        server.close()
