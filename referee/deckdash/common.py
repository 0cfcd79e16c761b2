"""Helpers shared by the Deck Dash event handlers.

Handlers raise ``Illegal`` for a rule violation; ``game.apply`` turns it into an
``illegal`` verdict and keeps the state unchanged. Malformed events raise ``EventError``.
"""

from __future__ import annotations

from referee.cards import Card
from referee.deckdash.groups import card_words
from referee.deckdash.state import DeckDashState, Phase, Round
from referee.events import Event, EventError
from referee.hands import Hidden
from referee.jsonlines import shown


class Illegal(Exception):
    """A rule was broken; ``reason`` is the sentence the family sees."""

    def __init__(self, reason: str, seat: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seat = seat


def words(card: Card) -> str:
    """ "red 7", "a Wild", "Skip You"."""
    return card_words(card)


def the(card: Card) -> str:
    """ "the Wild", "the Deck Steal", "the red 7": ``words`` gives "a Wild", not "the a Wild"."""
    return "the Wild" if card.is_wild else f"the {words(card)}"


def cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def seat_of(state: DeckDashState, event: Event) -> int:
    seat = event.seat
    if seat is None:
        raise EventError(f"event {shown(event.kind)} needs the seat of the player")
    if not 0 <= seat < state.n:
        raise EventError(f"seat {seat} does not exist: seats are 0..{state.n - 1}")
    return seat


def current_round(state: DeckDashState) -> Round:
    if state.finished:
        raise Illegal("The game is over.")
    if state.round is None:
        raise Illegal("No Dash is being played right now: deal the cards first.")
    return state.round


def my_turn(state: DeckDashState, event: Event) -> tuple[Round, int]:
    """The round and the acting seat, which must be the player whose turn it is."""
    rnd = current_round(state)
    seat = seat_of(state, event)
    if seat not in rnd.active:
        raise Illegal(f"{state.name(seat)} is not playing this tie-break round.", seat)
    if seat != rnd.turn:
        raise Illegal(f"It's {state.name(rnd.turn)}'s turn, not {state.name(seat)}'s.", seat)
    return rnd, seat


def phase_problem(rnd: Round, wanted: tuple[Phase, ...]) -> str | None:
    """Why the current step of the turn does not allow the event, or None."""
    if rnd.phase in wanted:
        return None
    action = words(rnd.action) if rnd.action else "the action card"
    return {
        Phase.DRAW: "Draw a card first (step 1 of your turn).",
        Phase.BLOCKED: "You are blocked: your only move is to put the Block You card "
        "on the discard pile.",
        Phase.PLAY: "You have already drawn this turn.",
        Phase.ACTION_DRAW: f"Finish drawing for {action} first: {rnd.owed} more to draw.",
        Phase.ACTION_DISCARD: f"Discard {rnd.owed} more card{'s' if rnd.owed > 1 else ''} "
        f"for {action} first.",
    }[rnd.phase]


def need_phase(rnd: Round, seat: int, *wanted: Phase) -> None:
    problem = phase_problem(rnd, wanted)
    if problem:
        raise Illegal(problem, seat)


def take_from_hand(hand: Hidden[Card], cards: list[Card], seat: int) -> Hidden[Card]:
    for card in cards:
        if not hand.can_remove(card):
            raise Illegal(f"You don't have {words(card)} in your hand.", seat)
        hand = hand.remove(card)
    return hand
