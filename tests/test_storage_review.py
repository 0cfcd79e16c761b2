"""A storage review, read again: what a damaged row, a number too long to read or a second
server could still do to the log, and the commands around it (LOG-1, LOG-2, LOG-3, CLI-5,
CLI-6).

Every damage here is made by hand on a closed database, as a failing SD card or a hand edit
would leave it; nothing here needs more than a temporary folder."""

from __future__ import annotations

import io
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import referee.eventlog as eventlog_module
from referee.cli import main
from referee.eventlog import EventLog, GameEnded, GameUnreadable, LogConflict
from referee.events import Event, EventError
from referee.jsonlines import json_lines
from referee.registry import register_game
from tests.cli_run import run
from web.commands import _open_app
from web.config import WebConfig
from web.errors import BadInput
from web.services import history
from web.services.games import GameService
from web.services.hub import Hub
from web.services.settings import Settings
from web.storage_commands import _backup

register_game("tally", "tests.tally_game")

BIG = "1" * 5000  # past Python's 4300 digits: json raises a plain ValueError


def add(seat: int, n: int) -> Event:
    return Event("add", seat=seat, payload={"n": n})


def service(db: Path) -> GameService:
    return GameService(db, Settings(db), Hub())


def damage(db: Path, sql: str, params: tuple[Any, ...] = ()) -> None:
    """Change the closed database as a failing card or a hand edit would."""
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TRIGGER IF EXISTS events_append_only_update")
        conn.execute(sql, params)
    conn.close()


def two_games(db: Path) -> None:
    """Game 1 (ended, Ann won) and game 2 (running), one event each."""
    log = EventLog(db)
    for _ in range(2):
        game_id = log.create_game("tally", ["Ann", "Zoë"])
        log.append(game_id, add(0, 1))
    log.end_game(1, {"winners": [0]})
    log.close()


# -- 1. a JSON integer of more than 4300 digits -----------------------------------------------
def test_ruling_log3_a_number_too_long_to_read_is_a_bad_line_not_a_traceback(tmp_path, capsys):
    path = tmp_path / "big.jsonl"
    path.write_text(f'{{"game": "tally", "players": ["Ann"]}}\n{{"kind": "add", "t_ns": {BIG}}}\n')
    code, out, err = run(["replay", str(path)], capsys)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [
        f"tabletop replay: {path}:2: not JSON (Exceeds the limit (4300 digits) for integer "
        "string conversion: value has 5000 digits)"
    ]
    with pytest.raises(KeyError, match=r"big\.jsonl:2: not JSON \(Exceeds"):
        list(json_lines(path, KeyError))


def test_ruling_log3_a_stored_number_too_long_is_a_corrupt_entry(tmp_path):
    with pytest.raises(EventError, match="not JSON: Exceeds the limit"):
        Event.from_json(f'{{"kind": "add", "t_ns": {BIG}}}')
    db = tmp_path / "tabletop.db"
    two_games(db)
    body = f'{{"kind":"add","t_ns":{BIG}}}'
    damage(db, "UPDATE events SET body = ? WHERE game_id = 2", (body,))
    (entry,) = EventLog(db).entries(2)
    assert entry.event is None and entry.error.startswith("event 1: not JSON: Exceeds")
    snap = service(db).snapshot(2)
    assert [item["status"] for item in snap["feed"]] == ["corrupt"]
    assert "cannot be replayed" in snap["error"]


# -- 2. a games row that cannot be read -------------------------------------------------------
DAMAGED_ROWS = {
    "options not JSON": ("UPDATE games SET options = 'level=easy' WHERE id = 1", "options are"),
    "options a list": ("UPDATE games SET options = '[1]' WHERE id = 1", "options are"),
    "result not JSON": ("UPDATE games SET result = '{\"winners\": [' WHERE id = 1", "result is"),
    "start far away": ("UPDATE games SET created_at = 1e300 WHERE id = 1", "start time is"),
    "start as text": ("UPDATE games SET created_at = 'yesterday' WHERE id = 1", "start time is"),
    "end as text": ("UPDATE games SET ended_at = 'soon' WHERE id = 1", "end time is"),
    "name as bytes": ("UPDATE players SET name = X'5a6feb' WHERE game_id = 1", "seat 1 is"),
}


