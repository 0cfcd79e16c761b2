"""Questions the camera asks the tablets, and their answers.

The camera never rules on a reading it is unsure of: it asks (``vision.table.to_events.
Prompt``: a message plus the event one tap would send). The board keeps each game's open
questions in memory and publishes the whole list on the hub's ``prompts`` topic after every
change, so every open tablet shows the same list and a question answered on one tablet
disappears from the others. A tablet that missed a message (Wi-Fi down, a restart) gets the
whole list, even empty, when its stream reopens (``web/blueprints/live.py``), and a tap on a
question gone meanwhile is a 404 that takes it off that tablet (prompts.js).

Accepting sends the suggested event — or the event of another answer the question offers,
named by ``answer`` — with its original ``t_ns`` and ``source`` kept, through
``GameService.append``, the path the console uses, so verdicts, scoreboard and live updates
are the usual ones. A question is taken off the board *before* its event is appended, so two
tablets tapping Accept at once cannot send it twice; if the rules refuse the event it goes
back on the board. Questions are not stored: after a restart the camera asks again only
about what it sees next. Nor are they kept for a game that has ended (no answer can be
logged in it any more), nor for more than ``MAX_GAMES`` games: over an evening of games,
some left unended when the family moved on, the board would otherwise only grow.

A question may carry a ``key``, naming what it is about: the board holds at most one open
question per key. Wash Dash's "which task card?" for a pad's press held for its card (WD-17)
goes by the press (``HeldPress``) and is built by ``which_card_prompt`` whoever asks it: the
camera's dryer referee for a seat whose dryer it reads (WD-21), the server's pad bridge for
every other seat (``web/app.py``), so a press is never asked about twice.
"""

from __future__ import annotations

import itertools
import secrets
import threading
import time
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from referee.events import Event, EventError, Source
from web.errors import BadInput
from web.services.games import GameService
from web.services.hub import Hub

MAX_OPEN = 20  # per game; the oldest question goes first
MAX_GAMES = 4  # games with open questions; the game asked about longest ago goes first


def refused_prompt(seen: str, why: str, t_ns: int, zone: str | None = None) -> dict[str, Any]:
    """A question telling the tablet the rules refused what the camera saw (``seen``), so a
    reading is never dropped silently; there is nothing to accept, only to dismiss."""
    return {
        "prompt": "refused",
        "message": f"{seen}, but the referee cannot take it: {why}",
        "zone": zone,
        "t_ns": t_ns,
        "confidence": None,
        "suggestion": None,
        "choices": [],
    }


class HeldPress(NamedTuple):
    """A Wash Dash pad press held for its card (WD-17), as the key of its question."""

    round: int | None
    seat: int
    t_ns: int | None


def held_presses(view: Mapping[str, Any]) -> list[HeldPress]:
    """The presses of a Wash Dash view held for their card while the race runs (after it,
    a press left held names nothing more: its question goes)."""
    if view.get("phase") != "racing":
        return []
    return [
        HeldPress(view.get("round"), p.get("seat"), p.get("t_ns"))
        for p in view.get("presses") or []
    ]


def press_source(feed: Iterable[Mapping[str, Any]], press: HeldPress) -> Source:
    """Where the card-less ``done`` that holds ``press`` came from (a pad's button, the
    console), read from the game's feed (``GameService.snapshot``): the answers to its
    question carry that source. A pad's when the feed does not say."""
    for item in feed:
        status = item.get("status")
        event = item.get("replacement" if status == "overruled" else "event")
        if status not in ("ok", "overruled") or not isinstance(event, Mapping):
            continue
        payload = event.get("payload") or {}
        if (
            event.get("kind") == "done"
            and event.get("seat") == press.seat
            and event.get("t_ns") == press.t_ns
            and payload.get("card") is None
        ):
            try:
                return Source(event.get("source", Source.MANUAL.value))  # as ``Event``
            except ValueError:
                break
    return Source.PAD


