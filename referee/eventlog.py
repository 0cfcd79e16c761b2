"""The append-only event log: one SQLite file per installation (WAL mode).

Games, their players, the deck each was set up with (``referee.decks``) and every event
are stored; a game's state is never stored, only rebuilt by replaying its events (see
``referee.replay``). Nothing is updated or deleted except a game's ``ended_at`` and
``result`` summary. This module is the referee's only I/O and lives beside, not inside,
the pure rules.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from referee.decks import setup_deck, with_deck
from referee.events import Event, EventError
from referee.game import GameError
from referee.jsonlines import json_problem, shown
from referee.registry import find_game
from referee.replay import ReplayError, ReplayResult, replay

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY,
    game        TEXT NOT NULL,
    options     TEXT NOT NULL,
    created_at  REAL NOT NULL,
    ended_at    REAL,
    result      TEXT
);
CREATE TABLE IF NOT EXISTS players (
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat    INTEGER NOT NULL,
    name    TEXT NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE TABLE IF NOT EXISTS events (
    game_id     INTEGER NOT NULL REFERENCES games(id),
    seq         INTEGER NOT NULL,
    body        TEXT NOT NULL,
    recorded_at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS boots (
    boot_id     TEXT PRIMARY KEY,
    offset_ns   INTEGER NOT NULL,
    started_at  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS sends (
    game_id INTEGER NOT NULL REFERENCES games(id),
    key     TEXT NOT NULL,
    seq     INTEGER NOT NULL,
    PRIMARY KEY (game_id, key)
);
-- the deck a game was set up with (JSON), for the games that read theirs from a file; a
-- game without a row (none, or stored before this table) plays with the file as it is
CREATE TABLE IF NOT EXISTS decks (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    deck    TEXT NOT NULL
);
CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the event log is append-only'); END;
"""


# A reboot's downtime, when the wall clock cannot tell it (a Pi without a real-time clock
# restores an old time at boot): more than any race window, so a race open at the power cut
# has ended by the time the table is back (HW-10).
MIN_REBOOT_GAP_NS = 1_000_000_000
MAX_REBOOT_GAP_NS = 7 * 24 * 3600 * 1_000_000_000  # a wall clock that jumped years
_PLAUSIBLE_NS = 1 << 62  # larger times are not any machine's monotonic clock


class LogError(LookupError):
    """A game or event is missing, or a stored entry cannot be read."""


class LogConflict(LogError):
    """Another writer appended to the game after the head an append was checked against."""


class GameEnded(LogError):
    """The game has ended (here or by another server on the file): nothing more is stored in
    it, and it is not ended again."""


class AlreadyStored(Exception):
    """An append whose send key the game already holds: that send was stored (its answer
    was lost), as entry ``seq``; nothing is stored again (LOG-4)."""

    def __init__(self, game_id: int, key: str, seq: int) -> None:
        super().__init__(f"game {game_id}: send {key!r} was stored as event {seq}")
        self.seq = seq


class GameUnreadable(LogError):
    """Part of a game's row cannot be read (a damaged file, a hand edit, a newer referee):
    the message names the game and what."""


# What this module reads from each table: a file whose tables lack them is another
# program's (or a damaged) database, refused before the schema is added to it.
COLUMNS = {
    "games": {"id", "game", "options", "created_at", "ended_at", "result"},
    "players": {"game_id", "seat", "name"},
    "events": {"game_id", "seq", "body", "recorded_at"},
    "sends": {"game_id", "key", "seq"},
    "decks": {"game_id", "deck"},
}


def check_schema(conn: sqlite3.Connection) -> None:
    """Raise ``sqlite3.DatabaseError`` (as SQLite does for a file that is no database) when
    a table of the log exists without the columns the log reads, so the error names the
    table at opening, not a missing column at the first game."""
    for table, needed in COLUMNS.items():
        have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        missing = sorted(needed - have) if have else []
        if missing:
            raise sqlite3.DatabaseError(
                f"not a Tabletop Referee event log: its {table} table has no {', '.join(missing)}"
            )