@pytest.mark.parametrize("case", DAMAGED_ROWS)
def test_ruling_log3_a_damaged_game_is_listed_as_unreadable_and_the_others_still_are(
    tmp_path, capsys, case
):
    """Before: a traceback (JSONDecodeError, TypeError), or for a start far in the future
    "no game None" (the handler meant for a huge game number caught localtime's error)."""
    db = tmp_path / "tabletop.db"
    two_games(db)
    sql, words = DAMAGED_ROWS[case]
    damage(db, sql)
    code, out, err = run(["log", "--db", str(db)], capsys)
    assert code == 1
    first, second = out.splitlines()
    assert first.startswith("    1  ") and "unreadable" in first
    assert second.startswith("    2  tally") and second.endswith("running  Ann, Zoë")
    (line,) = err.strip().splitlines()
    assert line.startswith("tabletop log: game 1 cannot be read: ") and words in line
    assert line.endswith(f" in {db}")
    with pytest.raises(GameUnreadable, match=f"game 1 cannot be read: .*{words}"):
        EventLog(db).game(1)
    assert EventLog(db).game(2).players == ("Ann", "Zoë")


def test_ruling_log3_a_game_whose_result_is_damaged_still_gives_its_log(tmp_path, capsys):
    """Its rules, players and options are read: its events can still be taken out; a game
    whose options cannot be read is refused, saying why (its log would replay wrongly)."""
    db = tmp_path / "tabletop.db"
    two_games(db)
    damage(db, "UPDATE games SET result = '{oops' WHERE id = 1")
    code, out, _ = run(["log", "1", "--db", str(db)], capsys)
    assert code == 0 and len(out.splitlines()) == 2
    damage(db, "UPDATE games SET options = 'level=easy' WHERE id = 1")
    code, out, err = run(["log", "1", "--db", str(db)], capsys)
    assert (code, out) == (2, "")
    assert err.strip() == (
        "tabletop log: game 1 cannot be read: its options are not JSON (Expecting value); its "
        f"result is not JSON (Expecting property name enclosed in double quotes) in {db}"
    )


def test_ruling_log3_serve_starts_beside_a_damaged_game_and_that_game_says_why(tmp_path, capsys):
    """Before: ``tabletop serve`` ended in a traceback at start-up (``current_id``), and the
    History page was a 500. Now every page works; the damaged game says why (409 where it
    cannot be shown or changed), and nothing is stored in it."""
    db = tmp_path / "tabletop.db"
    two_games(db)
    damage(db, "UPDATE games SET ended_at = NULL, result = NULL, options = '{' WHERE id = 1")
    app = _open_app(WebConfig(db_path=db, testing=True))
    assert app is not None, capsys.readouterr().err
    client = app.test_client()
    for url in ("/scoreboard", "/console", "/history", "/history/1", "/api/games", "/api/history"):
        assert client.get(url).status_code == 200, url
    assert client.get("/api/history.csv").status_code == 200
    snap = client.get("/api/games/1").json
    assert snap["error"].startswith("this game's log cannot be replayed: game 1 cannot be read")
    r = client.get("/api/games/1/log.jsonl")
    assert r.status_code == 409 and "options are not JSON" in r.json["error"]
    games = app.extensions["tabletop"].games
    with pytest.raises(BadInput, match=r"options are not JSON.*nothing was stored") as refused:
        games.append(1, add(0, 1))
    assert refused.value.status == 409 and games.log.head(1) == 1
    rows = {row["id"]: row for row in history.all_summaries(games)}
    assert "options are not JSON" in rows[1]["error"] and rows[2]["error"] is None
    ended = games.end(1)  # as a log that no longer replays: it ends, with no winners
    assert ended["winners"] == [] and "options are not JSON" in ended["unreadable"]


def test_ruling_log3_a_body_stored_as_bytes_is_kept_in_the_log_file(tmp_path, capsys):
    """Before: a TypeError joining the lines."""
    db = tmp_path / "tabletop.db"
    two_games(db)
    damage(db, "UPDATE events SET body = ? WHERE game_id = 2", (b'{"kind":"add","x":"\xff"}',))
    code, out, _ = run(["log", "2", "--db", str(db)], capsys)
    assert code == 0 and out.splitlines()[1] == '{"kind":"add","x":"\\xff"}'


