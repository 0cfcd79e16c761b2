"""Whole Deck Dash games, deal to game over, played by a seeded random family at a real table.

Unlike ``test_deckdash_conformance.py`` (the referee's own view, every move legal), the
family here holds the *true* cards: a shuffled 128-card deck, hands, draw pile, discard pile,
the groups on the table and the Block You cards in front of players, which the referee sees
only as the mode allows. In ``scripted`` rounds every card is named; at a real table
(``table``) hands and the draw pile are counts and the camera names a drawn card only now and
then; ``mixed`` games deal some rounds card by card and some as counts, and there the camera
names most draws and reshuffles. The family plays plausible moves: draws from either pile
(the special start card by the first player), Dashes laid when found (now and then
forgotten), handoffs, Keep Two / Draw 2 Discard 1 / Draw 4 Discard 3 (played or discarded),
Reverse, Skip You and Block You with or without a target, Skip 2 Players, returning the
Block You, Deck Steals at any moment (out of turn too), reshuffles, tallies (true, miscounted
and corrected) and stopping early. Now and then it makes a child's mistake: out of turn, the
wrong step, an invalid or second lay-down, a handoff that does not fit or comes before the
Dash, a blocked, own or absent target, drawing or stealing a discarded Wild or special card,
a misread draw (not the known top, or a copy the deck does not have), one copy too many,
a card not in a known hand, a reshuffle too soon or of other cards, a wrong deal, a tally
where none is allowed or changing the Dash winner's hand, malformed events. 2 to 8 players,
both levels, every option (``dashes``, ``dash_count``, ``points``, ``end_on_empty_draw``,
``winner``, ``first_to_scoring``, ``wild_from_discard``).

After every event:

* the event is judged as expected: the legal move accepted, the child's move refused with one
  ``illegal`` verdict and the very same state; only ``EventError`` is ever raised, and only
  for malformed events;
* the true cards are conserved (the 128 cards, DD-16, each in exactly one place) and the
  referee agrees with them: the same discard pile, groups on the table, Block You cards in
  front of players, hand and draw pile sizes; every card it names in a hand really there
  (all of them in a scripted round), the draw pile's named cards its true top; it never
  places more copies of a card than the deck has (within a turn, between lay-downs,
  handoffs and steals, the piles' tops, the acting hands and the named card's copies;
  everything at each turn's start and after each of those);
* the turn, recomputed by the family: direction (Reverse, DD-6), lost turns (Skip You DD-4,
  Skip 2 Players DD-5, start cards DD-22), blocks (DD-10: a Skip You or Block You with no
  target goes to the next player without a Block You, the players passed over are named;
  with everyone else blocked it has no effect), the step of the turn and the draws and
  discards owed (DD-9), the start card's pickup (DD-18), who has laid;
* the round ends exactly when it should: a player with their Dash down and an empty hand
  (DD-19), a First-to Dash laid (DD-11), the last card drawn under variation 4 (DD-15),
  nothing left to draw (DD-7); scores per DD-2 / DD-14, totals, Dashes won, the game's end,
  its winners and the scoreboard's leaders (DD-1, DD-13) and tie-breaks among the tied
  players only (DD-12); a tally of the counts the referee has changes nothing, a miscount
  is believed, one for the Dash winner refused (DD-20); a scripted discard carries the DD-21
  note exactly when the hand held the Dash; view, table and scoreboard render.

After every game: the log (through JSON) replays to an equal state with the same verdicts;
an ``undo`` of an event gives back the state before it exactly, undoing that undo the state
after, an ``overrule`` the state the other event gives there; an undo of a random earlier
event re-judges the rest without a crash and keeps every card in one place.

Once every player has laid, only handoffs shrink a hand (a turn draws one card and discards
one); when the groups take nothing more (runs 1 to 12, twin pairs) nobody can ever finish,
and in practice no rule but variation 4 ends the Dash. After STUCK events without a lay-down
or handoff such a family stops the game (variation 1; about 8 % of rounds in 3 000 games).
A family that *agrees* (``test_whole_games_ending_stuck_dashes_by_agreement``) ends that Dash
instead (``end_dash``, DD-24) and plays on; it also follows the referee's hint that nobody can
finish (half of the time at once) and now and then ends a Dash at any moment. In every game
the hint comes at most once a round, only with every Dash down, and never before a finish.

Found so far: nothing in the engine (3 750 games, 1.57 million events). Patched-in mistakes it
catches within the seeded games: the old DD-4 default (a blocked next player), no DD-16 copy
count, First-to scored by hand, a discarded Wild drawable, no DD-7 ending, a clockwise-only
default target, a scripted round tallied, the start pickup kept, a reshuffle keeping its top
card, the winner by points only.

Ad hoc: ``.venv/bin/python -m tests.test_deckdash_playthrough 2000 [first]`` plays 2 000 more
games (in chunks of 50 seeded ``200000 + first``, ``+ 1``, ...) and prints the tallies.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from referee.cards import Card, full_deck, parse_card
from referee.deckdash.check import check_dash, find_dash, hand_off
from referee.deckdash.dashes import GroupKind, get_dash
from referee.deckdash.game import GAME
from referee.deckdash.state import DeckDashState, Phase
from referee.events import Event
from referee.verdicts import Outcome, Verdict
from tests.playthrough import LoggedGame, first_move, judge, play_games
from tests.playthrough import main as playthrough_main

GAMES_PER_TEST = 8
SEEDS = range(4)
CHILD = 0.08  # per step: a move a child would make
STEAL_RATE = 0.2  # per step: a Deck Steal holder looks at the discard pile
FORGET_LAY = 0.06  # a player who could lay the Dash discards instead (DD-21)
ROUND_CAP = 2500  # events in one round before the family gives up and stops (variation 1)
STUCK = 150  # events without a lay-down or handoff, everyone's Dash down: the family stops
HAND = 12
FULL_CHECK = {"deal", "lay", "handoff", "steal", "reshuffle"}  # see ``Family.check``


def tok(card: Card) -> str:
    """The card's token (faster than ``format_card``: the census runs very often)."""
    if card.special is not None:
        return card.special._value_
    if card.color is None:
        return "W"
    return card.color._value_ + str(card.number)


DECK_LIST = [tok(c) for c in full_deck()]
DECK = Counter(DECK_LIST)
CARD = {t: parse_card(t) for t in DECK}
NUMBERED = sorted(t for t in DECK if t[0] in "RYGB")
SPECIALS = {"REV", "STEAL", "KEEP2", "D2D1", "D4D3", "BLOCK", "SKIP", "SKIP2"}
DRAW_ACTIONS = {"KEEP2": 2, "D2D1": 2, "D4D3": 4}
EXTRA_DISCARDS = {"KEEP2": 0, "D2D1": 1, "D4D3": 3}
START_PICKUP = {"W", "STEAL", "KEEP2", "D2D1", "D4D3"}
NAMES = ["Ana", "Bea", "Cy", "Dov", "Eli", "Fay", "Gus", "Hal"]


@dataclass
class Config:
    players: list[str]
    options: dict[str, Any]
    mode: str  # "scripted" | "table" | "mixed"

    def __str__(self) -> str:
        return f"{len(self.players)} players {self.mode} {self.options}"


def random_config(rng: random.Random) -> Config:
    n = rng.choice([2, 2, 3, 3, 3, 4, 4, 5, 6, 7, 8])
    options: dict[str, Any] = {"level": rng.choice(["easy", "advanced"])}
    r = rng.random()
    if r < 0.12:
        pass  # all 12 Dashes, in order
    elif r < 0.3:
        options["dash_count"] = rng.choice([1, 2, 3])  # variation 1
    else:  # variation 3: chosen Dashes (repeats allowed), sometimes only the first few
        options["dashes"] = [rng.randint(1, 12) for _ in range(rng.choice([1, 1, 2, 3]))]
        if rng.random() < 0.3:
            options["dash_count"] = rng.randint(1, len(options["dashes"]))
    extra = {
        "points": rng.random() < 0.8,
        "end_on_empty_draw": rng.random() < 0.25,
        "winner": rng.choice(["dashes", "points"]),
        "first_to_scoring": rng.choice(["fixed", "hand"]),
        "wild_from_discard": rng.random() < 0.3,
    }
    options.update({k: v for k, v in extra.items() if rng.random() < 0.7})
    mode = rng.choice(["scripted", "scripted", "table", "mixed"])
    return Config(NAMES[:n], options, mode)


