"""One ``tabletop serve`` per database.

A second server on the same file would print a setup code that replaces the first one's,
log every card its camera sees a second time, and find the pads' GPIO lines taken. The
first server holds an advisory lock (``flock``) on ``<database>.serve.lock`` for as long as
it runs; the kernel drops it when the process ends, however it ends, so a crash leaves
nothing to clean up. ``tabletop restore`` takes the same lock while it replaces the file.

The file names its holder, for the refusal to name it: the process number, then the command
where it is not ``serve`` ("4242 restore"); a number alone (as every version wrote) is a
server.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO

SERVE = "serve"


class ServerRunning(RuntimeError):
    """Another server (or a restore: ``holder``) holds the database."""

    def __init__(self, message: str, pid: str = "?", holder: str = SERVE) -> None:
        super().__init__(message)
        self.pid = pid  # as the lock file says it; "?" where it says nothing readable
        self.holder = holder  # the command: "serve", "restore"


def lock_path(db_path: Path) -> Path:
    """Beside the database file itself: a path through a link names the same lock."""
    real = db_path.resolve()
    return real.with_name(real.name + ".serve.lock")


def hold(db_path: Path, holder: str = SERVE) -> IO[str] | None:
    """Take the database's server lock for the command ``holder``, kept until the returned
    file is closed (or the process ends). None where no lock can be taken (no ``fcntl``, or
    no place for the file: opening the database then says what is wrong)."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system: one server is the family's to keep to
        return None
    path = lock_path(db_path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "a+", encoding="ascii")  # noqa: SIM115 - held for the process
    except OSError:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pid, other = _holder(handle)
        handle.close()
        raise ServerRunning(_refusal(db_path, pid, other), pid, other) from None
    try:
        handle.truncate(0)
        handle.write(f"{os.getpid()}\n" if holder == SERVE else f"{os.getpid()} {holder}\n")
        handle.flush()
    except OSError:  # a full disk: give the lock back now, not when the file is collected
        with contextlib.suppress(OSError):  # its flush fails again; the file closes anyway
            handle.close()
        raise
    return handle


def _holder(handle: IO[str]) -> tuple[str, str]:
    """(process number, command) as the held lock file says; "?" and "serve" for what it
    does not say (a file just made, an old one with the number alone)."""
    try:
        handle.seek(0)
        fields = handle.read().split()
    except (OSError, ValueError):  # not ASCII: not a file this module wrote
        fields = []
    pid = fields[0] if fields and fields[0].isdigit() else "?"
    holder = fields[1] if len(fields) > 1 and fields[1].isalpha() else SERVE
    return pid, holder


def _refusal(db_path: Path, pid: str, holder: str) -> str:
    """Why this server cannot start, naming what holds the database."""
    if holder == SERVE:
        return (
            f"another `tabletop serve` (process {pid}) is using the database {db_path}: "
            "stop it first, or give this one its own --db"
        )
    return (
        f"`tabletop {holder}` (process {pid}) is using the database {db_path}: "
        "start again once it is done, or give this one its own --db"
    )
