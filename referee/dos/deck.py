"""The DOS deck, as data.

The rules list, per colour: 3 Draw Four, 4 Draw Two, 4 Skip, 4 Reverse and "6 of each
Number Card" without saying which numbers, nor which colours. DOS-2 rules it: the four
UNO colours and the numbers 1-10 of the commercial DOS (the same assumption as the
camera's deck profile ``models/decks/dos.json``, ruling VIS-2), i.e. 4 x (15 + 60) = 300
cards; the option ``numbers`` selects UNO's 0-9, or 1-9, instead.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from functools import cache
from types import MappingProxyType

from referee.dos.cards import Color, DosCard, Symbol, action, number

COLORS: tuple[Color, ...] = (Color.RED, Color.YELLOW, Color.GREEN, Color.BLUE)

# Copies of each action card per colour, as printed in the rules' "Card Deck" list.
ACTIONS_PER_COLOR: Mapping[Symbol, int] = {
    Symbol.DRAW_FOUR: 3,
    Symbol.DRAW_TWO: 4,
    Symbol.SKIP: 4,
    Symbol.REVERSE: 4,
}

# Copies of each number card per colour ("6 of each Number Card").
COPIES_PER_NUMBER = 6

# Which numbers "each Number Card" means: our ruling DOS-2 (option ``numbers``).
NUMBER_SETS: Mapping[str, tuple[int, ...]] = {
    "0-9": tuple(range(0, 10)),
    "1-9": tuple(range(1, 10)),
    "1-10": tuple(range(1, 11)),
}
DEFAULT_NUMBERS = "1-10"


def full_deck(numbers: str = DEFAULT_NUMBERS) -> list[DosCard]:
    """Every card of the deck in a fixed order (the referee never shuffles)."""
    deck: list[DosCard] = []
    for color in COLORS:
        for value in NUMBER_SETS[numbers]:
            deck += [number(color, value)] * COPIES_PER_NUMBER
        for symbol, copies in ACTIONS_PER_COLOR.items():
            deck += [action(color, symbol)] * copies
    return deck


def deck_counter(numbers: str = DEFAULT_NUMBERS) -> Counter[DosCard]:
    return Counter(full_deck(numbers))


@cache
def copies_in_deck(numbers: str = DEFAULT_NUMBERS) -> Mapping[DosCard, int]:
    """Copies of each card in the deck, read-only.

    Cached because the referee asks on every card it sees come out of an unseen hand
    (DOS-20); a card missing from the mapping is not in this deck at all (DOS-2).
    """
    return MappingProxyType(deck_counter(numbers))
