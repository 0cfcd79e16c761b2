"""DOS game state: immutable, so that ``apply`` can return the old state on a foul."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from referee.dos.cards import DosCard
from referee.hands import Hidden

LEFT, RIGHT = 0, 1
PILE_NAMES = ("left", "right")


class Phase(enum.Enum):
    DEAL = "deal"  # waiting for the (next) deal
    PLAY = "play"
    FINISHED = "finished"


class PileTurn(enum.Enum):
    """What the turn player has done about one discard pile this turn."""

    OPEN = "open"  # nothing yet
    PLAYED = "played"  # played a card from hand on it
    DRAWN = "drawn"  # drew a card for it (may still play that card on it)
    DRAWN_PLAYED = "drawn_played"  # drew for it and played the drawn card


@dataclass(frozen=True)
class Turn:
    """Progress of the current turn, one entry per pile."""

    piles: tuple[PileTurn, PileTurn] = (PileTurn.OPEN, PileTurn.OPEN)
    played: tuple[DosCard | None, DosCard | None] = (None, None)
    drawn: tuple[DosCard | None, DosCard | None] = (None, None)  # None: unknown or nothing
    drew_nothing: tuple[bool, bool] = (False, False)  # the draw found an empty pile
    started: bool = False  # the turn player has acted (pending Draw Fours are settled)
    # the play took one of the hand's unknown cards: a late draw gives one back (DOS-25)
    played_unseen: tuple[bool, bool] = (False, False)
    # the pile whose play emptied the hand while it may be of the card drawn for it: the
    # round's end waits for the next event, which may be that draw (DOS-25)
    last_card_waits: int | None = None


@dataclass(frozen=True)
class PendingFour:
    """A Draw Four waiting for its victim: draw 4 or counter with a same-colour Skip."""

    pile: int
    victim: int
    card: DosCard


@dataclass(frozen=True)
class DosState:
    players: tuple[str, ...]
    options: Mapping[str, Any]
    phase: Phase = Phase.DEAL
    round: int = 1
    dealer: int = 0
    hands: tuple[Hidden[DosCard], ...] = ()
    stock: Hidden[DosCard] = field(default_factory=Hidden)  # known cards top-first
    # After a reshuffle nobody saw: the cards the unseen draw pile was made from, less those
    # seen drawn since (DOS-20 counts copies with it); None while its make-up is not known.
    stock_pool: tuple[DosCard, ...] | None = None
    piles: tuple[tuple[DosCard, ...], tuple[DosCard, ...]] = ((), ())  # bottom .. top
    turn: int = 0
    direction: int = 1  # +1 clockwise (seat order), -1 counter-clockwise
    blocked: frozenset[int] = frozenset()  # piles a Skip closes for this turn
    current: Turn = field(default_factory=Turn)
    pending: tuple[PendingFour, ...] = ()
    owed: tuple[int, ...] = ()  # cards each seat still has to draw after a reshuffle
    called: frozenset[int] = frozenset()  # seats that said "DOS" for their current hand
    exposed: frozenset[int] = frozenset()  # seats on two cards that did not say "DOS"
    rounds: tuple[tuple[int, ...], ...] = ()  # cards left per seat, per finished round
    round_winners: tuple[tuple[int, ...], ...] = ()
    winners: tuple[int, ...] = ()  # of the whole game, once finished
    end_reason: str = ""

    @property
    def n(self) -> int:
        return len(self.players)

    def name(self, seat: int) -> str:
        return self.players[seat]

    def top(self, pile: int) -> DosCard:
        return self.piles[pile][-1]

    def next_seat(self, seat: int | None = None, direction: int | None = None) -> int:
        seat = self.turn if seat is None else seat
        step = self.direction if direction is None else direction
        return (seat + step) % self.n

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(r[i] for r in self.rounds) for i in range(self.n))

    @property
    def waiting_for_reshuffle(self) -> bool:
        return any(self.owed)
