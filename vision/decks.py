"""Deck profiles: what a family's deck looks like, as data (``models/decks/*.json``).

The model reads a *symbol* (a number or an action picture) and a *colour*; a profile says which
(colour, value) pairs exist in one deck, so ``identify --deck NAME`` never answers a card that
the deck does not contain; with no deck named, no card that no known deck contains (VIS-9).
"""

from __future__ import annotations

import difflib
import json
import os
import unicodedata
from dataclasses import dataclass
from pathlib import Path

DECKS_DIR = Path(__file__).resolve().parent.parent / "models" / "decks"

# The shared vocabulary the classifiers are trained on (order = class index).
COLORS: tuple[str, ...] = ("red", "yellow", "green", "blue")
COLOR_CLASSES: tuple[str, ...] = (*COLORS, "none")
NUMBERS: tuple[str, ...] = tuple(str(n) for n in range(1, 13))
ACTIONS: tuple[str, ...] = (
    "wild",
    "reverse",
    "steal",
    "keep2",
    "draw2discard1",
    "draw4discard3",
    "block",
    "skip",
    "skip2",
    "draw2",
    "draw4",
    "cut",
    "flip",
    "hitnumber",
    "hitcolor",
    "hithand",
)
SYMBOLS: tuple[str, ...] = NUMBERS + ACTIONS
# The symbol classifier also answers "a card back" and "not a card" (rejects detector mistakes).
SYMBOL_CLASSES: tuple[str, ...] = (*SYMBOLS, "back", "other")


class DeckError(ValueError):
    """A deck profile is missing or malformed."""


@dataclass(frozen=True)
class CardSpec:
    """One kind of card in a deck: a value, whether it comes in each colour, how many copies."""

    value: str
    colored: bool
    copies: int = 1
    label: str = ""
    token: str = ""


@dataclass(frozen=True)
class DeckProfile:
    name: str
    title: str
    colors: tuple[str, ...]
    cards: tuple[CardSpec, ...]
    aspect: float = 0.64
    back_text: str = ""

    def identities(self) -> list[tuple[str | None, str]]:
        """Every distinct (colour, value) in the deck; colour None for colourless cards."""
        out: list[tuple[str | None, str]] = []
        for spec in self.cards:
            if spec.colored:
                out.extend((c, spec.value) for c in self.colors)
            else:
                out.append((None, spec.value))
        return out

    def allows(self, color: str | None, value: str) -> bool:
        return (color, value) in set(self.identities())

    def spec(self, value: str) -> CardSpec:
        for s in self.cards:
            if s.value == value:
                return s
        raise DeckError(f"deck {self.name!r} has no {value!r} card")

    def token(self, color: str | None, value: str) -> str:
        """The game's own notation for a card (e.g. Deck Dash ``R7``), or '' if none is defined."""
        spec = self.spec(value)
        letter = (color or "")[:1].upper()
        return spec.token.replace("{C}", letter)

    def full_deck(self) -> list[tuple[str | None, str]]:
        """Every physical card (copies included), in profile order."""
        out: list[tuple[str | None, str]] = []
        for spec in self.cards:
            colors: tuple[str | None, ...] = self.colors if spec.colored else (None,)
            for c in colors:
                out.extend([(c, spec.value)] * spec.copies)
        return out


def _flag(raw: object, what: str) -> bool:
    """A JSON true/false: ``"false"`` is a string, and ``bool("false")`` is True."""
    if not isinstance(raw, bool):
        raise DeckError(f"{what} is true or false, not {raw!r:.40}")
    return raw


# The most copies of one card a profile may say: real decks hold a handful (the shipped ones
# at most 8); ``full_deck`` lists every copy, and a trillion of them ended render in a
# MemoryError.
MAX_COPIES = 1000


def _copies(raw: object, what: str) -> int:
    """A whole number of copies, from 1 to ``MAX_COPIES``: ``int()`` would take 2.7 as 2 and
    fail on ``"two"`` or ``Infinity`` with a bare ValueError."""
    if isinstance(raw, bool) or not isinstance(raw, int) or not 1 <= raw <= MAX_COPIES:
        raise DeckError(f"{what} is a whole number from 1 to {MAX_COPIES}, not {raw!r:.40}")
    return raw


# a card's width over its height: playing cards are 0.64-0.72 (1.4-1.6 on their side); a
# value outside this is a size in mm or a slip, and would get every photo refused as not
# card-shaped, blaming the photos
ASPECT_RANGE = (0.2, 5.0)


def _aspect(raw: object, where: str) -> float:
    """A card's width over its height, within ``ASPECT_RANGE``."""
    low, high = ASPECT_RANGE
    if isinstance(raw, bool) or not isinstance(raw, int | float) or not low <= raw <= high:
        raise DeckError(
            f"{where}: 'aspect' is a positive number from {low:g} to {high:g}, the card's width"
            f" over its height (0.64 for most cards), not {raw!r:.40}"
        )
    return float(raw)


