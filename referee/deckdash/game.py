"""Deck Dash: the game object the registry finds (``GAME``).

``apply`` dispatches each event kind to its handler (``actions``: the player's turn,
``rounds``: deal, reshuffle, tally, end_dash, stop). A handler raising ``Illegal`` leaves the
state unchanged and yields one ``illegal`` verdict.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee.cards import format_cards
from referee.deckdash import actions, rounds, summary
from referee.deckdash.common import Illegal
from referee.deckdash.dashes import get_dash
from referee.deckdash.options import OPTIONS, Settings
from referee.deckdash.scoring import standing
from referee.deckdash.state import CLOCKWISE, DeckDashState
from referee.events import Event, EventError
from referee.game import OptionSpec, Scoreboard, TableLine, check_players
from referee.jsonlines import shown
from referee.verdicts import Verdict, illegal

Handler = Callable[[DeckDashState, Event], tuple[DeckDashState, list[Verdict]]]

HANDLERS: dict[str, Handler] = {
    "deal": rounds.deal,
    "draw": actions.draw,
    "lay": actions.lay,
    "handoff": actions.handoff,
    "play": actions.play,
    "discard": actions.discard,
    "return_block": actions.return_block,
    "steal": actions.steal,
    "reshuffle": rounds.reshuffle,
    "tally": rounds.tally,
    "end_dash": rounds.end_dash,
    "stop": rounds.stop,
}

EVENT_KINDS: dict[str, str] = {
    "deal": "seat/dealer: the dealer; start: the card starting the discard pile; hands: per "
    "player 12 cards (scripted) or a count (table); draw_pile: the cards top first (scripted) "
    "or a count (table, optional: what the deck leaves, 128 - the cards dealt - 1)",
    "draw": "seat: the player; from: 'draw' or 'discard'; card: the card drawn (optional)",
    "lay": "seat: the player; cards: exactly the cards laid down as this round's Dash",
    "handoff": "seat: the player; card: the card handed off; group: the table group's number; "
    "end: 'low' or 'high' for a Wild on a run (optional)",
    "play": "seat: the player; card: KEEP2, D2D1 or D4D3 (the draws follow as draw events)",
    "discard": "seat: the player; card: the card discarded; target: seat to Block or Skip "
    "(optional, default the next player without a Block You in front of them)",
    "return_block": "seat: the blocked player, putting the Block You card on the discard pile",
    "steal": "seat: any player using Deck Steal on the top discard; card: that card (optional)",
    "reshuffle": "order: the new draw pile, a card list top first (scripted; optional in "
    "table mode)",
    "tally": "hands: per player the cards or the count left in hand at the end of the round "
    "(table mode only)",
    "end_dash": "no payload: the players agree to end the Dash in progress, at any moment; "
    "nobody wins it, everyone scores the cards in hand, then the next Dash is dealt (DD-24)",
    "stop": "no payload: the players stop the game now (variation 1)",
}


class DeckDashGame:
    name = "deck-dash"
    title = "Deck Dash"
    min_players = 2
    max_players = 8  # DD-16: 8 × 12 cards leave a draw pile of 31

    def options(self) -> Sequence[OptionSpec]:
        return OPTIONS

    def new_state(self, players: Sequence[str], options: Mapping[str, Any]) -> DeckDashState:
        return DeckDashState(check_players(self, players), Settings.from_options(options))

    def apply(self, state: DeckDashState, event: Event) -> tuple[DeckDashState, list[Verdict]]:
        handler = HANDLERS.get(event.kind)
        if handler is None:
            raise EventError(
                f"Deck Dash has no event {shown(event.kind)}; known: {', '.join(sorted(HANDLERS))}"
            )
        try:
            return handler(state, event)
        except Illegal as exc:
            return state, [illegal(exc.reason, exc.seat if exc.seat is not None else event.seat)]

    def scoreboard(self, state: DeckDashState) -> Scoreboard:
        s = state.settings
        rnd = state.round
        return Scoreboard(
            game=self.name,
            players=state.players,
            totals=state.totals,
            round=len(state.results) + (1 if rnd is not None else 0),
            turn=rnd.turn if rnd is not None else None,
            rounds=tuple(r.scores for r in state.counted),
            finished=state.finished,
            winners=state.winners,
            lower_is_better=s.points,
            leading=standing(state),  # DD-1: most Dashes first, not the totals alone
            extra={
                "dashes_won": list(state.dashes_won),
                "dash": rnd.dash if rnd is not None else None,
                "level": s.level.value,
                "points": s.points,
                # per seat, as every list here is (a list of the tied seats read as a score)
                "in_tiebreak": [seat in state.tiebreak for seat in range(state.n)],
            },
        )

    def view(self, state: DeckDashState) -> dict[str, Any]:
        rnd = state.round
        out: dict[str, Any] = {
            "players": list(state.players),
            "options": state.settings.to_dict(),
            "results": [r.to_dict() for r in state.results],
            "totals": list(state.totals),
            "dashes_won": list(state.dashes_won),
            "last_dealer": state.last_dealer,
            "tiebreak": list(state.tiebreak),
            "finished": state.finished,
            "stopped": state.stopped,
            "winners": list(state.winners),
            "round": None,
        }
        if rnd is None:
            return out
        out["round"] = {
            "dash": rnd.dash,
            "dash_text": get_dash(state.settings.level, rnd.dash).text,
            "tiebreak": rnd.tiebreak,
            "dealer": rnd.dealer,
            "active": list(rnd.active),
            "scripted": rnd.scripted,
            "turn": rnd.turn,
            "phase": rnd.phase.value,
            "owed": rnd.owed,
            "action": str(rnd.action) if rnd.action else None,
            "direction": "clockwise" if rnd.direction == CLOCKWISE else "counterclockwise",
            "hands": [
                {"count": len(h), "cards": format_cards(h.known), "unknown": h.unknown}
                for h in rnd.hands
            ],
            "draw_pile": {"count": len(rnd.draw_pile)},
            "discard": format_cards(rnd.discard),
            "table": [{"owner": laid.owner, **laid.group.to_dict()} for laid in rnd.table],
            "laid": sorted(rnd.laid),
            "blocks": sorted(rnd.blocks),
            "skips": list(rnd.skips),
            "start_pickup": rnd.start_pickup,
            "stuck": rnd.stuck,
        }
        return out

    def table(self, state: DeckDashState) -> list[TableLine]:
        return summary.table(state)

    def event_kinds(self) -> Mapping[str, str]:
        return dict(EVENT_KINDS)


GAME = DeckDashGame()
