"""``tabletop serve``: the dashboard on the LAN, served by waitress (never Flask's debug server).

Light module: Flask, OpenCV and waitress are imported inside the handler.
"""

from __future__ import annotations

import argparse
import contextlib
import os
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
DB_HELP = "SQLite file (default $TABLETOP_DB, else [web] db in the config, else var/tabletop.db)"


def _config(args: argparse.Namespace, command: str) -> Any:
    """The dashboard's settings: the config file (``--config``, else ``$TABLETOP_CONFIG``,
    else ./tabletop.toml, as the ``[hardware]`` section is found) or the defaults, then
    ``--db`` or ``$TABLETOP_DB``; None after naming what is wrong with the file. A file
    named by ``--config`` or ``$TABLETOP_CONFIG`` must exist: a typo in a service unit
    would otherwise run on the defaults (another database, the default pin map); so must
    an empty ``$TABLETOP_CONFIG`` name one. The database: ``--db``, else ``$TABLETOP_DB``,
    else ``[web] db``, else var/tabletop.db."""
    from web.config import ConfigError, WebConfig, load_file

    cfg = WebConfig()
    try:
        config_path = _config_file(args.config)
    except ConfigError as exc:  # $TABLETOP_CONFIG empty or naming no file
        if not _config_not_needed(args, command, str(exc)):
            return None
        config_path = None
    try:
        if config_path is not None:
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


def _config_file(config: str | None) -> Path | None:
    """The config file to read: ``--config``, else ``$TABLETOP_CONFIG``, else ./tabletop.toml
    where there is one (the path as ``hardware.config.config_path`` finds it). ConfigError
    when ``$TABLETOP_CONFIG`` is empty or names no file, as ``--config`` would be a slip."""
    from hardware.config import config_path
    from web.config import ConfigError

    path = config_path(config, ConfigError)
    if config:
        return path  # load_file says what is wrong with it
    if os.environ.get("TABLETOP_CONFIG") and not path.exists():
        raise ConfigError(f"TABLETOP_CONFIG names {path}: no such config file")
    return path if path.exists() else None


def _config_not_needed(args: argparse.Namespace, command: str, problem: str) -> bool:
    """Whether ``command`` goes on without the config file whose ``problem`` (TABLETOP_CONFIG
    empty, or naming no file) is said on stderr either way. A backup, log or PIN reset of
    the database --db names needs nothing else from the file: a nightly backup sharing the
    service's environment goes on, and says so; ``serve`` never does."""
    if command == "serve" or not args.db:
        print(f"tabletop {command}: {problem}", file=sys.stderr)
        return False
    print(f"tabletop {command}: {problem} (not needed with --db)", file=sys.stderr)
    return True


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
    if not _enough_threads(cfg.threads):
        return 2
    if args.no_camera_referee:
        cfg.camera_referee = False
    if args.models:
        cfg.models_dir = args.models
    if args.card_scale is not FROM_CONFIG:
        cfg.card_scale = args.card_scale
    cfg.max_streams = stream_slots(cfg.threads, cfg.max_streams)

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
        if not _open_camera(cfg, "--camera" if args.camera else "[web] camera", taken):
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


def _enough_threads(threads: int) -> bool:
    """Whether ``--threads`` leaves a thread for pages (``[web] threads`` is checked as the
    file is read); False after one line. ``server_threads`` accepts 1."""
    from web.config import MIN_SERVER_THREADS

    if threads >= MIN_SERVER_THREADS:
        return True
    print(
        f"tabletop serve: --threads {threads} is too few: give at least {MIN_SERVER_THREADS}"
        " (one serves pages while a tablet streams)",
        file=sys.stderr,
    )
    return False


def stream_slots(threads: int, wanted: int) -> int:
    """The live streams (SSE, MJPEG) the server holds at once: ``wanted`` at most, keeping 8
    of ``threads`` free for page loads where there are that many, and never fewer than one
    (``threads`` is at least 2: a tablet's stream never holds the only thread)."""
    return max(1, min(wanted, threads - 8))


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


def _open_camera(cfg: Any, where: str, taken: contextlib.ExitStack) -> bool:
    """Open the camera ``cfg.camera`` names for the app (closed when ``taken`` closes); False
    after one line when the spec can never be a camera (``cam:O``, a misspelt video or
    folder): the dashboard would run with the camera off, as ``vision watch`` refuses it.
    A live camera (``cam:N``, ``picamera2``) not plugged in yet is no error: it is waited
    for (``LiveFeed``)."""
    if not cfg.camera or cfg.camera_feed is not None:
        return True
    from web.services.camera import FeedError, open_feed

    try:
        feed = open_feed(cfg.camera)
    except FeedError as exc:
        print(
            f"tabletop serve: {where}: {exc} (give picamera2, cam:N, a video file or an "
            "image folder)",
            file=sys.stderr,
        )
        return False
    taken.callback(feed.close)  # also closed with the app (``_close``): closing is safe twice
    cfg.camera_feed = feed
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
            connection_limit=_connection_limit(cfg.threads),
            asyncore_use_poll=True,  # select() cannot watch a socket numbered past 1023
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


