"""Stable observations: a zone's reading counts only once it has held still.

A hand passing over the pile, motion blur, or a card put down and taken back inside
the window produce nothing: the new reading must be seen unchanged for ``min_frames``
frames spanning at least ``min_ns`` before it becomes an observation, and a zone
that is occluded (a hand over it) resets its candidate.
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
        }


# TBL-6: 0.02 missed an R5 played on an R5 1.8 % away (bench.table video seed 1001); 0.015
# caught it and asked nothing false in 16 oracle and 6 model videos
MOVED_TOLERANCE = 0.015
# TBL-6: a card turned by more than this many degrees lies elsewhere too (a twin laid on its
# twin's spot at another angle). With half the plays twins the shipped models' videos caught
# 55 of 56 plays at 5° (8°: 53, centre only: 47) and asked nothing false; a still card's
# angle wobbles by up to 1.3° (3.95° with a camera 2.2× farther)
TURNED_TOLERANCE = 5.0


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

    def __post_init__(self) -> None:
        self._candidates: dict[str, _Candidate] = {}
        self._poses: dict[str, Pose] = {}
        self._disturbed: set[str] = set()

    def _moved(self, zone: str, reading: ZoneReading) -> bool:
        if zone not in self._disturbed:
            return False
        return lies_elsewhere(
            self._poses.get(zone), reading.pose, self.moved_tolerance, self.turned_tolerance
        )

    def update(self, t_ns: int, readings: Mapping[str, ZoneReading]) -> list[Observation]:
        """Feed one frame's readings (every watched zone, empty ones included)."""
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
                cand = _Candidate(reading.cards, t_ns, 0, reading.confidence, reading.pose)
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
                    )
                )
                self.committed[zone] = cand.cards
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
