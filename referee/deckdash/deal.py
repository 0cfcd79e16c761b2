"""Reading the card-carrying events: the deal and the reshuffle.

Dealing and shuffling are done by people; the events carry what resulted. A scripted
deal names every card (and must account for the whole 128-card deck, DD-16); a table
deal gives counts, and only the start card of the discard pile is named.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from referee.cards import Card, CardParseError, format_cards, full_deck, parse_card
from referee.events import Event, EventError

DECK_SIZE = len(full_deck())  # 128: the rules' deck list

HAND_SIZE = 12


def card_field(event: Event, key: str) -> Card:
    return read_card(event.require(key), f"{event.kind}.{key}")


def read_card(token: Any, where: str) -> Card:
    try:
        return parse_card(token)
    except CardParseError as exc:
        raise EventError(f"{where}: {exc}") from None


def read_cards(tokens: Any, where: str) -> list[Card]:
    if not isinstance(tokens, list):
        raise EventError(f"{where} must be a list of cards")
    return [read_card(t, where) for t in tokens]


def optional_card(event: Event, key: str) -> Card | None:
    value = event.get(key)
    return None if value is None else read_card(value, f"{event.kind}.{key}")


def read_hands(event: Event, n: int, active: Sequence[int]) -> list[list[Card] | int]:
    """Per seat: a list of cards (scripted) or a count (table mode).

    Without ``hands`` every seat in the round gets 12 and the rest none: in a tie-break
    only the tied players are dealt in (DD-12), and the default must be a legal deal.
    """
    hands = event.get("hands")
    if hands is None:
        return [HAND_SIZE if seat in active else 0 for seat in range(n)]
    if not isinstance(hands, list) or len(hands) != n:
        raise EventError(f"deal.hands must list one hand per player ({n})")
    out: list[list[Card] | int] = []
    for i, hand in enumerate(hands):
        if isinstance(hand, int) and not isinstance(hand, bool):
            if not 0 <= hand <= DECK_SIZE:
                raise EventError(f"deal.hands[{i}]: a count of 0 to {DECK_SIZE} cards")
            out.append(hand)
        else:
            out.append(read_cards(hand, f"deal.hands[{i}]"))
    return out


def missing_or_extra(cards: Sequence[Card]) -> str | None:
    """A sentence when ``cards`` is not exactly the 128-card deck; None when it is."""
    # Compare tokens: strings hash much faster than Card dataclasses.
    have, want = Counter(format_cards(cards)), Counter(format_cards(full_deck()))
    extra = have - want
    missing = want - have
    if not extra and not missing:
        return None
    parts = []
    if extra:
        parts.append("too many " + ", ".join(f"{c}×{k}" for c, k in sorted_items(extra)))
    if missing:
        parts.append("missing " + ", ".join(f"{c}×{k}" for c, k in sorted_items(missing)))
    return "; ".join(parts)


def sorted_items(counter: Counter[str]) -> list[tuple[str, int]]:
    return sorted(counter.items())
