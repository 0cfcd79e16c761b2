"""Find a game's rules by name. Imports are lazy so that the CLI starts fast."""

from __future__ import annotations

import importlib
from typing import Any

from referee.game import Game

_GAMES = {
    "deck-dash": "referee.deckdash.game",
    "dos": "referee.dos.game",
    "hit-the-deck": "referee.hitthedeck.game",
    "wash-dash": "referee.washdash.game",
}


class UnknownGameError(LookupError):
    def __init__(self, name: str) -> None:
        super().__init__(f"unknown game {name!r}; known games: {', '.join(game_names())}")


def register_game(name: str, module: str) -> None:
    """Add a game whose rules live in ``module`` (which defines ``GAME``): house variants, tests."""
    _GAMES[name] = module


def game_names() -> list[str]:
    return sorted(_GAMES)


def find_game(name: str) -> Game[Any]:
    """The game registered as ``name`` (its module's ``GAME`` object)."""
    key = str(name).strip().lower().replace("_", "-").replace(" ", "-")
    if key not in _GAMES:
        raise UnknownGameError(name)
    return importlib.import_module(_GAMES[key]).GAME
