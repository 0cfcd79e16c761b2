"""From frames to observations: gate, detect, assign to zones, wait for stability."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.table.frames import Frame
from vision.table.motion import MotionGate
from vision.table.stability import Observation, Pose, StabilityTracker, ZoneReading
from vision.table.zones import TableLayout, Zone, ZoneKind

# Piles show one card that matters: the one on top (the largest visible face).
PILE_KINDS = frozenset({ZoneKind.DRAW_PILE, ZoneKind.DISCARD})

# TBL-6: the camera moved when the whole picture moved together. Estimated on a grey picture
# at most this wide: at 320 px a 10×6 px bump of a 640×480 camera reads 10.0×6.0 (at 160 px,
# 10.1×5.3), in a few milliseconds, once per hand that leaves the table.
SHIFT_WIDTH = 320
# A shift explains the change when aligning by it leaves at most this share of the changed
# pixels changed: a card laid by hand stays changed however the pictures are aligned (the
# estimate there is a spurious pixel or so), a bumped camera's picture lines up again.
SHIFT_EXPLAINED = 0.5
# ... and the pictures differ in at least this share of pixels before aligning (less is
# sensor noise or a shift too small to matter), by a move of at least MIN_SHIFT (normalised,
# either axis; 0.002 is 1.3 px at 640 px, a tenth of TBL-6's 1.5 % tolerance).
SHIFT_MIN_CHANGED = 0.005
MIN_SHIFT = 0.002
# A knock moves the picture a few per cent: a "shift" of more (a card taken off a plain table
# lines its edge up with nothing), or a weak correlation peak (a picture with too little
# texture to tell), is no camera move.
MAX_SHIFT = 0.1
MIN_RESPONSE = 0.2
SHIFT_DELTA = 20  # grey levels that count as a changed pixel, as the motion gate's


def _shift_grey(image: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    h, w = grey.shape
    if w > SHIFT_WIDTH:
        size = (SHIFT_WIDTH, max(1, round(h * SHIFT_WIDTH / w)))
        grey = cv2.resize(grey, size, interpolation=cv2.INTER_AREA)
    return grey.astype(np.float32)


def _changed(a: np.ndarray, b: np.ndarray, margin: int) -> float:
    """Share of pixels inside a ``margin`` border that differ by more than SHIFT_DELTA."""
    h, w = a.shape
    if h <= 2 * margin or w <= 2 * margin:
        return 0.0
    inner = (slice(margin, h - margin), slice(margin, w - margin))
    return float((cv2.absdiff(a[inner], b[inner]) > SHIFT_DELTA).mean())


def camera_shift(before: np.ndarray, after: np.ndarray) -> tuple[float, float] | None:
    """The normalised ``(dx, dy)`` by which the whole picture moved from ``before`` to
    ``after`` (the camera was bumped), or None when it did not move as a whole: nothing
    changed, a shift too small to matter, or a change that aligning does not explain (a card
    laid, a hand, the light)."""
    a, b = _shift_grey(before), _shift_grey(after)
    if a.shape != b.shape or min(a.shape) < 8:
        return None
    (dx, dy), response = cv2.phaseCorrelate(
        a, b, cv2.createHanningWindow(a.shape[::-1], cv2.CV_32F)
    )
    h, w = a.shape
    if response < MIN_RESPONSE or not MIN_SHIFT <= max(abs(dx) / w, abs(dy) / h) <= MAX_SHIFT:
        return None
    margin = math.ceil(max(abs(dx), abs(dy))) + 2
    aligned = cv2.warpAffine(
        a, np.float32([[1, 0, dx], [0, 1, dy]]), (w, h), borderMode=cv2.BORDER_REPLICATE
    )
    unaligned = _changed(a, b, margin)
    if unaligned < SHIFT_MIN_CHANGED or _changed(aligned, b, margin) > SHIFT_EXPLAINED * unaligned:
        return None
    return dx / w, dy / h


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


def read_zone(
    zone: Zone,
    sightings: Sequence[Sighting],
    min_confidence: float,
    offset: tuple[float, float] = (0.0, 0.0),
) -> ZoneReading:
    """What ``zone`` shows: its top card for a pile, every card for an area. A pile's pose is
    taken less ``offset``, how far the camera has moved (TBL-6)."""
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
        pose: Pose = (round(cx - offset[0], 3), round(cy - offset[1], 3))
        if top.angle is not None:
            pose = (*pose, round(top.angle, 1))
        return ZoneReading((top.label,), top.confidence, pose=pose)
    return ZoneReading(tuple(sorted(s.label for s in inside)), min(s.confidence for s in inside))


@dataclass
class WatcherStats:
    frames: int = 0
    detections_run: int = 0
    camera_moves: int = 0  # times the whole picture moved together (TBL-6)


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
    # Tell a bumped camera from cards moved by hand (TBL-6): when the watched zones stop
    # moving and the whole picture lies shifted from before, poses are taken less the shift.
    follow_camera: bool = True
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
        self._still: np.ndarray | None = None  # the last frame in which no zone moved
        # How far the camera has moved since the first frame (normalised, summed), and by how
        # much in this frame when it was found moved in it (else None): the status may ask
        # "camera moved?", since the zones stay where they were drawn.
        self.camera_offset: tuple[float, float] = (0.0, 0.0)
        self.camera_moved: tuple[float, float] | None = None

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
            shifted = self._follow_camera(frame.image, moved)
            self._moving = moved
            run = (
                not self._last
                or stopped
                or shifted
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
            self._last = {
                z.name: read_zone(z, sightings, self.min_confidence, self.camera_offset)
                for z in self._zones
            }
            if gate is not None:
                gate.mark_detected()
        readings = self._last
        if moved:
            readings = {
                n: ZoneReading((), 0.0, occluded=True) if n in moved else r
                for n, r in readings.items()
            }
        return self.tracker.update(frame.t_ns, readings, fresh=run, from_departure=True)

    def _follow_camera(self, image: np.ndarray, moved: set[str]) -> bool:
        """Whether the zones, still again after moving, show the whole picture shifted from
        the last still frame: the camera moved, no hand did (TBL-6). Its shift joins
        ``camera_offset``, so a pile's card lies where it lay and no second copy is asked
        about. A card laid by hand changes one spot, which no shift lines up."""
        self.camera_moved = None
        if moved or not self.follow_camera:
            return False
        before, self._still = self._still, image
        if not self._moving or before is None:
            return False
        shift = camera_shift(before, image)
        if shift is None:
            return False
        ox, oy = self.camera_offset
        self.camera_offset = (ox + shift[0], oy + shift[1])
        self.camera_moved = shift
        self.stats.camera_moves += 1
        return True

    @property
    def zones(self) -> list[Zone]:
        return list(self._zones)
