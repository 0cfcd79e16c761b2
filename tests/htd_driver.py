"""A random but legal Hit the Deck player, for the conformance test (full information).

It reads the referee's state the way a table of honest players would see their own cards,
and chooses among the legal moves at random, including slap races with random timings,
fake-out slaps and forgotten yells.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator

from referee.events import Event, Source
from referee.hitthedeck.cards import HtdCard, Type, format_card
from referee.hitthedeck.deck import composition, full_deck
from referee.hitthedeck.rules import can_play, playable
from referee.hitthedeck.state import HtdState, Need, Phase, ShuffleWhy

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
    where: Counter = Counter()
    for hand in state.hands:
        where.update(hand.known)
        if hand.unknown:
            where[None] += hand.unknown
    where.update(state.draw)
    where.update(state.discard)
    return where


def same_cards(state: HtdState) -> bool:
    """Every card of the deck is in exactly one place (a dict compare runs in C)."""
    return dict.__eq__(all_cards(state), composition())


def example_log(seed: int, players: list[str], options: dict) -> list[str]:
    """A whole random game as ``tabletop replay`` lines (header, then events)."""
    import json

    from referee.hitthedeck.game import GAME

    state = GAME.new_state(players, options)
    table = RandomTable(seed)
    lines = [json.dumps({"game": GAME.name, "players": players, "options": options})]
    while state.phase is not Phase.GAME_OVER:
        for event in list(table.next_events(state)):
            state, _ = GAME.apply(state, event)
            lines.append(json.dumps(event.to_dict()))
    return lines


if __name__ == "__main__":  # regenerate tests/data/hit-the-deck-example.jsonl
    import sys
    from pathlib import Path

    out = Path(__file__).parent / "data" / "hit-the-deck-example.jsonl"
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    text = "\n".join(example_log(seed, ["Ann", "Bob", "Cat"], {"target_score": 30})) + "\n"
    out.write_text(text, encoding="utf-8")
    print(out, len(text.splitlines()), "lines")
