"""How the referee lists things in its messages, in one place: every game says "Ann, Bea and
Cal" the same way."""

from __future__ import annotations

from collections.abc import Sequence


def and_list(items: Sequence[str]) -> str:
    """ "", "Ann", "Ann and Bea", "Ann, Bea and Cal"."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def points(n: int) -> str:
    """ "1 point", "3 points", "-1 point": a score's words as a family says them."""
    return f"{n} point{'' if abs(n) == 1 else 's'}"
