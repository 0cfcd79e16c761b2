"""``tabletop serve``: the dashboard on the LAN, served by waitress (never Flask's debug server).

Light module: Flask, OpenCV and waitress are imported inside the handler.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import sys
from pathlib import Path
from typing import Any

from referee.cli_args import (
    CARD_SCALE_HELP,
    card_scale,
    nonempty_path,
    port,
    positive_int,
    server_threads,
)

FROM_CONFIG = object()  # an option not given: the config file (or the default) decides


def _config(args: argparse.Namespace, command: str) -> Any:
    """The dashboard's settings: the config file (``--config``, else ``$TABLETOP_CONFIG``,
    else ./tabletop.toml, as the ``[hardware]`` section is found) or the defaults, then
    ``--db`` or ``$TABLETOP_DB``; None after naming what is wrong with the file. A file
    named by ``--config`` or ``$TABLETOP_CONFIG`` must exist: a typo in a service unit
    would otherwise run on the defaults (another database, the default pin map)."""
    from web.config import DEFAULT_CONFIG, ConfigError, WebConfig, load_file

    cfg = WebConfig()
    from_env = os.environ.get("TABLETOP_CONFIG")
    config_path = Path(args.config or from_env or DEFAULT_CONFIG)
    read = bool(args.config) or config_path.exists()
    if not args.config and from_env and not config_path.exists():  # as --config: a slip
        missing = f"TABLETOP_CONFIG names {config_path}: no such config file"
        if command == "serve" or not args.db:
            print(f"tabletop {command}: {missing}", file=sys.stderr)
            return None
        # a backup, log or PIN reset of the database --db names needs nothing else from the
        # file: a nightly backup sharing the service's environment goes on, and says so
        print(f"tabletop {command}: {missing} (not needed with --db)", file=sys.stderr)
    try:
        if read:
            cfg = load_file(config_path, cfg)
    except ConfigError as exc:
        print(f"tabletop {command}: {exc}", file=sys.stderr)
        return None
    if args.db:
        cfg.db_path = Path(args.db)
    elif "TABLETOP_DB" in os.environ:
        if not os.environ["TABLETOP_DB"]:  # as --db "": a slip, not the default (nor ".")
            print(
                f"tabletop {command}: TABLETOP_DB is empty: name the database file, or unset it",
                file=sys.stderr,
            )
            return None
        cfg.db_path = Path(os.environ["TABLETOP_DB"])
    return cfg


def _serve(args: argparse.Namespace) -> int:
    cfg = _config(args, "serve")
    if cfg is None:
        return 2
    if args.host:
        cfg.host = args.host
    if args.port:
        cfg.port = args.port
    if args.camera:
        cfg.camera = args.camera
    if args.threads:
        cfg.threads = args.threads
    if args.no_camera_referee:
        cfg.camera_referee = False
    if args.models:
        cfg.models_dir = args.models
    if args.card_scale is not FROM_CONFIG:
        cfg.card_scale = args.card_scale
    if cfg.max_streams > cfg.threads - 8:
        cfg.max_streams = max(1, cfg.threads - 8)  # keep 8 threads free for pages

    if _foreign_database(cfg.db_path):  # as pin reset: never add tables to another's file
        print(
            f"tabletop serve: {cfg.db_path} is another program's database, not a Tabletop "
            "Referee one (--db names a new file or one the referee made)",
            file=sys.stderr,
        )
        return 2

    with contextlib.ExitStack() as taken:  # given back on every way out, the lock last
        if not _hold_database(cfg.db_path, taken):
            return 2
        try:
            cfg.pads = _hardware_pads(args.config)
        except PadsRefused as exc:  # a pin map or GPIO the table cannot use: no dead pads
            print(f"tabletop serve: {exc}", file=sys.stderr)
            return 2
        _seat_every_player(cfg.pads, cfg.seats)
        taken.callback(_close_pads, cfg.pads)
        app = _open_app(cfg)
        if app is None:
            return 2
        services = app.extensions["tabletop"]
        taken.callback(_close_database, services)
        # the camera, the pads, the timers (the streams were ended before waitress's threads
        # were waited for, ``_workers``); before the sockets and the lock
        taken.callback(_close, services)
        server = _listen(app, cfg, taken)
        if server is None:
            return 2
        _announce(cfg, services)
        _stop_on_sigterm()
        server.run()
    return 0


def _hold_database(db_path: Path, taken: contextlib.ExitStack) -> bool:
    """Take the database's server lock (web/server_lock.py), before the pads and the
    database are touched, released when ``taken`` closes; False after saying why not."""
    from web.server_lock import ServerRunning, hold

    try:
        server_lock = hold(db_path)
    except ServerRunning as exc:
        print(f"tabletop serve: {exc}", file=sys.stderr)
        return False
    except OSError as exc:  # the lock file made but its line not written: a full disk
        print(
            f"tabletop serve: cannot start on the database {db_path}: {_storage_why(exc, db_path)}",
            file=sys.stderr,
        )
        return False
    if server_lock is not None:
        taken.callback(server_lock.close)  # the next server may start
    return True


def _open_app(cfg: Any) -> Any | None:
    """The dashboard's Flask app on the database; None after saying why it cannot open."""
    import sqlite3

    from web.app import create_app

    try:
        return create_app(cfg)
    except (sqlite3.Error, OSError) as exc:  # a folder, no database, no permission, no place
        # a database it cannot write (read-only, full) too: a referee that stores nothing
        # would show plays that a restart forgets (LOG-2)
        why = _storage_why(exc, cfg.db_path)
        print(f"tabletop serve: cannot open the database {cfg.db_path}: {why}", file=sys.stderr)
        return None


