"""The guide: which card to put down next, and how a photo of it is named.

One capture pass shows each *kind* of card once (every colour × value the deck profile
holds), in the profile's order, so a picture's label is known from its place in the
sequence: no labelling by hand. Photos taken with a phone are named by the guide
(``003_red_7.jpg``) and a folder of them is read back the same way; ``000_empty.jpg`` is
the capture zone with nothing in it, which is how the card is found in each photo.
"""

from __future__ import annotations

import re
from pathlib import Path

from vision.decks import DeckProfile

EMPTY = "000_empty"
_NAME = re.compile(r"(?P<i>\d{3})_(?P<color>[a-z]+)_(?P<value>[a-z0-9]+)")

Identity = tuple[str | None, str]


def guide_order(deck: DeckProfile) -> list[Identity]:
    """Every distinct card of the deck, in the order the family puts them down."""
    seen: list[Identity] = []
    for ident in deck.identities():
        if ident not in seen:
            seen.append(ident)
    return seen


def photo_name(i: int, ident: Identity) -> str:
    color, value = ident
    return f"{i + 1:03d}_{color or 'none'}_{value}"


def say(ident: Identity, deck: DeckProfile) -> str:
    """What the guide asks for, in words: "the red 7", "a WILD"."""
    color, value = ident
    label = deck.spec(value).label or value
    return f"the {color} {label}" if color else f"a {label}"


class TeachError(ValueError):
    """A teach input or output that cannot be used as it is; the message says what to change."""


def check_profile_name(deck: DeckProfile, given: str) -> None:
    """The profile's ``name`` is its file's name (``family`` in ``family.json``): teach files the
    taught model under it (``runs/taught/NAME``), and ``--deck NAME`` finds the profile by its
    file. A profile copied as a template with the old name left in it would replace another
    deck's taught model; a name holding a path would put it outside ``runs/taught``. Names
    are compared composed (``nfc``): "omä" typed is the name of "omä.json" saved on a Mac."""
    from vision.decks import nfc, profile_path

    path = profile_path(given)  # the file ``load_deck`` read
    if deck.name in (".", "..") or any(c in deck.name for c in "/\\"):
        raise TeachError(f'{path}: its "name" {deck.name!r} is a path: give a plain name')
    if nfc(deck.name) != nfc(path.stem):
        raise TeachError(
            f'{path}: its "name" is {deck.name!r}: make it {path.stem!r}, the file\'s name'
            " (teach keeps the taught model under it)"
        )


def read_folder(folder: Path, deck: DeckProfile) -> tuple[Path, list[tuple[Path, Identity]]]:
    """The empty-zone photo and (photo, identity) pairs from a folder named by the guide.

    Names are read whatever their case (a phone or a file manager may write ``001_RED_1.JPG``).
    A folder with no photo named by the guide is an error, not a fine-tune on no photos."""
    folder = Path(folder)
    if not folder.is_dir():  # not iterdir()'s "[Errno 2] No such file or directory: '…'"
        raise FileNotFoundError(f"{folder}: no such folder of photos")
    files = sorted(p for p in folder.iterdir() if not p.name.startswith("."))
    empties = [p for p in files if p.stem.lower() == EMPTY]
    if not empties:
        raise FileNotFoundError(f"{folder}: no {EMPTY}.jpg (the capture zone with no card)")
    if len(empties) > 1:
        names = ", ".join(p.name for p in empties)
        raise TeachError(f"{folder}: more than one empty-zone photo ({names}): keep one")
    wanted = set(guide_order(deck))
    pairs = []
    for p in files:
        m = _NAME.fullmatch(p.stem.lower())
        if not m or p.stem.lower() == EMPTY:
            continue
        color = None if m["color"] == "none" else m["color"]
        ident = (color, m["value"])
        if ident not in wanted:
            raise ValueError(f"{p.name}: deck {deck.name!r} has no {m['color']} {m['value']}")
        pairs.append((p, ident))
    if not pairs:
        raise TeachError(
            f"{folder}: no photo named by the guide (such as {photo_name(0, guide_order(deck)[0])}"
            f".jpg; tabletop vision teach --deck {deck.name} --guide lists them)"
        )
    return empties[0], pairs
