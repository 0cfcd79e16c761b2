"""The camera's card scale: how the detector should see frames so cards come out the size it
learnt (ruling VIS-11).

Why: the detector learnt cards 34–100 px wide in a 640×480 frame (5–16 % of the frame's long
side), a camera above a family table. A camera mounted lower (a small table, a short stand)
sees every card larger, and cards well above that range get no box or a box round their big
symbol (`bench/vision_closeups.py --groups`). ``identify`` answers this with extra shrunk
passes on every photo (VIS-10), three detector passes a picture; a table camera cannot
afford that on every frame, and needs none of it: its cards are all one size and its mount
seldom moves. So the first frames that show cards are read with the extra passes (and on
the tiles below, when they find only small cards or none), the cards' median width fixes one
scale (``ReaderConfig.scale``), and every later frame is detected once, shrunk by it. A
camera whose cards lie in the learnt range gets 1 (the frames as they are). A camera mounted
high sees cards smaller than learnt; those are found on 2×2 enlarged tiles of the frame
(``vision.runtime.zoom.detect_tiled``, four detector passes).
A mount that is bumped or moved mid-game shows up as cards read at another size than
measured (or, moved far, none read at all): the scale is then measured again.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.runtime.detections import Detections

# card widths the detector learnt, as shares of the frame's long side (vision.render.scenes:
# 34–100 px of 640); a measured median above LEARNT_MAX is shrunk to LEARNT_MIDDLE
LEARNT_MAX = 100 / 640
LEARNT_MIDDLE = 67 / 640
# a median below SMALL_CARDS is found on 2×2 tiles, each 1/ENLARGE of the frame (overlapping
# by a fifth of it). Training-style tables shrunk onto a mirrored frame, 40 a row, faces read
# as they are / on tiles (at full size: 185 of 196): cards ×0.9 186 / 155, ×0.8 (median 51
# px) 182 / 173, ×0.7 182 / 180, ×0.65 (43 px) 171 / 182, ×0.5 (36 px) 145 / 186, ×0.35 82 / 159
# Even found on the tiles, small cards are read less well (×0.5: 298 of 320 faces, ×0.35 269,
# against 354 of 374 at ×1, bench/vision_card_scale.py; game videos 2.2× farther: 18 of 21
# plays either way, bench.table videos --nearer 0.45), and twice the pixels of the same view
# read little more (×0.5 297, ×0.35 278, --capture 2), so the scale also says to mount lower.
SMALL_CARDS = 44 / 640
ENLARGE = 5 / 3
SMALLEST_SHRINK = 0.2  # a card filling the frame: more is a photo, not a table camera
# while measuring, the frame is read as it is and shrunk by 2 and 4 (identify's passes, for
# cards larger than learnt) and, when those find only boxes narrower than SMALL_CARDS or
# none, on the 2×2 tiles too (seven passes): without the tiles a high camera's first frames
# read few of its small cards, and took more frames to measure (bench/vision_card_scale.py,
# 80 tables a row, card-scale column without → with: ×0.35 188 → 269 of 320 faces, ×0.5 258
# → 298, ×0.65 300 → 303, ×1 353 → 354 of 374, ×2 … ×3 unchanged). Only then: on a frame of
# large cards the tiles find the cards' big symbols as cards.
PROBE_PASSES = 2
MEASURED_CONFIDENCE = 0.5  # cards read less surely than this are not measured
PROBE_FRAMES = 3  # frames showing cards …
PROBE_CARDS = 4  # … and cards in all, before the scale is fixed
# a camera bumped or moved mid-game. Cards read at the measured scale cannot tell by
# themselves: at the wrong scale what is read is what fits it (a large card's symbol read as
# a card of about the learnt size). So some frames are rechecked — read with the measuring
# passes (``measuring_read``) — and when the median of the last DRIFT_CARDS cards the
# rechecks read is more than DRIFT times larger or smaller than the measured one, the scale
# is measured again. A recheck comes every RECHECK_EVERY frames; after RECHECK_AFTER frames
# in a row that read no card; and RECHECK_SOON frames after the last one when a frame's cards
# read off the measured size by DRIFT (a hint, not proof). A recheck never changes the
# frame's reading (it is still read at the scale), so a camera that stays put costs three
# extra detector passes every RECHECK_EVERY frames (seven where its cards are small).
RECHECK_EVERY = 20
RECHECK_AFTER = 10
RECHECK_SOON = 4
DRIFT = 1.4
DRIFT_CARDS = 6
# … or at once when one recheck reads at least DRIFT_AT_ONCE sure cards all off the measured
# width by DRIFT the same way: a moved camera with cards in view is measured again without
# waiting for three rechecks, while one or two cards held up to the lens change nothing
# (bench/vision_card_scale.py --moved --n 320: moved 2.5× nearer 273 → 321 of 667 faces;
# 2 cards at once would read 351 but re-measure for a pair held up; 2× farther 1 229 → 1 230)
DRIFT_AT_ONCE = 3


@dataclass(frozen=True)
class CardScale:
    """A card scale: how the detector sees the frame (``ReaderConfig.scale``: < 1 shrunk,
    > 1 on enlarged tiles), the cards' median width (share of the frame's long side) and how
    many cards were measured (None and 0 for a scale set, not measured)."""

    scale: float
    card_width: float | None
    cards: int

    @property
    def small(self) -> bool:
        """The cards measured smaller than the models read well (found on the tiles)."""
        return self.card_width is not None and self.card_width < SMALL_CARDS

    def to_dict(self) -> dict[str, float | int | bool | None]:
        width = None if self.card_width is None else round(self.card_width, 4)
        return {
            "scale": self.scale,
            "card_width": width,
            "cards": self.cards,
            "small": self.small,
        }

    def describe(self) -> str:
        if self.card_width is None:
            return f"card scale {self.scale:g} (set)"
        said = (
            f"card scale {self.scale:g} (cards {self.card_width:.0%} of the frame wide,"
            f" {self.cards} measured)"
        )
        if self.small:
            said += (
                "; the cards look small: they are searched for on enlarged tiles, but a camera"
                " mounted lower or nearer the table reads them better"
            )
        return said


def card_widths(found: Detections, frame_shape: tuple[int, ...]) -> list[float]:
    """Widths (the boxes' shorter sides, as shares of the frame's long side) of the cards
    read surely: faces and backs, not "other" boxes."""
    long_side = float(max(frame_shape[:2]))
    widths = []
    for box, value, confidence in zip(found.obb, found.value, found.confidence, strict=True):
        if value != "other" and confidence >= MEASURED_CONFIDENCE:
            widths.append(float(min(box[2], box[3])) / long_side)
    return widths


def measuring_read(reader, frame: np.ndarray) -> Detections:
    """``frame`` read with the measuring passes: as it is, shrunk (``PROBE_PASSES``), and on
    the enlarged tiles when those find only small cards or none (``CardReader.find_any_size``),
    so cards of any size a table camera may see are found."""
    return reader.find_any_size(frame, PROBE_PASSES, ENLARGE, SMALL_CARDS)


def scale_from_widths(widths: list[float]) -> CardScale | None:
    """The scale that brings the median card into the learnt range: shrunk to its middle
    when larger, the enlarged tiles when smaller than SMALL_CARDS, else 1; None with no card
    measured."""
    if not widths:
        return None
    median = float(np.median(widths))
    if median > LEARNT_MAX:
        scale = max(SMALLEST_SHRINK, LEARNT_MIDDLE / median)
    elif median < SMALL_CARDS:
        scale = ENLARGE
    else:
        scale = 1.0
    return CardScale(round(scale, 3), median, len(widths))


class CameraScale:
    """One camera's card scale and the state that measures and rechecks it.

    Why a separate object: a camera has one scale, whichever game's deck is read through
    it. Each game has its own reader (its deck's known cards), so the dashboard shares one
    ``CameraScale`` between them (``ScaledReader(..., camera=)``): a scale one game's reader
    measures again after the camera was moved is the scale the next game's reader uses, and
    the status reports it. ``scale`` fixes the scale instead of measuring it."""

    def __init__(self, scale: float | None = None) -> None:
        self.fixed = scale is not None
        self.card_scale: CardScale | None = CardScale(scale, None, 0) if scale is not None else None
        self.drifts = 0  # how often the cards drifted in size and the scale was measured again
        self._start_measuring()

    def _start_measuring(self) -> None:
        self._widths: list[float] = []
        self._frames = 0
        self._recent: list[float] = []  # widths the rechecks read (DRIFT)
        self._since = 0  # frames read at the measured scale since the last recheck
        self._unread = 0  # … of which in a row with no card read surely (RECHECK_AFTER)
        self._off = False  # the last frame's cards read off the measured size (RECHECK_SOON)

    def reset(self) -> None:
        """Measure again (the camera may have moved); a fixed scale stays."""
        if not self.fixed:
            self.card_scale = None
            self._start_measuring()

    @property
    def measuring(self) -> bool:
        return self.card_scale is None

    def read(self, reader, frame: np.ndarray) -> Detections:
        """``frame`` read by ``reader`` (a ``CardReader``) as the scale's state says: with
        the measuring passes, at the scale set, or at the measured scale (with rechecks)."""
        if self.card_scale is None:
            return self._probe(reader, frame)
        if self.card_scale.card_width is None or self.fixed:  # set, not measured
            return reader.find(frame, 0, self.card_scale.scale)
        return self._at_measured_scale(reader, frame, self.card_scale.scale)

    def _at_measured_scale(self, reader, frame: np.ndarray, scale: float) -> Detections:
        """A frame at the measured scale, or a recheck when one is due (``RECHECK_*``)."""
        self._since += 1
        due = self._since >= RECHECK_EVERY or self._unread >= RECHECK_AFTER
        if due or (self._off and self._since >= RECHECK_SOON):
            self._since = self._unread = 0
            self._off = False
            return self._recheck(reader, frame, scale)
        found = reader.find(frame, 0, scale)
        widths = card_widths(found, frame.shape)
        self._unread = 0 if widths else self._unread + 1
        self._off = bool(widths) and self._drifted(widths)
        return found

    def _probe(self, reader, frame: np.ndarray) -> Detections:
        """A frame read with the measuring passes; its sure cards' widths count towards
        the scale."""
        found = measuring_read(reader, frame)
        widths = card_widths(found, frame.shape)
        if widths:
            self._widths += widths
            self._frames += 1
        if self._frames >= PROBE_FRAMES and len(self._widths) >= PROBE_CARDS:
            self.card_scale = scale_from_widths(self._widths)
        return found

    def _recheck(self, reader, frame: np.ndarray, scale: float) -> Detections:
        """Read ``frame`` with the measuring passes for the drift check only; the frame's
        reading is still the one at ``scale``, so a recheck never changes what the watcher
        sees (the passes read some cards with other confidences, and a bumped camera's
        cards at another size)."""
        self._watch_drift(card_widths(measuring_read(reader, frame), frame.shape))
        return reader.find(frame, 0, scale)

    def _watch_drift(self, widths: list[float]) -> None:
        """Measure again when the rechecks' last ``DRIFT_CARDS`` cards' median is off the
        measured one by more than ``DRIFT`` either way (a bumped camera; a few cards held up
        to it move the median little), or at once when this recheck's ``DRIFT_AT_ONCE`` or
        more cards all are."""
        if not widths:
            return
        self._recent = (self._recent + widths)[-DRIFT_CARDS:]
        at_once = len(widths) >= DRIFT_AT_ONCE and self._all_drifted(widths)
        if at_once or (len(self._recent) >= DRIFT_CARDS and self._drifted(self._recent)):
            self.reset()
            self.drifts += 1

    def _all_drifted(self, widths: list[float]) -> bool:
        """Every width is more than ``DRIFT`` times off the measured one, the same way."""
        ratios = self._ratios(widths)
        return bool(len(ratios) and ((ratios > DRIFT).all() or (ratios < 1 / DRIFT).all()))

    def _drifted(self, widths: list[float]) -> bool:
        """The widths' median is more than ``DRIFT`` times off the measured one."""
        ratios = self._ratios(widths)
        return bool(len(ratios)) and not 1 / DRIFT <= float(np.median(ratios)) <= DRIFT

    def _ratios(self, widths: list[float]) -> np.ndarray:
        """Each width over the measured one; none while no width is measured."""
        measured = self.card_scale.card_width if self.card_scale else None
        return np.asarray(widths if measured else [], float) / (measured or 1.0)


class ScaledReader:
    """A ``CardReader`` for a table camera: reads with the extra passes until
    ``PROBE_FRAMES`` frames have shown ``PROBE_CARDS`` cards, then detects on every frame
    scaled by the measured scale, and measures again when the cards its rechecks read
    drift in size (``DRIFT``: the camera was moved). ``scale`` fixes the scale instead of
    measuring it; ``camera`` shares one camera's scale with other games' readers."""

    def __init__(self, reader, scale: float | None = None, camera: CameraScale | None = None):
        if camera is not None and scale is not None:
            raise ValueError("a shared camera scale carries its own fixed scale")
        self.reader = reader
        self.camera = camera if camera is not None else CameraScale(scale)

    @property
    def card_scale(self) -> CardScale | None:
        return self.camera.card_scale

    @property
    def drifts(self) -> int:
        return self.camera.drifts

    @property
    def measuring(self) -> bool:
        return self.camera.measuring

    def reset(self) -> None:
        """Measure again (the camera may have moved); a fixed scale stays."""
        self.camera.reset()

    def __call__(self, frame: np.ndarray) -> Detections:
        return self.camera.read(self.reader, frame)
