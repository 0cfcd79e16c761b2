"""The deck's composition, read from ``deck.json`` so a family can edit it (ruling HTD-1)."""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

from referee.hitthedeck.cards import HtdCard, format_card, parse_card

DECK_FILE = Path(__file__).with_name("deck.json")


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
    """The standard deck (110 cards), one entry per distinct card."""
    return composition_from(json.loads(DECK_FILE.read_text(encoding="utf-8")))


def full_deck() -> list[HtdCard]:
    """Every card of the deck, sorted (a shuffle is the caller's business)."""
    return sorted(composition().elements(), key=format_card)


def deck_size() -> int:
    return sum(composition().values())