@dataclass
class Truth:
    """One round's true cards and the turn as the family works it out from the rules."""

    dash: int
    first_to: bool
    active: tuple[int, ...]
    dealer: int
    tiebreak: bool
    scripted: bool
    hands: list[list[str]]
    stock: list[str]  # top first
    discard: list[str]  # bottom first
    groups: list[Counter[str]] = field(default_factory=list)
    blocks: set[int] = field(default_factory=set)  # Block You cards in front of players
    skips: list[int] = field(default_factory=list)
    direction: int = 1
    turn: int = 0
    phase: str = "draw"
    owed: int = 0
    action: str | None = None  # the Keep Two / Draw 2 / Draw 4 being played
    start_pickup: bool = False
    laid: set[int] = field(default_factory=set)

    def everything(self) -> Counter[str]:
        out: Counter[str] = Counter(self.stock)
        out.update(self.discard)
        for hand in self.hands:
            out.update(hand)
        for group in self.groups:
            out.update(group)
        out["BLOCK"] += len(self.blocks)
        if self.phase == "action_draw" and self.action is not None:
            out[self.action] += 1
        return out

    def step(self, seat: int) -> int:
        n = len(self.hands)
        s = seat
        for _ in range(n):
            s = (s + self.direction) % n
            if s in self.active:
                return s
        return seat

    def others(self, seat: int) -> list[int]:
        out, s = [], seat
        for _ in range(len(self.active) - 1):
            s = self.step(s)
            out.append(s)
        return out

    def begin(self, seat: int) -> None:
        while self.skips[seat] > 0:
            self.skips[seat] -= 1
            seat = self.step(seat)
        self.turn = seat
        self.phase = "blocked" if seat in self.blocks else "draw"
        self.owed = 0
        self.action = None

    def end_turn(self) -> None:
        self.begin(self.step(self.turn))

    @property
    def top(self) -> str | None:
        return self.discard[-1] if self.discard else None

    def pickable(self, wild_from_discard: bool) -> bool:
        """May the top discard be drawn (DD-3, DD-18)?"""
        top = self.top
        if top is None:
            return False
        if self.start_pickup:
            return True
        return top not in SPECIALS and (top != "W" or wild_from_discard)

    def stealable(self, wild_from_discard: bool) -> bool:
        """May the top discard be taken with a Deck Steal (DD-8, DD-18)?"""
        return self.pickable(wild_from_discard) and not self.start_pickup


End = tuple[str, int | None]  # how the round ended, and its winner


