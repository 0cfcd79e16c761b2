"""``tabletop demo``: referee the bundled scripted Deck Dash game and print the scoreboard.

The game (``referee/deckdash/data/demo.jsonl``) is a complete 12-Dash Advanced game for
three players, stored as an event log; the referee replays every event and checks it.
"""

from __future__ import annotations

import argparse
import json
import sys
from importlib import resources
from typing import Any

DEMO = ("referee.deckdash", "data/demo.jsonl")


def render(board: dict[str, Any]) -> str:
    """The scoreboard as a small text table: one row per Dash, totals, Dashes won, winner."""
    players = board["players"]
    width = max(6, *(len(p) for p in players))
    head = "Dash  " + " ".join(p.rjust(width) for p in players)
    lines = [head, "-" * len(head)]
    for i, scores in enumerate(board["rounds"], start=1):
        lines.append(f"{i:>4}  " + " ".join(str(s).rjust(width) for s in scores))
    lines.append("-" * len(head))
    lines.append("Total " + " ".join(str(t).rjust(width) for t in board["totals"]))
    won = board["extra"].get("dashes_won", [])
    lines.append("Won   " + " ".join(str(w).rjust(width) for w in won))
    winners = " and ".join(players[w] for w in board["winners"]) or "nobody yet"
    lines.append(f"Winner: {winners}")
    return "\n".join(lines)


def _demo(args: argparse.Namespace) -> int:
    from referee.replay_cli import replay_file

    with resources.as_file(resources.files(DEMO[0]).joinpath(DEMO[1])) as path:
        out = replay_file(path)
    illegal = [v for v in out["verdicts"] if v["outcome"] == "illegal"]
    if args.json:
        json.dump(out["scoreboard"], sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        events = len({v["seq"] for v in out["verdicts"]})
        print(f"Deck Dash demo: {events} events refereed, {len(illegal)} illegal.")
        print(render(out["scoreboard"]))
    return 1 if illegal else 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="referee a bundled scripted Deck Dash game; print the scores")
    p.add_argument("--json", action="store_true", help="print the scoreboard as JSON")
    p.set_defaults(handler=_demo)