# -- 3. a second server ends the game -------------------------------------------------------
def test_ruling_log1_an_event_checked_before_another_server_ended_the_game_is_not_stored(
    tmp_path,
):
    """LOG-1: server A ends the game between B's check of an event and B's store of it.
    Before, the event was stored after the end (201), and the History's result (Ann 1-0)
    no longer was the log's (1-5)."""
    db = tmp_path / "tabletop.db"
    a, b = service(db), service(db)
    game_id = a.create("tally", ["Ann", "Bob"], {})
    a.append(game_id, add(0, 1))
    store = b.log.append

    def after_a_ends(gid: int, event: Event, **kw: Any) -> int:
        a.end(gid)
        return store(gid, event, **kw)

    b.log.append = after_a_ends  # type: ignore[method-assign]
    with pytest.raises(BadInput, match="this game has ended") as refused:
        b.append(game_id, add(1, 5))
    assert refused.value.status == 409
    assert service(db).log.head(game_id) == 1
    assert service(db).record(game_id).result["scoreboard"]["totals"] == [1, 0]


def test_ruling_log1_a_game_is_ended_with_the_result_of_the_log_it_closes(tmp_path):
    """B works out the result; A logs an event before B stores it: B works it out again on
    the new head. A game another server ended is not ended again (its result kept)."""
    db = tmp_path / "tabletop.db"
    a, b = service(db), service(db)
    game_id = a.create("tally", ["Ann", "Bob"], {})
    a.append(game_id, add(0, 1))
    store = b.log.end_game

    def after_a_logs(gid: int, result: Any, **kw: Any) -> None:
        if a.log.head(gid) == 1:
            a.append(gid, add(1, 5))
        store(gid, result, **kw)

    b.log.end_game = after_a_logs  # type: ignore[method-assign]
    ended = b.end(game_id)
    assert ended["scoreboard"]["totals"] == [1, 5] and ended["winner_names"] == ["Bob"]
    assert service(db).record(game_id).result == ended
    with pytest.raises(BadInput, match="this game has ended") as refused:
        a.end(game_id)
    assert refused.value.status == 409 and service(db).record(game_id).result == ended


def test_ruling_log1_the_log_itself_stores_nothing_in_an_ended_game(tmp_path):
    log = EventLog(tmp_path / "tabletop.db")
    game_id = log.create_game("tally", ["Ann"])
    log.append(game_id, add(0, 1))
    with pytest.raises(LogConflict):
        log.end_game(game_id, {"winners": [0]}, after=0)  # worked out before event 1
    log.end_game(game_id, {"winners": [0]}, after=1)
    with pytest.raises(GameEnded):
        log.append(game_id, add(0, 1))
    with pytest.raises(GameEnded):
        log.end_game(game_id, {"winners": []})
    assert log.head(game_id) == 1 and log.game(game_id).result == {"winners": [0]}


# -- lesser ---------------------------------------------------------------------------------
@pytest.mark.parametrize("command", [["log"], ["backup"], ["pin", "reset"], ["serve"]])
def test_ruling_cli6_an_empty_tabletop_db_is_refused_as_an_empty_db_option_is(
    tmp_path, capsys, monkeypatch, command
):
    """Before: ``TABLETOP_DB=`` was the path "." (a folder)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TABLETOP_DB", "")
    monkeypatch.delenv("TABLETOP_CONFIG", raising=False)
    code, out, err = run(command, capsys)
    name = command[0]
    assert (code, out) == (2, "")
    assert (
        err.strip() == f"tabletop {name}: TABLETOP_DB is empty: name the database file, or unset it"
    )
    assert os.listdir(tmp_path) == []


def test_ruling_cli5_the_game_list_escapes_a_name_standard_output_cannot_show(
    tmp_path, capsys, monkeypatch
):
    """Before: UnicodeEncodeError on an ASCII terminal for "Zoë"."""
    db = tmp_path / "tabletop.db"
    two_games(db)
    ascii_out = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    monkeypatch.setattr(sys, "stdout", ascii_out)
    assert main(["log", "--db", str(db)]) == 0
    ascii_out.flush()
    text = ascii_out.buffer.getvalue().decode("ascii")  # type: ignore[attr-defined]
    assert text.splitlines()[1].endswith("running  Ann, Zo\\xeb")


def test_ruling_log2_log_o_syncs_the_file_it_writes(tmp_path, capsys, monkeypatch):
    """As a backup's copy is synced by SQLite: the log is on the card when the command ends."""
    db = tmp_path / "tabletop.db"
    two_games(db)
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    out = tmp_path / "game.jsonl"
    code, _, _ = run(["log", "2", "-o", str(out), "--db", str(db)], capsys)
    assert code == 0 and len(synced) == 1 and len(out.read_text().splitlines()) == 2


