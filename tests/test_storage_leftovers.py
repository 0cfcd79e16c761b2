"""What ``tabletop serve`` takes (the database's server lock, its connections, the pads,
waitress's sockets and threads) is given back on every way out, not left to the process's
exit or the garbage collector: a caller that runs ``serve`` in-process (the tests, a future
launcher) may serve the same database on the same port again at once.

No server runs for long: ``run`` returns at once, as in tests/test_cli_polish.py."""

from __future__ import annotations

import errno
import gc
import io
import os
import socket
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

import web.server_lock
from referee.cli import main
from referee.eventlog import EventLog, open_existing
from web.server_lock import hold, lock_path


class _Server:
    """waitress's server, bound to nothing: ``run`` returns at once (Ctrl-C at once)."""

    def run(self) -> None:
        return None


@pytest.fixture
def quiet(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The defaults (no tabletop.toml), no SIGTERM handler, the dashboard's virtual pads."""
    import web.commands

    monkeypatch.chdir(tmp_path)
    for name in ("TABLETOP_CONFIG", "TABLETOP_DB"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(web.commands, "_stop_on_sigterm", lambda: None)
    monkeypatch.setattr(web.commands, "_hardware_pads", lambda config: None)


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port another program listens on."""
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        other.listen()
        yield int(other.getsockname()[1])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _serve(db: Path, port: int) -> int:
    return main(["serve", "--db", str(db), "--port", str(port), "--no-camera-referee"])


def _served_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    import waitress

    monkeypatch.setattr(waitress, "create_server", lambda app, **kw: _Server())


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def _waitress_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("waitress-")]


def test_a_second_serve_after_one_that_cannot_listen_is_not_refused(
    tmp_path: Path,
    quiet: None,
    taken_port: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):
    """Before, the lock was released only when the lock file's object was collected: while
    anything still referred to it, the next serve was refused ("another `tabletop serve`")."""
    db = tmp_path / "t.db"
    handles: list[IO[str] | None] = []  # what a caller (a traceback, a debugger) may keep

    def kept(db_path: Path) -> IO[str] | None:
        handles.append(hold(db_path))
        return handles[-1]

    monkeypatch.setattr(web.server_lock, "hold", kept)
    assert _serve(db, taken_port) == 2
    assert "cannot listen on 127.0.0.1:" in capsys.readouterr().err
    assert handles and all(h is not None and h.closed for h in handles)
    _served_at_once(monkeypatch)
    assert _serve(db, taken_port) == 0
    assert "another `tabletop serve`" not in capsys.readouterr().err


def test_a_serve_that_cannot_listen_leaves_no_thread_socket_or_connection_open(
    tmp_path: Path, quiet: None, taken_port: int, capsys: pytest.CaptureFixture[str]
):
    """Before: waitress's 48 worker threads ran on, its socket and trigger stayed open, and
    the database's connections (its -wal and -shm beside it) until the collector found them."""
    db = tmp_path / "t.db"
    gc.collect()
    gc.disable()  # what is left open is left by serve, not closed by chance meanwhile
    try:
        before = _open_fds()
        assert _serve(db, taken_port) == 2
        left = _open_fds() - before
        threads = _waitress_threads()
    finally:
        gc.enable()
    assert "cannot listen" in capsys.readouterr().err
    assert threads == []
    assert {os.readlink(f"/proc/self/fd/{fd}") for fd in left if _is_open(fd)} == set()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.db", "t.db.serve.lock"]


def test_a_waitress_without_its_test_shim_still_says_the_port_is_taken(
    tmp_path: Path,
    quiet: None,
    taken_port: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):
    """``serve`` hands waitress its worker threads through ``_dispatcher``, a test shim of
    waitress 3.0.2; a waitress without it (pyproject asks only ``waitress>=3.0``) must
    still serve, and still say why it cannot listen, not "Unknown adjustment"."""
    import waitress
    from waitress.task import ThreadedTaskDispatcher

    real = waitress.create_server

    def without_shim(application: Any, map: Any = None, **kw: Any) -> Any:
        assert "_dispatcher" not in kw
        own = ThreadedTaskDispatcher()  # as such a waitress makes its own, but ended here
        own.set_thread_count(kw.get("threads", 4))
        try:
            return real(application, map=map, _dispatcher=own, **kw)
        except BaseException:
            own.shutdown(timeout=2)
            raise

    monkeypatch.setattr(waitress, "create_server", without_shim)
    assert _serve(tmp_path / "t.db", taken_port) == 2
    err = capsys.readouterr().err
    assert "cannot listen on 127.0.0.1:" in err and "in use" in err, err


def _is_open(fd: str) -> bool:
    try:
        os.readlink(f"/proc/self/fd/{fd}")
    except OSError:  # the listing's own descriptor, closed since
        return False
    return True


def test_a_serve_that_ended_gives_its_port_back(
    tmp_path: Path, quiet: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    """Ctrl-C ends waitress's loop, and before, its listening socket stayed open: a serve
    started again in the same process could not listen on the port."""
    import waitress

    real = waitress.create_server

    def ended_at_once(app: Any, **kw: Any) -> Any:
        server = real(app, **kw)
        server.run = lambda: None  # as waitress's run returns after Ctrl-C
        return server

    monkeypatch.setattr(waitress, "create_server", ended_at_once)
    port = _free_port()
    gc.disable()
    try:
        assert _serve(tmp_path / "t.db", port) == 0
        assert _serve(tmp_path / "t.db", port) == 0, capsys.readouterr().err
    finally:
        gc.enable()
    assert _waitress_threads() == []


class _Pads:
    """Hardware pads: their GPIO lines are held until ``close``."""

    closed = False

    def close(self) -> None:
        self.closed = True


def test_a_serve_whose_database_cannot_be_opened_gives_back_the_pads(
    tmp_path: Path, quiet: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    """Before, the pads (GPIO lines, the pin factory's threads) made before the database was
    opened stayed taken when it could not be."""
    import web.commands

    pads = _Pads()
    monkeypatch.setattr(web.commands, "_hardware_pads", lambda config: pads)
    folder = tmp_path / "a-folder.db"
    folder.mkdir()
    assert _serve(folder, _free_port()) == 2
    assert "cannot open the database" in capsys.readouterr().err
    assert pads.closed


class _FullDisk(io.FileIO):
    """A file on a full disk: it opens (and locks), but nothing written reaches it."""

    def write(self, data: Any) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def _on_a_full_disk(path: Path, mode: str, encoding: str) -> IO[str]:
    return io.TextIOWrapper(io.BufferedRandom(_FullDisk(path, mode)), encoding=encoding)


def test_a_lock_whose_line_cannot_be_written_is_given_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A full disk: the lock was taken, its process number could not be written. Before, the
    lock stayed held by the file that the error's traceback kept: a serve started again was
    told another server was running."""
    monkeypatch.setattr(web.server_lock, "open", _on_a_full_disk, raising=False)
    db = tmp_path / "t.db"
    with pytest.raises(OSError, match="No space left") as first:
        hold(db)
    with pytest.raises(OSError, match="No space left"):  # the same failure, not ServerRunning
        hold(db)
    assert first.value.errno == errno.ENOSPC
    monkeypatch.undo()  # room again: it is taken, and given back
    held = hold(db)
    assert held is not None and lock_path(db).read_text().strip() == str(os.getpid())
    held.close()


def _held_open(path: Path) -> list[str]:
    """This process's descriptors on ``path``."""
    fds = os.listdir("/proc/self/fd")
    return [fd for fd in fds if _is_open(fd) and os.readlink(f"/proc/self/fd/{fd}") == str(path)]


def test_an_event_log_refused_at_opening_leaves_its_file_closed(tmp_path: Path):
    """Another program's file (a games table without the log's columns) is refused. Before,
    the connection that read it stayed open for as long as the error's traceback was kept."""
    db = tmp_path / "theirs.db"
    theirs = sqlite3.connect(db)
    theirs.execute("CREATE TABLE games (id INTEGER PRIMARY KEY, name TEXT)")
    theirs.close()
    with pytest.raises(sqlite3.DatabaseError, match="not a Tabletop Referee event log") as refused:
        EventLog(db)
    assert refused.traceback and _held_open(db) == []


def test_a_file_that_is_no_database_is_left_closed_by_a_reader(tmp_path: Path):
    """``tabletop log`` and ``backup`` read through ``open_existing``: before, for a file that
    is no database the connection stayed open for as long as the error's traceback was kept."""
    text = tmp_path / "notes.db"
    text.write_text("not a database, but long enough for SQLite to read its header " * 4)
    with pytest.raises(sqlite3.DatabaseError, match="not a database") as refused:
        open_existing(text)
    assert refused.traceback and _held_open(text) == []
