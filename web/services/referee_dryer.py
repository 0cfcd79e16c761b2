"""The camera referees Wash Dash dryers: each calibrated seat's dryer, read from the
dashboard's camera, becomes the engine's ``dryer`` event (or a question on the tablets).

Driven by ``CameraReferee`` (``web/services/referee_camera.py``): same thread, same frames,
same ``GameService.append`` and ``PromptBoard``. Per seat with ``seat_S_dryer`` and its three
``seat_S_dryer_bar_B`` zones: ``vision.dryer.read.DryerReader`` reads the dryer, a shared
``StabilityTracker`` keeps only readings that held still, and ``vision.dryer.watch.
dryer_proposal`` turns a settled reading into the event, or into a prompt when it is
impossible or doubtful.

**The empty-dryer reference.** The reader compares each frame with a picture of the same
dryer with nothing on it; without one it is wrong too often (docs/VISION-TABLE.md), so a
seat without a reference is not read. A reference is only ever a *still* picture (the
dryer zone unchanged for ``STILL_FRAMES`` frames and ``STILL_NS``) and is taken:

1. when the family presses "Dryers are empty now" on the Live page (every seat); the
   request lapses when a round is revealed or ends before a seat held still (the pieces
   hung since must not become background). A seat that has a picture is read against it
   first: one still holding a piece or a pin keeps its picture, and the status says so
   ("Bea's dryer still holds something …"); pressed again in the same phase, the button
   takes it (the old picture may be what is wrong: the family's word stands);
2. automatically before the game's first round (the engine has no round yet, the rules
   assemble the dryers empty), or between rounds for a seat the engine knows no non-empty
   dryer of, when the reader, reading *without* a reference, sees it empty (no piece at
   all, pinned or not: a piece whose pin it misses is still a piece, TBL-7) — never while a
   round runs (a server restarted mid-round, a recording): a plain look misses hung pieces
   now and then, and a player's pieces learned as background would judge their ``done``
   wrongly; the seat is not read (the pads ask its presses) until the family presses the
   button once the dryers are emptied after the round (the Live page says so);
3. refreshed between rounds (and before the first) whenever a seat's dryer reads empty
   (no piece seen, pinned or not, no pin holding nothing, no solid change against the old
   picture: ``vision.dryer.read.leftover``) and holds still: the family emptied it, so the
   light drifting over an evening is followed and a hung piece, or a pin left clipped to a
   bar, is never learned as background (the status says "something is still on …").

A piece seen with no pin on it, or a pin holding nothing, is a reading of its own, not the
empty dryer: it settles like any other and, being doubtful, is asked about (TBL-7, TBL-5).

**What is sent.** While a round runs, every settled change of a dryer. Between rounds the
family checks and empties the dryers: only a non-empty reading that answers a ``done``
still waiting for its dryer (``unchecked``) and given no reading yet is sent — once the
camera asked about it, the question is the family's (a half-emptied dryer never judges
it). A ``done`` without a dryer (a pad's button) gets the seat's settled reading at once,
even when the dryer did not change; an empty dryer answering it is asked, never sent (it
would be a mistake). A newer reading
of a seat clears that seat's older open dryer question. Before the first round nothing
is sent (the family is setting up).

**A press held for its card (WD-17, WD-21).** A pad's "done" names no card; with several
task cards open the engine holds the press until the tablet names one. The seat's first
sure, settled reading after the press (the dryer still, not covered, not settling on
something new; sure: no question about it, not empty) names it when it completes exactly
one open task card: the referee logs ``done`` with that card and that dryer, at the
press's ``t_ns`` (the First bonus goes by the button), ``source=camera`` — the plain
``dryer`` event is then not sent, the ``done`` carries it. When it completes none or
several, the tablets are asked which card (``which_card``: the cards it completes are
said, and each open card is an answer). A reading the camera is unsure of names nothing:
it is asked about the same way, and the next sure reading may still name the card. The
question follows the cards still open (another player took one): changed in place while
open, asked again when it is gone but the press is still held (once per change of the open
cards). It goes when the press does (named on the tablet, undone).

**What the camera cannot see (TBL-7).** A card hanging three pieces on one pin (T47, T48;
T45, T46 under Opposite) or three pins on one piece may be hung right while the camera misses
the piece at the back of the stack or a crowded pin. A claim of such a card that the reading
does not complete is asked on the tablet (``confirm_dryer``, saying why), never ruled a
mistake; a reading that completes it is sent as ever. A press's sure reading names no card
when a part it cannot see (``vision.dryer.read.hidden_variants``) would complete another open
card: the tablets are asked which, saying so.

**One question per press.** The question is ``prompts.which_card_prompt``, posted under the
press's key (``HeldPress``): the board keeps one open question per press. This referee owns
the presses of the seats it ``watches`` (it reads their dryer now): it names the card or
asks. Watched means readable now too: not covered, a settled reading. A press it has neither
named nor asked about ``PRESS_WAIT_NS`` after it was held (the dryer kept moving) is given
up (``owns``). Every other held press is asked about by the server's pad bridge
(``web/app.py``, the plain question, without a reading) as soon as it is held, or at its
re-check (about a second) once the camera lost it — a camera that reads that seat later
replaces that question with its own, or names the card. What was kept about a press or a
claim (answered, asked) is dropped when it leaves the view: an untimed press or ``done``
sent again has the very same key and is taken up afresh.

**The family's undo stands** (as for the piles, TBL-2). When the family undoes the camera's
``dryer`` that answered a ``done``, or its ``done`` naming a held press (the replay then
disregards it; an overrule replaces it and judges as usual), the claim or press waits again,
but that reading is not sent for it again while the seat's settled reading is the same: the
claim waits for another reading (or the tablet), the press is asked about (which card,
saying the card the camera named was undone). A changed reading answers anew.

Speed: a seat is read only when its dryer zone holds still and looks different from the
last read; a moving zone (a hand hanging a shirt) is occluded for the tracker (TBL-1), so
a half-hung reading never settles, and so is a dryer the reader finds covered by something
that is not a piece (a hand held still over it, ``DryerReading.occluded``).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import cv2
import numpy as np

from referee.events import Event, Source
from referee.washdash.dryer import Dryer
from web.errors import BadInput
from web.services.games import GameService
from web.services.prompts import (
    HeldPress,
    PromptBoard,
    held_presses,
    open_task_cards,
    refused_prompt,
    which_card_prompt,
)

log = logging.getLogger(__name__)

WASH_DASH = "wash-dash"
RACING = ("racing", "draw_on")
STILL_FRAMES = 5  # a reference is a picture the dryer zone held still for this long…
STILL_NS = 300_000_000  # …and this many ns
MOTION_LEVEL = 20  # levels in any channel: a thumbnail pixel changed (a colour, not grey)
MOVING = 0.02  # share of the dryer's thumbnail changed since the previous frame: moving
CHANGED = 0.003  # share changed since the last read: read again (a pin is ~0.8 %)
THUMB = (60, 45)  # the dryer zone's thumbnail for motion (w, h)
# A dryer read as covered (TBL-12) this long without moving is asked about: nobody holds a
# hand still for half a minute, but an empty picture taken with a hand in it (before the
# first round) keeps the dryer "covered" until the dryers are emptied and taken again.
COVERED_ASK_NS = 30_000_000_000
# A seat is watched (``DryerReferee.watches``) while frames of its game came this recently:
# a camera lost, turned off or pointed at another game asks nothing, so the pads ask.
WATCH_S = 3.0
# A held press the camera has neither named nor asked about this long (frame time: the dryer
# kept moving, or settled on nothing it can read) is given to the pads' plain question: a
# player waits a few seconds for the camera, not a round (WD-18: 2 players' round waits).
PRESS_WAIT_NS = 5_000_000_000
# A claim of a card hanging three pieces on one pin or three pins on one piece, not completed
# by the reading, is asked with this confidence (below TBL-5's threshold): the part the camera
# misses may be hidden behind the others (TBL-7), so it never rules the claim a mistake.
UNSEEN_CONFIDENCE = 0.5


class Counts(Protocol):
    """``CameraReferee.counts``: the dryers add to the same figures."""

    observations: int
    events: int
    prompts: int


@dataclass(frozen=True)
class _PressReading:
    """What the camera read for a held press (WD-21), kept so that its question can follow
    the cards still open."""

    press: HeldPress
    dryer: Dryer
    when: int  # the reading's time
    done_by: tuple[str, ...]  # the open task cards it completes
    doubt: str | None  # None: a sure reading; else why the camera is unsure ("" if it can't say)
    offered: tuple[str, ...] = ()  # the open task cards the question was built for


@dataclass
class _Seat:
    seat: int
    zone: str
    reader: Any  # vision.dryer.read.DryerReader
    reference: str | None = None  # how it was taken: "button", "game start", …
    reference_at: float | None = None
    prev: np.ndarray | None = None  # previous frame's thumbnail
    still: int = 0  # frames the zone has held still
    still_since: int | None = None
    refreshed: bool = False  # a reference was taken in this still spell
    read_thumb: np.ndarray | None = None  # thumbnail at the last read
    reading: Any = None  # ZoneReading of the last read
    dryer: Dryer | None = None  # the last read's dryer
    notes: tuple[str, ...] = ()  # the last read's notes (why the reader doubts it)
    pieces: bool = False  # the last read saw a piece, pinned or not (TBL-7)
    # what else the last read saw on a dryer (``vision.dryer.read.leftover``): a pin holding
    # nothing (TBL-5), a change it cannot name; None: nothing
    leftover: str | None = None
    settled: tuple[Dryer, float, int] | None = None  # committed (dryer, confidence, t_ns)
    settled_notes: tuple[str, ...] = ()  # … and the notes of that reading
    untimed: bool = False  # the committed reading was first seen after a gap (TBL-10)
    prompt_id: int | None = None  # this seat's open dryer question
    covered_since: int | None = None  # read as covered (TBL-12) since, while it holds still
    # … and the question asked about it (once, until the dryer is seen again: it then goes)
    covered_prompt: int | None = None
    # (the game and phase, why): "Dryers are empty now" kept this seat's picture, the dryer
    # still holding something; pressed again in that phase, the button takes it
    refused: tuple[tuple[Any, ...], str] | None = None
    press_seen: tuple[Any, ...] | None = None  # (held press, dryer text) last taken up
    press_since: tuple[HeldPress, int] | None = None  # the held press, first seen at (frame t)
    gave_up: HeldPress | None = None  # a press left unnamed ``PRESS_WAIT_NS``: the pads ask
    readable: bool = False  # the dryer shows a reading now (not covered, one settled): watched
    press_prompt: tuple[HeldPress, int] | None = None  # (held press, its question id)
    # what that question was built from; kept in step with the cards still open
    press_asked: _PressReading | None = None
    # (claim or press key, dryer text) of a camera answer the family undid: it stands while
    # the seat's settled reading is that text (``DryerReferee._undo_stands``)
    undone: tuple[Any, str] | None = None

    def status(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "reference": self.reference,
            "reference_at": self.reference_at,
            "dryer": self.settled[0].to_text() if self.settled else None,
            # something not a piece lies over it now (TBL-12): the tablet says so, so that a
            # family sees why a dryer is not read (an empty picture taken with a hand in it
            # keeps a dryer covered until the dryers are emptied and taken again)
            "covered": bool(getattr(self.reading, "occluded", False)),
        }


@dataclass
class _Game:
    game_id: int
    players: tuple[str, ...] = ()
    state: Any = None
    view: dict[str, Any] = field(default_factory=dict)
    answered: set[tuple[Any, ...]] = field(default_factory=set)  # claims given a reading
    synced_at: int | None = None  # GameService.changes when the view was last refreshed
    # seq of each camera event that answered a claim or a press -> (seat, key, dryer text):
    # an undo of it is noticed when the replay disregards that seq (``_note_undone``)
    sent: dict[int, tuple[int, Any, str]] = field(default_factory=dict)
    undone: set[int] = field(default_factory=set)  # those of them undone when last synced


def _unseen_shape(task: Any) -> str | None:
    """How a task card hangs what the camera cannot see whole (TBL-7), or None: three pieces
    on one pin (the one at the back may hide) or three pins on one piece (one may vanish)."""
    graph = task.graph()
    if any(len(graph.pieces_of(q)) >= 3 for q in range(len(graph.pins))):
        return "three pieces on one pin"
    if any(len(graph.pins_of(p)) >= 3 for p in range(len(graph.pieces))):
        return "three pins on one piece"
    return None


def _hidden_doubt(cards: list[str]) -> str:
    """The press question's reason when a hidden part may name another card (TBL-7)."""
    from referee.words import and_list

    return (
        "a piece hidden behind two on one pin, or a third pin hidden on a piece, would make "
        f"it {and_list(cards)}"
    )


