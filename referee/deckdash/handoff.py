"""Handoffs: one card from a hand onto a group already laid on the table.

A handoff must keep the group what it is (DASH-9, DASH-10): a set or pair takes its
number, a run grows at either end inside 1..12, a colour group or colour run keeps its
colour, and a Wild fits wherever it can stand for such a card.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from referee.cards import Card
from referee.deckdash.dashes import GroupKind
from referee.deckdash.groups import Face, Group

End = Literal["low", "high"]


def hand_off(group: Group, card: Card, *, end: End | None = None) -> Group | None:
    """``group`` with ``card`` added, or None when the card does not fit.

    ``end`` only matters for a Wild on a run: which end it extends. Without it the Wild
    goes on the high end, or the low end when the run already reaches 12 (DASH-10).
    """
    if end not in (None, "low", "high"):
        raise ValueError(f"end must be 'low' or 'high', not {end!r}")
    if card.is_special:
        return None
    kind = group.kind
    if kind in (GroupKind.RUN, GroupKind.COLOR_RUN):
        return _onto_run(group, card, end)
    if kind in (GroupKind.SET, GroupKind.PAIR):
        fits = card.is_wild or card.number == group.number
        face = Face(None, group.number)
    elif kind is GroupKind.COLOR_PAIR:
        fits = card.is_wild or (card.number == group.number and card.color == group.color)
        face = Face(group.color, group.number)
    else:  # SAME_COLOR
        fits = card.is_wild or card.color == group.color
        face = Face(group.color, None)
    if not fits:
        return None
    if card.is_number:
        face = Face.of(card)
    return replace(group, cards=(*group.cards, card), stands_for=(*group.stands_for, face))


def _onto_run(group: Group, card: Card, end: End | None) -> Group | None:
    assert group.low is not None and group.high is not None
    low, high, color = group.low, group.high, group.color
    if card.is_number:
        if color is not None and card.color is not color:
            return None
        number = card.number
        face = Face.of(card)
    else:
        if end is None:
            end = "high" if high < 12 else "low"
        number = high + 1 if end == "high" else low - 1
        face = Face(color, number)
    if number == high + 1 and number <= 12:
        return replace(
            group,
            cards=(*group.cards, card),
            stands_for=(*group.stands_for, face),
            high=number,
        )
    if number == low - 1 and number >= 1:
        return replace(
            group,
            cards=(card, *group.cards),
            stands_for=(face, *group.stands_for),
            low=number,
        )
    return None
