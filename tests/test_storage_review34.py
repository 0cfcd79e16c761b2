"""Storage review 34: a TEXT cell that is not UTF-8 (LOG-3), and putting a backup back
(`tabletop restore`).

Every damage is made by hand on a closed database, as a flipped bit on the SD card or a hand
edit with the sqlite3 shell on a Latin-1 terminal would leave it: ``CAST(X'..' AS TEXT)``
stores bytes that are not UTF-8 as text, which Python's sqlite3 refuses to decode."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli import main
from referee.eventlog import EventLog, GameUnreadable
from referee.events import Event
from referee.registry import register_game
from tests.cli_run import run
from web.commands import _open_app
from web.config import WebConfig
from web.server_lock import hold
from web.services.settings import Settings

register_game("tally", "tests.tally_game")

ZOE_LATIN1 = "5A6FEB"  # "Zoë" as Latin-1: the byte EB is no UTF-8


def add(seat: int, n: int) -> Event:
    return Event("add", seat=seat, payload={"n": n})


def two_games(db: Path) -> None:
    """Game 1 and game 2, both running, one event each."""
    log = EventLog(db)
    for _ in range(2):
        log.append(log.create_game("tally", ["Ann", "Bob"]), add(0, 1))
    log.close()


def damage(db: Path, sql: str) -> None:
    """Change the closed database as a hand edit would (the log's triggers dropped)."""
    conn = sqlite3.connect(db)
    with conn:
        conn.execute("DROP TRIGGER IF EXISTS events_append_only_update")
        conn.execute(sql)
    conn.close()


def hex_text(text: str) -> str:
    """``text`` as UTF-8 hex, for an ``X'..'`` literal."""
    return text.encode().hex().upper()


# -- 1. a TEXT cell that is not UTF-8 ----------------------------------------------------------
def test_ruling_log3_an_event_body_not_utf8_is_a_corrupt_entry_and_serve_starts(tmp_path, capsys):
    """Before: `tabletop log 1` said "cannot read the database", `serve` did not start (the
    boot's offset reads every body), and the game's page, its download and the whole
    History's JSON were 503s."""
    db = tmp_path / "tabletop.db"
    two_games(db)
    body = hex_text('{"kind":"add","seat":0,"payload":{"n":1},"note":"Zo') + "EB" + hex_text('"}')
    damage(db, f"INSERT INTO events VALUES (1, 2, CAST(X'{body}' AS TEXT), 1.7e9)")
    code, out, _ = run(["log", "1", "--db", str(db)], capsys)
    assert code == 0 and out.splitlines()[2].endswith('"note":"Zo\\xeb"}')
    entry = list(EventLog(db).entries(1))[1]
    assert entry.event is None and entry.error == "event 2: not text (not UTF-8)"
    assert EventLog(db).boot_offset("a boot after a power cut", 0) >= 0
    app = _open_app(WebConfig(db_path=db, testing=True))
    assert app is not None, capsys.readouterr().err
    client = app.test_client()
    snap = client.get("/api/games/1")
    assert snap.status_code == 200 and "cannot be replayed" in snap.json["error"]
    assert client.get("/api/games/1/log.jsonl").status_code == 200
    history = client.get("/api/history.json")
    assert history.status_code == 200 and 2 in [g["id"] for g in history.json["games"]]


ROWS_NOT_UTF8 = {
    "a player's name": (
        f"UPDATE players SET name = CAST(X'{ZOE_LATIN1}' AS TEXT) WHERE game_id = 1 AND seat = 0",
        "the name of seat 1 is not text but b'Zo\\xeb'",
    ),
    "the options": (
        "UPDATE games SET options = CAST(X'7B7DEB' AS TEXT) WHERE id = 1",
        "its options are not text but b'{}\\xeb'",
    ),
    "the result": (
        "UPDATE games SET ended_at = 1.7e9, result = CAST(X'7B7DEB' AS TEXT) WHERE id = 1",
        "its result is not text but b'{}\\xeb'",
    ),
}


@pytest.mark.parametrize("case", ROWS_NOT_UTF8)
def test_ruling_log3_a_game_row_not_utf8_is_listed_as_unreadable_and_every_page_works(
    tmp_path, capsys, case
):
    """Before: `tabletop log` listed no game (exit 2, "cannot read the database"), the
    games list and the History were 503s, and `serve` logged a traceback at start-up."""
    db = tmp_path / "tabletop.db"
    two_games(db)
    sql, why = ROWS_NOT_UTF8[case]
    damage(db, sql)
    code, out, err = run(["log", "--db", str(db)], capsys)
    assert code == 1
    first, second = out.splitlines()
    assert "unreadable" in first and second.endswith("running  Ann, Bob")
    assert err.strip() == f"tabletop log: game 1 cannot be read: {why} in {db}"
    with pytest.raises(GameUnreadable, match="game 1 cannot be read"):
        EventLog(db).game(1)
    app = _open_app(WebConfig(db_path=db, testing=True))
    assert app is not None, capsys.readouterr().err
    client = app.test_client()
    for url in ("/api/games", "/history", "/history/1", "/api/history.json", "/api/games/2"):
        assert client.get(url).status_code == 200, url


def test_ruling_log3_a_setting_not_utf8_leaves_serve_starting(tmp_path, capsys):
    """The dashboard's own settings: a damaged session key or PIN hash stopped `serve`
    ("cannot open the database"); now the key reads as some key and the PIN as one that
    matches nothing (``tabletop pin reset`` chooses a new one), never a 500."""
    db = tmp_path / "tabletop.db"
    two_games(db)
    settings = Settings(db)
    settings.secret_key()
    settings.set_first_pin("2468", settings.setup_code)
    settings.close()
    damage(db, f"UPDATE web_settings SET value = CAST(X'{ZOE_LATIN1}' AS TEXT)")
    app = _open_app(WebConfig(db_path=db, testing=True))
    assert app is not None, capsys.readouterr().err
    assert app.test_client().get("/scoreboard").status_code == 200
    settings = Settings(db)
    assert settings.pin_is_set and not settings.check_pin("2468")
    damage(
        db, "UPDATE web_settings SET value = 'scr\u00ebpt:1:2:3$salt$hash' WHERE key = 'pin_hash'"
    )
    assert not Settings(db).check_pin("2468")  # before: ValueError, a 500 at /login


# -- 4. tabletop restore -----------------------------------------------------------------------
def games_of(db: Path) -> list[tuple[int, str]]:
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT id, game FROM games ORDER BY id").fetchall()
    finally:
        conn.close()


def crash_after_a_new_game(db: Path) -> None:
    """A server stores one more game and dies before closing: its -wal stays beside the
    database (a power cut)."""
    crash = (
        "import os, sys; sys.path.insert(0, sys.argv[1])\n"
        "from referee.eventlog import EventLog\n"
        "log = EventLog(sys.argv[2]); log.create_game('dos', ['Cy', 'Di']); os._exit(9)\n"
    )
    root = str(Path(__file__).resolve().parents[1])
    subprocess.run([sys.executable, "-c", crash, root, str(db)], check=False)
    assert Path(f"{db}-wal").exists()


def backed_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    """The database with two games, and its backup."""
    db, backup = tmp_path / "tabletop.db", tmp_path / "backup.db"
    two_games(db)
    assert run(["backup", "--db", str(db), "-o", str(backup)], capsys)[0] == 0
    return db, backup


def test_restore_puts_the_backup_back_and_keeps_the_database_before_it_aside(tmp_path, capsys):
    """After a crash (a -wal beside the database): the restored file holds the backup's
    games alone, whole; the database as it was, the crashed game too, is kept in one file."""
    db, backup = backed_up(tmp_path, capsys)
    crash_after_a_new_game(db)
    code, out, err = run(["restore", str(backup), "--db", str(db)], capsys)
    assert (code, err) == (0, "")
    (aside,) = tmp_path.glob("tabletop.db.before-restore-*")
    left = {p.name for p in tmp_path.iterdir()}  # no -wal: neither the old one nor a new one
    assert left == {"tabletop.db", aside.name, "backup.db", "tabletop.db.serve.lock"}
    assert out.strip() == (
        f"Restored 2 games (2 events) from {backup} to {db}; the database before it is kept "
        f"as {aside}"
    )
    assert games_of(db) == games_of(backup) == [(1, "tally"), (2, "tally")]
    assert games_of(aside) == [(1, "tally"), (2, "tally"), (3, "dos")]
    for path in (db, aside):
        conn = sqlite3.connect(path)
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        conn.close()
    assert len(list(EventLog(db).events(2))) == 1


def test_restore_is_refused_while_a_server_holds_the_database(tmp_path, capsys):
    db, backup = backed_up(tmp_path, capsys)
    EventLog(db).create_game("dos", ["Cy", "Di"])
    server = hold(db)
    assert server is not None
    try:
        code, out, err = run(["restore", str(backup), "--db", str(db)], capsys)
    finally:
        server.close()
    assert (code, out) == (2, "")
    assert err.strip() == (
        f"tabletop restore: `tabletop serve` (process {os.getpid()}) is using the database "
        f"{db}: stop it first (a server would go on writing over the restored games)"
    )
    assert len(games_of(db)) == 3 and not list(tmp_path.glob("*.before-restore-*"))


@pytest.mark.parametrize("kind", ["text", "another program's database", "missing"])
def test_restore_refuses_a_file_that_is_no_backup_and_changes_nothing(tmp_path, capsys, kind):
    db, _ = backed_up(tmp_path, capsys)
    bogus = tmp_path / "bogus.db"
    if kind == "text":
        bogus.write_text("not a database at all, but long enough to be read as one\n" * 40)
        why = f"{bogus} is not a Tabletop Referee backup: file is not a database"
    elif kind == "another program's database":
        conn = sqlite3.connect(bogus)
        conn.execute("CREATE TABLE photos (id INTEGER)")
        conn.close()
        why = (
            f"{bogus} is not a Tabletop Referee backup: not a Tabletop Referee database: it "
            "has no games, players, events tables"
        )
    else:
        why = f"no backup file at {bogus}"
    before = db.read_bytes()
    code, out, err = run(["restore", str(bogus), "--db", str(db)], capsys)
    assert (code, out, err.strip()) == (2, "", f"tabletop restore: {why}")
    assert db.read_bytes() == before
    assert not [p for p in tmp_path.iterdir() if "restor" in p.name]


def test_restore_keeps_a_damaged_database_aside_as_it_was(tmp_path, capsys):
    """The usual reason to restore: the database no longer reads. It cannot be copied, so it
    is moved aside byte for byte, and the backup takes its place."""
    db, backup = backed_up(tmp_path, capsys)
    damaged = b"SQLite format 3\x00" + b"\xff" * 8000
    db.write_bytes(damaged)
    Path(f"{db}-wal").write_bytes(b"its journal")
    code, out, err = run(["restore", str(backup), "--db", str(db)], capsys)
    assert (code, err) == (0, "")
    aside, wal = sorted(tmp_path.glob("tabletop.db.before-restore-*"))
    assert out.strip().endswith(f"could not be read and is kept as it was in {aside} and {wal}")
    assert (aside.read_bytes(), wal.read_bytes()) == (damaged, b"its journal")
    assert not Path(f"{db}-wal").exists() and games_of(db) == games_of(backup)


def test_restore_into_a_new_place_and_backup_help_names_it(tmp_path, capsys):
    """A new SD card: nothing to keep aside. `backup --help` says how a backup goes back."""
    _, backup = backed_up(tmp_path, capsys)
    fresh = tmp_path / "new" / "tabletop.db"
    code, out, _ = run(["restore", str(backup), "--db", str(fresh)], capsys)
    assert code == 0 and out.strip().endswith("there was no database there before")
    assert games_of(fresh) == games_of(backup)
    with pytest.raises(SystemExit):
        main(["backup", "--help"])
    assert "tabletop restore FILE" in " ".join(capsys.readouterr().out.split())


def test_restore_keeps_the_databases_permissions(tmp_path, capsys):
    """A database a service account writes through its group (660) came back 644."""
    db, backup = backed_up(tmp_path, capsys)
    db.chmod(0o660)
    code, _, err = run(["restore", str(backup), "--db", str(db)], capsys)
    assert (code, err) == (0, "")
    assert db.stat().st_mode & 0o777 == 0o660


def test_restore_refuses_a_backup_at_its_own_staging_place_and_keeps_it(tmp_path, capsys):
    """A backup named <db>.restoring was deleted before being copied onto itself."""
    db, backup = backed_up(tmp_path, capsys)
    staging = tmp_path / "tabletop.db.restoring"
    backup.rename(staging)
    code, _, err = run(["restore", str(staging), "--db", str(db)], capsys)
    assert code == 2 and "where a restore copies the backup first" in err
    assert staging.is_file() and games_of(staging) == [(1, "tally"), (2, "tally")]


def test_restore_keeps_the_databases_group_and_keeps_the_old_one_as_private(tmp_path, capsys):
    """The restored file took the restorer's group (a service account writing through its
    group lost the database); the copy kept aside (every game, the PIN hash) was 0644."""
    import os

    db, backup = backed_up(tmp_path, capsys)
    if os.geteuid() == 0:  # root restores a database a service group owns
        os.chown(db, -1, 65534)
    db.chmod(0o600)
    want_gid = db.stat().st_gid
    code, _, err = run(["restore", str(backup), "--db", str(db)], capsys)
    assert (code, err) == (0, "")
    (aside,) = tmp_path.glob("tabletop.db.before-restore-*")
    assert db.stat().st_mode & 0o777 == 0o600 and aside.stat().st_mode & 0o777 == 0o600
    assert db.stat().st_gid == want_gid
