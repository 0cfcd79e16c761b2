"""One ``tabletop serve`` per database (web/server_lock.py).

Before, a second server on the same file started as well: it printed a setup code that
replaced the first one's (the first server's code stopped working), and with a camera each
server logged every card it saw (two events per play)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from web.server_lock import ServerRunning, hold, lock_path

ROOT = Path(__file__).resolve().parents[1]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _serve(db: Path, port: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "serve", "--db", str(db), "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_until_serving(server: subprocess.Popen[str]) -> str:
    assert server.stdout is not None
    line = server.stdout.readline()
    assert "dashboard on http://" in line, (line, server.poll())
    return line


def test_a_second_server_on_the_same_database_is_refused(tmp_path: Path):
    db = tmp_path / "tabletop.db"
    first = _serve(db, _free_port())
    try:
        _wait_until_serving(first)
        second = _serve(db, _free_port())
        _, err = second.communicate(timeout=60)
        assert second.returncode == 2
        assert err.startswith("tabletop serve: another `tabletop serve` (process ")
        assert f"is using the database {db}" in err and len(err.strip().splitlines()) == 1
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)
    # stopped, it lets the next one start
    third = _serve(db, _free_port())
    try:
        _wait_until_serving(third)
    finally:
        third.send_signal(signal.SIGTERM)
        third.communicate(timeout=60)


def test_the_lock_goes_with_its_holder(tmp_path: Path):
    db = tmp_path / "t.db"
    held = hold(db)
    assert held is not None and lock_path(db).read_text().strip().isdigit()
    with pytest.raises(ServerRunning, match="another `tabletop serve`"):
        hold(db)
    held.close()
    again = hold(db)
    assert again is not None
    again.close()
