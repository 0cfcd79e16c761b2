"""Whole DOS games, deal to game over, played by a seeded random family at a real table.

Unlike ``test_dos_conformance.py`` (the referee's own view, every move legal), the family
here holds the *true* cards: a shuffled box, hands, draw pile and piles that the referee sees
only as the mode allows. In scripted mode every card is named; at a real table (``table``)
hands and the draw pile are counts and drawn cards are named only when the camera sees
them; ``mixed`` names the hands but not the draw pile, and a box may miss cards. The family
makes plausible moves — mostly legal plays from the true hand, draws, DOS calls (before and
after the play, or forgotten), callouts, Draw Four counters and take-fours, reshuffles when
asked — and now and then a move a child would make: out of turn, a card that does not
match, a pile closed by a Skip, ending the turn too early, a false DOS or callout, a card the
deck does not have or the referee knows cannot be there. 2 to 4 players, every option.

After every event:

* the event is judged as expected: the legal move accepted, the child's move refused with one
  ``illegal`` verdict and the very same state; only ``EventError`` is ever raised, and only
  for malformed events;
* the true cards are conserved (each card of the box in exactly one place) and the referee's
  view agrees with them: the same piles, hand and draw pile sizes, every card it names in a
  hand really there, the draw pile's named cards its true top, the cards a penalty draw names
  the true ones; it never knows more copies of a card than the deck has;
* DOS calls: a player who plays down to two has called or can be caught; only such players
  can be caught;
* the turn: Reverses turn the direction, Skips close exactly their piles, a combo is
  announced exactly for two equal number cards, the last-card draw exactly for one card left,
  in the order last-card draw, combo, actions (DOS-13); no Draw Four waits once the turn has
  begun (DOS-10);
* the game ends exactly when a hand is empty, with nothing acted after the last card
  (DOS-14), or, with the optional ending, when a turn ends on an empty draw pile (DOS-17);
  scores are the cards left, never negative, added up over the rounds; the lowest total
  wins; view (as JSON), table and scoreboard render at every step.

After every game: the log (through JSON) replays to an equal state with the same verdicts;
an ``undo`` of an event gives back the state before it exactly, undoing that undo the state
after, and an ``overrule`` the state the other event gives there; an undo of a random
earlier event re-judges the rest without a crash and still keeps every card in one place.

A game a random family plays with a nearly empty box can pass cards round for ever; after
MAX_EVENTS it is counted as stalled (3 in 2 000 games), not failed.

Found so far: a drawn card named after an unseen reshuffle skipped the DOS-20 copy count
(``test_reread_dos20_a_card_named_drawn_from_a_reshuffled_pile_counts_every_copy``).

Ad hoc: ``.venv/bin/python -m tests.test_dos_playthrough 2000 [first]`` plays 2 000 more
games (in chunks of 50 seeded ``100000 + first``, ``+ 1``, ...) and prints the tallies.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from referee.dos.cards import DosCard, Symbol, format_card, format_cards, matches, parse_card
from referee.dos.deck import copies_in_deck, full_deck
from referee.dos.game import GAME
from referee.dos.state import DosState, Phase, PileTurn
from referee.events import Event
from referee.verdicts import Outcome, Verdict
from tests.playthrough import LoggedGame, first_move, judge, play_games
from tests.playthrough import main as playthrough_main

PILES = ("left", "right")
DONE = (PileTurn.PLAYED, PileTurn.DRAWN_PLAYED)
MAX_EVENTS = 5000
GAMES_PER_TEST = 16
SEEDS = range(4)
# How often (per step) the family does something besides the plain turn.
CHILD = 0.08  # a move a child would make: refused
FORGET_DOS = 0.35  # plays down to two without a word


@dataclass
class Config:
    players: list[str]
    options: dict[str, Any]
    mode: str  # "scripted" | "table" | "mixed"
    missing: int  # cards missing from the box (table and mixed mode)


def random_config(rng: random.Random) -> Config:
    n = rng.choice([2, 3, 3, 4, 4])
    options: dict[str, Any] = {
        "hand_size": rng.choice([3, 5, 5, 7, 14]),
        "numbers": rng.choice(["0-9", "1-9", "1-10"]),
        "draw_for_blocked_pile": rng.random() < 0.7,
        "draw_four_counter": rng.random() < 0.75,
        "draw_pile_out_ends_game": rng.random() < 0.3,
        "rounds": rng.choice([1, 1, 2, 3]),
    }
    for name in list(options):
        if name != "hand_size" and rng.random() < 0.2:
            del options[name]  # the default
    mode = rng.choice(["scripted", "scripted", "table", "mixed"])
    deck = len(full_deck(options.get("numbers", "1-10")))
    spare = deck - n * options["hand_size"] - 2
    missing = 0
    if mode != "scripted" and rng.random() < 0.5:
        # a box with cards missing: a short draw pile, reshuffles and the ending come soon
        missing = spare - rng.randrange(min(spare, 10), min(spare, 80) + 1)
    return Config([f"P{i}" for i in range(n)], options, mode, missing)


@dataclass
class Table:
    """The true cards on the table; the referee sees them as the mode allows."""

    hands: list[list[DosCard]]
    piles: list[list[DosCard]]
    stock: list[DosCard]  # top first
    box: Counter[DosCard] = field(default_factory=Counter)

    def everything(self) -> Counter[DosCard]:
        out: Counter[DosCard] = Counter(self.stock)
        for cards in (*self.hands, *self.piles):
            out.update(cards)
        return out


def _take(cards: list[DosCard], card: DosCard) -> None:
    cards.remove(card)  # ValueError: the family played a card it does not hold


def _is_counter(state: DosState, seat: int, card: DosCard, pile: int | None) -> bool:
    return any(
        f.victim == seat
        and card.symbol is Symbol.SKIP
        and card.color is f.card.color
        and (pile is None or pile == f.pile)
        for f in state.pending
    )


class Family:
    """Plays one game at a table with true cards and checks the referee after every event."""

    def __init__(self, rng: random.Random, config: Config) -> None:
        self.rng = rng
        self.cfg = config
        self.state: DosState = GAME.new_state(config.players, config.options)
        self.opts = self.state.options
        self.deck = copies_in_deck(self.opts["numbers"])
        self.truth: Table | None = None
        self.next_truth: Table | None = None
        self.next_stock: list[DosCard] = []
        self.all_named = config.mode == "scripted"  # the referee can see every card
        self.drawn: dict[int, DosCard | None] = {}  # the true card drawn for a pile this turn
        self.turn_cards: list[DosCard | None] = [None, None]  # played this turn (no counters)
        self.played_down_to: dict[int, int] = {}  # seat: cards left by its play in this event
        self.log: list[Event] = []
        self.verdicts: list[list[Verdict]] = []
        self.states: list[DosState] = []  # the state after each logged event
        self.stats: Counter[str] = Counter()

    # -- sending events ----------------------------------------------------------------
    def send(self, event: Event, expect: str) -> list[Verdict] | None:
        """Apply ``event``; ``expect`` is "legal", "illegal" or "error" (malformed)."""
        before = self.state
        where = f"{self.cfg} event {len(self.log) + 1} {event.to_dict()}"
        self.played_down_to = {}
        judged = judge(GAME, before, event, expect, where, before.n, self.stats)
        if judged is None:
            return None
        after, verdicts = judged
        self.log.append(event)
        self.verdicts.append(verdicts)
        self.states.append(after)
        self.state = after
        if expect == "legal":
            self.follow(before, event, verdicts)
        self.check(before, event, verdicts, where)
        return verdicts

    def follow(self, before: DosState, event: Event, verdicts: list[Verdict]) -> None:
        """Move the true cards as the referee's verdicts say, and check what they name."""
        if event.kind == "deal":
            self.truth, self.next_truth = self.next_truth, None
            self.turn_cards = [None, None]
            return
        t = self.truth
        assert t is not None
        for v in verdicts:
            data = v.data
            if v.outcome is Outcome.LEGAL and event.kind == "reshuffle":
                t.stock = list(self.next_stock)
                t.piles = [p[-1:] for p in t.piles]
                self.stats["reshuffles"] += 1
            elif (
                v.outcome is Outcome.LEGAL and "pile" in data and event.kind in ("play", "counter")
            ):
                card = parse_card(event.payload["card"])
                assert v.seat is not None
                _take(t.hands[v.seat], card)
                t.piles[data["pile"]].append(card)
                self.played_down_to[v.seat] = len(t.hands[v.seat])
                pile = event.payload.get("pile")
                if _is_counter(before, v.seat, card, None if pile is None else data["pile"]):
                    self.stats["counters"] += 1
                else:
                    self.turn_cards[data["pile"]] = card
            elif v.outcome is Outcome.LEGAL and "pile" in data and event.kind == "draw":
                assert v.seat is not None and t.stock, v
                card = t.stock.pop(0)
                t.hands[v.seat].append(card)
                self.drawn[data["pile"]] = card
            elif v.outcome is Outcome.INFO and "pile" in data and event.kind == "draw":
                if "nothing to draw" in v.reason:
                    self.drawn[data["pile"]] = None
            elif "draws" in data:
                assert v.seat is not None
                if data.get("penalty") == "one_card_left":
                    assert len(t.hands[v.seat]) == 1, f"last-card draw on {t.hands[v.seat]}"
                    self.stats["last-card draws"] += 1
                elif data.get("penalty") == "no_dos_call":
                    self.stats["callout draws"] += 1
                taken = t.stock[: data["draws"]]
                assert len(taken) == data["draws"], v
                del t.stock[: data["draws"]]
                t.hands[v.seat] += taken
                named = data["cards"]
                assert named == format_cards(taken[: len(named)]), (v, taken)

    # -- the checks --------------------------------------------------------------------
    def check(self, before: DosState, event: Event, verdicts: list[Verdict], where: str) -> None:
        s = self.state
        json.dumps(GAME.view(s))
        GAME.table(s)
        board = GAME.scoreboard(s).to_dict()
        assert all(total >= 0 for total in board["totals"]), where
        check_engine_cards(s, self.deck, self.cfg)
        t = self.truth
        if t is None:
            assert s.phase is Phase.DEAL
            return
        assert t.everything() == t.box, f"{where}: a true card was lost or doubled"
        assert [list(p) for p in s.piles] == t.piles, where
        assert [len(h) for h in s.hands] == [len(h) for h in t.hands], where
        for seat, hand in enumerate(s.hands):
            assert not Counter(hand.known) - Counter(t.hands[seat]), (where, seat, hand)
            if self.all_named:
                assert hand.unknown == 0 and Counter(hand.known) == Counter(t.hands[seat])
        assert len(s.stock) == len(t.stock), where
        assert list(s.stock.known) == t.stock[: len(s.stock.known)], where
        if self.all_named:
            assert s.stock.unknown == 0
        ended = [v for v in verdicts if v.outcome is Outcome.ROUND_END]
        emptied = [i for i, h in enumerate(t.hands) if not h]
        if s.phase is Phase.PLAY:
            assert not emptied and not ended, f"{where}: {emptied} out of cards, game goes on"
            assert not (s.current.started and s.pending), f"{where}: a Draw Four left waiting"
            self.check_dos_calls(where)
            if any(s.owed):
                assert not s.stock, where
        if emptied and before.phase is Phase.PLAY:
            assert ended, f"{where}: a hand is empty and the round goes on"
        turn_over = (
            before.phase is Phase.PLAY
            and s.phase is Phase.PLAY
            and s.round == before.round
            and s.turn != before.turn
        )
        pile_out = bool(ended) and s.end_reason == "the draw pile ran out"
        if turn_over or pile_out:
            self.check_turn_end(before, verdicts, where, turn_over)
        if ended:
            self.check_round_end(ended[0], where)
            if s.end_reason != "the draw pile ran out":  # DOS-14: out at once, no actions
                at = verdicts.index(ended[0])
                assert at > 0 and verdicts[at - 1].outcome is Outcome.LEGAL, where
        if s.phase is Phase.FINISHED:
            assert s.round == self.opts["rounds"] and len(s.rounds) == s.round, where
            low = min(s.totals)
            assert s.winners == tuple(i for i, x in enumerate(s.totals) if x == low), where

    def check_dos_calls(self, where: str) -> None:
        """DOS-12: on two cards by a play, a player has called or can be caught; nobody else."""
        s = self.state
        for seat in s.exposed:
            assert len(s.hands[seat]) == 2 and seat not in s.called, (where, seat)
        for seat, left in self.played_down_to.items():
            if left == 2 and len(s.hands[seat]) == 2:
                assert seat in s.called or seat in s.exposed, f"{where}: DOS uncalled unseen"

    def check_round_end(self, ended: Verdict, where: str) -> None:
        s, t = self.state, self.truth
        assert t is not None
        sizes = tuple(len(h) for h in t.hands)
        assert s.rounds[-1] == sizes and min(sizes) >= 0, where
        if s.end_reason == "the draw pile ran out":
            assert self.opts["draw_pile_out_ends_game"] and not t.stock, where
            self.stats["ended: draw pile out"] += 1
        else:
            assert 0 in sizes, f"{where}: round ended ({s.end_reason}) with no empty hand"
            self.stats["ended: out of cards"] += 1
        assert list(s.round_winners[-1]) == ended.data["winners"]
        assert s.round_winners[-1] == tuple(i for i, x in enumerate(sizes) if x == min(sizes))
        assert sum(sum(r) for r in s.rounds) == sum(s.totals)
        self.turn_cards = [None, None]

    def check_turn_end(
        self, before: DosState, verdicts: list[Verdict], where: str, turn_over: bool
    ) -> None:
        """Actions, combo and the last-card draw of the turn that just ended (DOS-9, 11, 13)."""
        s = self.state
        cards = self.turn_cards
        self.turn_cards = [None, None]
        self.drawn = {}
        combo = cards[0] is not None and cards[0].is_number and cards[0] == cards[1]
        said = any(v.reason.startswith("Combo!") for v in verdicts)
        # DOS-13: the last-card draw, then the combo, then the actions left to right
        order = [
            0
            if v.data.get("penalty") == "one_card_left"
            else 1
            if v.reason.startswith("Combo!")
            else 2
            for v in verdicts
            if v.data.get("penalty") == "one_card_left"
            or v.reason.startswith(("Combo!", "Skip:", "Reverse:"))
            or ": Draw Two on the" in v.reason
        ]
        assert order == sorted(order), f"{where}: end-of-turn order {verdicts}"
        assert said == combo, f"{where}: combo {said} for {cards}"
        self.stats["combos"] += combo
        seat = before.turn
        last_card = any(
            v.data.get("penalty") == "one_card_left" and v.seat == seat for v in verdicts
        )
        if not last_card:
            assert len(s.hands[seat]) != 1 or not turn_over, f"{where}: one card, no draw of 3"
        if not turn_over:
            return
        direction = before.direction
        for card in cards:
            if card is not None and card.symbol is Symbol.REVERSE:
                direction = -direction
        assert s.direction == direction, where
        assert s.turn == (seat + direction) % s.n, where
        skips = {p for p, c in enumerate(cards) if c is not None and c.symbol is Symbol.SKIP}
        assert s.blocked == frozenset(skips), where
        if self.opts["draw_pile_out_ends_game"]:
            assert len(s.stock) > 0, f"{where}: a turn ended on an empty draw pile, game goes on"
        self.stats["turns"] += 1

    # -- the family's moves ------------------------------------------------------------
    def play_game(self) -> None:
        while self.state.phase is not Phase.FINISHED:
            if len(self.log) >= MAX_EVENTS:
                # Random players with a tiny box can pass cards round for ever: no rule
                # ends that, so the game is left unfinished (and counted).
                self.stats["stalled"] += 1
                return
            self.step()
        self.send(Event("play", 0, {"card": "R5", "pile": "left"}), "illegal")  # game over
        self.send(Event("call", 1), "illegal")

    def step(self) -> None:
        s, rng = self.state, self.rng
        if s.phase is Phase.DEAL:
            if rng.random() < 0.05:
                self.bad_deal()
            if rng.random() < 0.05:  # a card played before the deal is entered
                self.send(self._play(s.turn, "R5", rng.randrange(2)), "illegal")
            self.deal()
            return
        if s.waiting_for_reshuffle and rng.random() < 0.85:
            self.reshuffle()
            return
        if rng.random() < CHILD and self.child():
            return
        if self.side_event():
            return
        if self.can_reshuffle() and (rng.random() < 0.7 or not self.plays()):
            self.reshuffle()
            return
        self.turn_move()

    def can_reshuffle(self) -> bool:
        s = self.state
        under = sum(len(p) - 1 for p in s.piles)
        return not self.opts["draw_pile_out_ends_game"] and not s.stock and under > 0

    def deal(self) -> None:
        rng, n, size = self.rng, self.state.n, self.opts["hand_size"]
        cards = full_deck(self.opts["numbers"])
        rng.shuffle(cards)
        cards = cards[self.cfg.missing :]
        hands = [cards[i * size : (i + 1) * size] for i in range(n)]
        piles = [[cards[n * size]], [cards[n * size + 1]]]
        stock = cards[n * size + 2 :]
        self.next_truth = Table(hands, piles, stock, Counter(cards))
        mode = self.cfg.mode
        payload: dict[str, Any] = {
            "hands": [format_cards(h) if mode != "table" else len(h) for h in hands],
            "piles": [format_card(p[0]) for p in piles],
        }
        if mode == "scripted":
            payload["stock"] = format_cards(stock)
        elif self.cfg.missing or rng.random() < 0.5:
            payload["stock"] = len(stock)
        seat = None
        if rng.random() < 0.3:
            payload["dealer"] = rng.randrange(n)
        elif rng.random() < 0.2:
            seat = rng.randrange(n)  # the dealer enters the deal from their own pad
        dealer = payload.get("dealer", seat if seat is not None else self.state.dealer)
        self.send(Event("deal", seat, payload), "legal")
        assert self.state.turn == (dealer + 1) % n and self.state.dealer == dealer
        self.drawn = {}
        self.all_named = mode == "scripted"

    def bad_deal(self) -> None:
        size = self.opts["hand_size"]
        hands = [size] * self.state.n
        hands[self.rng.randrange(self.state.n)] = size + 1
        self.send(Event("deal", None, self._counted_deal(hands)), "illegal")

    def _counted_deal(self, hands: list[int]) -> dict[str, Any]:
        """A deal entered as counts, with the draw pile this box gives."""
        size, n = self.opts["hand_size"], self.state.n
        stock = len(full_deck(self.opts["numbers"])) - self.cfg.missing - n * size - 2
        return {"hands": hands, "piles": ["R5", "G5"], "stock": stock}

    def reshuffle(self) -> None:
        s, t, rng = self.state, self.truth, self.rng
        assert t is not None
        under = [c for p in t.piles for c in p[:-1]]
        rng.shuffle(under)
        self.next_stock = under
        payload: dict[str, Any] = {}
        named = self.cfg.mode == "scripted" and rng.random() < 0.9
        if named or (self.cfg.mode == "mixed" and rng.random() < 0.3):
            payload["stock"] = format_cards(under)
        elif rng.random() < 0.5:
            payload["stock"] = len(under)
        if "stock" not in payload or isinstance(payload["stock"], int):
            self.all_named = False
        legal = not self.opts["draw_pile_out_ends_game"] and not s.stock and under
        self.send(Event("reshuffle", None, payload), "legal" if legal else "illegal")

    def plays(self) -> list[tuple[int, DosCard]]:
        """The turn player's legal plays, from their true hand (DOS-5, 6, 8)."""
        s, t = self.state, self.truth
        assert t is not None
        cur = s.current
        hand = list(t.hands[s.turn])
        for p in (0, 1):
            drawn = self.drawn.get(p)
            if cur.piles[p] is PileTurn.DRAWN and drawn is not None:
                hand.remove(drawn)  # the card drawn for the other pile is not for this one
        out: list[tuple[int, DosCard]] = []
        for p in (0, 1):
            if p in s.blocked:
                continue
            if cur.piles[p] is PileTurn.OPEN:
                out += [(p, c) for c in dict.fromkeys(hand) if matches(c, s.top(p))]
            elif cur.piles[p] is PileTurn.DRAWN:
                drawn = self.drawn.get(p)
                if drawn is not None and matches(drawn, s.top(p)):
                    out.append((p, drawn))
        return out

    def turn_move(self) -> None:
        s, t, rng = self.state, self.truth, self.rng
        assert t is not None
        seat, cur = s.turn, s.current
        owes = s.waiting_for_reshuffle
        plays = self.plays()
        draws = [
            p
            for p in (0, 1)
            if cur.piles[p] is PileTurn.OPEN
            and (p not in s.blocked or self.opts["draw_for_blocked_pile"])
        ]
        if plays and (rng.random() < 0.95 or not draws):
            pile, card = rng.choice(plays)
            hand = len(t.hands[seat])
            if hand == 3 and seat not in s.called and rng.random() < (1 - FORGET_DOS) / 2:
                self.send(Event("call", seat, t_ns=rng.randrange(10**12)), "legal")
            self.send(
                Event("play", seat, {"card": format_card(card), "pile": PILES[pile]}),
                "illegal" if owes else "legal",
            )
            after = self.state
            if after.phase is Phase.PLAY and seat in after.exposed and rng.random() > FORGET_DOS:
                self.send(Event("call", seat, t_ns=rng.randrange(10**12)), "legal")
        elif draws:
            pile = rng.choice(draws)
            payload: dict[str, Any] = {"pile": PILES[pile]}
            settles_fours = bool(s.pending) and not cur.started
            if t.stock and not settles_fours and rng.random() < 0.4:
                payload["card"] = format_card(t.stock[0])  # the camera saw it
            waits = not s.stock and self.can_reshuffle() and not settles_fours
            self.send(Event("draw", seat, payload), "illegal" if owes or waits else "legal")
        else:
            self.send(Event("end_turn", seat), "illegal" if owes else "legal")

    def side_event(self) -> bool:
        """Draw Four victims, late DOS calls and callouts: besides the turn."""
        s, t, rng = self.state, self.truth, self.rng
        assert t is not None
        owes = s.waiting_for_reshuffle
        for four in s.pending:
            victim = four.victim
            skip = DosCard(four.card.color, symbol=Symbol.SKIP)
            if skip in t.hands[victim] and rng.random() < 0.5:
                size = len(t.hands[victim])
                if size == 3 and victim not in s.called and rng.random() < 0.5:
                    self.send(Event("call", victim), "legal")
                payload: dict[str, Any] = {"card": format_card(skip), "pile": PILES[four.pile]}
                kind = rng.choice(["counter", "counter", "play"])
                if kind == "counter" and rng.random() < 0.5:
                    del payload["pile"]  # the referee finds the Draw Four it counters
                self.send(Event(kind, victim, payload), "illegal" if owes else "legal")
                return True
            if rng.random() < 0.15:
                self.send(Event("take_four", victim), "illegal" if owes else "legal")
                return True
        if s.exposed and rng.random() < 0.4:
            target = rng.choice(sorted(s.exposed))
            if rng.random() < 0.25:
                self.send(Event("call", target, t_ns=rng.randrange(10**12)), "legal")
            else:
                caller = rng.choice([i for i in range(s.n) if i != target])
                self.send(Event("callout", caller, {"target": target}), "legal")
            return True
        return False

    # -- a child's moves ---------------------------------------------------------------
    def child(self) -> bool:
        """One move the referee must refuse (or, malformed, not read); False if none fits."""
        moves = [
            self.out_of_turn,
            self.no_match,
            self.closed_pile,
            self.pile_done,
            self.early_end,
            self.draw_again,
            self.false_call,
            self.false_callout,
            self.nothing_to_take,
            self.wrong_counter,
            self.reshuffle_too_soon,
            self.deal_again,
            self.not_in_deck,
            self.not_in_hand,
            self.wrong_draw,
            self.drawn_on_other_pile,
            self.copy_too_many,
            self.misread_draw,
            self.malformed,
        ]
        return first_move(
            self.rng,
            moves,
            4,
            self.stats,
            lambda move, event: self.send(event, "error" if move == self.malformed else "illegal"),
        )

    def _hand(self, seat: int) -> list[DosCard]:
        """The seat's true cards, less any Skip that would counter a Draw Four (that is legal)."""
        t = self.truth
        assert t is not None
        return [c for c in t.hands[seat] if not _is_counter(self.state, seat, c, None)]

    def _play(self, seat: int, card: DosCard | str, pile: int) -> Event:
        token = card if isinstance(card, str) else format_card(card)
        return Event("play", seat, {"card": token, "pile": PILES[pile]})

    def out_of_turn(self) -> Event | None:
        s = self.state
        seat = self.rng.choice([i for i in range(s.n) if i != s.turn])
        hand = self._hand(seat)
        return self._play(seat, self.rng.choice(hand), self.rng.randrange(2)) if hand else None

    def no_match(self) -> Event | None:
        s = self.state
        for p in (0, 1):
            if s.current.piles[p] is PileTurn.OPEN and p not in s.blocked:
                wrong = [c for c in self._hand(s.turn) if not matches(c, s.top(p))]
                if wrong:
                    return self._play(s.turn, self.rng.choice(wrong), p)
        return None

    def closed_pile(self) -> Event | None:
        s = self.state
        hand = self._hand(s.turn)
        if s.blocked and hand:
            return self._play(s.turn, self.rng.choice(hand), min(s.blocked))
        return None

    def pile_done(self) -> Event | None:
        s = self.state
        hand = self._hand(s.turn)
        done = [p for p in (0, 1) if s.current.piles[p] in DONE]
        return self._play(s.turn, self.rng.choice(hand), done[0]) if done and hand else None

    def early_end(self) -> Event | None:
        s = self.state
        draw_closed = self.opts["draw_for_blocked_pile"]
        open_ = [
            p
            for p in (0, 1)
            if s.current.piles[p] is PileTurn.OPEN and (p not in s.blocked or draw_closed)
        ]
        return Event("end_turn", s.turn) if open_ else None

    def draw_again(self) -> Event | None:
        s = self.state
        # a draw for a pile played on is DOS-25's late draw: legal when the draw pile can
        # have given the card played, so only piles already drawn for are drawn for again
        drawn = (PileTurn.DRAWN, PileTurn.DRAWN_PLAYED)
        done = [p for p in (0, 1) if s.current.piles[p] in drawn]
        return Event("draw", s.turn, {"pile": PILES[done[0]]}) if done else None

    def false_call(self) -> Event | None:
        s = self.state
        for seat in range(s.n):
            fours = sum(1 for f in s.pending if f.victim == seat)
            if seat in s.called or len(s.hands[seat]) > 4 + fours:
                return Event("call", seat)
        return None

    def false_callout(self) -> Event | None:
        s = self.state
        caller = self.rng.randrange(s.n)
        if self.rng.random() < 0.2:
            return Event("callout", caller, {"target": caller})  # "you cannot call yourself"
        safe = [i for i in range(s.n) if i != caller and i not in s.exposed]
        return Event("callout", caller, {"target": self.rng.choice(safe)}) if safe else None

    def nothing_to_take(self) -> Event | None:
        s = self.state
        free = [i for i in range(s.n) if all(f.victim != i for f in s.pending)]
        if not free:
            return None
        seat = self.rng.choice(free)
        if self.rng.random() < 0.5:
            return Event("take_four", seat)
        skip = DosCard(s.top(0).color, None, Symbol.SKIP)
        return Event("counter", seat, {"card": format_card(skip)})

    def wrong_counter(self) -> Event | None:
        """A Skip of another colour, or on the other pile, does not counter a Draw Four."""
        s, t = self.state, self.truth
        assert t is not None
        for four in s.pending:
            for card in t.hands[four.victim]:
                if card.symbol is Symbol.SKIP and not _is_counter(s, four.victim, card, None):
                    return Event("counter", four.victim, {"card": format_card(card)})
                other = 1 - four.pile
                if _is_counter(s, four.victim, card, four.pile) and not _is_counter(
                    s, four.victim, card, other
                ):
                    payload = {"card": format_card(card), "pile": PILES[other]}
                    return Event("counter", four.victim, payload)
        return None

    def reshuffle_too_soon(self) -> Event | None:
        return Event("reshuffle", None, {}) if self.state.stock else None

    def deal_again(self) -> Event | None:
        size = self.opts["hand_size"]
        return Event("deal", None, self._counted_deal([size] * self.state.n))

    def not_in_deck(self) -> Event | None:
        token = "B10" if self.opts["numbers"] == "0-9" else "B0"
        return self._play(self.state.turn, token, self.rng.randrange(2))

    def not_in_hand(self) -> Event | None:
        """Scripted mode knows every hand: a card the player does not hold is refused."""
        s, t = self.state, self.truth
        assert t is not None
        if s.hands[s.turn].unknown or (s.pending and not s.current.started):
            return None  # (a Draw Four's cards, drawn first, might bring it)
        for p in (0, 1):
            if s.current.piles[p] is PileTurn.OPEN and p not in s.blocked:
                absent = [c for c in self.deck if c not in t.hands[s.turn] and matches(c, s.top(p))]
                return self._play(s.turn, self.rng.choice(absent), p) if absent else None
        return None

    def wrong_draw(self) -> Event | None:
        """Naming a card that is not the known top of the draw pile."""
        s = self.state
        if not s.stock.known or (s.pending and not s.current.started):
            return None
        open_ = [p for p in (0, 1) if s.current.piles[p] is PileTurn.OPEN]
        others = [c for c in self.deck if c is not s.stock.known[0]]
        if not open_:
            return None
        card = format_card(self.rng.choice(others))
        return Event("draw", s.turn, {"pile": PILES[open_[0]], "card": card})

    def drawn_on_other_pile(self) -> Event | None:
        s, t = self.state, self.truth
        assert t is not None
        cur = s.current
        for p in (0, 1):
            drawn = cur.drawn[p]
            q = 1 - p
            if (
                cur.piles[p] is PileTurn.DRAWN
                and drawn is not None
                and cur.piles[q] is PileTurn.OPEN
                and q not in s.blocked
                and t.hands[s.turn].count(drawn) == 1
                and not s.hands[s.turn].unknown  # else another copy may be among them
                and not _is_counter(s, s.turn, drawn, q)
            ):
                return self._play(s.turn, drawn, q)
        return None

    def copy_too_many(self) -> Event | None:
        """Table mode (DOS-20): a card whose every copy the referee has placed is a misread."""
        s = self.state
        if not s.hands[s.turn].unknown:
            return None
        placed: Counter[DosCard] = Counter(s.stock.known)
        for cards in (*s.piles, *(h.known for h in s.hands)):
            placed.update(cards)
        mine = s.hands[s.turn].known
        full = [c for c, k in placed.items() if k >= self.deck[c] and c not in mine]
        if not full:
            return None
        return self._play(s.turn, self.rng.choice(full), self.rng.randrange(2))

    def misread_draw(self) -> Event | None:
        """DOS-20: a drawn card named that the referee knows cannot be in the draw pile."""
        s = self.state
        cur = s.current
        if s.stock.known or not s.stock or (s.pending and not cur.started):
            return None
        draw_closed = self.opts["draw_for_blocked_pile"]
        open_ = [
            p
            for p in (0, 1)
            if cur.piles[p] is PileTurn.OPEN and (p not in s.blocked or draw_closed)
        ]
        placed: Counter[DosCard] = Counter()
        for cards in (*s.piles, *(h.known for h in s.hands)):
            placed.update(cards)
        full = [c for c, k in placed.items() if k >= self.deck[c]]
        if not open_ or not full:
            return None
        payload = {"pile": PILES[open_[0]], "card": format_card(self.rng.choice(full))}
        return Event("draw", s.turn, payload)

    def malformed(self) -> Event | None:
        s = self.state
        return self.rng.choice(
            [
                Event("play", s.turn, {"card": "B11", "pile": "left"}),
                Event("play", s.turn, {"card": "R5", "pile": "middle"}),
                Event("draw", s.n + 1, {"pile": "left"}),
                Event("callout", s.turn, {"target": s.n}),
                Event("shout", s.turn),
            ]
        )

    # -- after the game ----------------------------------------------------------------
    def check_replays(self) -> None:
        """The log replays to the same state and verdicts; undo gives back a state exactly."""
        logged = LoggedGame.of(GAME, self)
        n, k = len(logged.numbered), self.rng.randrange(1, len(self.log) + 1)
        logged.check_undo_twice(k)
        logged.check_overrule(k, self.rng.choice(self.log))
        # An undo of an earlier event re-judges everything after it: no crash, cards kept.
        got = logged.rejudged(Event("undo", None, {"target": self.rng.randrange(1, n + 1)}))
        if got is None:
            self.stats["undo: input error"] += 1
        else:
            check_engine_cards(got, self.deck, self.cfg)
            self.stats["undo: replayed"] += 1


