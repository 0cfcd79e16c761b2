"""``tabletop backup``: a safe copy of the whole database, even while a server writes to it.

An SD card that dies takes a family's whole history with it; before, the only way out was
``tabletop log`` one game at a time, or copying the file by hand, which under a running
server (WAL mode) can copy a database without its last events."""

from __future__ import annotations

import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from referee.cli import main
from referee.eventlog import EventLog
from tests.test_web_routes import DEAL, Tablet, make_app
from web.app import create_app
from web.config import WebConfig

ROOT = Path(__file__).resolve().parents[1]


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


# -- nothing of a failed copy is left, and nothing of anyone else's is removed (CLI-1) -----


def _small_log(folder: Path) -> Path:
    """A referee database (WAL) of 1 KiB pages with one game: its copy fits in a file limit
    under 32 KiB, the ``-shm`` index SQLite makes to read the copy does not."""
    db = folder / "tabletop.db"
    setup = sqlite3.connect(db)
    setup.execute("PRAGMA page_size = 1024")
    setup.execute("VACUUM")
    setup.close()
    log = EventLog(db)
    log.create_game("deck-dash", ("Ann", "Bob"))
    log.close()
    assert db.stat().st_size < 24 * 1024 and not Path(f"{db}-wal").exists()
    return db


def _backup_limited(db: Path, copy: Path, size: int) -> subprocess.CompletedProcess[str]:
    """``tabletop backup`` as a process whose files may not grow past ``size`` bytes (a
    disk that fills while the copy is checked: SQLite says "disk I/O error")."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))

    return subprocess.run(
        [sys.executable, "-m", "referee.cli", "backup", "--db", str(db), "-o", str(copy)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limit,
    )


def test_ruling_cli1_backup_leaves_nothing_of_a_failed_copy(tmp_path: Path):
    """The copy is whole, but SQLite cannot make the ``-shm`` it needs to check it. Before,
    the copy was removed and its ``-wal`` and ``-shm`` were left beside where it had been."""
    db = _small_log(tmp_path)
    copy = tmp_path / "copy.db"
    run = _backup_limited(db, copy, 24 * 1024)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.startswith(f"tabletop backup: cannot back up {db} to {copy}: ")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("copy")] == []
    assert _backup_limited(db, copy, 1 << 20).returncode == 0  # room: the same backup works
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("copy")] == ["copy.db"]


@pytest.mark.parametrize("side", ["-wal", "-shm", "-journal"])
def test_ruling_cli1_backup_refuses_a_target_whose_sqlite_files_are_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], side: str
):
    """SQLite reads FILE-wal (FILE-journal) into a new FILE as part of it, and removes them
    when it closes: before, a backup to FILE took in or deleted another database's files."""
    _game_with_events(tmp_path)
    db, copy = tmp_path / "tabletop.db", tmp_path / "copy.db"
    theirs = Path(f"{copy}{side}")
    theirs.write_text("mine")
    status, out, err = _backup(capsys, "--db", str(db), "-o", str(copy))
    assert (status, out) == (2, "") and err.strip() == (
        f"tabletop backup: {theirs} exists already (SQLite would take it for part of "
        f"{copy}): name another file"
    )
    assert theirs.read_text() == "mine" and not copy.exists()


def test_ruling_cli1_backup_stopped_by_ctrl_c_leaves_nothing_of_its_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    """Ctrl-C as the copy is checked (a large database takes a while): before, the copy
    whose check had not ended stayed, looking like a backup."""
    import web.storage_commands

    _game_with_events(tmp_path)
    db, copy = tmp_path / "tabletop.db", tmp_path / "copy.db"
    real = web.storage_commands._copy_database

    def interrupted(source: Path, target: Path) -> tuple[int, int]:
        real(source, target)
        raise KeyboardInterrupt

    monkeypatch.setattr(web.storage_commands, "_copy_database", interrupted)
    assert main(["backup", "--db", str(db), "-o", str(copy)]) == 130
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("copy")] == []
    assert capsys.readouterr().out == ""