def _text(raw: object, what: str) -> str:
    """A JSON string: ``str(None)`` would make the guide ask for "the red None"."""
    if not isinstance(raw, str):
        raise DeckError(f"{what} is text in quotes, not {json.dumps(raw)[:40]}")
    return raw


# Every field a profile and each of its cards may hold: a misspelt one ("aspcet") was ignored,
# its default used, and teach then blamed the photos (VIS-13).
PROFILE_FIELDS: tuple[str, ...] = (
    "name",
    "title",
    "colors",
    "cards",
    "aspect",
    "back_text",
    "notes",
)
CARD_FIELDS: tuple[str, ...] = ("value", "colored", "copies", "label", "token")
_EXAMPLE_CARD = '{"value": "7", "colored": true}'


def _json_kind(raw: object) -> str:
    """What a JSON value is, in JSON's words (Python's would say ``str`` or ``dict``)."""
    if isinstance(raw, bool):
        return "true or false"
    if raw is None:
        return "null"
    kinds = ((str, "text"), (int | float, "a number"), (list, "a list"), (dict, "an object"))
    return next(kind for type_, kind in kinds if isinstance(raw, type_))


def _known_fields(raw: dict, known: tuple[str, ...], what: str) -> None:
    """Refuse a field outside ``known``, with the likeliest one meant when it is close."""
    for key in raw:
        if key in known:
            continue
        close = difflib.get_close_matches(str(key), known, n=1)
        hint = f"did you mean {close[0]!r}?" if close else f"the fields are {', '.join(known)}"
        raise DeckError(f"{what}: unknown field {key!r} ({hint})")


def _required(raw: dict, key: str, what: str) -> object:
    """``raw[key]``, or a line naming what lacks it (not Python's bare ``KeyError``)."""
    if key not in raw:
        raise DeckError(f"{what}: {key!r} is missing")
    return raw[key]


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th … 11th, 12th, 21st: a card's place in 'cards' ("card 4" would read
    as the card whose value is 4)."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _card_where(c: dict, n: int, where: str) -> str:
    """A card as an error names it: by its value where it has one, else by its place."""
    value = c.get("value")
    if isinstance(value, str | int) and not isinstance(value, bool):
        return f"{where}: card {str(value)!r}"
    return f"{where}: the {_ordinal(n)} card"


def _card(c: object, n: int, where: str) -> CardSpec:
    """The ``n``-th card (from 1) of the profile at ``where``."""
    if not isinstance(c, dict):
        raise DeckError(
            f"{where}: malformed deck profile: the {_ordinal(n)} card is an object such as"
            f" {_EXAMPLE_CARD}, not {_json_kind(c)}"
        )
    card_where = _card_where(c, n, where)
    _known_fields(c, CARD_FIELDS, card_where)
    value = str(_required(c, "value", card_where))
    if value not in SYMBOLS:
        raise DeckError(f"{where}: value {value!r} is not a known symbol")
    what = f"{where}: card {value!r}:"
    return CardSpec(
        value=value,
        colored=_flag(_required(c, "colored", card_where), f"{what} 'colored'"),
        copies=_copies(c.get("copies", 1), f"{what} 'copies'"),
        label=_text(c.get("label", ""), f"{what} 'label'"),
        token=_text(c.get("token", ""), f"{what} 'token'"),
    )


def _cards(data: dict, where: str) -> tuple[CardSpec, ...]:
    """The profile's cards: a list of objects, each named in an error by value or place."""
    raw = _required(data, "cards", f"{where}: malformed deck profile")
    if not isinstance(raw, list):
        raise DeckError(
            f"{where}: malformed deck profile: 'cards' is a list of cards such as"
            f" [{_EXAMPLE_CARD}], not {_json_kind(raw)}"
        )
    return tuple(_card(c, n, where) for n, c in enumerate(raw, start=1))


def _parse(data: object, where: str) -> DeckProfile:
    if not isinstance(data, dict):
        raise DeckError(
            f'{where}: malformed deck profile: the profile is one object {{"name": …,'
            f' "colors": […], "cards": […]}}, not {_json_kind(data)}'
        )
    _known_fields(data, PROFILE_FIELDS, where)
    try:
        raw_colors = _required(data, "colors", f"{where}: malformed deck profile")
        if not isinstance(raw_colors, list):  # a mapping's keys would pass for colours
            raise DeckError(f"{where}: 'colors' is a list of colours")
        colors = tuple(raw_colors)
        for c in colors:
            if c not in COLORS:
                raise DeckError(f"{where}: colour {c!r} is not one of {', '.join(COLORS)}")
        cards = _cards(data, where)
        _once(where, "colour", colors)
        _once(where, "card", [c.value for c in cards])
        if not any(colors or not c.colored for c in cards):  # a deck of no card at all
            raise DeckError(
                f"{where}: no card: 'cards' is empty"
                if not cards
                else f"{where}: no card: every card is coloured and 'colors' is empty"
            )
        name = _text(
            _required(data, "name", f"{where}: malformed deck profile"), f"{where}: 'name'"
        )
        return DeckProfile(
            name=name,
            title=_text(data.get("title", name), f"{where}: 'title'"),
            colors=colors,
            cards=cards,
            aspect=_aspect(data.get("aspect", 0.64), where),
            back_text=_text(data.get("back_text", ""), f"{where}: 'back_text'"),
        )
    except (KeyError, TypeError, AttributeError) as exc:  # a shape not checked for above
        raise DeckError(f"{where}: malformed deck profile ({exc})") from exc