def check_engine_cards(s: DosState, deck: Any, cfg: Config) -> None:
    """What the referee alone must keep: every card in one place, no copy too many."""
    if s.phase is Phase.DEAL and not s.hands:
        return
    total = len(s.stock) + sum(len(h) for h in s.hands) + sum(len(p) for p in s.piles)
    assert total == sum(deck.values()) - cfg.missing, f"{cfg}: {total} cards on the table"
    placed: Counter[DosCard] = Counter(s.stock.known)
    for cards in (*s.piles, *(h.known for h in s.hands)):
        placed.update(cards)
    over = {c: k for c, k in placed.items() if k > deck[c]}
    assert not over, f"{cfg}: the referee places too many copies: {over}"
    assert all(n >= 0 for n in s.owed) and all(len(h) >= 0 for h in s.hands)


def play(seed: int, games: int) -> Counter[str]:
    return play_games(seed, games, random_config, Family, Family.check_replays)


# -- what the playthrough found -----------------------------------------------------------
def _ok(state: DosState, kind: str, seat: int | None = None, **payload: Any) -> DosState:
    new, verdicts = GAME.apply(state, Event(kind, seat, payload))
    bad = [v.reason for v in verdicts if v.outcome is Outcome.ILLEGAL]
    assert not bad, f"{kind} {payload} refused: {bad}"
    return new


