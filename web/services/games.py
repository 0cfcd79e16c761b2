"""Games for the dashboard: create, rebuild, append (validated first), undo, overrule, end.

The event log stays the single truth. An event is stored only after the game's rules
accepted its shape (``EventError`` and friends -> ``BadInput``, nothing stored); an
illegal *play* is stored with its ``illegal`` verdict, because it did happen at the table.
Rebuilt states are cached per game and refreshed when the log's head moves.
"""

from __future__ import annotations

import functools
import logging
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from referee.eventlog import EventLog, GameRecord, LogConflict, LogError, storage_problem
from referee.events import Event, EventError, Source
from referee.game import Game, GameError, OptionSpec, Scoreboard
from referee.registry import UnknownGameError, find_game, game_names
from referee.replay import META_KINDS, ReplayError, ReplayResult, Step, replay
from web.errors import BadInput
from web.services.hub import Hub
from web.services.settings import Settings

log = logging.getLogger(__name__)

MAX_PLAYERS_NAME = 40
# appends tried again when another writer (a second server on the file) moved the head
APPEND_TRIES = 3

P = ParamSpec("P")
R = TypeVar("R")


def storage_error(exc: sqlite3.Error, db_path: Path | None = None) -> BadInput:
    """A database that cannot be used right now, as one line with status 503: the request
    may work later (space freed, the lock released), and nothing already logged is touched
    (SQLite rolled the change back). ``db_path`` lets an I/O error name its cause (a full or
    read-only SD card, ``referee.eventlog.storage_problem``)."""
    why = storage_problem(exc, db_path)
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
                "default": _jsonable(s.default),
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
    if kind in ("int", "float"):
        try:
            return int(text) if kind == "int" else float(text)
        except ValueError:
            raise BadInput(f"option {spec.name!r} must be a number, got {value!r}") from None
    if kind == "list":
        tokens = [t for t in text.replace(",", " ").split() if t]
        if all(isinstance(d, int) for d in spec.default):
            return [int(t) if t.lstrip("-").isdigit() else t for t in tokens]
        return tokens
    return value


@dataclass
class _Cached:
    head: int
    result: ReplayResult


class ReplayCache:
    """The replayed states of the games looked at last (``size`` of them): the running game
    and a few the History page opened. An evening of games would otherwise keep every
    game's replay in memory; one evicted is replayed again from the log when next wanted."""

    def __init__(self, size: int = 8) -> None:
        self.size = size
        self._items: OrderedDict[int, _Cached] = OrderedDict()

    def get(self, game_id: int) -> _Cached | None:
        item = self._items.get(game_id)
        if item is not None:
            self._items.move_to_end(game_id)
        return item

    def put(self, game_id: int, item: _Cached) -> None:
        self._items[game_id] = item
        self._items.move_to_end(game_id)
        while len(self._items) > self.size:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)


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


