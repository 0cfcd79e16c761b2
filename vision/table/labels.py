"""Card identities in each game's own notation.

Vision I's models answer a colour (``red`` … or None) and a symbol value (``7``, ``skip``,
``draw2discard1`` …). The referee engines speak tokens (Deck Dash ``R7``/``W``/``D2D1``, DOS
``RSKIP``/``BD4``, Hit the Deck ``GCUT``/``HAND``). This module is the one place that maps
one to the other, so a zone reading can be handed to an engine unchanged.
"""

from __future__ import annotations

GAMES = ("deck-dash", "dos", "hit-the-deck", "wash-dash")

_DD_ACTIONS = {
    "wild": "W",
    "reverse": "REV",
    "steal": "STEAL",
    "keep2": "KEEP2",
    "draw2discard1": "D2D1",
    "draw4discard3": "D4D3",
    "block": "BLOCK",
    "skip": "SKIP",
    "skip2": "SKIP2",
}
_DOS_ACTIONS = {"skip": "SKIP", "reverse": "REV", "draw2": "D2", "draw4": "D4"}
_HTD_ACTIONS = {"cut": "CUT", "flip": "FLIP"}
BACK = "back"


def card_token(game: str, color: str | None, value: str) -> str | None:
    """The game's token for a card, or None when the picture does not name one.

    None is an answer, not an error: a Hit the Deck "with a number" card names its number
    in small print the classifier does not read (ruling TBL-3), and a colourless Deck Dash
    number cannot exist. The caller turns None into a prompt for the tablet.
    """
    letter = color[0].upper() if color else ""
    if value == BACK:
        return BACK
    if game == "deck-dash":
        if value.isdigit():
            return f"{letter}{value}" if letter and 1 <= int(value) <= 12 else None
        return _DD_ACTIONS.get(value) if not letter else None
    if game == "dos":
        if not letter:
            return None
        if value.isdigit():
            return f"{letter}{value}" if 0 <= int(value) <= 10 else None
        return f"{letter}{_DOS_ACTIONS[value]}" if value in _DOS_ACTIONS else None
    if game == "hit-the-deck":
        if value.isdigit():
            return f"{letter}{value}" if letter and 1 <= int(value) <= 9 else None
        if value in _HTD_ACTIONS:
            return f"{letter}{_HTD_ACTIONS[value]}" if letter else None
        if value == "hithand":
            return "HAND"
        if value == "hitcolor":
            return f"HIT{letter}" if letter else None
        return None  # hitnumber: the number it carries is not read (TBL-3)
    raise ValueError(f"no card notation for game {game!r}; games: {', '.join(GAMES[:3])}")