def dryer_seats(layout: Any) -> list[int]:
    """Seats with a calibrated dryer zone (its bars are checked by the reader)."""
    from vision.table.zones import ZoneKind

    return sorted({z.seat for z in layout.of_kind(ZoneKind.DRYER) if z.seat is not None})


def _phase_key(game: _Game) -> tuple[Any, ...]:
    """The game and the part of it (before or between rounds, or a round) a request for
    the empty dryers was made in: it lapses when this changes."""
    view = game.view
    return (game.game_id, view.get("round"), view.get("phase") in RACING)


def _first_round(game: _Game) -> bool:
    """Before the first round: no round yet, and the game not over."""
    return game.view.get("round") is None and game.view.get("phase") != "over"


def _between(game: _Game) -> bool:
    """Before the first round or between rounds: when the dryers are emptied."""
    return game.view.get("phase") == "between_rounds" or _first_round(game)


def _leftover(got: Any) -> str | None:
    """``vision.dryer.read.leftover`` of a reading (None from a reader double's other kind)."""
    from vision.dryer.read import DryerReading, leftover

    return leftover(got) if isinstance(got, DryerReading) else None


def _holds(got: Any) -> str | None:
    """What a reading against the empty picture shows on the dryer, said briefly (its
    pieces, or a pin holding nothing), or None: nothing, only a change it cannot name (a
    light, a camera moved), or covered (a hand over it, or one in the old picture): the
    button is how such a picture is replaced."""
    if getattr(got, "occluded", False):
        return None
    if any(got.dryer.bars):
        return str(got.dryer.to_text())
    if getattr(got, "pieces", ()):
        return "; ".join(got.notes) or "a piece"
    return _leftover(got) if getattr(got, "lone_pins", ()) else None


