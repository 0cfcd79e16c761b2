"""Card identities in each game's own notation.

Vision I's models answer a colour (``red`` … or None) and a symbol value (``7``, ``skip``,
``draw2discard1`` …). The referee engines speak tokens (Deck Dash ``R7``/``W``/``D2D1``, DOS
``RSKIP``/``BD4``, Hit the Deck ``GCUT``/``HAND``). This module is the one place that maps
one to the other, so a zone reading can be handed to an engine unchanged.
"""

from __future__ import annotations

from dataclasses import replace

from vision.decks import DeckProfile

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
    number cannot exist. The caller turns None into a prompt for the tablet. A Deck Dash
    action's token carries no colour, so a family's deck with coloured action cards (VIS-1)
    reads a red Reverse as ``REV``, not as no card.
    """
    letter = color[0].upper() if color else ""
    if value == BACK:
        return BACK
    if game == "deck-dash":
        if value.isdigit():
            return f"{letter}{value}" if letter and 1 <= int(value) <= 12 else None
        return _DD_ACTIONS.get(value)
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


def referee_tokens(game: str) -> frozenset[str] | None:
    """Every token the game's referee deck holds, where the deck is data the referee checks
    plays against (Hit the Deck's ``deck.json``, HTD-1; DOS's default numbers, DOS-2); None
    for a game whose camera profile and referee deck are the same by construction."""
    if game == "hit-the-deck":
        from referee.hitthedeck.cards import format_card as htd_format
        from referee.hitthedeck.deck import composition

        return frozenset(htd_format(card) for card in composition())
    if game == "dos":
        from referee.dos.cards import format_card as dos_format
        from referee.dos.deck import full_deck

        return frozenset(dos_format(card) for card in full_deck())
    return None


def refereed_deck(game: str, profile: DeckProfile) -> DeckProfile:
    """The camera profile narrowed to what the game's referee deck holds (VIS-3).

    The profile is the models' reading vocabulary, and renders the training and evaluation
    tables, so it stays wide (Hit the Deck 1-9); the game is played with the referee's deck
    (1-5). Reading for a game, a 3 must not be answered as an 8 the deck cannot hold: a card
    kind is kept when one of its identities is a token the deck holds, or names none (the
    number on a "with a number" card, a colourless reading: the tablet is asked, TBL-3)."""
    held = referee_tokens(game)
    if held is None:
        return profile
    keep = []
    for spec in profile.cards:
        colors: tuple[str | None, ...] = profile.colors if spec.colored else (None,)
        tokens = [card_token(game, color, spec.value) for color in colors]
        if any(token is None or token in held for token in tokens):
            keep.append(spec)
    return replace(profile, cards=tuple(keep))
