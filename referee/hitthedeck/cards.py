"""Hit the Deck card notation: parse and format, and each card's points.

Tokens (case-insensitive; ``-``, ``_`` and spaces are ignored, so ``r-cut`` reads as ``RCUT``):

* ``R3``      a number card: colour letter ``R|Y|G|B`` and a number ``1..9``
* ``RCUT``    Cut the Deck (coloured)
* ``RFLIP``   Flip the Deck (coloured)
* ``HIT3``    Hit the Deck With A Number (wild, carries a number)
* ``HITR``    Hit the Deck With A Color (wild, carries a colour)
* ``HAND``    Hit the Deck With A Hand (wild, carries nothing)
"""

from __future__ import annotations

import enum
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from referee.cards import CardParseError, Color

__all__ = ["CardParseError", "Color", "HtdCard", "Type", "format_card", "parse_card"]

MIN_NUMBER = 1
MAX_NUMBER = 9
SPECIAL_POINTS = 10  # "Hit the Deck" and "Word" cards = 10 points


class Type(enum.Enum):
    NUMBER = "number"
    CUT = "cut"  # Word card
    FLIP = "flip"  # Word card
    HIT_NUMBER = "hit_number"  # Hit the Deck With A Number
    HIT_COLOR = "hit_color"  # Hit the Deck With A Color
    HAND = "hand"  # Hit the Deck With A Hand


_INTERNED: dict[tuple[Type, Color | None, int | None], HtdCard] = {}


@dataclass(frozen=True, eq=False)
class HtdCard:
    """One physical card; which of colour/number is set depends on the type.

    Cards are interned: every ``HtdCard(t, c, n)`` is the same object, so equality and hash
    are identity (fast, in C). The conformance test counts every card after every event.
    """

    type: Type
    color: Color | None = None
    number: int | None = None

    def __new__(cls, type: Type, color: Color | None = None, number: int | None = None) -> HtdCard:
        key = (type, color, number)
        card = _INTERNED.get(key)
        if card is None:
            card = super().__new__(cls)
            _INTERNED[key] = card
        return card

    def __reduce__(self) -> tuple[Any, ...]:
        return (HtdCard, (self.type, self.color, self.number))

    def __post_init__(self) -> None:
        needs_color = self.type in (Type.NUMBER, Type.CUT, Type.FLIP, Type.HIT_COLOR)
        needs_number = self.type in (Type.NUMBER, Type.HIT_NUMBER)
        if (self.color is not None) != needs_color:
            raise ValueError(
                f"a {self.type.value} card {'needs' if needs_color else 'has no'} colour"
            )
        if (self.number is not None) != needs_number:
            raise ValueError(
                f"a {self.type.value} card {'needs' if needs_number else 'has no'} number"
            )
        if self.number is not None and not MIN_NUMBER <= self.number <= MAX_NUMBER:
            raise ValueError(f"number {self.number} outside {MIN_NUMBER}..{MAX_NUMBER}")
        object.__setattr__(self, "_token", _token(self))

    @property
    def is_word(self) -> bool:
        """Cut the Deck and Flip the Deck."""
        return self.type is Type.CUT or self.type is Type.FLIP

    @property
    def is_hit(self) -> bool:
        """The three wild "Hit the Deck" cards."""
        t = self.type
        return t is Type.HIT_NUMBER or t is Type.HIT_COLOR or t is Type.HAND

    @property
    def points(self) -> int:
        """Scoring value left in a hand at the end of a round."""
        if self.type is Type.NUMBER:
            assert self.number is not None
            return self.number
        return SPECIAL_POINTS

    @property
    def color_word(self) -> str:
        return self.color.word if self.color else "no-colour"

    @property
    def name(self) -> str:
        """How the card is called at the table, for verdict sentences."""
        color = self.color.word if self.color else ""
        if self.type is Type.NUMBER:
            return f"{color} {self.number}"
        if self.type is Type.CUT:
            return f"{color} Cut the Deck"
        if self.type is Type.FLIP:
            return f"{color} Flip the Deck"
        if self.type is Type.HIT_NUMBER:
            return f"Hit the Deck with a {self.number}"
        if self.type is Type.HIT_COLOR:
            return f"Hit the Deck with {color}"
        return "Hit the Deck with a Hand"

    @property
    def cap_name(self) -> str:
        """``name`` for the start of a sentence."""
        name = self.name
        return name[:1].upper() + name[1:]

    def __str__(self) -> str:
        return format_card(self)

    def __repr__(self) -> str:
        return f"HtdCard({format_card(self)})"


_COLORS = {c.value: c for c in Color}
_HELP = "expected e.g. R3, RCUT, RFLIP, HIT3, HITR or HAND"


def parse_card(token: str) -> HtdCard:
    """Read one token such as ``G4``, ``BFLIP``, ``HIT2`` or ``HAND``."""
    if not isinstance(token, str):
        raise CardParseError(repr(token), "a card must be text")
    return _parse(token)


@cache
def _parse(token: str) -> HtdCard:
    # a phone's full-width "R７" (and "R²") read as before; other scripts' digits are refused
    # ("R७" passes isdigit() and int() reads 7, "R٢" too)
    token = unicodedata.normalize("NFKC", token)
    if not token.isascii():
        raise CardParseError(token, "card names are plain letters and digits (A-Z, 0-9)")
    text = token.upper().replace("-", "").replace("_", "").replace(" ", "")
    if not text:
        raise CardParseError(token, "empty token")
    if text == "HAND":
        return HtdCard(Type.HAND)
    if text.startswith("HIT") and len(text) == 4:
        rest = text[3]
        if rest in _COLORS:
            return HtdCard(Type.HIT_COLOR, color=_COLORS[rest])
        if rest.isdigit() and MIN_NUMBER <= int(rest) <= MAX_NUMBER:
            return HtdCard(Type.HIT_NUMBER, number=int(rest))
        raise CardParseError(token, "HIT must be followed by a colour letter or a number 1..9")
    color = _COLORS.get(text[0])
    if color is None:
        raise CardParseError(token, _HELP)
    rest = text[1:]
    if rest == "CUT":
        return HtdCard(Type.CUT, color=color)
    if rest == "FLIP":
        return HtdCard(Type.FLIP, color=color)
    if len(rest) == 1 and rest.isdigit() and MIN_NUMBER <= int(rest) <= MAX_NUMBER:
        return HtdCard(Type.NUMBER, color=color, number=int(rest))
    raise CardParseError(token, _HELP)


def parse_cards(tokens: Iterable[str] | str) -> list[HtdCard]:
    """Several tokens; a string is split on whitespace and commas."""
    if isinstance(tokens, str):
        tokens = tokens.replace(",", " ").split()
    return [parse_card(t) for t in tokens]


def format_card(card: HtdCard) -> str:
    return card._token  # type: ignore[attr-defined]  # set once per (interned) card


def _token(card: HtdCard) -> str:
    color = card.color.value if card.color else ""
    if card.type is Type.NUMBER:
        return f"{color}{card.number}"
    if card.type is Type.CUT:
        return f"{color}CUT"
    if card.type is Type.FLIP:
        return f"{color}FLIP"
    if card.type is Type.HIT_NUMBER:
        return f"HIT{card.number}"
    if card.type is Type.HIT_COLOR:
        return f"HIT{color}"
    return "HAND"


def format_cards(cards: Iterable[HtdCard]) -> list[str]:
    return [format_card(c) for c in cards]
