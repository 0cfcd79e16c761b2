"""What the referee can prove from the deck's composition (HTD-1) and the cards it has seen.

In table mode most cards are unseen, so a camera misread or a mistyped card on the tablet
("red 7" in a deck of 1–5) would otherwise be believed. With ``strict_deck`` on, a card named
face up must be in the game's deck (HTD-1: recorded with it, else ``deck.json``) and may not
appear more often than the deck holds it; and a
hand entered by its points (HTD-24) must be a total its cards could make.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from referee.copies import too_many_copies
from referee.hitthedeck.cards import MAX_NUMBER, MIN_NUMBER, SPECIAL_POINTS, HtdCard
from referee.hitthedeck.state import HtdState


def where(state: HtdState) -> str:
    """Which deck a refusal is checked against, for its message: the game's or deck.json."""
    return f"{state.deck_named}, HTD-1"


def _span(values: Iterable[int]) -> str:
    """``[1, 2, 3, 5]`` → ``"1–3 or 5"``: totals or numbers as people say them."""
    runs: list[tuple[int, int]] = []
    for v in sorted(set(values)):
        if runs and v == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], v)
        else:
            runs.append((v, v))
    words = [f"{a}–{b}" if b > a + 1 else (f"{a}, {b}" if b > a else f"{a}") for a, b in runs]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def missing_from_deck(card: HtdCard, state: HtdState) -> str | None:
    """Why ``card`` cannot be on the table: the game's deck has no such card (None if it
    has)."""
    deck = state.composition
    if deck.get(card):
        return None
    numbers = [c.number for c in deck if c.type is card.type and c.number is not None]
    detail = f"numbers {_span(numbers)}; " if card.number is not None and numbers else ""
    return f"There is no {card.name} in this deck ({detail}{where(state)})."


def placed_copies(state: HtdState, card: HtdCard) -> dict[str, int]:
    """Where the referee places copies of ``card`` right now, place by place."""
    return {
        "on the discard pile": state.discard.count(card),
        "known in hands": sum(hand.known.count(card) for hand in state.hands),
        "known in the draw pile": state.draw.count(card),
    }


def too_many(state: HtdState, cards: Iterable[HtdCard]) -> str | None:
    """Why ``state`` cannot be: it places more copies of a card than the deck holds.

    Only cards the referee currently places count: after a shuffle that named no order the
    reshuffled cards are unseen again, so a card that went round the pile is never refused.
    """
    deck = state.composition
    for card in dict.fromkeys(cards):
        have = deck[card]
        words = f"{have} {card.name} card{'s' * (have != 1)} ({where(state)})"
        problem = too_many_copies(words, have, placed_copies(state, card))
        if problem:
            return problem
    return None


def unseen_pool(state: HtdState) -> Counter[HtdCard]:
    """The deck's cards that the referee places nowhere: what an unseen card may be."""
    placed: Counter[HtdCard] = Counter(c for c in (*state.draw, *state.discard) if c is not None)
    for hand in state.hands:
        placed.update(hand.known)
    return state.composition - placed


def possible_totals(unseen: int, pool: Mapping[HtdCard, int] | None) -> set[int]:
    """Every total that ``unseen`` cards drawn from ``pool`` can make (None: any cards).

    A bounded knapsack over card values, with one bit mask of reachable totals per number of
    cards: values are few (1–9 and 10), so this is quick even for a big hand.
    """
    counts: Counter[int] = Counter()
    if pool is None:
        for value in (*range(MIN_NUMBER, MAX_NUMBER + 1), SPECIAL_POINTS):
            counts[value] = unseen
    else:
        for card, n in pool.items():
            counts[card.points] += n
    reach = [1] + [0] * unseen  # reach[k]: bit t set ⇔ k cards can total t
    for value, n in counts.items():
        for _ in range(min(n, unseen)):
            for k in range(unseen - 1, -1, -1):
                reach[k + 1] |= reach[k] << value
    mask = reach[unseen]
    return {t for t in range(mask.bit_length()) if mask >> t & 1}


def points_problem(state: HtdState, seat: int, points: int) -> str | None:
    """Why ``seat`` cannot have ``points`` left, given the cards the referee knows (HTD-24)."""
    hand = state.hands[seat]
    known = sum(c.points for c in hand.known)
    pool = unseen_pool(state) if state.option("strict_deck") else None
    totals = {known + t for t in possible_totals(hand.unknown, pool)}
    if points in totals:
        return None
    name = state.players[seat]
    holds = ", ".join(f"{c.name} ({c.points})" for c in hand.known)
    more = f"{hand.unknown} card{'s' if hand.unknown != 1 else ''} the referee has not seen"
    what = f"{holds} and {more}" if holds else more
    if not totals:
        return f"{name} holds {what}, but this deck has no cards left for them ({where(state)})."
    return (
        f"{name} can't have {points} points: {name} holds {what}, so the hand is worth "
        f"{_span(totals)} (HTD-24)."
    )


def named_by(kind: str, payload: Mapping[str, object]) -> list[object]:
    """The card tokens an event names face up (malformed values are left to the handler)."""
    if kind in ("turn_up", "play", "draw", "cut", "flip"):
        token = payload.get("card")
        return [] if token is None else [token]
    key = {"shuffle": "draw", "hand": "cards"}.get(kind)
    value = payload.get(key) if key else None
    if not isinstance(value, list):
        return []
    return [t for t in value if t not in (None, "?")]
