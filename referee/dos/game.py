"""DOS as a ``Game``: options, set-up, scoreboard and the tablet's view (rules in rules.py)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.dos import rules, summary
from referee.dos.cards import format_cards
from referee.dos.deck import DEFAULT_NUMBERS, NUMBER_SETS, full_deck
from referee.dos.rules import LAST_CARD_ENDS, LAST_CARD_WAITS, LATE_DRAW_PLAYED, LATE_DRAW_REFUSED
from referee.dos.state import PILE_NAMES, DosState, Phase
from referee.events import Event
from referee.game import (
    GameError,
    OptionSpec,
    Scoreboard,
    TableLine,
    check_players,
    resolve_options,
)
from referee.verdicts import Verdict

MAX_ROUNDS = 100  # deals in one match: more is no evening's game

OPTIONS: tuple[OptionSpec, ...] = (
    # at most what fits the deck with the cards turned up (checked in ``new_state``)
    OptionSpec(
        "hand_size", 14, "cards dealt to each player (the rules say 14)", ruling="DOS-1", minimum=1
    ),
    OptionSpec(
        "numbers",
        DEFAULT_NUMBERS,
        "which number cards the deck has (6 of each per colour)",
        choices=tuple(NUMBER_SETS),
        ruling="DOS-2",
    ),
    OptionSpec(
        "draw_for_blocked_pile",
        True,
        "a pile closed by a Skip still counts as a pile you could not play on: draw one for it",
        ruling="DOS-7",
    ),
    OptionSpec(
        "draw_four_counter",
        True,
        "the Draw Four victim may cancel it with a Skip of its colour (the rules mark this "
        "rule with *); off: the Draw Four is drawn at once, like a Draw Two",
        ruling="DOS-22",
    ),
    OptionSpec(
        "draw_pile_out_ends_game",
        False,
        "optional rule: when the draw pile runs out the game ends after that turn, "
        "fewest cards wins",
        ruling="DOS-17",
    ),
    OptionSpec(
        "late_draw",
        LATE_DRAW_REFUSED,
        "a draw typed after the play of the card drawn (a camera logs the play first): "
        "'played' (the card played was the one drawn) or 'refused' (as games set up before "
        "this option existed read it)",
        choices=(LATE_DRAW_PLAYED, LATE_DRAW_REFUSED),
        ruling="DOS-25",
        new_default=LATE_DRAW_PLAYED,
    ),
    OptionSpec(
        "late_last_card",
        LAST_CARD_ENDS,
        "with late_draw 'played', a play that empties a hand the referee cannot see, on a pile "
        "not yet drawn for, may be the card drawn for it: 'waits' (the next entry decides: "
        "that draw, or the player's end of turn, which ends the round) or 'ends' (at once, "
        "as games set up before this option existed do)",
        choices=(LAST_CARD_WAITS, LAST_CARD_ENDS),
        ruling="DOS-25",
        new_default=LAST_CARD_WAITS,
    ),
    OptionSpec(
        "rounds",
        1,
        "deals in a match; cards left are added up (1 = the rules)",
        ruling="DOS-15",
        minimum=1,
        maximum=MAX_ROUNDS,
    ),
)


def standing(state: DosState) -> tuple[int, ...]:
    """Who leads now, which WEB-1 makes the winners of a game ended early: the lowest total
    of cards left, counting during a deal the cards each player holds now, as the rules' own
    early ending does ("The person with the fewest amount of cards wins", DOS-15, DOS-17).
    The totals alone would leave a one-deal game ended mid-deal without a winner."""
    if state.phase is Phase.FINISHED:
        return state.winners
    now = state.totals
    if state.phase is Phase.PLAY:
        now = tuple(total + len(hand) for total, hand in zip(now, state.hands, strict=True))
    low = min(now)
    return tuple(seat for seat, cards in enumerate(now) if cards == low)


def _last_card_waits(state: DosState) -> dict[str, Any] | None:
    """The play that emptied the turn player's hand while the round's end waits for the
    draw of that card (DOS-25); None when nothing waits."""
    pile = state.current.last_card_waits
    if state.phase is not Phase.PLAY or pile is None:
        return None
    card = state.current.played[pile]
    shown = format_cards([card])[0] if card is not None else None
    return {"seat": state.turn, "pile": PILE_NAMES[pile], "card": shown}


class DosGame:
    name = "dos"
    title = "DOS"
    min_players = 2
    max_players = 8

    def options(self) -> Sequence[OptionSpec]:
        return OPTIONS

    def new_state(self, players: Sequence[str], options: Mapping[str, Any]) -> DosState:
        names = check_players(self, players)
        opts = resolve_options(OPTIONS, options)
        if opts["hand_size"] < 1:
            raise GameError("option 'hand_size' must be at least 1")
        if opts["rounds"] < 1:
            raise GameError("option 'rounds' must be at least 1")
        deck = len(full_deck(opts["numbers"]))
        if len(names) * opts["hand_size"] + 2 > deck:
            raise GameError(
                f"{len(names)} hands of {opts['hand_size']} do not fit a {deck}-card deck"
            )
        n = len(names)
        return DosState(players=names, options=opts, dealer=n - 1, owed=(0,) * n)

    def apply(self, state: DosState, event: Event) -> tuple[DosState, list[Verdict]]:
        return rules.apply(state, event)

    def scoreboard(self, state: DosState) -> Scoreboard:
        return Scoreboard(
            game=self.name,
            players=state.players,
            totals=state.totals,
            round=state.round,
            turn=state.turn if state.phase is Phase.PLAY else None,
            rounds=state.rounds,
            finished=state.phase is Phase.FINISHED,
            winners=state.winners,
            lower_is_better=True,
            leading=standing(state),  # DOS-15: the cards in hand count during a deal
            extra={
                "cards_in_hand": [len(h) for h in state.hands],
                "round_winners": [list(w) for w in state.round_winners],
            },
        )

    def view(self, state: DosState) -> dict[str, Any]:
        cur = state.current
        playing = state.phase is Phase.PLAY
        return {
            "game": self.name,
            "phase": state.phase.value,
            "round": state.round,
            "rounds_to_play": state.options["rounds"],
            "options": dict(state.options),
            "dealer": state.dealer,
            "turn": state.turn if playing else None,
            "direction": "clockwise" if state.direction == 1 else "counter-clockwise",
            "draw_pile": len(state.stock),
            "piles": [
                {
                    "pile": PILE_NAMES[p],
                    "top": format_cards(state.piles[p][-1:])[0] if state.piles[p] else None,
                    "cards": len(state.piles[p]),
                    "closed": p in state.blocked,
                    "this_turn": cur.piles[p].value,
                }
                for p in (0, 1)
            ],
            "players": [
                {
                    "seat": i,
                    "name": state.players[i],
                    "cards": len(state.hands[i]) if state.hands else 0,
                    "called_dos": i in state.called,
                    "can_be_called_out": i in state.exposed,
                    "owes": state.owed[i] if state.owed else 0,
                }
                for i in range(state.n)
            ],
            "pending_draw_fours": [
                {"pile": PILE_NAMES[f.pile], "victim": f.victim, "card": format_cards([f.card])[0]}
                for f in state.pending
            ],
            "waiting_for_reshuffle": state.waiting_for_reshuffle,
            "last_card_waits": _last_card_waits(state),
            "round_scores": [list(r) for r in state.rounds],
            "round_winners": [list(w) for w in state.round_winners],
            "totals": list(state.totals),
            "winners": list(state.winners),
            "end_reason": state.end_reason,
        }

    def table(self, state: DosState) -> list[TableLine]:
        return summary.table(state)

    def event_kinds(self) -> Mapping[str, str]:
        return dict(rules.EVENT_KINDS)


GAME = DosGame()