def _listen(app: Any, cfg: Any, taken: contextlib.ExitStack) -> Any | None:
    """waitress's server, bound before anything starts so a port in use is one clear line;
    None after that line. Its sockets (and trigger) and worker threads are given back when
    ``taken`` closes: waitress's own ``run`` ends the threads only, and a failed bind
    neither (its map and its dispatcher are passed in to be reachable)."""
    import inspect
    import logging

    import waitress
    from waitress import wasyncore

    logging.basicConfig()  # waitress logs its warnings (as waitress.serve would set up)
    sockets: dict[int, Any] = {}
    # ``_dispatcher`` is waitress's test shim (3.0.2, pinned in models/constraints.txt); a
    # waitress without it makes its own, whose threads a failed bind leaves to the exit
    shim = "_dispatcher" in inspect.signature(waitress.create_server).parameters
    # no thread until the port is bound
    workers = _workers(app.extensions["tabletop"]) if shim else None
    taken.callback(wasyncore.close_all, sockets)
    try:
        server = waitress.create_server(
            app,
            map=sockets,
            **({"_dispatcher": workers} if workers is not None else {}),
            host=cfg.host,
            port=cfg.port,
            threads=cfg.threads,
            connection_limit=max(100, cfg.threads * 4),
            channel_timeout=60,
            ident="tabletop",
        )
    except (OSError, ValueError) as exc:  # in use, not this machine's, a name that is nothing
        why = getattr(exc, "strerror", None) or exc
        print(f"tabletop serve: cannot listen on {cfg.host}:{cfg.port}: {why}", file=sys.stderr)
        return None
    if workers is not None:
        workers.set_thread_count(cfg.threads)  # as create_server does with its own dispatcher
    dispatcher = workers if workers is not None else getattr(server, "task_dispatcher", None)
    if dispatcher is not None:
        taken.callback(dispatcher.shutdown, timeout=2.0)
    return server


def _workers(services: Any) -> Any:
    """waitress's worker threads, which end the live streams as they are shut down: Ctrl-C
    and SIGTERM end waitress's loop, which then waits up to 5 s for its threads, and a
    tablet's open stream (SSE, MJPEG) holds one until it is told to end, so a stop took 8 s
    and a restart meanwhile found the database still held."""
    from waitress.task import ThreadedTaskDispatcher

    class Workers(ThreadedTaskDispatcher):
        def shutdown(self, cancel_pending: bool = True, timeout: float = 5) -> bool:
            services.hub.close()  # the streams finish, their threads with them
            return super().shutdown(cancel_pending, timeout)

    return Workers()


def _announce(cfg: Any, services: Any) -> None:
    """Say where the dashboard is (and the setup code while no PIN is set); start the camera
    referee when it referees."""
    if services.referee is not None:  # a camera: say now if it will read no card
        _warn_without_models(cfg.models_dir)
    shown = tablet_host(cfg.host)
    print(f"Tabletop Referee dashboard on http://{shown}:{cfg.port}/  (database {cfg.db_path})")
    print(f"Pads: {_pads_in_use(cfg.pads)}")
    if not services.settings.pin_is_set:
        print(
            f"No referee PIN yet. On the tablet open http://{shown}:{cfg.port}/pin/setup and "
            f"enter setup code {services.settings.setup_code}"
        )
    referee = services.referee
    if referee is not None:
        if referee.enabled:
            referee.start()
            print("The camera referees the running game (turn off: --no-camera-referee).")
        else:
            print("Camera refereeing is off; turn it on from the Live page.")
    sys.stdout.flush()


