"""Table mode against the truth: random games refereed twice, side by side.

The "world" referee sees every card (the conformance driver's scripted game). A second
referee gets what a real table gives it: hand counts at the deal, an unseen draw pile,
unnamed draws (or named from the tablet), shuffles without an order, and the cards the
camera sees — turned up, played, cut to or flipped to. At the end of a round it is told the
hands it could not see. Both must agree on everything public after every event.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from referee.events import Event
from referee.hitthedeck.cards import format_card
from referee.hitthedeck.game import GAME
from referee.hitthedeck.state import HtdState, Phase
from referee.verdicts import Outcome
from tests.test_htd_conformance import RandomTable

GAMES = 100


def _as_seen(event: Event, world: HtdState, rng: random.Random) -> Event:
    """What the table referee is told about the world's ``event``."""
    payload = dict(event.payload)
    if event.kind == "deal":
        payload = {"hands": [len(h) for h in payload["hands"]]}
    elif event.kind == "shuffle":
        payload = {}
    elif event.kind == "turn_up":
        payload["card"] = format_card(world.draw[0])  # type: ignore[arg-type]
    elif event.kind == "draw":
        if world.draw and rng.random() < 0.5:  # the tablet names it, or nobody does
            payload["card"] = format_card(world.draw[0])  # type: ignore[arg-type]
    elif event.kind == "cut" and world.draw:
        payload["card"] = format_card(world.draw[payload["at"]])  # type: ignore[arg-type]
    elif event.kind == "flip" and world.draw:
        payload["card"] = format_card(world.draw[-1])  # type: ignore[arg-type]
    return Event(event.kind, event.seat, payload, event.t_ns, event.source)


def _public(state: HtdState) -> tuple[object, ...]:
    return (
        state.phase if state.phase is not Phase.SCORING else Phase.ROUND_OVER,
        state.round,
        state.turn,
        state.direction,
        state.top if state.need is None else "under a Flip being shuffled back",
        len(state.draw),
        len(state.discard),
        tuple(len(h) for h in state.hands),
        state.forced,
        state.require,
        state.need,
        state.race is not None,
        state.totals,
    )


def _catch_up(world: HtdState, table: HtdState, rng: random.Random) -> Iterator[Event]:
    """Events only the table needs: a pass after an unseen unplayable draw, and the hands."""
    if table.drawn and not world.drawn and table.turn != world.turn:
        yield Event("pass", seat=table.turn)
    if table.phase is Phase.SCORING:
        for seat, points in enumerate(table.round_points):
            if points is None:
                hand = world.hands[seat].known
                if rng.random() < 0.5:
                    yield Event("hand", seat, {"cards": [format_card(c) for c in hand]})
                else:
                    yield Event("hand", seat, {"points": sum(c.points for c in hand)})


def test_table_mode_agrees_with_the_scripted_truth() -> None:
    for seed in range(GAMES):
        n = 2 + seed % 5
        options = {"target_score": 40}
        players = [f"P{i}" for i in range(n)]
        world = GAME.new_state(players, options)
        table = GAME.new_state(players, options)
        driver, rng = RandomTable(seed), random.Random(seed)
        steps = 0
        while world.phase is not Phase.GAME_OVER:
            for event in list(driver.next_events(world)):
                seen = _as_seen(event, world, rng)
                world, _ = GAME.apply(world, event)
                table, verdicts = GAME.apply(table, seen)
                assert all(v.outcome is not Outcome.ILLEGAL for v in verdicts), (seed, seen)
                for extra in _catch_up(world, table, rng):
                    table, verdicts = GAME.apply(table, extra)
                    assert all(v.outcome is not Outcome.ILLEGAL for v in verdicts), extra
                assert _public(table) == _public(world), (seed, steps, event)
                assert sum(map(len, table.hands)) + len(table.draw) + len(table.discard) == 110
                steps += 1
        assert table.winners == world.winners and table.rounds == world.rounds
