"""A minimal game used to test the generic machinery (replay, log, undo) in isolation.

Each ``add`` event adds ``n`` points to a seat; a negative total is illegal. It is a
real implementation of the Game protocol, just with trivial rules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from referee.events import Event, EventError
from referee.game import OptionSpec, Scoreboard, check_players, resolve_options
from referee.verdicts import Verdict, illegal, score


@dataclass(frozen=True)
class TallyState:
    players: tuple[str, ...]
    totals: tuple[int, ...]
    limit: int


class TallyGame:
    name = "tally"
    title = "Tally"
    min_players = 1
    max_players = 6

    def options(self) -> Sequence[OptionSpec]:
        return (OptionSpec("limit", 100, "points that end the game"),)

    def new_state(self, players: Sequence[str], options: Mapping[str, Any]) -> TallyState:
        names = check_players(self, players)
        opts = resolve_options(self.options(), options)
        return TallyState(names, (0,) * len(names), opts["limit"])

    def apply(self, state: TallyState, event: Event) -> tuple[TallyState, list[Verdict]]:
        if event.kind != "add":
            raise EventError(f"unknown event kind {event.kind!r}")
        n = event.require("n")
        seat = event.seat
        if seat is None or seat >= len(state.players):
            raise EventError("add needs a seat at the table")
        new_total = state.totals[seat] + n
        if new_total < 0:
            return state, [illegal("a total cannot go below zero", seat)]
        totals = state.totals[:seat] + (new_total,) + state.totals[seat + 1 :]
        return replace(state, totals=totals), [score(f"+{n}", seat, n=n)]

    def scoreboard(self, state: TallyState) -> Scoreboard:
        done = any(t >= state.limit for t in state.totals)
        return Scoreboard(
            game=self.name,
            players=state.players,
            totals=state.totals,
            round=1,
            finished=done,
            lower_is_better=False,
        )

    def view(self, state: TallyState) -> dict[str, Any]:
        return {"totals": list(state.totals)}

    def event_kinds(self) -> Mapping[str, str]:
        return {"add": "seat + {n: int}"}


GAME = TallyGame()
