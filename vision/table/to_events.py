"""Stable observations → referee events (or prompts for the tablet).

The camera never rules: it proposes. A confident, unambiguous observation becomes an
``Event`` with ``source=Source.CAMERA`` and the ``t_ns`` at which the new card *first
appeared* (not when it was confirmed), so it orders correctly against pad slaps. A card
first seen after a gap in the frames (the camera was down) has no such time: its event
carries no ``t_ns`` (TBL-10), like one typed on the tablet, rather than a time seconds
late. Anything the camera cannot settle alone — a low confidence, a card it cannot name,
who played it, which group a handoff went onto, a card taken back — becomes a ``Prompt``: a
question for the tablet carrying the event it would suggest, so one tap confirms it.

Per game (rulings TBL-2 … TBL-5):

* Deck Dash: the discard pile's new top card → ``discard`` (``play`` for KEEP2, D2D1,
  D4D3). A seat's area going from empty to cards → ``lay`` (that seat's Dash); cards added
  to a seat's area later → a handoff prompt (the group number is the family's to tap).
  Cards the game already has in that seat's groups (``note_area``: laid or handed off on
  the tablet, or before a watcher started on a round under way) count as lying there. A
  Block You put in front of a seat → the player on turn's ``discard`` aimed at it (TBL-11).
* DOS: ``discard_1``/``discard_2`` are the left/right piles → ``play`` with ``pile``.
* Hit the Deck: the discard pile's new top → ``play`` by the player on turn; with nobody on
  turn (the deal) → ``turn_up``.
* Wash Dash: a seat's dryer reading → ``dryer`` (see ``vision.dryer``; ``dryer_event``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from referee.events import Event, Source
from vision.table.adapter import UNREAD
from vision.table.labels import BACK
from vision.table.stability import (
    MOVED_TOLERANCE,
    TURNED_TOLERANCE,
    Observation,
    Pose,
    lies_elsewhere,
)
from vision.table.zones import TableLayout, ZoneKind

DEFAULT_THRESHOLD = 0.6  # below this an observation is a question, not an event


@dataclass(frozen=True)
class Answer:
    """An answer to a question other than its suggestion, with the event it sends: a question
    the camera cannot settle may have two answers that each change the game (a card taken
    back, or another copy of the face under it played; TBL-6)."""

    name: str  # what the tablet sends back (``{"answer": name}``)
    label: str  # the tablet's button
    event: Event

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "label": self.label, "event": self.event.to_dict()}


@dataclass(frozen=True)
class Prompt:
    """A question for the tablet. ``suggestion`` is the event one tap would send; ``answers``
    are the other answers that send an event."""

    kind: str  # confirm_card | who_played | which_group | taken_back | unknown_card | same_card
    message: str
    zone: str
    t_ns: int
    confidence: float
    suggestion: Event | None = None
    choices: tuple[str, ...] = ()
    answers: tuple[Answer, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "prompt": self.kind,
            "message": self.message,
            "zone": self.zone,
            "t_ns": self.t_ns,
            "confidence": round(self.confidence, 4),
            "suggestion": self.suggestion.to_dict() if self.suggestion else None,
            "choices": list(self.choices),
            "answers": [a.to_dict() for a in self.answers],
        }


Proposal = Event | Prompt


@dataclass(frozen=True)
class Ruling:
    """The family's word on a pile (an undo or an overrule changed the game's top card):
    ``top`` lies there although the camera last saw ``seen`` settle (None: nothing)."""

    top: str
    seen: str | None


def _parser(game: str) -> Callable[[str], object]:
    if game == "deck-dash":
        from referee.cards import parse_card
    elif game == "dos":
        from referee.dos.cards import parse_card  # type: ignore[assignment]
    elif game == "hit-the-deck":
        from referee.hitthedeck.cards import parse_card  # type: ignore[assignment]
    else:
        raise ValueError(f"the camera reads no card piles for {game!r}")
    return parse_card


_DD_PLAYS = frozenset({"KEEP2", "D2D1", "D4D3"})
BLOCK_YOU = "BLOCK"  # Deck Dash's Block You, as the engine and the card labels name it
PILE_KINDS = frozenset({"discard", "play", "turn_up"})  # the events that lay a card on a pile


def with_cards(held: Iterable[str], known: Iterable[str]) -> tuple[str, ...]:
    """The cards ``held`` together with ``known`` where they are not among them already
    (each card as often as the more of the two has it), sorted like a zone's reading."""
    return tuple(sorted((Counter(held) | Counter(known)).elements()))


