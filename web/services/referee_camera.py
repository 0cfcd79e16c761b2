"""The camera referees the running game: Vision II's watcher, fed into the dashboard.

One background thread per server (started by ``tabletop serve --camera …``): frames from
the dashboard's own camera feed (a live camera can be opened only once) go through
``TableWatcher`` with the zones saved on the Calibrate page; each stable observation goes
through ``EventMapper`` with the seat on turn taken from the game's view. A confident play
is appended with ``source=camera`` through ``GameService.append`` — the console's path, so
verdicts (an illegal play gets its verdict), scoreboard and SSE updates are the usual ones;
anything the camera is unsure of becomes a question on the tablets (``PromptBoard``).
Wash Dash is refereed from the dryers instead (``web/services/referee_dryer.py``, called
from the same thread with the same frames).

Why the piles are synchronised with the game: the watcher compares each pile with what it
last committed. When the game's own top card changes (the deal, a play typed on the
tablet, an accepted question) the watcher's idea of the pile is set to it, so a card
entered by hand is not proposed again when the camera sees it; but while the camera has
not seen that card laid, the watcher keeps the card it saw there
(``EventMapper.awaits_laying``): the game's card laid at last is adopted (nothing is
proposed), and the card under it read again meanwhile is no change (neither that card
taken back nor drawn); undone before it is laid, the pile is as it was. It is *not* reset
when a camera play was illegal (the game's top stays; the card really lies there), or the
same card would be proposed on every frame. A watcher started on a game under way (a
server restart, new zones saved) rebuilds each pile from the game's log
(``piles_from_log``): the cards under the top, so a draw or a take-back shows the card
under it rather than a new play of it (TBL-16, TBL-2), and the camera's plays the rules
refused since the pile last changed, which it counts as seen (the card still lies there:
it is not proposed again). The same card laid again once it is legal (taken back, the
player's draw typed) is a new play. Before a game's first event nothing is proposed:
the dealer is setting up, and the deal names the starting card. Nor is it reset when the
family's undo or overrule changes the top while the card the camera saw still lies there:
their word stands for that pile until it visibly changes (``EventMapper.rule``), so the
camera neither proposes that card again nor asks about it as taken back. A pile the game
empties (a reshuffle, a start card taken, a Dash over, Hit the Deck's turned-up Hand card
shuffled back) is forgotten by the mapper (``EventMapper.note_empty``; the watcher keeps
what it last settled there), so the next card laid there is a play even with the old top's
face; between Deck Dash's Dashes nothing is proposed on it (the deal names the start card).

Questions the game has overtaken are closed (TBL-21): a camera question about a pile is
about a change the game did not have when it was asked. Once the game's pile has changed
since and its top is the card the question (or a later one on that pile) saw on top (a
play's question: with as many of that face as accepting it leaves, so a first R2's answer
leaves the other R2's question open, TBL-6), or the card the camera sees there now, or it
is empty (a reshuffle, the Dash over), the family
has settled it another way (typed the play or the draw, answered a later question, moved
on): accepting it would log a card out of order
(refused, or worse, taken against the new state). It is taken off the tablets, and the
referee's log says why; a misreading's question keeps its one-tap correction (an overrule
corrects the entry in place) and loses only its "another card was played" answer. This
runs when the camera notices the change and, through ``GameService.listeners``, at once
in the request that made it, so a tablet that answers next finds the question gone even
while the camera is lost.

Deck Dash's seat areas are synchronised the same way (TBL-4): each seat's groups on the
game's table (its Dash and the cards handed off onto it) count as lying in that seat's
area, so a watcher started on a round under way (a server restart, new zones saved, the
camera referee turned on mid-game) does not read a Dash already laid as a new ``lay``,
which the rules refuse, nor a Dash typed on the tablet as one. When the game's cards for
a seat change they are *added* to what the camera last settled there, never taken from it:
a camera lay the rules refused, or one the family undid, still lies there and is not
proposed again, and a card the camera misread stays as it read it (nothing flip-flops).

Times (TBL-10): a camera that dropped, a feed that paused, a watcher started on a game
already under way — the frame after such a gap is marked, and whatever changed on a pile
meanwhile is proposed without ``t_ns`` rather than with the time the camera came back.

The thread never takes the dashboard down: a dropped camera pauses it (the feed and
``ReconnectingSource`` reopen the camera), missing card models are reported on the camera
status and in the log, and any error in one frame is logged and the next frame is read.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from referee.decks import with_deck
from referee.events import Event, Source
from referee.replay import Step
from referee.verdicts import Outcome
from web.errors import BadInput
from web.services.exit_stop import stop_at_exit
from web.services.games import GameService
from web.services.prompts import PromptBoard, refused_prompt
from web.services.referee_dryer import WASH_DASH, DryerReferee
from web.services.zones import ZoneStore

log = logging.getLogger(__name__)

# The games whose plays the camera reads off the piles (EventMapper); Wash Dash's dryers
# are read by vision.dryer (``DryerReferee``).
CAMERA_GAMES = ("deck-dash", "dos", "hit-the-deck")

Detector = Callable[[Any], Sequence[Any]]  # image -> Sightings (vision.table.watcher)
ENDED = "the recording has been refereed once (restart the server to watch it again)"
REWIND = "waiting for the recording to start again (it is refereed once, from its first frame)"


def seat_on_turn(view: Mapping[str, Any]) -> int | None:
    """The player on turn from a game's view: DOS and Hit the Deck say ``turn`` at the top,
    Deck Dash inside its ``round``; None when nobody is (between rounds, the deal)."""
    if "turn" in view:
        turn = view.get("turn")
    else:
        turn = (view.get("round") or {}).get("turn")
    return turn if isinstance(turn, int) and not isinstance(turn, bool) else None


def pile_tops(game: str, view: Mapping[str, Any], piles: Sequence[str]) -> dict[str, str | None]:
    """Each discard-pile zone's top card as the game knows it (``piles``: zone names in
    table order, ``discard_1`` first; DOS's ``discard_2`` is its right pile even alone)."""
    tops: list[str | None] = []
    if game == "deck-dash":
        discard = (view.get("round") or {}).get("discard") or []
        tops = [discard[-1] if discard else None]
    elif game == "dos":
        tops = [p.get("top") for p in view.get("piles") or [] if isinstance(p, Mapping)]
    elif game == "hit-the-deck":
        tops = [view.get("top")]
    return _by_zone(game, piles, tops)


def pile_states(game: str, view: Mapping[str, Any], piles: Sequence[str]) -> dict[str, Any]:
    """Each discard-pile zone's pile as the game knows it, enough to tell that it changed
    even when its top did not (another copy of the top card played, a draw of a twin):
    Deck Dash's whole pile (bottom first), Hit the Deck's (top first, as its view has it),
    DOS's top and card count."""
    states: list[Any] = []
    if game == "deck-dash":
        states = [tuple((view.get("round") or {}).get("discard") or ())]
    elif game == "dos":
        states = [
            (p.get("top"), p.get("cards"))
            for p in view.get("piles") or []
            if isinstance(p, Mapping)
        ]
    elif game == "hit-the-deck":
        states = [tuple(view.get("discard") or ())]
    return _by_zone(game, piles, states)


