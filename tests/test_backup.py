"""``tabletop backup``: a safe copy of the whole database, even while a server writes to it.

An SD card that dies takes a family's whole history with it; before, the only way out was
``tabletop log`` one game at a time, or copying the file by hand, which under a running
server (WAL mode) can copy a database without its last events."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from referee.cli import main
from referee.eventlog import EventLog
from tests.test_web_routes import DEAL, Tablet, make_app
from web.app import create_app
from web.config import WebConfig


def _backup(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["backup", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


def _game_with_events(tmp_path: Path) -> tuple[Tablet, int]:
    tablet = Tablet(make_app(tmp_path))
    tablet.set_pin()
    game_id = tablet.new_game("deck-dash", ("Ann", "Bob"))
    assert tablet.send(game_id, DEAL).status_code == 201
    assert tablet.send(game_id, {"kind": "draw", "seat": 0}).status_code == 201
    return tablet, game_id


def test_a_backup_holds_every_game_while_the_server_is_writing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    tablet, game_id = _game_with_events(tmp_path)
    db, copy = tmp_path / "tabletop.db", tmp_path / "copy.db"
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # a server in the middle of a write
    try:
        status, out, err = _backup(capsys, "--db", str(db), "-o", str(copy))
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert (status, err) == (0, "")
    assert out.strip() == f"Backed up 1 game (2 events) from {db} to {copy}"
    saved = EventLog(copy, read_only=True)
    assert [e.seq for e in saved.entries(game_id)] == [1, 2]
    live = tablet.services.games.result(game_id).state
    assert saved.rebuild(game_id).state == live
    # the copy is a database a server opens as it is (restore: serve --db copy.db)
    restored = Tablet(create_app(WebConfig(db_path=copy, testing=True)))
    assert restored.snapshot(game_id)["scoreboard"] == tablet.snapshot(game_id)["scoreboard"]


def test_a_backup_never_overwrites_and_names_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    _game_with_events(tmp_path)
    db = tmp_path / "tabletop.db"
    taken = tmp_path / "taken.db"
    taken.write_text("mine")
    status, out, err = _backup(capsys, "--db", str(db), "-o", str(taken))
    assert (status, out) == (2, "") and err.strip() == (
        f"tabletop backup: {taken} exists already: name another file"
    )
    assert taken.read_text() == "mine"
    nowhere = tmp_path / "no-such-folder" / "copy.db"
    status, _, err = _backup(capsys, "--db", str(db), "-o", str(nowhere))
    assert status == 2 and err.startswith(f"tabletop backup: cannot back up {db} to {nowhere}")
    assert len(err.strip().splitlines()) == 1 and not nowhere.exists()
    status, _, err = _backup(capsys, "--db", str(tmp_path / "none.db"))
    assert status == 2 and "no database at" in err


def test_a_backup_to_standard_output_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """Before, ``-o -`` wrote a database file named "-"."""
    _game_with_events(tmp_path)
    status, out, err = _backup(capsys, "--db", str(tmp_path / "tabletop.db"), "-o", "-")
    assert (status, out) == (2, "") and "not -" in err and not Path("-").exists()