class Family:
    """Plays one game at a table with true cards and checks the referee after every event."""

    def __init__(self, rng: random.Random, config: Config, agree: bool = False) -> None:
        self.rng = rng
        self.cfg = config
        self.agree = agree  # ends a stuck Dash by agreement (DD-24) instead of stopping
        self.hinted = False  # the referee said nobody can finish this Dash (DD-24)
        self.end_now = False  # the family agreed to end the Dash after the hint
        self.state: DeckDashState = GAME.new_state(config.players, config.options)
        self.settings = self.state.settings
        self.level = self.settings.level
        self.n = len(config.players)
        self.t: Truth | None = None
        # the game as the family keeps it
        self.results: list[dict[str, Any]] = []
        self.tiebreak: tuple[int, ...] = ()
        self.finished = False
        self.winners: tuple[int, ...] = ()
        self.stopped = False
        self.last_dealer: int | None = None
        self.last_hands: list[list[str]] = []  # the true hands when the last round ended
        self.last_scripted = False
        self.stop_at = rng.randrange(30, 600) if rng.random() < 0.04 else None
        self.round_events = 0
        self.quiet = 0  # events since the last lay-down or handoff
        self.ended_now: str | None = None  # the way the round ended in this event
        self.game_ended_now = False
        self.log: list[Event] = []
        self.verdicts: list[list[Verdict]] = []
        self.states: list[DeckDashState] = []
        self.stats: Counter[str] = Counter()
        self._found: dict[tuple[int, tuple[str, ...]], Any] = {}

    # -- sending events ----------------------------------------------------------------------
    def send(self, event: Event, expect: str, effect: Any = None) -> list[Verdict] | None:
        """Apply ``event``; ``expect``: "legal", "illegal" or "error" (malformed).

        ``effect(verdicts)`` moves the true cards and the family's turn for a legal event and
        returns how the round ended, if it did."""
        before = self.state
        where = f"{self.cfg} event {len(self.log) + 1} {event.to_dict()}"
        judged = judge(GAME, before, event, expect, where, self.n, self.stats)
        if judged is None:
            return None
        after, verdicts = judged
        self.log.append(event)
        self.verdicts.append(verdicts)
        self.states.append(after)
        self.state = after
        self.round_events += 1
        self.quiet += 1
        self.ended_now = None
        self.game_ended_now = False
        if expect == "legal":
            end = effect(verdicts) if effect is not None else None
            self.settle(end)
            self.on_hint(verdicts, where)
        self.check(before, event, verdicts, where)
        return verdicts

    def on_hint(self, verdicts: list[Verdict], where: str) -> None:
        """DD-24: "nobody can finish" comes once a round, in a round still played, with every
        Dash down (the round's end checks that nobody finishes after it)."""
        hints = [v for v in verdicts if v.data.get("stuck")]
        if not hints:
            return
        t = self.t
        assert len(hints) == 1 and not self.hinted, f"{where}: the hint again {verdicts}"
        assert t is not None and t.laid == set(t.active), f"{where}: a hint too soon"
        self.hinted = True
        self.stats["hints: nobody can finish"] += 1
        self.end_now = self.agree and self.rng.random() < 0.5

    def settle(self, end: End | None) -> None:
        """After the event's own effect: nothing left to draw (DD-7), then the round's end."""
        t = self.t
        if t is None:
            return
        if end is None and not t.stock and not t.discard and t.phase in ("draw", "action_draw"):
            end = ("nothing_to_draw", None)
        if end is not None:
            self.end_round(*end)

    # -- the game's bookkeeping (DD-1, DD-2, DD-12, DD-14) ---------------------------------------
    def counted(self) -> list[dict[str, Any]]:
        return [r for r in self.results if not r["tiebreak"]]

    def totals(self) -> list[int]:
        return [sum(r["scores"][s] for r in self.counted()) for s in range(self.n)]

    def won(self) -> list[int]:
        return [sum(1 for r in self.counted() if r["winner"] == s) for s in range(self.n)]

    def leaders(self, seats: tuple[int, ...]) -> tuple[int, ...]:
        totals, won = self.totals(), self.won()
        if not self.settings.points:
            best = max(won[x] for x in seats)
            return tuple(x for x in seats if won[x] == best)
        if self.settings.winner.value == "dashes":
            best = max(won[x] for x in seats)
            seats = tuple(x for x in seats if won[x] == best)
        low = min(totals[x] for x in seats)
        return tuple(x for x in seats if totals[x] == low)

    def scores(
        self, how: str, winner: int | None, counts: list[int], active: tuple[int, ...]
    ) -> list[int]:
        s = self.settings
        if not s.points:
            return [1 if seat == winner else 0 for seat in range(self.n)]
        if how == "first_to" and s.first_to_scoring.value == "fixed":
            return [
                (3 if seat == winner else 12) if seat in active else 0 for seat in range(self.n)
            ]
        return [
            0 if seat == winner and how == "finished" else counts[seat] for seat in range(self.n)
        ]

    def end_round(self, how: str, winner: int | None) -> None:
        t = self.t
        assert t is not None
        assert how != "finished" or not self.hinted, "finished after 'nobody can finish'"
        self.stats[f"after the hint: {how}"] += self.hinted
        self.hinted = self.end_now = False
        counts = [len(h) for h in t.hands]
        result = {
            "dash": t.dash,
            "winner": winner,
            "how": how,
            "hand_counts": counts,
            "scores": self.scores(how, winner, counts, t.active),
            "tiebreak": t.tiebreak,
            "active": t.active,
        }
        self.results.append(result)
        self.last_hands = [list(h) for h in t.hands]
        self.last_scripted = t.scripted
        self.t = None
        self.ended_now = how
        self.round_events = 0
        self.stats[f"ended: {how}"] += 1
        self.stats["rounds"] += 1
        self.stats["tie-break rounds"] += t.tiebreak
        self.decide()

    def decide(self) -> None:
        last = self.results[-1]
        if last["tiebreak"]:
            if last["winner"] is not None:
                self.finish((last["winner"],))
                return
            fewest = min(last["hand_counts"][x] for x in self.tiebreak)
            tied = tuple(x for x in self.tiebreak if last["hand_counts"][x] == fewest)
        else:
            if len(self.counted()) < len(self.settings.dashes):
                return
            tied = self.leaders(tuple(range(self.n)))
        if len(tied) == 1:
            self.finish(tied)
        else:
            self.tiebreak = tied
            self.stats["tie-breaks"] += 1

    def finish(self, winners: tuple[int, ...]) -> None:
        self.finished = True
        self.winners = winners
        self.t = None
        self.game_ended_now = True

    # -- the checks ------------------------------------------------------------------------
    def check(
        self, before: DeckDashState, event: Event, verdicts: list[Verdict], where: str
    ) -> None:
        s = self.state
        if s is before:
            return  # refused: the very same state (``send`` asserts it), nothing to check again
        rnd_before = before.round
        # Everything is compared at the start of each turn and whenever the table, a known
        # hand or a pile may have changed deep down; within a turn the top and the sizes.
        full = (
            s.round is None
            or rnd_before is None
            or s.round.turns != rnd_before.turns
            or event.kind in FULL_CHECK
        )
        GAME.table(s)
        board = GAME.scoreboard(s).to_dict()
        if full:
            json.dumps(GAME.view(s))
            json.dumps(board)
        engine_results = [r.to_dict() for r in s.results]
        mine = [{k: v for k, v in r.items() if k != "active"} for r in self.results]
        assert engine_results == mine, f"{where}: results {engine_results} != {mine}"
        assert board["totals"] == self.totals(), where
        assert board["extra"]["dashes_won"] == self.won(), where
        assert s.finished == self.finished and s.winners == self.winners, (
            f"{where}: finished {s.finished} {s.winners}, want {self.finished} {self.winners}"
        )
        assert s.tiebreak == self.tiebreak and s.stopped == self.stopped, where
        assert s.last_dealer == self.last_dealer, where
        assert tuple(board["leaders"]) == self.standing(), f"{where}: leaders {board}"
        assert board["turn"] == (self.t.turn if self.t is not None else None), where
        outcomes = [v.outcome for v in verdicts]
        ends = [v for v in verdicts if v.outcome is Outcome.ROUND_END]
        assert len(ends) == (self.ended_now is not None), f"{where}: round end {verdicts}"
        if ends:
            assert ends[0].data == engine_results[-1], where
            last = self.results[-1]
            scores = [v for v in verdicts if v.outcome is Outcome.SCORE]
            assert len(scores) == (0 if last["tiebreak"] else len(last["active"])), where
        games = [v for v in verdicts if v.outcome is Outcome.GAME_END]
        assert len(games) == self.game_ended_now, f"{where}: game end {outcomes}"
        if games:
            assert tuple(games[0].data["winners"]) == self.winners, where
        rnd, t = s.round, self.t
        if t is None:
            assert rnd is None, f"{where}: the referee plays on ({rnd and rnd.phase})"
            return
        assert rnd is not None, f"{where}: the referee ended the round ({s.results[-1:]})"
        # the true cards: every card in one place, and the referee agrees
        assert t.everything() == DECK, f"{where}: a true card was lost or doubled"
        discard = rnd.discard if full else rnd.discard[-3:]
        assert len(rnd.discard) == len(t.discard), f"{where}: discard pile"
        assert [tok(c) for c in discard] == t.discard[-len(discard) :], f"{where}: discard pile"
        assert len(rnd.table) == len(t.groups), f"{where}: the table"
        if full:
            engine_groups = [Counter(tok(c) for c in laid.group.cards) for laid in rnd.table]
            assert engine_groups == t.groups, f"{where}: the table"
        assert set(rnd.blocks) == t.blocks, f"{where}: blocks {rnd.blocks} != {t.blocks}"
        assert len(rnd.draw_pile) == len(t.stock), where
        known_stock = [tok(c) for c in rnd.draw_pile.known[:3]]
        assert known_stock == t.stock[: len(known_stock)], f"{where}: the draw pile's top"
        seats = range(self.n) if full else {event.seat, rnd.turn} - {None}
        assert [len(h) for h in rnd.hands] == [len(h) for h in t.hands], f"{where}: hand sizes"
        for seat in seats:
            hand = rnd.hands[seat]  # type: ignore[index]
            truth = Counter(t.hands[seat])  # type: ignore[index]
            known = Counter(tok(c) for c in hand.known)
            assert not known - truth, f"{where}: {seat}'s hand {known} is not in {truth}"
            if t.scripted:
                assert hand.unknown == 0 and known == truth, f"{where}: {seat}'s scripted hand"
        if t.scripted:
            assert rnd.draw_pile.unknown == 0, where
        if full:
            check_engine_copies(s, where)
            known_stock = [tok(c) for c in rnd.draw_pile.known]
            assert known_stock == t.stock[: len(known_stock)], f"{where}: the draw pile"
        else:
            named = event.get("card")
            if isinstance(named, str) and named in DECK:
                places = engine_places(s)
                assert places[named] <= DECK[named], f"{where}: {places[named]} {named}"
        # the turn
        got = (
            rnd.turn,
            rnd.phase.value,
            rnd.owed,
            None if rnd.action is None else tok(rnd.action),
            rnd.direction,
            list(rnd.skips),
            rnd.start_pickup,
            set(rnd.laid),
        )
        want = (
            t.turn,
            t.phase,
            t.owed,
            t.action,
            t.direction,
            t.skips,
            t.start_pickup,
            t.laid,
        )
        assert got == want, f"{where}: turn {got} != {want}"
        assert (rnd.dash, rnd.active, rnd.dealer, rnd.tiebreak, rnd.scripted) == (
            t.dash,
            t.active,
            t.dealer,
            t.tiebreak,
            t.scripted,
        ), where
        prompted = any(v.outcome is Outcome.PROMPT and "draw pile is empty" in v.reason
                       for v in verdicts)  # fmt: skip
        if not t.stock and t.phase in ("draw", "action_draw") and outcomes[0] is Outcome.LEGAL:
            assert prompted, f"{where}: no prompt to reshuffle"

    # -- the family's moves ------------------------------------------------------------------
    def play_game(self) -> None:
        while not self.finished:
            t = self.t
            if t is not None and t.laid == set(t.active) and self.quiet >= STUCK:
                # Everyone's Dash is down and nothing fits any more (a run 1..12 takes no
                # card): no rule ends the round but variation 4, so the family stops, or
                # agrees to end this Dash and plays on (DD-24).
                self.stats[f"stuck{', hinted' if self.hinted else ''}"] += 1
                if self.agree:
                    self.end_dash()
                    continue
                self.stats["stopped: stuck"] += 1
                self.stop()
                break
            if t is not None and (self.end_now or (self.agree and self.rng.random() < 0.002)):
                self.end_dash()  # after the hint, or at any moment the family agrees on
                continue
            if t is not None and self.round_events >= ROUND_CAP:
                self.stats["stopped: stalled"] += 1
                self.stop()
                break
            if self.stop_at is not None and len(self.log) >= self.stop_at:
                self.stats["stopped: chose to"] += 1
                self.stop()
                break
            self.step()
        self.after_the_game()

    def after_the_game(self) -> None:
        """Nothing more to play; a table game may still tally its last Dash (DD-20)."""
        rng = self.rng
        seat = rng.randrange(self.n)
        self.send(Event("draw", seat), "illegal")
        self.send(Event("steal", seat), "illegal")
        self.send(Event("deal", None, {"start": "R1", "hands": [HAND] * self.n}), "illegal")
        self.send(Event("stop"), "illegal")
        if self.agree:
            self.send(Event("end_dash", rng.choice([None, seat])), "illegal")
        self.send(Event("deal", self.n + rng.randrange(2), {"start": "R1"}), "error")  # DD-23
        if self.tally_allowed():  # also after the last Dash (DD-20)
            self.tally(list(self.results[-1]["hand_counts"]), "legal")

    def tally_allowed(self) -> bool:
        """DD-20: after a table-mode round that was not a tie-break, unless stopped."""
        return bool(self.results) and not (
            self.last_scripted or self.stopped or self.results[-1]["tiebreak"]
        )

    def step(self) -> None:
        rng = self.rng
        if self.t is None:
            self.between_rounds()
            return
        if rng.random() < CHILD and self.child():
            return
        t = self.t
        drawing = t.phase in ("draw", "action_draw")
        if t.top == "W" and drawing and not t.pickable(self.wfd) and rng.random() < 0.5:
            self.stats["child: draw a discarded Wild"] += 1  # a Wild on the pile tempts (DD-3)
            self.send(Event("draw", t.turn, {"from": "discard"}), "illegal")
            return
        if rng.random() < STEAL_RATE and self.steal():
            return
        t = self.t
        drawing = t.phase in ("draw", "action_draw")
        # the draw pile is empty: reshuffle, or (now and then) draw the top discard first
        take_top = drawing and t.pickable(self.wfd) and rng.random() < 0.3
        if not t.stock and t.discard and (drawing or rng.random() < 0.2) and not take_top:
            self.reshuffle()
            return
        if t.phase == "blocked":
            self.return_block()
        elif t.phase in ("draw", "action_draw"):
            self.draw()
        elif t.phase == "action_discard":
            card = rng.choice(t.hands[t.turn])
            self.discard(t.turn, card, None)
        else:
            self.play_step()

    @property
    def wfd(self) -> bool:
        return self.settings.wild_from_discard

    # -- between rounds: tallies, the deal -----------------------------------------------------
    def between_rounds(self) -> None:
        rng = self.rng
        if self.tally_allowed():
            if rng.random() < 0.3:
                self.tally(list(self.results[-1]["hand_counts"]), "legal")  # nothing changes
            if rng.random() < 0.1:
                self.miscounted_tally()
        elif self.results and rng.random() < 0.15:  # out of habit, after a scripted round or
            self.stats["child: tally refused"] += 1  # a tie-break (DD-20)
            self.tally(list(self.results[-1]["hand_counts"]), "illegal", as_cards=False)
        if rng.random() < 0.15:
            self.child_between()
        if self.agree and self.results and rng.random() < 0.1:
            self.send(Event("end_dash", None), "illegal")  # no Dash in play (DD-24)
        if self.tally_allowed() and rng.random() < 0.05:
            hands = rng.choice([[1] * (self.n + 1), 3, [["R1", "Q"]] * self.n, [-1] * self.n])
            self.send(Event("tally", None, {"hands": hands}), "error")
        self.deal()

    def tally(self, counts: list[int], expect: str, as_cards: bool | None = None) -> None:
        rng = self.rng
        hands: list[Any] = list(counts)
        if as_cards is None:
            as_cards = rng.random() < 0.3
        if as_cards and counts == [len(h) for h in self.last_hands]:
            hands = [list(h) if rng.random() < 0.5 else len(h) for h in self.last_hands]
        before = self.state
        true = counts == self.results[-1]["hand_counts"]
        self.send(Event("tally", None, {"hands": hands}), expect, lambda v: self.on_tally(counts))
        if expect == "legal" and true:
            assert self.state == before, "a tally of the counts the referee has changed things"

    def on_tally(self, counts: list[int]) -> None:
        last = self.results[-1]
        last["hand_counts"] = list(counts)
        last["scores"] = self.scores(last["how"], last["winner"], counts, last["active"])
        self.finished, self.winners, self.tiebreak = False, (), ()
        self.decide()
        self.stats["tallies"] += 1

    def miscounted_tally(self) -> None:
        """A miscount is believed (the referee cannot see the hands), then put right; a
        count changing the Dash winner's hand is refused (DD-20)."""
        true = list(self.results[-1]["hand_counts"])
        winner = self.results[-1]["winner"]
        wrong = list(true)
        seat = self.rng.randrange(self.n)
        wrong[seat] += self.rng.choice([1, 2]) if wrong[seat] < 100 else -1
        if seat == winner:
            self.tally(wrong, "illegal", as_cards=False)
            return
        self.tally(wrong, "legal", as_cards=False)
        self.tally(true, "legal", as_cards=False)

    def expected_dealer(self, active: tuple[int, ...]) -> int | None:
        if self.last_dealer is None:
            return None
        seat = self.last_dealer
        for _ in range(self.n):
            seat = (seat + 1) % self.n
            if seat in active:
                return seat
        return None

    def deal(self) -> None:
        rng, n = self.rng, self.n
        active = self.tiebreak or tuple(range(n))
        mode = self.cfg.mode
        scripted = mode == "scripted" or (mode == "mixed" and rng.random() < 0.5)
        cards = list(DECK_LIST)
        rng.shuffle(cards)
        if rng.random() < 0.15:  # a special start card more often than the deck gives
            special = rng.choice(sorted(SPECIALS | {"W"}))
            i = cards.index(special)
            at = len(active) * HAND
            cards[at], cards[i] = cards[i], cards[at]
        hands: list[list[str]] = [[] for _ in range(n)]
        at = 0
        for seat in active:
            hands[seat] = cards[at : at + HAND]
            at += HAND
        start, stock = cards[at], cards[at + 1 :]
        want = self.expected_dealer(active)
        dealer = want if want is not None else rng.choice(active)
        payload: dict[str, Any] = {"start": start}
        if scripted:
            payload["hands"] = hands
            payload["draw_pile"] = stock
        else:
            payload["hands"] = [len(h) for h in hands]
            if rng.random() < 0.5:
                payload["draw_pile"] = len(stock)
        seat: int | None = None
        r = rng.random()
        if r < 0.35:
            payload["dealer"] = dealer
            if rng.random() < 0.2:
                seat = rng.randrange(n)  # entered from another seat: the dealer field counts
        elif r < 0.7:
            seat = dealer  # DD-23: the deal's seat is its dealer
        elif want is None:
            dealer = active[0]  # nobody named: the first seat deals first

        def effect(verdicts: list[Verdict]) -> None:
            said = any("whose seat the deal was entered for" in v.reason for v in verdicts)
            assert said == (seat is not None and "dealer" in payload and seat != dealer)
            self.start_round(active, dealer, scripted, hands, start, stock)

        self.send(Event("deal", seat, payload), "legal", effect)
        self.stats["scripted rounds" if scripted else "table rounds"] += 1

    def start_round(
        self,
        active: tuple[int, ...],
        dealer: int,
        scripted: bool,
        hands: list[list[str]],
        start: str,
        stock: list[str],
    ) -> None:
        tiebreak = bool(self.tiebreak)
        dashes = self.settings.dashes
        dash = dashes[-1] if tiebreak else dashes[len(self.counted())]
        t = Truth(
            dash=dash,
            first_to=get_dash(self.level, dash).first_to,
            active=active,
            dealer=dealer,
            tiebreak=tiebreak,
            scripted=scripted,
            hands=[list(h) for h in hands],
            stock=list(stock),
            discard=[start],
            skips=[0] * self.n,
        )
        first = t.step(dealer)
        if start == "REV":
            t.direction = -1
            first = dealer
        if start in ("BLOCK", "SKIP"):
            t.skips[first] += 1
        elif start == "SKIP2":
            t.skips[first] += 1
            t.skips[t.step(first)] += 1
        t.start_pickup = start in START_PICKUP
        t.begin(first)
        self.t = t
        self.last_dealer = dealer
        self.round_events = 0
        self.stats[f"start {start if start in SPECIALS | {'W'} else 'number'}"] += 1

    # -- the turn ----------------------------------------------------------------------------
    def name_rate(self) -> float:
        t = self.t
        assert t is not None
        if t.scripted:
            return 0.4
        return 0.8 if self.cfg.mode == "mixed" else 0.25

    def draw(self) -> None:
        t, rng = self.t, self.rng
        assert t is not None
        seat = t.turn
        from_discard = t.pickable(self.wfd) and (
            not t.stock
            or rng.random() < (0.7 if t.start_pickup else 0.1)
            or (self.wanted(seat) and rng.random() < 0.8)
        )
        payload: dict[str, Any] = {}
        if from_discard:
            payload["from"] = "discard"
            if rng.random() < 0.5:
                payload["card"] = t.top
        else:
            if rng.random() < 0.5:
                payload["from"] = "draw"
            if rng.random() < self.name_rate():
                payload["card"] = t.stock[0]  # the camera saw it
        self.send(
            Event("draw", seat, payload),
            "legal",
            lambda v: self.on_draw(seat, from_discard),
        )

    def on_draw(self, seat: int, from_discard: bool) -> End | None:
        t = self.t
        assert t is not None
        card = t.discard.pop() if from_discard else t.stock.pop(0)
        t.hands[seat].append(card)
        if from_discard:
            what = card if card in SPECIALS | {"W"} else "a number"
            self.stats[f"drew from discard: {'start ' if t.start_pickup else ''}{what}"] += 1
        t.start_pickup = False
        if t.phase == "draw":
            t.phase = "play"
        else:
            t.owed -= 1
        if not from_discard and self.settings.end_on_empty_draw and not t.stock:
            return ("draw_pile_empty", None)
        if t.phase == "action_draw" and t.owed == 0:
            action = t.action
            assert action is not None
            t.discard.append(action)
            extra = EXTRA_DISCARDS[action]
            if extra == 0:
                t.end_turn()
            else:
                t.phase, t.owed = "action_discard", extra
        return None

    def wanted(self, seat: int) -> bool:
        """Would the top discard help the seat's Dash more than its worst card?"""
        t = self.t
        assert t is not None
        top = t.top
        if top is None or not t.hands[seat]:
            return False
        if seat in t.laid:  # a card that goes on a group brings the finish closer
            table = self.state.round.table  # type: ignore[union-attr]
            return any(hand_off(laid.group, CARD[top]) is not None for laid in table)
        kinds = {p.kind for p in get_dash(self.level, t.dash).parts}
        hand = [*t.hands[seat], top]
        worst = min(keep_score(c, hand, kinds) for c in t.hands[seat])
        return keep_score(top, hand, kinds) > worst + 1

    def find(self, seat: int) -> Any:
        t = self.t
        assert t is not None
        key = (t.dash, tuple(sorted(t.hands[seat])))
        if key not in self._found:
            self._found[key] = find_dash(self.level, t.dash, [CARD[c] for c in t.hands[seat]])
        return self._found[key]

    def handoffs(self, seat: int) -> list[tuple[str, int, str | None]]:
        """The handoffs the seat's true hand can make onto the table's groups."""
        t = self.t
        assert t is not None
        table = self.state.round.table  # type: ignore[union-attr]
        out = []
        for card in sorted(set(t.hands[seat]) - SPECIALS):
            for i, laid in enumerate(table):
                end = None
                if card == "W" or self.rng.random() < 0.05:  # (only a Wild on a run cares)
                    end = self.rng.choice([None, "low", "high"])
                if hand_off(laid.group, CARD[card], end=end) is not None:
                    out.append((card, i, end))
        return out

    def play_step(self) -> None:
        t, rng = self.t, self.rng
        assert t is not None
        seat = t.turn
        hand = t.hands[seat]
        if seat not in t.laid:
            found = self.find(seat)
            if found is not None and rng.random() > FORGET_LAY:
                cards = [tok(c) for g in found.groups for c in g.cards]
                spare = hand.count("W") - cards.count("W")
                numbered = [i for i, c in enumerate(cards) if c != "W"]
                if spare and len(numbered) > 1 and rng.random() < 0.3:
                    # laid another way: a spare Wild for a numbered card (DASH-2: not the
                    # group's last one); a Dash or not as the checker says
                    cards[rng.choice(numbered)] = "W"
                    valid = check_dash(self.level, t.dash, [CARD[c] for c in cards]).valid
                    self.stats[f"lay with a spare Wild: {'a Dash' if valid else 'refused'}"] += 1
                    self.lay(seat, cards, "legal" if valid else "illegal")
                    return
                self.lay(seat, cards, "legal")
                return
        else:
            offs = self.handoffs(seat)
            if offs and rng.random() < 0.92:
                card, index, end = rng.choice(offs)
                self.handoff(seat, card, index, end, "legal")
                return
        actions = [c for c in hand if c in DRAW_ACTIONS]
        keen = 0.3 if seat not in t.laid else 0.05  # more cards do not help a finish
        if actions and rng.random() < keen:
            card = rng.choice(actions)
            if rng.random() < 0.7:
                self.send(
                    Event("play", seat, {"card": card}), "legal", lambda v: self.on_play(seat, card)
                )
            else:
                self.discard(seat, card, None)  # discarding a draw card plays it (DD-9)
            return
        card = self.choose_discard(seat)
        if "SKIP2" in hand and t.blocks & set(t.others(seat)[:2]) and rng.random() < 0.7:
            self.discard(seat, "SKIP2", None)  # DD-5: past a blocked player
            return
        aimed = [c for c in hand if c in ("SKIP", "BLOCK")]
        if aimed and t.others(seat)[0] in t.blocks and rng.random() < 0.7:
            card = rng.choice(aimed)  # DD-4, DD-10: no target, the next player is blocked
            self.discard(seat, card, None)
            return
        target = None
        if card in ("SKIP", "BLOCK") and rng.random() < 0.5:
            free = [o for o in t.others(seat) if o not in t.blocks]
            target = rng.choice(free) if free else rng.choice(t.others(seat))
        if card not in ("SKIP", "BLOCK") and rng.random() < 0.05:
            target = rng.randrange(self.n)  # pointing at someone: only Skip You / Block You aim
            self.stats["discard with a target that does nothing"] += 1
        self.discard(seat, card, target)

    def choose_discard(self, seat: int) -> str:
        t, rng = self.t, self.rng
        assert t is not None
        hand = t.hands[seat]
        plain = [c for c in hand if c not in DRAW_ACTIONS and c != "STEAL"] or hand
        if "W" in plain and rng.random() < 0.08:
            return "W"  # a child lets a Wild go (DD-3: now nobody may pick it up)
        if seat in t.laid or rng.random() < 0.2:
            actions = [c for c in plain if c in SPECIALS]
            if actions and rng.random() < 0.6:
                return rng.choice(actions)
            return rng.choice(plain)
        kinds = {p.kind for p in get_dash(self.level, t.dash).parts}
        return min(plain, key=lambda c: (keep_score(c, hand, kinds), rng.random()))

    def lay(self, seat: int, cards: list[str], expect: str) -> None:
        self.send(Event("lay", seat, {"cards": cards}), expect, lambda v: self.on_lay(seat, cards))

    def on_lay(self, seat: int, cards: list[str]) -> End | None:
        t = self.t
        assert t is not None
        for card in cards:
            t.hands[seat].remove(card)
        t.laid.add(seat)
        rnd = self.state.round
        if rnd is not None:  # (a lay-down that ends the round leaves no table to look at)
            table = rnd.table[len(t.groups) :]
            new = [Counter(tok(c) for c in laid.group.cards) for laid in table]
            assert sum(new, Counter()) == Counter(cards), f"laid {cards} became {new}"
            assert all(laid.owner == seat for laid in table)
            t.groups += new
        self.stats["lay-downs"] += 1
        self.quiet = 0
        if t.first_to:
            return ("first_to", seat)
        if not t.hands[seat]:
            return ("finished", seat)
        return None

    def handoff(self, seat: int, card: str, index: int, end: str | None, expect: str) -> None:
        payload: dict[str, Any] = {"card": card, "group": index}
        if end is not None:
            payload["end"] = end
        self.send(
            Event("handoff", seat, payload), expect, lambda v: self.on_handoff(seat, card, index)
        )

    def on_handoff(self, seat: int, card: str, index: int) -> End | None:
        t = self.t
        assert t is not None
        t.hands[seat].remove(card)
        t.groups[index][card] += 1
        self.stats["handoffs"] += 1
        self.quiet = 0
        return ("finished", seat) if not t.hands[seat] else None

    def on_play(self, seat: int, card: str) -> End | None:
        t = self.t
        assert t is not None
        t.hands[seat].remove(card)
        t.phase, t.owed, t.action = "action_draw", DRAW_ACTIONS[card], card
        self.stats[f"played {card}"] += 1
        return None

    def discard(self, seat: int, card: str, target: int | None, expect: str = "legal") -> None:
        t = self.t
        assert t is not None
        payload: dict[str, Any] = {"card": card}
        if target is not None:
            payload["target"] = target
        hand_before = list(t.hands[seat])
        ends_turn = t.phase == "play" and card not in DRAW_ACTIONS
        could_lay = ends_turn and t.scripted and seat not in t.laid and self.find(seat) is not None

        def effect(verdicts: list[Verdict]) -> End | None:
            if ends_turn:  # DD-21: the note exactly when the known hand held the Dash
                noted = any(v.data.get("missed_dash") == t.dash for v in verdicts)
                assert noted == could_lay, f"DD-21 note {noted} for {hand_before}"
                self.stats["DD-21 notes"] += noted
            return self.on_discard(seat, card, target, verdicts)

        self.send(Event("discard", seat, payload), expect, effect)

    def on_discard(
        self, seat: int, card: str, target: int | None, verdicts: list[Verdict]
    ) -> End | None:
        t = self.t
        assert t is not None
        if t.phase == "blocked":
            assert card == "BLOCK"
            return self.on_return_block(seat)
        if t.phase == "action_discard":
            t.hands[seat].remove(card)
            t.discard.append(card)
            t.owed -= 1
            if t.owed == 0:
                t.phase, t.action = "play", None
            self.stats["extra discards"] += 1
            return ("finished", seat) if seat in t.laid and not t.hands[seat] else None
        assert t.phase == "play"
        if card in DRAW_ACTIONS:
            return self.on_play(seat, card)
        t.hands[seat].remove(card)
        said = next(v.reason for v in verdicts if v.outcome is Outcome.LEGAL)
        if card in ("SKIP", "BLOCK"):
            free = [o for o in t.others(seat) if o not in t.blocks]
            if not free:
                t.discard.append(card)
                assert "so it has no effect" in said, said
                self.stats[f"{card}: no effect"] += 1
            else:
                victim = target if target is not None else free[0]
                passed = (
                    [] if target is not None else t.others(seat)[: t.others(seat).index(victim)]
                )
                assert ("a Block You in front of them)" in said) == bool(passed), said
                self.stats[f"{card}: {'target' if target is not None else 'default'}"] += 1
                self.stats[f"{card}: passed over the blocked"] += bool(passed)
                if card == "SKIP":
                    t.discard.append(card)
                    t.skips[victim] += 1
                else:
                    t.blocks.add(victim)
        elif card == "SKIP2":
            self.stats["SKIP2: past a blocked player"] += bool(t.blocks & set(t.others(seat)[:2]))
            self.stats["SKIP2: two players, opponent blocked"] += len(t.active) == 2 and bool(
                t.blocks
            )
            t.discard.append(card)
            others = t.others(seat)
            blocked = set(t.blocks)
            for victim in (others * 2)[:2]:
                if victim in blocked:
                    blocked.discard(victim)
                else:
                    t.skips[victim] += 1
        elif card == "REV":
            t.discard.append(card)
            t.direction = -t.direction
        else:
            t.discard.append(card)
        self.stats["turns"] += 1
        if seat in t.laid and not t.hands[seat]:
            self.stats[f"finished with {card if card in SPECIALS else 'a card'}"] += 1
            return ("finished", seat)
        t.end_turn()
        return None

    def return_block(self) -> None:
        t, rng = self.t, self.rng
        assert t is not None
        seat = t.turn
        if rng.random() < 0.3:
            target = rng.choice([None, rng.randrange(self.n)])
            self.discard(seat, "BLOCK", target)  # a blocked player returns it "as a discard"
            return
        self.send(Event("return_block", seat), "legal", lambda v: self.on_return_block(seat))

    def on_return_block(self, seat: int) -> End | None:
        t = self.t
        assert t is not None
        t.blocks.discard(seat)
        t.discard.append("BLOCK")
        self.stats["blocks returned"] += 1
        t.end_turn()
        return None

    def steal(self) -> bool:
        t, rng = self.t, self.rng
        assert t is not None
        holders = [s for s in t.active if "STEAL" in t.hands[s]]
        if not holders or not t.stealable(self.wfd):
            return False
        keen = [s for s in holders if self.wanted(s)]
        if not keen and rng.random() < 0.7:
            return False
        seat = rng.choice(keen or holders)
        payload = {"card": t.top} if rng.random() < 0.5 else {}
        self.send(Event("steal", seat, payload), "legal", lambda v: self.on_steal(seat))
        return True

    def on_steal(self, seat: int) -> End | None:
        t = self.t
        assert t is not None
        top = t.discard[-1]
        t.hands[seat].remove("STEAL")
        t.hands[seat].append(top)
        t.discard[-1] = "STEAL"
        self.stats["steals: out of turn" if seat != t.turn else "steals: own turn"] += 1
        return None

    def reshuffle(self) -> None:
        t, rng = self.t, self.rng
        assert t is not None
        order = list(t.discard)
        rng.shuffle(order)
        payload: dict[str, Any] = {}
        named = t.scripted or rng.random() < (0.6 if self.cfg.mode == "mixed" else 0.2)
        if named:
            payload["order"] = order

        def effect(verdicts: list[Verdict]) -> None:
            assert t is not None
            t.stock, t.discard = list(order), []  # (not the event's own list)
            self.stats["reshuffles" if named else "reshuffles: unseen"] += 1

        self.send(Event("reshuffle", None, payload), "legal", effect)

    def standing(self) -> tuple[int, ...]:
        """Who leads now (DD-1, DD-13): what a ``stop`` makes the winners."""
        if self.finished:
            return self.winners
        seats = self.tiebreak or tuple(range(self.n))
        return self.leaders(seats) if self.counted() else seats

    def end_dash(self) -> None:
        """DD-24: the players agree to end the Dash: nobody wins, everyone scores the hand."""
        seat = self.rng.choice([None, self.rng.randrange(self.n)])
        self.send(Event("end_dash", seat), "legal", lambda verdicts: ("agreed", None))

    def stop(self) -> None:
        winners = self.standing()

        def effect(verdicts: list[Verdict]) -> None:
            self.t = None
            self.stopped = True
            self.finish(winners)

        seat = self.rng.choice([None, self.rng.randrange(self.n)])
        self.send(Event("stop", seat), "legal", effect)

    # -- a child's moves ---------------------------------------------------------------------
    def child(self) -> bool:
        """One move the referee must refuse (or, malformed, not read); False if none fits."""
        moves = [
            self.out_of_turn,
            self.wrong_step,
            self.bad_lay,
            self.second_lay,
            self.bad_handoff,
            self.bad_target,
            self.discarded_wild_or_special,
            self.wrong_named_draw,
            self.copy_too_many,
            self.not_in_hand,
            self.bad_reshuffle,
            self.play_not_a_draw_card,
            self.bad_steal,
            self.deal_or_tally_now,
            self.malformed,
        ]

        def send(_move: Any, got: tuple[Any, ...]) -> None:
            event, expect, *effect = got
            self.send(event, expect, effect[0] if effect else None)

        return first_move(self.rng, moves, 4, self.stats, send)

    def child_between(self) -> None:
        """Between rounds: a wrong deal, a tally where none is allowed, a move with no round."""
        rng, n = self.rng, self.n
        active = self.tiebreak or tuple(range(n))
        want = self.expected_dealer(active)
        hands: list[Any] = [HAND if s in active else 0 for s in range(n)]
        choice = rng.randrange(7)
        if choice == 0 and want is not None and len(active) > 1:
            wrong = rng.choice([s for s in active if s != want])
            event = Event("deal", None, {"start": "R1", "hands": hands, "dealer": wrong})
            self.send(event, "illegal")
        elif choice == 1:
            seat = rng.choice(active)
            hands[seat] = HAND - 1 if rng.random() < 0.5 else HAND + 1
            if len(active) < n and rng.random() < 0.5:
                hands = [HAND if s in active else 0 for s in range(n)]
                hands[next(s for s in range(n) if s not in active)] = HAND
            self.send(Event("deal", None, {"start": "R1", "hands": hands}), "illegal")
        elif choice == 2:  # a scripted deal with a card twice and one missing
            cards = list(DECK_LIST)
            rng.shuffle(cards)
            lists: list[Any] = [[] for _ in range(n)]
            at = 0
            for s in active:
                lists[s] = cards[at : at + HAND]
                at += HAND
            rest = cards[at + 1 :]
            rest[0] = rng.choice([c for c in DECK if c != rest[0]])
            payload = {"start": cards[at], "hands": lists, "draw_pile": rest}
            self.send(Event("deal", None, payload), "illegal")
        elif choice == 3:
            dealt = HAND * len(active)
            wrong = 128 - dealt - 1 + rng.choice([-1, 1, 5])
            payload = {"start": "R1", "hands": hands, "draw_pile": wrong}
            self.send(Event("deal", None, payload), "illegal")
        elif choice == 4:  # lists and counts mixed
            lists = [["R1"] * 0 for _ in range(n)]
            payload = {"start": "R1", "hands": [*lists[:-1], HAND], "draw_pile": []}
            self.send(Event("deal", None, payload), "error")
        elif choice == 5:
            if not self.tally_allowed():  # scripted, a tie-break, or no Dash yet
                self.send(Event("tally", None, {"hands": [0] * n}), "illegal")
        else:
            seat = rng.randrange(n)
            kind = rng.choice(["draw", "discard", "steal", "reshuffle", "return_block"])
            payload = {"card": "R1"} if kind == "discard" else {}
            self.send(Event(kind, seat, payload), "illegal")

    def _other_seat(self) -> int:
        t = self.t
        assert t is not None
        return self.rng.choice([s for s in range(self.n) if s != t.turn])

    def out_of_turn(self) -> tuple[Any, ...] | None:
        t, rng = self.t, self.rng
        assert t is not None
        seat = self._other_seat()
        hand = t.hands[seat] or ["R5"]
        kind = rng.choice(["draw", "discard", "lay", "handoff", "return_block", "play"])
        payload: dict[str, Any] = {
            "draw": {},
            "discard": {"card": rng.choice(hand)},
            "lay": {"cards": hand[:6]},
            "handoff": {"card": rng.choice(hand), "group": 0},
            "return_block": {},
            "play": {"card": "KEEP2"},
        }[kind]
        return Event(kind, seat, payload), "illegal"

    def wrong_step(self) -> tuple[Any, ...] | None:
        """The turn's player, a step the turn is not at (draw twice, discard first, ...)."""
        t, rng = self.t, self.rng
        assert t is not None
        seat, hand = t.turn, t.hands[t.turn] or ["R5"]
        phase = t.phase
        options: list[Event] = []
        if phase in ("play", "action_discard", "blocked"):
            options.append(Event("draw", seat))
        if phase in ("draw", "action_draw", "blocked"):
            plain = [c for c in hand if c != "BLOCK"] or ["R5"]
            options.append(Event("discard", seat, {"card": rng.choice(plain)}))
            options.append(Event("lay", seat, {"cards": hand[:7]}))
            options.append(Event("play", seat, {"card": rng.choice(hand)}))
        if phase in ("draw", "action_draw", "blocked", "action_discard") and t.groups:
            options.append(Event("handoff", seat, {"card": rng.choice(hand), "group": 0}))
        if phase != "blocked":
            options.append(Event("return_block", seat))
        if phase == "action_discard":
            options.append(Event("play", seat, {"card": rng.choice(hand)}))
            options.append(Event("lay", seat, {"cards": hand[:7]}))
        return (rng.choice(options), "illegal") if options else None

    def bad_lay(self) -> tuple[Any, ...] | None:
        """An invalid lay-down: one card short or too many (DASH-1), any cards, a special."""
        t, rng = self.t, self.rng
        assert t is not None
        seat = t.turn
        if t.phase != "play" or seat in t.laid:
            return None
        hand = t.hands[seat]
        size = get_dash(self.level, t.dash).size
        found = self.find(seat)
        variant = rng.randrange(4)
        if variant == 0 and found is not None:
            cards = [tok(c) for g in found.groups for c in g.cards]
            cards.pop(rng.randrange(len(cards)))
        elif variant == 1 and found is not None and len(hand) > size:
            cards = [tok(c) for g in found.groups for c in g.cards]
            rest = Counter(hand) - Counter(cards)
            cards.append(rng.choice(sorted(rest.elements())))
        elif variant == 2:
            plain = [c for c in hand if c not in SPECIALS]
            if len(plain) < size:
                return None
            cards = rng.sample(plain, size)
        else:
            specials = [c for c in hand if c in SPECIALS]
            plain = [c for c in hand if c not in SPECIALS]
            if not specials or len(plain) < size - 1:
                return None
            cards = [*rng.sample(plain, size - 1), rng.choice(specials)]
            return Event("lay", seat, {"cards": cards}), "illegal"
        valid = (
            not any(c in SPECIALS for c in cards)
            and check_dash(self.level, t.dash, [CARD[c] for c in cards]).valid
        )
        if valid:
            self.stats["child: bad_lay that was a Dash"] += 1
        return (
            Event("lay", seat, {"cards": cards}),
            "legal" if valid else "illegal",
            lambda v: self.on_lay(seat, cards),
        )

    def second_lay(self) -> tuple[Any, ...] | None:
        t = self.t
        assert t is not None
        seat = t.turn
        if t.phase != "play" or seat not in t.laid or not t.hands[seat]:
            return None
        return Event("lay", seat, {"cards": t.hands[seat][:3]}), "illegal"

    def bad_handoff(self) -> tuple[Any, ...] | None:
        """Before your own Dash, a card that does not fit, no such group, a special (DD-17)."""
        t, rng = self.t, self.rng
        assert t is not None
        seat = t.turn
        if t.phase != "play" or not t.groups:
            return None
        hand = t.hands[seat]
        table = self.state.round.table  # type: ignore[union-attr]
        if seat not in t.laid:
            return Event("handoff", seat, {"card": rng.choice(hand), "group": 0}), "illegal"
        variant = rng.randrange(3)
        if variant == 0:
            end = rng.choice([None, None, "low", "high"])
            misfits = [
                (c, i)
                for c in sorted(set(hand) - SPECIALS)
                for i, laid in enumerate(table)
                if hand_off(laid.group, CARD[c], end=end) is None
            ]
            if not misfits:
                return None
            card, index = rng.choice(misfits)
            payload = {"card": card, "group": index}
            if end is not None:
                payload["end"] = end
            return Event("handoff", seat, payload), "illegal"
        if variant == 1:
            card = rng.choice(hand)
            return Event("handoff", seat, {"card": card, "group": len(table)}), "illegal"
        specials = [c for c in hand if c in SPECIALS]
        if not specials:
            return None
        card = rng.choice(specials)
        return Event("handoff", seat, {"card": card, "group": rng.randrange(len(table))}), "illegal"

    def bad_target(self) -> tuple[Any, ...] | None:
        """A Skip You or Block You at yourself, a blocked player or one out of the tie-break."""
        t, rng = self.t, self.rng
        assert t is not None
        seat = t.turn
        cards = [c for c in t.hands[seat] if c in ("SKIP", "BLOCK")]
        if t.phase != "play" or not cards:
            return None
        if not [o for o in t.others(seat) if o not in t.blocks]:
            return None  # nobody to block or skip: the card has no effect, target or not
        blocked = [o for o in t.others(seat) if o in t.blocks]
        bad = [seat, *(s for s in range(self.n) if s not in t.active)]
        if blocked and rng.random() < 0.7:
            bad = blocked
        payload = {"card": rng.choice(cards), "target": rng.choice(bad)}
        self.stats["child: target blocked"] += payload["target"] in t.blocks
        return Event("discard", seat, payload), "illegal"

    def discarded_wild_or_special(self) -> tuple[Any, ...] | None:
        """Drawing or Deck-Stealing a card that cannot be picked up (DD-3, DD-8, DD-18)."""
        t, rng = self.t, self.rng
        assert t is not None
        top = t.top
        if top is None:
            return None
        holders = [s for s in t.active if "STEAL" in t.hands[s]]
        if holders and not t.stealable(self.wfd) and rng.random() < 0.5:
            self.stats[f"child: steal {'start ' if t.start_pickup else ''}{top}"] += 1
            return Event("steal", rng.choice(holders), {}), "illegal"
        if t.phase in ("draw", "action_draw") and not t.pickable(self.wfd):
            self.stats[f"child: draw discarded {top if top in SPECIALS | {'W'} else 'card'}"] += 1
            return Event("draw", t.turn, {"from": "discard"}), "illegal"
        return None

    def wrong_named_draw(self) -> tuple[Any, ...] | None:
        """The camera names a card that is not the known top of the pile drawn from."""
        t, rng = self.t, self.rng
        assert t is not None
        if t.phase not in ("draw", "action_draw"):
            return None
        rnd = self.state.round
        assert rnd is not None
        if rnd.draw_pile.known and rng.random() < 0.7:
            card = rng.choice([c for c in DECK if c != t.stock[0]])
            return Event("draw", t.turn, {"card": card}), "illegal"
        if t.top is not None:
            card = rng.choice([c for c in DECK if c != t.top])
            return Event("draw", t.turn, {"from": "discard", "card": card}), "illegal"
        return None

    def copy_too_many(self) -> tuple[Any, ...] | None:
        """DD-16: a card whose every copy the referee has placed is a misread (table mode)."""
        t, rng = self.t, self.rng
        assert t is not None
        rnd = self.state.round
        assert rnd is not None
        placed = engine_places(self.state)
        full = sorted(c for c, k in placed.items() if k >= DECK[c])
        if not full:
            return None
        seat = t.turn
        hand = rnd.hands[seat]
        mine = {tok(c) for c in hand.known}
        if t.phase in ("draw", "action_draw") and not rnd.draw_pile.known and t.stock:
            return Event("draw", seat, {"card": rng.choice(full)}), "illegal"
        if t.phase != "play" or not hand.unknown:
            return None
        cards = [c for c in full if c not in mine]
        if not cards:
            return None
        card = rng.choice(cards)
        self.stats["child: copy too many"] += 1
        found = self.find(seat) if seat not in t.laid else None
        if found is not None and rng.random() < 0.5:  # a lay-down that is a Dash but for that
            laid = [tok(c) for g in found.groups for c in g.cards]
            for i in rng.sample(range(len(laid)), len(laid)):
                for other in cards:
                    if other in SPECIALS or other == laid[i]:
                        continue
                    misread = [*laid[:i], other, *laid[i + 1 :]]
                    if check_dash(self.level, t.dash, [CARD[c] for c in misread]).valid:
                        self.stats["child: copy too many in a Dash"] += 1
                        return Event("lay", seat, {"cards": misread}), "illegal"
        if seat in t.laid and card not in SPECIALS:
            fits = [i for i, laid in enumerate(rnd.table) if hand_off(laid.group, CARD[card])]
            if fits and rng.random() < 0.5:
                return Event("handoff", seat, {"card": card, "group": fits[0]}), "illegal"
        return Event("discard", seat, {"card": card}), "illegal"

    def not_in_hand(self) -> tuple[Any, ...] | None:
        """A scripted round knows every hand: a card the player does not hold is refused."""
        t, rng = self.t, self.rng
        assert t is not None
        seat = t.turn
        if not t.scripted or t.phase not in ("play", "action_discard"):
            return None
        absent = [c for c in DECK if c not in t.hands[seat]]
        card = rng.choice(absent)
        if t.phase == "play" and seat not in t.laid and rng.random() < 0.3:
            cards = [*t.hands[seat][:5], card]
            return Event("lay", seat, {"cards": cards}), "illegal"
        return Event("discard", seat, {"card": card}), "illegal"

    def bad_reshuffle(self) -> tuple[Any, ...] | None:
        t, rng = self.t, self.rng
        assert t is not None
        if t.stock:
            return Event("reshuffle", None, {}), "illegal"
        if not t.discard:
            return None
        if t.scripted and rng.random() < 0.3:
            return Event("reshuffle", None, {}), "error"  # a scripted round needs the order
        order = list(t.discard)
        if rng.random() < 0.5:
            order.pop()
        else:
            order[0] = rng.choice([c for c in DECK if c != order[0]])
        return Event("reshuffle", None, {"order": order}), "illegal"

    def play_not_a_draw_card(self) -> tuple[Any, ...] | None:
        t = self.t
        assert t is not None
        others = [c for c in t.hands[t.turn] if c not in DRAW_ACTIONS]
        if not others:
            return None
        return Event("play", t.turn, {"card": self.rng.choice(others)}), "illegal"

    def bad_steal(self) -> tuple[Any, ...] | None:
        """No Deck Steal in a known hand, the wrong card named, or out of the tie-break."""
        t, rng = self.t, self.rng
        assert t is not None
        out = [s for s in range(self.n) if s not in t.active]
        if out and rng.random() < 0.3:
            return Event("steal", rng.choice(out), {}), "illegal"
        if t.scripted:
            without = [s for s in t.active if "STEAL" not in t.hands[s]]
            if without and rng.random() < 0.5:
                return Event("steal", rng.choice(without), {}), "illegal"
        holders = [s for s in t.active if "STEAL" in t.hands[s]]
        if holders and t.top is not None:
            card = rng.choice([c for c in DECK if c != t.top])
            return Event("steal", rng.choice(holders), {"card": card}), "illegal"
        return None

    def deal_or_tally_now(self) -> tuple[Any, ...] | None:
        if self.rng.random() < 0.5:
            payload = {"start": "R1", "hands": [HAND] * self.n}
            return Event("deal", self.rng.choice([None, self.t.dealer]), payload), "illegal"  # type: ignore[union-attr]
        return Event("tally", None, {"hands": [0] * self.n}), "illegal"

    def malformed(self) -> tuple[Any, ...] | None:
        t, rng = self.t, self.rng
        assert t is not None
        seat = t.turn
        options = [
            Event("shout", seat),
            Event("deal", self.n + rng.randrange(3), {"start": "R1"}),
            Event("steal", self.n),
            Event("steal", None),
            Event("discard", seat, {"card": rng.choice(["R13", "X5", "", "W2", "SKIP3"])}),
            Event("discard", seat, {"card": "SKIP", "target": self.n}),
            Event("discard", seat, {"card": "BLOCK", "target": "Bea"}),
            Event("discard", seat, {}),
            Event("lay", seat, {"cards": "R1 R2 R3"}),
            Event("lay", seat, {}),
            Event("handoff", seat, {"card": "R5", "group": "0"}),
            Event("handoff", seat, {"card": "W", "group": 0, "end": "middle"}),
            Event("handoff", seat, {"group": 0}),
            Event("play", seat, {}),
            Event("stop", self.n),
        ]
        if t.phase in ("draw", "action_draw"):
            options.append(Event("draw", seat, {"from": "table"}))
            options.append(Event("draw", seat, {"card": "R0"}))
        if not t.stock and t.discard:
            options.append(Event("reshuffle", None, {"order": "R1"}))
        return rng.choice(options), "error"


