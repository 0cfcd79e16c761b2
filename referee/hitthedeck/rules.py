"""What may be played on what, and what a hand is worth. Pure functions, no state."""

from __future__ import annotations

from collections.abc import Iterable

from referee.hitthedeck.cards import HtdCard, Type
from referee.hitthedeck.state import Requirement


def can_play(card: HtdCard, top: HtdCard | None, require: Requirement | None) -> bool:
    """Whether ``card`` may go on ``top`` now; ``play_problem`` says why not."""
    t = card.type
    hit = t is Type.HIT_NUMBER or t is Type.HIT_COLOR or t is Type.HAND
    if require is not None:
        if hit:
            return False
        if require.number is not None:
            return t is Type.NUMBER and card.number == require.number
        return card.color is require.color
    if top is None or hit:
        return True
    if t is Type.CUT or t is Type.FLIP:
        return top.color is not None and top.color is card.color
    if top.type is Type.HAND:
        return True
    return top.color is card.color or (top.number is not None and top.number == card.number)


def play_problem(card: HtdCard, top: HtdCard | None, require: Requirement | None) -> str | None:
    """Why ``card`` may not go on ``top`` (a sentence), or None when it may."""
    if can_play(card, top, require):
        return None
    why = _problem(card, top, require)
    return why[:1].upper() + why[1:] if why else None


def _problem(card: HtdCard, top: HtdCard | None, require: Requirement | None) -> str | None:
    if require is not None:
        return _chain_problem(card, require)
    if top is None or card.is_hit:
        return None  # Hit the Deck cards are wild (HTD-8)
    if card.is_word:
        if top.color is None:
            return (
                f"{card.name} must go on a {card.color_word} card, "
                f"and {top.name} has no colour (HTD-9)."
            )
        if top.color is not card.color:
            return f"{card.name} must go on a {card.color_word} card, not on {top.name}."
        return None
    if top.type is Type.HAND:
        return None  # a Hand card has no colour or number: anything but a Word card follows
    if top.color is card.color or (top.number is not None and top.number == card.number):
        return None
    return f"{card.name} matches neither the colour nor the number of {top.name}."


def _chain_problem(card: HtdCard, require: Requirement) -> str | None:
    wanted = require.describe()
    if card.is_hit:
        return f"Hit the Deck cards can't answer a Hit the Deck card: play {wanted} or draw a card."
    if require.number is not None:
        if card.type is Type.NUMBER and card.number == require.number:
            return None
        return f"Hit the Deck with a {require.number} is in force: play {wanted} or draw a card."
    if card.color is require.color:
        return None
    return f"Hit the Deck with {require.color.word} is in force: play {wanted} or draw a card."


def playable(
    cards: Iterable[HtdCard], top: HtdCard | None, require: Requirement | None
) -> list[HtdCard]:
    """The cards among ``cards`` that could be played now."""
    return [c for c in cards if can_play(c, top, require)]


def hand_points(cards: Iterable[HtdCard]) -> int:
    """Round score of a hand: numbers at face value, every other card 10."""
    return sum(c.points for c in cards)