def _pads_in_use(pads: object | None) -> str:
    """Which pads the dashboard runs on: the family learns at start-up that the table's real
    pads are not in use (virtual pads look the same on the tablet until one is slapped)."""
    describe = getattr(getattr(pads, "table", None), "describe", None)
    if callable(describe):
        return str(describe())
    return "virtual pads (tap them on the dashboard): the table's pads are not in use"


def _warn_without_models(models_dir: str | None) -> None:
    """One line when the camera referee's card models are not there: serve goes on (the
    camera still shows), but the family learns it now, not when the first card played is
    not seen."""
    from vision.runtime.reader import COLOR, DETECTOR, MODELS_DIR, SYMBOL

    folder = Path(models_dir) if models_dir else MODELS_DIR
    missing = [name for name in (DETECTOR, SYMBOL, COLOR) if not (folder / name).is_file()]
    if missing:
        what = "card models" if len(missing) == 3 else " or ".join(missing)
        print(
            f"tabletop serve: no {what} in {folder}: the camera will not read cards",
            file=sys.stderr,
        )


def tablet_host(host: str) -> str:
    """The address a tablet on the same network types for a server bound to ``host``.

    Bound to every interface, the server's own name ``localhost`` is no use to a tablet: name
    the address this machine reaches its network from (a UDP socket's route; no packet is
    sent, nothing needs the internet), or ``localhost`` on a machine with no network."""
    if host not in ("0.0.0.0", "::", ""):
        return host
    import socket

    family = socket.AF_INET6 if host == "::" else socket.AF_INET
    probe = ("fd00::1", 9) if family == socket.AF_INET6 else ("10.254.254.254", 9)
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect(probe)
            address = s.getsockname()[0]
    except OSError:
        return "localhost"
    if address.startswith("127.") or address in ("::1", "0.0.0.0", "::"):
        return "localhost"
    return f"[{address}]" if ":" in address else address


def _storage_why(exc: BaseException, path: Path) -> str:
    """What stopped a command on the database ``path``: for a reason of its storage (full,
    read-only, an I/O error: ``referee.eventlog.storage_problem``) one line saying what to do;
    else what SQLite or the system said."""
    import sqlite3

    from referee.eventlog import is_storage_error, storage_problem, storage_state

    if isinstance(exc, sqlite3.Error):
        return storage_problem(exc, path) if is_storage_error(exc) else str(exc)
    state = storage_state(path)
    if isinstance(exc, OSError) and state is not None:
        return storage_problem(sqlite3.OperationalError(f"the storage is {state}"), path)
    return str(getattr(exc, "strerror", None) or exc)


def _log(args: argparse.Namespace) -> int:
    """``tabletop log [GAME_ID]``: a dashboard game as the JSON-lines log ``tabletop replay``
    reads (to keep a game, share it, or replay it elsewhere); without a number, the games the
    database holds (exit 1 when one of them cannot be read: it is listed, and why is said)."""
    import sqlite3

    from referee.eventlog import EventLog, LogError

    cfg = _config(args, "log")
    if cfg is None:
        return 2
    if not cfg.db_path.is_file():  # never create an empty database by asking what it holds
        print(f"tabletop log: no database at {cfg.db_path} (--db names one)", file=sys.stderr)
        return 2
    if args.game_id is None and args.output not in (None, "-"):
        print(
            "tabletop log: -o writes one game: name it (tabletop log lists them)", file=sys.stderr
        )
        return 2
    if args.game_id is not None and args.game_id > SQLITE_MAX_INT:  # no game has it
        print(f"tabletop log: no game {args.game_id} in {cfg.db_path}", file=sys.stderr)
        return 2
    log = EventLog(cfg.db_path, read_only=True)
    try:
        if args.game_id is None:
            return _list_games(log.games(), cfg.db_path)
        text = "".join(line + "\n" for line in log.log_lines(args.game_id))
    except LogError as exc:
        print(f"tabletop log: {exc} in {cfg.db_path}", file=sys.stderr)
        return 2
    except sqlite3.Error as exc:  # not a database, no permission
        why = _storage_why(exc, cfg.db_path)
        print(f"tabletop log: cannot read the database {cfg.db_path}: {why}", file=sys.stderr)
        return 2
    finally:
        log.close()  # the last connection to a WAL file tidies its -wal/-shm away
    if args.output in (None, "-"):
        sys.stdout.write(_printable(text))
        return 0
    out = Path(args.output)
    if out.is_file():  # as backup: never over a file (a folder: "cannot write" below)
        print(f"tabletop log: {out} exists already: name another file", file=sys.stderr)
        return 2
    made = not out.exists()  # else a device, a pipe, a folder (its own error)
    try:
        file = out.open("x" if made else "w", encoding="utf-8")
    except OSError as exc:
        print(
            f"tabletop log: cannot write {args.output}: {_storage_why(exc, out)}", file=sys.stderr
        )
        return 2
    try:
        with file:
            file.write(text)
            file.flush()
            if made:  # on the card before "done", as a backup's copy (a pipe has no sync)
                os.fsync(file.fileno())
    except OSError as exc:  # a full disk: never half a log that looks like a whole one
        if made:  # made here ("x"), so no one else's file
            out.unlink(missing_ok=True)
        print(
            f"tabletop log: cannot write {args.output}: {_storage_why(exc, out)}", file=sys.stderr
        )
        return 2
    return 0


