"""Data review 37: the server lock where its file is another user's, and a database whose
pages are damaged (a failing SD card).

1. A lock file this user may not write (left root's by one ``sudo tabletop serve``) meant no
   lock at all: a second server ran on the database, and ``restore`` replaced it under a
   running one. Now it is locked read-only (``flock`` needs no write access), and where it
   cannot be opened at all ``serve`` and ``restore`` refuse with one line.
2. One damaged page of the events table: ``backup`` saved nothing (the copy failed its
   integrity check and was deleted), History's "Export JSON" was a 503 as a whole, and the
   dashboard said "the database cannot be used". Now ``backup`` copies every game it can
   read and names the others (exit 1), the export marks the damaged game, and the message
   says the file is damaged.

A page is damaged by hand on a closed database: one leaf page of the ``events`` table that
holds only game 2's entries is overwritten, as a failing card returns garbage.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import web.server_lock
import web.storage_rescue
from referee.eventlog import EventLog, storage_problem
from referee.events import Event
from referee.registry import register_game
from tests.cli_run import run
from tests.test_disk_full import serve_at_once
from web import create_app
from web.config import WebConfig
from web.server_lock import ServerRunning, hold, lock_path

register_game("tally", "tests.tally_game")

ROOT = Path(__file__).resolve().parents[1]
OTHER_UID = 999  # another user, whose lock file the tests make (they run as root)
EVENTS = 200  # per game: several leaf pages of the events table each
BOOT = "boot-1"
# game 2's result as ended: History reads it, not the log, for its summary
RESULT = '{"finished": true, "winners": [0], "scoreboard": {"totals": [200, 0], "round": 1}}'


def one_line(err: str) -> str:
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()


# -- 1. the server lock ------------------------------------------------------------------------
def small_database(folder: Path) -> Path:
    db = folder / "tabletop.db"
    log = EventLog(db)
    log.append(log.create_game("tally", ["Ann", "Bob"]), Event("add", seat=0, payload={"n": 1}))
    log.close()
    return db


def lock_opened(monkeypatch: pytest.MonkeyPatch, refused: tuple[str, ...], code: int) -> None:
    """The lock file opens in none of the modes ``refused`` (the error ``code``), as for a
    user who may not write it (``"a+"``) or read it either (``"r"``)."""
    real = open

    def opened(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if mode in refused:
            raise OSError(code, os.strerror(code), str(path))
        return real(path, mode, *args, **kwargs)

    monkeypatch.setattr(web.server_lock, "open", opened, raising=False)


def test_ruling_log6_a_lock_file_this_user_may_not_write_is_locked_read_only(tmp_path, monkeypatch):
    """Before: ``hold`` returned None (no lock), and a second holder got None as well."""
    db = tmp_path / "t.db"
    lock_path(db).write_text("")  # made by another user
    lock_opened(monkeypatch, ("a+",), errno.EACCES)
    first = hold(db)
    assert first is not None
    try:
        with pytest.raises(ServerRunning, match=r"^another `tabletop serve` \(process \?\)"):
            hold(db, holder="restore")
    finally:
        first.close()
    assert lock_path(db).read_text() == ""  # read-only: its line is left as it was


def test_ruling_log6_no_lock_at_all_refuses_serve_and_restore_in_one_line(
    tmp_path, monkeypatch, capsys
):
    """A lock file this user may neither write nor read. Before: serve started and restore
    replaced the database, both without a lock."""
    db = small_database(tmp_path)
    backup = tmp_path / "backup.db"
    shutil.copy(db, backup)
    lock_path(db).write_text("")
    before = db.read_bytes()
    lock_opened(monkeypatch, ("a+", "r"), errno.EACCES)
    why = (
        f"cannot take the server lock {lock_path(db)}: Permission denied (another user made "
        "it, e.g. `sudo tabletop serve`): once no server runs on the database, remove it as "
        "that user, or give this one its own --db"
    )
    code, out, err = run(["restore", str(backup), "--db", str(db)], capsys)
    assert (code, out, one_line(err)) == (2, "", f"tabletop restore: {why}")
    assert db.read_bytes() == before and not list(tmp_path.glob("*.before-restore-*"))
    assert serve_at_once(db, monkeypatch) == 2
    out, err = capsys.readouterr()
    assert "dashboard on" not in out and one_line(err) == f"tabletop serve: {why}"


def test_a_folder_that_takes_no_lock_file_is_a_refusal_too(tmp_path, monkeypatch):
    db = tmp_path / "t.db"  # no lock file yet, and this user may not make one there
    lock_opened(monkeypatch, ("a+", "r"), errno.EACCES)
    with pytest.raises(web.server_lock.LockUnavailable, match="this user may not make files in"):
        hold(db)


def test_read_only_storage_still_leaves_the_lock_to_the_database(tmp_path, monkeypatch):
    """As before: no server can write there, and opening the database names the card."""
    db = tmp_path / "t.db"
    lock_opened(monkeypatch, ("a+", "r"), errno.EROFS)
    assert hold(db) is None


def as_other_user() -> list[str]:
    """The command prefix running a command to whom a file of ``OTHER_UID`` is another
    user's: root without the capabilities that let it ignore file modes (as the family's
    user meets a lock file one ``sudo tabletop serve`` left; it still runs this checkout's
    Python wherever the checkout is). Needs root, to hand the lock file to that user."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to make a file another user's")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def others(path: Path, mode: int) -> None:
    """Make ``path`` another user's (``OTHER_UID``), with ``mode``."""
    os.chown(path, OTHER_UID, OTHER_UID)
    path.chmod(mode)


