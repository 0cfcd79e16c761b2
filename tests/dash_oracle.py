"""A brute-force Deck Dash oracle, written independently of ``referee.deckdash``.

It keeps its own copy of the 24 Dashes, tries every split of the laid cards into the
Dash's groups and every value for every Wild, and knows nothing about the fast
solver's tricks (part ordering, greedy last part). Slow on purpose; the tests and
``bench/dash_check.py`` compare the real checker against it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations, combinations_with_replacement

from referee.cards import Card, Color

# kind: "set" (same number), "run" (consecutive), "color" (one colour),
# "crun" (consecutive, one colour), "twin" (same number and same colour).
Part = tuple[str, int]

_EASY: list[list[Part]] = [
    [("set", 2)] * 3,
    [("set", 4)] * 2,
    [("run", 7)],
    [("color", 7)],
    [("set", 3)] * 3,
    [("run", 3), ("set", 3)],
    [("set", 2)] * 4,
    [("run", 8)],
    [("set", 5), ("set", 3)],
    [("color", 8)],
    [("run", 9)],
    [("set", 3)] * 4,
]
_ADVANCED: list[list[Part]] = [
    [("set", 2)] * 5,
    [("crun", 5)],
    [("run", 10)],
    [("color", 8)],
    [("crun", 6)],
    [("run", 5)] * 2,
    [("color", 3)] * 4,
    [("run", 11)],
    [("twin", 2)] * 4,
    [("run", 5), ("color", 5)],
    [("color", 9)],
    [("set", 3)] * 3,
]
ORACLE_DASHES = {"easy": _EASY, "advanced": _ADVANCED}

_NUMBER_RULE = {"set": "same", "twin": "same", "run": "consecutive", "crun": "consecutive"}
_COLOR_RULE = {"color", "crun", "twin"}


def parts_of(level: str, number: int) -> list[Part]:
    return ORACLE_DASHES[level][number - 1]


def _numbers_ok(rule: str | None, numbers: Sequence[int]) -> bool:
    if rule is None:
        return True
    if rule == "same":
        return len(set(numbers)) == 1
    ordered = sorted(numbers)
    return ordered == list(range(ordered[0], ordered[0] + len(ordered)))


def _colors_ok(needed: bool, colors: Sequence[Color]) -> bool:
    return not needed or len(set(colors)) == 1


@lru_cache(maxsize=200_000)
def group_ok(kind: str, tokens: tuple[str, ...]) -> bool:
    """Can these cards (sorted tokens, "W" = Wild) be one group of ``kind``?

    Tries every number 1..12 and every colour for every Wild. A group needs at least one
    numbered card (DASH-2). Colour and number conditions are separate, so the Wild
    colours and Wild numbers are tried separately.
    """
    naturals = [t for t in tokens if t != "W"]
    wilds = len(tokens) - len(naturals)
    if not naturals:
        return False
    colors = [Color(t[0]) for t in naturals]
    numbers = [int(t[1:]) for t in naturals]
    rule = _NUMBER_RULE.get(kind)
    number_fits = any(
        _numbers_ok(rule, numbers + list(extra))
        for extra in combinations_with_replacement(range(1, 13), wilds)
    )
    color_fits = any(
        _colors_ok(kind in _COLOR_RULE, colors + list(extra))
        for extra in combinations_with_replacement(list(Color), wilds)
    )
    return number_fits and color_fits


def faces_ok(kind: str, faces: Sequence[tuple[str | None, int | None]]) -> bool:
    """Do these stated values (colour letter or None, number or None) form the group?"""
    rule = _NUMBER_RULE.get(kind)
    if rule is not None:
        numbers = [n for _, n in faces]
        if None in numbers or not all(1 <= n <= 12 for n in numbers):  # type: ignore[operator]
            return False
        if not _numbers_ok(rule, numbers):  # type: ignore[arg-type]
            return False
    if kind in _COLOR_RULE:
        colors = [c for c, _ in faces]
        if None in colors or len(set(colors)) != 1:
            return False
    return True


def _token(card: Card) -> str:
    return "W" if card.is_wild else str(card)


def _split(tokens: tuple[str, ...], parts: tuple[Part, ...]) -> bool:
    """Try every way to cut ``tokens`` into the ``parts``, one block after another."""
    if not parts:
        return not tokens
    kind, size = parts[0]
    # When only identical parts are left, some block holds the first card: call it ours.
    all_same = all(p == parts[0] for p in parts)
    for block in combinations(range(len(tokens)), size):
        if all_same and block[0] != 0:
            break
        chosen = tuple(sorted(tokens[i] for i in block))
        if not group_ok(kind, chosen):
            continue
        rest = tuple(t for i, t in enumerate(tokens) if i not in block)
        if _split(rest, parts[1:]):
            return True
    return False


@lru_cache(maxsize=50_000)
def _exact(level: str, number: int, tokens: tuple[str, ...]) -> bool:
    parts = tuple(parts_of(level, number))
    if len(tokens) != sum(s for _, s in parts):
        return False
    return _split(tokens, parts)


def oracle_exact(level: str, number: int, cards: Sequence[Card]) -> bool:
    """Do exactly these cards make the Dash (every card in exactly one group)?"""
    if any(c.is_special for c in cards):
        return False
    return _exact(level, number, tuple(sorted(_token(c) for c in cards)))


def oracle_min_wilds(level: str, number: int, hand: Sequence[Card]) -> int | None:
    """The fewest Wilds any lay-down of the Dash from ``hand`` uses, or None."""
    size = sum(s for _, s in parts_of(level, number))
    naturals = sorted(_token(c) for c in hand if c.is_number)
    wilds = sum(1 for c in hand if c.is_wild)
    for w in range(min(wilds, size) + 1):
        if size - w > len(naturals):
            continue
        seen: set[tuple[str, ...]] = set()
        for combo in combinations(naturals, size - w):
            if combo in seen:
                continue
            seen.add(combo)
            if _exact(level, number, tuple(sorted((*combo, *("W",) * w)))):
                return w
    return None
