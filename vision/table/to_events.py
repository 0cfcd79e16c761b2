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
  Between Dashes nothing is proposed on the pile: the deal names the start card.
* DOS: ``discard_1``/``discard_2`` are the left/right piles → ``play`` with ``pile``, by the
  player on turn; a Skip that counters a waiting Draw Four on that pile is the victim's
  (DOS-10: they may counter out of turn, after a Reverse). Between deals nothing is proposed
  (the deal names the new face-up cards); while the player on turn may have only their
  ``end_turn`` left (a drawn card kept, or still to be played) the tablet says who played.
* Hit the Deck: the discard pile's new top → ``play`` by the player on turn; while the game
  waits for a card turned up (the deal, a Hand card shuffled back) or with nobody on turn →
  ``turn_up``.
* Wash Dash: a seat's dryer reading → ``dryer`` (see ``vision.dryer.watch.dryer_proposal``).

What the camera sees is checked against what it already knows (rulings TBL-14 … TBL-19):
the card it remembers on top coming back after the pile read empty is no new play (TBL-14),
unless the game emptied the pile meanwhile (``note_empty``: a reshuffle, a start card taken);
a new face read where nothing touched the pile is a misreading asked about (TBL-15); in Deck
Dash the top discard taken while the player on turn may draw is their draw (TBL-16), a Deck
Steal on the pile a steal asked about (TBL-18), and a Dash laid card by card is proposed
whole (TBL-17); while a pile question that would move the turn is open, later plays are
asked about too, with no player named, another copy's play included (TBL-19). The game's
state comes from ``note_view`` (``CameraReferee``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
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

    # confirm_card | who_played | which_group | taken_back | unknown_card | same_card | misread
    kind: str
    message: str
    zone: str
    t_ns: int
    confidence: float
    suggestion: Event | None = None
    choices: tuple[str, ...] = ()
    answers: tuple[Answer, ...] = ()
    # ``misread``: the card read before, whose logged play one tap overrules (TBL-15)
    earlier: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "prompt": self.kind,
            "message": self.message,
            "zone": self.zone,
            "t_ns": self.t_ns,
            "confidence": round(self.confidence, 4),
            "suggestion": self.suggestion.to_dict() if self.suggestion else None,
            "choices": list(self.choices),
            "answers": [a.to_dict() for a in self.answers],
        }
        if self.earlier is not None:
            out["earlier"] = self.earlier
        return out


Proposal = Event | Prompt


@dataclass(frozen=True)
class Ruling:
    """The family's word on a pile (an undo or an overrule changed the game's top card):
    ``top`` lies there although the camera last saw ``seen`` settle (None: nothing)."""

    top: str
    seen: str | None


@dataclass(frozen=True)
class _Unlaid:
    """A top card the game entered (the deal's, a play typed on the tablet) that the camera
    has not seen settle yet: ``held`` is what the camera had settled there then (None:
    nothing), ``tops``/``poses`` the pile as remembered with the game's card on top."""

    top: str
    held: str | None
    tops: tuple[str, ...]
    poses: tuple[Pose | None, ...]


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
DECK_STEAL = "STEAL"  # Deck Dash's Deck Steal
_DRAW_PHASES = frozenset({"draw", "action_draw"})  # Deck Dash phases that draw (``Phase``)
_DISCARD_PHASES = frozenset({"play", "action_discard"})  # … and those that may discard
PILE_KINDS = frozenset({"discard", "play", "turn_up"})  # the events that lay a card on a pile
REMEMBERED_TOPS = 8  # how many of a pile's cards the mapper remembers, top last


_NUMBERED_DISCARD = re.compile(r"discard_([12])")


