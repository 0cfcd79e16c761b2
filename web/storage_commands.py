"""``tabletop backup`` and ``tabletop restore``: the family's whole database copied out
safely while a server may be writing, and put back with the old one kept aside.

Light module, as ``web.commands``: SQLite is imported inside the handlers.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import sys
from pathlib import Path
from typing import Any

from referee.cli_args import nonempty_path
from web.commands import _config, _foreign_database, _storage_why


def _backup(args: argparse.Namespace) -> int:
    """``tabletop backup [-o FILE]``: a consistent copy of the whole database (every game, the
    settings), taken with SQLite's online backup so a running server may keep writing; an SD
    card that dies takes the family's history with it otherwise. Restore: ``tabletop restore
    FILE`` (``_restore``), or serve with ``--db FILE``; by hand, with no server running,
    delete the ``-wal`` and ``-shm`` files beside the database first, then copy FILE over it
    (SQLite would read a ``-wal`` left by a crash into the copied-back file as part of it).
    A database with damaged pages (a failing SD card) gives every game that can still be
    read, and names the rest (``web.storage_rescue``)."""
    import sqlite3
    import time

    cfg = _config(args, "backup")
    if cfg is None:
        return 2
    if not cfg.db_path.is_file():
        print(f"tabletop backup: no database at {cfg.db_path} (--db names one)", file=sys.stderr)
        return 2
    if args.output == "-":  # a database is a file, not a stream
        print("tabletop backup: -o names the file to write (a database), not -", file=sys.stderr)
        return 2
    out = Path(args.output or time.strftime("tabletop-backup-%Y%m%d-%H%M%S.db"))
    taken = _taken_by_another(out)
    if taken is not None:
        print(f"tabletop backup: {taken}: name another file", file=sys.stderr)
        return 2
    try:
        games, events = _copy_to_new_file(cfg.db_path, out, damaged=_unused(f"{out}.damaged"))
    except FileExistsError:  # made since the check above: another's, left as it is
        print(f"tabletop backup: {out} exists already: name another file", file=sys.stderr)
        return 2
    except DamagedCopy as exc:  # a failing SD card: save every game that can still be read
        from web.storage_rescue import save_what_reads

        return save_what_reads(cfg.db_path, out, exc)
    except (sqlite3.Error, OSError) as exc:
        why = _storage_why(exc, out)  # the copy's storage: the database's is read as it can be
        print(f"tabletop backup: cannot back up {cfg.db_path} to {out}: {why}", file=sys.stderr)
        return 2
    counts = f"{games} game{'s' * (games != 1)} ({events} event{'s' * (events != 1)})"
    print(f"Backed up {counts} from {cfg.db_path} to {out}")
    return 0


class DamagedCopy(Exception):
    """The copy fails SQLite's integrity check (``check``: what it says): pages of the
    database it was copied from are damaged (a failing SD card). ``kept``: where the copy,
    its pages as they were read, was kept."""

    def __init__(self, check: str) -> None:
        super().__init__(f"the copy fails its integrity check: {check}")
        self.check = check
        self.kept: Path | None = None


# The files SQLite keeps beside a database FILE: it reads FILE-wal (a rollback's
# FILE-journal) into FILE as part of it, and deletes them when it is done with FILE.
SQLITE_SIDE_FILES = ("-wal", "-shm", "-journal")
JOURNALS = ("-wal", "-journal")  # of those, the ones holding a database's content


def _side_files(path: Path) -> list[Path]:
    return [Path(f"{path}{suffix}") for suffix in SQLITE_SIDE_FILES]


def _taken_by_another(out: Path) -> str | None:
    """Why a backup may not be written to ``out`` (CLI-1), else None: a file (a link, even
    one to nothing) there, or SQLite's files of another database of that name, which a new
    copy would take in and then delete."""
    if os.path.lexists(out):
        return f"{out} exists already"
    for side in _side_files(out):
        if os.path.lexists(side):
            return f"{side} exists already (SQLite would take it for part of {out})"
    return None


def _copy_to_new_file(source: Path, out: Path, damaged: Path | None = None) -> tuple[int, int]:
    """``_copy_database`` into a file made here (FileExistsError: SQLite never writes into
    another's file). Whatever stops it, Ctrl-C too, leaves nothing: never half a backup that
    looks like one, nor its ``-wal``/``-shm``. A copy whole but for the pages damaged in
    ``source`` is moved to ``damaged`` where given (``DamagedCopy.kept``): the games that can
    still be read are read from it, not again from a failing card."""
    out.open("xb").close()
    try:
        return _copy_database(source, out)
    except DamagedCopy as exc:
        if damaged is not None and _moved(out, damaged):
            exc.kept = damaged
        _remove_copy(out)
        raise
    except BaseException:
        _remove_copy(out)
        raise


def _moved(path: Path, to: Path) -> bool:
    """Move the closed database ``path`` to ``to``, never over a file there (CLI-1)."""
    try:
        os.link(path, to)  # fails where a file has come since ``to`` was found free
    except FileExistsError:
        return False
    except OSError:  # no hard links (a FAT USB stick): checked free just before
        if _taken_by_another(to) is not None:
            return False
        try:
            os.rename(path, to)
        except OSError:
            return False
    return True


def _remove_copy(out: Path) -> None:
    """Remove a failed copy and the SQLite files it made (there were none before it: see
    ``_taken_by_another``); closed, nothing holds them. What cannot be removed stays."""
    for path in (out, *_side_files(out)):
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)


BACKUP_BUSY_S = 10.0  # how long ``tabletop backup`` waits for a database another program locked


def _copy_database(source: Path, target: Path) -> tuple[int, int]:
    """Copy with SQLite's backup API and check the copy; (games, events) it holds."""
    from referee.eventlog import open_existing

    # read as it stands where its storage is full or read-only (a failing SD card)
    src = _opened(lambda: open_existing(source, tidy=False, timeout=BACKUP_BUSY_S))
    try:
        return _copy_checked(src, target)
    finally:
        src.close()


def _give_up_when_busy(status: int, remaining: int, total: int) -> None:
    """A backup's progress: SQLite waited ``BACKUP_BUSY_S`` for the lock, and Python's
    ``backup()`` would retry forever."""
    import sqlite3

    if status in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        raise sqlite3.OperationalError(
            f"the database is locked: another program has held it for {BACKUP_BUSY_S:g} s; "
            "try again"
        )


# The event log's tables: a file without them is no Tabletop Referee database
LOG_TABLES = ("games", "players", "events")


def _copy_checked(src: Any, target: Path, *, to_serve: bool = False) -> tuple[int, int]:
    """Copy the open database ``src`` into ``target`` with SQLite's backup API; check the copy
    is whole and holds the event log's tables, ``to_serve`` with the columns the log reads
    (a backup keeps a file that fails that as it is: a restore is refused it);
    ``sqlite3.DatabaseError`` saying what is wrong else. (games, events) it holds."""
    import sqlite3

    from referee.eventlog import check_schema

    dst = sqlite3.connect(target)
    try:
        src.backup(dst, progress=_give_up_when_busy)
        _check_whole(dst)
        tables = {name for (name,) in dst.execute("SELECT name FROM sqlite_master")}
        _refuse_foreign(tables)
        if to_serve:
            check_schema(dst)
            if "web_referee_sessions" in tables:  # a tablet locked since must stay locked
                with dst:
                    dst.execute("DELETE FROM web_referee_sessions")
        (games,) = dst.execute("SELECT COUNT(*) FROM games").fetchone()
        (events,) = dst.execute("SELECT COUNT(*) FROM events").fetchone()
    finally:
        dst.close()
    return int(games), int(events)


# What SQLite says of a file whose pages are damaged (a failing SD card, a cut write)
DAMAGE_CODES = (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB


def _damage(exc: BaseException) -> bool:
    from referee.eventlog import primary_code

    return primary_code(exc) in DAMAGE_CODES


def _refuse_foreign(tables: set[str]) -> None:
    """DatabaseError where ``tables`` lack the event log's: another program's database."""
    import sqlite3

    missing = [table for table in LOG_TABLES if table not in tables]
    if missing:
        raise sqlite3.DatabaseError(
            f"not a Tabletop Referee database: it has no {', '.join(missing)} "
            f"table{'s' * (len(missing) > 1)}"
        )


def _check_whole(conn: Any) -> None:
    """SQLite's integrity check of the copy just made; ``DamagedCopy`` where it fails, or
    where the copy is too damaged even to be checked (it then says "malformed")."""
    import sqlite3

    try:
        (check,) = conn.execute("PRAGMA integrity_check").fetchone()
    except sqlite3.DatabaseError as exc:
        if not _damage(exc):  # a full disk, the -shm not made: no word on the pages
            raise
        check = str(exc)
    if check != "ok":
        raise DamagedCopy(" ".join(str(check).split()))  # its first problem, on one line


def _opened(connect: Any) -> Any:
    """``connect()``, a database another program has locked for ``BACKUP_BUSY_S`` said so."""
    import sqlite3

    from referee.eventlog import primary_code

    try:
        return connect()
    except sqlite3.OperationalError as exc:
        if primary_code(exc) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
            _give_up_when_busy(sqlite3.SQLITE_BUSY, 0, 0)
        raise


def _restore(args: argparse.Namespace) -> int:
    """``tabletop restore BACKUP``: put a backup back as the database. A plain copy over the
    file is no restore: SQLite reads a ``-wal`` left beside it (by a crash) into the copy,
    which then holds pages of two moments, or silently the newer games. So, with no server on
    the database: the backup is copied beside it and checked, the database as it was is kept
    aside (``<db>.before-restore-<stamp>``, one consistent file), its ``-wal``/``-shm`` go,
    and the checked copy takes its place in one rename."""
    import sqlite3

    cfg = _config(args, "restore")
    if cfg is None:
        return 2
    backup, db = Path(args.backup), cfg.db_path
    refused = _restore_refused(backup, db)
    if refused is not None:
        print(f"tabletop restore: {refused}", file=sys.stderr)
        return 2
    with contextlib.ExitStack() as taken:  # the server lock, given back on every way out
        if not _hold_for_restore(db, taken):
            return 2
        staged = _staging(db)
        counts = _stage_backup(backup, staged)
        if counts is None:
            return 2
        try:
            # the database's permissions stay (a service account may write through its group)
            before = db.stat() if db.exists() else None
            aside = _keep_aside(db.resolve())
            _put_in_place(staged, db.resolve(), before)
        except (sqlite3.Error, OSError) as exc:  # a full disk, a database locked meanwhile
            _remove_copy(staged)
            why = _storage_why(exc, db)
            print(f"tabletop restore: cannot restore {backup} to {db}: {why}", file=sys.stderr)
            return 2
    games, events = counts
    restored = f"{games} game{'s' * (games != 1)} ({events} event{'s' * (events != 1)})"
    print(f"Restored {restored} from {backup} to {db}; {_aside_said(aside)}")
    return 0


def _staging(db: Path) -> Path:
    """Where a restore copies and checks the backup: beside the database, one rename away."""
    return Path(f"{db.resolve()}.restoring")


def _restore_refused(backup: Path, db: Path) -> str | None:
    """Why ``backup`` cannot be restored to ``db``, said before anything is touched; else
    None."""
    if not backup.is_file():
        return f"no backup file at {backup}"
    if db.exists() and not db.is_file():
        return f"{db} is not a database file (--db names one)"
    if db.is_file() and os.path.samefile(backup, db):
        return f"{backup} is the database itself: nothing to restore"
    if backup.resolve() == _staging(db):
        return f"{backup} is where a restore copies the backup first: rename it, then restore it"
    if _foreign_database(db):  # as serve and pin reset: never over another program's file
        return f"{db} is another program's database, not a Tabletop Referee one"
    return None


def _hold_for_restore(db: Path, taken: contextlib.ExitStack) -> bool:
    """Take the server lock ``serve`` takes (web/server_lock.py), so no server runs on the
    database while it is replaced nor starts meanwhile; False after saying why not."""
    from web.server_lock import LockUnavailable, ServerRunning, hold

    try:
        handle = hold(db, holder="restore")
    except LockUnavailable as exc:  # a server may run unseen: never replace it under one
        print(f"tabletop restore: {exc}", file=sys.stderr)
        return False
    except ServerRunning as exc:
        why = (
            "stop it first (a server would go on writing over the restored games)"
            if exc.holder == "serve"
            else "wait until it is done"
        )
        print(
            f"tabletop restore: `tabletop {exc.holder}` (process {exc.pid}) is using the "
            f"database {db}: {why}",
            file=sys.stderr,
        )
        return False
    except OSError as exc:  # the lock file made but its line not written: a full disk
        print(f"tabletop restore: cannot restore to {db}: {_storage_why(exc, db)}", file=sys.stderr)
        return False
    if handle is not None:
        taken.callback(handle.close)
    return True


def _stage_backup(backup: Path, staged: Path) -> tuple[int, int] | None:
    """Copy ``backup`` to ``staged`` (beside the database: one rename puts it in place) and
    check it; (games, events), else None after saying why. A ``staged`` left by a restore
    that was stopped is removed first: no other restore runs (the server lock)."""
    import sqlite3

    from referee.eventlog import is_storage_error, open_existing

    _remove_copy(staged)
    try:
        staged.open("xb").close()
        try:  # read-write where it may be: no -wal/-shm left beside the backup
            src = _opened(lambda: open_existing(backup, timeout=BACKUP_BUSY_S))
            try:
                return _copy_checked(src, staged, to_serve=True)
            finally:
                src.close()
        except BaseException:
            _remove_copy(staged)
            raise
    except (sqlite3.DatabaseError, DamagedCopy) as exc:
        if not is_storage_error(exc) and "locked" not in str(exc):
            print(
                f"tabletop restore: {backup} is not a Tabletop Referee backup: {exc}",
                file=sys.stderr,
            )
            return None
        why = _storage_why(exc, staged)
    except (sqlite3.Error, OSError) as exc:
        why = _storage_why(exc, staged)
    print(f"tabletop restore: cannot restore {backup}: {why}", file=sys.stderr)
    return None


def _keep_aside(db: Path) -> tuple[Path, bool] | None:
    """Keep the database as it is before a restore, under a name no file has; (that name,
    whether it was moved as it was), None where there is no database. It is copied as
    ``backup`` copies (one file, its ``-wal`` folded in); one that cannot be read as a
    database (damaged: often why it is restored) is moved aside as it is, its SQLite files
    along (SQLite reads them together under any name)."""
    import sqlite3

    from referee.eventlog import is_storage_error

    if not db.exists():  # a -wal or -shm alone holds no game: ``_put_in_place`` drops it
        return None
    aside = _free_name(db)
    try:
        _copy_to_new_file(db, aside)
    except (sqlite3.DatabaseError, DamagedCopy) as exc:
        if is_storage_error(exc) or "locked" in str(exc):
            raise
    else:
        _same_owner(db.stat(), aside)  # every game, the PIN hash: as private as the database
        return aside, False
    for suffix in ("", *JOURNALS):  # the -shm is an index SQLite rebuilds: it goes
        if os.path.lexists(f"{db}{suffix}"):
            os.replace(f"{db}{suffix}", f"{aside}{suffix}")
    return aside, True


def _free_name(db: Path) -> Path:
    """``<db>.before-restore-<stamp>``, with a number after it where that is taken."""
    import time

    return _unused(f"{db}.before-restore-{time.strftime('%Y%m%d-%H%M%S')}")


def _unused(stem: str) -> Path:
    """``stem``, with a number after it where a file (or its SQLite files) has that name."""
    name, n = Path(stem), 1
    while _taken_by_another(name) is not None:
        n += 1
        name = Path(f"{stem}-{n}")
    return name


def _put_in_place(staged: Path, db: Path, before: os.stat_result | None = None) -> None:
    """Rename the checked copy over the database (with the permissions and group the
    database had, ``before``), and sync the folder so the rename outlives a power cut. The
    old database's ``-wal``/``-shm`` (kept aside with it) go first: stopped between the two,
    the database is an older state of itself, never its old ``-wal`` read into the restored
    file."""
    if before is not None:
        _same_owner(before, staged)
    for side in _side_files(db):
        side.unlink(missing_ok=True)
    os.replace(staged, db)
    for side in _side_files(staged):  # closed, SQLite removed them; none is left behind
        side.unlink(missing_ok=True)
    try:
        folder = os.open(db.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(folder)
    except OSError:  # a folder some file systems cannot sync: the rename stands
        pass
    finally:
        os.close(folder)


def _same_owner(st: os.stat_result, path: Path) -> None:
    """Give ``path`` the permissions ``st`` says and, where this process may (root), its
    owner and group: a service account may write the database through its group."""
    os.chmod(path, stat.S_IMODE(st.st_mode))
    with contextlib.suppress(OSError, AttributeError):  # not root, or no chown here
        os.chown(path, st.st_uid if os.geteuid() == 0 else -1, st.st_gid)


def _aside_said(aside: tuple[Path, bool] | None) -> str:
    """What became of the database a restore replaced, for its last line."""
    if aside is None:
        return "there was no database there before"
    path, moved = aside
    if not moved:
        return f"the database before it is kept as {path}"
    kept = [f"{path}{suffix}" for suffix in JOURNALS if os.path.lexists(f"{path}{suffix}")]
    return "the database before it could not be read and is kept as it was in " + " and ".join(
        (str(path), *kept)
    )


def add_storage_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "backup",
        help="copy the whole database (every game) to a file, safely",
        description="Copy the whole database (every game, the settings) to a file, safely, "
        "even while `tabletop serve` runs. Put one back with `tabletop restore FILE` (with the "
        "server stopped), never by copying it over the database. From a damaged database it "
        "copies every game it can still read, names the others and exits 1, keeping its pages "
        "as read in FILE.damaged.",
    )
    p.add_argument(
        "-o",
        "--output",
        type=nonempty_path,
        help="file to write (default tabletop-backup-DATE-TIME.db)",
    )
    p.add_argument(
        "--db", type=nonempty_path, help="SQLite file (default $TABLETOP_DB or var/tabletop.db)"
    )
    p.add_argument(
        "--config", type=nonempty_path, help="TOML config file (default tabletop.toml if present)"
    )
    p.set_defaults(handler=_backup)

    p = sub.add_parser(
        "restore",
        help="put a backup back as the database (stop serve first); the old one is kept aside",
    )
    p.add_argument("backup", type=nonempty_path, help="the file `tabletop backup` wrote")
    p.add_argument(
        "--db", type=nonempty_path, help="SQLite file (default $TABLETOP_DB or var/tabletop.db)"
    )
    p.add_argument(
        "--config", type=nonempty_path, help="TOML config file (default tabletop.toml if present)"
    )
    p.set_defaults(handler=_restore)
