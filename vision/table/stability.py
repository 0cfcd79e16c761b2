"""Stable observations: a zone's reading counts only once it has held still.

A hand passing over the pile, motion blur, or a card put down and taken back inside
the window produce nothing: the new reading must be seen unchanged for ``min_frames``
frames spanning at least ``min_ns``, and read by ``min_detections`` detector runs in a row
(a frame the watcher re-feeds from its last run is no second opinion), before it becomes an
observation. A zone that is occluded (a hand over it) restarts its candidate's frame count
but keeps its time (TBL-1, TBL-13).

That time is when the reading was first seen clear — or, with ``from_departure`` (the table
watcher's cards, which land in an instant), when the card could first have been there: the
capture time of the first frame in which the zone departed from the last reading it showed
for sure — moved, covered, or read as something else — where "for sure" is its settled
reading seen clear, or a pending one two detector runs agreed on (TBL-20). The first frame
showing a new card differs from the one before, so the zone counts as moving (TBL-1) and is
read only a frame later; on a Raspberry Pi, 300–500 ms later, and by then the others' hands
are over the pile in Hit the Deck: stamped with the first clear frame, every pad slap was
"before the card". A zone seen clear with what it showed for sure again (a hand passed and
nothing changed) forgets its departure: a card played later is timed from its own. A reading
one run disagreed with (a blurred misread) that comes back keeps the time it had. A dryer is
hung piece by piece over seconds: its reading keeps the time it was first seen.

A gap in the frames (the camera dropped and came back, the watcher stalled) is, for every
zone, like a hand over it: the camera did not see what happened there. A change first seen
after a gap — in the first frame after it, or later while the zone was still covered — is
marked ``after_gap``: its ``t_ns`` is only when the camera came back, not when the card
was played, so no event may carry it as the card's time (TBL-10). Hit the Deck judges slaps
against a Hand card's time: a card stamped seconds late would make every slap a fake-out.
A reading still pending when the gap came is dropped, and so is a departure seen before it:
the camera did not see it settle, and what it sees afterwards is first seen after the gap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

# Where a pile's top card lies: its normalised centre, and its long side's angle in degrees
# (0–180) when the detector gives one.
Pose = tuple[float, float] | tuple[float, float, float]


@dataclass(frozen=True)
class ZoneReading:
    """What one frame shows in one zone: card identities (sorted) and how sure we are."""

    cards: tuple[str, ...]
    confidence: float = 1.0
    occluded: bool = False
    pose: Pose | None = None  # a pile's top card centre (normalised) and angle


@dataclass(frozen=True)
class Observation:
    zone: str
    before: tuple[str, ...]
    after: tuple[str, ...]
    # when the new reading was first seen clear, or (``from_departure``) when the zone first
    # departed from what it last showed for sure (TBL-20); not when it was confirmed
    t_ns: int
    confirmed_ns: int
    confidence: float  # the lowest confidence seen while it was confirmed
    moved: bool = False  # same top card, but it lies elsewhere after a hand was over it
    # where the top card lies (normalised centre, angle), less how far the watcher saw the
    # camera move since its first frame (TBL-6): a knocked camera moves no card
    pose: Pose | None = None
    # first seen only after a gap in the frames: ``t_ns`` is when the camera came back, not
    # when the change happened (TBL-10)
    after_gap: bool = False
    # something covered the zone (a hand, a gap) since it last showed its settled reading:
    # without that the new reading can only be the same cards read again (TBL-14);
    disturbed: bool | None = None  # None: not said (an Observation built by hand)

    @property
    def event_t_ns(self) -> int | None:
        """The time an event proposed from this observation may carry: when the change was
        first seen, or None after a gap (the referee then treats the event as untimed, e.g.
        HTD-14's first slap stands in for a Hand card) rather than a time seconds late."""
        return None if self.after_gap else self.t_ns

    def to_dict(self) -> dict:
        return {
            "zone": self.zone,
            "before": list(self.before),
            "after": list(self.after),
            "t_ns": self.t_ns,
            "confirmed_ns": self.confirmed_ns,
            "confidence": round(self.confidence, 4),
            "moved": self.moved,
            "pose": list(self.pose) if self.pose is not None else None,
            "after_gap": self.after_gap,
            "disturbed": self.disturbed,
        }


# TBL-6: 0.02 missed an R5 played on an R5 1.8 % away (bench.table video seed 1001); 0.015
# caught it and asked nothing false in 16 oracle and 6 model videos
MOVED_TOLERANCE = 0.015
# TBL-6: a card turned by more than this many degrees lies elsewhere too (a twin laid on its
# twin's spot at another angle). With half the plays twins the shipped models' videos caught
# 55 of 56 plays at 5° (8°: 53, centre only: 47) and asked nothing false; a still card's
# angle wobbles by up to 1.3° (3.95° with a camera 2.2× farther)
TURNED_TOLERANCE = 5.0
# TBL-10: frames further apart than this leave a gap in which the camera saw nothing. The
# watcher takes the newest frame whenever it is free, so frames reach it as far apart as it
# takes to read one: 33–100 ms here (30 FPS camera, the dashboard's 10 FPS feed, a skipped
# frame 200 ms), 300–500 ms expected on a Raspberry Pi (this machine's p50 of 100 ms, 3–5×
# slower). That is latency, not a gap: the card still carries the capture time of the first
# frame showing it. A dropped camera is reopened after 1 s (``ReconnectingSource.retry_s``,
# ``CameraReferee.retry_s``) and a feed silent for 1 s marks its next frame, so outages are
# caught by the sources' own marks; the time rule is the backstop for a stall longer than that.
MAX_GAP_NS = 1_000_000_000
# TBL-20: a card timed from its zone's departure is at most this early. The departure may be a
# hand hovering over the pile before the card lands; a Hit the Deck race counts slaps for 3 s
# from the card's time (HTD-13), and slaps come within about 1.5 s of the card, so a stamp up
# to 1.5 s early loses none. A departure further back than this before the card was first seen
# clear tells no time: the card is proposed untimed (the first slap stands in, HTD-14).
MAX_DEPARTURE_NS = 1_500_000_000


def turned_by(old: float, new: float) -> float:
    """The smaller angle between two undirected long sides, in degrees (0–90)."""
    d = abs(old - new) % 180.0
    return min(d, 180.0 - d)


def lies_elsewhere(
    old: Pose | None,
    new: Pose | None,
    tolerance: float,
    turned_tolerance: float = TURNED_TOLERANCE,
) -> bool:
    """Two poses whose centres lie further apart than ``tolerance`` on either axis, or whose
    long sides differ by more than ``turned_tolerance`` degrees where both are known (False
    when either pose is unknown)."""
    if old is None or new is None:
        return False
    if max(abs(old[0] - new[0]), abs(old[1] - new[1])) > tolerance:
        return True
    return len(old) > 2 and len(new) > 2 and turned_by(old[2], new[2]) > turned_tolerance


@dataclass
class _Candidate:
    cards: tuple[str, ...]
    first_ns: int  # the card's time: from its pile's departure (TBL-20)
    frames: int
    confidence: float
    pose: Pose | None = None
    # the first frame it was read in: the settle window (min_ns) counts from here, not from
    # the departure, or a card laid and taken back within 80 ms after a hand would settle
    seen_ns: int = 0
    # first seen after a gap in the frames (TBL-10), or after a departure too long ago to tell
    # when the card landed (TBL-20): no event may carry its time
    after_gap: bool = False
    # detector runs that read it, none between reading anything else (re-fed frames do not
    # count): one blurred frame's misread or one missed card must not settle on its own
    detections: int = 0
    hidden: bool = False  # covered since it was last seen: it waits, its first time kept


@dataclass
class StabilityTracker:
    min_frames: int = 3
    min_ns: int = 80_000_000
    # Detector runs in a row that must read a reading before it settles (at most
    # ``min_frames``): frames the watcher re-feeds while the picture holds still add time and
    # frames, not evidence (TBL-1).
    min_detections: int = 2
    committed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # A pile whose top card is the same but lies this far (normalised, either axis) from
    # where it lay, after something covered the pile, had a card of the same face played on
    # it (TBL-6).
    moved_tolerance: float = MOVED_TOLERANCE
    # … or turned by this many degrees (TBL-6)
    turned_tolerance: float = TURNED_TOLERANCE
    # Frames further apart than this leave a gap: what changed in it has no time (TBL-10)
    max_gap_ns: int = MAX_GAP_NS
    # A departure further back than this before a card is seen clear tells no time (TBL-20)
    max_departure_ns: int = MAX_DEPARTURE_NS

    def __post_init__(self) -> None:
        self._candidates: dict[str, _Candidate] = {}
        self._poses: dict[str, Pose] = {}
        self._disturbed: set[str] = set()
        self._last_ns: int | None = None  # the previous frame's time
        self._gap = False  # the next frame follows a gap the source reported
        self._unseen: set[str] = set()  # zones not seen clear since a gap
        # the first frame since a zone last showed for sure what lay there (its settled
        # reading clear, or a pending one two runs agreed on): a new card's time (TBL-20)
        self._departed: dict[str, int] = {}
        # the pending reading two runs agreed on since the zone's last settled reading, and
        # its time: back after a reading no two runs agreed on (a misread), it keeps it
        self._agreed: dict[str, tuple[tuple[str, ...], int]] = {}

    def mark_gap(self) -> None:
        """The next frame follows a gap its times may not show (the camera reconnected, a
        watcher started on a game already running): treat it as one (TBL-10)."""
        self._gap = True

    def _note_frame(self, t_ns: int, zones: Iterable[str]) -> None:
        """A frame further than ``max_gap_ns`` from the one before (or before it: another
        clock), or one the source says follows a gap, leaves every zone unseen since: like
        a hand over it, it may hide a play (TBL-6's disturbed) whose time nobody saw."""
        last, self._last_ns = self._last_ns, t_ns
        gap = self._gap or (last is not None and not 0 <= t_ns - last <= self.max_gap_ns)
        self._gap = False
        if gap:
            self._unseen.update(zones)
            self._disturbed.update(zones)
            self._candidates.clear()  # not seen settling: seen again, it is first seen now
            self._departed.clear()  # nor seen leaving: a change after a gap has no time
            self._agreed.clear()

    @property
    def _needed(self) -> int:
        return max(1, min(self.min_detections, self.min_frames))

    def unconfirmed(self) -> set[str]:
        """Zones whose pending reading, in sight, awaits another detector run: one the
        watcher must make even on a still picture, or the reading could never settle."""
        need = self._needed
        return {z for z, c in self._candidates.items() if c.detections < need and not c.hidden}

    def _moved(self, zone: str, reading: ZoneReading) -> bool:
        if zone not in self._disturbed:
            return False
        return lies_elsewhere(
            self._poses.get(zone), reading.pose, self.moved_tolerance, self.turned_tolerance
        )

    def update(
        self,
        t_ns: int,
        readings: Mapping[str, ZoneReading],
        fresh: bool = True,
        *,
        from_departure: bool = False,
    ) -> list[Observation]:
        """Feed one frame's readings (every watched zone, empty ones included). ``fresh``
        is False when they repeat the detector's last run (the watcher's motion gate saw no
        change): such a frame counts towards ``min_frames`` and ``min_ns`` but is no new
        detection. ``from_departure`` (the same every frame): a new reading's time is when
        its zone departed from what it last showed for sure, not when it was first seen
        clear (TBL-20: a card lands in an instant, and its first frame reads as moving)."""
        self._note_frame(t_ns, readings)
        out = []
        for zone, reading in readings.items():
            if reading.occluded:
                cand = self._candidates.get(zone)
                if cand is not None:  # seen in full again before it settles; time kept
                    cand.frames = 0
                    cand.hidden = True
                self._disturbed.add(zone)
                self._departed.setdefault(zone, t_ns)
                continue
            current = self.committed.get(zone, ())
            moved = reading.cards == current and self._moved(zone, reading)
            if reading.cards == current and not moved:
                self._candidates.pop(zone, None)
                self._disturbed.discard(zone)  # seen where it lay: nothing was played on it
                self._unseen.discard(zone)
                self._departed.pop(zone, None)  # a hand passed; a later card is timed anew
                self._agreed.pop(zone, None)
                if reading.pose is not None:
                    self._poses[zone] = reading.pose
                continue
            departed = self._departed.setdefault(zone, t_ns)
            cand = self._candidates.get(zone)
            if (
                cand is None
                or cand.cards != reading.cards
                or (
                    moved
                    and lies_elsewhere(
                        cand.pose,
                        reading.pose,
                        self.moved_tolerance / 2,
                        self.turned_tolerance / 2,
                    )
                )
            ):
                first_ns, untimed = t_ns, zone in self._unseen
                if from_departure:
                    agreed = self._agreed.get(zone)
                    if agreed and agreed[0] == reading.cards:
                        first_ns = agreed[1]  # a time two runs agreed on: it stays known
                    else:
                        first_ns = departed
                        # a hand hovering long before the card: how early it landed is unknown
                        untimed = untimed or t_ns - first_ns > self.max_departure_ns
                cand = _Candidate(
                    reading.cards,
                    first_ns,
                    0,
                    reading.confidence,
                    reading.pose,
                    after_gap=untimed,
                    seen_ns=t_ns,
                )
                self._candidates[zone] = cand
            cand.frames += 1
            cand.detections += int(fresh)
            cand.hidden = False
            cand.confidence = min(cand.confidence, reading.confidence)
            if cand.detections >= self._needed:  # shown for sure: a later card came after
                self._agreed[zone] = (cand.cards, cand.first_ns)
                del self._departed[zone]
            if (
                cand.frames >= self.min_frames
                and cand.detections >= self._needed
                and t_ns - cand.seen_ns >= self.min_ns
            ):
                out.append(
                    Observation(
                        zone,
                        current,
                        cand.cards,
                        cand.first_ns,
                        t_ns,
                        cand.confidence,
                        moved,
                        reading.pose,
                        cand.after_gap,
                        zone in self._disturbed,
                    )
                )
                self.committed[zone] = cand.cards
                self._unseen.discard(zone)  # settled: later changes are seen arriving
                if reading.pose is not None:
                    self._poses[zone] = reading.pose
                else:
                    self._poses.pop(zone, None)
                self._disturbed.discard(zone)
                self._departed.pop(zone, None)
                self._agreed.pop(zone, None)
                del self._candidates[zone]
        return out

    def reset(self, zones: Iterable[str] | None = None) -> None:
        """Forget committed readings (e.g. a new round: the table was cleared)."""
        for zone in list(zones) if zones is not None else list(self.committed):
            self.committed.pop(zone, None)
            self._candidates.pop(zone, None)
            self._poses.pop(zone, None)
            self._disturbed.discard(zone)
            self._unseen.discard(zone)
            self._departed.pop(zone, None)
            self._agreed.pop(zone, None)
