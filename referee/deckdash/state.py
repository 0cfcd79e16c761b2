"""Deck Dash game state: immutable snapshots, one per event.

A ``Round`` is one Dash being played (deal to finish); ``DeckDashState`` is the whole
game: players, settings, finished rounds and the round in progress. Hands and the draw
pile are ``Hidden`` so the same state serves scripted games (every card named) and
table games (the referee only counts cards it cannot see).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from referee.cards import Card, Kind, Special
from referee.deckdash.groups import Group
from referee.deckdash.options import Settings
from referee.frozen import evolve
from referee.hands import Hidden

CLOCKWISE = 1  # seats are numbered clockwise: seat + 1 is the player to the left
COUNTERCLOCKWISE = -1


class Phase(enum.Enum):
    DRAW = "draw"  # step 1: the player must draw a card
    BLOCKED = "blocked"  # the player's only action: return the Block You card
    PLAY = "play"  # steps 2-4: lay down, hand off, play an action card, discard
    ACTION_DRAW = "action_draw"  # drawing for Keep Two / Draw 2 Discard 1 / Draw 4 Discard 3
    ACTION_DISCARD = "action_discard"  # the extra discards of Draw 2 Discard 1 / Draw 4 Discard 3


class RoundEnd(enum.Enum):
    FINISHED = "finished"  # a player got rid of every card after laying their Dash
    FIRST_TO = "first_to"  # a "First to …" Dash was laid
    DRAW_PILE_EMPTY = "draw_pile_empty"  # variation 4
    NOTHING_TO_DRAW = "nothing_to_draw"  # draw and discard piles both empty (DD-7)
    AGREED = "agreed"  # the players agreed to end the Dash (``end_dash``, DD-24)


# Specials the first player may pick up when one starts the discard pile.
START_PICKUP = frozenset(
    {Special.DECK_STEAL, Special.KEEP_TWO, Special.DRAW2_DISCARD1, Special.DRAW4_DISCARD3}
)
# Action cards that are *played* (draws follow) rather than simply discarded.
DRAW_ACTIONS = {Special.KEEP_TWO: 2, Special.DRAW2_DISCARD1: 2, Special.DRAW4_DISCARD3: 4}
EXTRA_DISCARDS = {Special.KEEP_TWO: 0, Special.DRAW2_DISCARD1: 1, Special.DRAW4_DISCARD3: 3}


def is_special(card: Card, special: Special) -> bool:
    return card.kind is Kind.SPECIAL and card.special is special


@dataclass(frozen=True)
class Laid:
    """One group on the table and whose Dash it belongs to."""

    owner: int
    group: Group


@dataclass(frozen=True)
class Round:
    index: int  # position of this Dash in the game's list (a tie-break replays the last)
    dash: int  # Dash number 1..12
    dealer: int
    active: tuple[int, ...]  # seats playing (everyone, or the tied players in a tie-break)
    scripted: bool  # True: every card is named (tests, demos); False: table mode
    hands: tuple[Hidden[Card], ...]
    draw_pile: Hidden[Card]  # known cards top first
    discard: tuple[Card, ...]  # bottom first, top last
    table: tuple[Laid, ...] = ()
    laid: frozenset[int] = frozenset()
    blocks: frozenset[int] = frozenset()  # seats with a Block You card in front of them
    skips: tuple[int, ...] = ()  # turns each seat will lose
    direction: int = CLOCKWISE
    turn: int = 0
    phase: Phase = Phase.DRAW
    owed: int = 0  # draws (ACTION_DRAW) or discards (ACTION_DISCARD) still owed
    action: Card | None = None  # the Keep Two / D2D1 / D4D3 being played
    start_pickup: bool = False  # the first player may pick up the special start card
    tiebreak: bool = False
    turns: int = 0  # turns started this round (for views and conformance checks)
    stuck: bool = False  # nobody can finish any more; the hint to end the Dash was given (DD-24)

    def with_hand(self, seat: int, hand: Hidden[Card]) -> Round:
        hands = list(self.hands)
        hands[seat] = hand
        return evolve(self, hands=tuple(hands))

    @property
    def top(self) -> Card | None:
        return self.discard[-1] if self.discard else None


@dataclass(frozen=True)
class RoundResult:
    dash: int
    winner: int | None  # the finisher / first-to layer; None when nobody won the Dash
    how: RoundEnd
    hand_counts: tuple[int, ...]  # cards left in each hand when the round ended
    scores: tuple[int, ...]  # points scored this round, per seat
    tiebreak: bool = False  # tie-break rounds decide the winner only; never added up
    scripted: bool = False  # every card was named: the hand counts are known, not tallied

    def to_dict(self) -> dict[str, object]:
        return {
            "dash": self.dash,
            "winner": self.winner,
            "how": self.how.value,
            "hand_counts": list(self.hand_counts),
            "scores": list(self.scores),
            "tiebreak": self.tiebreak,
        }


@dataclass(frozen=True)
class DeckDashState:
    players: tuple[str, ...]
    settings: Settings
    results: tuple[RoundResult, ...] = ()
    round: Round | None = None
    last_dealer: int | None = None
    tiebreak: tuple[int, ...] = ()  # tied seats who must replay the last Dash
    finished: bool = False
    winners: tuple[int, ...] = ()
    stopped: bool = False

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def counted(self) -> tuple[RoundResult, ...]:
        """The rounds whose points count (every round except tie-break rounds)."""
        return tuple(r for r in self.results if not r.tiebreak)

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(r.scores[s] for r in self.counted) for s in range(self.n))

    @property
    def dashes_won(self) -> tuple[int, ...]:
        return tuple(sum(1 for r in self.counted if r.winner == s) for s in range(self.n))

    @property
    def next_dash_index(self) -> int:
        return len(self.counted)

    def name(self, seat: int | None) -> str:
        if seat is None or not 0 <= seat < self.n:
            return "nobody"
        return self.players[seat]
