"""Randomized conformance: 1,000 random legal Hit the Deck games from deal to end.

A random table (``RandomTable`` below) plays every game in full-information mode through the
same ``apply`` the product uses — slap races with random timestamps, bounces, missed
slaps, fake-outs and forgotten yells included — and after every event checks:

* every card of the deck is in exactly one place (hands, draw pile, discard pile);
* the totals equal the sum of the round scores, and each round scores the hands left;
* turn order follows the direction (a flip reverses it and hands the turn back);
* the driver, which only makes legal moves, never gets an ``illegal`` verdict;
* every game ends, with the lowest total winning, once someone reaches the target.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from referee.events import Event, Source
from referee.hitthedeck.cards import HtdCard, Type, format_card
from referee.hitthedeck.deck import composition, full_deck
from referee.hitthedeck.game import GAME
from referee.hitthedeck.rules import can_play, hand_points, playable
from referee.hitthedeck.state import HtdState, Need, Phase, ShuffleWhy
from referee.replay import replay
from referee.verdicts import Outcome, Verdict

MS = 1_000_000
_DECK = tuple(full_deck())


def _tokens(cards) -> list[str]:
    return [format_card(c) for c in cards]


class RandomTable:
    """Yields the next event for a state; ``t_ns`` moves forward like a real clock."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.t_ns = 1_000 * MS

    def tick(self, lo_ms: int = 200, hi_ms: int = 2500) -> int:
        self.t_ns += self.rng.randint(lo_ms, hi_ms) * MS
        return self.t_ns

    def next_events(self, state: HtdState) -> Iterator[Event]:
        rng = self.rng
        if state.phase in (Phase.DEAL, Phase.ROUND_OVER):
            deck = list(_DECK)
            rng.shuffle(deck)
            size = state.option("hand_size")
            hands = [_tokens(deck[i * size : (i + 1) * size]) for i in range(state.n)]
            payload = {"hands": hands, "draw": _tokens(deck[state.n * size :])}
            yield Event("deal", payload=payload, source=Source.SCRIPT)
            return
        if state.race is not None:
            yield from self._race(state)
            return
        if state.need is Need.TURN_UP:
            yield Event("turn_up", t_ns=self.tick(), source=Source.SCRIPT)
            return
        if state.need is Need.SHUFFLE:
            pool = state.discard[1:] if state.shuffle_why is ShuffleWhy.EMPTY else state.draw
            order = list(pool)
            rng.shuffle(order)
            yield Event("shuffle", payload={"draw": _tokens(order)}, source=Source.SCRIPT)
            return
        if rng.random() < 0.02:  # somebody gets faked out
            yield Event("slap", seat=rng.randrange(state.n), t_ns=self.tick(), source=Source.PAD)
            return
        yield self._turn(state)

    def _race(self, state: HtdState) -> Iterator[Event]:
        rng = self.rng
        race = state.race
        assert race is not None
        if not race.yell_penalised and rng.random() < 0.1:
            yield Event("forgot_yell", seat=race.by, source=Source.SCRIPT)
        base = race.trigger_ns if race.trigger_ns is not None else self.t_ns
        window = state.option("race_window_ms")
        slapped = {p.seat for p in race.presses}
        times = []
        for seat in range(state.n):
            if seat in slapped or rng.random() < 0.08:  # some forget to slap
                continue
            times.append((base + rng.randint(80, window - 50) * MS, seat))
            if rng.random() < 0.05:  # a bounce or a second source reporting it
                times.append((times[-1][0] + rng.randint(1, 5) * MS, seat))
        for t, seat in sorted(times):
            yield Event("slap", seat=seat, t_ns=t, source=Source.PAD)
        self.t_ns = max(self.t_ns, base + (window + 10) * MS)
        if len({seat for _, seat in times} | slapped) < state.n:
            # somebody never slapped: the pads' timer closes the race after the window
            yield Event("race_close", t_ns=self.t_ns, source=Source.PAD)

    def _turn(self, state: HtdState) -> Event:
        rng = self.rng
        seat = state.turn
        t = self.tick()
        if state.forced == "cut":
            payload = {"at": rng.randrange(len(state.draw))} if state.draw else {}
            return Event("cut", seat=seat, payload=payload, t_ns=t, source=Source.SCRIPT)
        if state.forced == "flip":
            return Event("flip", seat=seat, t_ns=t, source=Source.SCRIPT)
        hand = state.hands[seat].known
        if state.drawn:
            card = state.drawn[0]
            assert card is not None
            if can_play(card, state.top, state.require) and (
                state.require is not None or rng.random() < 0.8
            ):
                return self._play(seat, card, t)
            return Event("pass", seat=seat, t_ns=t, source=Source.SCRIPT)
        options = playable(hand, state.top, state.require)
        if options:
            return self._play(seat, rng.choice(options), t)
        return Event("draw", seat=seat, t_ns=t, source=Source.SCRIPT)

    def _play(self, seat: int, card: HtdCard, t: int) -> Event:
        payload: dict[str, object] = {"card": format_card(card)}
        if card.type is Type.HAND and self.rng.random() < 0.05:
            payload["yelled"] = False
        return Event("play", seat=seat, payload=payload, t_ns=t, source=Source.CAMERA)


def all_cards(state: HtdState) -> Counter[HtdCard]:
    """Every card the referee places somewhere; None marks an unseen card."""
    seen: list[HtdCard | None] = [*state.draw, *state.discard]
    unknown = 0
    for hand in state.hands:
        seen += hand.known
        unknown += hand.unknown
    where: Counter = Counter(seen)  # one Counter pass: ``update`` per pile was the hot spot
    if unknown:
        where[None] += unknown
    return where


def same_cards(state: HtdState) -> bool:
    """Every card of the deck is in exactly one place (a dict compare runs in C)."""
    return dict.__eq__(all_cards(state), composition())


def example_log(seed: int, players: list[str], options: dict) -> list[str]:
    """A whole random game as ``tabletop replay`` lines (header, then events)."""
    state = GAME.new_state(players, options)
    table = RandomTable(seed)
    lines = [json.dumps({"game": GAME.name, "players": players, "options": options})]
    while state.phase is not Phase.GAME_OVER:
        for event in list(table.next_events(state)):
            state, _ = GAME.apply(state, event)
            lines.append(json.dumps(event.to_dict()))
    return lines


GAMES = 1000
EXAMPLE_SEED = 14  # tests/data/hit-the-deck-example.jsonl is this seed's game
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


def test_example_log_is_a_random_game_of_this_driver() -> None:
    path = Path(__file__).parent / "data" / "hit-the-deck-example.jsonl"
    lines = example_log(EXAMPLE_SEED, ["Ann", "Bob", "Cat"], {"target_score": 30})
    assert path.read_text(encoding="utf-8").splitlines() == lines


if __name__ == "__main__":  # python -m tests.test_htd_conformance [SEED]: new example log
    import sys

    out = Path(__file__).parent / "data" / "hit-the-deck-example.jsonl"
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else EXAMPLE_SEED
    text = "\n".join(example_log(seed, ["Ann", "Bob", "Cat"], {"target_score": 30})) + "\n"
    out.write_text(text, encoding="utf-8")
    print(out, len(text.splitlines()), "lines")
