"""The deck file (``deck.json``, editable): 48 task cards and 6 event cards, with points.

Card ids are what events name (``"T07"``, ``"opposite-1"``). The rules give no point
values and no card list; ours are ruling WD-5 and the file says how they were set.
Every task is checked on load: it must be possible to hang it on one dryer both as
printed and under Opposite, so no event can make a card impossible.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from referee.jsonlines import DuplicateKeyError, clipped, json_problem, loads
from referee.summary import cards as cards_text
from referee.washdash.checker import example_dryer
from referee.washdash.pieces import EventCard, PartError, parse_event_card
from referee.washdash.tasks import Task, TaskError

DECK_FILE = Path(__file__).with_name("deck.json")
# The fewest cards a game can be played with: the 20 put back in the box for 2–4 players and a
# round's cards after them (3 at 4 players, the most of any table that boxes 20; 5 and 6
# players box none and reveal 4 or 5). state.py's BOXED_FOR and CARDS_PER_ROUND say the same.
MIN_CARDS = 23
# No box holds more: a recorded deck past it is a damaged log (100 000 cards took 5 s to read).
MAX_CARDS = 1000


class DeckError(ValueError):
    """The deck file is wrong; the message names the card."""


@dataclass(frozen=True)
class WashCard:
    id: str
    points: int
    task: Task | None = None
    event: EventCard | None = None

    @property
    def is_task(self) -> bool:
        return self.task is not None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "points": self.points}
        if self.task is not None:
            out["task"] = self.task.to_text()
            out["says"] = self.task.describe()
        if self.event is not None:
            out["event"] = self.event.value
        return out


@dataclass(frozen=True)
class Deck:
    cards: Mapping[str, WashCard]
    order: tuple[str, ...]  # file order: tasks, then events

    def __contains__(self, card_id: object) -> bool:
        return card_id in self.cards

    def __getitem__(self, card_id: str) -> WashCard:
        return self.cards[card_id]

    def __len__(self) -> int:
        return len(self.order)

    @property
    def task_ids(self) -> tuple[str, ...]:
        return tuple(c for c in self.order if self.cards[c].is_task)

    @property
    def event_ids(self) -> tuple[str, ...]:
        return tuple(c for c in self.order if not self.cards[c].is_task)

    def to_data(self) -> dict[str, list[dict[str, Any]]]:
        """The deck as its file lists it (``parse_deck`` reads it back), comments left out:
        what a game's log records of the deck it is played with (docs/EVENTS.md)."""
        tasks, events = [], []
        for card_id in self.order:
            card = self.cards[card_id]
            if card.task is not None:
                tasks.append({"id": card.id, "points": card.points, "task": card.task.to_text()})
            elif card.event is not None:
                events.append({"id": card.id, "points": card.points, "event": card.event.value})
        return {"tasks": tasks, "events": events}


_TOP_FIELDS = ("tasks", "events")
_CARD_FIELDS = {"tasks": ("id", "points", "task"), "events": ("id", "points", "event")}
_EXAMPLE = {
    "tasks": '{"id": "T01", "points": 1, "task": "pants:red"}',
    "events": '{"id": "opposite-1", "points": 0, "event": "opposite"}',
}


def _points(entry: Mapping[str, Any], card_id: str) -> int:
    points = entry.get("points")
    if not isinstance(points, int) or isinstance(points, bool) or points < 0:
        raise DeckError(f"card {clipped(card_id)}: points must be a whole number ≥ 0")
    return points


def _unknown(fields: Iterable[Any], known: Sequence[str], where: str) -> None:
    """A misspelt field ("event" for "events") would drop what it holds without a word;
    a field starting with "_" is a comment (the file's "_about")."""
    for name in fields:
        if not (isinstance(name, str) and name.startswith("_")) and name not in known:
            raise DeckError(f"{where}: unknown field {str(name)[:40]!r}; use {', '.join(known)}")


