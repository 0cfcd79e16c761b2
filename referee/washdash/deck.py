"""The deck file (``deck.json``, editable): 48 task cards and 6 event cards, with points.

Card ids are what events name (``"T07"``, ``"opposite-1"``). The rules give no point
values and no card list; ours are ruling WD-5 and the file says how they were set.
Every task is checked on load: it must be possible to hang it on one dryer both as
printed and under Opposite, so no event can make a card impossible.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from referee.jsonlines import json_problem
from referee.washdash.checker import example_dryer
from referee.washdash.pieces import EventCard, PartError, parse_event_card
from referee.washdash.tasks import Task, TaskError

DECK_FILE = Path(__file__).with_name("deck.json")


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


def _points(entry: Mapping[str, Any], card_id: str) -> int:
    points = entry.get("points")
    if not isinstance(points, int) or isinstance(points, bool) or points < 0:
        raise DeckError(f"card {card_id}: points must be a whole number ≥ 0")
    return points


def parse_deck(data: Any) -> Deck:
    if not isinstance(data, Mapping):
        raise DeckError('a deck file is an object with "tasks" and "events"')
    cards: dict[str, WashCard] = {}
    order: list[str] = []

    def add(card: WashCard) -> None:
        if card.id in cards:
            raise DeckError(f"card id {card.id} appears twice")
        cards[card.id] = card
        order.append(card.id)

    for entry in data.get("tasks", []):
        card_id = str(entry.get("id", "")).strip()
        if not card_id:
            raise DeckError("every task card needs an id")
        try:
            task = Task.from_data(entry.get("task"))
            example_dryer(task)
            example_dryer(task, [EventCard.OPPOSITE])
        except TaskError as exc:
            raise DeckError(f"card {card_id}: {exc}") from None
        add(WashCard(card_id, _points(entry, card_id), task=task))
    for entry in data.get("events", []):
        card_id = str(entry.get("id", "")).strip()
        if not card_id:
            raise DeckError("every event card needs an id")
        try:
            event = parse_event_card(entry.get("event", ""))
        except PartError as exc:
            raise DeckError(f"card {card_id}: {exc}") from None
        add(WashCard(card_id, _points(entry, card_id), event=event))
    if not any(c.is_task for c in cards.values()):
        raise DeckError("the deck has no task cards")
    return Deck(cards, tuple(order))


def load_deck(path: Path | str = DECK_FILE) -> Deck:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise DeckError(f"{path}: not JSON ({exc.msg}, line {exc.lineno})") from None
    except UnicodeDecodeError:
        raise DeckError(f"{path}: not a text file (a deck is UTF-8 JSON)") from None
    except ValueError as exc:  # a number of over 4 300 digits (LOG-3)
        raise DeckError(f"{path}: not JSON ({json_problem(exc)})") from None
    return parse_deck(data)


@cache
def default_deck() -> Deck:
    """The shipped deck, read once (the referee's rules stay free of I/O after import)."""
    return load_deck(DECK_FILE)
