"""Where the referee knows a card's copies to be, said once for every game.

Table mode trusts a card it cannot rule out, but a copy beyond the deck's count can be ruled
out (DOS-20, DD-16, HTD-1): each engine counts the copies it can place, place by place, and
every game words the refusal the same way (``too_many_copies``)."""

from __future__ import annotations

from collections.abc import Mapping


def known_places(counts: Mapping[str, int]) -> tuple[int, str]:
    """The copies placed and where, places with none left out: ``{"on the table": 6}`` →
    ``(6, "6 on the table")``."""
    where = {place: n for place, n in counts.items() if n}
    return sum(where.values()), ", ".join(f"{n} {place}" for place, n in where.items())


def too_many_copies(deck_has: str, have: int, counts: Mapping[str, int]) -> str | None:
    """The refusal when the places in ``counts`` (the card just named among them) hold more
    copies than the deck's ``have``, else None. ``deck_has``: the deck's copies in words, as
    "6 red 7 cards" or "8 Wilds"."""
    seen, places = known_places(counts)
    if seen <= have:
        return None
    return (
        f"The deck has only {deck_has}, but this makes {seen} that the referee knows of "
        f"({places}): check the card."
    )