class GameService:
    def __init__(self, db_path: Path, settings: Settings, hub: Hub) -> None:
        self.log = EventLog(db_path)
        self.db_path = Path(db_path)
        self.settings = settings
        self.hub = hub
        self._lock = threading.RLock()
        self._cache = ReplayCache()
        # bumped on every published change (create, event, review, end): readers in a loop
        # (the camera referee) look at the database again only when it has moved
        self.changes = 0
        # called with (game id, snapshot) after each published change, outside the lock
        # (the pads' race timer); a listener's error is logged, never the caller's
        self.listeners: list[Callable[[int, dict[str, Any]], None]] = []

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
        try:
            return find_game(name)
        except UnknownGameError as exc:
            raise BadInput(str(exc)) from None
        except Exception as exc:
            raise BadInput(f"the rules for {name!r} cannot be loaded: {exc}", 409) from None

    # -- records -------------------------------------------------------------------------
    @storage_guarded
    def records(self) -> list[GameRecord]:
        """Every game, oldest first."""
        return self.log.games()

    @storage_guarded
    def record(self, game_id: int) -> GameRecord:
        if not 0 < game_id < 2**62:  # SQLite integers are 64-bit
            raise BadInput(f"there is no game {game_id}", 404)
        try:
            return self.log.game(game_id)
        except LogError:
            raise BadInput(f"there is no game {game_id}", 404) from None

    @storage_guarded
    def log_file(self, game_id: int) -> tuple[str, list[str]]:
        """(the game's name, its JSON-lines log as ``tabletop replay`` reads it); 404 for no
        such game."""
        name = self.record(game_id).game
        return name, self.log.log_lines(game_id)

    @storage_guarded
    def current_id(self) -> int | None:
        """The latest game started (running or not), else None: what the scoreboard, the
        console, the pads and the camera follow. Not the latest *running* one: a game left
        running when the family started another would come back when that one ended."""
        games = self.log.games()
        return games[-1].id if games else None

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
        players = [p.strip() for p in players]
        try:
            game_id = self.log.create_game(rules.name, players, typed)
        except (GameError, ValueError, TypeError) as exc:
            raise BadInput(str(exc)) from None
        self._publish(game_id, "created")
        return game_id

    # -- state ---------------------------------------------------------------------------
    @storage_guarded
    def result(self, game_id: int) -> ReplayResult:
        return self._result_at(game_id)[1]

    def _result_at(self, game_id: int) -> tuple[int, ReplayResult]:
        """(the log's head, the game replayed up to at least that head), cached per head."""
        with self._lock:
            head = self.log.head(game_id)
            cached = self._cache.get(game_id)
            if cached is not None and cached.head == head:
                return head, cached.result
            try:
                result = self.log.rebuild(game_id)
            except LogError as exc:
                raise BadInput(f"this game's log cannot be replayed: {exc}", 409) from None
            except sqlite3.Error:
                raise  # the database, not the rules: storage_guarded says so (503)
            except Exception as exc:  # a broken engine must not take the dashboard down
                log.exception("rebuilding game %s failed", game_id)
                raise BadInput(f"the rules failed replaying this game: {exc}", 409) from None
            self._cache.put(game_id, _Cached(head, result))
            return head, result

    @storage_guarded
    def snapshot(self, game_id: int) -> dict[str, Any]:
        """Everything the pages show about one game, as JSON-compatible data."""
        record = self.record(game_id)
        rules = self.rules(record.game)
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
            "error": None,
        }
        entries = list(self.log.entries(game_id))
        out["head"] = entries[-1].seq if entries else 0
        try:
            result = self.result(game_id)
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
            result = None
        out["feed"] = self._feed(game_id, entries, result)
        return out

    def _feed(self, game_id: int, entries: list[Any], result: ReplayResult | None) -> list[dict]:
        steps: dict[int, Step] = {s.seq: s for s in result.steps} if result else {}
        logged = [(e.seq, e.event) for e in entries if e.event is not None]
        active = meta_status(logged)
        reviews = self.settings.reviews(game_id)
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

    # -- changes -------------------------------------------------------------------------
    def _open_record(self, game_id: int) -> GameRecord:
        record = self.record(game_id)
        if record.ended_at is not None:
            raise BadInput("this game has ended; start a new one on the Setup page", 409)
        return record

    @storage_guarded
    def append(self, game_id: int, event: Event) -> dict[str, Any]:
        """Check ``event`` against the rules, then store and announce it. Checked against
        the head it is stored after: when another writer moved the head meanwhile, it is
        checked again on the new one (``LogConflict``), never stored on a stale state."""
        add = self._append_meta if event.kind in META_KINDS else self._append_play
        for _ in range(APPEND_TRIES):
            try:
                out = add(game_id, event)
            except LogConflict:
                continue
            self._publish(game_id, "event")
            return out
        raise BadInput("another server keeps writing to this game's log; try again", 503)

    def _append_play(self, game_id: int, event: Event) -> dict[str, Any]:
        with self._lock:
            record = self._open_record(game_id)
            rules = self.rules(record.game)
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
            seq = self.log.append(game_id, event, after=head)
            # a new result, not the cached one changed: a snapshot being built from it on
            # another thread (outside the lock) must not see its state and steps move apart
            steps = [*result.steps, Step(seq, event, tuple(verdicts))]
            grown = ReplayResult(state, steps, set(result.disregarded))
            self._cache.put(game_id, _Cached(seq, grown))
        return {"seq": seq, "verdicts": [_jsonable(v.to_dict()) for v in verdicts]}

    def _append_meta(self, game_id: int, event: Event) -> dict[str, Any]:
        with self._lock:
            record = self._open_record(game_id)
            rules = self.rules(record.game)
            try:
                logged = self.log.events(game_id)
            except LogError as exc:
                raise BadInput(str(exc), 409) from None
            seq = (logged[-1][0] if logged else 0) + 1
            if event.kind == "overrule":
                # replay would drop the replacement of a meta event: the overrule would only
                # switch the undo/overrule it targets off, while the tablet heard "overruled"
                target = event.get("target")
                meta = next((e for s, e in logged if s == target and e.kind in META_KINDS), None)
                if meta is not None:
                    raise BadInput(
                        f"overrule: event {target} is an {meta.kind}, not a game event; "
                        "undo it instead"
                    )
            try:
                result = replay(rules, record.players, record.options, [*logged, (seq, event)])
            except (ReplayError, EventError, GameError, ValueError, KeyError, TypeError) as exc:
                raise BadInput(f"{event.kind}: {exc}") from None
            except Exception as exc:
                log.exception("replay with %r failed", event)
                raise BadInput(f"{event.kind}: the referee could not replay this ({exc})") from None
            stored = self.log.append(game_id, event, after=seq - 1)
            self._cache.put(game_id, _Cached(stored, result))
        target = event.get("target")
        verdicts = [_jsonable(v.to_dict()) for s, v in result.verdicts if s == target]
        return {"seq": stored, "verdicts": verdicts}

    def undo(self, game_id: int, target: Any) -> dict[str, Any]:
        return self.append(game_id, Event("undo", payload={"target": target}, source=Source.MANUAL))

    def overrule(self, game_id: int, target: Any, replacement: Any) -> dict[str, Any]:
        try:
            new = Event.from_dict(replacement)
        except EventError as exc:
            raise BadInput(f"overrule: {exc}") from None
        if new.kind in META_KINDS:
            raise BadInput("overrule: the replacement must be a game event, not undo/overrule")
        return self.append(
            game_id, Event("overrule", payload={"target": target, "event": new.to_dict()})
        )

    @storage_guarded
    def accept(self, game_id: int, seq: Any) -> None:
        self.record(game_id)
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise BadInput("accept: 'seq' must be an event number")
        if seq not in {e.seq for e in self.log.entries(game_id)}:
            raise BadInput(f"accept: there is no event {seq} in this game", 404)
        self.settings.review(game_id, seq, "accepted")
        self._publish(game_id, "review")

    @storage_guarded
    def end(self, game_id: int) -> dict[str, Any]:
        """End a game now. Unfinished: the leaders at that moment are its winners (WEB-1).
        A game whose log no longer replays (an entry that cannot be read) ends too, with no
        winners and the reason: else it could never end, nor the console move on from it."""
        with self._lock:
            record = self._open_record(game_id)
            rules = self.rules(record.game)
            try:
                board = rules.scoreboard(self.result(game_id).state)
            except BadInput as exc:
                if exc.status != 409:
                    raise
                summary: dict[str, Any] = {
                    "scoreboard": None,
                    "winners": [],
                    "winner_names": [],
                    "finished": False,
                    "unreadable": exc.message,
                }
            else:
                winners = list(board.winners) if board.finished else _ahead(board)
                summary = {
                    "scoreboard": _jsonable(board.to_dict()),
                    "winners": winners,
                    "winner_names": [record.players[s] for s in winners if s < len(record.players)],
                    "finished": board.finished,
                }
            self.log.end_game(game_id, summary)
        self._publish(game_id, "ended")
        return summary

    def _publish(self, game_id: int, why: str) -> None:
        self.changes += 1
        try:
            snap = self.snapshot(game_id)
        except BadInput as exc:
            snap = {"game": {"id": game_id}, "error": exc.message}
        snap["why"] = why
        self.hub.publish("game", snap)
        for listener in list(self.listeners):
            try:
                listener(game_id, snap)
            except Exception:
                log.exception("a listener of game %s failed", game_id)


def _ahead(board: Scoreboard) -> list[int]:
    """An unfinished game's winners when it is ended (WEB-1): its leaders, unless every
    player leads (all level, as at the start): then nobody has won it."""
    leaders = list(board.leaders)
    return leaders if len(leaders) < len(board.players) else []
