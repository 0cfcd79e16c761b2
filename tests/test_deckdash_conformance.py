"""Randomized conformance: random legal Deck Dash games from deal to end.

The generator below deals random decks and picks random legal moves through the same
``GAME.apply`` interface a camera or tablet uses. After every event it checks invariants
with its own bookkeeping (not the engine's): every card is in exactly one place, totals
are the sums of the round scores, turns follow the direction and the lost turns, and
the game ends.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from referee.cards import Card, Special, format_cards, full_deck
from referee.deckdash.check import find_dash, hand_off
from referee.deckdash.dashes import GroupKind, get_dash
from referee.deckdash.game import GAME
from referee.deckdash.state import DeckDashState, Phase, Round
from referee.events import Event, Source
from referee.replay import replay
from referee.verdicts import Outcome

STEAL = Card.action(Special.DECK_STEAL)
BLOCK = Card.action(Special.BLOCK_YOU)
DRAW_ACTIONS = {Special.KEEP_TWO, Special.DRAW2_DISCARD1, Special.DRAW4_DISCARD3}
MAX_EVENTS = 40_000
DECK_SIZE = 128


def ev(kind: str, seat: int | None = None, **payload: Any) -> Event:
    return Event(kind, seat, payload, source=Source.SCRIPT)


def cards_in_play(state: DeckDashState) -> Counter[str]:
    """Where every card is, as card tokens (strings hash fast; Cards do not)."""
    rnd = state.round
    assert rnd is not None
    places: list[Card] = []
    for hand in rnd.hands:
        assert hand.unknown == 0
        places += hand.known
    places += rnd.draw_pile.known
    places += rnd.discard
    for laid in rnd.table:
        places += laid.group.cards
    places += [BLOCK] * len(rnd.blocks)
    if rnd.action is not None and rnd.phase is Phase.ACTION_DRAW:
        places.append(rnd.action)
    return Counter(map(token, places))


def token(card: Card) -> str:
    """``format_card`` without the enum property look-ups (the census runs very often)."""
    if card.special is not None:
        return card.special._value_
    if card.color is None:
        return "W"
    return card.color._value_ + str(card.number)


def next_seat(n: int, active: tuple[int, ...], seat: int, direction: int) -> int:
    s = (seat + direction) % n
    while s not in active:
        s = (s + direction) % n
    return s


def others_after(n: int, active: tuple[int, ...], seat: int, direction: int) -> list[int]:
    out, s = [], seat
    for _ in range(len(active) - 1):
        s = next_seat(n, active, s, direction)
        out.append(s)
    return out


def expect_turn(a: Round, last: int, marks: list[int]) -> None:
    """From ``last``, walk the direction of play, using up lost turns, to the next player."""
    n = len(a.hands)
    seat = next_seat(n, a.active, last, a.direction)
    while marks[seat] > 0:
        marks[seat] -= 1
        seat = next_seat(n, a.active, seat, a.direction)
    assert a.turn == seat
    assert list(a.skips) == marks
    assert (a.phase is Phase.BLOCKED) == (seat in a.blocks)


def card_count(state: DeckDashState) -> int:
    rnd = state.round
    assert rnd is not None
    return (
        sum(len(h) for h in rnd.hands)
        + len(rnd.draw_pile)
        + len(rnd.discard)
        + sum(laid.group.size for laid in rnd.table)
        + len(rnd.blocks)
        + (1 if rnd.action is not None and rnd.phase is Phase.ACTION_DRAW else 0)
    )


def stealable(state: DeckDashState, card: Card | None) -> bool:
    if card is None or card.is_special:
        return False
    return not card.is_wild or state.settings.wild_from_discard


class RandomTable:
    """Plays one random legal game and checks invariants after each event."""

    def __init__(self, rng: random.Random, players: list[str], options: dict[str, Any]) -> None:
        self.rng = rng
        self.players = players
        self.options = options
        self.state: DeckDashState = GAME.new_state(players, options)
        self.events: list[Event] = []
        self.deck = Counter(format_cards(full_deck()))
        self.return_with_discard = True  # a blocked player may return the card as a discard
        self.action_rate = 0.4  # how keen players are on Keep Two / Draw 2 / Draw 4
        self.discard_plays = True  # may play a draw card by discarding it (DD-9)
        self.smart = 0.8  # how often a player keeps what the Dash needs (else: any discard)

    # -- sending and checking ---------------------------------------------------------------
    def send(self, event: Event) -> list[Any]:
        before = self.state
        after, verdicts = GAME.apply(before, event)
        bad = [v.reason for v in verdicts if v.outcome is Outcome.ILLEGAL]
        assert not bad, f"{event.to_json()}: {bad}"
        self.events.append(event)
        self.state = after
        self.check(before, event, after)
        return verdicts

    def check(self, before: DeckDashState, event: Event, after: DeckDashState) -> None:
        if after.results != before.results:  # a round ended: scores are sums of round scores
            counted = [r for r in after.results if not r.tiebreak]
            totals = [sum(r.scores[s] for r in counted) for s in range(after.n)]
            board = GAME.scoreboard(after)
            assert list(board.totals) == totals
            assert [list(r) for r in board.rounds] == [list(r.scores) for r in counted]
            last = after.results[-1]
            assert all(last.scores[s] >= 0 for s in range(after.n))
        if after.round is not None:
            # The full card census when the turn passes; a cheap count otherwise.
            if before.round is None or after.round.turns != before.round.turns:
                assert cards_in_play(after) == self.deck
            else:
                assert card_count(after) == DECK_SIZE
            for seat in range(after.n):
                if seat not in after.round.active:
                    assert len(after.round.hands[seat]) == 0
        if event.kind == "deal":
            self.check_deal(event, after)
        elif before.round is not None and after.round is not None:
            self.check_turn(before, event, after)

    def check_turn(self, before: DeckDashState, event: Event, after: DeckDashState) -> None:
        """Turn order, recomputed from the seats, the direction and the lost turns."""
        b, a = before.round, after.round
        assert b is not None and a is not None
        n = len(a.hands)
        card = event.get("card")
        turn_ending_play = event.kind == "discard" and b.phase is Phase.PLAY
        if card == "REV" and turn_ending_play:
            assert a.direction == -b.direction
        else:
            assert a.direction == b.direction
        if a.turn == b.turn and a.turns == b.turns:  # the same turn goes on
            assert a.skips == b.skips
            return
        marks = list(b.skips)
        if card == "SKIP" and turn_ending_play:
            target = event.get("target")
            # DD-4 (day 30): with no target, the next player without a Block You in front
            others = others_after(n, b.active, b.turn, a.direction)
            unblocked = [s for s in others if s not in b.blocks]
            victim = (unblocked[0] if unblocked else None) if target is None else target
            if victim is not None and victim not in b.blocks:
                marks[victim] += 1
        elif card == "SKIP2" and turn_ending_play:
            others = others_after(n, b.active, b.turn, a.direction)
            blocked = set(b.blocks)  # DD-5: a blocked turn stands for one lost turn
            for victim in (others * 2)[:2]:
                if victim in blocked:
                    blocked.discard(victim)
                else:
                    marks[victim] += 1
        expect_turn(a, b.turn, marks)

    def check_deal(self, event: Event, after: DeckDashState) -> None:
        """The first turn: left of the dealer, or the dealer after a Reverse; start skips."""
        a = after.round
        assert a is not None
        n = len(a.hands)
        start = event.payload["start"]
        direction = -1 if start == "REV" else 1
        assert a.direction == direction
        first = a.dealer if start == "REV" else next_seat(n, a.active, a.dealer, 1)
        marks = [0] * n
        if start in ("BLOCK", "SKIP", "SKIP2"):
            marks[first] += 1
        if start == "SKIP2":
            marks[next_seat(n, a.active, first, 1)] += 1
        seat = first
        while marks[seat] > 0:
            marks[seat] -= 1
            seat = next_seat(n, a.active, seat, direction)
        assert a.turn == seat and list(a.skips) == marks

    # -- moves -------------------------------------------------------------------------------
    def deal(self) -> None:
        st = self.state
        active = st.tiebreak or tuple(range(st.n))
        dealer = None
        if st.last_dealer is None:
            dealer = self.rng.choice(active)
        deck = full_deck()
        self.rng.shuffle(deck)
        hands = []
        for seat in range(st.n):
            if seat in active:
                hands.append(format_cards(deck[:12]))
                deck = deck[12:]
            else:
                hands.append([])
        start, rest = deck[0], deck[1:]
        payload: dict[str, Any] = {
            "hands": hands,
            "start": str(start),
            "draw_pile": format_cards(rest),
        }
        if dealer is not None:
            payload["dealer"] = dealer
        self.send(ev("deal", **payload))

    def hand(self, seat: int) -> list[Card]:
        assert self.state.round is not None
        return list(self.state.round.hands[seat].known)

    def maybe_steal(self) -> None:
        rnd = self.state.round
        assert rnd is not None
        if not stealable(self.state, rnd.top):
            return
        holders = [s for s in rnd.active if STEAL in rnd.hands[s].known]
        if holders and self.rng.random() < 0.3:
            self.send(ev("steal", self.rng.choice(holders), card=str(rnd.top)))

    def take_turn_step(self) -> None:
        st = self.state
        rnd = st.round
        assert rnd is not None
        seat = rnd.turn
        rng = self.rng
        if rng.random() < 0.05:
            self.maybe_steal()
            return
        if rnd.phase is Phase.BLOCKED:
            if not self.return_with_discard or rng.random() < 0.5:
                self.send(ev("return_block", seat))
            else:
                self.send(ev("discard", seat, card="BLOCK"))
            return
        if rnd.phase in (Phase.DRAW, Phase.ACTION_DRAW):
            top_ok = rnd.top is not None and (rnd.start_pickup or stealable(st, rnd.top))
            empty = len(rnd.draw_pile) == 0
            if empty and (not top_ok or rng.random() < 0.5):
                order = list(rnd.discard)
                rng.shuffle(order)
                self.send(ev("reshuffle", order=format_cards(order)))
            elif top_ok and (empty or rng.random() < 0.3):
                self.send(ev("draw", seat, **{"from": "discard", "card": str(rnd.top)}))
            else:
                self.send(ev("draw", seat, **{"from": "draw"}))
            return
        hand = self.hand(seat)
        if rnd.phase is Phase.ACTION_DISCARD:
            self.send(ev("discard", seat, card=str(rng.choice(hand))))
            return
        assert rnd.phase is Phase.PLAY
        level = st.settings.level
        if seat not in rnd.laid:
            found = find_dash(level, rnd.dash, hand)
            if found is not None:
                cards = [c for g in found.groups for c in g.cards]
                self.send(ev("lay", seat, cards=format_cards(cards)))
                return
        else:
            order = list(range(len(rnd.table)))
            rng.shuffle(order)
            for card in sorted(set(hand), key=str):
                if card.is_special:
                    continue
                for i in order:
                    if hand_off(rnd.table[i].group, card) is not None:
                        self.send(ev("handoff", seat, card=str(card), group=i))
                        return
        actions = [c for c in hand if c.special in DRAW_ACTIONS]
        if actions and rng.random() < self.action_rate:
            self.send(ev("play", seat, card=str(rng.choice(actions))))
            return
        plain = [c for c in hand if c.special not in DRAW_ACTIONS] or hand
        if seat not in rnd.laid and rng.random() < self.smart:
            kinds = {p.kind for p in get_dash(level, rnd.dash).parts}
            card = min(plain, key=lambda c: (keep_score(c, hand, kinds), rng.random()))
        else:
            card = rng.choice(plain)
        if card.special in DRAW_ACTIONS and not self.discard_plays:
            self.send(ev("play", seat, card=str(card)))
            return
        payload: dict[str, Any] = {"card": str(card)}
        if card.special in (Special.SKIP_YOU, Special.BLOCK_YOU):
            others = [s for s in rnd.active if s != seat and s not in rnd.blocks]
            if others and rng.random() < 0.7:
                payload["target"] = rng.choice(others)
            elif others:
                nxt = next_seat(len(rnd.hands), rnd.active, seat, rnd.direction)
                if nxt in rnd.blocks:
                    payload["target"] = rng.choice(others)
        self.send(ev("discard", seat, **payload))

    def play(self) -> DeckDashState:
        while not self.state.finished:
            assert len(self.events) < MAX_EVENTS, "the game did not end"
            if self.state.round is None:
                self.deal()
            else:
                self.take_turn_step()
        return self.state


def keep_score(card: Card, hand: list[Card], kinds: set[GroupKind]) -> float:
    """How much a player wants to keep ``card`` for a Dash made of ``kinds`` of groups."""
    if card.is_wild:
        return 1000.0
    if card.is_special:
        return -10.0
    same_number = sum(1 for c in hand if c.number == card.number)
    same_color = sum(1 for c in hand if c.color is card.color)
    same_card = sum(1 for c in hand if c.color is card.color and c.number == card.number)
    score = 0.0
    if kinds & {GroupKind.SET, GroupKind.PAIR}:
        score += 3 * same_number
    if GroupKind.COLOR_PAIR in kinds:
        score += 3 * same_card + same_color / 4
    if GroupKind.SAME_COLOR in kinds:
        score += same_color
    if GroupKind.RUN in kinds:
        score += 3 if same_number == 1 else 0
    if GroupKind.COLOR_RUN in kinds:
        score += same_color + (2 if same_card == 1 else 0)
    return score


# Dashes a random table lays quickly: short games keep 1,000 of them well under a minute.
QUICK = {"easy": [1, 4, 5, 6, 7], "advanced": [1, 6, 7, 10, 12]}


def random_options(rng: random.Random, short: bool) -> dict[str, Any]:
    opts: dict[str, Any] = {"level": rng.choice(["easy", "advanced"])}
    if short:  # variations 1 and 3: one or two chosen Dashes
        dashes = list(QUICK[opts["level"]])
        rng.shuffle(dashes)
        opts["dashes"] = dashes[: rng.choice([1, 1, 1, 2])]
        opts["dash_count"] = len(opts["dashes"])
    opts["points"] = rng.random() < 0.8
    opts["end_on_empty_draw"] = rng.random() < 0.3
    opts["winner"] = rng.choice(["dashes", "points"])
    opts["first_to_scoring"] = rng.choice(["fixed", "hand"])
    opts["wild_from_discard"] = rng.random() < 0.3
    return opts


NAMES = ["Ana", "Bea", "Cy", "Dov", "Eli", "Fay", "Gus", "Hal"]


def random_game(seed: int, short: bool = True) -> RandomTable:
    rng = random.Random(seed)
    players = NAMES[: rng.choice([2, 2, 3, 3, 4, 5, 6, 8])]
    table = RandomTable(rng, players, random_options(rng, short))
    table.play()
    return table


def test_random_games_conform() -> None:
    """1,000 short random games (2-8 players, every option) end and keep every invariant."""
    how: Counter[str] = Counter()
    for seed in range(1000):
        table = random_game(seed)
        state = table.state
        assert state.finished and state.winners
        assert len(state.counted) == len(state.settings.dashes)
        how.update(r.how.value for r in state.results)
        if seed % 100 == 0:  # replaying the log reaches the same state as live play
            assert replay(GAME, table.players, table.options, table.events).state == state
    assert how["finished"] > 0 and how["first_to"] > 0 and how["draw_pile_empty"] > 0


@pytest.mark.parametrize(("seed", "level"), [(1, "easy"), (11, "advanced")])
def test_random_full_games_conform_and_replay(seed: int, level: str) -> None:
    """Full 12-Dash games; replaying the log gives the state reached live."""
    rng = random.Random(seed)
    table = RandomTable(rng, NAMES[:4], {"level": level})
    table.play()
    result = replay(GAME, table.players, table.options, table.events)
    assert result.state == table.state
    assert len(table.state.counted) == 12 and table.state.winners