def _changed(a: np.ndarray | None, b: np.ndarray) -> float:
    """Share of thumbnail pixels whose colour changed (0 without an earlier one)."""
    if a is None:
        return 0.0
    return float((cv2.absdiff(a, b).max(axis=2) > MOTION_LEVEL).mean())


class DryerReferee:
    """Every calibrated seat's dryer for the running Wash Dash game (module docstring)."""

    def __init__(
        self,
        games: GameService,
        prompts: PromptBoard,
        counts: Counts,
        reader_for: Callable[[Any, int], Any] | None = None,
    ) -> None:
        self.games = games
        # (layout, seat) -> a reader with DryerReader's canonical / set_reference / read
        self.reader_for = reader_for
        self.prompts = prompts
        self.counts = counts
        self.problems: list[str] = []  # seats whose calibration cannot be read
        self._seats: dict[int, _Seat] = {}
        self._tracker: Any = None
        self._game: _Game | None = None
        self.last: dict[str, Any] | None = None  # the last dryer event sent
        self._awaiting: set[int] = set()  # seats to take a reference of ("empty now")
        self._awaiting_in: tuple[Any, ...] | None = None  # the game and phase it was asked in
        self._empty_asked = False  # set by a request thread, read by the referee's
        self._stepped_at: float | None = None  # time.monotonic() of the last frame read

    # -- set-up ------------------------------------------------------------------------
    def set_layout(self, layout: Any) -> None:
        """New calibration: new readers (and references: the zones moved)."""
        from vision.dryer.read import DryerReader
        from vision.table.stability import StabilityTracker

        self._seats, self.problems = {}, []
        for seat in dryer_seats(layout):
            try:
                reader = (self.reader_for or DryerReader)(layout, seat)
            except (ValueError, StopIteration) as exc:
                self.problems.append(f"seat {seat}: {exc}")
                continue
            self._seats[seat] = _Seat(seat, f"seat_{seat}_dryer", reader)
        self._tracker = StabilityTracker()

    @property
    def game_id(self) -> int | None:
        return self._game.game_id if self._game else None

    @property
    def seats(self) -> list[int]:
        return sorted(self._seats)

    def watches(self, game_id: int, seat: int) -> bool:
        """Whether a press held for ``seat``'s card in game ``game_id`` is this referee's to
        name or ask about (module docstring): it reads that seat's dryer in that game now —
        calibrated, its empty picture taken, a frame read within ``WATCH_S``, and the dryer
        readable at the last frame (not covered, a settled reading): a covered dryer may stay
        covered, so its press goes to the pads at once. Asked from another thread (the pad
        bridge): it only reads."""
        game, watched, at = self._game, self._seats.get(seat), self._stepped_at
        return (
            game is not None
            and game.game_id == game_id
            and seat < len(game.players)
            and watched is not None
            and watched.reference is not None
            and watched.readable
            and at is not None
            and time.monotonic() - at < WATCH_S
        )

    def took_up(self, game_id: int, press: HeldPress) -> bool:
        """Whether the camera asked about ``press`` or decided on its reading: its question
        (or the family's dismissal of it) stands, so the pads never ask about it."""
        game, watched = self._game, self._seats.get(press.seat)
        if game is None or game.game_id != game_id or watched is None:
            return False
        asked = watched.press_prompt
        return press in game.answered or (asked is not None and asked[0] == press)

    def owns(self, game_id: int, press: HeldPress) -> bool:
        """Whether ``press`` is this referee's to name or ask about (WD-21, WD-22): taken up
        already, or its seat watched and the press not yet waiting ``PRESS_WAIT_NS``. The pad
        bridge asks about every other held press (its re-check follows this answer)."""
        if self.took_up(game_id, press):
            return True
        watched = self._seats.get(press.seat)
        return (
            self.watches(game_id, press.seat) and watched is not None and watched.gave_up != press
        )

    def empty_now(self) -> None:
        """The Live page's "Dryers are empty now": the next still picture of each dryer
        becomes its reference."""
        self._empty_asked = True

    def _in_game(self, seat: int) -> bool:
        """Whether ``seat`` has a player in the game refereed now (any seat before a game):
        a calibrated dryer nobody plays is never read, so nothing waits for it."""
        game = self._game
        return game is None or seat < len(game.players)

    def status(self) -> dict[str, Any]:
        awaiting = any(self._in_game(s) for s in self._awaiting)
        seats = [
            # kept: why its empty picture was not retaken (something is still on it)
            {**s.status(), "kept": self._kept(s)}
            for n, s in sorted(self._seats.items())
            if self._in_game(n)  # a calibrated dryer nobody plays is never read: not listed
        ]
        return {
            "seats": seats,
            "waiting_for_empty": awaiting or self._empty_asked,
            "problems": list(self.problems),
            # a round runs: "Dryers are empty now" pressed now takes whatever hangs on the
            # dryers as their background, so the Live page warns
            "round_on": self._game is not None and self._game.view.get("phase") in RACING,
        }

    def message(self) -> str:
        """The status line: what is read, and why a dryer's empty picture was kept."""
        kept = [
            k for n, s in sorted(self._seats.items()) if self._in_game(n) if (k := self._kept(s))
        ]
        return "; ".join([self._reading_message(), *kept])

    def _kept(self, seat: _Seat) -> str | None:
        """Why the seat's empty picture stays as it is, or None: the button found the dryer
        holding something (this phase), or between rounds (or before the first) it shows no
        piece but something is still on it (``leftover``), so it is not retaken as emptied."""
        game = self._game
        if game is None:
            return None
        if seat.refused is not None and seat.refused[0] == _phase_key(game):
            return seat.refused[1]
        piece_or_unread = seat.dryer is None or any(seat.dryer.bars) or seat.pieces
        if seat.reference is None or piece_or_unread or seat.leftover is None or not _between(game):
            return None
        return f"something is still on {self._name(game, seat)}'s dryer ({seat.leftover})"

    def _reading_message(self) -> str:
        missing = [s.seat for s in self._seats.values() if s.reference is None]
        missing = [s for s in missing if self._in_game(s)]
        if any(self._in_game(s) for s in self._awaiting) or self._empty_asked:
            return "waiting for a still look at the empty dryers"
        if missing:
            who = ", ".join(str(s) for s in missing)
            game = self._game
            if game is not None and game.view.get("phase") in RACING:
                # emptying a dryer now would undo a player's task: after the round
                return (
                    f"seat {who}: no picture of the empty dryer yet, so not read this round — "
                    "once the dryers are emptied after it, press 'Dryers are empty now'"
                )
            return (
                f"seat {who}: no picture of the empty dryer yet — empty it and press "
                "'Dryers are empty now'"
            )
        if not self.seats:
            return "no dryer is calibrated"
        seats = [s for s in self.seats if self._in_game(s)]
        if not seats:
            return "no player sits at a calibrated dryer"
        return f"reading the dryer{'s' if len(seats) > 1 else ''} of seat" + (
            f"s {', '.join(str(s) for s in seats)}" if len(seats) > 1 else f" {seats[0]}"
        )

    # -- one frame ---------------------------------------------------------------------
    def step(self, game_id: int, image: np.ndarray, t_ns: int, after_gap: bool = False) -> None:
        """One frame; ``after_gap``: the source says it follows a gap (a reconnect, TBL-10),
        as frames more than a second apart do by themselves."""
        from vision.table.stability import ZoneReading

        if after_gap and self._tracker is not None:
            self._tracker.mark_gap()
        game = self._context(game_id)
        if self._empty_asked:
            self._empty_asked = False
            self._awaiting, self._awaiting_in = set(self._seats), _phase_key(game)
        if self._awaiting and self._awaiting_in != _phase_key(game):
            # the button asked for the dryers as they were when it was pressed: a round
            # revealed (or ended) since, pieces may hang on a dryer that never held still,
            # and they must not become its background
            log.info("camera referee: 'empty now' lapsed for seats %s", sorted(self._awaiting))
            self._awaiting = set()
        # a seat nobody plays is never read: waiting for it would wait for good (and a
        # later game with fewer players must not inherit it)
        self._awaiting = {s for s in self._awaiting if self._in_game(s)}
        self._stepped_at = time.monotonic()
        n_players = len(game.view.get("cards") or [])
        seats = [s for s in self._seats.values() if s.seat < n_players]
        readings: dict[str, Any] = {}
        for seat in seats:
            flat = seat.reader.canonical(image)
            thumb = cv2.resize(flat, THUMB, interpolation=cv2.INTER_AREA)
            moving = _changed(seat.prev, thumb) > MOVING
            seat.prev = thumb
            if moving:
                seat.still, seat.still_since, seat.refreshed = 0, None, False
            else:
                seat.still += 1
                seat.still_since = t_ns if seat.still_since is None else seat.still_since
            self._reference(game, seat, image, t_ns)
            if seat.reference is None:
                continue
            if moving:
                readings[seat.zone] = ZoneReading((), 0.0, occluded=True)
                continue
            if seat.reading is None or _changed(seat.read_thumb, thumb) > CHANGED:
                got = seat.reader.read(image)
                seat.read_thumb, seat.notes = thumb, tuple(getattr(got, "notes", ()))
                if getattr(got, "occluded", False):
                    # a hand held still over the dryer: like motion, never a reading (and
                    # never "reads empty": no reference is taken of a hand)
                    seat.reading, seat.dryer = ZoneReading((), 0.0, occluded=True), None
                    seat.pieces, seat.leftover = False, None
                else:
                    seat.pieces = bool(getattr(got, "pieces", ()))
                    seat.leftover = _leftover(got)
                    # a piece seen with no pin (TBL-7) or a pin holding nothing is a reading
                    # of its own, not the empty dryer: it settles, and its doubt becomes a
                    # question (TBL-5)
                    lone = bool(getattr(got, "lone_pins", ()))
                    shown = any(got.dryer.bars) or seat.pieces or lone
                    text = (got.dryer.to_text(),) if shown else ()
                    seat.reading, seat.dryer = ZoneReading(text, got.confidence), got.dryer
            readings[seat.zone] = seat.reading
        by_zone = {s.zone: s for s in seats}
        for obs in self._tracker.update(t_ns, readings):
            self.counts.observations += 1
            seat = by_zone[obs.zone]
            dryer = Dryer.parse(obs.after[0]) if obs.after else Dryer()
            seat.settled = (dryer, obs.confidence, obs.t_ns)
            seat.settled_notes, seat.untimed = seat.notes, obs.after_gap
            self._observed(game, seat)
        for seat in seats:
            self._answer_press(game, seat, t_ns)
            self._answer_claim(game, seat, t_ns)
            self._long_covered(game, seat, t_ns)
        for seat in self._seats.values():
            self._watch_state(game, seat, t_ns, seat in seats)

    def _watch_state(self, game: _Game, seat: _Seat, t_ns: int, playing: bool) -> None:
        """What ``watches``/``owns`` answer for the seat after this frame: readable now (a
        reading, not covered, settled), and whether its held press waited too long."""
        reading = seat.reading
        committed = self._tracker.committed.get(seat.zone, ()) if self._tracker else ()
        seat.readable = (
            playing
            and seat.reference is not None
            and reading is not None
            and not reading.occluded
            and (seat.settled is not None or not committed)
        )
        press = self._held_press(game, seat.seat) if playing else None
        if press is None:
            seat.press_since = None
            return
        if seat.press_since is None or seat.press_since[0] != press:
            seat.press_since = (press, t_ns)
        if (
            t_ns - seat.press_since[1] >= PRESS_WAIT_NS
            and not self.took_up(game.game_id, press)
            and seat.gave_up != press
        ):
            seat.gave_up = press
            log.info("camera referee: seat %s's press left to the pads' question", seat.seat)

    # -- the game ----------------------------------------------------------------------
    def view(self, game_id: int) -> dict[str, Any]:
        """The game's view (phase, round, claims, dryers), refreshed when its log moved."""
        return self._context(game_id).view

    def _context(self, game_id: int) -> _Game:
        game = self._game
        if game is None or game.game_id != game_id:
            game = self._game = _Game(game_id, tuple(self.games.record(game_id).players))
            for seat in self._seats.values():
                seat.prompt_id = seat.press_prompt = seat.press_seen = seat.press_asked = None
                seat.press_since = seat.gave_up = seat.undone = None
                seat.covered_prompt = seat.refused = None
        self._refresh(game)
        return game

    def _refresh(self, game: _Game) -> None:
        changes = self.games.changes
        if game.synced_at == changes:  # nothing published since: no query per frame
            return
        result = self.games.result(game.game_id)
        game.synced_at = changes
        if result.state is not game.state:
            game.state = result.state
            game.view = self.games.rules(WASH_DASH).view(result.state)
            self._note_undone(game, result.disregarded)
            self._forget_gone(game)

    def _note_undone(self, game: _Game, disregarded: set[int]) -> None:
        """The family undid a camera answer to a claim or press (the replay disregards its
        seq; an overrule keeps it, replaced): that seat keeps the answer's key and reading,
        and the camera does not send that reading for it again (``_undo_stands``)."""
        undone = disregarded & game.sent.keys()
        for seq in sorted(undone - game.undone):  # newly undone (again, after a redo)
            number, key, text = game.sent[seq]
            if (seat := self._seats.get(number)) is not None:
                seat.undone = (key, text)
        game.undone = undone

    def _undo_stands(self, seat: _Seat, key: Any, dryer: Dryer) -> bool:
        """Whether the family undid the camera's answer for ``key`` made from this very
        reading (TBL-2: their word stands until the dryer visibly changes). A different
        reading ends it: the camera may answer anew."""
        if seat.undone is None or seat.undone[0] != key:
            return False
        if seat.undone[1] != dryer.to_text():
            seat.undone = None
            return False
        return True

    def _forget_gone(self, game: _Game) -> None:
        """Drop what was kept about presses and claims no longer in the view (named, undone,
        refused): an untimed press or ``done`` sent again has the very same key
        (``HeldPress(round, seat, None)``), and must be taken up afresh, not found answered."""
        held = set(held_presses(game.view))
        live: set[Any] = set(held)
        live.update(self._unchecked(game, s) for s in range(len(game.players)))
        game.answered &= live
        for seat in self._seats.values():
            if seat.press_seen is not None and seat.press_seen[0] not in held:
                seat.press_seen = None
            if seat.press_prompt is not None and seat.press_prompt[0] not in held:
                self._drop_press_question(game, seat)
            if seat.gave_up is not None and seat.gave_up not in held:
                seat.gave_up = None
            if seat.undone is not None and seat.undone[0] not in live:
                seat.undone = None  # its claim or press is gone: one sent again is new

    def _unchecked(self, game: _Game, seat: int) -> tuple[Any, ...] | None:
        """The seat's ``done`` still waiting for a dryer reading (a key), else None."""
        for claim in game.view.get("claims") or []:
            if claim.get("seat") == seat and claim.get("status") == "unchecked":
                return (game.view.get("round"), seat, claim.get("card"), claim.get("t_ns"))
        return None

    def _held_press(self, game: _Game, seat: int) -> HeldPress | None:
        """The seat's pad press waiting for its card while the race runs (WD-17), else None."""
        return next((p for p in held_presses(game.view) if p.seat == seat), None)

    def _engine_dryer_empty(self, game: _Game, seat: int) -> bool:
        dryers = game.view.get("dryers") or []
        known = dryers[seat] if seat < len(dryers) else None
        return known is None or not any(Dryer.from_dict(known).bars)

    # -- the reference -----------------------------------------------------------------
    def _reference(self, game: _Game, seat: _Seat, image: np.ndarray, t_ns: int) -> None:
        if seat.still < STILL_FRAMES or t_ns - (seat.still_since or t_ns) < STILL_NS:
            return
        first_round, between = _first_round(game), _between(game)
        if seat.seat in self._awaiting:
            if not self._button_takes(game, seat, image):
                return
            why = "button"
        elif seat.refreshed:
            return  # one reference per still spell
        elif seat.reference is None and (
            first_round
            or (game.view.get("phase") not in RACING and self._engine_dryer_empty(game, seat.seat))
        ):
            # the rules assemble the dryers empty, but a shirt left hanging (calibrating, a
            # server started between games) would become background and never be seen:
            # before the first round too, only a dryer a plain look sees empty is taken. Never
            # while a round runs: a plain look misses hung pieces now and then (6 of 241
            # rendered dryers, a full one among them), and a player's pieces learned as
            # background would judge their done wrongly, for sure: the seat is not read (the
            # pads ask its presses) until the family takes the picture (``message``)
            from vision.dryer.read import looks_empty

            if not looks_empty(seat.reader.read(image)):  # no reference yet: a plain look
                seat.refreshed = True  # not plainly empty: wait for the button or a round
                return
            why = "before the first round" if first_round else "it looked empty"
        elif seat.reference is not None and between and self._reads_empty(seat):
            why = "emptied"
        else:
            return
        seat.reader.set_reference(image)
        seat.reference, seat.reference_at, seat.refreshed = why, time.time(), True
        seat.refused = None
        seat.reading = seat.read_thumb = None  # read again against the new reference
        if why != "emptied":
            self._tracker.reset([seat.zone])  # whatever was committed is background now
            seat.settled, seat.settled_notes, seat.untimed = None, (), False
        self._awaiting.discard(seat.seat)
        log.info("camera referee: seat %s's empty dryer taken (%s)", seat.seat, why)

    def _reads_empty(self, seat: _Seat) -> bool:
        committed = self._tracker.committed.get(seat.zone, ())
        return (
            not committed
            and seat.dryer is not None
            and not any(seat.dryer.bars)
            and not seat.pieces  # a piece hung with no pin is no empty dryer (TBL-7)
            # nor one with a pin left on a bar, or a change against the old picture the
            # reader cannot name: taken, it would hide what is there and show what went
            and seat.leftover is None
        )

    def _button_takes(self, game: _Game, seat: _Seat, image: np.ndarray) -> bool:
        """Whether "Dryers are empty now" takes this picture of the seat's dryer. A seat
        with an empty picture is read against it first: a dryer still holding a piece or a
        pin is kept as it was (taken, its clothes would be background and read as phantoms
        once gone), and the status says why. Pressed again in the same phase, the button
        takes it: the old picture may be what is wrong, and the family's word stands."""
        phase = _phase_key(game)
        if seat.reference is None or (seat.refused is not None and seat.refused[0] == phase):
            return True
        held = _holds(seat.reader.read(image))
        if held is None:
            return True
        seat.refused = (
            phase,
            f"{self._name(game, seat)}'s dryer still holds something ({held}): not taken as "
            "empty — take it off, or press 'Dryers are empty now' again if it is empty",
        )
        seat.refreshed = True  # one look per still spell, as for every reference
        self._awaiting.discard(seat.seat)
        log.info("camera referee: seat %s's dryer holds %s: empty picture kept", seat.seat, held)
        return False

    # -- proposals ---------------------------------------------------------------------
    def _observed(self, game: _Game, seat: _Seat) -> None:
        """A seat's dryer settled on a new reading: send it when the game wants it."""
        assert seat.settled is not None
        dryer, confidence, t_ns = seat.settled
        phase = game.view.get("phase")
        if phase in RACING and self._answer_press(game, seat, t_ns, fresh=True):
            return  # the reading named a held press's card, or asks which it was
        claim = self._unchecked(game, seat.seat)
        if claim is not None and self._undo_stands(seat, claim, dryer):
            return  # the very reading the family undid for this claim: nothing new
        if phase in RACING or (
            phase == "between_rounds"
            and claim is not None
            and claim not in game.answered  # a question about it is the family's (TBL-8)
            and any(dryer.bars)
        ):
            self._propose(game, seat, dryer, confidence, t_ns, claim)

    def _stable(self, seat: _Seat, t_ns: int) -> tuple[Dryer, float, int] | None:
        """The seat's settled reading when the dryer shows it now (held still, not covered,
        not settling on something new), else None. Nothing settled since the empty
        picture is the empty dryer."""
        if seat.reference is None or seat.still == 0:
            return None
        committed = self._tracker.committed.get(seat.zone, ())
        if seat.reading is None or seat.reading.occluded or seat.reading.cards != committed:
            return None  # the dryer is covered or settling on something new: wait for it
        if seat.settled is None:
            if committed:
                return None  # committed before this game's context: wait for a change
            seat.settled = (Dryer(), 1.0, t_ns)
            seat.settled_notes, seat.untimed = (), False
        return seat.settled

    def _answer_claim(self, game: _Game, seat: _Seat, t_ns: int) -> None:
        """A ``done`` waiting for a dryer: the seat's settled reading, once per claim."""
        claim = self._unchecked(game, seat.seat)
        if claim is None or claim in game.answered:
            return
        settled = self._stable(seat, t_ns)
        if settled is None:
            return
        dryer, confidence, when = settled
        if self._undo_stands(seat, claim, dryer):
            return  # the family undid this answer: their word stands while it shows
        if not any(dryer.bars):
            confidence = 0.0  # an empty dryer for a done: ask, never rule a mistake
        self._propose(game, seat, dryer, confidence, when, claim)

    def _answer_press(self, game: _Game, seat: _Seat, t_ns: int, fresh: bool = False) -> bool:
        """A pad's press held for its card (WD-17): the seat's stable reading names the card
        when it is sure and completes exactly one open task card; otherwise the tablets are
        asked which (WD-21). ``fresh``: the reading has just settled (``_observed``), so it
        is also sent as the seat's ``dryer`` when it names nothing. True when the reading
        was taken up for the press (the caller sends nothing more for it)."""
        press = self._held_press(game, seat.seat)
        if seat.press_prompt is not None and seat.press_prompt[0] != press:
            self._drop_press_question(game, seat)  # named on a tablet, undone: moot
        if press is not None and seat.press_asked is not None and seat.press_asked.press == press:
            self._follow_press_question(game, seat)
        if press is None or press in game.answered:
            return False
        settled = self._stable(seat, t_ns)
        if settled is None:
            return False
        dryer, confidence, when = settled
        if seat.press_seen == (press, dryer.to_text()):
            return fresh  # asked about this very reading already
        seat.press_seen = (press, dryer.to_text())
        from vision.table.to_events import DEFAULT_THRESHOLD

        sure = confidence >= DEFAULT_THRESHOLD and not dryer.problems() and any(dryer.bars)
        rules = self.games.rules(WASH_DASH)
        done_by = tuple(rules.open_tasks_done_by(game.state, dryer))  # type: ignore[attr-defined]
        hidden = self._hidden_cards(game, dryer, done_by) if sure else ()
        sure = sure and not hidden  # TBL-7: what it cannot see may name another card
        if self._undo_stands(seat, press, dryer):
            # the family undid the card this reading named: never named again from it, but
            # the press is still held, so the tablets are asked which card (WD-21)
            doubt = "the card it named was undone on the tablet"
            self._ask_press(game, seat, _PressReading(press, dryer, when, done_by, doubt))
            return True
        if sure:
            game.answered.add(press)  # the first sure reading after the press decides (WD-12)
        if sure and len(done_by) == 1:
            self._drop_press_question(game, seat)
            self._clear_question(game, seat)
            payload = {"card": done_by[0], "dryer": dryer.to_dict()}
            done = Event("done", seat.seat, payload, press.t_ns, Source.CAMERA)
            self._append(game, seat, done, answers=press)
            return True
        if sure and fresh:
            self._propose(game, seat, dryer, confidence, when, None)  # shown, as ever
        doubt = None if sure else _hidden_doubt(hidden) if hidden else self._doubt(seat)
        self._ask_press(game, seat, _PressReading(press, dryer, when, done_by, doubt))
        return True

    def _hidden_cards(self, game: _Game, dryer: Dryer, done_by: tuple[str, ...]) -> list[str]:
        """The open task cards ``dryer`` does not complete but would with a part the camera
        cannot see (``vision.dryer.read.hidden_variants``: a piece behind two sharing a pin,
        a pin crowding a piece held by two): the camera cannot tell which was hung (TBL-7)."""
        from vision.dryer.read import hidden_variants

        rules = self.games.rules(WASH_DASH)
        cards: dict[str, None] = {}
        for variant in hidden_variants(dryer):
            done = rules.open_tasks_done_by(game.state, variant)  # type: ignore[attr-defined]
            cards.update(dict.fromkeys(c for c in done if c not in done_by))
        return list(cards)

    def _unseen_claim(self, game: _Game, card: Any, dryer: Dryer) -> str | None:
        """Why the camera does not rule a claim of ``card`` a mistake from ``dryer`` (TBL-7),
        or None: the card (as this round's events make it) hangs three pieces on one pin or
        three pins on one piece, which the camera cannot see whole, and ``dryer`` does not
        complete it: the piece or pin it misses may be hidden, so the tablet is asked."""
        from referee.washdash.checker import effective_task, satisfies

        rules, state = self.games.rules(WASH_DASH), game.state
        deck = rules.deck_of(state)  # the deck the game was set up with (WD-5), else the file's
        rnd = getattr(state, "current", None)
        if deck is None or rnd is None or card not in deck or deck[card].task is None:
            return None
        task = deck[card].task
        shape = _unseen_shape(effective_task(task, rnd.events))
        if shape is None or satisfies(task, dryer, rnd.events, extra_items=state.extra_items).ok:
            return None
        return f"{card} hangs {shape}, and the camera cannot see it whole: check the dryer"

    def _doubt(self, seat: _Seat) -> str:
        """Why a settled reading is not sure (said in the press's question), "" when there
        is no reason besides a low confidence."""
        dryer = seat.settled[0] if seat.settled else Dryer()
        if not any(dryer.bars):
            # a piece seen with no pin says so (TBL-7); else the dryer looks empty
            return "; ".join(seat.settled_notes) or "it looks empty"
        return "; ".join(dryer.problems() or seat.settled_notes)

    def _ask_press(self, game: _Game, seat: _Seat, reading: _PressReading) -> None:
        """Which card did the press mean? ``prompts.which_card_prompt``, told what the
        camera read: each open task card is an answer, a ``done`` at the press's time
        carrying the reading when the reading completes that card (so the tap confirms
        both); a card it does not complete is checked as any tablet ``done`` (on the reading
        the card-less ``done`` carried, if it did: WD-12, WD-17). It replaces
        any question about the same press (the pad bridge's, asked before this seat was
        read)."""
        question = self._press_question(game, seat, reading)
        self._drop_press_question(game, seat)
        self._clear_question(game, seat)  # this question is about the same reading
        self.counts.prompts += 1
        item = self.prompts.add(game.game_id, question, key=reading.press)
        seat.press_prompt = (reading.press, item.id)
        offered = tuple(str(c.get("id")) for c in open_task_cards(game.view))
        seat.press_asked = replace(reading, offered=offered)

    def _follow_press_question(self, game: _Game, seat: _Seat) -> None:
        """The press's question follows the cards still open (another player took one, an
        undo gave one back): changed in place while it is open; asked again when it is gone
        (dismissed, or a tap the rules refused) while the press is still held — once per
        change of the open cards, not every frame."""
        reading = seat.press_asked
        assert reading is not None
        cards = tuple(str(c.get("id")) for c in open_task_cards(game.view))
        if cards == reading.offered:
            return
        seat.press_asked = replace(reading, offered=cards)
        question = self._press_question(game, seat, reading)
        if seat.press_prompt is not None and self.prompts.update(
            game.game_id, seat.press_prompt[1], question
        ):
            return
        self.counts.prompts += 1
        press = reading.press
        seat.press_prompt = (press, self.prompts.add(game.game_id, question, key=press).id)

    def _press_question(self, game: _Game, seat: _Seat, reading: _PressReading) -> dict[str, Any]:
        """``_ask_press``'s question, for the task cards open now (what the reading
        completes among them)."""
        from referee.words import and_list

        who = self._name(game, seat)
        text = reading.dryer.to_text()
        cards = open_task_cards(game.view)
        still_open = {str(c.get("id")) for c in cards}
        done_by = tuple(c for c in reading.done_by if c in still_open)
        if reading.doubt is not None:
            why = f" ({reading.doubt})" if reading.doubt else ""
            seen = f"the camera is not sure of {who}'s dryer{why}: it reads {text}"
            if done_by:
                seen += f", which completes {and_list(list(done_by))}"
        elif done_by:
            seen = f"{who}'s dryer reads {text}, which completes {and_list(list(done_by))}"
        else:
            open_ids = [str(c.get("id")) for c in cards]
            seen = (
                f"{who}'s dryer reads {text}, which completes none of the open task cards "
                f"({and_list(open_ids)})"
            )
        return which_card_prompt(
            reading.press,
            who,
            cards,
            source=Source.CAMERA,
            seen=seen,
            dryer=reading.dryer.to_dict(),
            completes=done_by,
            zone=seat.zone,
            t_ns=reading.when,
        )

    def _drop_press_question(self, game: _Game, seat: _Seat) -> None:
        asked, seat.press_prompt, seat.press_asked = seat.press_prompt, None, None
        if asked is None:
            return
        with contextlib.suppress(BadInput):  # answered on a tablet already
            self.prompts.dismiss(game.game_id, asked[1])

    def _propose(
        self,
        game: _Game,
        seat: _Seat,
        dryer: Dryer,
        confidence: float,
        t_ns: int,
        claim: tuple[Any, ...] | None,
    ) -> None:
        from vision.dryer.watch import dryer_proposal

        notes = seat.settled_notes
        if claim is not None:
            game.answered.add(claim)
            unseen = self._unseen_claim(game, claim[2], dryer)
            if unseen is not None:  # TBL-7: asked, never ruled a mistake from what it misses
                confidence, notes = min(confidence, UNSEEN_CONFIDENCE), (*notes, unseen)
        self._clear_question(game, seat)
        # the dryer's time rules nothing (WD-8 orders the dones by their own t_ns, WD-12 judges
        # a done by the next reading received), but a reading first seen after a gap is sent
        # untimed, like a pile's (TBL-10): it was not seen arriving
        proposal = dryer_proposal(
            seat.seat,
            dryer,
            confidence,
            t_ns,
            seat.zone,
            timed=not seat.untimed,
            notes=notes,
        )
        if isinstance(proposal, Event):
            self._append(game, seat, proposal, answers=claim)
            return
        question = proposal.to_dict()
        # "Seat 0's dryer reads …" → "Ana's dryer reads …"
        who = f"{self._name(game, seat)}'s"
        question["message"] = question["message"].replace(f"Seat {seat.seat}'s", who, 1)
        self._ask(game, seat, question)

    def _append(
        self, game: _Game, seat: _Seat, event: Event, answers: tuple[Any, ...] | None = None
    ) -> None:
        """Log a camera event; ``answers``: the claim or press (its key) it answers, kept
        so that the family's undo of it is noticed (``_note_undone``)."""
        try:
            out = self.games.append(game.game_id, event)
        except BadInput as exc:  # the rules cannot read it: ask instead of dropping it
            dryer = Dryer.from_dict(event.payload["dryer"]).to_text()
            seen = f"The camera read {self._name(game, seat)}'s dryer as {dryer}"
            when = event.t_ns if event.t_ns is not None else seat.settled[2] if seat.settled else 0
            self._ask(game, seat, refused_prompt(seen, exc.message, when, seat.zone))
            return
        self.counts.events += 1
        self.last = {"seq": out["seq"], "event": event.to_dict(), "at": time.time()}
        if answers is not None:
            text = Dryer.from_dict(event.payload["dryer"]).to_text()
            game.sent[out["seq"]] = (seat.seat, answers, text)
        self._refresh(game)

    @staticmethod
    def _name(game: _Game, seat: _Seat) -> str:
        return game.players[seat.seat] if seat.seat < len(game.players) else f"seat {seat.seat}"

    def _long_covered(self, game: _Game, seat: _Seat, t_ns: int) -> None:
        """Ask once when the dryer has read as covered, holding still, for
        ``COVERED_ASK_NS``: its empty picture may hold a hand (TBL-12). The question goes
        once the dryer is seen again, still and not covered: it is moot then."""
        still = seat.still > 0 and seat.reading is not None
        if not (still and seat.reading.occluded):
            seat.covered_since = None
            if still:
                self._drop_covered(game, seat)
            return
        if seat.covered_since is None:
            seat.covered_since = t_ns
        if seat.covered_prompt is not None or t_ns - seat.covered_since < COVERED_ASK_NS:
            return
        # mid-round, emptying the dryers would undo the players' tasks (TBL-9's words)
        when = (
            "press 'Dryers are empty now' when the dryers are next emptied"
            if game.view.get("phase") in RACING
            else "empty the dryers and tap 'Dryers are empty now'"
        )
        self.counts.prompts += 1
        item = self.prompts.add(
            game.game_id,
            {
                "prompt": "dryer_covered",
                "message": (
                    f"{self._name(game, seat)}'s dryer has looked covered for "
                    f"{COVERED_ASK_NS // 1_000_000_000} s. If nothing is over it, its empty "
                    f"picture may hold a hand: {when}."
                ),
                "zone": seat.zone,
                "t_ns": t_ns,
                "confidence": None,
                "suggestion": None,
                "choices": [],
            },
        )
        seat.covered_prompt = item.id

    def _drop_covered(self, game: _Game, seat: _Seat) -> None:
        pid, seat.covered_prompt = seat.covered_prompt, None
        if pid is None:
            return
        with contextlib.suppress(BadInput):  # dismissed on a tablet already
            self.prompts.dismiss(game.game_id, pid)

    def _ask(self, game: _Game, seat: _Seat, prompt: Mapping[str, Any]) -> None:
        self.counts.prompts += 1
        seat.prompt_id = self.prompts.add(game.game_id, prompt).id

    def _clear_question(self, game: _Game, seat: _Seat) -> None:
        """A newer reading makes the seat's older dryer question moot."""
        if seat.prompt_id is None:
            return
        pid, seat.prompt_id = seat.prompt_id, None
        with contextlib.suppress(BadInput):  # answered on a tablet already
            self.prompts.dismiss(game.game_id, pid)
