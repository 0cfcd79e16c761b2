"""The Pi's SD card fills up, or Linux turns it read-only after errors (ext4 remounts itself
read-only): the event log cannot be written, and sometimes SQLite cannot even make the
``-shm`` index it needs to read a WAL database. What the family sees then.

No test needs root. A full disk is SQLite's ``max_page_count`` (the file may not grow) or a
child process whose files may not grow (``RLIMIT_FSIZE``: SQLite then fails a write as the
kernel failed it, as an I/O error); what the storage says of itself (full, read-only) is
``os.statvfs``, faked for the database's folder; a ``-shm`` that cannot be made is one that
leads to ``/dev/full`` (SQLite: "unable to open database file", as on a read-only card).
"""

from __future__ import annotations

import json
import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.cli import main
from referee.eventlog import EventLog
from referee.events import Event
from tests.test_web_routes import DEAL, Tablet, make_app
from web.services.games import GameService
from web.services.hub import Hub
from web.services.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
DRAW = {"kind": "draw", "seat": 1}  # Bob draws again: illegal, so stored with its verdict


def fresh(db: Path, game_id: int) -> dict[str, Any]:
    """The game as a server started now would show it: replayed from the log alone."""
    return GameService(db, Settings(db), Hub()).snapshot(game_id)


def fake_statvfs(monkeypatch: pytest.MonkeyPatch, folder: Path, state: str) -> None:
    """``os.statvfs`` says the file system holding ``folder`` is read-only, or has no room."""
    real = os.statvfs

    def statvfs(path: Any) -> os.statvfs_result:
        st = real(path)
        if folder.resolve() not in (Path(path).resolve(), *Path(path).resolve().parents):
            return st
        fields = list(st)[:10]
        if state == "read-only":
            fields[8] |= os.ST_RDONLY  # f_flag
        else:
            fields[3] = fields[4] = 0  # f_bfree, f_bavail
        return os.statvfs_result(fields)

    monkeypatch.setattr(os, "statvfs", statvfs)


def played(folder: Path) -> tuple[Path, int]:
    """A database with a deck-dash game dealt, every connection closed (no -wal left)."""
    tablet = Tablet(make_app(folder))
    tablet.set_pin()
    game_id = tablet.new_game("deck-dash", ("Ann", "Bob"))
    assert tablet.send(game_id, DEAL).status_code == 201
    services = tablet.services
    services.games.log.close()
    services.games.settings.close()
    services.settings.close()
    db = folder / "tabletop.db"
    assert not Path(f"{db}-wal").exists()
    return db, game_id


def no_index_can_be_made(db: Path) -> None:
    """SQLite cannot make the ``-shm`` index it needs to read the WAL database: it says
    "unable to open database file" (SQLITE_CANTOPEN), as on a read-only card."""
    Path(f"{db}-shm").symlink_to("/dev/full")


def limited(size: int) -> Any:
    """For ``subprocess``: no file the child writes may grow past ``size`` bytes (Python
    ignores SIGXFSZ, so a write past it fails with an OSError, SQLite's with an I/O error)."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.RLIM_INFINITY))

    return limit


def tabletop(*args: str, size: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=limited(size),
    )


def one_line(err: str) -> str:
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    return err.strip()


# -- a tablet, a pad: the running server ------------------------------------------------


def test_ruling_log2_a_full_disk_stores_nothing_and_the_game_goes_on_when_space_is_freed(tmp_path):
    """A tablet's event and a pad press on a full disk: 503 saying so (the pad log says
    so), the game shown stays what the log holds (what a restarted server would show), and
    once there is room the next event is stored after the last one, without a restart."""
    db = tmp_path / "tabletop.db"
    tablet = Tablet(make_app(tmp_path, pad_events={"pad": "draw"}))
    tablet.set_pin()
    game_id = tablet.new_game("deck-dash", ("Ann", "Bob"))
    assert tablet.send(game_id, DEAL).status_code == 201
    conn = tablet.services.games.log._conn()  # this thread's: the test client's requests
    (pages,) = conn.execute("PRAGMA page_count").fetchone()
    conn.execute(f"PRAGMA max_page_count={pages}")
    for _ in range(2000):
        refused = tablet.send(game_id, DRAW)
        if refused.status_code != 201:
            break
    assert refused.status_code == 503, refused.json
    assert refused.json["error"].startswith("the disk is full: free some space")
    assert "nothing was changed" in refused.json["error"]
    stored = [e.seq for e in EventLog(db, read_only=True).entries(game_id)]
    shown = tablet.snapshot(game_id)
    assert [item["seq"] for item in shown["feed"]] == stored and shown["head"] == stored[-1]
    assert {k: shown[k] for k in ("scoreboard", "view", "feed")} == {
        k: fresh(db, game_id)[k] for k in ("scoreboard", "view", "feed")
    }

    assert tablet.post("/api/pads/press", {"seat": 1, "device": "pad"}).status_code == 200
    note = tablet.services.pad_log[-1]
    assert note["accepted"] is False and note["waiting"] is True  # stored once space is freed
    assert note["message"] == "waiting to be stored: " + refused.json["error"]
    assert [e.seq for e in EventLog(db, read_only=True).entries(game_id)] == stored

    conn.execute("PRAGMA max_page_count=1073741823")  # space freed
    tablet.services.presses.flush(game_id)  # as its retry, or the pads' next press, does
    assert note["accepted"] is True and note["seq"] == stored[-1] + 1
    stored_now = tablet.send(game_id, DRAW)
    assert stored_now.status_code == 201 and stored_now.json["seq"] == stored[-1] + 2
    assert tablet.snapshot(game_id)["feed"] == fresh(db, game_id)["feed"]


IO_CHILD = """
import json, os, resource, sys
from pathlib import Path
from tests.test_web_routes import DEAL, Tablet, make_app
folder, state = Path(sys.argv[1]), sys.argv[2]
tablet = Tablet(make_app(folder))
tablet.set_pin()
game_id = tablet.new_game("deck-dash", ("Ann", "Bob"))
tablet.send(game_id, DEAL)
real = os.statvfs
def statvfs(path):
    st, where = real(path), Path(path).resolve()
    if state == "as-is" or folder.resolve() not in (where, *where.parents):
        return st
    fields = list(st)[:10]
    if state == "read-only":
        fields[8] |= os.ST_RDONLY
    else:
        fields[3] = fields[4] = 0
    return os.statvfs_result(fields)