def open_task_cards(view: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The round's task cards nobody has taken, as the view's table shows them (id, says),
    in the order they were revealed."""
    return [c for c in view.get("table") or [] if "task" in c and c.get("taken_by") is None]


def which_card_prompt(
    press: HeldPress,
    who: str,
    cards: Sequence[Mapping[str, Any]],
    *,
    source: Source,
    seen: str = "",
    dryer: Mapping[str, Any] | None = None,
    completes: Collection[str] = (),
    zone: str | None = None,
    t_ns: int | None = None,
) -> dict[str, Any]:
    """The tablets' question for a press held for its card (WD-17): which task card did
    ``who`` complete? One answer per open task card in ``cards`` (``open_task_cards``),
    labelled with what the card says, each a ``done`` for the press's seat with that card
    at the press's time, from ``source``; the cards the camera's reading ``completes`` carry
    its ``dryer`` (the tap confirms both), the others are checked as any tablet ``done``.
    ``seen``: what the camera saw, said first; ``t_ns``: the question's time when the press
    has none."""
    answers = []
    for card in cards:
        name = str(card.get("id"))
        payload: dict[str, Any] = {"card": name}
        if dryer is not None and name in completes:
            payload["dryer"] = dict(dryer)
        event = Event("done", press.seat, payload, press.t_ns, source)
        label = f"{name}: {card['says']}" if card.get("says") else name
        answers.append({"name": name, "label": label, "event": event.to_dict()})
    if seen:
        message = f"{who} pressed done; {seen}. Which task card did {who} complete?"
    else:
        message = f"{who} pressed done: which task card did {who} complete?"
    return {
        "prompt": "which_card",
        "message": message,
        "zone": zone,
        "t_ns": press.t_ns if press.t_ns is not None else t_ns,
        "confidence": None,
        "suggestion": None,
        "choices": [a["name"] for a in answers],
        "answers": answers,
        # who asks, for the tablets' label and read-out: the pads' question is no camera's
        "asker": "camera" if source is Source.CAMERA else "pads",
    }


@dataclass(frozen=True)
class OpenPrompt:
    id: int
    game_id: int
    prompt: dict[str, Any]  # ``Prompt.to_dict()``: prompt, message, zone, t_ns, suggestion…
    created_at: float
    key: Hashable = None  # what it is about (a ``HeldPress``): one open question per key

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "game_id": self.game_id, **self.prompt, "at": self.created_at}


def answer_fields(data: Mapping[str, Any]) -> tuple[bool, int | None, dict[str, Any]]:
    """What an Accept may change in the suggestion: the seat (``who_played``) and payload
    fields (``which_group``: ``{"group": 1}``). Returns (seat given, seat, payload)."""
    unknown = sorted(set(data) - {"seat", "payload", "answer"})
    if unknown:
        raise BadInput(
            f"accept: unknown field(s) {', '.join(unknown)}; send seat, payload and/or answer"
        )
    has_seat = "seat" in data
    seat = data.get("seat")
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or seat < 0):
        raise BadInput("accept: 'seat' must be a seat number or null")
    payload = data.get("payload", {})
    if not isinstance(payload, dict):
        raise BadInput("accept: 'payload' must be an object of fields to set")
    return has_seat, seat, payload


def chosen_event(prompt: Mapping[str, Any], answer: Any) -> dict[str, Any]:
    """The event an Accept sends: the suggestion, or with ``answer`` the event of the
    question's answer of that name (``Prompt.answers``: a take-back question's "another")."""
    if answer is None:
        suggestion = prompt.get("suggestion")
        if not isinstance(suggestion, dict):
            raise BadInput(
                "this question has no suggested event: enter what happened on the "
                "Referee page, then dismiss it",
                409,
            )
        return dict(suggestion)
    answers = {a.get("name"): a for a in prompt.get("answers") or [] if isinstance(a, dict)}
    if not isinstance(answer, str) or answer not in answers:
        names = ", ".join(repr(n) for n in answers) or "none besides its suggestion"
        raise BadInput(f"accept: this question has no answer {answer!r}; its answers: {names}")
    event = answers[answer].get("event")
    if not isinstance(event, dict):
        raise BadInput(f"this question's answer {answer!r} sends no event", 409)
    return dict(event)


def first_id() -> int:
    """Where a run's question ids start: at random, not at 1, so an id a tablet still shows
    from before a restart (the board is not stored) names no new question, and a tap on it
    is a 404, not an answer to another question. Two runs' ranges meet about once in 10⁶;
    small numbers (a hand-typed URL's) are never ids."""
    return 1_000_000 + secrets.randbelow(1 << 31)


class PromptBoard:
    def __init__(self, hub: Hub, limit: int = MAX_OPEN, max_games: int = MAX_GAMES) -> None:
        self.hub = hub
        self.limit = limit
        self.max_games = max_games
        self._lock = threading.Lock()
        self._open: dict[int, OpenPrompt] = {}
        self._ids = itertools.count(first_id())

    def add(
        self,
        game_id: int,
        prompt: Mapping[str, Any],
        key: Hashable = None,
        *,
        keep: bool = False,
    ) -> OpenPrompt:
        """Put a question on the board. With ``key`` the game's open question with the same
        key is replaced — or, with ``keep``, kept and returned, and nothing is added."""
        with self._lock:
            same = [] if key is None else [p for p in self._open.values() if p.key == key]
            same = [p for p in same if p.game_id == game_id]
            if same and keep:
                return same[0]
            for old in same:
                del self._open[old.id]
            item = OpenPrompt(next(self._ids), game_id, dict(prompt), time.time(), key)
            self._open[item.id] = item
            mine = sorted(p.id for p in self._open.values() if p.game_id == game_id)
            for old in mine[: max(0, len(mine) - self.limit)]:
                del self._open[old]
            for gone in self._drop_stale_games():
                self._publish(gone)
            self._publish(game_id)
        return item

    def _drop_stale_games(self) -> list[int]:
        """Keep the questions of the ``max_games`` games asked about last (the lock is held):
        the camera asks about the running game only, so older ones are games the family
        left without ending them."""
        newest: dict[int, int] = {}
        for p in self._open.values():
            newest[p.game_id] = max(p.id, newest.get(p.game_id, 0))
        stale = sorted(newest, key=newest.__getitem__)[: max(0, len(newest) - self.max_games)]
        self._open = {k: p for k, p in self._open.items() if p.game_id not in stale}
        return stale

    def changed(self, game_id: int, snap: Mapping[str, Any]) -> None:
        """A ``GameService`` listener: a game that has ended takes its questions with it
        (none can be answered any more), and the tablets are told the list is empty."""
        if not (snap.get("game") or {}).get("ended_at"):
            return
        with self._lock:
            mine = [k for k, p in self._open.items() if p.game_id == game_id]
            for key in mine:
                del self._open[key]
            if mine:
                self._publish(game_id)

    def update(self, game_id: int, prompt_id: int, prompt: Mapping[str, Any]) -> bool:
        """Change an open question in place (same id and key: a tablet tapping it still finds
        it); False when it is no longer open (answered, dismissed, replaced)."""
        with self._lock:
            item = self._open.get(prompt_id)
            if item is None or item.game_id != game_id:
                return False
            self._open[prompt_id] = replace(item, prompt=dict(prompt))
            self._publish(game_id)
        return True

    def keys(self, game_id: int) -> list[Hashable]:
        """The keys of the game's open questions that have one."""
        with self._lock:
            return [
                p.key for p in self._open.values() if p.game_id == game_id and p.key is not None
            ]

    def dismiss_keys(self, game_id: int, keys: Iterable[Hashable]) -> None:
        """Take the game's open questions with these keys off the board (those answered
        meanwhile are gone already)."""
        gone = set(keys)
        with self._lock:
            mine = [k for k, p in self._open.items() if p.game_id == game_id and p.key in gone]
            for k in mine:
                del self._open[k]
            if mine:
                self._publish(game_id)

    def open(self, game_id: int) -> list[dict[str, Any]]:
        with self._lock:
            return self._listed(game_id)

    def _listed(self, game_id: int) -> list[dict[str, Any]]:
        """The game's open questions, oldest first (the lock is held)."""
        items = sorted((p for p in self._open.values() if p.game_id == game_id), key=_id)
        return [p.to_dict() for p in items]

    def payload(self, game_id: int) -> dict[str, Any]:
        """The message every tablet gets: this game's whole list of open questions."""
        return {"game_id": game_id, "prompts": self.open(game_id)}

    def count(self) -> int:
        with self._lock:
            return len(self._open)

    def _take(self, game_id: int, prompt_id: int) -> OpenPrompt:
        """Take the question off the board (the lock is held)."""
        item = self._open.get(prompt_id)
        if item is None or item.game_id != game_id:
            raise BadInput(
                f"there is no open question {prompt_id} in game {game_id} "
                "(another tablet may have answered it)",
                404,
            )
        del self._open[prompt_id]
        return item

    def dismiss(self, game_id: int, prompt_id: int) -> None:
        with self._lock:
            self._take(game_id, prompt_id)
            self._publish(game_id)

    def accept(
        self, games: GameService, game_id: int, prompt_id: int, data: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Send the question's suggested event, or the event of the answer named ``answer``
        (with the tablet's seat / payload fields)."""
        has_seat, seat, extra = answer_fields(data)
        with self._lock:
            item = self._take(game_id, prompt_id)
        try:
            raw = chosen_event(item.prompt, data.get("answer"))
            if has_seat:
                raw["seat"] = seat
            if extra:
                raw["payload"] = {**(raw.get("payload") or {}), **extra}
            try:
                event = Event.from_dict(raw)
            except EventError as exc:
                raise BadInput(f"accept: {exc}") from None
            out = games.append(game_id, event)
        except BadInput:
            # an ended game's questions are gone (``changed``); asked under the lock, so a
            # game ending meanwhile takes it back off in its ``changed``, which waits for it
            with self._lock:
                if not _ended(games, game_id):
                    self._open[item.id] = item  # refused: it stays for another answer
                    # a list published meanwhile (a camera's new question) lacked it
                    self._publish(game_id)
            raise
        with self._lock:
            self._publish(game_id)
        return {**out, "event": event.to_dict()}

    def _publish(self, game_id: int) -> None:
        """Hand the game's list to the hub (the lock is held): lists reach the tablets in
        the order of the board's changes, so the last one a tablet gets is the board's. The
        hub never blocks, and takes no lock of ours: holding the lock is safe."""
        self.hub.publish("prompts", {"game_id": game_id, "prompts": self._listed(game_id)})


def _id(p: OpenPrompt) -> int:
    return p.id


def _ended(games: GameService, game_id: int) -> bool:
    """Whether the game has ended (a game that cannot be looked up counts as not ended)."""
    try:
        return games.record(game_id).ended_at is not None
    except BadInput:
        return False
