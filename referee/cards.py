"""Deck Dash card notation: parse and format, nothing else.

Notation: a colour letter ``R|Y|G|B`` followed by a number ``1..12`` (``R7``, ``G12``),
``W`` for a wild, and the special cards ``REV STEAL KEEP2 D2D1 D4D3 BLOCK SKIP SKIP2``.
Parsing is case-insensitive; formatting is canonical upper case.
"""

from __future__ import annotations

import enum
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from referee.jsonlines import clipped, shown


class CardParseError(ValueError):
    """A card token could not be read; the message names the bad token (shortened: a token
    may be a whole 10 MB line)."""

    def __init__(self, token: str, why: str) -> None:
        super().__init__(f"bad card {shown(token)}: {why}")
        self.token = token


class Color(enum.Enum):
    RED = "R"
    YELLOW = "Y"
    GREEN = "G"
    BLUE = "B"

    @property
    def word(self) -> str:
        return self.name.lower()


class Special(enum.Enum):
    """The eight Deck Dash action cards (the wild is its own kind)."""

    REVERSE = "REV"
    DECK_STEAL = "STEAL"
    KEEP_TWO = "KEEP2"
    DRAW2_DISCARD1 = "D2D1"
    DRAW4_DISCARD3 = "D4D3"
    BLOCK_YOU = "BLOCK"
    SKIP_YOU = "SKIP"
    SKIP_TWO = "SKIP2"


class Kind(enum.Enum):
    NUMBER = "number"
    WILD = "wild"
    SPECIAL = "special"


MIN_NUMBER = 1
MAX_NUMBER = 12


@dataclass(frozen=True, order=True)
class Card:
    """One physical Deck Dash card. Exactly one of the three shapes is filled."""

    kind: Kind
    color: Color | None = None
    number: int | None = None
    special: Special | None = None

    def __post_init__(self) -> None:
        if self.kind is Kind.NUMBER:
            if self.color is None or self.number is None or self.special is not None:
                raise ValueError("a number card needs a colour and a number only")
            if not MIN_NUMBER <= self.number <= MAX_NUMBER:
                raise ValueError(f"number {self.number} outside {MIN_NUMBER}..{MAX_NUMBER}")
        elif self.kind is Kind.WILD:
            if self.color or self.number or self.special:
                raise ValueError("a wild card has no colour, number or action")
        elif self.special is None or self.color or self.number:
            raise ValueError("a special card has an action only")

    @staticmethod
    def numbered(color: Color, number: int) -> Card:
        return Card(Kind.NUMBER, color=color, number=number)

    @staticmethod
    def wild() -> Card:
        return Card(Kind.WILD)

    @staticmethod
    def action(special: Special) -> Card:
        return Card(Kind.SPECIAL, special=special)

    @property
    def is_number(self) -> bool:
        return self.kind is Kind.NUMBER

    @property
    def is_wild(self) -> bool:
        return self.kind is Kind.WILD

    @property
    def is_special(self) -> bool:
        return self.kind is Kind.SPECIAL

    def __str__(self) -> str:
        return format_card(self)

    def __repr__(self) -> str:
        return f"Card({format_card(self)})"


WILD = Card.wild()
_SPECIALS = {s.value: s for s in Special}
_COLORS = {c.value: c for c in Color}


def parse_card(token: str) -> Card:
    """Read one card token such as ``R7``, ``W`` or ``SKIP2``."""
    if not isinstance(token, str):
        raise CardParseError(repr(token), "a card must be text")
    # a phone's full-width "R７" (and "R²") read as before; other scripts' digits are refused
    # ("R७" passes isdigit() and int() reads 7, "R٢" too)
    token = unicodedata.normalize("NFKC", token)
    if not token.isascii():
        raise CardParseError(token, "card names are plain letters and digits (A-Z, 0-9)")
    text = token.strip().upper()
    if not text:
        raise CardParseError(token, "empty token")
    if text == "W":
        return WILD
    if text in _SPECIALS:
        return Card.action(_SPECIALS[text])
    color = _COLORS.get(text[0])
    if color is None:
        raise CardParseError(
            token, "expected R, Y, G or B + 1..12, W, or one of " + " ".join(_SPECIALS)
        )
    digits = text[1:]
    if not digits.isdigit() or (len(digits) > 1 and digits[0] == "0"):
        raise CardParseError(token, "expected a number 1..12 after the colour letter")
    # no int() of a long run of digits: past 4 300 of them Python refuses (a bare ValueError)
    if len(digits) > len(str(MAX_NUMBER)) or not MIN_NUMBER <= int(digits) <= MAX_NUMBER:
        raise CardParseError(
            token, f"number {clipped(digits)} is outside {MIN_NUMBER}..{MAX_NUMBER}"
        )
    return Card.numbered(color, int(digits))


def parse_cards(tokens: Iterable[str] | str) -> list[Card]:
    """Read several tokens; a string is split on whitespace and commas."""
    if isinstance(tokens, str):
        tokens = tokens.replace(",", " ").split()
    return [parse_card(t) for t in tokens]


def format_card(card: Card) -> str:
    if card.kind is Kind.WILD:
        return "W"
    if card.kind is Kind.SPECIAL:
        assert card.special is not None
        return card.special.value
    assert card.color is not None
    return f"{card.color.value}{card.number}"


def format_cards(cards: Iterable[Card]) -> list[str]:
    return [format_card(c) for c in cards]


def full_deck() -> list[Card]:
    """The 133-card game deck minus the five reference/website cards (128 playing cards)."""
    deck = [Card.numbered(c, n) for _ in range(2) for c in Color for n in range(1, 13)]
    deck += [WILD] * 8
    counts = {
        Special.REVERSE: 6,
        Special.DECK_STEAL: 4,
        Special.KEEP_TWO: 4,
        Special.DRAW2_DISCARD1: 2,
        Special.DRAW4_DISCARD3: 2,
        Special.BLOCK_YOU: 2,
        Special.SKIP_YOU: 2,
        Special.SKIP_TWO: 2,
    }
    for special, count in counts.items():
        deck += [Card.action(special)] * count
    return deck