def _rollback(conn: sqlite3.Connection) -> None:
    """Roll back the open transaction, if SQLite has not already done so: a full disk or an
    I/O error ends it by itself, and a ROLLBACK then would hide that error behind 'cannot
    rollback - no transaction is active'."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")


# Less free space than this where a write failed: the storage is full. SQLite needs 32 KiB for
# a WAL file's index (-shm) alone; a real failure with more free than this has another cause.
FULL_BELOW_BYTES = 1 << 20
# SQLite's primary result codes (``sqlite3.Error.sqlite_errorcode & 0xFF``)
_BUSY, _LOCKED, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN = 5, 6, 8, 10, 11, 13, 14
# an existing file SQLite could not read through its WAL index, for a reason of its storage
_STORAGE_CODES = {_READONLY, _IOERR, _FULL, _CANTOPEN}


def storage_state(path: str | Path) -> str | None:
    """``"read-only"`` or ``"full"`` when the file system holding ``path`` (a file, or one to
    be made) is so, else None (also where it cannot be asked). Linux remounts an SD card
    read-only after errors, and a full card makes SQLite fail its WAL index as an I/O
    error: the SQLite message alone cannot tell the family what to do."""
    folder = Path(path)
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    try:
        st = os.statvfs(folder)
    except OSError:
        return None
    if st.f_flag & os.ST_RDONLY:
        return "read-only"
    if st.f_bavail * st.f_frsize < FULL_BELOW_BYTES or (st.f_files and not st.f_favail):
        return "full"  # no room, or no file may be made (every inode taken)
    return None


def primary_code(exc: BaseException) -> int | None:
    """SQLite's primary result code of ``exc`` (``sqlite3.SQLITE_FULL``...), None for an
    error SQLite did not raise."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def storage_problem(exc: sqlite3.Error, path: str | Path | None = None) -> str:
    """Why the database at ``path`` could not be used, as one line for the family: what
    SQLite said, told by its result code (its text where an error has none), and for an
    I/O error what the storage holding ``path`` says (full, read-only). A damaged file
    (SQLITE_CORRUPT) is said to be one: no "try again" will read it."""
    text = str(exc)
    code = primary_code(exc)
    if code == _CORRUPT:  # pages of the file itself are damaged: trying again cannot help
        return (
            f"the database file is damaged ({text}): the SD card may be failing; copy the "
            "games off it with `tabletop backup` (it copies every game it can still read)"
        )
    if code in (_BUSY, _LOCKED) or "locked" in text or "busy" in text:
        return "the database is busy: another program is writing to it; try again"
    state = storage_state(path) if path is not None and str(path) != ":memory:" else None
    if code == _FULL or "full" in text or state == "full":
        return "the disk is full: free some space on the Pi, then try again"
    if state == "read-only":
        return (
            "the Pi's storage is read-only (Linux does that to an SD card after errors): "
            "check the card, then restart the Pi"
        )
    if code == _READONLY or "readonly" in text or "read-only" in text:
        return "the database file cannot be written (it is read-only)"
    if code == _IOERR or "disk I/O error" in text:
        return (
            "the Pi's storage could not be read or written (disk I/O error): the SD card may "
            "be failing; copy the games off it with `tabletop backup`"
        )
    return f"the database cannot be used: {text}"


def is_storage_error(exc: BaseException) -> bool:
    """Whether SQLite failed ``exc`` for a reason of its storage (full, read-only, an I/O
    error, a file it could not open), not of the database's content or another writer."""
    return primary_code(exc) in _STORAGE_CODES