SQLITE_MAX_INT = 2**63 - 1  # the largest game number SQLite can hold


def _list_games(games: list[Any], db_path: Path) -> int:
    """``tabletop log``'s list, one game a line; a game whose row cannot all be read is listed
    as ``unreadable`` and why is said on stderr: 1 then (the others are listed), else 0."""
    import time

    code = 0
    for g in games:
        if "created_at" in g.unreadable:
            started = "?"
        else:
            started = time.strftime("%Y-%m-%d %H:%M", time.localtime(g.created_at))
        state = "running" if g.ended_at is None else "ended"
        if g.error is not None:
            state = "unreadable"
            print(f"tabletop log: {g.error} in {db_path}", file=sys.stderr)
            code = 1
        line = f"{g.id:>5}  {g.game:<13} {started:<16}  {state:<8} {', '.join(g.players)}"
        print(_printable(line))
    return code


def _printable(text: str) -> str:
    """``text`` as standard output can take it: a terminal or file in another encoding than
    UTF-8 (LANG=C on an old system, ``PYTHONIOENCODING=latin-1``) gets a name it cannot show
    ("Zoë" in ASCII) escaped (``Zo\\xeb``), not a traceback."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError:
        return text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:  # an encoding Python does not know: it will say so when writing
        pass
    return text


def _backup(args: argparse.Namespace) -> int:
    """``tabletop backup [-o FILE]``: a consistent copy of the whole database (every game, the
    settings), taken with SQLite's online backup so a running server may keep writing; an SD
    card that dies takes the family's history with it otherwise. Restore: ``tabletop restore
    FILE`` (``_restore``), or serve with ``--db FILE``; by hand, with no server running,
    delete the ``-wal`` and ``-shm`` files beside the database first, then copy FILE over it
    (SQLite would read a ``-wal`` left by a crash into the copied-back file as part of it)."""
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
        games, events = _copy_to_new_file(cfg.db_path, out)
    except FileExistsError:  # made since the check above: another's, left as it is
        print(f"tabletop backup: {out} exists already: name another file", file=sys.stderr)
        return 2
    except (sqlite3.Error, OSError) as exc:
        why = _storage_why(exc, out)  # the copy's storage: the database's is read as it can be
        print(f"tabletop backup: cannot back up {cfg.db_path} to {out}: {why}", file=sys.stderr)
        return 2
    counts = f"{games} game{'s' * (games != 1)} ({events} event{'s' * (events != 1)})"
    print(f"Backed up {counts} from {cfg.db_path} to {out}")
    return 0


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


def _copy_to_new_file(source: Path, out: Path) -> tuple[int, int]:
    """``_copy_database`` into a file made here (FileExistsError: SQLite never writes into
    another's file). Whatever stops it, Ctrl-C too, leaves nothing: never half a backup that
    looks like one, nor its ``-wal``/``-shm``."""
    out.open("xb").close()
    try:
        return _copy_database(source, out)
    except BaseException:
        _remove_copy(out)
        raise


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
        (check,) = dst.execute("PRAGMA integrity_check").fetchone()
        if check != "ok":
            raise sqlite3.DatabaseError(f"the copy fails its integrity check: {check}")
        tables = {name for (name,) in dst.execute("SELECT name FROM sqlite_master")}
        missing = [table for table in LOG_TABLES if table not in tables]
        if missing:
            raise sqlite3.DatabaseError(
                f"not a Tabletop Referee database: it has no {', '.join(missing)} "
                f"table{'s' * (len(missing) > 1)}"
            )
        if to_serve:
            check_schema(dst)
        (games,) = dst.execute("SELECT COUNT(*) FROM games").fetchone()
        (events,) = dst.execute("SELECT COUNT(*) FROM events").fetchone()
    finally:
        dst.close()
    return int(games), int(events)


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
    from web.server_lock import ServerRunning, hold

    try:
        handle = hold(db, holder="restore")
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
    except sqlite3.DatabaseError as exc:
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
    except sqlite3.DatabaseError as exc:
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

    stem = f"{db}.before-restore-{time.strftime('%Y%m%d-%H%M%S')}"
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


def _holds_games(db_path: Path) -> bool:
    """Whether the file has the event log's games table (read-only: nothing is written)."""
    import sqlite3

    conn = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
    try:
        row = conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'games'"
        ).fetchone()
    finally:
        conn.close()
    return row is not None