def _once(where: str, what: str, items: list | tuple) -> None:
    """Each colour and each card value listed once: a second listing (``red`` twice, a value
    both coloured and colourless) would be read as a deck with two kinds of the same card,
    and the first one's copies and token silently win (``spec``)."""
    seen: set[str] = set()
    for item in items:
        if item in seen:
            raise DeckError(f"{where}: {what} {item!r} is listed twice: list it once")
        seen.add(item)


def profile_path(name_or_path: str | Path) -> Path:
    """Where a profile named ``name_or_path`` lies: a ``Path``, a name ending in ``.json`` or
    holding a folder separator is a file's path; any other is a name in ``DECKS_DIR``, dots
    and all (``grandma.v2`` is ``models/decks/grandma.v2.json``, not a file ``grandma.v2``)."""
    if isinstance(name_or_path, Path):
        return name_or_path
    separators = [s for s in ("/", os.sep, os.altsep) if s]
    if name_or_path.lower().endswith(".json") or any(s in name_or_path for s in separators):
        return Path(name_or_path)
    path = DECKS_DIR / f"{name_or_path}.json"
    if path.exists():
        return path
    # "omä" typed (NFC) finds "omä.json" saved on a Mac (NFD): the same name to the family
    wanted = nfc(path.name)
    same = [p for p in _profile_files() if nfc(p.name) == wanted]
    return same[0] if same else path


def nfc(text: str) -> str:
    """``text`` in Unicode's composed form: "ä" typed is one character, a file name saved on a
    Mac two ("a" and the dots); they are the same name to the family."""
    return unicodedata.normalize("NFC", text)


def _profile_files() -> list[Path]:
    """The profile files in ``DECKS_DIR``; a folder named ``x.json`` is none."""
    return sorted(p for p in DECKS_DIR.glob("*.json") if p.is_file())


def load_deck(name_or_path: str | Path) -> DeckProfile:
    """Load a profile by name (``deck-dash``) or by path to a JSON file (``profile_path``)."""
    path = profile_path(name_or_path)
    if path.is_dir():  # not "no deck profile 'grandma' (known: …, grandma, …)"
        raise DeckError(f"{path} is a folder, not a deck profile")
    if not path.is_file():
        known = ", ".join(deck_names()) or f"none in {DECKS_DIR}: run from the checkout (README)"
        raise DeckError(f"no deck profile {str(name_or_path)!r} (known: {known})")
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))  # with or without a BOM
    except UnicodeDecodeError:  # UTF-16 from an editor, or no text at all
        raise DeckError(f"{path}: not a text file (a deck profile is UTF-8 JSON)") from None
    except OSError as exc:
        raise DeckError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise DeckError(f"{path}: not valid JSON ({exc})") from exc
    except ValueError:  # valid JSON Python refuses: an integer of thousands of digits
        raise DeckError(f"{path}: a number thousands of digits long: no deck profile") from None
    except RecursionError:  # valid JSON nested thousands deep: no deck profile
        raise DeckError(f"{path}: nested too deeply to be a deck profile") from None
    return _parse(data, str(path))


def deck_names() -> list[str]:
    """The names of the profiles in ``DECKS_DIR`` (composed Unicode, as a name is typed)."""
    return sorted(nfc(p.stem) for p in _profile_files())


def all_decks() -> list[DeckProfile]:
    return [load_deck(n) for n in deck_names()]


def require_profiles() -> None:
    """Refuse when ``DECKS_DIR`` holds no profile (an installed wheel carries no ``models/``):
    "a card of a known deck" would then be no card at all, and every reading dropped (VIS-9)."""
    if not deck_names():
        raise DeckError(f"no deck profiles in {DECKS_DIR}: run from the checkout (README)")


def known_identities(decks: list[DeckProfile] | None = None) -> list[tuple[str | None, str]]:
    """Every (colour, value) that some deck contains (``decks``: every profile in
    ``models/decks/``, a family's own included), in profile order, each once. Why: with no deck
    named, a reading such as a red Block (a card no deck has) is surely wrong (VIS-9)."""
    if decks is None:
        require_profiles()
        decks = all_decks()
    seen: dict[tuple[str | None, str], None] = {}
    for deck in decks:
        seen.update(dict.fromkeys(deck.identities()))
    return list(seen)
