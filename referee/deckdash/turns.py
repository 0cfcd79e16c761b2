"""Turn order: direction, lost turns (Skip You, Skip 2 Players, start cards) and blocks.

Lost turns are counted per seat (``Round.skips``); when play reaches a seat with a lost
turn, the turn is used up and play moves on. A Block You is not a lost turn: the blocked
player gets a turn whose only action is to return the card (``Phase.BLOCKED``).
"""

from __future__ import annotations

from referee.deckdash.state import Phase, Round
from referee.frozen import evolve
from referee.verdicts import Verdict, info


def step(rnd: Round, seat: int, direction: int | None = None) -> int:
    """The next active seat from ``seat`` in ``direction`` (default: the round's)."""
    d = rnd.direction if direction is None else direction
    n = len(rnd.hands)
    s = seat
    for _ in range(n):
        s = (s + d) % n
        if s in rnd.active:
            return s
    return seat


def others_in_order(rnd: Round, seat: int) -> list[int]:
    """The other active players, in playing order after ``seat``."""
    out, s = [], seat
    for _ in range(len(rnd.active) - 1):
        s = step(rnd, s)
        out.append(s)
    return out


def begin_turn(rnd: Round, seat: int, names: tuple[str, ...]) -> tuple[Round, list[Verdict]]:
    """Give the turn to ``seat``, using up lost turns on the way."""
    verdicts: list[Verdict] = []
    skips = list(rnd.skips)
    while skips[seat] > 0:
        skips[seat] -= 1
        verdicts.append(info(f"{names[seat]} loses this turn.", seat, skipped=True))
        seat = step(rnd, seat)
    blocked = seat in rnd.blocks
    rnd = evolve(
        rnd,
        skips=tuple(skips),
        turn=seat,
        phase=Phase.BLOCKED if blocked else Phase.DRAW,
        owed=0,
        action=None,
        turns=rnd.turns + 1,
    )
    if blocked:
        verdicts.append(
            info(
                f"{names[seat]} is blocked: put the Block You card on the discard pile.",
                seat,
                turn=seat,
            )
        )
    else:
        verdicts.append(info(f"{names[seat]}'s turn: draw a card.", seat, turn=seat))
    return rnd, verdicts


def end_turn(rnd: Round, names: tuple[str, ...]) -> tuple[Round, list[Verdict]]:
    """The current player's turn is over; the next player in the direction of play goes."""
    return begin_turn(rnd, step(rnd, rnd.turn), names)
