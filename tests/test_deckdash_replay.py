"""A complete scripted 12-Dash game, replayed from its event log to a known score table.

``tests/data/deck-dash-12.jsonl`` holds a whole Advanced game for three players (made by
the random table of test_deckdash_conformance; run this file as a script to remake it).
The expected table is not the engine's output: ``count_hands`` below re-counts every hand
from the events alone (dealt 12, +1 per card drawn, −1 per card laid, handed off,
played or discarded) and scores each round by the rule book: the finisher 0, everyone
else 1 point per card; a "First to …" Dash 3 for the layer and 12 for the others.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.deckdash.game import GAME
from referee.eventlog import EventLog
from referee.events import Event
from referee.replay import replay
from referee.replay_cli import read_jsonl, replay_file

LOG = Path(__file__).parent / "data" / "deck-dash-12.jsonl"
# Rule book, Advanced list: "7. First to 4 sets of 3 same color", "12. First to 3 sets of 3
# same number" (and "the winner acquiring 3 points and the others 12 points").
FIRST_TO = {"advanced": {7, 12}, "easy": set()}


@dataclass
class Counted:
    """Round by round, counted from the events alone."""

    rounds: list[tuple[int | None, list[int]]] = field(default_factory=list)  # winner, scores

    def totals(self, n: int, played: int) -> list[int]:
        return [sum(scores[s] for _, scores in self.rounds[:played]) for s in range(n)]

    def won(self, n: int, played: int) -> list[int]:
        return [sum(1 for w, _ in self.rounds[:played] if w == s) for s in range(n)]


def count_hands(level: str, dashes: list[int], events: list[Event], n: int) -> Counted:
    out = Counted()
    counts: list[int] = []
    laid: set[int] = set()
    dash = 0
    for e in events:
        seat = e.seat if e.seat is not None else -1
        if e.kind == "deal":
            counts = [len(h) for h in e.payload["hands"]]
            laid = set()
            dash = dashes[min(len(out.rounds), len(dashes) - 1)]
            continue
        if e.kind == "draw":
            counts[seat] += 1
        elif e.kind == "lay":
            counts[seat] -= len(e.payload["cards"])
            laid.add(seat)
            if dash in FIRST_TO[level]:
                out.rounds.append((seat, [3 if s == seat else 12 for s in range(n)]))
                continue
        elif e.kind in ("handoff", "play", "discard"):
            counts[seat] -= 1
        if e.kind in ("lay", "handoff", "discard") and seat in laid and counts[seat] == 0:
            out.rounds.append((seat, list(counts)))
    return out


def load() -> tuple[str, list[str], dict[str, Any], list[Event]]:
    return read_jsonl(LOG, None)


def expected_table() -> tuple[list[int], list[int], list[int]]:
    """(totals, Dashes won, winners) counted from the log and the rule book."""
    _, players, options, events = load()
    n = len(players)
    counted = count_hands(options.get("level", "easy"), list(range(1, 13)), events, n)
    totals, won = counted.totals(n, 12), counted.won(n, 12)
    best = max(won)
    tied = [s for s in range(n) if won[s] == best]
    low = min(totals[s] for s in tied)
    tied = [s for s in tied if totals[s] == low]
    if len(tied) > 1:  # the tied players replayed the last Dash: its finisher wins
        tied = [counted.rounds[-1][0]]  # type: ignore[list-item]
    return totals, won, tied


def test_twelve_dash_game_replays_to_the_counted_score_table() -> None:
    name, players, options, events = load()
    assert name == "deck-dash" and sum(e.kind == "deal" for e in events) >= 12
    result = replay(GAME, players, options, events)
    board = GAME.scoreboard(result.state)
    totals, won, winners = expected_table()
    assert board.finished and len(board.rounds) == 12
    assert [r.dash for r in result.state.results] == list(range(1, 13))  # in order 1-12
    assert list(board.totals) == totals
    assert board.extra["dashes_won"] == won
    assert list(board.winners) == winners
    assert not [v for v in result.verdicts if v[1].outcome.value == "illegal"]


def test_replay_gives_the_same_state_as_live_play() -> None:
    _, players, options, events = load()
    state = GAME.new_state(players, options)
    for event in events:
        state, _ = GAME.apply(state, event)
    assert replay(GAME, players, options, events).state == state


def test_twelve_dash_game_round_trips_through_the_sqlite_event_log(tmp_path: Path) -> None:
    _, players, options, events = load()
    log = EventLog(tmp_path / "tabletop.db")
    game_id = log.create_game("deck-dash", players, options)
    for event in events:
        log.append(game_id, event)
    rebuilt = log.rebuild(game_id)
    log.close()
    assert rebuilt.state == replay(GAME, players, options, events).state
    assert list(GAME.scoreboard(rebuilt.state).totals) == expected_table()[0]


def test_tabletop_replay_prints_the_final_table() -> None:
    out = replay_file(LOG)
    assert out["scoreboard"]["totals"] == expected_table()[0]
    cli = subprocess.run(
        [sys.executable, "-m", "referee.cli", "replay", "--compact", str(LOG)],
        capture_output=True,
        text=True,
        check=True,
    )
    printed = json.loads(cli.stdout)
    assert printed["scoreboard"] == out["scoreboard"]


def test_table_mode_log_replays_with_counts_and_a_tally() -> None:
    """Ana: 12 + 2 draws − 6 laid − 6 handed off − 2 discarded = 0; Bea tallied at 11."""
    out = replay_file(Path(__file__).parent / "data" / "deck-dash-table.jsonl")
    assert out["scoreboard"]["totals"] == [0, 11]
    assert out["scoreboard"]["winners"] == [0]
    assert not [v for v in out["verdicts"] if v["outcome"] == "illegal"]


def write_log(path: Path, seed: int) -> None:
    """Play a random legal Advanced game for three and store it (header, then events)."""
    from tests.test_deckdash_conformance import RandomTable

    players = ["Ana", "Bea", "Cy"]
    table = RandomTable(random.Random(seed), players, {"level": "advanced"})
    table.return_with_discard = False
    table.action_rate = 0.1
    table.discard_plays = False  # draw cards are played with "play", so a discard is a discard
    table.play()
    counted = count_hands("advanced", list(range(1, 13)), table.events, 3)
    lines = [
        f"# Deck Dash, Advanced, {', '.join(players)}: a complete 12-Dash game (seed {seed}).",
        "# Round by round (winner: scores), counted from the hands left in these events:",
    ]
    for i, (winner, scores) in enumerate(counted.rounds, start=1):
        who = players[winner] if winner is not None else "nobody"
        lines.append(f"#   round {i}: {who} wins; scores {scores}")
    lines.append(f"# Totals {counted.totals(3, 12)}; Dashes won {counted.won(3, 12)}.")
    header = {"game": "deck-dash", "players": players, "options": table.options}
    lines.append(json.dumps(header))
    lines += [e.to_json() for e in table.events]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_log(Path(sys.argv[1]), int(sys.argv[2]))


def test_undo_and_overrule_of_deck_dash_events() -> None:
    """A misread discard is overruled, a wrong draw undone: the log is never edited."""
    _, players, options, events = load()
    head = list(events[:3])  # deal, Bea draws, Bea discards a Deck Steal
    assert head[2].kind == "discard" and head[2].payload["card"] == "STEAL"
    log: list[tuple[int, Event]] = list(enumerate(head, start=1))
    plain = replay(GAME, players, options, log).state
    hand = [str(c) for c in plain.round.hands[1].known]
    other = next(c for c in hand if c != "STEAL")
    fix = {"kind": "discard", "seat": 1, "payload": {"card": other}}
    log.append((4, Event("overrule", None, {"target": 3, "event": fix})))
    fixed = replay(GAME, players, options, log).state
    assert str(fixed.round.discard[-1]) == other
    log.append((5, Event("undo", None, {"target": 4})))
    assert replay(GAME, players, options, log).state == plain
