"""Where the referee knows a card's copies to be, said once for every game.

Table mode trusts a card it cannot rule out, but a copy beyond the deck's count can be ruled
out (DOS-20, DD-16, HTD-1): each engine counts the copies it can place, place by place, and
words its refusal with this summary."""

from __future__ import annotations

from collections.abc import Mapping


def known_places(counts: Mapping[str, int]) -> tuple[int, str]:
    """The copies placed and where, places with none left out: ``{"on the table": 6}`` →
    ``(6, "6 on the table")``."""
    where = {place: n for place, n in counts.items() if n}
    return sum(where.values()), ", ".join(f"{n} {place}" for place, n in where.items())
