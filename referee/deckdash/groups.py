"""Groups of laid cards and what each card counts as.

A ``Group`` is one run / set / pair / same-colour group of a laid Dash. ``stands_for``
says, card by card, what the referee counted it as: a numbered card counts as itself, a
Wild as a ``Face`` whose colour (or number) is ``None`` where the group does not care.
``Face`` exists because ``Card`` insists a numbered card has both a colour and a number.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.cards import Card, Color, Kind, format_cards
from referee.deckdash.dashes import GroupKind
from referee.words import and_list as join_words


@dataclass(frozen=True, order=True)
class Face:
    """What a card counts as: colour and/or number; ``None`` = "does not matter here"."""

    color: Color | None
    number: int | None

    def __str__(self) -> str:
        """Compact token: ``R7``; ``7`` (any colour); ``R`` (any number); ``*`` (anything)."""
        if self.color is None and self.number is None:
            return "*"
        return (self.color.value if self.color else "") + (
            str(self.number) if self.number is not None else ""
        )

    @property
    def words(self) -> str:
        """Family wording: "red 7", "7", "red card"."""
        if self.color is None and self.number is None:
            return "any card"
        if self.number is None:
            assert self.color is not None
            return f"{self.color.word} card"
        if self.color is None:
            return str(self.number)
        return f"{self.color.word} {self.number}"

    @staticmethod
    def of(card: Card) -> Face:
        """The face of a numbered card (a Wild has none of its own)."""
        if not card.is_number:
            raise ValueError(f"{card} is not a numbered card")
        return Face(card.color, card.number)


def card_words(card: Card) -> str:
    """ "red 7", "a Wild", "Skip You"."""
    if card.is_wild:
        return "a Wild"
    if card.is_special:
        assert card.special is not None
        return SPECIAL_NAMES[card.special.value]
    assert card.color is not None
    return f"{card.color.word} {card.number}"


SPECIAL_NAMES = {
    "REV": "Reverse",
    "STEAL": "Deck Steal",
    "KEEP2": "Keep Two",
    "D2D1": "Draw 2 Discard 1",
    "D4D3": "Draw 4 Discard 3",
    "BLOCK": "Block You",
    "SKIP": "Skip You",
    "SKIP2": "Skip 2 Players",
}


@dataclass(frozen=True)
class Group:
    """One group of a laid Dash. ``cards[i]`` counts as ``stands_for[i]``.

    Descriptive fields: ``number`` (pairs, sets, colour pairs), ``color`` (same-colour
    groups, colour runs, colour pairs), ``low``/``high`` (runs, colour runs).
    """

    kind: GroupKind
    cards: tuple[Card, ...]
    stands_for: tuple[Face, ...]
    number: int | None = None
    color: Color | None = None
    low: int | None = None
    high: int | None = None

    def __post_init__(self) -> None:
        if len(self.cards) != len(self.stands_for):
            raise ValueError("every card of a group needs what it stands for")

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def wilds(self) -> int:
        return sum(1 for c in self.cards if c.is_wild)

    @property
    def label(self) -> str:
        """ "run 4 to 6", "set of 7s", "pair of 3s", "group of 5 red cards", "red run 1 to 5".

        Labels follow the cards, not the Dash part: a pair that grew by handoffs (DASH-9)
        keeps its kind but reads "set of 3s" / "set of red 3s".
        """
        k = self.kind
        color = self.color.word if self.color else ""
        if k is GroupKind.RUN:
            return f"run {self.low} to {self.high}"
        if k is GroupKind.COLOR_RUN:
            return f"{color} run {self.low} to {self.high}"
        if k is GroupKind.SET:
            return f"set of {self.number}s"
        noun = "pair" if self.size == 2 else "set"
        if k is GroupKind.PAIR:
            return f"{noun} of {self.number}s"
        if k is GroupKind.COLOR_PAIR:
            return f"{noun} of {color} {self.number}s"
        return f"group of {self.size} {color} cards"

    def describe(self) -> str:
        """Label plus the cards, naming what each Wild stands for."""
        parts = [
            f"a Wild as {face.words}" if card.kind is Kind.WILD else face.words
            for card, face in zip(self.cards, self.stands_for, strict=True)
        ]
        return f"{self.label} ({join_words(parts)})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind.value,
            "label": self.label,
            "cards": format_cards(self.cards),
            "stands_for": [str(f) for f in self.stands_for],
            "number": self.number,
            "color": self.color.value if self.color else None,
            "low": self.low,
            "high": self.high,
        }


@dataclass(frozen=True)
class DashCheck:
    """The verdict on one lay-down: valid or not, its groups, and a family sentence."""

    valid: bool
    groups: tuple[Group, ...]
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "valid": self.valid,
            "groups": [g.to_dict() for g in self.groups],
            "reason": self.reason,
        }
