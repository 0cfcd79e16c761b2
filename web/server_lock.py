"""One ``tabletop serve`` per database.

A second server on the same file would print a setup code that replaces the first one's,
log every card its camera sees a second time, and find the pads' GPIO lines taken. The
first server holds an advisory lock (``flock``) on ``<database>.serve.lock`` for as long as
it runs; the kernel drops it when the process ends, however it ends, so a crash leaves
nothing to clean up. ``tabletop restore`` takes the same lock while it replaces the file.

The file names its holder, for the refusal to name it: the process number, then the command
where it is not ``serve`` ("4242 restore"); a number alone (as every version wrote) is a
server. A lock file this user may not write (left root's by one ``sudo tabletop serve``) is
locked all the same, read-only (``flock`` needs no write access), its line left as it was;
one it may not even open is a refusal, never a server or a restore without the lock.
"""

from __future__ import annotations

import contextlib
import errno
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


class LockUnavailable(ServerRunning):
    """The lock file is there (or its folder takes no new file) but this user may not open
    it: whether another server holds the database cannot be told, so it is refused as if one
    did (before, the command ran with no lock at all: two servers, a restore under one)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, holder="?")


def lock_path(db_path: Path) -> Path:
    """Beside the database file itself: a path through a link names the same lock."""
    real = db_path.resolve()
    return real.with_name(real.name + ".serve.lock")


def hold(db_path: Path, holder: str = SERVE) -> IO[str] | None:
    """Take the database's server lock for the command ``holder``, kept until the returned
    file is closed (or the process ends). None where no lock is needed or can be had: no
    ``fcntl``, no folder for the file, or read-only storage (no server can write there;
    opening the database then says what is wrong). ``LockUnavailable`` where the file may
    not be opened (another user's), ``ServerRunning`` where another command holds it."""
    try:
        import fcntl
    except ImportError:  # not a POSIX system: one server is the family's to keep to
        return None
    path = lock_path(db_path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    handle = _open_lock(path)
    if handle is None:
        return None
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        pid, other = _holder(handle)
        handle.close()
        raise ServerRunning(_refusal(db_path, pid, other), pid, other) from None
    if handle.writable():  # read-only: locked all the same, the old line stays
        _write_holder(handle, holder)
    return handle


# The storage refused the file (read-only, full, failing): ``serve`` cannot write the database
# there either, and opening it says so better than the lock could
_STORAGE_ERRNOS = frozenset({errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EIO})


def _open_lock(path: Path) -> IO[str] | None:
    """The lock file, to write where this user may, else to read (enough for ``flock``);
    None where the storage refuses it; ``LockUnavailable`` where it may be neither."""
    try:
        return open(path, "a+", encoding="ascii")  # held for the process: closed by the caller
    except OSError as exc:
        refused = exc
    try:
        return open(path, encoding="ascii")
    except OSError:
        if refused.errno in _STORAGE_ERRNOS:
            return None
        raise LockUnavailable(_unavailable(path, refused)) from None


def _write_holder(handle: IO[str], holder: str) -> None:
    """Name the holder in the lock file, for a refused command to name it."""
    try:
        handle.truncate(0)
        handle.write(f"{os.getpid()}\n" if holder == SERVE else f"{os.getpid()} {holder}\n")
        handle.flush()
    except OSError:  # a full disk: give the lock back now, not when the file is collected
        with contextlib.suppress(OSError):  # its flush fails again; the file closes anyway
            handle.close()
        raise


def _unavailable(path: Path, exc: OSError) -> str:
    """Why no lock can be taken on ``path``, and what to do, in one line."""
    why = f"cannot take the server lock {path}: {exc.strerror or exc}"
    if not isinstance(exc, PermissionError):  # a folder in its place, say
        return f"{why}: give this one its own --db"
    if path.exists():  # another user's (a ``sudo tabletop serve``): only it may remove it
        return (
            f"{why} (another user made it, e.g. `sudo tabletop serve`): once no server runs "
            "on the database, remove it as that user, or give this one its own --db"
        )
    return f"{why} (this user may not make files in {path.parent}): give this one its own --db"


def _holder(handle: IO[str]) -> tuple[str, str]:
    """(process number, command) as the held lock file says; "?" and "serve" for what it
    does not say (a file just made, an old one with the number alone) or names a process
    gone (a holder that could not write the file left an earlier one's line)."""
    try:
        handle.seek(0)
        fields = handle.read().split()
    except (OSError, ValueError):  # not ASCII: not a file this module wrote
        fields = []
    pid = fields[0] if fields and fields[0].isdigit() and _running(fields[0]) else "?"
    holder = fields[1] if len(fields) > 1 and fields[1].isalpha() else SERVE
    return pid, holder


def _running(pid: str) -> bool:
    """Whether process ``pid`` exists (another user's too): never name one gone, to be
    stopped in its place."""
    try:
        os.kill(int(pid), 0)
    except (ProcessLookupError, OverflowError):  # gone, or no process number at all
        return False
    except OSError:  # another user's (EPERM): it runs
        return True
    return True


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