@dataclass
class PileLog:
    """A discard pile as the game's log built it (``piles_from_log``): its last cards, bottom
    first; its state (``pile_states``); and the camera's plays the rules refused since that
    state last changed, in log order."""

    cards: list[str] = field(default_factory=list)
    state: Any = None
    refused: list[Event] = field(default_factory=list)


def piles_from_log(
    game: str,
    rules: Any,
    record: Any,
    steps: Sequence[Step],
    piles: Sequence[str],
    zone_of: Callable[[Event], str | None],
) -> dict[str, PileLog]:
    """Each discard-pile zone's ``PileLog``, from the game's effective ``steps`` replayed
    (an undone event is not among them, an overruled one is its correction); ``zone_of``:
    the zone a play lays its card on. Deck Dash's and Hit the Deck's views hold the whole
    pile; DOS's only its top and count, so a card that grows the count by one is added."""
    logs = {zone: PileLog() for zone in piles}
    rules = with_deck(rules, record.deck)  # as the game was set up (WD-5, HTD-1)
    state = rules.new_state(record.players, record.options or {})
    for step in steps:
        state, _ = rules.apply(state, step.event)
        states = pile_states(game, rules.view(state), piles)
        refused_on = zone_of(step.event) if _refused_play(step) else None
        for zone, pile in logs.items():
            now = states.get(zone)
            if now != pile.state:
                pile.cards, pile.state, pile.refused = _grown(game, pile, now), now, []
            elif refused_on == zone:
                pile.refused.append(step.event)
    return logs


def _grown(game: str, pile: PileLog, now: Any) -> list[str]:
    """The pile's cards, bottom first, once its state is ``now``: the view's own (Hit the
    Deck's above any card nobody saw, "?"), or DOS's with the new top added when one card
    was laid on it; otherwise DOS's top alone (a new deal)."""
    from vision.table.to_events import REMEMBERED_TOPS

    if game != "dos":
        whole = list(now or ())
        if game == "hit-the-deck":
            whole.reverse()  # its view has the top first
        known = whole[len(whole) - whole[::-1].index("?") :] if "?" in whole else whole
        return known[-REMEMBERED_TOPS:]
    top, count = now if isinstance(now, tuple) else (None, None)
    if not isinstance(top, str):
        return []
    before = pile.state[1] if isinstance(pile.state, tuple) else None
    if isinstance(count, int) and isinstance(before, int) and count == before + 1:
        return [*pile.cards, top][-REMEMBERED_TOPS:]
    return [top]


def _refused_play(step: Step) -> bool:
    """A card the camera saw laid on a pile, which the rules refused (the state unchanged)."""
    from vision.table.to_events import PILE_KINDS

    event = step.event
    return (
        event.source is Source.CAMERA
        and event.kind in PILE_KINDS
        and isinstance(event.get("card"), str)
        and any(v.outcome is Outcome.ILLEGAL for v in step.verdicts)
    )


def _by_zone(game: str, piles: Sequence[str], per_pile: Sequence[Any]) -> dict[str, Any]:
    """The game's piles (left first) given to their zones as ``EventMapper.pile_of`` does
    (TBL-3: by the zone's own number in DOS); a zone with no such pile is left out."""
    from vision.table.to_events import discard_index

    out = {}
    for zone in piles:
        index = discard_index(game, zone, piles)
        if index < len(per_pile):
            out[zone] = per_pile[index]
    return out


def seat_areas(
    game: str, view: Mapping[str, Any], areas: Sequence[tuple[str, int | None]]
) -> dict[str, tuple[str, ...]]:
    """Each seat-area zone's cards as the game knows them (``areas``: zone name and seat):
    in Deck Dash the cards of the groups that seat owns (its Dash and the handoffs onto it)
    and a Block You in front of it (TBL-11), sorted like a zone's reading; none between
    rounds. A seat with more than one area zone is left out (which of them holds which group
    is not known); other games: nothing."""
    if game != "deck-dash":
        return {}
    from vision.table.to_events import BLOCK_YOU

    seats = [seat for _, seat in areas]
    round_view = view.get("round") or {}
    groups = round_view.get("table") or []
    blocked = round_view.get("blocks") or []
    out = {}
    for zone, seat in areas:
        if seat is None or seats.count(seat) > 1:
            continue
        cards = [
            card
            for group in groups
            if isinstance(group, Mapping) and group.get("owner") == seat
            for card in group.get("cards") or []
        ]
        if seat in blocked:
            cards.append(BLOCK_YOU)
        out[zone] = tuple(sorted(cards))
    return out


class ModelDetectors:
    """The card models, loaded lazily (once per deck) the first time a game needs them.

    One camera, one card scale (VIS-11): every game's reader reads through the same
    ``CameraScale``, measured on the first frames showing cards (``card_scale`` None) or as
    configured. Saving new zones measures it again (``reset_scale``): the camera may have
    been moved; so do cards read at a size off the measured one (drift, counted in
    ``drifts``), whichever game's reader sees it."""

    def __init__(self, models_dir: str | Path | None = None, card_scale: float | None = None):
        from vision.runtime.card_scale import CameraScale

        self.models_dir = models_dir
        self.camera_scale = CameraScale(card_scale)  # card_scale None: measured
        self._readers: dict[str, Any] = {}  # game -> ScaledReader

    def __call__(self, game: str) -> Detector:
        from vision.decks import load_deck
        from vision.runtime.card_scale import ScaledReader
        from vision.runtime.reader import MODELS_DIR, CardReader
        from vision.table.adapter import reader_detector
        from vision.table.labels import refereed_deck

        reader = self._readers.get(game)
        if reader is None:
            folder = Path(self.models_dir) if self.models_dir else MODELS_DIR
            card_reader = CardReader(folder, deck=refereed_deck(game, load_deck(game)))
            reader = ScaledReader(card_reader, camera=self.camera_scale)
            self._readers[game] = reader

        return reader_detector(reader, game)

    def reset_scale(self) -> None:
        """Measure the card scale again (new zones were saved)."""
        self.camera_scale.reset()

    def scale_status(self) -> dict[str, Any]:
        """For the camera status: the scale in use, or whether it is being measured."""
        camera = self.camera_scale
        scale = camera.card_scale
        if scale is not None:
            return {
                "measuring": False,
                "fixed": camera.fixed,
                **scale.to_dict(),
                "drifts": camera.drifts,
            }
        return {
            "measuring": bool(self._readers),
            "fixed": False,
            "scale": None,
            "drifts": camera.drifts,
        }