# Connections waitress keeps open at once; past it, it accepts none until one closes. One
# device holding 192 half-sent requests (the limit before) locked every tablet out. An idle
# or half-open connection costs a socket and a few KB (its buffers grow only with what is
# sent), so 1 000 take about 10 MB of a Pi's memory and nothing of its CPU.
CONNECTION_LIMIT = 1000


def _connection_limit(threads: int) -> int:
    """``CONNECTION_LIMIT``, within the open files this process may have: the soft limit is
    raised toward the hard one (a service's is often 1 024), and what the database (three
    files per server thread's connection), the camera, the pads and the logs need is kept
    aside. At a full file table waitress would fail every accept in a busy loop."""
    import resource

    reserve = 64 + 4 * threads
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = CONNECTION_LIMIT + reserve
    if soft != resource.RLIM_INFINITY and soft < want:
        raised = want if hard == resource.RLIM_INFINITY else min(want, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
            soft = raised
        except (ValueError, OSError):  # not allowed here: what the soft limit leaves
            pass
    room = CONNECTION_LIMIT if soft == resource.RLIM_INFINITY else soft - reserve
    return max(100, threads * 4, min(CONNECTION_LIMIT, room))  # never below the old limit


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
    local = is_loopback(cfg.host)
    if local:  # the default host: a tablet typing this address reaches itself
        print(
            f"Only this machine can open it: tablets cannot reach {shown}. To serve them, "
            'start with --host 0.0.0.0 (or [web] host = "0.0.0.0" in the config, or make run).'
        )
    print(f"Pads: {_pads_in_use(cfg.pads)}")
    if not services.settings.pin_is_set:
        where = "In a browser on this machine" if local else "On the tablet"
        print(
            f"No referee PIN yet. {where} open http://{shown}:{cfg.port}/pin/setup and "
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


def is_loopback(host: str) -> bool:
    """Whether ``host`` binds this machine's own loopback only (127.0.0.1, ::1, localhost):
    no other device on the network can connect to it."""
    import ipaddress

    name = host.strip("[]").lower()
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:  # a host name: whatever it resolves to, the family typed it
        return False


def tablet_host(host: str) -> str:
    """The address a tablet on the same network types for a server bound to ``host``.

    Bound to every interface, the server's own name ``localhost`` is no use to a tablet: name
    the address this machine reaches its network from (a UDP socket's route; no packet is
    sent, nothing needs the internet), or ``localhost`` on a machine with no network."""
    if host not in ("0.0.0.0", "::", ""):
        # an IPv6 address is bracketed in a URL: http://[::1]:8080/, never http://::1:8080/
        return f"[{host}]" if ":" in host and not host.startswith("[") else host
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
    read-only, an I/O error, damaged pages: ``referee.eventlog.storage_problem``) one line
    saying what to do; else what SQLite or the system said."""
    import sqlite3

    from referee.eventlog import is_storage_error, primary_code, storage_problem, storage_state

    if isinstance(exc, sqlite3.Error):
        damaged = primary_code(exc) == sqlite3.SQLITE_CORRUPT  # its pages: `backup` saves games
        return storage_problem(exc, path) if is_storage_error(exc) or damaged else str(exc)
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
        print(_printable(_shown(line)))
    return code


def _shown(text: str) -> str:
    """``text`` with its control, invisible and separator characters escaped as CLI-5
    escapes what the output cannot encode (``\\x1b``, ``\\u200b``): a name stored before
    they were refused (``web.services.games.hidden``) must not recolour the terminal,
    move its cursor or turn the line around, nor pass for another name."""
    from web.services.games import shown_hidden

    escaped = set(shown_hidden(text))  # a joiner inside an emoji or a Persian name shows
    return "".join(_escaped(c) if i in escaped else c for i, c in enumerate(text))


def _escaped(char: str) -> str:
    """``char`` as Python's ``backslashreplace`` writes it."""
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


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
    from web.storage_commands import add_storage_commands

    p = sub.add_parser("serve", help="serve the tablet dashboard on the network (waitress)")
    p.add_argument("--host", help="address to bind (default 127.0.0.1; 0.0.0.0 for the LAN)")
    p.add_argument("--port", type=port, help="TCP port (default 8080)")
    p.add_argument("--db", type=nonempty_path, help=DB_HELP)
    p.add_argument(
        "--config", type=nonempty_path, help="TOML config file (default tabletop.toml if present)"
    )
    p.add_argument(
        "--camera", help="camera: picamera2, cam:N (OpenCV device), a video file or an image folder"
    )
    p.add_argument("--threads", type=server_threads, help="server threads, at least 2 (default 48)")
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
    p.add_argument("--db", type=nonempty_path, help=DB_HELP)
    p.add_argument(
        "--config", type=nonempty_path, help="TOML config file (default tabletop.toml if present)"
    )
    p.set_defaults(handler=_log)

    add_storage_commands(sub)

    p = sub.add_parser("pin", help="reset a forgotten referee PIN (prints a new setup code)")
    p.add_argument("action", choices=["reset"], help="reset: forget the PIN")
    p.add_argument("--db", type=nonempty_path, help=DB_HELP)
    p.add_argument(
        "--config", type=nonempty_path, help="TOML config file (default tabletop.toml if present)"
    )
    p.set_defaults(handler=_pin)