def test_ruling_log2_a_database_sqlite_cannot_keep_in_wal_mode_is_refused(tmp_path, monkeypatch):
    """A file system without WAL's shared memory (a network folder: ``nolock`` here) keeps a
    rollback journal and says so only in the pragma's answer. Before, the server ran on it
    silently; now it does not open. An in-memory log (tests) still opens."""
    connect = sqlite3.connect

    def no_wal(path: Any, **kw: Any) -> sqlite3.Connection:
        return connect(f"{Path(path).resolve().as_uri()}?nolock=1", uri=True, **kw)

    monkeypatch.setattr(eventlog_module.sqlite3, "connect", no_wal)
    with pytest.raises(sqlite3.OperationalError, match=r"cannot keep it in WAL mode .*delete"):
        EventLog(tmp_path / "tabletop.db")
    monkeypatch.setattr(eventlog_module.sqlite3, "connect", connect)
    log = EventLog(":memory:")
    assert log.append(log.create_game("tally", ["Ann"]), add(0, 1)) == 1


def test_a_backup_is_restored_by_copying_it_back_once_the_wal_is_deleted(tmp_path):
    """``_backup``'s advice: a crashed server's ``-wal`` beside the database would be read
    into the copied-back backup (a restore that silently holds the crashed games); deleted
    first, the restore holds the backup alone. Before, it said only "copy it back"."""
    assert "delete the ``-wal`` and ``-shm``" in " ".join((_backup.__doc__ or "").split())
    db = tmp_path / "tabletop.db"
    log = EventLog(db)
    log.append(log.create_game("tally", ["Ann"]), add(0, 1))
    log.close()
    assert main(["backup", "--db", str(db), "-o", str(tmp_path / "backup.db")]) == 0
    crash = (
        "import os, sys; sys.path.insert(0, sys.argv[1])\n"
        "from referee.eventlog import EventLog\n"
        "log = EventLog(sys.argv[2]); log.create_game('dos', ['Cy', 'Di']); os._exit(9)\n"
    )
    root = str(Path(__file__).resolve().parents[1])
    subprocess.run([sys.executable, "-c", crash, root, str(db)], check=False)
    assert Path(f"{db}-wal").exists()
    for side in ("-wal", "-shm"):
        Path(f"{db}{side}").unlink()
    shutil.copyfile(tmp_path / "backup.db", db)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM games").fetchone() == (1,)
    conn.close()


def test_ruling_log3_a_stored_scoreboard_of_the_wrong_shape_leaves_the_history_readable(
    tmp_path, capsys
):
    """A result that is JSON but not a scoreboard the history can read (a hand edit):
    /history was a 500 for every game; now that game says why and shows its log's board."""
    db = tmp_path / "tabletop.db"
    two_games(db)
    odd = '{"scoreboard": {"rounds": [1], "totals": 5}}'
    damage(db, f"UPDATE games SET ended_at = 1700000000, result = '{odd}' WHERE id = 1")
    app = _open_app(WebConfig(db_path=db, testing=True))
    assert app is not None, capsys.readouterr().err
    client = app.test_client()
    for url in ("/history", "/history/1", "/api/history", "/api/history.csv"):
        assert client.get(url).status_code == 200, url
    games = app.extensions["tabletop"].games
    rows = {row["id"]: row for row in history.all_summaries(games)}
    assert "stored scoreboard cannot be read" in rows[1]["error"] and rows[2]["error"] is None