def _foreign_database(db_path: Path) -> bool:
    """Whether the file is an SQLite database with tables, none of them one the referee makes
    first (the settings', the event log's games). A new or empty file, or one that is no
    database at all, is not: serving starts it, or names what is wrong with it."""
    import sqlite3

    if not db_path.is_file():
        return False
    try:
        conn = sqlite3.connect(f"{db_path.resolve().as_uri()}?mode=ro", uri=True, timeout=10)
        try:
            tables = {
                name
                for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        finally:
            conn.close()
    except sqlite3.Error:
        return False
    return bool(tables) and not tables & {"games", "web_settings"}


def _pin(args: argparse.Namespace) -> int:
    """``tabletop pin reset``: forget a referee PIN the family forgot. Only someone at the Pi
    (who can run this) may; the tablet then chooses a new PIN with the setup code printed,
    which a running server takes at once (it reads the code from the database)."""
    import sqlite3

    from web.services.settings import Settings

    cfg = _config(args, "pin")
    if cfg is None:
        return 2
    if not cfg.db_path.is_file():  # nothing to reset: never create a database here
        print(f"tabletop pin: no database at {cfg.db_path} (--db names one)", file=sys.stderr)
        return 2
    try:
        if not _holds_games(cfg.db_path):  # another program's file: never add tables to it
            print(
                f"tabletop pin: {cfg.db_path} is not a Tabletop Referee database (no games table)",
                file=sys.stderr,
            )
            return 2
        settings = Settings(cfg.db_path)
        code = settings.clear_pin()
        settings.close()
    except sqlite3.Error as exc:  # locked, read-only, not this program's file
        why = _storage_why(exc, cfg.db_path)
        print(f"tabletop pin: cannot change the database {cfg.db_path}: {why}", file=sys.stderr)
        return 2
    print(
        "The referee PIN is cleared and every tablet is locked. On the tablet open /pin/setup "
        f"and enter setup code {code} to choose a new PIN."
    )
    return 0


def _close(services: Any) -> None:
    """End the streams, the camera referee's thread, the camera and the pads (their GPIO
    lines and the pin factory's threads are released now, not left to process exit)."""
    services.end_streams(timeout=2.0)
    if services.referee is not None:
        services.referee.stop()
    if services.camera is not None:
        services.camera.close()
    lights = getattr(services, "lights", None)
    if lights is not None:
        lights.off()  # a stopped referee leaves no seat lit
    _close_pads(services.pads)


def _close_pads(pads: object | None) -> None:
    """Release the hardware pads (safe twice); the dashboard's VirtualPads hold nothing."""
    close = getattr(pads, "close", None)
    if callable(close):
        close()


def _close_database(services: Any) -> None:
    """Close this thread's connections to the database, where the app was made: the last
    one tidies its -wal and -shm away now, not when the collector finds the app."""
    services.games.log.close()
    services.settings.close()


def _stop_on_sigterm() -> None:
    """``systemctl stop`` sends SIGTERM: end waitress's loop as Ctrl-C does, so the camera
    referee's thread and the camera are closed (the ``finally`` in ``_serve``)."""
    import contextlib
    import signal

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(0)

    with contextlib.suppress(ValueError):  # not the main thread (embedded): leave it alone
        signal.signal(signal.SIGTERM, stop)


def _seat_every_player(pads: object | None, seats: int) -> None:
    """Virtual pads for every seat below ``seats`` (``[web] seats``): the default pin map
    wires 6 seats, DOS and Deck Dash seat 8. Real pads stay the ones wired."""
    grow = getattr(pads, "grow", None)
    if not callable(grow):
        return
    try:
        grow(seats)
    except Exception as exc:  # extra virtual seats only: say so, keep serving the map's seats
        print(
            f"tabletop serve: no virtual pads beyond the pin map's seats ({exc})", file=sys.stderr
        )


class PadsRefused(Exception):
    """The table's pads cannot be used as the config asks (a pin-map error, a GPIO that
    cannot be opened): ``serve`` stops with this one line."""


def _hardware_pads(config: str | None) -> object | None:
    """The hardware package's pads: GPIO, or virtual where the config asks for them (mode
    virtual) or mode auto finds no gpiochip at all. A bad pin map or a GPIO this user cannot
    open raises PadsRefused: virtual pads there would leave the table's real pads dead while
    the dashboard looks fine (docs/HARDWARE.md). None (no hardware package) falls back to the
    dashboard's own virtual pads."""
    try:
        from hardware.config import PinMapError, load_config
        from hardware.service import PadsService
        from hardware.table import HardwareError, Table
    except ImportError:
        return None
    try:
        return PadsService(Table.open(load_config(config)))
    except (PinMapError, HardwareError) as exc:  # each names the entry or what to check
        raise PadsRefused(str(exc)) from exc
    except Exception as exc:  # anything else: one line too, never virtual pads instead
        raise PadsRefused(f"cannot open the pads ({type(exc).__name__}: {exc})") from exc


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="serve the tablet dashboard on the network (waitress)")
    p.add_argument("--host", help="address to bind (default 127.0.0.1; 0.0.0.0 for the LAN)")
    p.add_argument("--port", type=port, help="TCP port (default 8080)")
    p.add_argument(
        "--db", type=nonempty_path, help="SQLite file (default $TABLETOP_DB or var/tabletop.db)"
    )
    p.add_argument(
        "--config", type=nonempty_path, help="TOML config file (default tabletop.toml if present)"
    )
    p.add_argument(
        "--camera", help="camera: picamera2, cam:N (OpenCV device), a video file or an image folder"
    )
    p.add_argument("--threads", type=server_threads, help="server threads (default 48)")
    p.add_argument(
        "--no-camera-referee",
        action="store_true",
        help="show the camera but do not turn what it sees into events and prompts",
    )
    p.add_argument(
        "--models",
        type=nonempty_path,
        help="card models folder for the camera referee (default models/)",
    )
    p.add_argument(
        "--card-scale",
        type=card_scale,
        default=FROM_CONFIG,
        metavar="auto|SCALE",
        help=CARD_SCALE_HELP,
    )
    p.set_defaults(handler=_serve)

    p = sub.add_parser(
        "log", help="a dashboard game's event log, for `tabletop replay`; or list the games"
    )
    p.add_argument(
        "game_id", nargs="?", type=positive_int, help="the game's number (none: list the games)"
    )
    p.add_argument(
        "-o", "--output", type=nonempty_path, help="file to write (default: standard output)"
    )
    p.add_argument(
        "--db", type=nonempty_path, help="SQLite file (default $TABLETOP_DB or var/tabletop.db)"
    )
    p.add_argument(
        "--config", type=nonempty_path, help="TOML config file (default tabletop.toml if present)"
    )
    p.set_defaults(handler=_log)

    p = sub.add_parser(
        "backup",
        help="copy the whole database (every game) to a file, safely",
        description="Copy the whole database (every game, the settings) to a file, safely, "
        "even while `tabletop serve` runs. Put one back with `tabletop restore FILE` (with the "
        "server stopped), never by copying it over the database.",
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

    p = sub.add_parser("pin", help="reset a forgotten referee PIN (prints a new setup code)")
    p.add_argument("action", choices=["reset"], help="reset: forget the PIN")
    p.add_argument(
        "--db", type=nonempty_path, help="SQLite file (default $TABLETOP_DB or var/tabletop.db)"
    )
    p.add_argument(
        "--config", type=nonempty_path, help="TOML config file (default tabletop.toml if present)"
    )
    p.set_defaults(handler=_pin)
