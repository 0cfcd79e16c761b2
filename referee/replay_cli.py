"""``tabletop replay`` and ``tabletop games``: read an event log, print the outcome."""

from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.decks import with_deck
from referee.events import Event, EventError
from referee.game import GameError
from referee.jsonlines import json_lines
from referee.registry import UnknownGameError, find_game, game_names
from referee.replay import ReplayError, replay


class LogFileError(ValueError):
    """A line of a JSON-lines log is malformed; the message names the line."""


@dataclass(frozen=True)
class LogFile:
    """A log file read: its header's game, players, options, deck (None: none recorded) and
    end (None: not ended on the dashboard), and its events."""

    game: str
    players: list[str]
    options: dict[str, Any]
    events: list[Event]
    deck: Any | None = None
    ended: dict[str, Any] | None = None


def read_jsonl(path: Path, game: str | None) -> tuple[str, list[str], dict[str, Any], list[Event]]:
    """A log file's game, players, options and events (``read_log`` has its whole header)."""
    log = read_log(path, game)
    return log.game, log.players, log.options, log.events


def read_log(path: Path, game: str | None) -> LogFile:
    """A log file: a header line ``{"game":…, "players":[…], "options":{…}}`` (``deck`` and
    ``ended`` where recorded) followed by one event per line. Blank lines and ``#`` comments
    are ignored."""
    header: dict[str, Any] | None = None
    events: list[Event] = []
    for where, data in json_lines(path, LogFileError):
        if isinstance(data, dict) and "players" in data and "kind" not in data:
            if header is not None or events:
                raise LogFileError(f"{where}: the header must be the first line")
            header = data
            continue
        try:
            events.append(Event.from_dict(data))
        except EventError as exc:
            raise LogFileError(f"{where}: {exc}") from None
    if header is None:
        raise LogFileError(f"{path}: missing header line with 'game' and 'players'")
    name = game or header.get("game")
    if not isinstance(name, str):
        raise LogFileError(f"{path}: no game named (use --game or the header's 'game')")
    players = header.get("players")
    if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
        raise LogFileError(f"{path}: header 'players' must be a list of names")
    options = header.get("options", {})
    if not isinstance(options, dict):
        raise LogFileError(f"{path}: header 'options' must be an object")
    ended = _ended(header.get("ended"), len(players), path)
    return LogFile(name, players, options, events, header.get("deck"), ended)


_ENDED_EXAMPLE = '{"at": 1767225600.0, "winners": [0]}'


def _ended(value: Any, players: int, path: Path) -> dict[str, Any] | None:
    """The header's ``ended`` (a game ended on the dashboard), checked; None when absent."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise LogFileError(f"{path}: header 'ended' must be an object like {_ENDED_EXAMPLE}")
    at, winners = value.get("at"), value.get("winners")
    number = isinstance(at, int | float) and not isinstance(at, bool) and math.isfinite(at)
    if at is not None and not (number and at >= 0):
        raise LogFileError(f"{path}: header 'ended': 'at' must be a time in seconds")
    seats = isinstance(winners, list) and all(_is_seat(w, players) for w in winners)
    if winners is not None and not seats:
        raise LogFileError(
            f"{path}: header 'ended': 'winners' must be a list of seats 0..{players - 1}"
        )
    return {key: value[key] for key in ("at", "winners") if value.get(key) is not None}


def _is_seat(value: Any, players: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < players


def replay_file(path: Path, game: str | None = None) -> dict[str, Any]:
    log = read_log(path, game)
    rules = with_deck(find_game(log.game), log.deck)
    result = replay(rules, log.players, log.options, log.events)
    out = {
        "game": rules.name,
        "scoreboard": rules.scoreboard(result.state).to_dict(),
        "state": rules.view(result.state),
        "verdicts": [
            {"seq": step.seq, "kind": step.event.kind, **v.to_dict()}
            for step in result.steps
            for v in step.verdicts
        ],
    }
    if log.ended is not None:  # as recorded: a replay never makes up an end (WEB-1)
        out["ended"] = _ended_out(log.ended, log.players)
    return out


def _ended_out(ended: dict[str, Any], players: list[str]) -> dict[str, Any]:
    """The recorded end as ``tabletop replay`` prints it: with the winners' names."""
    out = dict(ended)
    if "winners" in ended:
        out["winner_names"] = [players[w] for w in ended["winners"]]
    return out


def _replay(args: argparse.Namespace) -> int:
    # a game's own data file (Wash Dash's editable deck, read on first use) may be broken:
    # its error names the file; imported here so that other commands need not load the game
    from referee.washdash.deck import DeckError

    try:
        out = replay_file(Path(args.log), args.game)
    except OSError as exc:
        print(f"tabletop replay: cannot read {args.log}: {exc.strerror}", file=sys.stderr)
        return 2
    except (LogFileError, ReplayError, GameError, UnknownGameError, DeckError) as exc:
        print(f"tabletop replay: {exc}", file=sys.stderr)
        return 2
    json.dump(out, sys.stdout, indent=None if args.compact else 2)
    sys.stdout.write("\n")
    return 0


def _games(args: argparse.Namespace) -> int:
    for name in game_names():
        print(name)
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="replay a JSON-lines event log and print the final state")
    p.add_argument("log", help="event log (JSON lines; see docs/EVENTS.md)")
    p.add_argument("--game", help="game name, overriding the log's header")
    p.add_argument("--compact", action="store_true", help="one-line JSON")
    p.set_defaults(handler=_replay)
    g = sub.add_parser("games", help="list the games the referee knows")
    g.set_defaults(handler=_games)