@dataclass
class RecordingPass:
    """Where a recording's one refereed pass stands: idle → armed → pass → done. Kept by
    ``feed_source`` for its feed, so every ``FeedSource`` opened on it shares it: the Live
    page's switch turned off and on again opens a new one, which must not referee the
    recording a second time into the same game."""

    phase: str = "idle"


class FeedSource:
    """A ``FrameSource`` over the dashboard's camera feed: the newest frame only (the
    watcher takes a frame whenever it is free; older ones are dropped, as in
    ``bench.table speed``).

    A recording (``recording``, or any ``frames`` count; the tablets see it loop) is
    refereed for exactly one pass, from its beginning, once there is a game to referee
    (``arm()``): so a demo video's plays land in the game the family just started, once,
    not on every loop. A pass starts and ends where the feed's ``position`` starts again
    (it does not go up), whatever the recording's length: unreadable files are no frames.
    A source opened during the pass (the switch turned off and on, the recording lost)
    ends it: the recording has been refereed once.

    The frame after the feed's camera reconnected, or after ``wait_s`` without a frame, is
    marked ``after_gap``: the watcher did not see what happened meanwhile (TBL-10).

    A feed that has no frame and says why (``error``: a camera lost or missing) makes
    ``read()`` raise ``CameraError``, so the referee says "camera lost" instead of
    "watching"; it opens a new ``FeedSource`` and goes on when frames come again.
    """

    def __init__(
        self,
        feed: Any,
        frames: int | None = None,
        wait_s: float = 1.0,
        *,
        recording: RecordingPass | None = None,
    ) -> None:
        self._feed = feed
        self._cond = threading.Condition()
        self._latest: tuple[Any, int] | None = None
        if recording is None and frames is not None:
            recording = RecordingPass()
        self._recording = recording  # None: a live camera
        if recording is not None and recording.phase == "pass":
            recording.phase = "done"  # reopened mid-pass: what it missed is not refereed
        self._position: int | None = None  # the feed's position at the previous frame
        self._index = 0
        self._closed = False
        self.wait_s = wait_s
        self._reconnects = feed_reconnects(feed)
        self._gap = False  # the next frame delivered follows a gap
        self._unsubscribe = feed.subscribe(self._on_frame)

    def arm(self) -> bool:
        """A game is ready: referee the recording's next pass, from its first frame.
        True when this call armed it (the frame in hand is mid-pass: skip it)."""
        with self._cond:
            if self._recording is None or self._recording.phase != "idle":
                return False
            self._recording.phase = "armed"
            self._latest = None
            return True

    @property
    def reopens(self) -> bool:
        """Can the feed deliver again after an error? Not once its thread has ended."""
        return not getattr(self._feed, "ended", False)

    def _refereed(self) -> bool:
        """Move the recording's pass on by the feed's position now; is this frame read? A
        live camera's always are; a recording's while idle (the referee looks for a game)
        and during its pass."""
        recording = self._recording
        if recording is None:
            return True
        position = getattr(self._feed, "position", None)
        last, self._position = self._position, position
        again = isinstance(position, int) and (
            position <= last if isinstance(last, int) else position == 0
        )
        if again and recording.phase == "pass":
            recording.phase = "done"
        elif again and recording.phase == "armed":
            recording.phase = "pass"
        return recording.phase in ("idle", "pass")

    def _on_frame(self, image: Any, t_ns: int) -> None:
        with self._cond:
            if self._closed or not self._refereed():
                self._cond.notify_all()  # a pass that just ended wakes read()
                return
            reconnects = feed_reconnects(self._feed)
            if reconnects != self._reconnects:  # the camera dropped before this frame
                self._reconnects, self._gap = reconnects, True
            self._latest = (image, t_ns)
            self._cond.notify_all()

    def read(self) -> Any:
        from vision.table.frames import CameraError, Frame

        with self._cond:
            while self._latest is None and not self._closed:
                if self._recording is not None and self._recording.phase == "done":
                    return None  # the recording has been refereed once
                if not self._cond.wait(self.wait_s):  # a dropped camera: frames just pause
                    self._gap = True
                    if problem := feed_problem(self._feed):
                        raise CameraError(problem)
            if self._closed:
                return None
            image, t_ns = self._latest  # type: ignore[misc]
            self._latest = None
            gap, self._gap = self._gap, False
        frame = Frame(image, t_ns, self._index, after_gap=gap)
        self._index += 1
        return frame

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._unsubscribe()


def feed_problem(feed: Any) -> str | None:
    """Why the feed delivers no frame (``LiveFeed.error``: a camera missing, lost, stale; a
    recording that cannot be read); None when it does, or cannot say."""
    error = getattr(feed, "error", None)
    return error if isinstance(error, str) and error else None


def feed_reconnects(feed: Any) -> int:
    """How often the feed's camera has reconnected (``LiveFeed.reconnects``, a recording
    that played again after it was lost); 0 for a feed that cannot say."""
    count = getattr(feed, "reconnects", None)
    return count if isinstance(count, int) else 0


def is_recording(feed: Any) -> bool:
    """A file feed (video or image folder: it loops); not a live camera."""
    from web.services.camera import LiveFeed

    return not isinstance(feed, LiveFeed) and isinstance(getattr(feed, "source", None), Path)


def feed_source(feed: Any) -> Callable[[], Any]:
    """Opens a ``FeedSource`` on ``feed`` for each run of the referee; a recording's pass
    is kept here, across them (see ``RecordingPass``)."""
    recording = RecordingPass() if is_recording(feed) else None
    return lambda: FeedSource(feed, recording=recording)


@dataclass
class _Context:
    """What the thread knows about the game it is refereeing."""

    game_id: int
    game: str
    watcher: Any
    mapper: Any
    piles: list[str]
    areas: list[tuple[str, int | None]] = field(default_factory=list)  # seat areas: zone, seat
    state: Any = None
    seat: int | None = None
    quiet: bool = True  # the game has no events yet: the dealer is setting up
    synced: dict[str, str | None] = field(default_factory=dict)
    synced_areas: dict[str, tuple[str, ...]] = field(default_factory=dict)
    synced_at: int | None = None  # GameService.changes when last synced
    # the game's effective events (seq, event) when last synced: an undo or an overrule
    # rewrites them, a new event only adds to them
    played: list[tuple[int, Any]] = field(default_factory=list)
    # the top card the camera last settled on each pile (None: read empty); unlike the
    # tracker's ``committed`` never set from the game (TBL-21 compares the two)
    seen: dict[str, str | None] = field(default_factory=dict)
    # Hit the Deck waited for a card turned up when last synced (``EventMapper.turn_up_due``)
    turn_up_due: bool = False


