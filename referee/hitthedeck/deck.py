"""The deck's composition, read from ``deck.json`` so a family can edit it (ruling HTD-1).

A game keeps the deck it was set up with: its log records the composition (``to_record``,
docs/EVENTS.md), read from the file when the game is set up, so an edit later reaches only the
games set up after it. A game without one (stored before, a hand-written log) plays with the
file as the referee read it.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

from referee.game import GameError
from referee.hitthedeck.cards import CardParseError, HtdCard, format_card, parse_card
from referee.jsonlines import DuplicateKeyError, loads, shown

DECK_FILE = Path(__file__).with_name("deck.json")
# No box holds more: a recorded deck past it is a damaged log, and a deal by count would fill
# the memory with that many unseen cards.
MAX_DECK_CARDS = 1000


def composition_from(data: dict[str, Any]) -> Counter[HtdCard]:
    """How many of each card a deck description holds."""
    counts: Counter[HtdCard] = Counter()
    per = data["per_color"]
    for color in data["colors"]:
        for n in per["numbers"]:
            counts[parse_card(f"{color}{n}")] += int(per["copies_of_each_number"])
        counts[parse_card(f"{color}CUT")] += int(per["CUT"])
        counts[parse_card(f"{color}FLIP")] += int(per["FLIP"])
    for token, count in data.get("extra", {}).items():
        counts[parse_card(token)] += int(count)
    return +counts


@cache
def composition() -> Counter[HtdCard]:
    """The deck file's (110 cards as shipped), read once: one entry per distinct card."""
    return read_composition()


def read_composition() -> Counter[HtdCard]:
    """The deck file as it is now (not the copy read at the first game): what a game set up
    now records. ``GameError`` naming the file when it is broken,
    a key given twice included (JSON would keep the last one: 40 Hand cards, unseen)."""
    path = DECK_FILE
    try:
        counts = composition_from(loads(path.read_text(encoding="utf-8")))
    except OSError as exc:
        raise GameError(f"{path}: cannot read the deck ({exc.strerror or exc})") from None
    except DuplicateKeyError as exc:
        raise GameError(f"{path}: {exc}") from None
    except (ValueError, KeyError, TypeError, AttributeError, CardParseError) as exc:
        raise GameError(f"{path}: not a Hit the Deck deck ({type(exc).__name__}: {exc})") from None
    _check_total(counts, f"{path}: the deck")  # as a recorded one: its games must replay
    return counts


def to_record(counts: Counter[HtdCard]) -> dict[str, int]:
    """The composition as a game's log records it: each card's token and how many."""
    return {format_card(c): n for c, n in sorted(counts.items(), key=lambda i: format_card(i[0]))}


def from_record(data: Any) -> Counter[HtdCard]:
    """A recorded composition (``to_record``'s) read back; ``GameError`` saying what is wrong."""
    example = 'an object of card counts like {"R1": 4, "HAND": 4}'
    if not isinstance(data, dict) or not data:
        raise GameError(f"the game's deck must be {example}")
    counts: Counter[HtdCard] = Counter()
    for token, count in data.items():
        try:
            card = parse_card(token)
        except CardParseError as exc:
            raise GameError(f"the game's deck: {exc}") from None
        if card in counts:
            raise GameError(f"the game's deck names {format_card(card)} twice")
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise GameError(
                f"the game's deck: {format_card(card)} must be a count ≥ 0, got {shown(count)}"
            )
        counts[card] = count
    _check_total(counts, "the game's deck")
    return +counts


def _check_total(counts: Counter[HtdCard], what: str) -> None:
    """``GameError`` unless ``counts`` holds 1 to ``MAX_DECK_CARDS`` cards."""
    total = sum(counts.values())
    if not 0 < total <= MAX_DECK_CARDS:
        raise GameError(f"{what} must hold 1 to {MAX_DECK_CARDS} cards, not {total}")


def full_deck() -> list[HtdCard]:
    """Every card of the deck, sorted (a shuffle is the caller's business)."""
    return sorted(composition().elements(), key=format_card)


def deck_size() -> int:
    return sum(composition().values())