def keep_score(card: str, hand: list[str], kinds: set[GroupKind]) -> float:
    """How much a player wants to keep ``card`` for a Dash made of ``kinds`` of groups."""
    if card == "W":
        return 1000.0
    if card in SPECIALS:
        return -10.0
    color, number = card[0], card[1:]
    same_number = sum(1 for c in hand if c[1:] == number and c[0] in "RYGB")
    same_color = sum(1 for c in hand if c[0] == color and c != "W" and c not in SPECIALS)
    same_card = hand.count(card)
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


def engine_places(state: DeckDashState) -> Counter[str]:
    """Where the referee knows cards to be (DD-16's places), as one count per card."""
    rnd = state.round
    assert rnd is not None
    out: Counter[str] = Counter(tok(c) for c in rnd.discard)
    for laid in rnd.table:
        out.update(tok(c) for c in laid.group.cards)
    out["BLOCK"] += len(rnd.blocks)
    if rnd.phase is Phase.ACTION_DRAW and rnd.action is not None:
        out[tok(rnd.action)] += 1
    for hand in rnd.hands:
        out.update(tok(c) for c in hand.known)
    out.update(tok(c) for c in rnd.draw_pile.known)
    return out


def check_engine_copies(state: DeckDashState, where: str) -> None:
    """What the referee alone must keep: 128 cards in all, no copy too many."""
    rnd = state.round
    assert rnd is not None
    total = (
        sum(len(h) for h in rnd.hands)
        + len(rnd.draw_pile)
        + len(rnd.discard)
        + sum(laid.group.size for laid in rnd.table)
        + len(rnd.blocks)
        + (1 if rnd.action is not None and rnd.phase is Phase.ACTION_DRAW else 0)
    )
    assert total == len(DECK_LIST), f"{where}: {total} cards on the table"
    over = {c: k for c, k in engine_places(state).items() if k > DECK[c]}
    assert not over, f"{where}: the referee places too many copies: {over}"


