"""Randomized conformance: many random legal DOS games, deal to end, through ``apply``.

A random-legal-move generator plays full games (scripted mode: the deal names every card;
2-8 players and every option mixed) and checks the invariants: every card is in exactly one
place (counted every few events, card by card every 32 events and at each round end), scores
are the sum of round scores, after every turn the next player follows the direction and the
Reverses played and the closed piles are exactly the Skips played, every legal move is
accepted and sampled fouls are refused without changing the state, and the game always ends
(within MAX_EVENTS). In a tenth of the games a table-mode shadow referee (hands and draw pile
as counts, drawn cards unnamed) follows the same events and must agree on every hand size,
the piles and whose turn it is.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from referee.dos.cards import DosCard, Symbol, format_card, format_cards, matches
from referee.dos.deck import full_deck
from referee.dos.game import GAME
from referee.dos.state import DosState, Phase, PileTurn
from referee.events import Event, EventError
from referee.verdicts import Outcome

GAMES = 1000
MAX_EVENTS = 6000
PILES = ("left", "right")


def _apply(state: DosState, event: Event) -> tuple[DosState, list[Any]]:
    new, verdicts = GAME.apply(state, event)
    bad = [v.reason for v in verdicts if v.outcome is Outcome.ILLEGAL]
    assert not bad, f"legal move rejected: {event.to_dict()} -> {bad}"
    return new, verdicts


def _count_cards(state: DosState) -> int:
    return len(state.stock) + sum(len(h) for h in state.hands) + sum(len(p) for p in state.piles)


def _check_cards(state: DosState, deck: Counter[DosCard]) -> None:
    assert state.stock.unknown == 0 and all(h.unknown == 0 for h in state.hands)
    seen: Counter[DosCard] = Counter(state.stock.known)
    for hand in state.hands:
        seen.update(hand.known)
    for pile in state.piles:
        seen.update(pile)
    assert seen == deck, "a card is missing or duplicated"


def _check_scores(state: DosState) -> None:
    board = GAME.scoreboard(state)
    sums = tuple(sum(r[i] for r in board.rounds) for i in range(len(board.players)))
    assert board.totals == sums
    assert len(board.rounds) == (state.round if state.phase is Phase.FINISHED else state.round - 1)


@dataclass
class Shadow:
    """The same game seen by a table-mode referee: counts only, cards named when played."""

    state: DosState

    def feed(self, event: Event) -> None:
        payload = dict(event.payload)
        if event.kind == "deal":
            payload["hands"] = [len(h) for h in payload["hands"]]
            payload["stock"] = len(payload["stock"])
        elif event.kind in ("draw", "reshuffle"):
            payload.pop("card", None)
            payload.pop("stock", None)
        self.state, _ = _apply(self.state, Event(event.kind, event.seat, payload))

    def catch_up(self, scripted: DosState) -> None:
        """A table referee cannot see a drawn card miss; the player ends the turn by hand."""
        mine = self.state
        if (
            mine.phase is Phase.PLAY
            and mine.current.started
            and (scripted.phase is not Phase.PLAY or scripted.turn != mine.turn)
        ):
            self.state, _ = _apply(self.state, Event("end_turn", self.state.turn))
        assert [len(h) for h in self.state.hands] == [len(h) for h in scripted.hands]
        assert len(self.state.stock) == len(scripted.stock)
        assert self.state.piles == scripted.piles
        assert (self.state.turn, self.state.phase) == (scripted.turn, scripted.phase)


class Player:
    """Chooses random legal events and checks what the referee does with them."""

    def __init__(self, rng: random.Random, players: list[str], options: dict[str, Any]) -> None:
        self.rng = rng
        self.state = GAME.new_state(players, options)
        self.deck_list = full_deck(self.state.options["numbers"])
        self.deck = Counter(self.deck_list)
        self.size = len(self.deck_list)
        self.shadow = Shadow(GAME.new_state(players, options)) if rng.random() < 0.1 else None
        self.events = 0
        self.turns = 0

    # -- plumbing --------------------------------------------------------------------
    def send(self, event: Event) -> list[Any]:
        self.state, verdicts = _apply(self.state, event)
        self.events += 1
        if self.shadow is not None:
            self.shadow.feed(event)
            self.shadow.catch_up(self.state)
        # A cheap count every few events; the full card-by-card check every 32 events and
        # whenever a round ends.
        if self.events % 4 == 0 and (self.state.phase is not Phase.DEAL or self.state.round == 1):
            assert _count_cards(self.state) in (self.size, 0)
        checkpoint = self.events % 32 == 0 or any(v.outcome is Outcome.ROUND_END for v in verdicts)
        if checkpoint and self.state.hands:
            _check_cards(self.state, self.deck)
        return verdicts

    def try_illegal(self, event: Event) -> None:
        before = self.state
        after, verdicts = GAME.apply(before, event)
        assert after is before, f"illegal {event.to_dict()} changed the state"
        assert [v.outcome for v in verdicts] == [Outcome.ILLEGAL], event.to_dict()

    # -- moves -----------------------------------------------------------------------
    def deal(self) -> None:
        cards = format_cards(self.deck_list)
        self.rng.shuffle(cards)
        size = self.state.options["hand_size"]
        n = self.state.n
        hands = [cards[i * size : (i + 1) * size] for i in range(n)]
        rest = cards[n * size :]
        self.send(Event("deal", payload={"hands": hands, "piles": rest[:2], "stock": rest[2:]}))

    def reshuffle(self) -> None:
        under = [format_card(c) for p in self.state.piles for c in p[:-1]]
        self.rng.shuffle(under)
        self.send(Event("reshuffle", payload={"stock": under}))

    def playable(self) -> list[tuple[int, DosCard]]:
        s = self.state
        cur = s.current
        hand = list(s.hands[s.turn].known)
        for p in (0, 1):
            if cur.piles[p] is PileTurn.DRAWN and cur.drawn[p] is not None:
                hand.remove(cur.drawn[p])
        out: list[tuple[int, DosCard]] = []
        for p in (0, 1):
            if p in s.blocked:
                continue
            if cur.piles[p] is PileTurn.OPEN:
                top = s.piles[p][-1]
                color, face = top.color, top.face
                out += [
                    (p, c)
                    for c in dict.fromkeys(hand)
                    if c.color is color or c.symbol is Symbol.DRAW_FOUR or c.face == face
                ]
            elif cur.piles[p] is PileTurn.DRAWN:
                drawn = cur.drawn[p]
                if drawn is not None and matches(drawn, s.top(p)):
                    out.append((p, drawn))
        return out

    def side_events(self) -> bool:
        """Calls, callouts and counters that happen besides the turn. True if one was sent."""
        s = self.state
        rng = self.rng
        if s.exposed and rng.random() < 0.5:
            target = rng.choice(sorted(s.exposed))
            caller = (target + 1) % s.n
            self.send(Event("callout", caller, {"target": target}))
            return True
        late = rng.random() < 0.1 and [
            i for i in range(s.n) if len(s.hands[i]) == 2 and i not in s.called
        ]
        if late:
            self.send(Event("call", rng.choice(late), t_ns=rng.randrange(10**12)))
            return True
        for four in s.pending:
            skip = DosCard(four.card.color, symbol=Symbol.SKIP)
            if skip in s.hands[four.victim].known and rng.random() < 0.6:
                kind = rng.choice(["counter", "play"])
                self.send(Event(kind, four.victim, {"card": format_card(skip), "pile": four.pile}))
                return True
            if rng.random() < 0.8 or len(s.stock) < 4 * len(s.pending) + 2:
                self.send(Event("take_four", four.victim))
                return True
        return False

    def probe_illegal(self) -> None:
        """Now and then try a foul and check it is refused without changing anything."""
        s = self.state
        other = (s.turn + 1) % s.n
        if s.hands[other].known and not s.pending:
            card = format_card(s.hands[other].known[0])
            self.try_illegal(Event("play", other, {"card": card, "pile": "left"}))
        for p in s.blocked:
            for card in dict.fromkeys(s.hands[s.turn].known):
                if s.current.piles[p] is PileTurn.OPEN:
                    self.try_illegal(Event("play", s.turn, {"card": format_card(card), "pile": p}))
                    break
        cur = s.current
        for p in (0, 1):
            if cur.piles[p] is PileTurn.OPEN and p not in s.blocked:
                wrong = [c for c in s.hands[s.turn].known if not matches(c, s.top(p))]
                if wrong and not s.pending:
                    ev = Event("play", s.turn, {"card": format_card(wrong[0]), "pile": PILES[p]})
                    self.try_illegal(ev)

    def turn_move(self) -> None:
        s = self.state
        rng = self.rng
        seat = s.turn
        cur = s.current
        if rng.random() < 0.05:
            self.probe_illegal()
        options = self.playable()
        draw_piles = [
            p
            for p in (0, 1)
            if cur.piles[p] is PileTurn.OPEN
            and (p not in s.blocked or s.options["draw_for_blocked_pile"])
        ]
        hand = s.hands[seat]
        if len(hand) == 2 and rng.random() < 0.8:
            # Mostly avoid ending a turn on one card (it costs 3 more): a play that leaves one
            # card is kept only while the other pile can still take it or be drawn for.
            options = [(p, c) for p, c in options if cur.piles[1 - p] is PileTurn.OPEN]
        if options and (rng.random() < 0.98 or not draw_piles):
            pile, card = rng.choice(options)
            if len(hand) == 3 and seat not in s.called and rng.random() < 0.5:
                self.send(Event("call", seat, t_ns=rng.randrange(10**12)))
            self.send(Event("play", seat, {"card": format_card(card), "pile": PILES[pile]}))
        elif draw_piles:
            self.send(Event("draw", seat, {"pile": PILES[rng.choice(draw_piles)]}))
        else:
            self.send(Event("end_turn", seat))

    def play_game(self) -> DosState:
        while self.state.phase is not Phase.FINISHED:
            assert self.events < MAX_EVENTS, "the game did not end"
            s = self.state
            if s.phase is Phase.DEAL:
                self.deal()
            elif s.waiting_for_reshuffle or (
                not s.stock
                and not s.options["draw_pile_out_ends_game"]
                and any(len(p) > 1 for p in s.piles)
            ):
                self.reshuffle()
            elif not self.side_events():
                self.turn_move()
                self.check_turn_order(s)
            if self.state.phase is not s.phase:
                _check_scores(self.state)
        return self.state

    def check_turn_order(self, before: DosState) -> None:
        after = self.state
        if after.phase is not Phase.PLAY or after.round != before.round:
            return
        if after.turn == before.turn:
            return  # the same turn goes on (or a Draw Four was countered)
        # The turn ended: what was played this turn, from the piles' growth.
        played: list[DosCard | None] = []
        for p in (0, 1):
            last = before.current.played[p]
            if len(after.piles[p]) == len(before.piles[p]) + 1:
                last = after.piles[p][-1]
            played.append(last)
        direction = before.direction
        for card in played:
            if card is not None and card.symbol is Symbol.REVERSE:
                direction = -direction
        assert after.direction == direction
        assert after.turn == (before.turn + direction) % before.n
        skips = {p for p, c in enumerate(played) if c is not None and c.symbol is Symbol.SKIP}
        assert after.blocked == frozenset(skips)
        self.turns += 1


def _options(rng: random.Random) -> tuple[list[str], dict[str, Any]]:
    n = rng.choice([2, 2, 3, 3, 3, 4, 4, 5, 6, 8])
    players = [f"P{i}" for i in range(n)]
    options: dict[str, Any] = {
        "draw_pile_out_ends_game": rng.random() < 0.3,
        "draw_for_blocked_pile": rng.random() < 0.7,
        "rounds": rng.choice([1, 1, 1, 1, 2]),
        "numbers": rng.choice(["0-9", "1-9", "1-10"]),
    }
    if rng.random() < 0.7:  # shorter games keep the test fast; the rules' 14 cards in 30%
        options["hand_size"] = rng.choice([2, 3, 4, 5, 7])
    return players, options


def test_random_legal_games_keep_invariants_and_end() -> None:
    rng = random.Random(20261129)
    turns = 0
    endings: Counter[str] = Counter()
    for _ in range(GAMES):
        players, options = _options(rng)
        player = Player(random.Random(rng.randrange(2**32)), players, options)
        state = player.play_game()
        board = GAME.scoreboard(state)
        assert board.finished and board.winners
        assert board.winners == board.leaders
        assert len(board.rounds) == options["rounds"]
        turns += player.turns
        endings[state.end_reason == "the draw pile ran out"] += 1
    assert turns > GAMES  # real turns were checked
    assert endings[True] and endings[False]  # both endings happen


def _random_event(rng: random.Random, n: int) -> Event:
    """Anything a confused tablet or camera might send, well-formed or not."""
    tokens = ["R7", "G2", "BSKIP", "YD4", "RREV", "GD2", "B0", "X1", "", 7, None]
    kind = rng.choice(["play", "draw", "end_turn", "counter", "take_four", "call", "callout"])
    kind = kind if rng.random() < 0.95 else rng.choice(["reshuffle", "deal", "shuffle"])
    payload: dict[str, Any] = {}
    if rng.random() < 0.9:
        payload["card"] = rng.choice(tokens)
    if rng.random() < 0.9:
        payload["pile"] = rng.choice(["left", "right", 0, 1, 2, "middle", None])
    if rng.random() < 0.5:
        payload["target"] = rng.choice([0, 1, 2, n + 1, -1, "x"])
    seat = rng.choice([*range(n), n + 2, None])
    return Event(kind, seat, payload)


def test_random_fouls_are_refused_cleanly() -> None:
    """Junk events mid-game give an EventError or an unchanged state, never a crash."""
    rng = random.Random(7)
    for _ in range(40):
        players, options = _options(rng)
        player = Player(random.Random(rng.randrange(2**32)), players, options)
        player.deal()
        for _ in range(60):
            event = _random_event(rng, player.state.n)
            try:
                after, verdicts = GAME.apply(player.state, event)
            except EventError:
                continue
            if any(v.outcome is Outcome.ILLEGAL for v in verdicts):
                assert after is player.state and len(verdicts) == 1
            else:
                player.state = after
            if player.state.phase is not Phase.PLAY:
                break
            _check_cards(player.state, player.deck)