os.statvfs = statvfs
wal = os.path.getsize(folder / "tabletop.db-wal")
resource.setrlimit(resource.RLIMIT_FSIZE, (wal, resource.RLIM_INFINITY))  # the card fails
answers = []
for _ in range(200):
    r = tablet.send(game_id, {"kind": "draw", "seat": 1, "payload": {"pad": "x" * 2000}})
    answers.append([r.status_code, r.json])
    if r.status_code != 201:
        break
shown = tablet.snapshot(game_id)
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
r = tablet.send(game_id, {"kind": "draw", "seat": 1})
answers.append([r.status_code, r.json])
print(json.dumps({"answers": answers, "shown": shown, "game_id": game_id}))
"""


@pytest.mark.parametrize(
    ("state", "says"),
    [
        ("read-only", "the Pi's storage is read-only (Linux does that to an SD card after errors)"),
        ("full", "the disk is full: free some space on the Pi, then try again"),
        ("as-is", "the Pi's storage could not be read or written (disk I/O error): the SD card"),
    ],
)
def test_ruling_log2_a_write_the_card_fails_says_what_the_storage_is(tmp_path, state, says):
    """A card Linux remounted read-only, or one full, fails SQLite's writes as "disk I/O
    error" (SQLITE_IOERR), not "readonly" or "full". Before, the tablet read "the database
    cannot be used: disk I/O error", which tells no one what to do; now what the storage
    says of itself names it. Nothing is shown that is not stored, and once the card takes
    writes again the next event is stored after the last one, without a restart."""
    run = subprocess.run(
        [sys.executable, "-c", IO_CHILD, str(tmp_path), state],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    *_, (code, refused), (code_after, after) = out["answers"]
    assert code == 503 and refused["error"].startswith(says), refused
    assert refused["error"].endswith("nothing was changed and the events logged so far are kept")
    game_id, shown = out["game_id"], out["shown"]
    db = tmp_path / "tabletop.db"
    assert code_after == 201 and after["seq"] == shown["head"] + 1
    replayed = fresh(db, game_id)
    assert [item["seq"] for item in replayed["feed"]] == [*range(1, shown["head"] + 2)]
    assert shown["feed"] == replayed["feed"][:-1]


# -- starting on a card that cannot be written -----------------------------------------


def test_ruling_log2_serve_on_a_full_disk_says_so_in_one_line(tmp_path):
    """The server's lock file is made, but its line cannot be written. Before: a traceback
    (OSError from ``web.server_lock.hold``) and exit 1."""
    db, _ = played(tmp_path)
    run = tabletop("serve", "--db", str(db), "--port", "1", size=1)
    assert run.returncode == 2, run.stderr
    assert one_line(run.stderr).startswith(f"tabletop serve: cannot start on the database {db}: ")


class _Server:
    """waitress's server, bound to nothing: ``run`` returns at once."""

    def run(self) -> None:
        return None


