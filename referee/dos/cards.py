"""DOS card notation: parse and format, nothing else.

A token is a colour letter ``R|Y|G|B`` followed by a number (``R7``, ``B10``) or by an
action symbol: ``SKIP``, ``REV``, ``D2`` (Draw Two) or ``D4`` (Draw Four). In DOS every
card has a colour, the Draw Four included (the counter needs "a skip of the same colour").
Parsing is case-insensitive and accepts a few aliases (``S``, ``REVERSE``, ``+2``, ``+4``);
formatting is canonical upper case.
"""

from __future__ import annotations

import enum
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from referee.cards import Color  # the same four colours and letters as every card game here
from referee.events import EventError
from referee.jsonlines import shown

MIN_NUMBER = 0
MAX_NUMBER = 10  # the widest deck choice (1-10); the deck option says which are in play


class Symbol(enum.Enum):
    SKIP = "SKIP"
    REVERSE = "REV"
    DRAW_TWO = "D2"
    DRAW_FOUR = "D4"

    @property
    def words(self) -> str:
        return {"SKIP": "Skip", "REV": "Reverse", "D2": "Draw Two", "D4": "Draw Four"}[self.value]


_ALIASES = {
    "SKIP": Symbol.SKIP,
    "S": Symbol.SKIP,
    "REV": Symbol.REVERSE,
    "REVERSE": Symbol.REVERSE,
    "D2": Symbol.DRAW_TWO,
    "+2": Symbol.DRAW_TWO,
    "DRAW2": Symbol.DRAW_TWO,
    "D4": Symbol.DRAW_FOUR,
    "+4": Symbol.DRAW_FOUR,
    "DRAW4": Symbol.DRAW_FOUR,
}
_COLORS = {c.value: c for c in Color}


class CardParseError(EventError):
    """A card token could not be read; an EventError so the web layer answers 400."""

    def __init__(self, token: object, why: str) -> None:
        super().__init__(f"bad DOS card {shown(token)}: {why}")
        self.token = token


_INTERNED: dict[tuple[Color, int | None, Symbol | None], DosCard] = {}


@dataclass(frozen=True, eq=False, init=False)
class DosCard:
    """One physical DOS card: a colour and either a number or an action symbol.

    There is exactly one instance per card face (``__new__`` hands out the shared one), so
    equality and hashing are object identity, done in C: hands are searched and counted
    hundreds of thousands of times in the conformance test.
    """

    color: Color
    number: int | None = None
    symbol: Symbol | None = None

    def __new__(
        cls, color: Color, number: int | None = None, symbol: Symbol | None = None
    ) -> DosCard:
        key = (color, number, symbol)
        card = _INTERNED.get(key)
        if card is not None and type(number) is type(card.number):
            return card
        if not isinstance(color, Color):
            raise ValueError(f"a DOS card needs a Color, got {color!r}")
        if number is not None and (not isinstance(number, int) or isinstance(number, bool)):
            raise ValueError(f"a card number must be an integer, got {number!r}")
        if symbol is not None and not isinstance(symbol, Symbol):
            raise ValueError(f"a card symbol must be a Symbol, got {symbol!r}")
        if (number is None) == (symbol is None):
            raise ValueError("a DOS card has a number or a symbol, not both")
        if number is not None and not MIN_NUMBER <= number <= MAX_NUMBER:
            raise ValueError(f"number {number} outside {MIN_NUMBER}..{MAX_NUMBER}")
        card = super().__new__(cls)
        object.__setattr__(card, "color", color)
        object.__setattr__(card, "number", number)
        object.__setattr__(card, "symbol", symbol)
        face = symbol.value if symbol is not None else str(number)
        named = symbol.words if symbol is not None else str(number)
        object.__setattr__(card, "_token", color.value + face)
        object.__setattr__(card, "_words", f"{color.word} {named}")
        _INTERNED[key] = card
        return card

    def __reduce__(self) -> tuple[type[DosCard], tuple[Color, int | None, Symbol | None]]:
        return (DosCard, (self.color, self.number, self.symbol))

    def __lt__(self, other: DosCard) -> bool:
        return self.sort_key < other.sort_key

    @property
    def sort_key(self) -> tuple[str, int, str]:
        return (self.color.value, -1 if self.number is None else self.number, self._token)  # type: ignore[attr-defined]

    @property
    def is_number(self) -> bool:
        return self.number is not None

    @property
    def is_action(self) -> bool:
        return self.symbol is not None

    @property
    def face(self) -> int | Symbol:
        """What "same number/symbol" compares."""
        return self.symbol if self.symbol is not None else self.number  # type: ignore[return-value]

    @property
    def words(self) -> str:
        """A family's name for the card: "red 7", "blue Draw Four"."""
        return self._words  # type: ignore[attr-defined,no-any-return]

    def __str__(self) -> str:
        return format_card(self)

    def __repr__(self) -> str:
        return f"DosCard({format_card(self)})"


def number(color: Color, value: int) -> DosCard:
    return DosCard(color, value, None)


def action(color: Color, symbol: Symbol) -> DosCard:
    return DosCard(color, None, symbol)


_PARSED: dict[str, DosCard] = {}


def parse_card(token: object) -> DosCard:
    """Read one token such as ``R7``, ``gskip``, ``B+4``."""
    if isinstance(token, str) and token in _PARSED:
        return _PARSED[token]
    card = _parse(token)
    if len(_PARSED) < 4096:  # tokens seen so far; bounded against junk input
        _PARSED[token] = card  # type: ignore[index]
    return card


def _parse(token: object) -> DosCard:
    if not isinstance(token, str):
        raise CardParseError(token, "a card must be text such as 'R7' or 'BSKIP'")
    # a phone's full-width "R７" (and "R²") read as before; other scripts' digits are refused
    # ("R७" passes isdigit() and int() reads 7, "R٢" too)
    token = unicodedata.normalize("NFKC", token)
    if not token.isascii():
        raise CardParseError(token, "card names are plain letters and digits (A-Z, 0-9)")
    text = token.strip().upper().replace("-", "").replace(" ", "")
    if len(text) < 2:
        raise CardParseError(token, "expected a colour letter R, Y, G or B and a number or symbol")
    color = _COLORS.get(text[0])
    if color is None:
        raise CardParseError(token, "the first letter must be a colour: R, Y, G or B")
    rest = text[1:]
    if rest in _ALIASES:
        return action(color, _ALIASES[rest])
    if not rest.isdigit() or (len(rest) > 1 and rest[0] == "0"):
        raise CardParseError(token, "after the colour comes a number or SKIP, REV, D2, D4")
    value = int(rest)
    if not MIN_NUMBER <= value <= MAX_NUMBER:
        raise CardParseError(token, f"number {shown(value)} is outside {MIN_NUMBER}..{MAX_NUMBER}")
    return number(color, value)


def parse_cards(tokens: Iterable[object] | str) -> list[DosCard]:
    """Several tokens; a string is split on whitespace and commas."""
    if isinstance(tokens, str):
        tokens = tokens.replace(",", " ").split()
    return [parse_card(t) for t in tokens]


def format_card(card: DosCard) -> str:
    return card._token  # type: ignore[attr-defined,no-any-return]


def format_cards(cards: Iterable[DosCard]) -> list[str]:
    return [format_card(c) for c in cards]


def matches(card: DosCard, top: DosCard) -> bool:
    """Colour or number/symbol match; a Draw Four goes on anything (DOS-8)."""
    return card.symbol is Symbol.DRAW_FOUR or card.color is top.color or card.face == top.face
