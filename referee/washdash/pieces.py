"""The physical parts: three pieces of clothing and three clothespin colours.

Every player owns one of each piece and one pin of each colour (rules: "3 different
pieces of clothing and 3 different colored clothespins"). Each piece kind comes in one
colour (ruling WD-1, read from figures 4a and 5d), which is what lets the Opposite event
turn a pin into a piece and back.
"""

from __future__ import annotations

import enum

from referee.jsonlines import shown

ANY = "any"  # a transparent piece or pin on a card: any available one


class Piece(enum.Enum):
    PANTS = "pants"
    DRESS = "dress"
    SHIRT = "shirt"

    @property
    def color(self) -> PinColor:
        return PIECE_COLOR[self]

    @property
    def label(self) -> str:
        """How a family names it: "the blue pants"."""
        return f"{self.color.value} {self.value}"


class PinColor(enum.Enum):
    RED = "red"
    YELLOW = "yellow"
    BLUE = "blue"

    @property
    def piece(self) -> Piece:
        return COLOR_PIECE[self]

    @property
    def label(self) -> str:
        return f"{self.value} pin"


# Ruling WD-1: blue pants, red dress, yellow shirt (figures 4a and 5d).
PIECE_COLOR: dict[Piece, PinColor] = {
    Piece.PANTS: PinColor.BLUE,
    Piece.DRESS: PinColor.RED,
    Piece.SHIRT: PinColor.YELLOW,
}
COLOR_PIECE: dict[PinColor, Piece] = {c: p for p, c in PIECE_COLOR.items()}

PIECE_NAMES = tuple(p.value for p in Piece)
PIN_NAMES = tuple(c.value for c in PinColor)
BARS = 3  # every dryer has three bars


class PartError(ValueError):
    """A piece or pin name that is not one of ours; the message lists the valid ones."""


def parse_piece(token: str) -> Piece:
    try:
        return Piece(str(token).strip().lower())
    except ValueError:
        raise PartError(
            f"unknown piece {shown(token)}; pieces are {', '.join(PIECE_NAMES)}"
        ) from None


def parse_pin(token: str) -> PinColor:
    try:
        return PinColor(str(token).strip().lower())
    except ValueError:
        raise PartError(
            f"unknown pin colour {shown(token)}; pins are {', '.join(PIN_NAMES)}"
        ) from None


class EventCard(enum.Enum):
    """The three event cards (rules, fig. 5)."""

    ONE_HANDED = "one-handed"
    FIRST_BONUS = "first-bonus"
    OPPOSITE = "opposite"

    @property
    def title(self) -> str:
        return {"one-handed": "One handed", "first-bonus": "First bonus", "opposite": "Opposite"}[
            self.value
        ]


def parse_event_card(token: str) -> EventCard:
    key = str(token).strip().lower().replace("_", "-").replace(" ", "-")
    try:
        return EventCard(key)
    except ValueError:
        names = ", ".join(e.value for e in EventCard)
        raise PartError(f"unknown event card {shown(token)}; events are {names}") from None