def _entries(data: Mapping[str, Any], section: str) -> list[Mapping[str, Any]]:
    """The cards of ``section``, each checked to be an object with an id and known fields."""
    entries = data.get(section, [])
    if not isinstance(entries, list):
        raise DeckError(
            f'"{section}" must be a list of cards, each an object like {_EXAMPLE[section]}'
        )
    for n, entry in enumerate(entries, 1):
        where = f"{section} entry {n}"
        if not isinstance(entry, Mapping):
            raise DeckError(f"{where} ({_short(entry)}) must be an object like {_EXAMPLE[section]}")
        card_id = entry.get("id")
        if not isinstance(card_id, str) or not card_id.strip():
            raise DeckError(f'{where}: every card needs an "id", a name such as "T07"')
        _unknown(entry, _CARD_FIELDS[section], f"card {clipped(card_id.strip())}")
    return entries


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 40 else text[:39] + "…"


def parse_deck(data: Any) -> Deck:
    """The deck file's data; a ``DeckError`` names the card or entry that is wrong."""
    if not isinstance(data, Mapping):
        raise DeckError('a deck file is an object with "tasks" and "events"')
    _unknown(data, _TOP_FIELDS, "the deck")
    cards: dict[str, WashCard] = {}
    order: list[str] = []

    def add(card: WashCard) -> None:
        if card.id in cards:
            raise DeckError(f"card id {clipped(card.id)} appears twice")
        cards[card.id] = card
        order.append(card.id)

    for entry in _entries(data, "tasks"):
        card_id = entry["id"].strip()
        try:
            task = Task.from_data(entry.get("task"))
            example_dryer(task)
            example_dryer(task, [EventCard.OPPOSITE])
        except TaskError as exc:
            raise DeckError(f"card {clipped(card_id)}: {exc}") from None
        add(WashCard(card_id, _points(entry, card_id), task=task))
    for entry in _entries(data, "events"):
        card_id = entry["id"].strip()
        try:
            event = parse_event_card(entry.get("event", ""))
        except PartError as exc:
            raise DeckError(f"card {clipped(card_id)}: {exc}") from None
        add(WashCard(card_id, _points(entry, card_id), event=event))
    if not any(c.is_task for c in cards.values()):
        raise DeckError("the deck has no task cards")
    return Deck(cards, tuple(order))


def game_deck(data: Any) -> Deck:
    """``parse_deck`` for a deck a game is played with (the deck file, a game's recorded
    deck): one too small to set up every table and deal a round (``MIN_CARDS``), or larger
    than any box (``MAX_CARDS``, counted before a card is read), is a ``DeckError`` too."""
    refuse_oversized(data)
    deck = parse_deck(data)
    if len(deck) < MIN_CARDS:
        raise DeckError(
            f"the deck has {cards_text(len(deck))}; a game needs at least {MIN_CARDS}: 20 go "
            "back in the box for 2–4 players, then a round is revealed"
        )
    return deck


def refuse_oversized(data: Any) -> None:
    """``DeckError`` when ``data`` lists more cards than any box holds (``MAX_CARDS``),
    counted before a card is read: 500 000 of them took 26 s and 800 MB."""
    lists = (data.get(s) for s in _TOP_FIELDS) if isinstance(data, Mapping) else ()
    count = sum(len(v) for v in lists if isinstance(v, list))
    if count > MAX_CARDS:
        raise DeckError(f"the deck has {count} cards; a deck holds at most {MAX_CARDS}")


def load_deck(path: Path | str = DECK_FILE) -> Deck:
    """The deck at ``path`` (``game_deck``); every ``DeckError`` starts with the path (a
    family edits it). A key given twice is refused: JSON would keep the last one unseen."""
    try:
        data = loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise DeckError(f"{path}: cannot read the deck ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise DeckError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    except UnicodeDecodeError:
        raise DeckError(f"{path}: not a text file (a deck is UTF-8 JSON)") from None
    except DuplicateKeyError as exc:
        raise DeckError(f"{path}: {exc}") from None
    except ValueError as exc:  # a number of over 4 300 digits (LOG-3)
        raise DeckError(f"{path}: not JSON ({json_problem(exc)})") from None
    except RecursionError:
        raise DeckError(f"{path}: nested too deeply to be a deck") from None
    try:
        return game_deck(data)
    except DeckError as exc:
        raise DeckError(f"{path}: {exc}") from None


def current_deck() -> Deck:
    """The deck file as it is now, not ``default_deck``'s copy read at first use: what a game
    set up now records and keeps (an edit reaches the games set up after it)."""
    return load_deck(DECK_FILE)


@cache
def default_deck() -> Deck:
    """The shipped deck, read once (the referee's rules stay free of I/O after import)."""
    return current_deck()
