"""The deck a game is played with, recorded with the game (docs/EVENTS.md: the header's
``deck``).

Wash Dash and Hit the Deck read their decks from files a family may edit (WD-5, HTD-1). A game
keeps the deck it was set up with: the file is read when the game is set up and the deck is
stored with it, so a later edit changes no game already begun, and its log replays the same on
another Pi. A game without one (stored before decks were recorded, a hand-written log) plays
with the file as the referee reads it.

A game with a deck file gives its rules ``deck_record()`` (the deck to record now, as JSON
data) and ``with_deck(data)`` (the rules playing with a recorded deck); other games have none.
"""

from __future__ import annotations

from typing import Any

from referee.game import Game, GameError


def setup_deck(rules: Game[Any]) -> Any | None:
    """The deck a game set up now plays with, as its record holds it; None for a game that
    has no deck file. A broken deck file raises its game's error, naming the file."""
    record = getattr(rules, "deck_record", None)
    return None if record is None else record()


def with_deck(rules: Game[Any], deck: Any | None) -> Game[Any]:
    """``rules`` playing with a game's recorded ``deck``; ``rules`` themselves when there is
    none. ``GameError`` when ``deck`` is not one of this game's."""
    if deck is None:
        return rules
    bind = getattr(rules, "with_deck", None)
    if bind is None:
        raise GameError(f"{rules.title} has no deck file: a recorded 'deck' is not for it")
    return bind(deck)