def stored_text(data: bytes) -> str | bytes:
    """A TEXT cell as read: its text, or its bytes where they are not UTF-8 (a flipped bit,
    a hand edit on a Latin-1 terminal). Every reader of the log already names a value that is
    bytes as damaged (a name or options "not text", a body "not JSON"), as for a cell stored
    as a BLOB; sqlite3's own decoding would fail the whole read instead, as a storage error,
    so one such cell took the list, the History and ``serve`` down with it (LOG-3)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def open_existing(
    path: str | Path, *, tidy: bool = True, timeout: float = 10.0
) -> sqlite3.Connection:
    """A connection that only reads the existing database ``path``, never creating it.

    Opened read-write where it may be (``mode=rw``) so that closing it removes the
    ``-wal``/``-shm`` files SQLite makes to read a WAL database; read-only where the file may
    not be written (a backup kept read-only), which leaves them behind, and whenever
    ``tidy`` is false (``tabletop backup``: a read never writes). Where even that
    cannot read it because the storage is full or read-only (SQLite must make or grow the
    ``-shm`` index to read a WAL database), the file is read as it stands (``immutable``) —
    only when no ``-wal`` file holds events not yet in it, so nothing logged is left out
    (and no server can be writing to it: its storage takes no write); else SQLite's error
    stands."""
    uri = Path(path).resolve().as_uri()

    def connect(mode: str) -> sqlite3.Connection:
        conn = sqlite3.connect(f"{uri}?{mode}", uri=True, timeout=timeout, isolation_level=None)
        conn.text_factory = stored_text
        return conn

    try:
        conn = connect("mode=rw" if tidy else "mode=ro")
    except sqlite3.OperationalError:
        if not tidy:
            raise
        conn = connect("mode=ro")
    try:
        conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # opens the WAL index
    except sqlite3.Error as exc:  # no database at all too: closed now, not when collected
        conn.close()
        wal = Path(f"{path}-wal")
        if not is_storage_error(exc) or (wal.exists() and wal.stat().st_size):
            raise
        conn = connect("mode=ro&immutable=1")
    return conn


# A stored time past this (the year 5138) is no wall clock's: a damaged row (HW-10's
# monotonic times are events' own, never stored here)
_LATEST_TIME = 1e11
# the columns a game's replay and its JSON-lines log need: without them it cannot be replayed
# (and its deck, read only then: ``GameRecord.deck``)
REPLAY_COLUMNS = frozenset({"game", "options", "players"})


@dataclass(frozen=True)
class GameRecord:
    """A game's row. ``unreadable`` names the columns that could not be read (a damaged
    file: options or result not a JSON object, a start that is no time); they hold stand-ins
    (``{}``, None, 0.0, "?") and ``error`` says why, naming the game. Only
    ``EventLog.game(..., allow_unreadable=True)`` and ``EventLog.games()`` hand such a
    record out. ``deck``: the deck it was set up with (``referee.decks``), None for a game
    with no deck file or stored before decks were recorded; ``stored_deck`` is its JSON as
    stored, read at the first ``deck`` (a listing never needs it: 20 µs a Wash Dash game)."""

    id: int
    game: str
    options: dict[str, Any]
    players: tuple[str, ...]
    created_at: float
    ended_at: float | None
    result: dict[str, Any] | None
    unreadable: tuple[str, ...] = ()
    error: str | None = None
    stored_deck: Any = field(default=None, repr=False)

    @cached_property
    def _deck_read(self) -> tuple[dict[str, Any] | None, str | None]:
        """(the recorded deck, None; or None and why it cannot be read)."""
        if self.stored_deck is None:
            return None, None
        problems: dict[str, str] = {}
        deck = _json_object(self.stored_deck, "deck", problems)
        why = problems.get("deck")
        return deck, None if why is None else f"game {self.id} cannot be read: {why}"

    @property
    def deck(self) -> dict[str, Any] | None:
        return self._deck_read[0]

    @property
    def replay_error(self) -> str | None:
        """Why the game cannot be replayed (its rules, players, options or deck cannot be
        read), None when it can."""
        if REPLAY_COLUMNS.intersection(self.unreadable):
            return self.error
        return self._deck_read[1]

    @property
    def replayable(self) -> bool:
        """Whether its rules, players, options and deck were read: what a replay needs."""
        return self.replay_error is None


def _json_object(value: Any, what: str, problems: dict[str, str]) -> dict[str, Any] | None:
    """``value`` (a column's text) decoded as a JSON object, else None and why in
    ``problems``."""
    what_is = f"its {what} {'are' if what.endswith('s') else 'is'}"
    try:
        decoded = json.loads(value)
    except RecursionError:
        problems[what] = f"{what_is} not JSON (nested too deeply)"
        return None
    except UnicodeDecodeError:  # bytes that are not UTF-8 (``stored_text``): no text at all
        problems[what] = f"{what_is} not text but {shown(value)}"
        return None
    except ValueError as exc:
        problems[what] = f"{what_is} not JSON ({json_problem(exc)})"
        return None
    except TypeError:
        problems[what] = f"{what_is} not text but {shown(value)}"
        return None
    if not isinstance(decoded, dict):
        problems[what] = f"{what_is} not a JSON object but {shown(decoded)}"
        return None
    return decoded


def _time(value: Any, what: str, problems: dict[str, str]) -> float | None:
    """``value`` as a wall-clock time, else None and why in ``problems``."""
    real = isinstance(value, int | float) and not isinstance(value, bool)
    if real and math.isfinite(value) and 0 <= value < _LATEST_TIME:
        return float(value)
    problems[what] = f"its {what} time is not a time but {shown(value)}"
    return None


def _record(row: Sequence[Any], names: Sequence[Any], deck_text: Any = None) -> GameRecord:
    """A game's row, its players' names and its deck (JSON text, None: no deck recorded; read
    when asked for) as a record, the unreadable parts marked."""
    game_id, game, options_text, created_at, ended_at, result_text = row
    problems: dict[str, str] = {}
    if not isinstance(game, str) or not game:
        problems["game"] = f"its game is not a name but {shown(game)}"
    options = _json_object(options_text, "options", problems)
    players = []
    for seat, name in enumerate(names):
        if not isinstance(name, str):
            why = f"the name of seat {seat + 1} is not text but {shown(name)}"
            problems.setdefault("players", why)
        players.append(name if isinstance(name, str) else "?")
    created = _time(created_at, "start", problems)
    ended = None if ended_at is None else _time(ended_at, "end", problems)
    result = None if result_text in (None, "") else _json_object(result_text, "result", problems)
    unreadable = tuple(
        column
        for column, key in (
            ("game", "game"),
            ("options", "options"),
            ("players", "players"),
            ("created_at", "start"),
            ("ended_at", "end"),
            ("result", "result"),
        )
        if key in problems
    )
    return GameRecord(
        id=game_id,
        game=game if "game" not in problems else "?",
        options=options if options is not None else {},
        players=tuple(players),
        created_at=created if created is not None else 0.0,
        # a game whose end cannot be read has ended all the same: its row says so
        ended_at=ended if ended_at is None or ended is not None else 0.0,
        result=result,
        unreadable=unreadable,
        error=(
            f"game {game_id} cannot be read: {'; '.join(problems.values())}" if problems else None
        ),
        stored_deck=deck_text,
    )


def _use_wal(conn: sqlite3.Connection, path: Path) -> None:
    """Put the database in WAL mode, or raise ``sqlite3.OperationalError`` saying it cannot
    be: SQLite answers the mode it is left in, and a file system without the shared memory
    WAL needs (a network folder) keeps a rollback journal, whose readers block the writer and
    whose crash recovery this log was not measured with (LOG-1). An in-memory database
    (tests) has no journal file: its "memory" mode is what it can have."""
    (mode,) = conn.execute("PRAGMA journal_mode=WAL").fetchone()
    if str(mode).lower() == "wal" or str(path) == ":memory:":
        return
    raise sqlite3.OperationalError(
        f"SQLite cannot keep it in WAL mode (it stays in {str(mode).lower()} mode): keep the "
        "database on the Pi's own storage, not a network folder"
    )


@dataclass(frozen=True)
class LogEntry:
    """One stored event; ``error`` is set instead of ``event`` when it cannot be decoded."""

    seq: int
    recorded_at: float
    event: Event | None
    error: str | None = None


class EventLog:
    """Thread-safe access to the log; each thread gets its own connection.

    ``read_only=True`` opens an existing file and never writes to it (no schema, no journal
    change, never created): for tools that only look, such as ``tabletop log``, beside a
    running server."""

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.read_only = read_only
        if str(path) != ":memory:" and not read_only:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._write_lock = threading.Lock()
        if not read_only:
            try:
                self._prepare()
            except BaseException:  # refused: the file is closed now, not when collected
                self.close()
                raise

    def _prepare(self) -> None:
        """Check the file is a log (or none yet), add the schema, and prove it writable."""
        with self._conn() as conn:
            check_schema(conn)
            conn.executescript(SCHEMA)
            # a file SQLite opened read-only (no write permission, ``query_only``) takes
            # the schema above when it has it, and would refuse only the first event;
            # a write of no row is refused now, and writes nothing
            conn.execute("DELETE FROM boots WHERE 0")

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            if self.read_only:
                conn = open_existing(self.path)
                self._local.conn = conn
                return conn
            conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
            conn.text_factory = stored_text
            try:
                _use_wal(conn, self.path)
            except BaseException:
                conn.close()
                raise
            # FULL: each commit is synced, so a power cut keeps every event already
            # acknowledged (NORMAL may lose the last ones in WAL mode; bench/log_append.py)
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
        return conn

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    # -- games -------------------------------------------------------------------------
    def create_game(
        self,
        game: str,
        players: Sequence[str],
        options: Mapping[str, Any] | None = None,
        *,
        deck: Any | None = None,
    ) -> int:
        """Register a new game after checking its players, options and deck with its rules.
        ``deck``: the deck it is played with (``referee.decks``); None: the deck its rules
        set a game up with now (its deck file read now), so a game keeps the deck it began
        with whatever later edits of the file."""
        rules = find_game(game)
        if deck is None:
            deck = setup_deck(rules)
        with_deck(rules, deck).new_state(players, options or {})  # GameError on bad set-up
        with self._write_lock:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                cur = conn.execute(
                    "INSERT INTO games (game, options, created_at) VALUES (?, ?, ?)",
                    (rules.name, json.dumps(dict(options or {}), sort_keys=True), time.time()),
                )
                game_id = int(cur.lastrowid or 0)
                conn.executemany(
                    "INSERT INTO players (game_id, seat, name) VALUES (?, ?, ?)",
                    [(game_id, seat, name) for seat, name in enumerate(players)],
                )
                if deck is not None:
                    conn.execute(
                        "INSERT INTO decks (game_id, deck) VALUES (?, ?)",
                        (game_id, json.dumps(deck, sort_keys=True)),
                    )
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                raise
        return game_id

    def game(self, game_id: int, *, allow_unreadable: bool = False) -> GameRecord:
        """The game's record; ``LogError`` when there is none. A row part of which cannot be
        read raises ``GameUnreadable`` naming what, or with ``allow_unreadable`` comes back
        marked (``GameRecord.unreadable``, ``error``) for a list or a page to show."""
        conn = self._conn()
        # the deck's text with the row, in one read; parsed only when asked for (GameRecord)
        deck, decks = ("d.deck", "LEFT JOIN decks d ON d.game_id = g.id")
        if not self._has_decks(conn):
            deck, decks = "NULL", ""
        row = conn.execute(
            "SELECT g.id, g.game, g.options, g.created_at, g.ended_at, g.result, "
            f"{deck} FROM games g {decks} WHERE g.id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise LogError(f"no game {game_id}")
        names = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM players WHERE game_id = ? ORDER BY seat", (game_id,)
            )
        ]
        record = _record(row[:6], names, row[6])
        if record.error is not None and not allow_unreadable:
            raise GameUnreadable(record.error)
        return record

    def _has_decks(self, conn: sqlite3.Connection) -> bool:
        """Whether the file has the decks table: a database from before decks were recorded,
        opened read-only (``tabletop log``), has none. Asked once per connection (every
        record asking doubled a game's read); one opened for writing has it from the start."""
        known = getattr(self._local, "has_decks", None)
        if known is None or known[0] is not conn:
            found = conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'decks'"
            ).fetchone()
            known = (conn, found is not None)
            self._local.has_decks = known
        return known[1]

    def _replayable(self, game_id: int) -> GameRecord:
        """The game's record, which its replay and its log file can be made from (a result
        or a time that cannot be read does not stop them); else ``GameUnreadable``."""
        record = self.game(game_id, allow_unreadable=True)
        if not record.replayable:
            raise GameUnreadable(record.replay_error)
        return record

    def game_ids(self) -> list[int]:
        """Every game's number, oldest first: what "the latest game" needs, without reading
        every row (asked at every change and every pad press)."""
        return [r[0] for r in self._conn().execute("SELECT id FROM games ORDER BY id")]

    def games(self) -> list[GameRecord]:
        """Every game, oldest first; one whose row cannot all be read comes marked
        (``GameRecord.error``), so one damaged row never hides the others."""
        ids = [r[0] for r in self._conn().execute("SELECT id FROM games ORDER BY id")]
        return [self.game(i, allow_unreadable=True) for i in ids]

    def end_game(
        self, game_id: int, result: Mapping[str, Any], *, after: int | None = None
    ) -> None:
        """Record the game's end and its ``result``. ``GameEnded`` when it has ended already
        (another server on the file ended it), and, with ``after`` (the head ``result`` was
        worked out on), ``LogConflict`` when an event was logged since: the result must be
        the one of the log it closes. Checked in the write's own transaction."""
        with self._write_lock:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                self._check_open(conn, game_id, after)
                conn.execute(
                    "UPDATE games SET ended_at = ?, result = ? WHERE id = ?",
                    (time.time(), json.dumps(dict(result), sort_keys=True), game_id),
                )
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                raise

    @staticmethod
    def _check_open(conn: sqlite3.Connection, game_id: int, after: int | None) -> int:
        """In a write transaction: the game's head, after checking that the game exists,
        has not ended and (``after``) that its head is still ``after``."""
        row = conn.execute("SELECT ended_at FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise LogError(f"no game {game_id}")
        if row[0] is not None:
            raise GameEnded(f"game {game_id} has ended")
        (last,) = conn.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id = ?", (game_id,)
        ).fetchone()
        if after is not None and int(last) != after:
            raise LogConflict(f"game {game_id}: event {int(last)} was logged meanwhile")
        return int(last)

    # -- the log's time line -------------------------------------------------------------
    def boot_offset(self, boot_id: str | None, now_ns: int) -> int:
        """What to add to this boot's CLOCK_MONOTONIC so that what it stamps comes after every
        time already logged in a running game (HW-10).

        The monotonic clock that pads, camera and tablet stamp starts again at a reboot, so a
        Pi restarted mid-game would stamp a slap before the race it answers. Each boot
        (``/proc/sys/kernel/random/boot_id``) gets one offset, stored, so a server restarted
        within the boot keeps it: the offset puts ``now_ns`` the downtime after the latest
        logged time (the wall clock's gap since that event was stored, at least
        ``MIN_REBOOT_GAP_NS``). Without a boot id the offset is worked out at every start."""
        with self._write_lock:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = None
                if boot_id is not None:
                    row = conn.execute(
                        "SELECT offset_ns FROM boots WHERE boot_id = ?", (boot_id,)
                    ).fetchone()
                if row is not None:
                    offset = int(row[0])
                else:
                    offset = self._offset_after_log(conn, now_ns)
                    if boot_id is not None:
                        conn.execute(
                            "INSERT INTO boots (boot_id, offset_ns, started_at) VALUES (?, ?, ?)",
                            (boot_id, offset, time.time()),
                        )
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                raise
        return offset

    @staticmethod
    def _offset_after_log(conn: sqlite3.Connection, now_ns: int) -> int:
        latest: tuple[int, float] | None = None
        rows = conn.execute(
            "SELECT e.body, e.recorded_at FROM events e JOIN games g ON g.id = e.game_id "
            "WHERE g.ended_at IS NULL"
        )
        for body, recorded_at in rows:
            try:
                t_ns = json.loads(body).get("t_ns")
            except (ValueError, AttributeError):
                continue  # an undecodable entry holds no time (LogEntry.error names it)
            plausible = isinstance(t_ns, int) and 0 <= t_ns < _PLAUSIBLE_NS
            if plausible and (latest is None or t_ns > latest[0]):
                latest = (t_ns, float(recorded_at))
        if latest is None:
            return 0
        wall_gap_ns = int((time.time() - latest[1]) * 1e9)
        gap = min(max(wall_gap_ns, MIN_REBOOT_GAP_NS), MAX_REBOOT_GAP_NS)
        offset = latest[0] + gap - now_ns
        # Within a second of the log the clock is still going forward (the same boot, whose
        # wall and monotonic clocks differ by jitter): leave it as it is.
        return offset if offset > MIN_REBOOT_GAP_NS else 0

    # -- events ------------------------------------------------------------------------
    def append(
        self, game_id: int, event: Event, *, after: int | None = None, key: str | None = None
    ) -> int:
        """Store ``event`` as the game's next entry and return its sequence number.

        ``after``: the head the caller checked ``event`` against; when another writer (a
        second process on the file) has appended since, nothing is stored and
        ``LogConflict`` says so, so that the caller checks it again on the new head. A game
        that has ended (here, or by that other writer meanwhile) takes nothing: ``GameEnded``
        (LOG-1).

        ``key``: the send's key (a tablet's Send, sent again after its answer was lost): it
        is stored with the event, in the same transaction; when the game already holds it,
        nothing is stored and ``AlreadyStored`` names the entry it was stored as (checked
        first: that send's event is in the log, whatever the game's head or end) (LOG-4)."""
        return self.append_many(game_id, [event], after=after, key=key)[0]

    def append_many(
        self,
        game_id: int,
        events: Sequence[Event],
        *,
        after: int | None = None,
        key: str | None = None,
    ) -> list[int]:
        """Store ``events`` as the game's next entries, all or none, in one transaction (a
        correction made of two entries, the undo of an overrule and the overrule replacing
        it, is never left half stored: WEB-11); their sequence numbers, in order. ``after``
        and ``key`` (stored with the last one) as for ``append``."""
        with self._write_lock:
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                if key is not None:
                    stored = self._sent(conn, game_id, key)
                    if stored is not None:
                        raise AlreadyStored(game_id, key, stored)
                head = self._check_open(conn, game_id, after)
                seqs = list(range(head + 1, head + 1 + len(events)))
                now = time.time()
                conn.executemany(
                    "INSERT INTO events (game_id, seq, body, recorded_at) VALUES (?, ?, ?, ?)",
                    [(game_id, seq, e.to_json(), now) for seq, e in zip(seqs, events, strict=True)],
                )
                if key is not None and seqs:
                    conn.execute(
                        "INSERT INTO sends (game_id, key, seq) VALUES (?, ?, ?)",
                        (game_id, key, seqs[-1]),
                    )
                conn.execute("COMMIT")
            except BaseException:
                _rollback(conn)
                raise
        return seqs

    @staticmethod
    def _sent(conn: sqlite3.Connection, game_id: int, key: str) -> int | None:
        row = conn.execute(
            "SELECT seq FROM sends WHERE game_id = ? AND key = ?", (game_id, key)
        ).fetchone()
        return None if row is None else int(row[0])

    def sent(self, game_id: int, key: str) -> int | None:
        """The entry the send ``key`` was stored as in the game, None if it holds no such
        send (LOG-4)."""
        return self._sent(self._conn(), game_id, key)

    def head(self, game_id: int) -> int:
        """The game's last sequence number (0 before its first event): what a cached state
        is checked against, one indexed read."""
        (last,) = (
            self._conn()
            .execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE game_id = ?", (game_id,))
            .fetchone()
        )
        return int(last)

    def entries(self, game_id: int) -> Iterator[LogEntry]:
        """Every stored entry; undecodable ones carry ``error`` and the rest stay readable."""
        rows = (
            self._conn()
            .execute(
                "SELECT seq, body, recorded_at FROM events WHERE game_id = ? ORDER BY seq",
                (game_id,),
            )
            .fetchall()
        )
        for seq, body, recorded_at in rows:
            try:
                yield LogEntry(seq, recorded_at, Event.from_json(body))
            except EventError as exc:
                yield LogEntry(seq, recorded_at, None, f"event {seq}: {exc}")

    def events(self, game_id: int) -> list[tuple[int, Event]]:
        """The decoded events; a corrupt entry raises LogError naming its sequence number."""
        out = []
        for entry in self.entries(game_id):
            if entry.event is None:
                raise LogError(f"game {game_id}: {entry.error}")
            out.append((entry.seq, entry.event))
        return out

    def log_lines(self, game_id: int) -> list[str]:
        """The game as a JSON-lines log (docs/EVENTS.md, what ``tabletop replay`` reads): a
        header with its game, players and options, its end when it was ended (``ended``: the
        end and winners the dashboard recorded, which no event holds) and its deck when one
        was recorded, then every stored event as stored, in order, so undo and overrule
        targets keep their numbers. An entry that no longer decodes is written as it is too
        (on one line): the replay then names it, and nothing is left out."""
        record = self._replayable(game_id)
        header: dict[str, Any] = {
            "game": record.game,
            "players": list(record.players),
            "options": record.options,
        }
        ended = recorded_end(record)
        if ended is not None:
            header["ended"] = ended
        if record.deck is not None:
            header["deck"] = record.deck
        rows = self._conn().execute(
            "SELECT body FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
        )
        return [json.dumps(header), *(" ".join(_text(body).splitlines()) for (body,) in rows)]

    def rebuild(self, game_id: int) -> ReplayResult:
        """The game's current state, replayed from its log with the deck it was set up with."""
        record = self._replayable(game_id)
        try:
            rules = with_deck(find_game(record.game), record.deck)
        except GameError as exc:  # a recorded deck that is not one (a damaged row)
            raise LogError(f"game {game_id}: {exc}") from None
        try:
            return replay(rules, record.players, record.options, self.events(game_id))
        except ReplayError as exc:
            raise LogError(f"game {game_id}: {exc}") from None


def recorded_end(record: GameRecord) -> dict[str, Any] | None:
    """The end of a game ended on the dashboard, for its log's header: when (wall-clock
    seconds) and the winners it recorded (WEB-1: the leaders of a game ended early); None for
    a game still running. What cannot be read of it is left out, never made up."""
    if record.ended_at is None:
        return None
    ended: dict[str, Any] = {}
    if "ended_at" not in record.unreadable:
        ended["at"] = record.ended_at
    winners = (record.result or {}).get("winners")
    seats = range(len(record.players))
    if isinstance(winners, list) and all(
        isinstance(w, int) and not isinstance(w, bool) and w in seats for w in winners
    ):
        ended["winners"] = winners
    return ended


def _text(body: Any) -> str:
    """A stored event's body as text: a body stored as bytes (a damaged file, another tool)
    is decoded, its undecodable bytes escaped, so the log file still holds it on its line."""
    if isinstance(body, bytes):
        return body.decode("utf-8", "backslashreplace")
    return str(body)
