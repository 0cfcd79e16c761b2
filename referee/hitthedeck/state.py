"""The state of a Hit the Deck game: frozen data only, changed by ``engine.apply``.

Piles are tuples listed **top first**; an entry is a card or ``None`` for a card the referee
has not seen (table mode). Hands are ``referee.hands.Hidden``: known cards plus a count.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from referee.hands import Hidden
from referee.hitthedeck.cards import Color, HtdCard
from referee.hitthedeck.deck import composition
from referee.races import Press, RaceRules

Pile = tuple[HtdCard | None, ...]


class Phase(enum.Enum):
    DEAL = "deal"  # waiting for the cards to be dealt
    PLAY = "play"
    SCORING = "scoring"  # round over; waiting for hands the referee cannot see
    ROUND_OVER = "round_over"  # waiting for the next deal
    GAME_OVER = "game_over"


class Need(enum.Enum):
    """A table chore that must happen before play goes on."""

    TURN_UP = "turn_up"  # turn the top card of the draw pile onto the discard pile
    SHUFFLE = "shuffle"  # shuffle the draw pile (a card went back in) or rebuild it


class ShuffleWhy(enum.Enum):
    START_HAND = "start_hand"  # a Hand card turned up at the start goes back in
    FLIP_FLIP = "flip_flip"  # a Flip revealed by a flip goes back in
    EMPTY = "empty"  # the draw pile ran out: the discard pile but its top card


@dataclass(frozen=True)
class Requirement:
    """An open Hit the Deck With A Number / Color chain: what the next card must match."""

    number: int | None = None
    color: Color | None = None

    def describe(self) -> str:
        if self.number is not None:
            return f"a {self.number}"
        assert self.color is not None
        return f"a {self.color.word} card"


@dataclass(frozen=True)
class Race:
    """An open slap race for a Hit the Deck With A Hand card.

    ``trigger_ns`` is the time the card hit the pile (the event's ``t_ns``); when the event
    carried none, the first slap stands in for it (ruling HTD-14).
    """

    by: int  # the seat that played (or revealed) the Hand card and must yell
    trigger_ns: int | None
    presses: tuple[Press, ...] = ()
    yell_penalised: bool = False
    timed: bool = True  # trigger_ns is the card's own time, not a slap standing in (HTD-14)
    faked: tuple[int, ...] = ()  # seats already paying a fake-out for a slap before the card


@dataclass(frozen=True)
class ClosedRace:
    """The race just judged; slaps before the next turn action are attributed to it.

    ``until_ns`` is that action's time, once it came (``HtdState.judged``): slaps timed
    before it stay this race's, however late their reports arrive (HTD-17).
    """

    by: int
    trigger_ns: int
    deadline_ns: int
    yell_penalised: bool
    timed: bool = True
    faked: tuple[int, ...] = ()
    until_ns: int | None = None


@dataclass(frozen=True)
class HtdState:
    players: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    phase: Phase = Phase.DEAL
    round: int = 0  # rounds dealt so far (1 during the first round)
    dealer: int = 0
    totals: tuple[int, ...] = ()
    rounds: tuple[tuple[int, ...], ...] = ()
    hands: tuple[Hidden[HtdCard], ...] = ()
    draw: Pile = ()
    discard: Pile = ()
    turn: int = 0
    direction: int = 1  # +1: to the left (seat + 1); -1 after a flip
    forced: str | None = None  # "cut" or "flip": the current player's forced action
    require: Requirement | None = None
    drawn: tuple[HtdCard | None, ...] = ()  # () or the one card drawn this turn (None = unseen)
    need: Need | None = None
    shuffle_why: ShuffleWhy | None = None
    reveal_by: int | None = None  # whose "play" a turned-up card counts as (HTD-3, HTD-6)
    reveal_ctx: str = "start"  # "start" (the round's first card) or "flip" (HTD-6)
    race: Race | None = None
    closed_race: ClosedRace | None = None
    held: tuple[Press, ...] = ()  # slaps seen outside any race, not yet judged (HTD-15)
    # Slaps after a judged race, before the next turn action: ignored (HTD-17) unless that
    # action plays or reveals a timed Hand card whose window they fall in (HTD-15).
    after_race: tuple[Press, ...] = ()
    # The race judged before the last timed turn action that ended its claim (``until_ns``):
    # a slap timed before that action but reported after it is still judged as that race's.
    judged: ClosedRace | None = None
    # The time of the last timed turn action this round (not the deal): a slap with no race
    # timed before it, reported after it, is judged with the fake-outs paid there (HTD-15).
    action_ns: int | None = None
    # Slaps already paid as fake-outs outside any race, timed since the timed turn action
    # before ``action_ns``: a seat pays once for its slaps between two turn actions, however
    # their reports (a pad, the camera's echo) are ordered around the actions (HTD-15).
    paid: tuple[Press, ...] = ()
    owed: tuple[int, ...] = ()  # penalty cards each seat still has to draw
    out_seat: int | None = None  # the seat that ran out of cards
    round_points: tuple[int | None, ...] = ()  # during SCORING: each seat's points so far
    winners: tuple[int, ...] = ()
    # The PLAY state just before a player went out on a Hand card whose yell may still be
    # reported (HTD-18, HTD-20): ``forgot_yell`` before the next action resumes the round.
    reopen: HtdState | None = None
    # The PLAY state as the round ended, until the next action (a deal, a hand entered): a
    # slap timed before the round's end but reported after it is judged against it, as
    # mid-round; a fake-out costs 2 there and the round is taken up again (HTD-15, HTD-20).
    ended: HtdState | None = None
    # The deck the game is played with (HTD-1), recorded when it was set up: how many of each
    # card. None: deck.json as the referee read it (a game without a recorded deck).
    # Never changed, so left out of the hash (a Counter has none) and of the repr.
    deck: Counter[HtdCard] | None = field(default=None, hash=False, repr=False)

    def option(self, name: str) -> Any:
        return dict(self.options)[name]

    @property
    def composition(self) -> Counter[HtdCard]:
        """How many of each card the game's deck holds."""
        return self.deck if self.deck is not None else composition()

    @property
    def deck_size(self) -> int:
        return sum(self.composition.values())

    @property
    def deck_named(self) -> str:
        """The deck as a message names it: the game's own (recorded with it, or a log's
        header), else the file it was read from."""
        return "the game's deck" if self.deck is not None else "deck.json"

    @property
    def n(self) -> int:
        return len(self.players)

    @property
    def top(self) -> HtdCard | None:
        return self.discard[0] if self.discard else None

    def race_rules(self) -> RaceRules:
        lockout_ms = self.option("early_lockout_ms")
        return RaceRules(
            window_ns=self.option("race_window_ms") * 1_000_000,
            tie_ns=self.option("race_tie_ns"),
            early_lockout_ns=lockout_ms * 1_000_000 if lockout_ms else None,
        )

    def next_seat(self, seat: int, direction: int | None = None) -> int:
        return (seat + (self.direction if direction is None else direction)) % self.n
