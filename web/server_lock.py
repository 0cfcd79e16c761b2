"""One ``tabletop serve`` per database.

A second server on the same file would print a setup code that replaces the first one's,
log every card its camera sees a second time, and find the pads' GPIO lines taken. The
first server holds an advisory lock (``flock``) on ``<database>.serve.lock`` for as long as
it runs; the kernel drops it when the process ends, however it ends, so a crash leaves
nothing to clean up.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO


class ServerRunning(RuntimeError):
    """Another server holds the database."""


def lock_path(db_path: Path) -> Path:
    """Beside the database file itself: a path through a link names the same lock."""
    real = db_path.resolve()
    return real.with_name(real.name + ".serve.lock")


def hold(db_path: Path) -> IO[str] | None:
    """Take the database's server lock, kept until the returned file is closed (or the
    process ends). None where no lock can be taken (no ``fcntl``, or no place for the file:
    opening the database then says what is wrong)."""
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
        handle.seek(0)
        pid = handle.read().strip() or "?"
        handle.close()
        raise ServerRunning(
            f"another `tabletop serve` (process {pid}) is using the database {db_path}: "
            "stop it first, or give this one its own --db"
        ) from None
    try:
        handle.truncate(0)
        handle.write(f"{os.getpid()}\n")
        handle.flush()
    except OSError:  # a full disk: give the lock back now, not when the file is collected
        with contextlib.suppress(OSError):  # its flush fails again; the file closes anyway
            handle.close()
        raise
    return handle
