"""Finding the one card in the capture zone, and a live guided capture from the camera.

The card is found by what changed against the empty zone (the guide's first picture), so
capture needs no card detector and works for a deck no model has seen. The crop is made
with Vision I's own rectification, so a fine-tune sees the very pixels the runtime will.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.runtime.rectify import MIN_CROP, quad_to_obb, rectify
from vision.table.frames import Frame
from vision.table.motion import MotionGate

CROP = MIN_CROP  # crops are cut at least this large (rectify.crop_side)
Box = tuple[float, float, float, float]  # normalised x1, y1, x2, y2


class CaptureError(RuntimeError):
    """No card (or more than one thing) in the capture zone."""


def zone_pixels(image: np.ndarray, zone: Box) -> tuple[int, int, int, int]:
    """The zone's x1, y1, x2, y2 in the image's pixels."""
    h, w = image.shape[:2]
    return int(zone[0] * w), int(zone[1] * h), int(zone[2] * w), int(zone[3] * h)


# What changed against the empty photo is a card only if it has a card's shape: its sides in
# the deck's proportion within this factor, filling this share of its box, and covering at most
# this share of the zone. A re-exposed or shifted empty photo makes most of the table "change"
# (measured on rendered passes: exposure ×1.15 or a 5-pixel shift found boxes up to 10 times the
# card's area, squarer or longer than a card); the same passes' true cards stayed within 1.4 of
# the aspect (the few beyond it: a card half the table's colour, found in part). The zone share
# is generous: a zone drawn tight round the card holds a true card over half of it (half
# refused 2 right photos of `bench.table teach`'s check passes).
ASPECT_TOLERANCE = 1.4
MIN_FILL = 0.6
MAX_ZONE_SHARE = 0.85
# ... and the table round it at most this much brighter or darker than in the empty photo (a
# camera's own exposure drifts a few per cent between shots; rendered passes: ±5 % each)
MAX_GAIN = 1.15
MISMATCH = "the empty photo does not match this one: same place, same light"


def find_card(
    image: np.ndarray,
    empty: np.ndarray,
    zone: Box = (0.0, 0.0, 1.0, 1.0),
    threshold: int = 30,
    aspect: float | None = None,
) -> tuple[float, float, float, float, float]:
    """The card's rotated box (cx, cy, w, h, theta radians) in frame pixels. ``aspect``, the
    deck's width over height: what changed must have a card's proportions (either way up)."""
    if image.shape[:2] != empty.shape[:2]:  # numpy would refuse to compare them
        raise CaptureError(
            f"{image.shape[1]}×{image.shape[0]} pixels but the empty-zone photo is"
            f" {empty.shape[1]}×{empty.shape[0]}: take every photo from the same place,"
            " the same way up"
        )
    x1, y1, x2, y2 = zone_pixels(image, zone)
    if x2 - x1 < 8 or y2 - y1 < 8:
        raise CaptureError(f"the capture zone is {x2 - x1}×{y2 - y1} pixels: give a larger --zone")
    a = cv2.GaussianBlur(image[y1:y2, x1:x2], (5, 5), 0).astype(np.int16)
    b = cv2.GaussianBlur(empty[y1:y2, x1:x2], (5, 5), 0).astype(np.int16)
    diff = (np.abs(a - b).max(2) > threshold).astype(np.uint8) * 255
    diff = cv2.morphologyEx(diff, cv2.MORPH_CLOSE, np.ones((7, 7), np.uint8))
    diff = cv2.morphologyEx(diff, cv2.MORPH_OPEN, np.ones((5, 5), np.uint8))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(diff)
    if n < 2:
        raise CaptureError("no card in the capture zone")
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[best, cv2.CC_STAT_AREA] < 0.01 * diff.size:
        raise CaptureError("no card in the capture zone")
    ys, xs = np.nonzero(lab == best)
    hull = cv2.convexHull(np.stack([xs + x1, ys + y1], 1).astype(np.float32))
    rect = cv2.minAreaRect(hull)
    _other_light(a, b, lab == best)
    _not_a_card(rect, stats[best, cv2.CC_STAT_AREA], diff.size, aspect)
    return quad_to_obb(cv2.boxPoints(rect))


def _other_light(photo: np.ndarray, empty: np.ndarray, blob: np.ndarray) -> None:
    """Raise CaptureError when the table around what changed is brighter or darker than in
    the empty photo by more than ``MAX_GAIN``: an empty photo taken in other light. Under a
    lamp only the lit middle changes past the threshold, a blob a card's shape that the shape
    checks take for the card; the dim table round it changed by the same factor all the same.
    Skipped when too little table is left round the blob to tell (a zone tight round the card)."""
    around = ~cv2.dilate(blob.astype(np.uint8), np.ones((9, 9), np.uint8)).astype(bool)
    lit, was = photo.mean(2)[around], empty.mean(2)[around]
    seen = was > 20  # a ratio of near-black pixels is noise
    if seen.sum() < 0.05 * blob.size:
        return
    gain = float(np.median(lit[seen] / was[seen]))
    if not 1 / MAX_GAIN <= gain <= MAX_GAIN:
        raise CaptureError(
            f"the table round the card is {gain:.2f} times as bright as in the empty photo:"
            f" {MISMATCH}"
        )


def _not_a_card(rect, pixels: int, zone_pixels: int, aspect: float | None) -> None:
    """Raise CaptureError when the changed blob (``rect``, its minimum-area box) is no card."""
    w, h = rect[1]
    area = max(w * h, 1.0)
    ratio = min(w, h) / max(w, h, 1.0)
    card = min(aspect, 1 / aspect) if aspect else ratio
    shaped = 1 / ASPECT_TOLERANCE <= ratio / card <= ASPECT_TOLERANCE
    if area > MAX_ZONE_SHARE * zone_pixels or pixels < MIN_FILL * area or not shaped:
        raise CaptureError(
            f"what changed is {w:.0f}×{h:.0f} pixels, not card-shaped: {MISMATCH},"
            " the whole card in the zone"
        )


def photo_problems(
    empty_path: Path,
    empty: np.ndarray | None,
    photos: list[tuple[Path, np.ndarray | None]],
    zone,
    aspect: float | None = None,
) -> list[str]:
    """What is wrong with a folder of teaching photos, one line per photo (unreadable, or no
    card of the deck's ``aspect`` found in the zone against the empty photo), so a family fixes
    them all in one go."""
    if empty is None:
        return [f"{empty_path}: cannot read this image"]
    x1, y1, x2, y2 = zone_pixels(empty, zone)
    if x2 - x1 < 8 or y2 - y1 < 8:  # said once, not once for every photo
        return [
            f"{empty_path}: the capture zone is {x2 - x1}×{y2 - y1} pixels: give a larger --zone"
        ]
    problems = []
    for path, image in photos:
        if image is None:
            problems.append(f"{path}: cannot read this image")
            continue
        try:
            find_card(image, empty, zone, aspect=aspect)
        except CaptureError as exc:
            problems.append(f"{path}: {exc}")
    return problems


def crop_card(
    image_bgr: np.ndarray,
    empty_bgr: np.ndarray,
    zone: Box = (0, 0, 1, 1),
    size: int = CROP,
    aspect: float | None = None,
) -> np.ndarray:
    """The card as an upright size×size RGB crop, as Vision I's classifiers see cards."""
    obb = find_card(image_bgr, empty_bgr, zone, aspect=aspect)
    return np.ascontiguousarray(rectify(image_bgr[..., ::-1], obb, size))


@dataclass
class LiveCapture:
    """Guided capture from a camera: ask for a card, wait until one lies still in the zone,
    take it, wait until the zone is clear again, ask for the next.

    ``still_frames`` consecutive frames without motion in the zone count as "lying still";
    what lies still is taken only if it has a card's shape (``aspect``: the deck's)."""

    zone: Box
    still_frames: int = 8
    say: Callable[[str], None] = print
    aspect: float | None = None
    # called with each photo as it is taken: (None, the empty zone), then (i, the i-th card)
    on_photo: Callable[[int | None, np.ndarray], None] | None = None

    def run(
        self, frames: Iterable[Frame], prompts: list[str]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        gate = MotionGate(settle_frames=0)
        empty: np.ndarray | None = None
        shots: list[np.ndarray] = []
        still = 0
        waiting_clear = False
        warned = False  # said once per card why what lies still is not taken
        self.say("Clear the capture zone.")
        for frame in frames:
            gate.should_detect(frame.image)
            moving = gate.moving_fraction(self.zone) > 0.01
            still = 0 if moving else still + 1
            if still < self.still_frames:
                continue
            if empty is None:
                empty = frame.image.copy()
                if self.on_photo:
                    self.on_photo(None, empty)
                self.say(f"Put down {prompts[0]}.")
                continue
            problem = None  # something lies in the zone, but not a card alone
            try:
                find_card(frame.image, empty, self.zone, aspect=self.aspect)
                present = True
            except CaptureError as exc:
                present = False
                problem = None if str(exc).startswith("no card") else str(exc)
            if waiting_clear:
                if not present and problem is None:
                    waiting_clear = False
                    self.say(f"Put down {prompts[len(shots)]}.")
                continue
            if present:
                shots.append(frame.image.copy())
                if self.on_photo:
                    self.on_photo(len(shots) - 1, shots[-1])
                if len(shots) == len(prompts):
                    self.say("Done: every card is captured.")
                    return empty, shots
                waiting_clear = True
                warned = False
                self.say("Got it. Take the card away.")
            elif problem and not warned:
                warned = True
                self.say(f"Not taken: {problem}.")
        raise CaptureError(f"the camera stopped after {len(shots)} of {len(prompts)} cards")