@dataclass
class EventMapper:
    """Turns one game's observations into proposals. Keeps each pile's recent tops so a
    card taken back (the top returns to the card under it) is asked about, not played."""

    game: str
    layout: TableLayout
    threshold: float = DEFAULT_THRESHOLD
    moved_tolerance: float = MOVED_TOLERANCE
    turned_tolerance: float = TURNED_TOLERANCE
    _tops: dict[str, list[str]] = field(default_factory=dict)
    # where each remembered top lay (None: entered on the tablet, or no box), as ``_tops``
    _poses: dict[str, list[Pose | None]] = field(default_factory=dict)
    # the family's rulings that stand until their pile visibly changes (``rule``)
    _ruled: dict[str, Ruling] = field(default_factory=dict)
    # the cards the game has in each seat's area (Deck Dash: its groups; ``note_area``)
    _areas: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._parse = _parser(self.game)

    def _card_ok(self, token: str) -> bool:
        try:
            self._parse(token)
        except ValueError:
            return False
        return True

    def note_top(self, zone: str, card: str) -> None:
        """The game says ``card`` lies on top of ``zone`` (the deal's starting card, a play
        typed on the tablet): remember it, so a later card taken back off it is recognised."""
        self._ruled.pop(zone, None)  # the game moved on: an older ruling is settled
        history = self._tops.setdefault(zone, [])
        if not history or history[-1] != card:
            self._remember(zone, card, None)

    def note_area(self, zone: str, cards: Iterable[str]) -> None:
        """The game says ``cards`` lie in seat area ``zone`` (that seat's groups, handoffs
        onto them included): a reading showing them is not a new ``lay`` or handoff, even
        when the camera did not see them arrive (a Dash laid before a restart, or typed on
        the tablet). Cards the game takes away (an undo) are simply forgotten here; the
        camera keeps what it saw (TBL-4)."""
        self._areas[zone] = tuple(sorted(cards))

    def rule(self, zone: str, top: str) -> None:
        """The family ruled (an undo, an overrule) that ``top`` lies on ``zone`` although
        the camera last saw another card settle there, which may still lie there. Their word
        stands until the pile visibly changes (TBL-2): the card seen there now is neither
        proposed again nor asked about as a take-back; see ``as_ruled``."""
        history = self._tops.get(zone) or []
        self._ruled[zone] = Ruling(top, history[-1] if history else None)

    def as_ruled(self, obs: Observation) -> Observation | None:
        """``obs`` in the family's terms while a ruling stands on its pile, which ends with
        this change. None when the pile now shows the ruled card: it agrees with the game,
        there is nothing to propose. A card the family renamed (an overrule: not the card
        that lay under it) goes by the family's name, so taking it back asks about *that*
        play; after an undo the card seen keeps its place in the pile's history, so a card
        played on it and taken back is still asked about as usual."""
        ruling = self._ruled.pop(obs.zone, None)
        if ruling is None:
            return obs
        history = self._tops.setdefault(obs.zone, [])
        poses = self._poses.setdefault(obs.zone, [])
        undone = history[-2:-1] == [ruling.top]  # the card under the one seen
        if obs.after[:1] == (ruling.top,):
            if undone:  # the card undone was taken off: as if it had never been laid
                del history[-1], poses[-1]
            elif history:
                history[-1] = ruling.top
            else:
                self._remember(obs.zone, ruling.top, None)
            if obs.pose is not None:
                poses[-1] = obs.pose
            return None
        seen = (ruling.seen,)
        if undone or obs.before != seen or tuple(history[-1:]) != seen:
            return obs
        history[-1] = ruling.top
        named = tuple(ruling.top if c == ruling.seen else c for c in obs.after)
        return replace(obs, before=(ruling.top,), after=named)

    def _remember(self, zone: str, card: str, pose: Pose | None) -> None:
        history, poses = self._tops.setdefault(zone, []), self._poses.setdefault(zone, [])
        history.append(card)
        poses.append(pose)
        del history[:-8], poses[:-8]

    def propose(self, obs: Observation, seat: int | None) -> list[Proposal]:
        """``seat``: the player on turn according to the engine (None when nobody is)."""
        zone = self.layout.zone(obs.zone)
        if zone.kind is ZoneKind.DISCARD:
            ruled = self.as_ruled(obs)
            return [] if ruled is None else self._pile(ruled, seat)
        if zone.kind is ZoneKind.SEAT and self.game == "deck-dash":
            return self._seat_area(obs, zone.seat, seat)
        return []  # draw pile, other games' seat areas: nothing the referee needs

    # --- piles ------------------------------------------------------------------
    def _another(self, obs: Observation, card: str, seat: int | None) -> Prompt:
        """Was another card of this face played? (TBL-6; one tap sends the play)."""
        event = self._pile_event(obs.zone, card, seat, obs.event_t_ns)
        return Prompt(
            "same_card",
            f"Was another {card} played on the pile?",
            obs.zone,
            obs.t_ns,
            obs.confidence,
            event,
            ("yes", "no"),
        )

    def _pile(self, obs: Observation, seat: int | None) -> list[Proposal]:
        history = self._tops.setdefault(obs.zone, [])
        poses = self._poses.setdefault(obs.zone, [])
        if not obs.after or obs.after[0] == BACK:
            return []  # pile picked up or turned over: not a play
        card = obs.after[0]
        if obs.moved:  # the same face again, lying elsewhere: another copy, or straightened?
            if poses:
                poses[-1] = obs.pose
            return [self._another(obs, card, seat)]
        taken_back = len(history) >= 2 and history[-2] == card and obs.before == (history[-1],)
        # the face under the last card again, but not where that card lay: another copy of it
        # played on the pile (Deck Dash holds two of every card), or the one below nudged
        another = taken_back and lies_elsewhere(
            poses[-2], obs.pose, self.moved_tolerance, self.turned_tolerance
        )
        self._remember(obs.zone, card, obs.pose)
        if another:
            return [self._another(obs, card, seat)]
        if taken_back:  # or a twin laid where its twin lay (TBL-6): the family's to say
            twin_play = self._pile_event(obs.zone, card, seat, obs.event_t_ns)
            return [
                Prompt(
                    "taken_back",
                    f"{obs.before[0]} was taken back off the pile and {card} is on top "
                    "again: undo that play?",
                    obs.zone,
                    obs.t_ns,
                    obs.confidence,
                    None,  # the tablet knows the logged play's sequence number; we do not
                    ("undo", "keep", "another"),
                    (Answer("another", f"Another {card} was played", twin_play),),
                )
            ]
        event = self._pile_event(obs.zone, card, seat, obs.event_t_ns)
        if card == UNREAD or not self._card_ok(card):
            return [
                Prompt(
                    "unknown_card",
                    "A card was played that the camera cannot name: which card is it?",
                    obs.zone,
                    obs.t_ns,
                    obs.confidence,
                )
            ]
        if seat is None and event.kind != "turn_up":
            return [
                Prompt(
                    "who_played", f"Who played {card}?", obs.zone, obs.t_ns, obs.confidence, event
                )
            ]
        if obs.confidence < self.threshold:
            return [
                Prompt(
                    "confirm_card",
                    f"Is the card on the pile {card}?",
                    obs.zone,
                    obs.t_ns,
                    obs.confidence,
                    event,
                )
            ]
        return [event]

    def pile_of(self, zone: str) -> str | None:
        """The pile a discard zone is in the game's events: DOS's ``left``/``right`` (TBL-3);
        None in games with one discard pile."""
        if self.game != "dos":
            return None
        piles = [z.name for z in self.layout.discard_piles()]
        return "left" if piles.index(zone) == 0 else "right"

    def _pile_event(self, zone: str, card: str, seat: int | None, t_ns: int | None) -> Event:
        if self.game == "dos":
            payload = {"card": card, "pile": self.pile_of(zone)}
            return Event("play", seat, payload, t_ns, Source.CAMERA)
        if self.game == "hit-the-deck":
            if seat is None:
                return Event("turn_up", None, {"card": card}, t_ns, Source.CAMERA)
            return Event("play", seat, {"card": card}, t_ns, Source.CAMERA)
        kind = "play" if card in _DD_PLAYS else "discard"
        return Event(kind, seat, {"card": card}, t_ns, Source.CAMERA)

    # --- a seat's laid Dash and handoffs (Deck Dash) -----------------------------
    def _block(self, obs: Observation, victim: int | None, on_turn: int | None) -> Proposal:
        """A Block You seen in front of ``victim``: the player on turn discarded it at them.
        Asked, not sent, when the camera is unsure or the one on turn would block themselves."""
        payload = {"card": BLOCK_YOU, "target": victim}
        event = Event("discard", on_turn, payload, obs.event_t_ns, Source.CAMERA)
        if obs.confidence >= self.threshold and on_turn is not None and on_turn != victim:
            return event
        who = f"seat {on_turn}" if on_turn is not None else "someone"
        return Prompt(
            "confirm_card",
            f"Did {who} put a Block You in front of seat {victim}?",
            obs.zone,
            obs.t_ns,
            obs.confidence,
            event,
        )

    def _seat_area(
        self, obs: Observation, owner: int | None, on_turn: int | None
    ) -> list[Proposal]:
        # what lay there before: what the camera saw, and what the game has in the area
        before = list(with_cards(obs.before, self._areas.get(obs.zone, ())))
        after = list(obs.after)
        added = list(after)
        for c in before:
            if c in added:
                added.remove(c)
        if not added:
            return []  # cards picked up (end of round) or hidden: nothing to referee
        # A Block You is put in front of the player it blocks (TBL-11): a discard aimed at
        # this area's seat, not part of its Dash
        out: list[Proposal] = [
            self._block(obs, owner, on_turn) for card in added if card == BLOCK_YOU
        ]
        added = [card for card in added if card != BLOCK_YOU]
        after = [card for card in after if card != BLOCK_YOU]
        before = [card for card in before if card != BLOCK_YOU]
        if not added:
            return out
        if UNREAD in added or not all(self._card_ok(c) for c in added):
            return [
                *out,
                Prompt(
                    "unknown_card",
                    f"Seat {owner}'s area has a card the camera cannot "
                    "name: which cards are there?",
                    obs.zone,
                    obs.t_ns,
                    obs.confidence,
                ),
            ]
        if not before:
            event = Event("lay", owner, {"cards": sorted(after)}, obs.event_t_ns, Source.CAMERA)
            if obs.confidence < self.threshold:
                return [
                    *out,
                    Prompt(
                        "confirm_card",
                        f"Did seat {owner} lay {' '.join(sorted(after))}?",
                        obs.zone,
                        obs.t_ns,
                        obs.confidence,
                        event,
                    ),
                ]
            return [*out, event]
        for card in added:
            suggestion = Event("handoff", on_turn, {"card": card}, obs.event_t_ns, Source.CAMERA)
            who = f"Seat {on_turn}" if on_turn is not None else "Someone"
            out.append(
                Prompt(
                    "which_group",
                    f"{who} handed off {card} to seat {owner}'s groups: onto which group?",
                    obs.zone,
                    obs.t_ns,
                    obs.confidence,
                    suggestion,
                )
            )
        return out