@dataclass(frozen=True)
class _PileQuestion:
    """A camera question on the tablets about a pile (TBL-21): what the camera saw on top
    when it asked, and the game's pile then (``pile_states``). ``need``: for a question
    whose answer lays ``top`` on the pile, how far the game's pile must get (``_laid``) for
    it to be settled; None: the top card alone tells (a draw, an undo, a correction)."""

    game_id: int
    zone: str
    top: str | None
    pile: Any
    kind: str
    need: int | None = None

    def reached(self, game: str, state: Any, top: str | None) -> bool:
        """Does the game's pile (``state``, its top ``top``) show what this question saw?
        A top of R2 does not settle a question about a second R2 (TBL-6) while the pile holds
        fewer R2s than accepting it would leave."""
        if top is None or top != self.top:
            return False
        laid = _laid(game, state, top)
        return self.need is None or laid is None or laid >= self.need


def _laid(game: str, state: Any, card: str) -> int | None:
    """How far the game's pile (``pile_states``) has got in laying ``card``: the copies of it
    in a whole pile (Deck Dash, Hit the Deck), DOS's card count (it gives no more); None when
    not known."""
    if game == "dos":
        cards = state[1] if isinstance(state, tuple) and len(state) == 2 else None
        return cards if isinstance(cards, int) and not isinstance(cards, bool) else None
    return state.count(card) if isinstance(state, tuple) else None


def _lays(prompt: Mapping[str, Any], top: str | None) -> bool:
    """Does accepting ``prompt`` lay ``top`` on the pile (a play asked about), rather than
    take a card off it (a draw, an undo) or correct one in place (an overrule)?"""
    from vision.table.to_events import PILE_KINDS

    suggestion = prompt.get("suggestion")
    if top is None or not isinstance(suggestion, Mapping):
        return False
    payload = suggestion.get("payload")
    card = payload.get("card") if isinstance(payload, Mapping) else None
    return suggestion.get("kind") in PILE_KINDS and card == top


@dataclass
class _Run:
    """One ``start()`` of the referee's thread, with its own stop flag and source: a run
    still finishing a slow step after ``stop()`` neither keeps the next ``start()`` from
    running nor touches the next run's source."""

    stop: threading.Event = field(default_factory=threading.Event)
    source: Any = None
    thread: threading.Thread | None = None


@dataclass
class RefereeCounts:
    frames: int = 0
    observations: int = 0
    events: int = 0
    prompts: int = 0
    reconnects: int = 0