def serve_at_once(db: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    import waitress

    import web.commands

    monkeypatch.chdir(db.parent)  # no tabletop.toml: the defaults
    for name in ("TABLETOP_CONFIG", "TABLETOP_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(waitress, "create_server", lambda app, **kw: _Server())
    monkeypatch.setattr(web.commands, "_stop_on_sigterm", lambda: None)
    return main(["serve", "--db", str(db), "--no-camera-referee"])


def test_ruling_log2_serve_refuses_a_database_it_may_not_write(tmp_path, monkeypatch, capsys):
    """A file SQLite opens read-only (no write permission: the same as ``mode=ro``) holds
    the log's tables, so nothing was written opening it, and within the same boot (its
    offset stored) serve started: every tablet event was then a 503, every pad press lost.
    A referee that can store nothing refuses to start and says why (LOG-2)."""
    db, _ = played(tmp_path)
    connect = sqlite3.connect

    def write_protected(target: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        if str(target) == str(db):
            kwargs["uri"] = True
            target = f"{db.resolve().as_uri()}?mode=ro"
        return connect(target, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", write_protected)
    assert serve_at_once(db, monkeypatch) == 2
    out = capsys.readouterr()
    assert "dashboard on" not in out.out
    assert one_line(out.err) == (
        f"tabletop serve: cannot open the database {db}: the database file cannot be written "
        "(it is read-only)"
    )


def test_ruling_log2_a_read_only_card_is_named_and_its_games_can_still_be_copied(
    tmp_path, monkeypatch, capsys
):
    """Linux remounted the card read-only: SQLite cannot make the ``-shm`` index it needs to
    read a WAL database, so every command said "unable to open database file", and ``log``
    and ``backup``, the way to save the family's games, failed too. Now serve and ``pin
    reset`` name the read-only card, and ``log`` and ``backup`` read the file as it stands
    (no ``-wal`` holds anything it lacks)."""
    db, game_id = played(tmp_path / "card")
    assert main(["log", str(game_id), "--db", str(db)]) == 0
    expected = capsys.readouterr().out
    no_index_can_be_made(db)
    fake_statvfs(monkeypatch, db.parent, "read-only")
    card = "the Pi's storage is read-only (Linux does that to an SD card after errors)"

    assert serve_at_once(db, monkeypatch) == 2
    err = one_line(capsys.readouterr().err)
    assert err.startswith(f"tabletop serve: cannot open the database {db}: {card}")
    assert main(["pin", "reset", "--db", str(db)]) == 2
    err = one_line(capsys.readouterr().err)
    assert err.startswith(f"tabletop pin: cannot change the database {db}: {card}")

    assert main(["log", str(game_id), "--db", str(db)]) == 0
    assert capsys.readouterr().out == expected
    copy = tmp_path / "usb" / "copy.db"
    copy.parent.mkdir()
    assert main(["backup", "--db", str(db), "-o", str(copy)]) == 0
    assert "Backed up 1 game (1 event)" in capsys.readouterr().out
    assert main(["log", str(game_id), "--db", str(copy)]) == 0
    assert capsys.readouterr().out == expected


def test_ruling_log2_a_wal_holding_events_is_never_read_past(tmp_path, capsys):
    """Reading the file as it stands would leave out what its ``-wal`` holds (a server
    stopped by a power cut): then SQLite's error stands, no partial list is given."""
    db, game_id = played(tmp_path)
    log = EventLog(db)
    log._conn().execute("PRAGMA wal_autocheckpoint=0")
    log.append(game_id, Event("draw", seat=1))
    wal = Path(f"{db}-wal").read_bytes()
    log.close()  # the last connection: the -wal goes into the file and is removed
    Path(f"{db}-wal").write_bytes(wal)  # as after a power cut
    no_index_can_be_made(db)
    assert main(["log", str(game_id), "--db", str(db)]) == 2
    err = one_line(capsys.readouterr().err)
    assert err.startswith(f"tabletop log: cannot read the database {db}: ")


# -- the command line on a full disk ---------------------------------------------------


def test_ruling_log2_log_on_a_full_disk_reads_the_games(tmp_path):
    """Before: "cannot read the database: disk I/O error" (SQLite could not size the
    ``-shm`` index to read the WAL file), so the games could not be listed or kept."""
    db, game_id = played(tmp_path)
    run = tabletop("log", "--db", str(db), size=1)
    assert (run.returncode, run.stderr) == (0, ""), run.stderr
    assert run.stdout.split()[:2] == ["1", "deck-dash"]
    run = tabletop("log", str(game_id), "--db", str(db), size=1)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.splitlines()[1]) == DEAL


def test_ruling_log2_a_log_file_the_disk_cannot_hold_is_not_left_half_written(tmp_path):
    """``log -o FILE`` on a disk that fills while it writes: before, the first part of the
    log stayed in FILE, which then looked like a whole (shorter) game, and CLI-1 refused
    to write over it."""
    db, game_id = played(tmp_path)
    log = EventLog(db)
    for _ in range(150):
        log.append(game_id, Event("draw", seat=1, payload={"pad": "x" * 300}))
    log.close()
    out = tmp_path / "game.jsonl"
    run = tabletop("log", str(game_id), "--db", str(db), "-o", str(out), size=40_000)
    assert run.returncode == 2
    assert one_line(run.stderr).startswith(f"tabletop log: cannot write {out}: ")
    assert not out.exists()
