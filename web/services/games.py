"""Games for the dashboard: create, rebuild, append (validated first), undo, overrule, end.

The event log stays the single truth. An event is stored only after the game's rules
accepted its shape (``EventError`` and friends -> ``BadInput``, nothing stored); an
illegal *play* is stored with its ``illegal`` verdict, because it did happen at the table.
Rebuilt states are cached per game and refreshed when the log's head moves, and so are the
feed's entries: an event adds its own, and only what can change earlier ones (an undo, an
overrule, an accepted verdict, a log another server replayed differently) builds them again.

A snapshot is of one log head: its view, scores and feed are read together, under the
service's lock (this server's writers) and in one SQLite read transaction (another server on
the file). Snapshots are published in the order they were built, so neither a tablet nor a
listener is ever handed an older one after a newer one.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sqlite3
import threading
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, ParamSpec, TypeVar

from hardware.bus import Outbox
from referee.decks import setup_deck, with_deck
from referee.eventlog import (
    AlreadyStored,
    EventLog,
    GameEnded,
    GameRecord,
    GameUnreadable,
    LogConflict,
    LogEntry,
    LogError,
    primary_code,
    storage_problem,
)
from referee.events import Event, EventError, Source
from referee.game import (
    Game,
    GameError,
    OptionSpec,
    Scoreboard,
    check_new_options,
    new_game_options,
)
from referee.registry import UnknownGameError, find_game, game_names
from referee.replay import (
    META_KINDS,
    ReplayError,
    ReplayResult,
    Step,
    overrule_target_refusal,
    replay,
)
from web.errors import BadInput
from web.services.hub import Hub
from web.services.settings import Settings

log = logging.getLogger(__name__)

MAX_PLAYERS_NAME = 40
# appends tried again when another writer (a second server on the file) moved the head
APPEND_TRIES = 3
ENDED = "this game has ended; start a new one on the Setup page"

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


# Characters a name cannot show: controls (Cc: an escape recolours a terminal, NUL), format
# marks (Cf: zero-width spaces and joiners, right-to-left overrides) and line or paragraph
# separators (Zl, Zp). "Ann" and "Ann\u200b" look alike everywhere the name is shown.
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
# Letters drawn as nothing (Hangul fillers, the blank Braille pattern): no hidden category,
# yet a name of only these is as blank as an empty one.
BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def hidden(char: str) -> bool:
    """Whether ``char`` is one a name cannot show (``HIDDEN_CATEGORIES``)."""
    return unicodedata.category(char) in HIDDEN_CATEGORIES


def _visible(char: str) -> bool:
    """Whether ``char`` draws something by itself: not hidden, a space, a blank letter, or a
    combining mark (an accent with no letter under it)."""
    if hidden(char) or char.isspace() or char in BLANK_LETTERS:
        return False
    return not unicodedata.category(char).startswith("M")


def name_key(name: str) -> str:
    """Who a name is, for telling players apart: "Ann", "ann", "Ａｎｎ" and "Ann\\u200b" are one
    person (hidden characters dropped, then Unicode NFKC, then case folded, as Python's
    ``str.casefold`` does). A stored name of hidden characters only keeps them: two such
    names are not taken for one blank player."""
    shown = "".join(c for c in name if not hidden(c))
    folded = unicodedata.normalize("NFKC", shown if shown.strip() else name).strip().casefold()
    return unicodedata.normalize("NFKC", folded)  # casefold can undo NFKC ("ǰ"): once more


# Joiners that shape the characters either side of them: an emoji sequence (👩‍🚀, U+200D),
# a Persian name's non-joiner (U+200C). Between two characters that show they are part of
# the name, not a hidden one.
JOINERS = frozenset("\u200c\u200d")


FLAG = "\U0001f3f4"  # a waving black flag: tag characters after it spell a region's flag
TAGS = range(0xE0020, 0xE0080)  # … up to CANCEL TAG


def _hidden_at(name: str, i: int) -> bool:
    """Whether ``name[i]`` is hidden where it stands: a joiner between two characters that
    are not hidden is not (it shapes them; an emoji's variation selector before it counts),
    nor a tag character of a flag (🏴 then tags: Scotland's, Wales')."""
    if name[i] in JOINERS and 0 < i < len(name) - 1:
        return _hidden_at(name, i - 1) or hidden(name[i + 1])
    if ord(name[i]) in TAGS:
        start = i
        while start > 0 and ord(name[start - 1]) in TAGS:
            start -= 1
        return not (start > 0 and name[start - 1] == FLAG)
    return hidden(name[i])


def shown_hidden(name: str) -> list[int]:
    """The positions in ``name`` of characters hidden where they stand (``_hidden_at``)."""
    return [i for i in range(len(name)) if _hidden_at(name, i)]


def _check_names_shown(players: Sequence[str]) -> None:
    """A new game's names are ones a screen shows as they are: none holding a hidden
    character, each with one it draws. Only at creation: a stored game holding such a
    name still opens, replays and exports (the CLI's listing escapes it). An empty name is
    left to the engine's own "every player needs a name"."""
    for seat, name in enumerate(players, start=1):
        bad = next((name[i] for i in shown_hidden(name)), None)
        if bad is not None:
            raise BadInput(
                f"player {seat}'s name holds an invisible or control character"
                f" (U+{ord(bad):04X}): type the name again"
            )
        if name and not any(_visible(c) for c in name):
            raise BadInput(f"player {seat}'s name has no letter that shows: type a name")


def _check_names_differ(players: Sequence[str]) -> None:
    """A new game's names must tell its players apart once capitals and width are set aside
    (WEB-14): History counts "Ann" and "ann" as one person. Only here, at creation: a stored
    game holding both replays as it was (the log's own check is of exact names)."""
    seen: dict[str, str] = {}
    for name in players:
        key = name_key(name)
        first = seen.setdefault(key, name)
        if name and first != name:  # an empty or exact repeat: the log's check says so
            raise BadInput(
                f"'{first}' and '{name}' are the same name: tell them apart, e.g. '{first} B'"
            )


def storage_error(exc: sqlite3.Error, db_path: Path | None = None) -> BadInput:
    """A database that cannot be used right now, as one line with status 503: the request
    may work later (space freed, the lock released), and nothing already logged is touched
    (SQLite rolled the change back). ``db_path`` lets an I/O error name its cause (a full or
    read-only SD card, ``referee.eventlog.storage_problem``)."""
    why = storage_problem(exc, db_path)
    if primary_code(exc) == sqlite3.SQLITE_CORRUPT:  # damaged pages: not all of it is kept
        return BadInput(f"{why}; nothing was changed", 503)
    return BadInput(f"{why}; nothing was changed and the events logged so far are kept", 503)


def storage_guarded(method: Callable[P, R]) -> Callable[P, R]:
    """A database error inside ``method`` becomes ``storage_error``'s 503, not a 500 with a
    traceback: a locked, full or read-only file is the table's problem to fix, not a bug."""

    @functools.wraps(method)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except sqlite3.Error as exc:
            db_path = getattr(args[0], "db_path", None) if args else None
            raise storage_error(exc, db_path) from None

    return guarded


def option_type(spec: OptionSpec) -> str:
    if spec.choices:
        return "choice"
    default = spec.default
    if isinstance(default, bool):
        return "bool"
    if isinstance(default, int):
        return "int"
    if isinstance(default, float):
        return "float"
    if isinstance(default, list | tuple):
        return "list"
    return "text"


def _jsonable(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def describe_game(game: Game[Any]) -> dict[str, Any]:
    """What the setup page and the manual-entry forms are generated from."""
    return {
        "name": game.name,
        "title": game.title,
        "min_players": game.min_players,
        "max_players": game.max_players,
        "options": [
            {
                "name": s.name,
                # what a game set up now gets (a stored game without it keeps ``default``)
                "default": _jsonable(s.setup_default),
                "description": s.description,
                "choices": _jsonable(list(s.choices)),
                "ruling": s.ruling,
                "type": option_type(s),
            }
            for s in game.options()
        ],
        "event_kinds": {str(k): str(v) for k, v in game.event_kinds().items()},
    }


def coerce_option(spec: OptionSpec, value: Any) -> Any:
    """Form values arrive as text; turn them into the option's type (JSON ones pass)."""
    if not isinstance(value, str):
        return value
    kind = option_type(spec)
    text = value.strip()
    if kind == "choice":
        for choice in spec.choices:
            if str(choice) == text:
                return choice
        return value
    if kind == "bool":
        if text.lower() in ("true", "on", "yes", "1"):
            return True
        if text.lower() in ("false", "off", "no", "0", ""):
            return False
        raise BadInput(f"option {spec.name!r} must be yes or no, got {value!r}")
    if kind == "int":
        number = _whole(text)
        if number is None:
            raise BadInput(f"option {spec.name!r} must be a whole number, got {_short(value)}")
        return number
    if kind == "float":
        try:
            return float(text)
        except ValueError:
            raise BadInput(f"option {spec.name!r} must be a number, got {_short(value)}") from None
    if kind == "list":
        tokens = [t for t in text.replace(",", " ").split() if t]
        if all(isinstance(d, int) for d in spec.default):
            numbers = [_whole(t) for t in tokens]
            bad = next((t for t, n in zip(tokens, numbers, strict=True) if n is None), None)
            if bad is not None:  # "²".isdigit() is true, int("²") fails: was a 500
                raise BadInput(f"option {spec.name!r} must list whole numbers, got {_short(bad)}")
            return numbers
        return tokens
    return value


def _whole(text: str) -> int | None:
    """``text`` as a whole number, or None: digits (any keyboard's decimal digits, as
    ``int()`` and WEB-10 read them: "１２" is 12), an optional sign. Not "²" or "-²" (digits
    to ``str.isdigit()``, not to ``int()``), nor more than 19 digits (past 64 bits: no
    option's range goes so far, and past 4 300 ``int()`` refuses)."""
    digits = text[1:] if text[:1] in "+-" else text
    if not digits.isdecimal() or len(digits) > 19:
        return None
    return int(text)


def _short(text: str, limit: int = 40) -> str:
    """``text`` quoted for a message, cut to ``limit`` characters: an answer is one line,
    not an echo of 10 000 characters a client sent."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


@dataclass
class _Cached:
    head: int
    result: ReplayResult


@dataclass
class _Feed:
    """A game's log as read so far, and the feed entries built from it.

    ``entries``: every stored entry up to the head last read (the log is append-only, so
    only entries after it are read again). ``items``: the feed built for the first
    ``len(items)`` entries against ``result`` (None: the log did not replay) and ``reviews``;
    None before the first build. Item dicts are shared by every snapshot that shows them
    and never changed: a change makes a new dict (``FeedVersions`` compares old feeds)."""

    entries: list[LogEntry]
    items: list[dict[str, Any]] | None = None
    result: ReplayResult | None = None
    reviews: dict[int, str] = field(default_factory=dict)


class ReplayCache(Generic[T]):
    """The replayed states of the games looked at last (``size`` of them): the running game
    and a few the History page opened. An evening of games would otherwise keep every
    game's replay in memory; one evicted is replayed again from the log when next wanted.
    (The built feeds are kept the same way.)"""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._items: OrderedDict[int, T] = OrderedDict()

    def get(self, game_id: int) -> T | None:
        item = self._items.get(game_id)
        if item is not None:
            self._items.move_to_end(game_id)
        return item

    def put(self, game_id: int, item: T) -> None:
        self._items[game_id] = item
        self._items.move_to_end(game_id)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


class ServiceLog(EventLog):
    """The event log as the game service reads it: also the entries after a given one (what
    an append adds to a cached feed), and reads grouped in one read transaction."""

    def entries_after(self, game_id: int, after: int) -> list[LogEntry]:
        """The stored entries after event ``after``, decoded as ``entries`` does."""
        rows = (
            self._conn()
            .execute(
                "SELECT seq, body, recorded_at FROM events WHERE game_id = ? AND seq > ? "
                "ORDER BY seq",
                (game_id, after),
            )
            .fetchall()
        )
        out = []
        for seq, body, recorded_at in rows:
            try:
                out.append(LogEntry(seq, recorded_at, Event.from_json(body)))
            except EventError as exc:
                out.append(LogEntry(seq, recorded_at, None, f"event {seq}: {exc}"))
        return out

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Every read of this thread inside sees the database at one moment (SQLite's read
        transaction, WAL mode): another server appending meanwhile is seen by none or all
        of them. Nested, the outer one stands; never around a write."""
        conn = self._conn()
        if conn.in_transaction:
            yield
            return
        conn.execute("BEGIN")
        try:
            yield
        finally:
            if conn.in_transaction:
                try:
                    conn.execute("COMMIT")  # a read: nothing to write, only the snapshot ends
                except sqlite3.Error:
                    log.debug("ending a read transaction failed", exc_info=True)


def meta_status(log_events: Sequence[tuple[int, Event]]) -> dict[int, bool]:
    """For each undo/overrule: is it in force? (the same walk ``referee.replay`` makes)."""
    metas: dict[int, int] = {}
    for seq, event in log_events:
        if event.kind in META_KINDS:
            target = event.get("target")
            if isinstance(target, int):
                metas[seq] = target
    inactive: set[int] = set()
    for seq in sorted(metas, reverse=True):
        if seq not in inactive:
            inactive.add(metas[seq])
    return {seq: seq not in inactive for seq in metas}


def corrected_by(log_events: Sequence[tuple[int, Event]]) -> dict[int, tuple[str, int]]:
    """For each entry an undo or overrule in force acts on: ("overruled" or "undone", that
    meta event's number). An overrule wins over an undo of the same entry, as in replay
    (``referee.replay``: the replacement stands); of two alike, the latest is named."""
    active = meta_status(log_events)
    out: dict[int, tuple[str, int]] = {}
    for seq, event in log_events:
        if not active.get(seq):
            continue
        target = event.get("target")
        if isinstance(target, bool):  # replay refuses it (``referee.replay._target``)
            continue
        if event.kind == "overrule" or out.get(target, ("",))[0] != "overruled":
            out[target] = ("overruled" if event.kind == "overrule" else "undone", seq)
    return out


def _refuse_stale_meta(event: Event, logged: Sequence[tuple[int, Event]]) -> None:
    """An undo or overrule acts on an entry as it stands (WEB-11): one whose target another
    undo or overrule in force already acts on would be stored and change nothing (a second
    undo of an entry: then "undo the undo" no longer brings it back), or silently replace
    what another tablet just decided. 409: the tablet looks at the feed again."""
    target = event.get("target")
    if not isinstance(target, int) or isinstance(target, bool):
        return  # replay says what is wrong with it
    how = corrected_by(logged).get(target)
    if how is None:
        return
    state, by = how
    if event.kind == "undo" and state == "undone":
        raise BadInput(f"undo: event {target} is already undone (event {by})", 409)
    then = {
        ("undo", "overruled"): f"then undo event {target}",
        ("overrule", "overruled"): f"then overrule event {target} again",
        ("overrule", "undone"): f"then overrule event {target}",
    }[event.kind, state]
    raise BadInput(
        f"{event.kind}: event {target} is {state} (event {by}): undo event {by} first, {then}",
        409,
    )


def _refuse_wrong_replaces(target: Any, replaces: int, logged: Sequence[tuple[int, Event]]) -> None:
    """An overrule sent with ``replaces`` (WEB-11) is stored only when ``replaces`` is the
    overrule in force on ``target`` now: else another tablet changed the entry since the
    console read it (409: it looks at the feed again), or it names no such overrule."""
    how = corrected_by(logged).get(target)
    if how == ("overruled", replaces):
        return
    if how is None:
        why = f"event {target} is not overruled now: overrule it without 'replaces'"
    elif how[0] == "undone":
        why = f"event {target} is undone (event {how[1]}): undo event {how[1]} first"
    else:
        why = f"event {replaces} is not the overrule in force on event {target} (event {how[1]} is)"
    raise BadInput(f"overrule: {why}; nothing was stored", 409)


class GameService:
    def __init__(self, db_path: Path, settings: Settings, hub: Hub) -> None:
        self.log = ServiceLog(db_path)
        self.db_path = Path(db_path)
        self.settings = settings
        self.hub = hub
        # this server's writers, and every snapshot's reads: a snapshot is of one head
        self._lock = threading.RLock()
        self._cache: ReplayCache[_Cached] = ReplayCache()
        self._feeds: ReplayCache[_Feed] = ReplayCache()
        # bumped on every published change (create, event, review, end): readers in a loop
        # (the camera referee) look at the database again only when it has moved
        self.changes = 0
        # called with (game id, snapshot) after each published change, outside the lock
        # (the pads' race timer); a listener's error is logged, never the caller's. Calls
        # go through an outbox: one at a time, in the order the snapshots were built (a
        # change made meanwhile, or by a listener, is told after the one being told)
        self.listeners: list[Callable[[int, dict[str, Any]], None]] = []
        # run with a game's id before anything is stored in it: the pads' presses the
        # storage refused for now go first (``PendingPresses.store_first``, LOG-2)
        self.before_store: list[Callable[[int], None]] = []
        self._told = Outbox()
        # when each game started in this server run, on CLOCK_MONOTONIC (the pads' clock):
        # a press delivered late still goes to the game it was pressed in (``current_id``)
        self.monotonic_ns: Callable[[], int] = time.monotonic_ns
        self._started_ns: dict[int, int] = {}

    # -- catalogue -----------------------------------------------------------------------
    def catalogue(self) -> list[dict[str, Any]]:
        """Every game whose rules can be loaded right now."""
        out = []
        for name in game_names():
            try:
                out.append(describe_game(find_game(name)))
            except Exception as exc:  # an engine not written yet, or broken: leave it out
                log.debug("game %s unavailable: %s", name, exc)
        return out

    def rules(self, name: str) -> Game[Any]:
        """The game's rules (their title, kinds and options), no data file read: a game keeps
        the deck it was set up with (``game_rules``), whatever the deck file is now."""
        try:
            return find_game(name)
        except UnknownGameError:  # its message quotes the whole name: 10 000 letters, sent
            raise BadInput(
                f"unknown game {_short(str(name))}; known games: {', '.join(game_names())}"
            ) from None
        except Exception as exc:
            raise BadInput(f"the rules for {name!r} cannot be loaded: {exc}", 409) from None

    def game_rules(self, record: GameRecord) -> Game[Any]:
        """The rules a stored game is played by: with the deck it was set up with (WD-5,
        HTD-1), so a deck file broken since changes nothing for it. A game without one (stored
        before decks were recorded) plays with the file: one that is broken is this request's
        one-line 409, here, not a 500 at whichever view, score or event first needs it."""
        rules = self.rules(record.game)
        try:
            if record.deck is None:
                getattr(rules, "deck", None)  # a game that reads its deck file on first use
                return rules
            return with_deck(rules, record.deck)
        except Exception as exc:
            raise BadInput(f"the rules for {record.game!r} cannot be loaded: {exc}", 409) from None

    # -- records -------------------------------------------------------------------------
    @storage_guarded
    def records(self) -> list[GameRecord]:
        """Every game, oldest first."""
        return self.log.games()

    @storage_guarded
    def record(self, game_id: int) -> GameRecord:
        """The game's record; one whose row cannot all be read comes marked
        (``GameRecord.error``): the pages show it with why, nothing is stored in it."""
        if not 0 < game_id < 2**62:  # SQLite integers are 64-bit
            raise BadInput(f"there is no game {game_id}", 404)
        try:
            return self.log.game(game_id, allow_unreadable=True)
        except LogError:
            raise BadInput(f"there is no game {game_id}", 404) from None

    @storage_guarded
    def log_file(self, game_id: int) -> tuple[str, list[str]]:
        """(the game's name, its JSON-lines log as ``tabletop replay`` reads it); 404 for no
        such game, 409 for one whose rules, players or options cannot be read."""
        name = self.record(game_id).game
        try:
            return name, self.log.log_lines(game_id)
        except GameUnreadable as exc:
            raise BadInput(str(exc), 409) from None

    @storage_guarded
    def current_id(self, pressed_ns: int | None = None) -> int | None:
        """The latest game started (running or not), else None: what the scoreboard, the
        console, the pads and the camera follow. Not the latest *running* one: a game left
        running when the family started another would come back when that one ended.

        ``pressed_ns`` (CLOCK_MONOTONIC, a pad's press): the latest game started by then. A
        press is delivered after the presses and listeners queued before it; a game started
        meanwhile is not the one it was pressed in. Only games started in this server run
        have a start on that clock; the older ones started before any press it sees."""
        if pressed_ns is None:
            ids = self.log.game_ids()
        else:  # under the lock ``create`` holds: a game is listed with its start, or not at all
            with self._lock:
                ids = self.log.game_ids()
                started = dict(self._started_ns)
            ids = [i for i in ids if started.get(i, pressed_ns) <= pressed_ns]
        return ids[-1] if ids else None

    @storage_guarded
    def create(self, game: Any, players: Any, options: Any) -> int:
        if not isinstance(game, str) or not game.strip():
            raise BadInput("choose a game")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise BadInput("players must be a list of names")
        if any(len(p) > MAX_PLAYERS_NAME for p in players):
            raise BadInput(f"a player's name may have at most {MAX_PLAYERS_NAME} letters")
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise BadInput("options must be an object")
        rules = self.rules(game)
        specs = {s.name: s for s in rules.options()}
        typed = {k: coerce_option(specs[k], v) if k in specs else v for k, v in options.items()}
        try:  # a number the table could not use (a race window of years): refused now
            check_new_options(list(specs.values()), typed)
        except GameError as exc:
            raise BadInput(str(exc)) from None
        # a rule's new reading (an option's ``new_default``) is stored with the new game, so
        # its replays keep it, while games stored without the key keep the old reading
        typed = new_game_options(list(specs.values()), typed)
        players = [p.strip() for p in players]
        _check_names_shown(players)
        _check_names_differ(players)
        deck = self._setup_deck(rules)
        # the game and its start on the pads' clock together: a press listed against the new
        # game always finds its start (``current_id``)
        with self._lock:
            started = self.monotonic_ns()  # a press before this was meant for the game before
            try:
                game_id = self.log.create_game(rules.name, players, typed, deck=deck)
            except (GameError, ValueError, TypeError) as exc:
                raise BadInput(str(exc)) from None
            self._started_ns[game_id] = started
            for old in sorted(self._started_ns)[:-16]:  # the latest few are all a press needs
                del self._started_ns[old]
        self._publish(game_id, "created")
        return game_id

    @staticmethod
    def _setup_deck(rules: Game[Any]) -> Any | None:
        """The deck file read now, to be stored with the new game (it keeps that deck
        whatever later edits): one broken since the server started is a 409 naming it."""
        try:
            return setup_deck(rules)
        except (GameError, ValueError, OSError) as exc:
            raise BadInput(f"the deck for {rules.title} cannot be read: {exc}", 409) from None

    # -- state ---------------------------------------------------------------------------
    @storage_guarded
    def result(self, game_id: int) -> ReplayResult:
        return self._result_at(game_id)[1]

    def _result_at(self, game_id: int, head: int | None = None) -> tuple[int, ReplayResult]:
        """(the log's head, the game replayed up to exactly that head), cached per head.
        ``head``: the head the caller read (in its read transaction), else read now."""
        with self._lock, self.log.reading():
            if head is None:
                head = self.log.head(game_id)
            cached = self._cache.get(game_id)
            if cached is not None and cached.head == head:
                return head, cached.result
            try:
                result = self.log.rebuild(game_id)  # in the same read: the same head
            except LogError as exc:
                raise BadInput(f"this game's log cannot be replayed: {exc}", 409) from None
            except sqlite3.Error:
                raise  # the database, not the rules: storage_guarded says so (503)
            except Exception as exc:  # a broken engine must not take the dashboard down
                log.exception("rebuilding game %s failed", game_id)
                raise BadInput(f"the rules failed replaying this game: {exc}", 409) from None
            self._cache.put(game_id, _Cached(head, result))
            return head, result

    def _read(self, game_id: int) -> _Feed:
        """The game's entries up to the head now (call under the lock, in a read): the
        cached ones and those stored after them."""
        cached = self._feeds.get(game_id)
        if cached is None:
            cached = _Feed(list(self.log.entries(game_id)))
            self._feeds.put(game_id, cached)
        else:
            after = cached.entries[-1].seq if cached.entries else 0
            cached.entries.extend(self.log.entries_after(game_id, after))
        return cached

    @storage_guarded
    def snapshot(self, game_id: int) -> dict[str, Any]:
        """Everything the pages show about one game, as JSON-compatible data, all of one
        log head. The feed's entries are shared with other snapshots: read them, never
        change them."""
        with self._lock, self.log.reading():
            record = self.record(game_id)
            if "game" in record.unreadable:  # no rules to show it by
                raise BadInput(str(record.error), 409)
            rules = self.game_rules(record)
            out: dict[str, Any] = {
                "game": {
                    "id": record.id,
                    "name": record.game,
                    "title": rules.title,
                    "players": list(record.players),
                    "options": record.options,
                    "created_at": record.created_at,
                    "ended_at": record.ended_at,
                    "result": record.result,
                },
                "error": record.error,  # a replay that fails says its own reason instead
            }
            cached = self._read(game_id)
            entries = cached.entries
            out["head"] = entries[-1].seq if entries else 0
            result: ReplayResult | None = None
            try:
                result = self._result_at(game_id, out["head"])[1]
            except sqlite3.Error as exc:  # as ``result`` says it: a 503's line, not the rules'
                out["error"] = storage_error(exc, self.db_path).message
            except BadInput as exc:
                out["error"] = exc.message
            out["feed"] = self._feed(game_id, cached, result)
        if result is None:
            out["scoreboard"] = None
            out["view"] = {}
            out["table"] = []
            return out
        # outside the lock: a result's state is never changed (appends make a new one)
        try:
            out["scoreboard"] = _jsonable(rules.scoreboard(result.state).to_dict())
            out["view"] = _jsonable(rules.view(result.state))
            # the "On the table" lines; a game registered without them (a house variant) has none
            table = getattr(rules, "table", None)
            out["table"] = [line.to_dict() for line in table(result.state)] if table else []
        except BadInput as exc:
            out["error"] = exc.message
            out["scoreboard"] = None
            out["view"] = {}
            out["table"] = []
        return out

    def _feed(self, game_id: int, cached: _Feed, result: ReplayResult | None) -> list[dict]:
        """The feed of ``cached.entries`` against ``result``: the items already built for
        them, when nothing an event can change retroactively changed, plus the new ones."""
        reviews = self.settings.reviews(game_id)
        entries, items = cached.entries, cached.items
        if (
            items is None
            or result is None
            or cached.result is None
            or not _grown(cached.result, result, len(items), entries)
        ):
            items = _feed_items(entries, result, reviews)
        else:
            items.extend(_feed_items(entries[len(items) :], result, reviews))  # ours alone
            if reviews != cached.reviews:  # an accept: those entries only, as new dicts
                for i, item in enumerate(items):
                    if item["review"] != reviews.get(item["seq"]):
                        items[i] = {**item, "review": reviews.get(item["seq"])}
        cached.items, cached.result, cached.reviews = items, result, reviews
        return list(items)

    # -- changes -------------------------------------------------------------------------
    def _open_record(self, game_id: int, *, ending: bool = False) -> GameRecord:
        """The game's record, if it may be changed: 409 when it has ended, or when it cannot
        be replayed because its row cannot be read (ending it still may: ``end``)."""
        record = self.record(game_id)
        if record.ended_at is not None:
            raise BadInput(ENDED, 409)
        if record.error is not None and (
            "game" in record.unreadable or not (ending or record.replayable)
        ):
            raise BadInput(f"{record.error}; nothing was stored", 409)
        return record

    @storage_guarded
    def append(self, game_id: int, event: Event, key: str | None = None) -> dict[str, Any]:
        """Check ``event`` against the rules, then store and announce it. Checked against
        the head it is stored after: when another writer moved the head meanwhile, it is
        checked again on the new one (``LogConflict``), never stored on a stale state.

        ``key``: the send's key (LOG-4). A send the game already holds (a tablet sending
        again what it got no answer for) is not checked nor stored again: the answer is the
        entry it was stored as, its verdicts as the feed shows them, and ``duplicate``."""
        if key is not None:
            self.record(game_id)  # no such game: 404, as without a key
            stored = self.log.sent(game_id, key)
            if stored is not None:
                return self._already(game_id, stored)
        add = self._append_meta if event.kind in META_KINDS else self._append_play
        return self._store(game_id, lambda: add(game_id, event, key))

    def _store(self, game_id: int, add: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """Run ``add`` (check, then store) and announce what it stored; again when another
        writer moved the head in between (``LogConflict``)."""
        for first in list(self.before_store):
            first(game_id)
        for _ in range(APPEND_TRIES):
            try:
                out = add()
            except LogConflict:
                continue
            except AlreadyStored as exc:  # sent again while its first send was being stored
                return self._already(game_id, exc.seq)
            except GameEnded:  # another server ended it after it was checked (LOG-1)
                raise BadInput(ENDED, 409) from None
            self._publish(game_id, "event")
            return out
        raise BadInput("another server keeps writing to this game's log; try again", 503)

    def _already(self, game_id: int, seq: int) -> dict[str, Any]:
        """The answer to a send already stored as entry ``seq`` (LOG-4)."""
        try:
            feed = self.snapshot(game_id).get("feed", [])
        except BadInput:  # a game whose rules cannot be read: stored all the same
            feed = []
        item = next((i for i in feed if i["seq"] == seq), None)
        verdicts = item["verdicts"] if item is not None else []
        return {"seq": seq, "verdicts": verdicts, "duplicate": True}

    def _append_play(self, game_id: int, event: Event, key: str | None) -> dict[str, Any]:
        with self._lock:
            record = self._open_record(game_id)
            _refuse_seat_off_table(event, len(record.players))
            rules = self.game_rules(record)
            head, result = self._result_at(game_id)
            try:
                state, verdicts = rules.apply(result.state, event)
            except (EventError, GameError, ValueError, KeyError, TypeError) as exc:
                raise BadInput(f"{event.kind}: {exc}") from None
            except Exception as exc:
                log.exception("the rules failed on %r", event)
                raise BadInput(
                    f"{event.kind}: the referee could not read this event ({exc})"
                ) from None
            seq = self.log.append(game_id, event, after=head, key=key)
            # a new result, not the cached one changed: a snapshot being built from it on
            # another thread (outside the lock) must not see its state and steps move apart
            steps = [*result.steps, Step(seq, event, tuple(verdicts))]
            grown = ReplayResult(state, steps, set(result.disregarded))
            self._cache.put(game_id, _Cached(seq, grown))
        return {"seq": seq, "verdicts": [_jsonable(v.to_dict()) for v in verdicts]}

    def _append_meta(
        self, game_id: int, event: Event, key: str | None, replaces: int | None = None
    ) -> dict[str, Any]:
        """Check and store an undo or overrule. ``replaces`` (an overrule only): the
        overrule in force on its target, undone in the same transaction (WEB-11)."""
        with self._lock:
            record = self._open_record(game_id)
            _refuse_seat_off_table(event, len(record.players))
            rules = self.game_rules(record)
            try:
                logged = self.log.events(game_id)
            except LogError as exc:
                raise BadInput(str(exc), 409) from None
            seq = (logged[-1][0] if logged else 0) + 1
            if event.kind == "overrule":
                # replay would drop the replacement of a meta event: the overrule would only
                # switch the undo/overrule it targets off, while the tablet heard "overruled"
                target = event.get("target")
                aimed = next((e for s, e in logged if s == target), None)
                why = overrule_target_refusal(target, aimed) if aimed is not None else None
                if why is not None:  # replay refuses such a log in the same words
                    raise BadInput(f"overrule: {why}")
            before: list[tuple[int, Event]] = []  # what is stored with it, before it
            if replaces is not None:
                _refuse_wrong_replaces(event.get("target"), replaces, logged)
                before.append((seq, Event("undo", payload={"target": replaces})))
            _refuse_stale_meta(event, [*logged, *before])
            added = [*before, (seq + len(before), event)]
            try:
                result = replay(rules, record.players, record.options, [*logged, *added])
            except (ReplayError, EventError, GameError, ValueError, KeyError, TypeError) as exc:
                raise BadInput(f"{event.kind}: {exc}") from None
            except Exception as exc:
                log.exception("replay with %r failed", event)
                raise BadInput(f"{event.kind}: the referee could not replay this ({exc})") from None
            if before:  # no key: an overrule is not sent with one (LOG-4)
                *undone, stored = self.log.append_many(
                    game_id, [e for _, e in added], after=seq - 1
                )
            else:
                undone, stored = [], self.log.append(game_id, event, after=seq - 1, key=key)
            self._cache.put(game_id, _Cached(stored, result))
        target = event.get("target")
        verdicts = [_jsonable(v.to_dict()) for s, v in result.verdicts if s == target]
        out: dict[str, Any] = {"seq": stored, "verdicts": verdicts}
        if undone:
            out["undo"] = undone[0]  # the entry that undid ``replaces``
        return out

    def undo(self, game_id: int, target: Any) -> dict[str, Any]:
        return self.append(game_id, Event("undo", payload={"target": target}, source=Source.MANUAL))

    @storage_guarded
    def overrule(
        self, game_id: int, target: Any, replacement: Any, replaces: Any = None
    ) -> dict[str, Any]:
        """Overrule entry ``target``. ``replaces``: the overrule in force on it, which this
        one takes the place of: its undo and this overrule are stored together, or neither
        (a refused correction leaves the earlier one in force, WEB-11)."""
        try:
            new = Event.from_dict(replacement)
        except EventError as exc:
            raise BadInput(f"overrule: {exc}") from None
        if new.kind in META_KINDS:
            raise BadInput("overrule: the replacement must be a game event, not undo/overrule")
        event = Event("overrule", payload={"target": target, "event": new.to_dict()})
        if replaces is None:
            return self.append(game_id, event)
        if not isinstance(replaces, int) or isinstance(replaces, bool):
            raise BadInput("overrule: 'replaces' must be an event number")
        return self._store(game_id, lambda: self._append_meta(game_id, event, None, replaces))

    @storage_guarded
    def accept(self, game_id: int, seq: Any) -> None:
        """Mark a verdict reviewed (WEB-2). An ended game's history is closed: 409, as for
        its events, undos and overrules (its console shows no buttons any more)."""
        self.record(game_id)
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise BadInput("accept: 'seq' must be an event number")
        with self._lock, self.log.reading():
            if self.record(game_id).ended_at is not None:  # under the lock ``end`` holds
                raise BadInput(ENDED, 409)
            logged = {e.seq for e in self._read(game_id).entries}
        if seq not in logged:
            raise BadInput(f"accept: there is no event {seq} in this game", 404)
        self.settings.review(game_id, seq, "accepted")
        self._publish(game_id, "review")

    @storage_guarded
    def end(self, game_id: int) -> dict[str, Any]:
        """End a game now. Unfinished: the leaders at that moment are its winners (WEB-1).
        A game whose log no longer replays (an entry that cannot be read) ends too, with no
        winners and the reason: else it could never end, nor the console move on from it.
        The result is of the head it is stored at: when another server logged an event
        meanwhile it is worked out again, and a game that server ended is not ended twice."""
        for _ in range(APPEND_TRIES):
            with self._lock:
                record = self._open_record(game_id, ending=True)
                head, summary = self._summary(game_id, record)
                try:
                    self.log.end_game(game_id, summary, after=head)
                except LogConflict:
                    continue
                except GameEnded:
                    raise BadInput(ENDED, 409) from None
            self._publish(game_id, "ended")
            return summary
        raise BadInput("another server keeps writing to this game's log; try again", 503)

    def _summary(self, game_id: int, record: GameRecord) -> tuple[int, dict[str, Any]]:
        """(the log's head, the game's result at that head) for ``end`` (WEB-1)."""
        rules = self.game_rules(record)
        with self.log.reading():
            head = self.log.head(game_id)
            try:
                board = rules.scoreboard(self._result_at(game_id, head)[1].state)
            except BadInput as exc:
                if exc.status != 409:
                    raise
                return head, {
                    "scoreboard": None,
                    "winners": [],
                    "winner_names": [],
                    "finished": False,
                    "unreadable": exc.message,
                }
        winners = list(board.winners) if board.finished else _ahead(board)
        return head, {
            "scoreboard": _jsonable(board.to_dict()),
            "winners": winners,
            "winner_names": [record.players[s] for s in winners if s < len(record.players)],
            "finished": board.finished,
        }

    def _publish(self, game_id: int, why: str) -> None:
        """Tell the tablets and the listeners. The snapshot is built and handed to the hub
        under the lock, so the hub gets snapshots in the order of the heads they show (a
        late, older one would overwrite a newer one on a tablet: a stream sends a whole
        ``state`` to a tablet that is ahead); the listeners are told in that order too."""
        with self._lock:
            self.changes += 1
            try:
                snap = self.snapshot(game_id)
            except BadInput as exc:
                snap = {"game": {"id": game_id}, "error": exc.message}
            snap["why"] = why
            self.hub.publish("game", snap)
            self._told.post(lambda: self._tell(game_id, snap))
        self._told.drain()

    def _tell(self, game_id: int, snap: dict[str, Any]) -> None:
        for listener in list(self.listeners):
            try:
                listener(game_id, snap)
            except Exception:
                log.exception("a listener of game %s failed", game_id)


def _grown(before: ReplayResult, after: ReplayResult, built: int, entries: list[LogEntry]) -> bool:
    """Whether the feed items built for ``entries[:built]`` against ``before`` are still
    right against ``after``: the entries since are game events (an undo or overrule can
    change any earlier entry) and ``after`` replayed every earlier entry as ``before`` did
    (the same steps: an append grows the result it checked against; another server's
    replay makes equal ones)."""
    if any(e.event is None or e.event.kind in META_KINDS for e in entries[built:]):
        return False
    old, new = before.steps, after.steps
    if len(new) < len(old):
        return False
    last = entries[built - 1].seq if built else 0
    if any(step.seq <= last for step in new[len(old) :]):
        return False
    return all(a is b or a == b for a, b in zip(old, new, strict=False))


def _feed_items(
    entries: Sequence[LogEntry], result: ReplayResult | None, reviews: Mapping[int, str]
) -> list[dict[str, Any]]:
    """The feed items of ``entries`` (all of the log's, or game events added after the
    items already built), as the game replayed in ``result`` (None: it did not) judged them."""
    first = entries[0].seq if entries else 0
    steps: dict[int, Step] = {}
    for step in reversed(result.steps if result is not None else []):
        if step.seq < first:
            break
        steps[step.seq] = step
    active = meta_status([(e.seq, e.event) for e in entries if e.event is not None])
    feed = []
    for entry in entries:
        item: dict[str, Any] = {
            "seq": entry.seq,
            "at": entry.recorded_at,
            "review": reviews.get(entry.seq),
            "verdicts": [],
        }
        if entry.event is None:
            item.update(status="corrupt", event=None, error=entry.error)
            feed.append(item)
            continue
        event = entry.event
        item["event"] = _jsonable(event.to_dict())
        if event.kind in META_KINDS:
            item["status"] = "meta" if active.get(entry.seq) else "meta-undone"
        elif entry.seq in steps:
            step = steps[entry.seq]
            item["verdicts"] = [_jsonable(v.to_dict()) for v in step.verdicts]
            if step.event != event:
                item["status"] = "overruled"
                item["replacement"] = _jsonable(step.event.to_dict())
            else:
                item["status"] = "ok"
        else:
            item["status"] = "undone" if result else "unknown"
        feed.append(item)
    return feed


def _refuse_seat_off_table(event: Event, players: int) -> None:
    """A 400 for a new event whose seat (or its overrule's replacement's) is not at the
    table, whatever its kind, before anything is stored. The engines ignore a seat on a kind
    that needs none, as the games stored before this check were judged, so it is refused here,
    where new events come in, and those games still replay."""
    seats = [("", event.seat)]
    replacement = event.get("event") if event.kind == "overrule" else None
    if isinstance(replacement, Mapping):
        seats.append(("the replacement's ", replacement.get("seat")))
    for whose, seat in seats:
        if isinstance(seat, int) and not isinstance(seat, bool) and not 0 <= seat < players:
            raise BadInput(
                f"{event.kind}: {whose}seat {seat} is not at this table ({players} players)"
            )


def _ahead(board: Scoreboard) -> list[int]:
    """An unfinished game's winners when it is ended (WEB-1): its leaders, unless every
    player leads (all level, as at the start): then nobody has won it."""
    leaders = list(board.leaders)
    return leaders if len(leaders) < len(board.players) else []
