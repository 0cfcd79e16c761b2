"""From frames to observations: gate, detect, assign to zones, wait for stability."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from vision.table.frames import Frame
from vision.table.motion import MotionGate
from vision.table.stability import Observation, Pose, StabilityTracker, ZoneReading
from vision.table.zones import TableLayout, Zone, ZoneKind

# Piles show one card that matters: the one on top (the largest visible face).
PILE_KINDS = frozenset({ZoneKind.DRAW_PILE, ZoneKind.DISCARD})


@dataclass(frozen=True)
class Sighting:
    """One thing the detector saw. ``box`` is normalised ``(x1, y1, x2, y2)``.

    ``label`` names a card face in the deck's notation (e.g. ``R7``), ``back`` for a card
    back, or an occluder class (``hand``) when ``occluder`` is set.
    """

    label: str
    confidence: float
    box: tuple[float, float, float, float]
    occluder: bool = False
    angle: float | None = None  # the card's long side, degrees in [0, 180), when known

    @property
    def center(self) -> tuple[float, float]:
        x1, y1, x2, y2 = self.box
        return (x1 + x2) / 2, (y1 + y2) / 2

    @property
    def area(self) -> float:
        x1, y1, x2, y2 = self.box
        return max(0.0, x2 - x1) * max(0.0, y2 - y1)


Detector = Callable[[np.ndarray], Sequence[Sighting]]


def _overlaps(box: tuple[float, float, float, float], zone: Zone) -> bool:
    xs = [p[0] for p in zone.points]
    ys = [p[1] for p in zone.points]
    x1, y1, x2, y2 = box
    return x1 < max(xs) and x2 > min(xs) and y1 < max(ys) and y2 > min(ys)


def read_zone(zone: Zone, sightings: Sequence[Sighting], min_confidence: float) -> ZoneReading:
    """What ``zone`` shows: its top card for a pile, every card for an area."""
    if any(s.occluder and _overlaps(s.box, zone) for s in sightings):
        return ZoneReading((), 0.0, occluded=True)
    inside = [
        s
        for s in sightings
        if not s.occluder and s.confidence >= min_confidence and zone.contains(*s.center)
    ]
    if not inside:
        return ZoneReading(())
    if zone.kind in PILE_KINDS:
        top = max(inside, key=lambda s: s.area)
        cx, cy = top.center
        pose: Pose = (round(cx, 3), round(cy, 3))
        if top.angle is not None:
            pose = (*pose, round(top.angle, 1))
        return ZoneReading((top.label,), top.confidence, pose=pose)
    return ZoneReading(tuple(sorted(s.label for s in inside)), min(s.confidence for s in inside))


@dataclass
class WatcherStats:
    frames: int = 0
    detections_run: int = 0


@dataclass
class TableWatcher:
    detector: Detector
    layout: TableLayout
    watched: Sequence[str] | None = None  # zone names; default every card zone
    tracker: StabilityTracker = field(default_factory=StabilityTracker)
    gate: MotionGate | None = field(default_factory=MotionGate)
    min_confidence: float = 0.25
    # A zone whose picture moved over more than this share of its area is occluded this
    # frame (a hand, a card being slid, motion blur): ruling TBL-1. None turns it off.
    zone_motion: float | None = 0.04
    stats: WatcherStats = field(default_factory=WatcherStats)

    def __post_init__(self) -> None:
        names = self.watched or [
            z.name for z in self.layout.zones if z.kind not in (ZoneKind.DRYER, ZoneKind.BAR)
        ]
        self._zones = [self.layout.zone(n) for n in names]
        self._boxes = {z.name: self.layout.box(z.name) for z in self._zones}
        self._last: dict[str, ZoneReading] = {}
        self._settle = 0
        self._moving: set[str] = set()  # the zones that moved in the previous frame

    def process(self, frame: Frame) -> list[Observation]:
        """One frame. The detector runs only when a watched zone that is *not* moving looks
        different from when the detector last saw it or has just stopped moving, or while a
        reading awaits a run that agrees with it: a moving zone is occluded anyway (TBL-1),
        and hands moving elsewhere on the table cost nothing. Frames between runs re-feed
        the last readings, which the tracker counts as time, not as detections that agree.
        A frame the source marks ``after_gap`` (it reconnected) tells the tracker: what
        changed meanwhile has no time (TBL-10). A card lands in an instant, but the frame it
        lands in reads as moving: its time is when its zone first departed from what it
        showed (TBL-20)."""
        self.stats.frames += 1
        if frame.after_gap:
            self.tracker.mark_gap()
        gate = self.gate
        moved: set[str] = set()
        if gate is None:
            run = True
        else:
            gate.observe(frame.image)
            if self.zone_motion is not None:
                moved = {
                    n
                    for n, box in self._boxes.items()
                    if gate.moving_fraction(box) > self.zone_motion
                }
            # a zone that just stopped moving (a hand left) is read on any change at all: a
            # card laid squarely on one of its colour changes too few grey pixels for the
            # usual share, while a shadow or a flicker that came and went changes none
            stopped = any(
                gate.changed_since_detection(self._boxes[n]) > 0 for n in self._moving - moved
            )
            self._moving = moved
            run = (
                not self._last
                or stopped
                or any(
                    gate.changed_since_detection(box) > gate.changed_fraction
                    for n, box in self._boxes.items()
                    if n not in moved
                )
            )
            # a change is read on a few frames, not one: a single blurred or compressed
            # frame must not decide it (the tracker needs them to agree)
            if run:
                self._settle = gate.settle_frames
            elif self._settle > 0 and not moved:
                self._settle -= 1
                run = True
            elif self.tracker.unconfirmed() - moved:
                # the last runs disagreed (a misread, a missed card): the picture held still
                # since, but the reading it froze is no second opinion; read it again
                run = True
        if run:
            self.stats.detections_run += 1
            sightings = self.detector(frame.image)
            self._last = {z.name: read_zone(z, sightings, self.min_confidence) for z in self._zones}
            if gate is not None:
                gate.mark_detected()
        readings = self._last
        if moved:
            readings = {
                n: ZoneReading((), 0.0, occluded=True) if n in moved else r
                for n, r in readings.items()
            }
        return self.tracker.update(frame.t_ns, readings, fresh=run, from_departure=True)

    @property
    def zones(self) -> list[Zone]:
        return list(self._zones)
