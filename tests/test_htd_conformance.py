"""Randomized conformance: 1,000 random legal Hit the Deck games from deal to end.

A random table (tests/htd_driver.py) plays every game in full-information mode through the
same ``apply`` the product uses — slap races with random timestamps, bounces, missed
slaps, fake-outs and forgotten yells included — and after every event checks:

* every card of the deck is in exactly one place (hands, draw pile, discard pile);
* the totals equal the sum of the round scores, and each round scores the hands left;
* turn order follows the direction (a flip reverses it and hands the turn back);
* the driver, which only makes legal moves, never gets an ``illegal`` verdict;
* every game ends, with the lowest total winning, once someone reaches the target.
"""

from __future__ import annotations

from collections import Counter

from referee.events import Event
from referee.hitthedeck.game import GAME
from referee.hitthedeck.rules import hand_points
from referee.hitthedeck.state import HtdState, Phase
from referee.replay import replay
from referee.verdicts import Outcome, Verdict
from tests.htd_driver import RandomTable, same_cards

GAMES = 1000
TARGETS = (100, 60, 30, 15)  # the real target and shorter agreed ones (option target_score)
MAX_EVENTS = 20_000  # a game that has not ended by then counts as never ending


def _check_turn(before: HtdState, after: HtdState, event: Event) -> None:
    if event.kind not in ("play", "draw", "pass", "cut", "flip") or after.phase is not Phase.PLAY:
        return
    seat, n = event.seat, before.n
    assert seat is not None
    if event.kind == "flip":
        assert after.direction == -before.direction
        assert after.turn == (seat + after.direction) % n
        return
    assert after.direction == before.direction
    if after.turn != seat:
        assert after.turn == (seat + before.direction) % n, (event, before.turn, after.turn)
    else:
        assert event.kind == "draw" and after.drawn, event


def _check_round_end(after: HtdState, verdicts: list[Verdict]) -> None:
    ends = [v for v in verdicts if v.outcome is Outcome.ROUND_END]
    assert len(ends) == 1
    points = ends[0].data["points"]
    assert after.rounds[-1] == tuple(points)
    out = ends[0].seat
    assert out is not None and points[out] == 0 and len(after.hands[out]) == 0
    for seat, hand in enumerate(after.hands):
        assert hand.unknown == 0
        assert points[seat] == hand_points(hand.known)


def play_one(seed: int, stats: Counter[str]) -> tuple[HtdState, list[Event]]:
    n = 2 + seed % 5
    target = TARGETS[seed % len(TARGETS)]
    options = {"target_score": target, "race_tie": ("all", "none")[seed % 2]}
    state = GAME.new_state([f"P{i}" for i in range(n)], options)
    table = RandomTable(seed)
    log: list[Event] = []
    while state.phase is not Phase.GAME_OVER:
        assert len(log) < MAX_EVENTS, f"game {seed} did not end"
        for event in list(table.next_events(state)):
            after, verdicts = GAME.apply(state, event)
            log.append(event)
            bad = [v for v in verdicts if v.outcome is Outcome.ILLEGAL]
            assert not bad, (seed, event, bad)
            if after.hands:
                assert same_cards(after), (seed, event)
            _check_turn(state, after, event)
            if after.rounds is not state.rounds:  # a round was scored
                _check_round_end(after, verdicts)
                assert after.totals == tuple(map(sum, zip(*after.rounds, strict=True)))
            else:
                assert after.totals == state.totals
            for v in verdicts:
                stats[str(v.data.get("penalty", ""))] += 1
            stats[event.kind] += 1
            if event.kind == "play" and state.require is not None:
                stats["chain answered"] += 1
            if "A Flip revealed by a flip" in " ".join(v.reason for v in verdicts):
                stats["flip on flip"] += 1
            state = after
    best = min(state.totals)
    assert max(state.totals) >= target
    assert state.winners == tuple(s for s, t in enumerate(state.totals) if t == best)
    return state, log


def test_conformance_1000_random_games() -> None:
    stats: Counter[str] = Counter()
    for seed in range(GAMES):
        state, log = play_one(seed, stats)
        if seed % 100 == 0:  # the log alone rebuilds the same game
            again = replay(GAME, state.players, dict(state.options), log).state
            assert again == state
    # the random games really exercised every rule
    for key in (
        "cut",
        "flip",
        "slap",
        "forgot_yell",
        "shuffle",
        "last_slap",
        "fake_out",
        "no_yell",
        "chain answered",
        "flip on flip",
        "pass",
    ):
        assert stats[key] > 0, key
