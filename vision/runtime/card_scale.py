"""The camera's card scale: how much to shrink frames so cards come out the size the detector
learnt (ruling VIS-11).

Why: the detector learnt cards 34–100 px wide in a 640×480 frame (5–16 % of the frame's long
side), a camera above a family table. A camera mounted lower (a small table, a short stand)
sees every card larger, and cards well above that range get no box or a box round their big
symbol (`bench/vision_closeups.py --groups`). ``identify`` answers this with extra shrunk
passes on every photo (VIS-10), three detector passes a picture; a table camera cannot
afford that on every frame, and needs none of it: its cards are all one size and its mount
does not move. So the first frames that show cards are read with the extra passes, the
cards' median width fixes one shrink factor, and every later frame is detected once, shrunk
by it (``ReaderConfig.shrink``). A camera whose cards lie in the learnt range gets 1 (the
frames as they are).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from vision.runtime.detections import Detections

# card widths the detector learnt, as shares of the frame's long side (vision.render.scenes:
# 34–100 px of 640); a measured median above LEARNT_MAX is shrunk to LEARNT_MIDDLE
LEARNT_MAX = 100 / 640
LEARNT_MIDDLE = 67 / 640
# below this median width cards are read less well and nothing here enlarges them: the scale
# says so (training-style tables shrunk onto a mirrored frame, 60 a row: median 64 px read
# 93.7 %, 51 px 91.7 %, 43 px 87.3 %, 36 px 69.0 %); the camera wants mounting lower
SMALL_CARDS = 40 / 640
SMALLEST_SHRINK = 0.2  # a card filling the frame: more is a photo, not a table camera
PROBE_PASSES = 2  # extra shrunk passes while measuring (by 2 and 4: identify's)
MEASURED_CONFIDENCE = 0.5  # cards read less surely than this are not measured
PROBE_FRAMES = 3  # frames showing cards …
PROBE_CARDS = 4  # … and cards in all, before the scale is fixed


@dataclass(frozen=True)
class CardScale:
    """A card scale: the shrink factor, the cards' median width (share of the frame's long
    side) and how many cards were measured (None and 0 for a scale set, not measured)."""

    shrink: float
    card_width: float | None
    cards: int

    @property
    def small(self) -> bool:
        """The cards measured smaller than the models read well."""
        return self.card_width is not None and self.card_width < SMALL_CARDS

    def to_dict(self) -> dict[str, float | int | bool | None]:
        width = None if self.card_width is None else round(self.card_width, 4)
        return {
            "shrink": self.shrink,
            "card_width": width,
            "cards": self.cards,
            "small": self.small,
        }

    def describe(self) -> str:
        if self.card_width is None:
            return f"card scale {self.shrink:g} (set)"
        said = (
            f"card scale {self.shrink:g} (cards {self.card_width:.0%} of the frame wide,"
            f" {self.cards} measured)"
        )
        if self.small:
            said += (
                "; the cards look smaller than the models read well: mount the camera lower"
                " or nearer the table"
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


def scale_from_widths(widths: list[float]) -> CardScale | None:
    """The shrink that brings the median card into the learnt range (1 when it is in it);
    None with no card measured."""
    if not widths:
        return None
    median = float(np.median(widths))
    shrink = 1.0 if median <= LEARNT_MAX else max(SMALLEST_SHRINK, LEARNT_MIDDLE / median)
    return CardScale(round(shrink, 3), median, len(widths))


def measure_card_scale(reader, frames: Iterable[np.ndarray]) -> CardScale | None:
    """The card scale of a camera from some of its frames (``reader``: a ``CardReader``)."""
    widths: list[float] = []
    for frame in frames:
        widths += card_widths(reader.find(frame, zoom_out=PROBE_PASSES), frame.shape)
    return scale_from_widths(widths)


class ScaledReader:
    """A ``CardReader`` for a table camera: reads with the extra passes until
    ``PROBE_FRAMES`` frames have shown ``PROBE_CARDS`` cards, then detects once per frame,
    shrunk by the measured scale. ``shrink`` fixes the scale instead of measuring it;
    ``measured`` starts from a scale measured already (by another game's reader)."""

    def __init__(
        self, reader, shrink: float | None = None, measured: CardScale | None = None
    ) -> None:
        self.reader = reader
        self.fixed = shrink is not None
        self.scale = CardScale(shrink, None, 0) if shrink is not None else measured
        self._widths: list[float] = []
        self._frames = 0

    def reset(self) -> None:
        """Measure again (the camera may have moved); a fixed scale stays."""
        if not self.fixed:
            self.scale, self._widths, self._frames = None, [], 0

    @property
    def measuring(self) -> bool:
        return self.scale is None

    def __call__(self, frame: np.ndarray) -> Detections:
        if self.scale is not None:
            return self.reader.find(frame, 0, self.scale.shrink)
        found = self.reader.find(frame, zoom_out=PROBE_PASSES)
        widths = card_widths(found, frame.shape)
        if widths:
            self._widths += widths
            self._frames += 1
        if self._frames >= PROBE_FRAMES and len(self._widths) >= PROBE_CARDS:
            self.scale = scale_from_widths(self._widths)
        return found
