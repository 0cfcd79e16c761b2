"""Motion gating: do not re-detect an unchanged table.

A table is still most of the time. Comparing a small grey thumbnail with the one the
detector last saw costs well under a millisecond; the detector costs tens. The gate
opens when the picture moved since the previous frame (something is happening) or
differs from the last detected picture (something changed while we were not looking).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass
class MotionGate:
    thumb_size: tuple[int, int] = (80, 60)
    pixel_delta: int = 20  # grey levels that count as a changed pixel
    changed_fraction: float = 0.004  # share of thumbnail pixels that must change
    settle_frames: int = 2  # keep detecting this many frames after motion stops

    def __post_init__(self) -> None:
        self._previous: np.ndarray | None = None
        self._detected: np.ndarray | None = None
        self._settle = 0
        # Pixels of the thumbnail that changed since the previous frame (where things move).
        self.moving: np.ndarray = np.zeros(self.thumb_size[::-1], bool)

    def moving_fraction(self, box: tuple[float, float, float, float]) -> float:
        """Share of a normalised box's thumbnail pixels that moved in the last frame."""
        h, w = self.moving.shape
        x1, y1, x2, y2 = box
        c1, r1 = int(x1 * w), int(y1 * h)
        c2, r2 = max(c1 + 1, int(np.ceil(x2 * w))), max(r1 + 1, int(np.ceil(y2 * h)))
        patch = self.moving[r1:r2, c1:c2]
        return float(patch.mean()) if patch.size else 0.0

    def thumbnail(self, image: np.ndarray) -> np.ndarray:
        grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        return cv2.resize(grey, self.thumb_size, interpolation=cv2.INTER_AREA)

    def _differs(self, a: np.ndarray | None, b: np.ndarray) -> bool:
        if a is None:
            return True
        diff = cv2.absdiff(a, b)
        return np.count_nonzero(diff > self.pixel_delta) > self.changed_fraction * diff.size

    def should_detect(self, image: np.ndarray) -> bool:
        thumb = self.thumbnail(image)
        if self._previous is None:
            self.moving = np.zeros(thumb.shape, bool)
        else:
            self.moving = cv2.absdiff(self._previous, thumb) > self.pixel_delta
        moving = self._differs(self._previous, thumb)
        self._previous = thumb
        if moving:
            self._settle = self.settle_frames
        elif self._settle > 0:
            self._settle -= 1
            moving = True
        if moving or self._differs(self._detected, thumb):
            self._detected = thumb
            return True
        return False

    # --- per-zone gating (the watcher): detect only when a still zone changed -------------
    def observe(self, image: np.ndarray) -> None:
        """Take a frame: update ``moving`` (what moved since the previous frame)."""
        thumb = self.thumbnail(image)
        if self._previous is None:
            self.moving = np.zeros(thumb.shape, bool)
        else:
            self.moving = cv2.absdiff(self._previous, thumb) > self.pixel_delta
        self._previous = thumb

    def changed_since_detection(self, box: tuple[float, float, float, float]) -> float:
        """Share of a box's pixels that differ from the picture the detector last saw."""
        if self._detected is None or self._previous is None:
            return 1.0
        h, w = self._previous.shape
        x1, y1, x2, y2 = box
        c1, r1 = int(x1 * w), int(y1 * h)
        c2, r2 = max(c1 + 1, int(np.ceil(x2 * w))), max(r1 + 1, int(np.ceil(y2 * h)))
        diff = cv2.absdiff(self._previous[r1:r2, c1:c2], self._detected[r1:r2, c1:c2])
        return float((diff > self.pixel_delta).mean()) if diff.size else 0.0

    def mark_detected(self) -> None:
        """The detector has just seen the current frame."""
        self._detected = self._previous