def discard_index(game: str, zone: str, piles: Sequence[str]) -> int:
    """Which of the game's discard piles a discard zone is, 0 first. In DOS the zone's own
    number says (TBL-3: ``discard_1`` is the left pile, ``discard_2`` the right), so a lone
    ``discard_2`` (the left pile out of view) is still the right pile; a zone named
    otherwise, or another game's, counts by its place among ``piles`` (table order)."""
    numbered = _NUMBERED_DISCARD.fullmatch(zone) if game == "dos" else None
    return int(numbered.group(1)) - 1 if numbered else list(piles).index(zone)


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
    # the game's view (``note_view``): the phase, who has laid, the Dash; None: not told
    _view: Mapping[str, Any] | None = None
    # per pile, the tops the game would get from its open questions that move the turn
    # (a play asked about, a take-back): later plays there are asked too (TBL-19)
    _asked: dict[str, list[str]] = field(default_factory=dict)
    # whether the camera's referee says which questions are open (``note_questions``):
    # without that nobody tells when a question is answered, so no play is held back
    _questions_told: bool = False
    # when the card now on each pile was first seen (the time a correction's play keeps)
    _top_t: dict[str, int | None] = field(default_factory=dict)
    # per pile, the game's top card not seen laid yet (``note_top``, ``_adopt``)
    _unlaid: dict[str, _Unlaid] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._parse = _parser(self.game)

    def _card_ok(self, token: str) -> bool:
        try:
            self._parse(token)
        except ValueError:
            return False
        return True

    def _unnamed(self, card: str) -> bool:
        """A reading that names no card of the game (``?``: a picture the deck's notation has
        no token for, a Hit the Deck "with a number" card, TBL-3). Two of them are not one
        face, so such a card is never asked about as another copy, nor offered as a play."""
        return card == UNREAD or not self._card_ok(card)

    def _unknown(self, obs: Observation) -> Prompt:
        """Which card is it? The tablet names a card the camera cannot (no suggestion)."""
        prompt = Prompt(
            "unknown_card",
            "A card was played that the camera cannot name: which card is it?",
            obs.zone,
            obs.t_ns,
            obs.confidence,
        )
        return self._ask(obs.zone, prompt, obs.after[0])

    def note_view(self, view: Mapping[str, Any] | None) -> None:
        """The game's view (``Game.view``) after its latest event: Deck Dash's phase and turn
        tell a draw from the discard pile from a take-back (TBL-16), its Dash and who has laid
        tell a Dash laid card by card from a handoff (TBL-17). None: not known (as before)."""
        self._view = view

    def note_questions(self, zones: Iterable[str]) -> None:
        """The pile zones on which a camera question is open now: a question answered or
        dismissed no longer holds later plays back (TBL-19). Until this is called no play is
        held back: the mapper alone cannot know when a question was dismissed."""
        self._questions_told = True
        still = set(zones)
        for zone in list(self._asked):
            if zone not in still:
                del self._asked[zone]

    def note_top(
        self,
        zone: str,
        card: str,
        pile: Sequence[str] | None = None,
        held: str | None = None,
    ) -> None:
        """The game says ``card`` lies on top of ``zone`` (the deal's starting card, a play
        typed on the tablet): remember it, so a later card taken back off it is recognised.
        A card the camera asked about (TBL-19) is already remembered: the game caught up.
        ``pile``: the game's whole pile, bottom first, where the view has it (Deck Dash).
        When it shows the card remembered on top gone and ``card``, the one under it, on top
        again (a draw from the discard pile typed on the tablet, an undo), that card is
        forgotten, not ``card`` remembered on top of it: the camera's idea of what lies under
        the top must stay the game's, or the drawn card played again is read as taken back
        (TBL-22). ``held``: the card the camera has settled there now; a ``card`` it has not
        seen is not proposed when it is laid at last (``_adopt``), and ``held`` read again
        meanwhile is not ``card`` taken back: the camera never saw it laid. Such a ``card``
        withdrawn (an undo) leaves the pile as it was before it was entered."""
        self._ruled.pop(zone, None)  # the game moved on: an older ruling is settled
        unlaid = self._unlaid.pop(zone, None)
        if unlaid is not None and unlaid.tops[-2:-1] == (card,):
            # the entered top undone before the camera saw it: forgotten, or that card laid
            # after all would be read as ``card`` on top again, the entered one taken back
            self._tops[zone] = list(unlaid.tops[:-1])
            self._poses[zone] = list(unlaid.poses[:-1])
            return
        asked = self._asked.get(zone, [])
        if card in asked:  # a question accepted: that play and those before it are settled
            del asked[: asked.index(card) + 1]
            return
        self._asked.pop(zone, None)  # the family entered something else: their word
        history = self._tops.setdefault(zone, [])
        if history and history[-1] == card:
            return
        if pile is not None and history[-2:-1] == [card] and list(pile[-2:-1]) != history[-1:]:
            poses = self._poses.setdefault(zone, [])
            del history[-1], poses[-1]  # taken off in the game: the card under it is on top
            self._top_t.pop(zone, None)
            return
        self._remember(zone, card, None)
        self._top_t.pop(zone, None)  # entered on the tablet: not seen laid
        if held != card:
            tops, poses = tuple(history), tuple(self._poses[zone])
            self._unlaid[zone] = _Unlaid(card, held, tops, poses)

    def awaits_laying(self, zone: str) -> bool:
        """Is ``zone``'s top a card the game entered that the camera has not seen laid, on
        a card it saw settle there (``note_top``'s ``held``)? The watcher then keeps that
        card as settled, so the game's card laid at last is a change it reports (adopted,
        ``_adopt``), and the card under it read again is no change at all."""
        unlaid = self._unlaid.get(zone)
        return unlaid is not None and unlaid.held is not None

    def note_pile(self, zone: str, pile: Sequence[str], seen: Sequence[str] = ()) -> None:
        """The game's pile (bottom first) when a watcher starts on a game under way (a server
        restart, new zones saved): remembered under its top, where each lay unknown, so the
        card under the top showing again is a draw (TBL-16) or a take-back (TBL-2), not a
        play of that card. ``seen``: the camera's plays the rules refused since, which lie
        on it and count as seen laid. Only while the game's top is all that is remembered
        there (as ``note_top`` leaves a new mapper)."""
        if not pile or self._tops.get(zone, []) not in ([], list(pile[-1:])):
            return
        cards = [*pile, *seen][-REMEMBERED_TOPS:]
        self._tops[zone] = cards
        self._poses[zone] = [None] * len(cards)
        # the game's top was laid before the watcher started: nothing to adopt when it
        # settles again (``_adopt`` would keep only that top, not the pile rebuilt here)
        self._unlaid.pop(zone, None)

    def note_empty(self, zone: str) -> None:
        """The game says ``zone``'s pile is empty (Deck Dash: the start card taken, DD-18; a
        reshuffle, DD-7; the end of a Dash. Hit the Deck: a Hand card turned up at the start
        shuffled back): forget its remembered tops, where they lay and when, so the next card
        laid there is a play like any other, even with the face last seen on top (TBL-14's
        "seen again" is about a card still lying there). The family's word settles any
        ruling and question on the pile, as a top typed on the tablet does (``note_top``)."""
        for remembered in (self._tops, self._poses, self._top_t, self._ruled, self._asked):
            remembered.pop(zone, None)
        self._unlaid.pop(zone, None)

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
        self._asked.pop(zone, None)
        self._unlaid.pop(zone, None)  # the family's word replaces the top it entered

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
        del history[:-REMEMBERED_TOPS], poses[:-REMEMBERED_TOPS]

    def propose(self, obs: Observation, seat: int | None) -> list[Proposal]:
        """``seat``: the player on turn according to the engine (None when nobody is)."""
        zone = self.layout.zone(obs.zone)
        if zone.kind is ZoneKind.DISCARD:
            ruled = self.as_ruled(obs)
            return [] if ruled is None else self._pile(ruled, seat)
        if zone.kind is ZoneKind.SEAT and self.game == "deck-dash":
            if self._between_deals():
                return []  # no Dash to lay: a hand put down to count its points (TBL-17)
            return self._seat_area(obs, zone.seat, seat)
        return []  # draw pile, other games' seat areas: nothing the referee needs

    # --- piles ------------------------------------------------------------------
    def _another(self, obs: Observation, card: str, seat: int | None) -> Prompt:
        """Was another card of this face played? (TBL-6; one tap sends the play, or one tap
        per player while an earlier question holds plays back, TBL-19)."""
        event = self._twin_play(obs, card, seat)
        return Prompt(
            "same_card",
            f"Was another {card} played on the pile?",
            obs.zone,
            obs.t_ns,
            obs.confidence,
            event,
            ("yes", "no"),
        )

    def _same_face(self, obs: Observation, card: str, seat: int | None) -> Prompt:
        """``card``'s face again where another copy may have been played, asked about. A card
        the camera cannot name has no face to be another copy of: the tablet is asked which
        card it is, and ``?`` is never offered as a play."""
        if self._unnamed(card):
            return self._unknown(obs)
        return self._ask(obs.zone, self._another(obs, card, seat), card)

    def _ask(self, zone: str, prompt: Prompt, top: str) -> Prompt:
        """``prompt``, remembered as open until the game shows ``top`` (what accepting it
        leaves on the pile) or the question is closed: it may move the turn (TBL-19)."""
        self._asked.setdefault(zone, []).append(top)
        return prompt

    def _twin_play(self, obs: Observation, card: str, seat: int | None) -> Event:
        """Another copy of ``card`` played, as a question offers it: by the player on turn,
        or by nobody named while an earlier question may yet move the turn (TBL-19), so the
        tablet shows one button per player rather than one for a stale seat."""
        event = self._pile_event(obs.zone, card, seat, obs.event_t_ns)
        if event.kind != "turn_up" and self._held_back():
            return replace(event, seat=None)
        return event

    def _held_back(self) -> bool:
        """A pile question that may move the turn is open: the seat on turn may be wrong."""
        return self._questions_told and any(self._asked.values())

    def _round(self) -> Mapping[str, Any]:
        round_view = (self._view or {}).get("round") if self.game == "deck-dash" else None
        return round_view if isinstance(round_view, Mapping) else {}

    def _may_draw(self, seat: int | None, card: str) -> bool | None:
        """May the player on turn draw ``card`` from the discard pile now (Deck Dash's draw
        step, or the draws of a Keep Two / Draw 2 Discard 1 / Draw 4 Discard 3)? None: the
        game's view is not known."""
        if self.game != "deck-dash" or seat is None:
            return False
        round_view = self._round()
        if not round_view:
            return None
        if round_view.get("turn") != seat or round_view.get("phase") not in _DRAW_PHASES:
            return False
        try:
            parsed: Any = self._parse(card)
        except ValueError:
            return False
        if parsed.is_special:  # "Do not draw discarded special cards from the discard pile"
            return False
        options = (self._view or {}).get("options") or {}
        return not parsed.is_wild or bool(options.get("wild_from_discard", True))

    def _drawn(self, obs: Observation, card: str, seat: int, under: str) -> Proposal:
        """The player on turn drew ``card`` off the pile, showing ``under`` (TBL-16)."""
        history, poses = self._tops[obs.zone], self._poses[obs.zone]
        del history[-1], poses[-1]  # the card is in a hand now: the one under it is on top
        self._top_t.pop(obs.zone, None)
        if obs.pose is not None:
            poses[-1] = obs.pose
        payload = {"from": "discard", "card": card}
        event = Event("draw", seat, payload, obs.event_t_ns, Source.CAMERA)
        if obs.confidence >= self.threshold and not self._held_back():
            return event
        message = f"Did seat {seat} draw {card} from the discard pile?"
        return self._ask(
            obs.zone,
            Prompt("confirm_card", message, obs.zone, obs.t_ns, obs.confidence, event),
            under,
        )

    def _misread(self, obs: Observation, card: str, earlier: str, seat: int | None) -> Prompt:
        """A new face where nothing touched the pile: the camera misread ``earlier`` (or now
        misreads ``card``); the family says which (TBL-15). One tap overrules the earlier
        play; the camera's referee fills in its sequence number, as for an undo."""
        history, poses = self._tops[obs.zone], self._poses[obs.zone]
        history[-1] = card
        poses[-1] = obs.pose
        t_ns = self._top_t.get(obs.zone, obs.event_t_ns)  # the card was laid then, not now
        play = self._pile_event(obs.zone, card, seat, t_ns)
        asked = self._asked.get(obs.zone, [])
        if asked and asked[-1] == earlier:  # its play is asked about, not logged: ask again
            asked[-1] = card
            if len(asked) > 1:  # a play before it is asked about too: the turn may be wrong
                play = replace(play, seat=None)
            message = f"Is the card on the pile {card}? It was read as {earlier} before."
            kind = "who_played" if play.seat is None and play.kind != "turn_up" else "confirm_card"
            return Prompt(kind, message, obs.zone, obs.t_ns, obs.confidence, play)
        return Prompt(
            "misread",
            f"Was the card on the pile {card}, not {earlier}? Nothing touched the pile "
            "between the two readings.",
            obs.zone,
            obs.t_ns,
            obs.confidence,
            None,  # an overrule of the logged play: the log knows its sequence number
            ("overrule", "keep", "another"),
            (Answer("another", f"{card} was played on {earlier}", play),),
            earlier,
        )

    def _steal(self, obs: Observation, stolen: str, seat: int | None) -> Prompt:
        """A Deck Steal settled on ``stolen``: used by anyone, at any time, it takes the top
        discard and lies in its place (TBL-18). Who used it the picture cannot say; a plain
        discard of it by the player on turn looks the same. A card the camera cannot name is
        not offered as the one stolen: the tablet names it."""
        steal: Event | None = Event("steal", None, {"card": stolen}, obs.event_t_ns, Source.CAMERA)
        if self._unnamed(stolen):
            steal, stolen = None, "the card the camera cannot name"
        answers: tuple[Answer, ...] = ()
        if self._may_discard(seat):
            discard = self._pile_event(obs.zone, DECK_STEAL, seat, obs.event_t_ns)
            who = f"Seat {seat}" if seat is not None else "Someone"
            answers = (Answer("discard", f"{who} discarded it: no steal", discard),)
        return Prompt(
            "who_played",
            f"Who used a Deck Steal to take {stolen} from the discard pile?",
            obs.zone,
            obs.t_ns,
            obs.confidence,
            steal,
            answers=answers,
        )

    def _may_discard(self, seat: int | None) -> bool:
        """May the player on turn discard now? Not in their draw step (nor while drawing for
        a Keep Two / Draw 2 Discard 1 / Draw 4 Discard 3, nor when blocked): a Deck Steal
        seen then can only be a steal, so "discarded it" is not offered (TBL-23). True when
        the game's view is not known (as before)."""
        round_view = self._round()
        if not round_view:
            return True
        return round_view.get("turn") == seat and round_view.get("phase") in _DISCARD_PHASES

    def _pile(self, obs: Observation, seat: int | None) -> list[Proposal]:
        history = self._tops.setdefault(obs.zone, [])
        poses = self._poses.setdefault(obs.zone, [])
        if not obs.after or obs.after[0] == BACK:
            return []  # pile picked up or turned over: not a play
        if self._between_deals():
            return []  # the next deal's face-up cards: the deal names them (TBL-3)
        card = obs.after[0]
        unlaid = self._unlaid.pop(obs.zone, None)
        if unlaid is not None and card == unlaid.top and not obs.moved:
            return self._adopt(obs, unlaid)
        if unlaid is not None and card == unlaid.held:
            # the card that lay there before, seen again (a hand passed, nudged it): the
            # game's card is not laid yet, so none was taken back: nothing to ask
            self._unlaid[obs.zone] = unlaid
            return []
        if self._turn_may_be_over():
            seat = None  # the player on turn may have kept their drawn card (TBL-3)
        if obs.moved:  # the same face again, lying elsewhere: another copy, or straightened?
            if poses:
                poses[-1] = obs.pose
            return [self._same_face(obs, card, seat)]
        earlier = history[-1] if history else None
        if card == earlier:
            # the card remembered on top, back after the pile read empty (a missed detection)
            # or after the tracker was set to an older top the game caught up with (TBL-14)
            if not obs.before and lies_elsewhere(
                poses[-1], obs.pose, self.moved_tolerance, self.turned_tolerance
            ):  # but not where it lay: another copy played on an empty pile?
                poses[-1] = obs.pose
                return [self._same_face(obs, card, seat)]
            if obs.pose is not None:
                poses[-1] = obs.pose
            return []
        disturbed: bool | None = getattr(obs, "disturbed", None)  # the tracker's, if it says
        same_spot = (
            earlier is not None
            and obs.pose is not None
            and poses[-1] is not None
            and len(obs.pose) > 2
            and len(poses[-1]) > 2  # type: ignore[arg-type]
            and not lies_elsewhere(poses[-1], obs.pose, self.moved_tolerance, self.turned_tolerance)
        )
        if (
            earlier is not None
            and obs.before in ((earlier,), ())
            and (disturbed is False or (disturbed is None and same_spot))
        ):
            if self._unnamed(card):  # the card read before, unreadable now (glare): nothing new
                return []
            return [self._misread(obs, card, earlier, seat)]
        taken_back = len(history) >= 2 and history[-2] == card and obs.before == (earlier,)
        # the face under the last card again, but not where that card lay: another copy of it
        # played on the pile (Deck Dash holds two of every card), or the one below nudged
        another = taken_back and lies_elsewhere(
            poses[-2], obs.pose, self.moved_tolerance, self.turned_tolerance
        )
        may_draw = self._may_draw(seat, earlier) if taken_back and earlier else False
        if taken_back and not another and may_draw and seat is not None and earlier:
            return [self._drawn(obs, earlier, seat, card)]
        self._remember(obs.zone, card, obs.pose)
        self._top_t[obs.zone] = obs.event_t_ns
        if another:
            return [self._same_face(obs, card, seat)]
        if taken_back:  # or a twin laid where its twin lay (TBL-6): the family's to say
            return [self._ask(obs.zone, self._taken_back(obs, card, seat), card)]
        if self.game == "deck-dash" and card == DECK_STEAL and earlier is not None:
            return [self._steal(obs, earlier, seat)]
        if self._unnamed(card):
            return [self._unknown(obs)]
        event = self._pile_event(obs.zone, card, seat, obs.event_t_ns)
        if seat is None and event.kind != "turn_up":
            message = f"Who played {card}?{self._why_ask()}"
            prompt = Prompt("who_played", message, obs.zone, obs.t_ns, obs.confidence, event)
            return [self._ask(obs.zone, prompt, card)]
        # an earlier play here is still asked about: the seat on turn may be wrong, so the
        # tablet names the player (TBL-19)
        held = event.kind != "turn_up" and self._held_back()
        if held:
            event = replace(event, seat=None)
        if obs.confidence < self.threshold:
            prompt = Prompt(
                "confirm_card",
                f"Is the card on the pile {card}?",
                obs.zone,
                obs.t_ns,
                obs.confidence,
                event,
            )
            return [self._ask(obs.zone, prompt, card)]
        if held:
            message = f"Who played {card}? The camera's question about an earlier card is open."
            prompt = Prompt("who_played", message, obs.zone, obs.t_ns, obs.confidence, event)
            return [self._ask(obs.zone, prompt, card)]
        return [event]

    def _taken_back(self, obs: Observation, card: str, seat: int | None) -> Prompt:
        """``obs.before[0]`` taken back off the pile, ``card`` under it on top again: undo
        that play? Or another ``card`` was played there (TBL-6), which a card the camera
        cannot name is never offered as: a second unnamed card is not the same face."""
        choices: tuple[str, ...] = ("undo", "keep")
        answers: tuple[Answer, ...] = ()
        if not self._unnamed(card):
            choices += ("another",)
            twin_play = self._twin_play(obs, card, seat)
            answers = (Answer("another", f"Another {card} was played", twin_play),)
        return Prompt(
            "taken_back",
            f"{obs.before[0]} was taken back off the pile and {card} is on top again: undo"
            " that play?",
            obs.zone,
            obs.t_ns,
            obs.confidence,
            None,  # the tablet knows the logged play's sequence number; we do not
            choices,
            answers,
        )

    def _adopt(self, obs: Observation, unlaid: _Unlaid) -> list[Proposal]:
        """The game's own top card (the deal's, one typed on the tablet) laid at last, maybe
        after the camera read again the card that lay there before (the last game's, the
        card under a play typed first; not asked about as the game's card taken back, which
        the camera never saw laid): the game has it, so nothing is proposed, and the
        pile is remembered as the game has it. Another card seen settle first, or this face
        seen moved (a twin laid on it, TBL-6), ends this: it is read as usual then."""
        self._tops[obs.zone] = list(unlaid.tops)
        self._poses[obs.zone] = [*unlaid.poses[:-1], obs.pose]
        self._top_t.pop(obs.zone, None)
        return []

    def _dos_phase(self) -> str | None:
        """DOS's phase from the game's view ("deal" between deals); None in other games or
        when the view is not known."""
        phase = (self._view or {}).get("phase") if self.game == "dos" else None
        return phase if isinstance(phase, str) else None

    def _between_deals(self) -> bool:
        """No deal is in play: DOS between deals, Deck Dash before a Dash is dealt (its view
        has no round). A card turned up then is the next deal's, which names it (TBL-3).
        False when the view is not known."""
        if self.game == "deck-dash":
            return self._view is not None and self._view.get("round") is None
        return self._dos_phase() == "deal"

    def _turn_may_be_over(self) -> bool:
        """DOS: the player on turn has played on or drawn for both piles and a drawn card is
        still theirs to play or keep, so only their ``end_turn`` may be left. A card landing
        now may be their drawn card or the next player's: the game waits for ``end_turn``,
        so the camera cannot tell whose it is (TBL-3)."""
        if self._dos_phase() != "play":
            return False
        view = self._view or {}
        piles = [p for p in view.get("piles") or () if isinstance(p, Mapping)]
        draw_closed = bool((view.get("options") or {}).get("draw_for_blocked_pile", True))
        for pile in piles:
            # an open pile closed by a Skip needs nothing when no draw is owed for it (DOS-7)
            if pile.get("this_turn") == "open" and (draw_closed or not pile.get("closed")):
                return False
        return len(piles) == 2 and any(p.get("this_turn") == "drawn" for p in piles)

    def _why_ask(self) -> str:
        """Why a DOS play is asked about although someone is on turn; "" otherwise."""
        if not self._turn_may_be_over():
            return ""
        view = self._view or {}
        turn, players = view.get("turn"), view.get("players") or ()
        who = "The player on turn"
        if isinstance(turn, int) and 0 <= turn < len(players):
            who = players[turn].get("name") or who
        return f" {who} has played on or drawn for both piles: it may be the next player's card."

    def pile_of(self, zone: str) -> str | None:
        """The pile a discard zone is in the game's events: DOS's ``left``/``right`` (TBL-3);
        None in games with one discard pile."""
        if self.game != "dos":
            return None
        piles = [z.name for z in self.layout.discard_piles()]
        return ("left", "right")[min(discard_index(self.game, zone, piles), 1)]

    def _pile_event(self, zone: str, card: str, seat: int | None, t_ns: int | None) -> Event:
        if self.game == "dos":
            pile = self.pile_of(zone)
            victim = self._counter_by(pile, card)
            payload = {"card": card, "pile": pile}
            seat = seat if victim is None else victim
            return Event("play", seat, payload, t_ns, Source.CAMERA)
        if self.game == "hit-the-deck":
            if seat is None or self.turn_up_due():
                return Event("turn_up", None, {"card": card}, t_ns, Source.CAMERA)
            return Event("play", seat, {"card": card}, t_ns, Source.CAMERA)
        kind = "play" if card in _DD_PLAYS else "discard"
        return Event(kind, seat, {"card": card}, t_ns, Source.CAMERA)

    def turn_up_due(self) -> bool:
        """Hit the Deck waits for a card turned up (the deal, a Hand card or a Flip shuffled
        back): its view has a player on turn then, but the card is nobody's play (TBL-3)."""
        return self.game == "hit-the-deck" and (self._view or {}).get("need") == "turn_up"

    def _counter_by(self, pile: str | None, card: str) -> int | None:
        """The seat whose waiting Draw Four on ``pile`` the Skip ``card`` counters (DOS-10):
        a Skip of its colour on its pile. The victim may counter out of turn (after a
        Reverse), so the play is theirs, not the turn player's. None: no such Draw Four."""
        if self.game != "dos" or self._view is None:
            return None
        from referee.dos.cards import Symbol

        try:
            skip: Any = self._parse(card)
        except ValueError:
            return None
        if skip.symbol is not Symbol.SKIP:
            return None
        for four in self._view.get("pending_draw_fours") or ():
            try:
                drawn: Any = self._parse(four["card"])
            except (KeyError, TypeError, ValueError):
                continue
            if four.get("pile") == pile and drawn.color is skip.color:
                victim = four.get("victim")
                return victim if isinstance(victim, int) else None
        return None

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

    def _has_laid(self, zone: str, owner: int | None) -> bool | None:
        """Has ``owner`` a Dash in the game this round? From the game's view, else from the
        cards the game has in that seat's area (a seat that has not laid has no group);
        None when neither was told (TBL-17)."""
        laid = self._round().get("laid")
        if isinstance(laid, list) and owner is not None:
            return owner in laid
        if zone not in self._areas:
            return None
        return any(card != BLOCK_YOU for card in self._areas[zone])

    def _dash_problem(self, cards: list[str]) -> tuple[int, str] | None:
        """(the Dash's size, why the rules refuse ``cards`` as it) when the game's view
        says which Dash is played; None when they make it or the Dash is not known."""
        round_view = self._round()
        level = ((self._view or {}).get("options") or {}).get("level")
        number = round_view.get("dash")
        if not isinstance(level, str) or not isinstance(number, int):
            return None
        from referee.deckdash.check import check_dash
        from referee.deckdash.dashes import get_dash

        try:
            check = check_dash(level, number, [self._parse(c) for c in cards])  # type: ignore[misc]
            size = get_dash(level, number).size
        except ValueError:
            return None
        return None if check.valid else (size, check.reason)

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
        # a seat the game has no Dash for is still laying it, card by card perhaps: the whole
        # area is its Dash, never a handoff (TBL-17)
        laying = self._has_laid(obs.zone, owner) is False
        if not before or laying:
            cards = sorted(after)
            event = Event("lay", owner, {"cards": cards}, obs.event_t_ns, Source.CAMERA)
            problem = self._dash_problem(cards) if laying else None
            if problem is not None and len(cards) < problem[0]:
                return out  # not all of it yet: wait for the rest
            if obs.confidence < self.threshold or problem is not None:
                why = f" The rules say: {problem[1]}" if problem is not None else ""
                return [
                    *out,
                    Prompt(
                        "confirm_card",
                        f"Did seat {owner} lay {' '.join(cards)}?{why}",
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
