"""Hit the Deck as a ``referee.game.Game``: options, state, apply, scoreboard and view."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from referee.events import Event
from referee.game import (
    GameError,
    OptionSpec,
    Scoreboard,
    TableLine,
    check_players,
    resolve_options,
)
from referee.hitthedeck import engine, slaps, summary
from referee.hitthedeck.cards import HtdCard, format_card
from referee.hitthedeck.deck import from_record, read_composition, to_record
from referee.hitthedeck.engine import IGNORED, PAID
from referee.hitthedeck.state import HtdState, Phase
from referee.verdicts import Verdict

# The largest numbers a table could use, checked when a game is set up (``check_new_options``;
# a game stored before still replays). No maximum for ``target_score``: a target nobody
# reaches is a game played until the referee ends it (WEB-1).
MAX_HAND_SIZE = 200  # no box deals more (a deal by count stops at deck.json's 110)
MAX_RACE_WINDOW_MS = 60_000  # a minute: no race lasts longer
MAX_EARLY_LOCKOUT_MS = 10_000
MAX_RACE_TIE_NS = 1_000_000_000  # a second

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "target_score",
        100,
        "the game ends when someone reaches this total",
        ruling="HTD-21",
        minimum=1,
    ),
    OptionSpec(
        "hand_size",
        7,
        "cards dealt to each player",
        ruling="HTD-24",
        minimum=1,
        maximum=MAX_HAND_SIZE,
    ),
    OptionSpec(
        "race_window_ms",
        3000,
        "how long after a Hand card a slap still counts, in milliseconds (3000 = 3 s); "
        "who has not slapped by then is last",
        ruling="HTD-13",
        minimum=1,
        maximum=MAX_RACE_WINDOW_MS,
    ),
    OptionSpec(
        "race_tie_ns",
        1000,
        "slaps closer together than this tie for last, in nanoseconds (1 000 000 = 1 ms; "
        "the default 1000 ties only slaps the pads cannot tell apart)",
        ruling="HTD-16",
        minimum=0,
        maximum=MAX_RACE_TIE_NS,
    ),
    OptionSpec(
        "race_tie",
        "all",
        "when players tie for last: 'all' — each of them draws 4; 'none' — nobody draws",
        choices=("all", "none"),
        ruling="HTD-16",
    ),
    OptionSpec(
        "early_lockout_ms",
        0,
        "a slap this many milliseconds before the Hand card locks that player out of the "
        "race (0 = off)",
        ruling="HTD-15",
        minimum=0,
        maximum=MAX_EARLY_LOCKOUT_MS,
    ),
    OptionSpec(
        "must_play_if_able",
        True,
        "a player who can play may not draw instead (checked when the referee knows the hand)",
        ruling="HTD-10",
    ),
    OptionSpec(
        "strict_deck",
        True,
        "a deal typed on the tablet must account for every card in the box (110), so a "
        "card missing or typed twice is caught",
        ruling="HTD-1",
    ),
    OptionSpec(
        "late_fake_out",
        IGNORED,
        "a slap timed before the round's last card but reported after it: 'paid' — a fake-out "
        "costs 2 as it would mid-round, and the player who went out plays on; 'ignored' (as "
        "games set up before this option existed)",
        choices=(PAID, IGNORED),
        ruling="HTD-15",
        new_default=PAID,
    ),
)

EVENT_KINDS: Mapping[str, str] = {
    "deal": "hands: one card list (e.g. ['R3','HAND']) or count per seat; "
    "draw: card list top first, or a count "
    "(optional; default: the rest of the deck, unseen); "
    "dealer: seat (optional; default: rotates left each round)",
    "turn_up": "turn the top of the draw pile onto the discard pile; card: the card "
    "(required when the referee cannot know it)",
    "shuffle": "the draw pile was shuffled as asked; draw: the new order, a card list top "
    "first or a count (optional)",
    "play": "seat plays a card; card: the card, e.g. 'G4'; "
    "yelled: false when a Hand card was played silently (optional)",
    "draw": "seat draws one card; card: what it was (optional in table mode)",
    "pass": "seat keeps the card just drawn and ends the turn",
    "cut": "seat cuts the deck; at: cards lifted (optional, default the middle); "
    "card: the card revealed (required when the referee cannot know it)",
    "flip": "seat flips both piles; card: the card revealed on the new discard pile",
    "slap": "seat slapped the pile; t_ns (required): monotonic ns at the pad/camera/tablet",
    "race_close": "end the slap race now; last: [seats] when people, not pads, say who was last",
    "forgot_yell": "the Hand card was played without the yell (the seat, if given, is its "
    "player); until the next turn action, even after its player went out on it (HTD-18, HTD-20)",
    "hand": "end of round, a hand the referee could not see, by its cards or its points; "
    "cards: the cards in it, a list (or give points); "
    "points: its points, a number (or give cards)",
}


def _check_hands_fit(players: int, opts: Mapping[str, Any], deck: int, named: str) -> None:
    """Refuse at set-up a hand size no deal could give (as DOS does): every hand plus the
    card turned up must come out of the game's ``deck`` cards (``named``: which deck, for the
    message). ``strict_deck`` off means the box is not that deck (HTD-1), so its size proves
    nothing then."""
    size = opts["hand_size"]
    if opts["strict_deck"] and players * size + 1 > deck:
        raise GameError(
            f"{players} hands of {size} and a card to turn up do not fit the {deck}-card "
            f"deck ({named}, HTD-1): at most {(deck - 1) // players} cards each"
        )


class HitTheDeck:
    name = "hit-the-deck"
    title = "Hit the Deck"
    min_players = 2
    max_players = 6

    def __init__(self, deck: Counter[HtdCard] | None = None) -> None:
        self._deck = deck  # None: deck.json, as read at first use

    def deck_record(self) -> dict[str, int]:
        """The deck a game set up now plays with, as its log records it: deck.json read now
        (an edit reaches the games set up after it, never one begun: HTD-1), or the deck
        these rules were made with."""
        return to_record(self._deck if self._deck is not None else read_composition())

    def with_deck(self, data: Any) -> HitTheDeck:
        """These rules playing with a game's recorded deck (``deck_record``'s); GameError
        saying what is wrong with it."""
        return _with_deck(json.dumps(data, sort_keys=True))

    def options(self) -> Sequence[OptionSpec]:
        return OPTIONS

    def new_state(self, players: Sequence[str], options: Mapping[str, Any]) -> HtdState:
        names = check_players(self, players)
        opts = resolve_options(OPTIONS, options)  # each number at least its minimum
        n = len(names)
        state = HtdState(
            players=names,
            options=tuple(sorted(opts.items())),
            totals=(0,) * n,
            owed=(0,) * n,
            deck=self._deck,  # None: deck.json (cached as read), named so in messages
        )
        _check_hands_fit(n, opts, state.deck_size, state.deck_named)
        return state

    def apply(self, state: HtdState, event: Event) -> tuple[HtdState, list[Verdict]]:
        return engine.apply(state, event)

    def scoreboard(self, state: HtdState) -> Scoreboard:
        return Scoreboard(
            game=self.name,
            players=state.players,
            totals=state.totals,
            round=state.round,
            turn=state.turn if state.phase is Phase.PLAY else None,
            rounds=state.rounds,
            finished=state.phase is Phase.GAME_OVER,
            winners=state.winners,
            lower_is_better=True,
            extra={
                "target_score": state.option("target_score"),
                "cards_in_hand": [len(h) for h in state.hands],
            },
        )

    def view(self, state: HtdState) -> dict[str, Any]:
        race = state.race
        return {
            "phase": state.phase.value,
            "round": state.round,
            "dealer": state.dealer,
            "turn": state.turn if state.phase is Phase.PLAY else None,
            "direction": "left" if state.direction == 1 else "right",
            "top": format_card(state.top) if state.top else None,
            "discard": [format_card(c) if c else "?" for c in state.discard],
            "draw_count": len(state.draw),
            "hand_sizes": [len(h) for h in state.hands],
            "forced": state.forced,
            "require": (
                None
                if state.require is None
                else {
                    "number": state.require.number,
                    "color": state.require.color.value if state.require.color else None,
                }
            ),
            "drawn": bool(state.drawn),
            "need": state.need.value if state.need else None,
            "race": (
                None
                if race is None
                else {
                    "by": race.by,
                    "trigger_ns": race.trigger_ns,
                    # when the window ends (None until the card or a slap gives a time):
                    # the pads' window timer closes the race then (HTD-13)
                    "deadline_ns": slaps.deadline(state, race),
                    "slaps": [p.to_dict() for p in race.presses],
                }
            ),
            "pending_slaps": [p.to_dict() for p in state.held],
            "owed": list(state.owed),
            "round_points": list(state.round_points),
            "totals": list(state.totals),
            "rounds": [list(r) for r in state.rounds],
            "winners": list(state.winners),
        }

    def table(self, state: HtdState) -> list[TableLine]:
        return summary.table(state)

    def event_kinds(self) -> Mapping[str, str]:
        return EVENT_KINDS


@lru_cache(maxsize=8)
def _with_deck(text: str) -> HitTheDeck:
    """The rules for a recorded deck (its JSON text): read once, as a replay asks often."""
    return HitTheDeck(from_record(json.loads(text)))


GAME = HitTheDeck()
