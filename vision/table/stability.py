"""Stable observations: a zone's reading counts only once it has held still.

A hand passing over the pile, motion blur, or a card put down and taken back inside
the window produce nothing: the new reading must be seen unchanged for ``min_frames``
frames spanning at least ``min_ns`` before it becomes an observation, and a zone
that is occluded (a hand over it) resets its candidate.

A gap in the frames (the camera dropped and came back, the watcher stalled) is, for every
zone, like a hand over it: the camera did not see what happened there. A change first seen
after a gap — in the first frame after it, or later while the zone was still covered — is
marked ``after_gap``: its ``t_ns`` is only when the camera came back, not when the card
was played, so no event may carry it as the card's time (TBL-10). Hit the Deck judges slaps
against a Hand card's time: a card stamped seconds late would make every slap a fake-out.
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
    t_ns: int  # when the new reading first appeared (not when it was confirmed)
    confirmed_ns: int
    confidence: float  # the lowest confidence seen while it was confirmed
    moved: bool = False  # same top card, but it lies elsewhere after a hand was over it
    pose: Pose | None = None  # where the top card lies (normalised centre, angle)
    # first seen only after a gap in the frames: ``t_ns`` is when the camera came back, not
    # when the change happened (TBL-10)
    after_gap: bool = False

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
    first_ns: int
    frames: int
    confidence: float
    pose: Pose | None = None
    after_gap: bool = False  # first seen after a gap in the frames (TBL-10)


@dataclass
class StabilityTracker:
    min_frames: int = 3
    min_ns: int = 80_000_000
    committed: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # A pile whose top card is the same but lies this far (normalised, either axis) from
    # where it lay, after something covered the pile, had a card of the same face played on
    # it (TBL-6).
    moved_tolerance: float = MOVED_TOLERANCE
    # … or turned by this many degrees (TBL-6)
    turned_tolerance: float = TURNED_TOLERANCE
    # Frames further apart than this leave a gap: what changed in it has no time (TBL-10)
    max_gap_ns: int = MAX_GAP_NS

    def __post_init__(self) -> None:
        self._candidates: dict[str, _Candidate] = {}
        self._poses: dict[str, Pose] = {}
        self._disturbed: set[str] = set()
        self._last_ns: int | None = None  # the previous frame's time
        self._gap = False  # the next frame follows a gap the source reported
        self._unseen: set[str] = set()  # zones not seen clear since a gap

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

    def _moved(self, zone: str, reading: ZoneReading) -> bool:
        if zone not in self._disturbed:
            return False
        return lies_elsewhere(
            self._poses.get(zone), reading.pose, self.moved_tolerance, self.turned_tolerance
        )

    def update(self, t_ns: int, readings: Mapping[str, ZoneReading]) -> list[Observation]:
        """Feed one frame's readings (every watched zone, empty ones included)."""
        self._note_frame(t_ns, readings)
        out = []
        for zone, reading in readings.items():
            if reading.occluded:
                self._candidates.pop(zone, None)
                self._disturbed.add(zone)
                continue
            current = self.committed.get(zone, ())
            moved = reading.cards == current and self._moved(zone, reading)
            if reading.cards == current and not moved:
                self._candidates.pop(zone, None)
                self._disturbed.discard(zone)  # seen where it lay: nothing was played on it
                self._unseen.discard(zone)
                if reading.pose is not None:
                    self._poses[zone] = reading.pose
                continue
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
                cand = _Candidate(
                    reading.cards,
                    t_ns,
                    0,
                    reading.confidence,
                    reading.pose,
                    after_gap=zone in self._unseen,
                )
                self._candidates[zone] = cand
            cand.frames += 1
            cand.confidence = min(cand.confidence, reading.confidence)
            if cand.frames >= self.min_frames and t_ns - cand.first_ns >= self.min_ns:
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
                    )
                )
                self.committed[zone] = cand.cards
                self._unseen.discard(zone)  # settled: later changes are seen arriving
                if reading.pose is not None:
                    self._poses[zone] = reading.pose
                else:
                    self._poses.pop(zone, None)
                self._disturbed.discard(zone)
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