def check_replays(family: Family) -> None:
    """The log replays to the same state and verdicts; undo gives back a state exactly."""
    rng, cfg = family.rng, family.cfg
    logged = LoggedGame.of(GAME, family)
    n, k = len(logged.numbered), rng.randrange(1, len(family.log) + 1)
    logged.check_undo_twice(k)
    logged.check_overrule(k, rng.choice(family.log))
    got = logged.rejudged(Event("undo", None, {"target": rng.randrange(1, n + 1)}))
    if got is None:
        family.stats["undo: input error"] += 1
    else:
        if got.round is not None:
            check_engine_copies(got, f"{cfg}: after an undo")
        family.stats["undo: replayed"] += 1


def play(seed: int, games: int, agree: bool = False) -> Counter[str]:
    return play_games(
        seed, games, random_config, lambda rng, config: Family(rng, config, agree), check_replays
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_whole_games_keep_the_rules_invariants(seed: int) -> None:
    stats = play(9100 + seed, GAMES_PER_TEST)
    assert stats["games"] == GAMES_PER_TEST and stats["rounds"] >= GAMES_PER_TEST, stats
    # every kind of move was made and judged, legal and not
    kinds = ("deal", "draw", "lay", "handoff", "play", "discard", "return_block", "steal", "tally")
    for kind in kinds:
        assert stats[kind] > 0, (kind, stats)
    assert stats["SKIP: default"] > 0 and stats["BLOCK: default"] > 0, stats
    assert stats["refused"] > 5 * GAMES_PER_TEST and stats["input errors"] > 0, stats
    assert stats["ended: finished"] > 0 and stats["stopped: stalled"] == 0, stats


def test_whole_games_ending_stuck_dashes_by_agreement() -> None:
    """DD-24 in whole games: stuck Dashes ended by agreement, the hint followed, Dashes ended
    at any moment; the game plays on to its end (scores, tallies, tie-breaks, replays)."""
    stats = play(9208, GAMES_PER_TEST // 2, agree=True)
    assert stats["games"] == GAMES_PER_TEST // 2, stats
    assert stats["ended: agreed"] == stats["end_dash"] > 0, stats
    assert stats["hints: nobody can finish"] > 0 and stats["after the hint: agreed"] > 0, stats
    assert stats["stopped: stuck"] == stats["stopped: stalled"] == 0, stats
    assert stats["ended: finished"] > 0 and stats["tallies"] > 0, stats


if __name__ == "__main__":
    playthrough_main(play, 200_000)