@contextlib.contextmanager
def family_folder() -> Iterator[Path]:
    """A folder with the family's database and a backup, outside pytest's own."""
    folder = Path(tempfile.mkdtemp(prefix="tabletop-review37-"))
    try:
        db = small_database(folder)
        shutil.copy(db, folder / "backup.db")
        yield db
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def tabletop_as_other(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run(
        [*as_other_user(), sys.executable, "-m", "referee.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd="/",  # no tabletop.toml there, and a folder the family's user may read
        timeout=120,
    )


HOLD = (
    "import sys\nfrom pathlib import Path\nfrom web.server_lock import hold\n"
    "held = hold(Path(sys.argv[1]))\nprint(held is not None, flush=True)\nsys.stdin.read()\n"
)


def test_a_lock_file_root_left_keeps_a_second_server_and_a_restore_out():
    """One ``sudo tabletop serve`` left ``<db>.serve.lock`` root's (0644); then the family's
    user serves. Before: its server ran with no lock, so a second server started on the same
    database and ``tabletop restore`` replaced the database under the running one."""
    prefix = as_other_user()
    with family_folder() as db:
        lock = lock_path(db)
        lock.write_text("")
        others(lock, 0o644)  # another's: this user may read it, not write it
        before = db.read_bytes()
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONDONTWRITEBYTECODE="1")
        first = subprocess.Popen(
            [*prefix, sys.executable, "-c", HOLD, str(db)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd="/",
        )
        try:
            assert first.stdout is not None
            first.stdout.readline()  # it holds the lock (or, before, nothing) from now on
            second = tabletop_as_other("serve", "--db", str(db), "--port", "1")
            restore = tabletop_as_other("restore", str(db.parent / "backup.db"), "--db", str(db))
        finally:
            first.communicate("", timeout=60)
        assert second.returncode == 2 and one_line(second.stderr).startswith(
            "tabletop serve: another `tabletop serve` (process ?) is using the database "
        )
        assert restore.returncode == 2 and one_line(restore.stderr).startswith(
            "tabletop restore: `tabletop serve` (process ?) is using the database "
        )
        assert db.read_bytes() == before


def test_a_lock_file_the_user_may_not_even_read_refuses_serve_and_restore():
    """Another user.s and 0600: no lock can be taken, so nothing runs without one."""
    with family_folder() as db:
        lock = lock_path(db)
        lock.write_text("")
        others(lock, 0o600)
        before = db.read_bytes()
        why = f"cannot take the server lock {lock}: Permission denied (another user made it"
        serve = tabletop_as_other("serve", "--db", str(db), "--port", "1")
        assert serve.returncode == 2
        assert one_line(serve.stderr).startswith(f"tabletop serve: {why}")
        restore = tabletop_as_other("restore", str(db.parent / "backup.db"), "--db", str(db))
        assert restore.returncode == 2
        assert one_line(restore.stderr).startswith(f"tabletop restore: {why}")
        assert db.read_bytes() == before


# -- 2. a damaged page -------------------------------------------------------------------------
def marker(game_id: int) -> str:
    return f"game{game_id}-only" * 4


def three_games(db: Path) -> None:
    """Games 1, 2 and 3 (game 2 ended), each with ``EVENTS`` entries carrying its marker,
    stored one game after the other (each game's rows on pages of their own); the boot the
    dashboard starts in is known (``BOOT``: it reads no events to learn the clock)."""
    log = EventLog(db)
    for _ in range(3):
        game_id = log.create_game("tally", ["Ann", "Bob"])
        add = Event("add", seat=0, payload={"n": 1, "note": marker(game_id)})
        log.append_many(game_id, [add] * EVENTS)
    log.close()
    conn = sqlite3.connect(db)
    with conn:
        conn.execute(
            "UPDATE games SET ended_at = created_at + 60, result = ? WHERE id = 2", (RESULT,)
        )
        conn.execute("INSERT INTO boots VALUES (?, 5, 1.7e9)", (BOOT,))
    conn.close()
    assert not Path(f"{db}-wal").exists()


def damage_a_page_of_game_2(db: Path) -> None:
    """Overwrite one leaf page of the events table holding game 2's entries and no other's."""
    data = db.read_bytes()
    size = int.from_bytes(data[16:18], "big") or 65536
    pages = []
    for n in range(1, len(data) // size):  # page n + 1 (page 1 holds the file header)
        page = data[n * size : (n + 1) * size]
        others = (marker(1).encode(), marker(3).encode())
        if page[0] == 0x0D and marker(2).encode() in page and not any(m in page for m in others):
            pages.append(n)
    assert len(pages) >= 3, pages
    victim = pages[len(pages) // 2]
    with db.open("r+b") as fh:
        fh.seek(victim * size)
        fh.write(b"\xde\xad\xbe\xef" * (size // 4))


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    db = tmp_path / "tabletop.db"
    three_games(db)
    damage_a_page_of_game_2(db)
    return db


def log_lines(db: Path, game_id: int) -> list[str]:
    log = EventLog(db, read_only=True)
    try:
        return log.log_lines(game_id)
    finally:
        log.close()


def test_ruling_log5_backup_of_a_damaged_database_copies_every_game_it_can_read(
    damaged: Path, capsys: pytest.CaptureFixture[str]
):
    """Before: "cannot back up …: database disk image is malformed", exit 2, nothing saved,
    though the dashboard told the family to copy the games off with ``tabletop backup``."""
    copy = damaged.parent / "copy.db"
    code, out, err = run(["backup", "--db", str(damaged), "-o", str(copy)], capsys)
    assert (code, out) == (1, "")
    said = one_line(err)
    assert said.startswith(f"tabletop backup: {damaged} is damaged (")
    assert said.endswith(
        f": 2 of 3 games ({2 * EVENTS} events) copied to {copy}; game 2 could not be read; "
        f"its pages as read are kept in {copy}.damaged"
    )
    conn = sqlite3.connect(copy)
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert conn.execute("SELECT id FROM games").fetchall() == [(1,), (3,)]
    assert conn.execute("SELECT * FROM boots").fetchall() == [(BOOT, 5, 1.7e9)]
    conn.close()
    for game_id in (1, 3):  # whole, as they were
        assert log_lines(copy, game_id) == log_lines(damaged, game_id)
    assert Path(f"{copy}.damaged").is_file()
    assert sorted(p.name for p in damaged.parent.iterdir() if p.name.startswith("copy")) == [
        "copy.db",
        "copy.db.damaged",
    ]
    # what it saved is a backup like any: it can be restored
    fresh = damaged.parent / "new" / "tabletop.db"
    code, out, _ = run(["restore", str(copy), "--db", str(fresh)], capsys)
    assert code == 0 and out.startswith(f"Restored 2 games ({2 * EVENTS} events) from {copy}")


def test_a_backup_of_a_damaged_database_stopped_by_ctrl_c_leaves_nothing(
    damaged: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    def interrupted(source: Path, out: Path) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(web.storage_rescue, "_rescue", interrupted)
    copy = damaged.parent / "copy.db"
    assert run(["backup", "--db", str(damaged), "-o", str(copy)], capsys)[0] == 130
    assert [p.name for p in damaged.parent.iterdir() if p.name.startswith("copy")] == []


def test_a_damaged_file_is_still_no_backup_to_restore(
    damaged: Path, capsys: pytest.CaptureFixture[str]
):
    db = damaged.parent / "other.db"
    code, out, err = run(["restore", str(damaged), "--db", str(db)], capsys)
    assert (code, out) == (2, "")
    assert one_line(err).startswith(
        f"tabletop restore: {damaged} is not a Tabletop Referee backup: the copy fails its "
        "integrity check: "
    )
    assert not db.exists()


def test_a_restore_over_a_damaged_database_keeps_it_aside_as_it_was(
    damaged: Path, capsys: pytest.CaptureFixture[str]
):
    backup = damaged.parent / "good.db"
    three_games(backup)
    before = damaged.read_bytes()
    code, out, err = run(["restore", str(backup), "--db", str(damaged)], capsys)
    assert (code, err) == (0, "")
    (aside,) = damaged.parent.glob("tabletop.db.before-restore-*[0-9]")  # its -wal beside it
    assert aside.read_bytes() == before and "could not be read and is kept as it was" in out


def test_ruling_log5_history_export_marks_a_damaged_game_and_exports_the_others(damaged: Path):
    """Before: "Export JSON" was a 503 as a whole for one damaged page."""
    client = create_app(WebConfig(db_path=damaged, testing=True, boot_id=BOOT)).test_client()
    r = client.get("/api/history.json")
    assert r.status_code == 200
    games = {g["id"]: g for g in r.get_json()["games"]}
    assert [len(games[g]["events"]) for g in (1, 3)] == [EVENTS, EVENTS]
    assert games[2]["events"] is None
    assert games[2]["error"].startswith(
        "game 2: its events cannot be read: the database file is damaged ("
    )
    assert games[2]["totals"] == [200, 0]  # its summary stays
    assert games[1]["error"] is None and games[3]["error"] is None


def test_ruling_log5_a_damaged_database_is_said_to_be_damaged(damaged: Path):
    """Before: "the database cannot be used: database disk image is malformed; nothing was
    changed …", as if it could be tried again."""
    conn = sqlite3.connect(damaged)
    with pytest.raises(sqlite3.DatabaseError) as raised:
        conn.execute("SELECT body FROM events WHERE game_id = 2").fetchall()
    conn.close()
    said = storage_problem(raised.value, damaged)
    assert said == (
        f"the database file is damaged ({raised.value}): the SD card may be failing; copy the "
        "games off it with `tabletop backup` (it copies every game it can still read)"
    )
    client = create_app(WebConfig(db_path=damaged, testing=True, boot_id=BOOT)).test_client()
    r = client.get("/api/games/2")
    assert r.status_code == 503 and r.get_json()["error"] == f"{said}; nothing was changed"


def test_ruling_log5_log_and_serve_on_a_damaged_database_say_it_is_damaged(
    damaged: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    """`tabletop log 2`, and `serve` after a reboot (it reads the log's times), said only
    "database disk image is malformed"; now they say the file is damaged and that `tabletop
    backup` copies what can still be read."""
    code, out, err = run(["log", "2", "--db", str(damaged)], capsys)
    assert (code, out) == (2, "")
    assert "the database file is damaged (" in one_line(err)
    assert "copy the games off it with `tabletop backup`" in err
    assert serve_at_once(damaged, monkeypatch) == 2  # a new boot: the log's times are read
    err = capsys.readouterr().err
    assert "the database file is damaged (" in one_line(err)
    assert "copy the games off it with `tabletop backup`" in err


def null_in_a_not_null_cell(db: Path) -> None:
    """Game 2's third entry's body read as NULL (a flipped serial type on a failing card): the
    integrity check says "NULL value in events.body"; the pages themselves read."""
    conn = sqlite3.connect(db)
    (table,) = conn.execute("SELECT sql FROM sqlite_master WHERE name = 'events'").fetchone()
    triggers = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'events'"
    ).fetchall()
    loose = table.replace("NOT NULL", "")
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'events'", (loose,))
    conn.commit()
    conn.close()
    conn = sqlite3.connect(db)
    for name, _ in triggers:
        conn.execute(f'DROP TRIGGER "{name}"')
    conn.execute("UPDATE events SET body = NULL WHERE game_id = 2 AND seq = 3")
    for _, sql in triggers:
        conn.execute(sql)
    conn.execute("PRAGMA writable_schema = ON")
    conn.execute("UPDATE sqlite_master SET sql = ? WHERE name = 'events'", (table,))
    conn.commit()
    conn.close()
    conn = sqlite3.connect(db)
    assert "NULL value in events.body" in conn.execute("PRAGMA integrity_check").fetchone()[0]
    conn.close()


def test_ruling_log5_a_row_that_breaks_the_schema_costs_only_its_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """Before: "… no game could be copied from it: NOT NULL constraint failed: events.body",
    exit 2, nothing saved, though games 1 and 3 read whole."""
    db = tmp_path / "tabletop.db"
    three_games(db)
    null_in_a_not_null_cell(db)
    copy = tmp_path / "copy.db"
    code, out, err = run(["backup", "--db", str(db), "-o", str(copy)], capsys)
    assert (code, out) == (1, "")
    assert ": 2 of 3 games" in one_line(err) and "game 2 could not be read" in err
    conn = sqlite3.connect(copy)
    assert conn.execute("SELECT id FROM games").fetchall() == [(1,), (3,)]
    assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    conn.close()