def test_ruling_dos20_a_card_named_drawn_from_a_reshuffled_pile_counts_every_copy() -> None:
    """DOS-20: "a card seen coming out of an unseen hand or draw pile (a play, a counter, a
    named draw) is refused ... when all the deck's copies are accounted for". After an
    unseen reshuffle a named draw was only checked against the cards the pile was made of:
    the red Reverse shuffled in may have gone with an unseen draw, and once all four red
    Reverses lay on the discard piles a fifth, named drawn, was still taken (the referee
    then placed 5 of the 4). Found by the playthrough (a misread drawn card)."""
    state = GAME.new_state(["Ann", "Bea"], {"hand_size": 6, "numbers": "1-9"})
    state = _ok(state, "deal", hands=[6, 6], piles=["R1", "G1"], stock=0)
    for seat, right in ((0, "G2"), (1, "G3")):
        state = _ok(state, "play", seat, card="RREV", pile="left")
        state = _ok(state, "play", seat, card=right, pile="right")
    fresh = _ok(state, "reshuffle")  # nobody saw it: R1, RREV, G1, G2 in some order
    assert fresh.stock_pool is not None and len(fresh.stock) == 4
    # Each draws unseen for the left pile (it may be the red Reverse) and plays one there.
    state = fresh
    for seat, right in ((0, "G4"), (1, "G5")):
        state = _ok(state, "draw", seat, pile="left")
        state = _ok(state, "play", seat, card="RREV", pile="left")
        state = _ok(state, "play", seat, card=right, pile="right")
    state = _ok(state, "play", 0, card="RREV", pile="left")
    assert state.piles[0].count(parse_card("RREV")) == 4  # every red Reverse is on the left
    new, verdicts = GAME.apply(state, Event("draw", 0, {"pile": "right", "card": "RREV"}))
    assert new is state and [v.outcome for v in verdicts] == [Outcome.ILLEGAL], verdicts
    assert verdicts[0].reason == (
        "The deck has only 4 red Reverse cards, but this makes 5 that the referee knows of "
        "(4 on the discard piles, 1 named now): check the card."
    )
    # Without unseen draws the shuffled-in copy is surely still there: three on the piles
    # and that one drawn make four, not five (the drawn copy is not counted twice).
    state = _ok(fresh, "play", 0, card="RREV", pile="left")
    state = _ok(state, "play", 0, card="G4", pile="right")
    state = _ok(state, "play", 1, card="RREV", pile="left")
    state = _ok(state, "draw", 1, pile="right", card="RREV")
    assert state.hands[1].known == (parse_card("RREV"),) and len(state.stock_pool or ()) == 3


@pytest.mark.parametrize("seed", SEEDS)
def test_whole_games_keep_the_rules_invariants(seed: int) -> None:
    stats = play(8100 + seed, GAMES_PER_TEST)
    assert stats["games"] == GAMES_PER_TEST and stats["turns"] > 20 * GAMES_PER_TEST
    # every kind of move was made and judged, legal and not
    for kind in ("deal", "play", "draw", "end_turn", "call", "callout", "reshuffle"):
        assert stats[kind] > 0, (kind, stats)
    assert stats["refused"] > 2 * GAMES_PER_TEST and stats["input errors"] > 0, stats
    assert stats["ended: out of cards"] > 0 and stats["stalled"] <= 1, stats


if __name__ == "__main__":
    playthrough_main(play, 100_000)
