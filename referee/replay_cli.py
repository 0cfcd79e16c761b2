"""``tabletop replay`` and ``tabletop games``: read an event log, print the outcome."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from referee.events import Event, EventError
from referee.game import GameError
from referee.jsonlines import json_lines
from referee.registry import UnknownGameError, find_game, game_names
from referee.replay import ReplayError, replay


class LogFileError(ValueError):
    """A line of a JSON-lines log is malformed; the message names the line."""


def read_jsonl(path: Path, game: str | None) -> tuple[str, list[str], dict[str, Any], list[Event]]:
    """A log file: an optional header line ``{"game":…, "players":[…], "options":{…}}``
    followed by one event per line. Blank lines and ``#`` comments are ignored."""
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
    return name, players, options, events


def replay_file(path: Path, game: str | None = None) -> dict[str, Any]:
    name, players, options, events = read_jsonl(path, game)
    rules = find_game(name)
    result = replay(rules, players, options, events)
    return {
        "game": rules.name,
        "scoreboard": rules.scoreboard(result.state).to_dict(),
        "state": rules.view(result.state),
        "verdicts": [
            {"seq": step.seq, "kind": step.event.kind, **v.to_dict()}
            for step in result.steps
            for v in step.verdicts
        ],
    }


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
