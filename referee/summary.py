"""Wording shared by the games' "On the table" summaries (``<game>/summary.py``).

Each game words its own lines; these few helpers keep the lists, counts and winners the
same in every game, so a family reading one game's summary can read them all.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.words import and_list

__all__ = ["SEP", "and_list", "cards", "per_player", "pile", "winners_text"]

SEP = " · "  # between the entries of one line, as the console's other read-outs do


def per_player(players: Sequence[str], values: Sequence[object], seats: Sequence[int]) -> str:
    """ "Ann 0 · Bea 4 · Cal 4" for the given seats, in seat order."""
    return SEP.join(f"{players[s]} {values[s]}" for s in seats)


def cards(count: int) -> str:
    """ "no cards", "1 card", "96 cards"."""
    if count == 0:
        return "no cards"
    return f"{count} card{'' if count == 1 else 's'}"


def pile(count: int) -> str:
    """A pile's size: "empty", "1 card", "40 cards"."""
    return cards(count) if count else "empty"


def winners_text(players: Sequence[str], winners: Sequence[int]) -> str:
    """ "Ann wins", "Ann and Bea share the win"; the verdicts' own wording."""
    names = and_list([players[s] for s in winners])
    if not winners:
        return "nobody wins"
    return f"{names} wins" if len(winners) == 1 else f"{names} share the win"