class CameraReferee:
    """See the module docstring. ``open_source() -> FrameSource``; ``detector_for(game)``
    returns the watcher's detector for that game (``ModelDetectors`` by default)."""

    def __init__(
        self,
        games: GameService,
        zones: ZoneStore,
        prompts: PromptBoard,
        open_source: Callable[[], Any],
        detector_for: Callable[[str], Detector] | None = None,
        *,
        enabled: bool = True,
        retry_s: float = 1.0,
    ) -> None:
        self.games = games
        self.zones = zones
        self.prompts = prompts
        self._open_source = open_source
        self._detector_for = detector_for or ModelDetectors()
        self.enabled = enabled
        self.retry_s = retry_s
        self.counts = RefereeCounts()
        self.state = "off" if not enabled else "not started"
        self.message = ""
        self.models_error: str | None = None
        self.last: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self._run_now: _Run | None = None  # the latest start()'s run
        self._local = threading.local()  # .run: the run of the thread reading it
        self._detector_lock = threading.Lock()  # a run restarted mid-load loads nothing twice
        self._ctx: _Context | None = None
        self._layout: Any = None
        self._zones_problem = ""  # why the saved zones cannot be used, if they cannot
        self._zones_version: int | None = None
        self._zones_frame: Any = None  # the picture size the saved zones were drawn on
        # (width, height) of the frames last checked against it, and what the check said
        self._shape_checked: tuple[tuple[int, int], str | None] | None = None
        self._shape_paused = False  # frames went unrefereed: the next one follows a gap
        # (games.changes, zones.version) when the target was last worked out, and the answer:
        # the camera loop asks the database again only after a change
        self._target_key: tuple[int, int] | None = None
        self._target_now: tuple[int, str] | None = None
        self._waiting = ("waiting", "")  # the status that goes with a None target
        self.dryers = DryerReferee(games, prompts, self.counts)
        self._detectors: dict[str, Detector] = {}
        self._failed: dict[str, str] = {}  # game -> why its detector could not be built
        # the camera's open pile questions by prompt id, and each game's piles when last
        # told (TBL-21); the camera's thread and the listener below both use them
        self._questions_lock = threading.Lock()
        self._pile_questions: dict[int, _PileQuestion] = {}
        self._piles_now: dict[int, dict[str, Any]] = {}
        listeners = getattr(games, "listeners", None)
        if isinstance(listeners, list):
            listeners.append(self._game_changed)

    # -- life cycle ----------------------------------------------------------------------
    def start(self) -> None:
        """Start a run (when enabled and none is running): also when a stopped run is still
        finishing a slow step, so that enabled always means running."""
        with self._lock:
            if not self.enabled or self.running:
                return
            run = _Run()
            run.thread = threading.Thread(
                target=self._run, args=(run,), name="camera-referee", daemon=True
            )
            self._run_now = run
            self._set("starting", "opening the camera")
            stop_at_exit(self.stop, reads_frames=True)  # before the feed it reads
            run.thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the run and close its source; safe to call twice. A run busy past
        ``timeout`` ends on its own, without a word more (see ``_set``)."""
        run = self._run_now
        if run is not None:
            run.stop.set()
            if isinstance(run.source, FeedSource):
                run.source.close()  # thread-safe: wakes a read() waiting for frames
            if run.thread is not None and run.thread is not threading.current_thread():
                run.thread.join(timeout)
        if self.enabled:
            self._set("stopped", "the camera referee was stopped")

    def set_enabled(self, on: bool) -> None:
        self.enabled = on
        if on:
            self.start()
        else:
            self.stop()
            self._set("off", "camera refereeing is turned off")

    @property
    def running(self) -> bool:
        """A run is going and has not been told to stop."""
        run = self._run_now
        return (
            run is not None
            and not run.stop.is_set()
            and run.thread is not None
            and run.thread.is_alive()
        )

    def join(self, timeout: float | None = None) -> None:
        run = self._run_now
        if run is not None and run.thread is not None:
            run.thread.join(timeout)

    @property
    def _source(self) -> Any:
        """The source of the run whose thread asks (None outside one: ``step`` in tests)."""
        run = getattr(self._local, "run", None)
        return run.source if run is not None else None

    def _stopped(self) -> bool:
        """Is the asking thread a run that was stopped? It then changes nothing more."""
        run = getattr(self._local, "run", None)
        return run is not None and run.stop.is_set()

    def status(self) -> dict[str, Any]:
        ctx = self._ctx
        return {
            "enabled": self.enabled,
            "running": self.running,
            "state": self.state,
            "message": self.message,
            "models_error": self.models_error,
            "game_id": ctx.game_id if ctx else self.dryers.game_id,
            "frames": self.counts.frames,
            "observations": self.counts.observations,
            "events": self.counts.events,
            "prompts": self.counts.prompts,
            "reconnects": self.counts.reconnects,
            "last": max((x for x in (self.last, self.dryers.last) if x), key=_at, default=None),
            "dryers": self.dryers.status() if self.dryers.seats else None,
            "card_scale": self._scale_status(),
        }

    def _scale_status(self) -> dict[str, Any] | None:
        scale_status = getattr(self._detector_for, "scale_status", None)
        return scale_status() if callable(scale_status) else None

    def empty_dryers(self) -> None:
        """The family says the dryers are empty: take the reference (see referee_dryer)."""
        self.dryers.empty_now()

    def _set(self, state: str, message: str) -> None:
        if self._stopped():  # a stopped run finishing late must not overwrite "off"
            return
        if (state, message) != (self.state, self.message) and state in ("error", "camera lost"):
            log.warning("camera referee: %s", message)
        self.state, self.message = state, message

    # -- the thread ----------------------------------------------------------------------
    def _run(self, run: _Run) -> None:
        from vision.table.frames import CameraError

        self._local.run = run
        reopened = False  # the source was lost: its next frame follows a gap (TBL-10)
        try:
            while not run.stop.is_set():
                if run.source is None:
                    try:
                        run.source = self._open_source()
                    except Exception as exc:  # no camera now: say so, try again
                        self._set("camera lost", f"the camera cannot be opened: {exc}")
                        run.stop.wait(self.retry_s)
                        continue
                try:
                    frame = run.source.read()
                except CameraError as exc:
                    self._lost(run, exc)
                    reopened = True
                    run.stop.wait(self.retry_s)
                    continue
                if frame is None:
                    if not run.stop.is_set():
                        self._set("ended", ENDED)
                    break
                if reopened:
                    frame, reopened = _after_gap(frame), False
                self.counts.frames += 1
                self._step_safely(frame)
        finally:
            self._close_source(run)

    def _lost(self, run: _Run, exc: Exception) -> None:
        """The source lost the camera: said, counted once per drop (not per retry while it
        stays lost), and the source closed to be opened again."""
        if self.state != "camera lost" and not self._stopped():
            self.counts.reconnects += 1
        why = str(exc)
        if not getattr(run.source, "reopens", True):  # its feed has stopped for good
            message = f"{why} (it will not come back: restart the server)"
        elif why.startswith(("camera lost", "no camera yet")):  # a feed's own words
            message = why
        else:
            message = f"camera lost, reconnecting: {why}"
        self._set("camera lost", message)
        self._close_source(run)

    def _step_safely(self, frame: Any) -> None:
        try:
            self.step(frame)
        except Exception as exc:  # one bad frame must not end refereeing
            message = f"a frame could not be refereed: {exc}"
            if message != self.message:  # once, not on every frame
                log.exception("camera referee: frame %s failed", self.counts.frames)
            if not self._stopped():
                self.state, self.message = "error", message

    @staticmethod
    def _close_source(run: _Run) -> None:
        source, run.source = run.source, None
        if source is not None:
            source.close()

    def step(self, frame: Any) -> None:
        """Referee one frame (the thread's body; tests may call it directly)."""
        key = (self.games.changes, self.zones.version)
        if key != self._target_key:
            self._target_key, self._target_now = key, self._target()
            self._waiting = (self.state, self.message)
        target = self._target_now
        if target is None:
            self._set(*self._waiting)  # as before a lost camera or a restart said otherwise
            return
        reshaped = self._shape_change(frame)
        if reshaped is not None:  # the zones lie elsewhere on this picture (TBL-29)
            self._shape_paused = True
            self._set("waiting", f"the camera is not refereeing: {reshaped}")
            return
        if self._shape_paused:  # what happened while it waited was not seen (TBL-10)
            frame, self._shape_paused = _after_gap(frame), False
        if target[1] == WASH_DASH:
            self._step_dryers(target[0], frame)
            return
        ctx = self._context(*target)
        if ctx is None or self._stopped():  # stopped while the models loaded
            return
        arm = getattr(self._source, "arm", None)
        if not ctx.quiet and callable(arm) and arm():  # a recording: its next pass is refereed
            self._set("watching", f"game {ctx.game_id} ({ctx.game}): {REWIND}")
            return
        for obs in ctx.watcher.process(frame):
            self.counts.observations += 1
            self._sync(ctx)  # the previous observation may have moved the turn on
            if ctx.quiet:
                continue
            # questions answered or dismissed no longer hold later plays back (TBL-19)
            ctx.mapper.note_questions(
                p.get("zone") for p in self.prompts.open(ctx.game_id) if p.get("zone") in ctx.piles
            )
            if obs.zone in ctx.piles:  # what the camera sees, whatever the game says
                ctx.seen[obs.zone] = obs.after[0] if obs.after else None
            seen = ctx.mapper.as_ruled(obs)  # in the family's terms after an undo/overrule
            if seen is None:
                continue  # the pile shows what the family ruled: nothing to propose
            for proposal in ctx.mapper.propose(seen, ctx.seat):
                if isinstance(proposal, Event):
                    self._append(ctx, proposal)
                else:
                    self._ask(ctx, self._taken_back(ctx, seen, proposal.to_dict()), seen)
        wait = " (waiting for the deal)" if ctx.quiet else ""
        moved = camera_moved_note(ctx.watcher, frame)
        self._set("watching", f"refereeing game {ctx.game_id} ({ctx.game}){wait}{moved}")

    def _step_dryers(self, game_id: int, frame: Any) -> None:
        dryers = self.dryers
        arm = getattr(self._source, "arm", None)
        if dryers.view(game_id).get("round") is not None and callable(arm) and arm():
            # a recording: refereed from its first frame once a round is revealed
            self._set("watching", f"game {game_id} ({WASH_DASH}): {REWIND}")
            return
        dryers.step(game_id, frame.image, frame.t_ns, after_gap=getattr(frame, "after_gap", False))
        self._set("watching", f"refereeing game {game_id} ({WASH_DASH}): {dryers.message()}")

    # -- the game and the zones ------------------------------------------------------------
    def _target(self) -> tuple[int, str] | None:
        """(game id, game) when the running game can be refereed with the saved zones;
        otherwise None, with the reason on the status."""
        from vision.table.zones import TableLayout, ZoneError

        if self._zones_version != self.zones.version:  # saving the zones bumps it
            self._zones_version = self.zones.version
            self._ctx = None  # new zones: a new watcher
            reset_scale = getattr(self._detector_for, "reset_scale", None)
            if callable(reset_scale):
                reset_scale()  # new zones: the camera may have moved
            self._layout, self._zones_problem = None, ""
            self._shape_checked = None
            try:
                doc = self.zones.load()
                self._zones_frame = doc.get("frame")
                self._layout = TableLayout.from_dict(doc)
            except ZoneError as exc:
                self._zones_problem = f"the saved zones cannot be used: {exc}"
            else:
                self.dryers.set_layout(self._layout)
        game_id = self.games.current_id()
        record = self.games.record(game_id) if game_id is not None else None
        if record is None or record.ended_at is not None:
            self._ctx = None
            why = "no game yet" if record is None else "the latest game has ended"
            self._set("waiting", f"{why}: start one on the Setup page")
            return None
        if record.game != WASH_DASH and record.game not in CAMERA_GAMES:
            self._ctx = None
            self._set("waiting", f"the camera does not referee {record.game}")
            return None
        if self._layout is None:
            self._set("waiting", self._zones_problem or "no zones are calibrated")
            return None
        if record.game == WASH_DASH and not self.dryers.seats:
            problems = "; ".join(self.dryers.problems)
            why = f" ({problems})" if problems else ""
            self._set(
                "waiting",
                "no dryer is calibrated: draw seat_S_dryer and its three bars on the "
                f"Calibrate page{why}",
            )
            return None
        if record.game != WASH_DASH and not self._layout.discard_piles():
            self._set("waiting", "no discard pile is calibrated: draw it on the Calibrate page")
            return None
        return game_id, record.game

    def _shape_change(self, frame: Any) -> str | None:
        """Why the saved zones do not fit ``frame``'s picture (another shape than the one
        they were drawn on), or None; worked out once per picture size."""
        from web.services.zones import frame_change

        shape = getattr(getattr(frame, "image", None), "shape", None)
        if shape is None or len(shape) < 2:  # a test double without a picture
            return None
        size = (int(shape[1]), int(shape[0]))
        if self._shape_checked is None or self._shape_checked[0] != size:
            self._shape_checked = (size, frame_change(self._zones_frame, *size))
        return self._shape_checked[1]

    def _context(self, game_id: int, game: str) -> _Context | None:
        from vision.table.to_events import EventMapper
        from vision.table.watcher import TableWatcher
        from vision.table.zones import ZoneKind

        ctx = self._ctx
        if ctx is None or ctx.game_id != game_id:
            detector = self._detector(game)
            if detector is None:
                self._ctx = None
                return None
            piles = [z.name for z in self._layout.discard_piles()]
            areas = [(z.name, z.seat) for z in self._layout.of_kind(ZoneKind.SEAT)]
            watcher = TableWatcher(detector, self._layout)
            mapper = EventMapper(game, self._layout)
            ctx = _Context(game_id, game, watcher, mapper, piles, areas)
            self._ctx = ctx
            self._sync(ctx)
            if not ctx.quiet:  # a game already under way: what lies there was not seen laid
                self._resume(ctx)
                watcher.tracker.mark_gap()
        self._sync(ctx)
        return ctx

    def _resume(self, ctx: _Context) -> None:
        """A watcher started on a game under way: each pile as the game's log built it, not
        only its top (the mapper knew no more), and the camera's plays the rules refused since
        the pile last changed counted as seen there, as the watcher before it had them (see
        the module docstring). Best effort: a log that cannot be replayed leaves the top."""
        try:
            record = self.games.record(ctx.game_id)
            steps = self.games.result(ctx.game_id).steps
            rules = self.games.rules(ctx.game)
            logs = piles_from_log(
                ctx.game, rules, record, steps, ctx.piles, lambda e: self._zone_of(ctx, e)
            )
        except Exception:  # the game's own replay says what is wrong with its log
            log.exception("camera referee: game %s: its piles could not be rebuilt", ctx.game_id)
            return
        tracker = ctx.watcher.tracker
        for zone, pile in logs.items():
            if not pile.cards or pile.cards[-1] != ctx.synced.get(zone):
                continue  # not the top the game's view says: leave the top alone
            seen = [str(event.get("card")) for event in pile.refused]
            ctx.mapper.note_pile(zone, pile.cards, seen)
            if seen:  # lying there still: the watcher does not read it as laid again
                tracker.committed[zone] = (seen[-1],)

    def _zone_of(self, ctx: _Context, event: Event) -> str | None:
        """The pile zone ``event`` lays its card on: DOS's by its pile (TBL-3), another
        game's its one pile; None for an event that lays none."""
        from vision.table.to_events import PILE_KINDS

        if event.kind not in PILE_KINDS:
            return None
        pile = event.get("pile") if ctx.game == "dos" else None
        return next((zone for zone in ctx.piles if ctx.mapper.pile_of(zone) == pile), None)

    def _detector(self, game: str) -> Detector | None:
        if game in self._detectors:
            return self._detectors[game]
        with self._detector_lock:  # a run started while a stopped one loads: loaded once
            if game in self._detectors:
                return self._detectors[game]
            if game in self._failed:
                return None
            try:
                detector = self._detector_for(game)
            except Exception as exc:  # missing or broken models: keep serving, say why
                why = f"the card models cannot be loaded ({exc}); the camera is not refereeing"
                self._failed[game] = why
                self.models_error = why
                self._set("error", why)
                return None
            self._detectors[game] = detector
            return detector

    def _sync(self, ctx: _Context) -> None:
        """Seat on turn, pile tops and Deck Dash's seat areas from the game (see the module
        docstring)."""
        changes = self.games.changes
        if ctx.synced_at == changes:
            return
        from vision.table.to_events import with_cards

        try:
            result = self.games.result(ctx.game_id)
        except BadInput as exc:
            self._set("error", exc.message)
            return
        ctx.synced_at = changes
        if result.state is ctx.state:
            return
        ctx.state = result.state
        ctx.quiet = not result.steps
        played = [(step.seq, step.event) for step in result.steps]
        ruled = played[: len(ctx.played)] != ctx.played  # an undo or overrule rewrote it
        ctx.played = played
        view = self.games.rules(ctx.game).view(result.state)
        ctx.seat = seat_on_turn(view)
        ctx.mapper.note_view(view)  # phase, Dash, who has laid (TBL-16, TBL-17)
        tracker = ctx.watcher.tracker
        states = pile_states(ctx.game, view, ctx.piles)
        # Hit the Deck: a card turned up and shuffled back (a Hand card can't start the pile)
        # empties the pile although the game's top never showed it: a turn-up is due again
        due = ctx.mapper.turn_up_due()
        newly_due, ctx.turn_up_due = due and not ctx.turn_up_due, due
        for zone, top in pile_tops(ctx.game, view, ctx.piles).items():
            if top is None and (ctx.synced.get(zone) is not None or newly_due):
                # emptied in the game (a reshuffle, a start card taken, a Dash over): the next
                # card there is a play even with the old top's face. The tracker keeps what the
                # camera last settled: a card still lying there is not proposed again
                ctx.mapper.note_empty(zone)
            if top == ctx.synced.get(zone):
                continue
            ctx.synced[zone] = top
            if top is None:
                continue
            seen = tracker.committed.get(zone)
            if ruled and seen and seen != (top,):
                # the family's ruling, with the card the camera saw maybe still there: the
                # camera keeps what it sees (nothing re-proposed) and takes their word for
                # the top until the pile visibly changes (TBL-2)
                ctx.mapper.rule(zone, top)
            else:
                # Deck Dash's whole pile: a draw off it forgets the drawn card (TBL-22)
                pile = states.get(zone) if ctx.game == "deck-dash" else None
                ctx.mapper.note_top(zone, top, pile=pile, held=seen[0] if seen else None)
                # a top entered before its card is laid: the watcher keeps the card it saw,
                # so it tells the card laid (adopted) from the one under it read again
                if not ctx.mapper.awaits_laying(zone):
                    tracker.committed[zone] = (top,)
        self._close_settled(ctx, view)
        for zone, cards in seat_areas(ctx.game, view, ctx.areas).items():
            ctx.mapper.note_area(zone, cards)
            if cards == ctx.synced_areas.get(zone):
                continue
            ctx.synced_areas[zone] = cards
            # added to what the camera settled there, never taken from it (TBL-4)
            held = tracker.committed.get(zone, ())
            if (grown := with_cards(held, cards)) != held:
                tracker.committed[zone] = grown

    def _taken_back(self, ctx: _Context, obs: Any, prompt: dict[str, Any]) -> dict[str, Any]:
        """A card taken back that is the game's last play on that pile (the camera's, or one
        typed on the tablet): one tap undoes it (the mapper cannot know its sequence number;
        the log does)."""
        if prompt.get("prompt") == "misread" and prompt.get("suggestion") is None:
            return self._misread(ctx, obs, prompt)
        if prompt.get("prompt") != "taken_back" or prompt.get("suggestion") is not None:
            return prompt
        gone, top = obs.before[0], obs.after[0]  # a take-back always names both
        seq = self._last_play(ctx, obs.zone, gone)
        offered = "another" in (prompt.get("choices") or ())  # not for an unnamed card (TBL-6)
        another = f" Or was another {top} played?" if offered else ""
        if seq is None:  # not in the log (never logged, or undone already): nothing to undo
            message = (
                f"{gone} was taken back off the pile and {top} is on top again: there is no"
                f" play of {gone} to undo.{another}"
            )
            return {**prompt, "message": message}
        if self._overruled(ctx, seq):  # an undo of it would leave the family's correction
            message = (
                f"{gone} was taken back off the pile and {top} is on top again: #{seq} was"
                f" corrected on the tablet, so correct it there again.{another}"
            )
            return {**prompt, "message": message}
        undo = Event("undo", payload={"target": seq}, t_ns=obs.event_t_ns, source=Source.CAMERA)
        return {
            **prompt,
            "suggestion": undo.to_dict(),
            "message": prompt["message"][:-1] + f" (#{seq})?",
        }

    def _misread(self, ctx: _Context, obs: Any, prompt: dict[str, Any]) -> dict[str, Any]:
        """A card re-read as another face with nothing over the pile (TBL-15): one tap
        overrules the game's last play on that pile, when it is the card read before, with
        the same play of the card read now."""
        earlier, card = prompt.get("earlier"), obs.after[0]
        seq = self._last_play(ctx, obs.zone, earlier) if isinstance(earlier, str) else None
        if seq is None or self._overruled(ctx, seq):
            message = f"{prompt['message']} There is no play of {earlier} to correct here."
            return {**prompt, "message": message}
        logged = next(s.event for s in self.games.result(ctx.game_id).steps if s.seq == seq)
        fixed = replace(logged, payload={**logged.payload, "card": card}).to_dict()
        overrule = Event(
            "overrule",
            payload={"target": seq, "event": fixed},
            t_ns=obs.event_t_ns,
            source=Source.CAMERA,
        )
        message = prompt["message"].replace("?", f" (#{seq})?", 1)
        return {**prompt, "suggestion": overrule.to_dict(), "message": message}

    def _overruled(self, ctx: _Context, seq: int) -> bool:
        """Is event ``seq`` replaced by an overrule in force? (undoing ``seq`` then changes
        nothing: the overrule's event stays, ``referee.replay``)."""
        from referee.eventlog import LogError
        from web.services.games import meta_status

        try:
            logged = self.games.log.events(ctx.game_id)
        except LogError:  # an unreadable log: no one-tap undo is offered
            return True
        in_force = meta_status(logged)
        return any(
            e.kind == "overrule" and e.get("target") == seq and in_force.get(s, False)
            for s, e in logged
        )

    def _last_play(self, ctx: _Context, zone: str, card: str) -> int | None:
        """The sequence number of the game's last card laid on ``zone``'s pile, if that card
        is ``card``; None otherwise (or when the log cannot be replayed)."""
        from vision.table.to_events import PILE_KINDS

        pile = ctx.mapper.pile_of(zone)
        try:
            steps = self.games.result(ctx.game_id).steps
        except BadInput:
            return None
        for step in reversed(steps):
            laid = step.event.get("card")
            if step.event.kind not in PILE_KINDS or not isinstance(laid, str):
                continue
            if pile is not None and step.event.get("pile") != pile:
                continue
            return step.seq if laid == card else None
        return None

    def _append(self, ctx: _Context, event: Event) -> None:
        """Log the camera's ``event``, refused or not: the watcher proposes a card laid once
        (see the module docstring), so one laid again after it was taken back is a new play,
        which the game may take now (a draw typed meanwhile)."""
        try:
            out = self.games.append(ctx.game_id, event)
        except BadInput as exc:  # the rules cannot read it: ask instead of dropping it
            seen = f"The camera saw {_describe(event)}"
            self._ask(ctx, refused_prompt(seen, exc.message, event.t_ns))
            return
        self.counts.events += 1
        self.last = {"seq": out["seq"], "event": event.to_dict(), "at": time.time()}
        self._sync(ctx)

    def _ask(self, ctx: _Context, prompt: dict[str, Any], about: Any = None) -> None:
        """Post ``prompt``; ``about``: the observation it asks about, remembered with the
        game's pile then when it is a pile's, so it is closed once the game overtakes it."""
        self.counts.prompts += 1
        item = self.prompts.add(ctx.game_id, prompt)
        zone = getattr(about, "zone", None)
        if zone not in ctx.piles:
            return
        top = about.after[0] if about.after else None
        open_ids = {p["id"] for p in self.prompts.open(ctx.game_id)}
        with self._questions_lock:
            pile = self._piles_now.get(ctx.game_id, {}).get(zone)
            question = _PileQuestion(ctx.game_id, zone, top, pile, str(prompt.get("prompt")))
            if _lays(prompt, top):
                question = replace(question, need=self._need(ctx.game, question, open_ids))
            self._pile_questions[item.id] = question

    def _need(self, game: str, question: _PileQuestion, open_ids: set[int]) -> int | None:
        """How far the game's pile must get to settle ``question``, a play of its top card
        (the questions lock is held): one further than the pile when it was asked and than
        every open question before it that lays the same face, so a second R2 asked about
        after a first (TBL-6) is not settled by the first one's answer."""
        laid = _laid(game, question.pile, question.top) if question.top is not None else None
        if laid is None:
            return None
        earlier = [
            q.need
            for pid, q in self._pile_questions.items()
            if pid in open_ids
            and (q.game_id, q.zone, q.top) == (question.game_id, question.zone, question.top)
            and q.need is not None
        ]
        return 1 + max([laid, *earlier])

    # -- questions the game has overtaken (TBL-21) -------------------------------------------
    def _game_changed(self, game_id: int, snap: Mapping[str, Any]) -> None:
        """A ``GameService`` listener, told in the thread that made the change: the camera's
        questions it settles go at once, before a tablet can answer one out of order."""
        ctx, view = self._ctx, snap.get("view")
        if ctx is not None and ctx.game_id == game_id and isinstance(view, Mapping):
            self._close_settled(ctx, view)

    def _close_settled(self, ctx: _Context, view: Mapping[str, Any]) -> None:
        """Close the camera's open pile questions the game has overtaken: the game's pile
        changed since one was asked and its top is now the card that question, or a later
        one on the pile, saw on top (that one and those before it are settled, as the mapper
        counts them, TBL-19), or the card the camera sees there now (the pile agrees again:
        every question asked before is about an older state), or nothing (the game emptied
        it: a reshuffle, the start card taken, the Dash over). A question that lays a card
        counts as seen on top only once the pile holds as many of that face as accepting it
        would leave (``_PileQuestion.need``): the other R2's question stays open after the
        first R2's is answered (TBL-6). A misreading's question is
        asked again without its "another card was played" answer instead: its correction
        overrules the logged play in place, so it is not out of order."""
        states = pile_states(ctx.game, view, ctx.piles)
        tops = pile_tops(ctx.game, view, ctx.piles)
        game_id = ctx.game_id
        open_now = {p["id"]: p for p in self.prompts.open(game_id)}
        closing: list[tuple[int, str]] = []
        keeping: list[tuple[int, dict[str, Any], str]] = []
        with self._questions_lock:
            self._piles_now[game_id] = states
            # answered, dismissed, or their game ended: gone from the tablets, but one the
            # family answered still settles those asked before it on its pile, this once
            gone = {
                pid: self._pile_questions.pop(pid)
                for pid in [
                    pid
                    for pid, q in self._pile_questions.items()
                    if q.game_id == game_id and pid not in open_now
                ]
            }
            for zone in ctx.piles:
                top, state = tops.get(zone), states.get(zone)
                asked = sorted(
                    (pid, q)
                    for pid, q in self._pile_questions.items()
                    if q.game_id == game_id and q.zone == zone and q.pile != state
                )
                if not asked:
                    continue
                # a question about another copy of the top card the pile lacks yet (TBL-6):
                # the pile does not agree with the camera, whatever the faces say
                twin_due = any(
                    q.top == top and not q.reached(ctx.game, state, top) for _, q in asked
                )
                if top is None:  # emptied (a reshuffle, the Dash over): asked about an older one
                    settled = asked
                    why = "the game's pile is empty now"
                elif ctx.seen.get(zone) == top and not twin_due:  # it agrees with the camera
                    settled = asked
                    why = f"the game's pile shows {top} on top, as the camera sees it"
                else:
                    answered = [
                        (pid, q) for pid, q in gone.items() if q.zone == zone and q.pile != state
                    ]
                    both = sorted(asked + answered)  # in the order asked
                    last = max(
                        (i for i, (_, q) in enumerate(both) if q.reached(ctx.game, state, top)),
                        default=-1,
                    )
                    settled = [(pid, q) for pid, q in both[: last + 1] if pid not in gone]
                    why = f"the game has {top} on the pile now, as this or a later question saw it"
                for pid, q in settled:
                    del self._pile_questions[pid]
                    reask = q.kind == "misread" and q.top != top
                    now = "A later card is logged on it now." if top else "The pile is empty now."
                    prompt = _without_another(open_now[pid], now) if reask else None
                    if prompt is None:
                        closing.append((pid, why))
                    else:
                        keeping.append((pid, prompt, why))
        for pid, why in closing:
            try:
                self.prompts.dismiss(game_id, pid)
            except BadInput:  # answered on a tablet meanwhile
                continue
            log.info("camera referee: game %s: question %s closed: %s", game_id, pid, why)
        for pid, prompt, why in keeping:
            if self.prompts.update(game_id, pid, prompt):
                log.info(
                    "camera referee: game %s: question %s keeps only its correction: %s",
                    game_id,
                    pid,
                    why,
                )


def _without_another(shown: Mapping[str, Any], now: str) -> dict[str, Any] | None:
    """A misreading's question (as the board shows it) without its "another" answer: the
    play it sends would now land on a later card, or an emptied pile (``now`` says which).
    None when nothing else is left to send."""
    if not isinstance(shown.get("suggestion"), Mapping):
        return None
    prompt = {k: v for k, v in shown.items() if k not in ("id", "game_id", "at")}
    prompt["answers"] = [a for a in prompt.get("answers") or [] if a.get("name") != "another"]
    prompt["choices"] = [c for c in prompt.get("choices") or [] if c != "another"]
    prompt["message"] = f"{prompt.get('message', '')} ({now})"
    return prompt


# The camera's move (TBL-6) is said once it reaches this share of the picture: the watcher
# follows the cards, but the zones stay where they were drawn, and a pile may leave its own.
CAMERA_MOVED_NOTE = 0.01


def camera_moved_note(watcher: Any, frame: Any) -> str:
    """ "; the camera moved about 12×8 px …" for the status once the watcher found the camera
    moved that far since it started (``TableWatcher.camera_offset``), else ""."""
    ox, oy = getattr(watcher, "camera_offset", (0.0, 0.0))
    shape = getattr(getattr(frame, "image", None), "shape", None)
    if shape is None or len(shape) < 2 or max(abs(ox), abs(oy)) < CAMERA_MOVED_NOTE:
        return ""
    height, width = shape[:2]
    return (
        f"; the camera moved about {abs(ox) * width:.0f}×{abs(oy) * height:.0f} px: the cards "
        "are followed, but if a pile now lies outside its zone, calibrate again"
    )


def _after_gap(frame: Any) -> Any:
    """``frame`` marked as following a gap (the source was reopened); a frame of another
    kind (a test double) as it is."""
    from vision.table.frames import Frame

    return replace(frame, after_gap=True) if isinstance(frame, Frame) else frame


def _at(last: Mapping[str, Any]) -> float:
    return float(last["at"])


def _describe(event: Event) -> str:
    card = event.payload.get("card") if isinstance(event.payload, Mapping) else None
    return f"{event.kind} {card}" if card else event.kind
